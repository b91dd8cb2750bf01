// The interface between the AES front end (aes.c: argument checks, CTR tails, the accelerator
// lock) and the backends (aes_soft.c, and one file per accelerator coupling).

#ifndef COUPLET_AES_BACKEND_H_
#define COUPLET_AES_BACKEND_H_

#include <couplet/aes.h>
#include <couplet/aes_held.h>

typedef struct couplet_aes_backend {
  couplet_aes_backend_id_t id;
  const char *name;
  // True when the backend drives the (single, shared) AES accelerator: the front end then
  // holds the accelerator lock around every call into the backend.
  bool uses_accelerator;
  // Makes ctx->key (ctx->key_len bytes) ready for use: expands it in software, or loads and
  // expands it in the accelerator. Writes all of ctx->round_keys (zeros past the schedule) or
  // none of it, so that no part of an earlier, longer key stays behind.
  couplet_status_t (*set_key)(couplet_aes_ctx_t *ctx);
  // Processes `blocks` whole blocks (blocks >= 1) of `mode`, updating iv as the mode defines
  // (iv is NULL for ECB). Arguments are already checked.
  couplet_status_t (*crypt)(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                            uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks);
  // Removes any copy of ctx's key the backend holds outside ctx (may be NULL).
  couplet_status_t (*zeroize)(couplet_aes_ctx_t *ctx);
  // The authenticated layer's modes (aes_aead.c) this backend's crypt takes besides the five of
  // couplet_aes_mode_t: a mask of (1u << AES_MODE_CBC_MAC), (1u << AES_MODE_GCM), (1u << AES_MODE_GHASH);
  // 0: none, and aes_aead.c builds them from CBC, CTR and GHASH in C. With them, crypt's `iv` is:
  //   CBC_MAC: the 16-byte MAC, mac = AES(mac ^ block) per block; `out` is NULL.
  //   GCM: 48 bytes {ctr[16], s[16], h[16]} (couplet_aes_gcm_ctx_t's order): CTR encryption whose
  //        counter is ctr's last 4 bytes as a big-endian 32-bit integer incremented mod 2^32
  //        (inc32; bytes 0..11 never change), and s = (s ^ C) * H over each ciphertext block C
  //        (the output when encrypting, the input when decrypting).
  //   GHASH: the same 48 bytes; s = (s ^ X) * H over each input block X; ctr untouched; `out` NULL.
  // In these two modes a backend may leave S and H unwritten when couplet_aes_accel.ghash_state
  // is `iv`: the engine holds them already (couplet_aes_session_crypt below says why); one that
  // does sets ghash_state to `iv` when it reads S back.
  uint32_t aead_modes;
} couplet_aes_backend_t;

// A backend's table, written in one place for every backend: `ID` names its id
// (COUPLET_AES_BACKEND_<ID>), then come its name and the fields above in their order.
#define AES_BACKEND_TABLE(ID, name_, uses_accelerator_, set_key_, crypt_, zeroize_, aead_modes_) \
  {.id = COUPLET_AES_BACKEND_##ID, .name = (name_), .uses_accelerator = (uses_accelerator_),     \
   .set_key = (set_key_), .crypt = (crypt_), .zeroize = (zeroize_), .aead_modes = (aead_modes_)}

// A session of the authenticated layer (aes_aead.c): one AEAD call takes the accelerator once
// (when `ctx`'s backend uses it) and runs several backend calls inside.
//   begin: COUPLET_ERR_NULL, COUPLET_ERR_STATE (not initialised, or no key), COUPLET_ERR_BUSY
//          (the accelerator is taken; nothing changed); COUPLET_OK: call end afterwards.
//   crypt: ctx->backend->crypt with `mode` a couplet_aes_mode_t or one of the backend's
//          aead_modes (the caller checks), `blocks` >= 0 whole blocks; after a failure no key is
//          resident. The backends reload the key themselves when another context's is resident.
//          couplet_aes_accel.ghash_state: a backend that reads S back into a GCM or GHASH call's
//          `iv` sets it to `iv`'s address (aes_hw.h); a failure and the session's end make it 0,
//          and it is 0 outside sessions. So while it names `iv`, the session's last GCM or GHASH
//          call was on `iv` and succeeded, and the engine holds the S it read back and the H it
//          wrote from `iv`: only those two modes change them, nothing else touches the engine
//          within the session (the accelerator lock), and ZEROIZE, the only action that clears
//          them, needs the lock too. The caller promises that within a session it does not
//          change a state's s or h after a GCM or GHASH call on it, nor puts another state at
//          its address (aes_aead.c: a context's s and h change only before its first such call
//          of a session; J0's GHASH runs on a state of its own).
//   end:   gives the accelerator back.
couplet_status_t couplet_aes_session_begin(couplet_aes_ctx_t *ctx) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_session_crypt(couplet_aes_ctx_t *ctx, uint32_t mode, bool decrypt, uint8_t *iv,
                                           const uint8_t *in, uint8_t *out, size_t blocks) COUPLET_MUST_CHECK;
void couplet_aes_session_end(couplet_aes_ctx_t *ctx);

// One per backend; a hardware backend is linked only when the SoC configuration has it.
extern const couplet_aes_backend_t couplet_aes_backend_soft;
extern const couplet_aes_backend_t couplet_aes_backend_tight;
extern const couplet_aes_backend_t couplet_aes_backend_mem;
extern const couplet_aes_backend_t couplet_aes_backend_mmio;
extern const couplet_aes_backend_t couplet_aes_backend_mmio_irq;
extern const couplet_aes_backend_t couplet_aes_backend_dma;
extern const couplet_aes_backend_t couplet_aes_backend_zkn;

#endif  // COUPLET_AES_BACKEND_H_
