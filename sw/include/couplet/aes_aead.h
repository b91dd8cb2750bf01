// Authenticated encryption and MACs on AES, with the backend model of couplet/aes.h: AES-CCM
// (SP 800-38C, RFC 3610), CCM* as IEEE 802.15.4 uses it, AES-GCM (SP 800-38D) and AES-CMAC
// (SP 800-38B). Every call takes an initialised couplet_aes_ctx_t with its key (any backend),
// so the same code runs on the software backend and on every coupling of the accelerator.
//
// How each mode uses the backend (docs/aead.md):
//   - CCM and CMAC are CBC-MAC beside CTR: on the accelerator the MAC runs in its CBC_MAC mode
//     (no output is written), elsewhere as CBC encryption into a small scratch buffer.
//   - GCM is CTR with a 32-bit counter plus GHASH over the associated data and the ciphertext.
//     An engine built with `ghash_bits` runs both in its GCM and GHASH modes; elsewhere GHASH
//     runs in constant-time C (no table indexed by secret data) beside the backend's CTR.
//
// Sharing: as couplet/aes.h. Each call that has work to do (every one-shot call, start, finish
// and verify, and the streaming calls given data) takes the accelerator once for its length and
// returns COUPLET_ERR_BUSY at once, with nothing changed, if another thread holds it.
//
// Errors are checked in this order, and a refused call writes no output and changes no context:
// COUPLET_ERR_NULL (a pointer that is NULL with a nonzero length, or a context), COUPLET_ERR_STATE
// (an AES context without a key; a streaming context not started, in the wrong phase, or whose
// AES context lost or changed its key since start), COUPLET_ERR_ARG (nonce, IV, tag length,
// level), COUPLET_ERR_LEN (a length beyond what the mode can encode), COUPLET_ERR_BUSY. Errors of
// the backend itself (COUPLET_ERR_HW, COUPLET_ERR_TIMEOUT) end a streaming computation (its
// context is wiped and must be started again) and leave the output of a one-shot call zeroed.
//
// Decryption: the one-shot calls check the tag in constant time before they return; when it does
// not match they return COUPLET_ERR_AUTH and zero the whole output buffer (len bytes), so no
// plaintext a caller could use is left. The streaming calls cannot hold the data back: their
// update calls write plaintext before the tag is known, and a caller must discard it unless the
// final verify returns COUPLET_OK.
//
// Buffers: `in` and `out` may be the same buffer, but must not otherwise overlap. Any alignment.
// A NULL pointer with a zero length is allowed. Secrets (subkeys, tag masks, keystream) are wiped
// from the contexts by finish and verify, and from the stack before each call returns.

#ifndef COUPLET_AES_AEAD_H_
#define COUPLET_AES_AEAD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/aes.h>
#include <couplet/status.h>

// ------------------------------------------------------------------------------ AES-CMAC
// Tags of 1 to 16 bytes (the first tag_len bytes of the full MAC). Errors: COUPLET_ERR_NULL,
// COUPLET_ERR_STATE (a context without a key, or a CMAC context not started), COUPLET_ERR_ARG
// (tag_len), COUPLET_ERR_BUSY.
typedef struct {
  couplet_aes_ctx_t *aes;
  uint8_t k1[16];     // subkeys (secret; wiped by final and verify)
  uint8_t k2[16];
  uint8_t mac[16];    // CBC-MAC chaining value
  uint8_t buf[16];    // the last block, held back until it is known whether it is the final one
  uint32_t buf_len;
  uint32_t state;     // nonzero while started
  uint32_t key_id;    // aes->key_id at start: a key changed since is refused (COUPLET_ERR_STATE)
} couplet_aes_cmac_ctx_t;

couplet_status_t couplet_aes_cmac_start(couplet_aes_cmac_ctx_t *cmac,
                                        couplet_aes_ctx_t *aes) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_cmac_update(couplet_aes_cmac_ctx_t *cmac, const uint8_t *data,
                                         size_t len) COUPLET_MUST_CHECK;
// Ends the computation (the context must be started again for another message).
couplet_status_t couplet_aes_cmac_finish(couplet_aes_cmac_ctx_t *cmac, uint8_t *tag,
                                         size_t tag_len) COUPLET_MUST_CHECK;
// COUPLET_ERR_AUTH when `tag` is not the message's (compared in constant time).
couplet_status_t couplet_aes_cmac_verify(couplet_aes_cmac_ctx_t *cmac, const uint8_t *tag,
                                         size_t tag_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_cmac(couplet_aes_ctx_t *aes, const uint8_t *data, size_t len,
                                  uint8_t *tag, size_t tag_len) COUPLET_MUST_CHECK;

// ------------------------------------------------------------------------------ AES-CCM
// nonce_len 7..13 (the length field takes 15 - nonce_len bytes, which bounds len: COUPLET_ERR_LEN
// beyond), tag_len 4, 6, 8, 10, 12, 14 or 16 (else COUPLET_ERR_ARG).
couplet_status_t couplet_aes_ccm_encrypt(couplet_aes_ctx_t *aes, const uint8_t *nonce,
                                         size_t nonce_len, const uint8_t *aad, size_t aad_len,
                                         const uint8_t *in, uint8_t *out, size_t len,
                                         uint8_t *tag, size_t tag_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_decrypt(couplet_aes_ctx_t *aes, const uint8_t *nonce,
                                         size_t nonce_len, const uint8_t *aad, size_t aad_len,
                                         const uint8_t *in, uint8_t *out, size_t len,
                                         const uint8_t *tag, size_t tag_len) COUPLET_MUST_CHECK;

// Streaming CCM: CCM puts both lengths in its first block, so they are given at the start. Then
// the associated data (any pieces, aad_len bytes in all: COUPLET_ERR_LEN beyond; message data
// before all of it, or associated data after message data: COUPLET_ERR_STATE), then the message
// (any pieces, msg_len bytes in all: COUPLET_ERR_LEN beyond, COUPLET_ERR_STATE at finish or verify
// before all of it). One direction per stream: finish ends an encryption, verify a decryption
// (COUPLET_ERR_STATE for the other).
typedef struct {
  couplet_aes_ctx_t *aes;
  uint8_t mac[16];    // CBC-MAC chaining value
  uint8_t ctr[16];    // the next counter block
  uint8_t s0[16];     // AES(A0), the tag's mask (secret until the tag is out)
  uint8_t buf[16];    // a partial block of associated data or message
  uint8_t ks[16];     // keystream of the partial message block
  size_t aad_left;
  size_t msg_left;
  uint32_t buf_len;
  uint32_t tag_len;
  uint32_t state;     // nonzero while started; which phase
  uint32_t key_id;    // aes->key_id at start
} couplet_aes_ccm_ctx_t;

couplet_status_t couplet_aes_ccm_start(couplet_aes_ccm_ctx_t *ccm, couplet_aes_ctx_t *aes,
                                       const uint8_t *nonce, size_t nonce_len, size_t aad_len,
                                       size_t msg_len, size_t tag_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_aad(couplet_aes_ccm_ctx_t *ccm, const uint8_t *aad,
                                     size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_encrypt_update(couplet_aes_ccm_ctx_t *ccm, const uint8_t *in,
                                                uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_decrypt_update(couplet_aes_ccm_ctx_t *ccm, const uint8_t *in,
                                                uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_finish(couplet_aes_ccm_ctx_t *ccm, uint8_t *tag) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_verify(couplet_aes_ccm_ctx_t *ccm,
                                        const uint8_t *tag) COUPLET_MUST_CHECK;

// ------------------------------------------------------------------------------ CCM* (802.15.4)
// IEEE 802.15.4's security levels 1..7 (0 secures nothing: COUPLET_ERR_ARG): MIC of 0, 4, 8 or
// 16 bytes (level & 3) and encryption of the payload iff level & 4. The header `a` is
// authenticated; the payload is encrypted (levels 4..7) or only authenticated and copied to
// `out` (levels 1..3). The nonce is 13 bytes (source address, frame counter, level).
// Level 4 (encryption only) has no MIC: `mic` may be NULL, and `a` is not used. Levels 4..7 take
// len up to 65535 (the 2-byte length field; COUPLET_ERR_LEN beyond). Decryption returns
// COUPLET_ERR_AUTH and zeroes `out` when the MIC does not match.
couplet_status_t couplet_aes_ccm_star_encrypt(couplet_aes_ctx_t *aes, uint32_t level,
                                              const uint8_t nonce[13], const uint8_t *a,
                                              size_t a_len, const uint8_t *in, uint8_t *out,
                                              size_t len, uint8_t *mic) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ccm_star_decrypt(couplet_aes_ctx_t *aes, uint32_t level,
                                              const uint8_t nonce[13], const uint8_t *a,
                                              size_t a_len, const uint8_t *in, uint8_t *out,
                                              size_t len, const uint8_t *mic) COUPLET_MUST_CHECK;

// ------------------------------------------------------------------------------ AES-GCM
// iv_len >= 1 (12 is the fast and recommended one; else COUPLET_ERR_ARG for 0), tag_len 4..16
// (else COUPLET_ERR_ARG). SP 800-38D's limits: len up to 2^36 - 32 bytes, aad_len and iv_len up
// to 2^61 - 1 (COUPLET_ERR_LEN beyond, COUPLET_ERR_ARG for iv_len), which a 32-bit size_t never
// reaches in one call (the streaming calls count across calls).
couplet_status_t couplet_aes_gcm_encrypt(couplet_aes_ctx_t *aes, const uint8_t *iv, size_t iv_len,
                                         const uint8_t *aad, size_t aad_len, const uint8_t *in,
                                         uint8_t *out, size_t len, uint8_t *tag,
                                         size_t tag_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_gcm_decrypt(couplet_aes_ctx_t *aes, const uint8_t *iv, size_t iv_len,
                                         const uint8_t *aad, size_t aad_len, const uint8_t *in,
                                         uint8_t *out, size_t len, const uint8_t *tag,
                                         size_t tag_len) COUPLET_MUST_CHECK;

// Streaming GCM: start, the associated data (any pieces, all before the first update:
// COUPLET_ERR_STATE after), the message (any pieces), then finish (encryption) or verify
// (decryption; COUPLET_ERR_STATE for the other direction).
typedef struct {
  couplet_aes_ctx_t *aes;
  uint8_t ctr[16];    // the next counter block; followed by s and h, the GCM state the
  uint8_t s[16];      // accelerator's GCM mode takes (IV, GHASH_S, GHASH_H): keep the order
  uint8_t h[16];      // the hash key AES(0) (secret)
  uint8_t ek_j0[16];  // AES(J0), the tag's mask (secret until the tag is out)
  uint8_t buf[16];    // a partial block of associated data or ciphertext
  uint8_t ks[16];     // keystream of the partial message block
  uint64_t aad_bytes;
  uint64_t msg_bytes;
  uint32_t buf_len;
  uint32_t state;     // nonzero while started; which phase
  uint32_t key_id;    // aes->key_id at start
} couplet_aes_gcm_ctx_t;

couplet_status_t couplet_aes_gcm_start(couplet_aes_gcm_ctx_t *gcm, couplet_aes_ctx_t *aes,
                                       const uint8_t *iv, size_t iv_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_gcm_aad(couplet_aes_gcm_ctx_t *gcm, const uint8_t *aad,
                                     size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_gcm_encrypt_update(couplet_aes_gcm_ctx_t *gcm, const uint8_t *in,
                                                uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_gcm_decrypt_update(couplet_aes_gcm_ctx_t *gcm, const uint8_t *in,
                                                uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_gcm_finish(couplet_aes_gcm_ctx_t *gcm, uint8_t *tag,
                                        size_t tag_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_gcm_verify(couplet_aes_gcm_ctx_t *gcm, const uint8_t *tag,
                                        size_t tag_len) COUPLET_MUST_CHECK;

#endif  // COUPLET_AES_AEAD_H_
