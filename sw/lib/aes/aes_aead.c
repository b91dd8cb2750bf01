// Authenticated encryption and MACs on AES (couplet/aes_aead.h): CMAC, CCM, CCM* and GCM, on any
// backend, through aes.c's sessions (aes_backend.h): each call takes the accelerator once and runs
// its blocks as backend calls inside.
//
// Two ways per backend, chosen by the backend's aead_modes:
//   - the engine's modes: CBC-MACs (CMAC, CCM) in its CBC_MAC mode, whole blocks in one call
//     and no output; GCM's message blocks in its GCM mode (CTR with inc32 and GHASH of the
//     ciphertext in one pass), the associated data, partial blocks and the length block in its
//     GHASH mode, on the 48-byte state {ctr, s, h} that couplet_aes_gcm_ctx_t keeps in order;
//   - otherwise the five modes of couplet/aes.h: CBC-MACs as CBC encryption into a small stack
//     scratch (wiped), GCM as CTR (split where the low 32 bits of the counter wrap, and the upper
//     96 bits put back: our CTR increments all 128 bits) beside GHASH in constant-time C
//     (aes_ghash.c).
// Partial blocks (associated data, message tails, streaming pieces) wait in the context; a
// message tail is XORed with a keystream block (the counter block encrypted).
//
// Constant time: no branch or address depends on a key, a message or a tag. Lengths, nonces,
// IVs and the phase of a stream are public; tags are compared by ORing the XORs of all bytes.
//
// Cost on the software backend (CV32E40X, measured over 1 KiB with a 16-byte AAD, AES-128): GCM
// about 3600 cycles per block (CTR 2120 + GHASH 1510), CCM about 6300 (CBC-MAC and CTR), CMAC
// about 4200; a 16-byte message with 16 bytes of AAD costs 17,500 (GCM: H and AES(J0) are two
// more blocks, in one backend call) and 29,100 (CCM) in all (`couplet bench aead`).

#include <couplet/aes_aead.h>

#include <couplet/wipe.h>

#include "../word_access.h"
#include "aes_backend.h"
#include "aes_ghash.h"

#define BLOCK COUPLET_AES_BLOCK_BYTES
#define MODE_BIT(mode) (1u << (mode))

// CBC-MAC without the engine's mode: CBC encryption, this many blocks per backend call, into a
// stack scratch. Each call of the software backend costs about 1000 cycles beside its blocks
// (about 4000 each), so 8 blocks keep that under 3%.
#define MAC_SCRATCH_BLOCKS 8u

// SP 800-38D's limits: the message 2^39 - 256 bits, the associated data and the IV 2^64 - 1 bits.
#define GCM_MAX_MSG ((UINT64_C(1) << 36) - 32u)
#define GCM_MAX_AAD ((UINT64_C(1) << 61) - 1u)

// Phases of the streaming contexts (`state`): 0 is not started; the other values are unlikely
// in memory that was never a started context.
#define CMAC_STARTED 0x434d4143u
#define CCM_AAD 0x43434d01u  // associated data still to come
#define CCM_MSG 0x43434d02u  // the message, no direction chosen yet
#define CCM_ENC 0x43434d03u
#define CCM_DEC 0x43434d04u
#define GCM_AAD 0x47434d01u
#define GCM_ENC 0x47434d02u
#define GCM_DEC 0x47434d03u

// The GCM and GHASH modes take {ctr, s, h} as one 48-byte block of state.
_Static_assert(offsetof(couplet_aes_gcm_ctx_t, s) == offsetof(couplet_aes_gcm_ctx_t, ctr) + 16u &&
                   offsetof(couplet_aes_gcm_ctx_t, h) == offsetof(couplet_aes_gcm_ctx_t, ctr) + 32u,
               "the engine's GCM state is ctr, s, h in a row");

// ---------------------------------------------------------------------------------------------
// Bytes. Loops rather than memcpy/memset, which picolibc runs a byte at a time as a library call
// (tests/test_aead_host.py checks the object calls none); the empty asm keeps GCC from turning
// the loops into those calls. The contexts' blocks and the blocks on the stack below are
// word-aligned (ALIGNED), so copies, zeroings and wipes move words, four to an iteration: on
// CV32E40X a byte loop costs about six cycles a byte and every taken branch three, and the
// copies and wipes around a call's few blocks were most of its cost (a profile of the 127-byte
// 802.15.4 frame on mem: 1,350 of its 2,250 cycles).

#define ALIGNED _Alignas(4)

typedef uint32_t __attribute__((may_alias)) word_t;

static bool word_aligned(const void *p) {
  return ((uintptr_t)p & 3u) == 0u;
}

// Words, four to an iteration, then the last word of the range again (overlapping the words
// before it) for a length that is not a multiple of 4: no byte loop unless n < 4. dst and src do
// not overlap (or are the same buffer).
static void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n) {
  if (n < 4u) {
    for (size_t i = 0; i < n; ++i) {
      dst[i] = src[i];
      __asm__ volatile("");
    }
    return;
  }
  size_t i = 0;
  for (; i + 16u <= n; i += 16u) {
    couplet_store_le32_any(&dst[i], couplet_load_le32_any(&src[i]));
    couplet_store_le32_any(&dst[i + 4u], couplet_load_le32_any(&src[i + 4u]));
    couplet_store_le32_any(&dst[i + 8u], couplet_load_le32_any(&src[i + 8u]));
    couplet_store_le32_any(&dst[i + 12u], couplet_load_le32_any(&src[i + 12u]));
    __asm__ volatile("");
  }
  for (; i + 4u <= n; i += 4u) {
    couplet_store_le32_any(&dst[i], couplet_load_le32_any(&src[i]));
    __asm__ volatile("");
  }
  if (i != n) {
    couplet_store_le32_any(&dst[n - 4u], couplet_load_le32_any(&src[n - 4u]));
  }
}

static void zero_bytes(uint8_t *dst, size_t n) {
  if (n < 4u) {
    for (size_t i = 0; i < n; ++i) {
      dst[i] = 0u;
      __asm__ volatile("");
    }
    return;
  }
  size_t i = 0;
  for (; i + 16u <= n; i += 16u) {
    couplet_store_le32_any(&dst[i], 0u);
    couplet_store_le32_any(&dst[i + 4u], 0u);
    couplet_store_le32_any(&dst[i + 8u], 0u);
    couplet_store_le32_any(&dst[i + 12u], 0u);
    __asm__ volatile("");
  }
  for (; i + 4u <= n; i += 4u) {
    couplet_store_le32_any(&dst[i], 0u);
    __asm__ volatile("");
  }
  if (i != n) {
    couplet_store_le32_any(&dst[n - 4u], 0u);
  }
}

// Whole blocks of word-aligned buffers (the contexts' and the stack's), without a loop.
static void block_copy(uint8_t dst[16], const uint8_t src[16]) {
  word_t *d = (word_t *)(void *)dst;
  const word_t *s = (const word_t *)(const void *)src;
  d[0] = s[0];
  d[1] = s[1];
  d[2] = s[2];
  d[3] = s[3];
}

static void block_zero(uint8_t dst[16]) {
  word_t *d = (word_t *)(void *)dst;
  d[0] = 0u;
  d[1] = 0u;
  d[2] = 0u;
  d[3] = 0u;
}

static void block_xor(uint8_t dst[16], const uint8_t a[16], const uint8_t b[16]) {
  word_t *d = (word_t *)(void *)dst;
  const word_t *x = (const word_t *)(const void *)a;
  const word_t *y = (const word_t *)(const void *)b;
  d[0] = x[0] ^ y[0];
  d[1] = x[1] ^ y[1];
  d[2] = x[2] ^ y[2];
  d[3] = x[3] ^ y[3];
}

// Zeroes that stay: secrets before their memory goes out of scope, and the output of a failed
// decryption, which the caller may never read.
static void wipe_bytes(void *p, size_t n) {
  if (word_aligned(p) && n % 4u == 0u) {  // the contexts and blocks
    couplet_wipe_words((uint32_t *)p, n / 4u);
    return;
  }
  volatile uint8_t *v = (volatile uint8_t *)p;
  size_t i = 0;
  for (; i < n && !word_aligned((const void *)&v[i]); ++i) {
    v[i] = 0u;
  }
  const size_t words = (n - i) / 4u;
  couplet_wipe_words((uint32_t *)(void *)(uintptr_t)&v[i], words);
  for (i += words * 4u; i < n; ++i) {
    v[i] = 0u;
  }
  __asm__ volatile("" ::: "memory");
}

// A context (n bytes, a constant multiple of 4: always inlined) wiped with wipe_bytes's
// guarantee in straight-line stores: couplet_wipe_words's loop takes a branch every four words,
// which cost 72 cycles for the 34 words of the GCM context that every one-shot call wipes; these
// take 34. One caller per context type (the functions below), so that the stores are not
// repeated at every call site.
static inline __attribute__((always_inline)) void wipe_context(void *ctx, size_t n) {
  volatile uint32_t *v = (volatile uint32_t *)ctx;
#pragma GCC unroll 64
  for (size_t i = 0; i < n / 4u; ++i) {
    v[i] = 0u;
  }
  __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void cmac_wipe(couplet_aes_cmac_ctx_t *m) {
  _Static_assert(sizeof *m % 4u == 0u, "a CMAC context is whole words");
  wipe_context(m, sizeof *m);
}

static __attribute__((noinline)) void ccm_wipe(couplet_aes_ccm_ctx_t *c) {
  _Static_assert(sizeof *c % 4u == 0u, "a CCM context is whole words");
  wipe_context(c, sizeof *c);
}

static __attribute__((noinline)) void gcm_wipe(couplet_aes_gcm_ctx_t *g) {
  _Static_assert(sizeof *g % 4u == 0u, "a GCM context is whole words");
  wipe_context(g, sizeof *g);
}

// Nonzero when the n bytes differ, in time that depends on n only.
static uint32_t bytes_differ(const uint8_t *a, const uint8_t *b, size_t n) {
  uint32_t diff = 0u;
  size_t i = 0;
  for (; i + 4u <= n; i += 4u) {
    diff |= couplet_load_le32_any(&a[i]) ^ couplet_load_le32_any(&b[i]);
    __asm__("" : "+r"(diff));
  }
  for (; i < n; ++i) {
    diff |= (uint32_t)(a[i] ^ b[i]);
    __asm__("" : "+r"(diff));  // no early exit, whatever the compiler knows about the loop
  }
  return diff;
}

static uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

// v as 8 big-endian bytes (constant shifts only: a variable 64-bit shift is a library call on
// RV32). A byte-reversed word store each: GCC expanded store_be32's four byte stores into one
// word built with 17 instructions (the GCM lengths block: about 70 cycles); couplet_bswap32 is 8.
static void store_be64(uint8_t p[8], uint64_t v) {
  couplet_store_le32_any(p, couplet_bswap32((uint32_t)(v >> 32)));
  couplet_store_le32_any(&p[4], couplet_bswap32((uint32_t)v));
}

// True when v needs more than `bytes` bytes.
static bool exceeds_bytes(uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes && i < 8u; ++i) {
    v >>= 8;
  }
  return v != 0u;
}

// v > max, for a size_t widened to 64 bits (a function, so that a 32-bit target's compiler does
// not call the comparison always false: it is, there).
static bool above(uint64_t v, uint64_t max) {
  return v > max;
}

static size_t min_size(size_t a, size_t b) {
  return a < b ? a : b;
}

// What can be known of an AES context without following its backend pointer: initialised
// (backend set) with a key. couplet_aes_session_begin checks it in full; this one lets
// COUPLET_ERR_STATE come before the argument checks, as in couplet/aes.h.
static bool keyed(const couplet_aes_ctx_t *aes) {
  return aes->backend != NULL && aes->backend_id < (uint32_t)COUPLET_AES_BACKEND_COUNT &&
         (aes->key_len == 16u || aes->key_len == 24u || aes->key_len == 32u) && aes->key_id != 0u;
}

// A started streaming context whose AES context still has the key it started with.
static bool same_key(const couplet_aes_ctx_t *aes, uint32_t key_id) {
  return aes != NULL && keyed(aes) && aes->key_id == key_id;
}

// ---------------------------------------------------------------------------------------------
// Blocks through the backend (the session is held)

static bool has_modes(const couplet_aes_ctx_t *aes, uint32_t modes) {
  return (aes->backend->aead_modes & modes) == modes;
}

static couplet_status_t encrypt_block(couplet_aes_ctx_t *aes, const uint8_t in[16], uint8_t out[16]) {
  return couplet_aes_session_crypt(aes, COUPLET_AES_ECB, false, NULL, in, out, 1u);
}

// CBC-MAC without the engine's mode: CBC encryption into a stack scratch (out of line, so that
// the engine's path below sets up no frame for the scratch).
static __attribute__((noinline)) couplet_status_t cbc_mac_by_cbc(couplet_aes_ctx_t *aes, uint8_t mac[16],
                                                                const uint8_t *in, size_t blocks) {
  uint32_t scratch[MAC_SCRATCH_BLOCKS * BLOCK / 4u];
  couplet_status_t status = COUPLET_OK;
  while (blocks != 0u && status == COUPLET_OK) {
    const size_t n = min_size(blocks, MAC_SCRATCH_BLOCKS);
    status = couplet_aes_session_crypt(aes, COUPLET_AES_CBC, false, mac, in, (uint8_t *)scratch, n);
    in += n * BLOCK;
    blocks -= n;
  }
  couplet_wipe_words(scratch, sizeof scratch / sizeof scratch[0]);
  return status;
}

// mac = AES(mac ^ block) over `blocks` blocks.
static couplet_status_t cbc_mac(couplet_aes_ctx_t *aes, uint8_t mac[16], const uint8_t *in, size_t blocks) {
  if (blocks == 0u) {
    return COUPLET_OK;
  }
  if (has_modes(aes, MODE_BIT(AES_MODE_CBC_MAC))) {
    return couplet_aes_session_crypt(aes, AES_MODE_CBC_MAC, false, mac, in, NULL, blocks);
  }
  return cbc_mac_by_cbc(aes, mac, in, blocks);
}

// CTR with the whole block as the counter (CCM: its counter field never carries further).
static couplet_status_t ctr_blocks(couplet_aes_ctx_t *aes, uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                                   size_t blocks) {
  return couplet_aes_session_crypt(aes, COUPLET_AES_CTR, false, ctr, in, out, blocks);
}

// GCM's inc32: the last 4 bytes as a big-endian counter mod 2^32.
static void inc32(uint8_t ctr[16]) {
  store_be32(&ctr[12], load_be32(&ctr[12]) + 1u);
}

// CTR with inc32 from the 128-bit CTR of couplet/aes.h: a call ends where the low word wraps, and
// bytes 0..11 are put back after it (the carry went into them).
static couplet_status_t ctr32_blocks(couplet_aes_ctx_t *aes, uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                                     size_t blocks) {
  couplet_status_t status = COUPLET_OK;
  while (blocks != 0u && status == COUPLET_OK) {
    const uint64_t room = (UINT64_C(1) << 32) - load_be32(&ctr[12]);
    const size_t n = (uint64_t)blocks > room ? (size_t)room : blocks;
    ALIGNED uint8_t upper[12];
    copy_bytes(upper, ctr, sizeof upper);
    status = ctr_blocks(aes, ctr, in, out, n);
    copy_bytes(ctr, upper, sizeof upper);
    in += n * BLOCK;
    out += n * BLOCK;
    blocks -= n;
  }
  return status;
}

// ---------------------------------------------------------------------------------------------
// CMAC (SP 800-38B)

// out = in * x in GF(2^128) (the subkey doubling): a shift left and 0x87 where the top bit was set.
static void double_block(uint8_t out[16], const uint8_t in[16]) {
  const uint8_t mask = (uint8_t)(0u - (uint32_t)(in[0] >> 7));
  for (unsigned i = 0; i < 15u; ++i) {
    out[i] = (uint8_t)(in[i] << 1 | in[i + 1u] >> 7);
  }
  out[15] = (uint8_t)((uint8_t)(in[15] << 1) ^ (mask & 0x87u));
}

static couplet_status_t cmac_start_locked(couplet_aes_cmac_ctx_t *m, couplet_aes_ctx_t *aes) {
  ALIGNED uint8_t l[16];
  block_zero(l);
  const couplet_status_t status = encrypt_block(aes, l, l);
  double_block(m->k1, l);
  double_block(m->k2, m->k1);
  wipe_bytes(l, sizeof l);
  block_zero(m->mac);
  block_zero(m->buf);
  m->aes = aes;
  m->buf_len = 0u;
  m->key_id = aes->key_id;
  m->state = CMAC_STARTED;
  return status;
}

// The last block (whole or not) stays in buf until finish, which treats it apart.
static couplet_status_t cmac_update_locked(couplet_aes_cmac_ctx_t *m, const uint8_t *data, size_t len) {
  if (len <= BLOCK - m->buf_len) {
    copy_bytes(&m->buf[m->buf_len], data, len);
    m->buf_len += (uint32_t)len;
    return COUPLET_OK;
  }
  couplet_status_t status = COUPLET_OK;
  if (m->buf_len != 0u) {
    const size_t fill = BLOCK - m->buf_len;
    copy_bytes(&m->buf[m->buf_len], data, fill);
    data += fill;
    len -= fill;
    status = cbc_mac(m->aes, m->mac, m->buf, 1u);
    m->buf_len = 0u;
  }
  // 1 <= len here: all whole blocks but the last go through now.
  const size_t blocks = (len - 1u) / BLOCK;
  if (status == COUPLET_OK) {
    status = cbc_mac(m->aes, m->mac, data, blocks);
  }
  data += blocks * BLOCK;
  len -= blocks * BLOCK;
  copy_bytes(m->buf, data, len);
  m->buf_len = (uint32_t)len;
  return status;
}

static couplet_status_t cmac_finish_locked(couplet_aes_cmac_ctx_t *m, uint8_t tag[16]) {
  ALIGNED uint8_t last[16];
  const uint8_t *subkey = m->k1;
  if (m->buf_len < BLOCK) {  // padded: 10*
    m->buf[m->buf_len] = 0x80u;
    zero_bytes(&m->buf[m->buf_len + 1u], BLOCK - 1u - m->buf_len);
    subkey = m->k2;
  }
  for (unsigned i = 0; i < BLOCK; ++i) {
    last[i] = (uint8_t)(m->buf[i] ^ subkey[i]);
  }
  const couplet_status_t status = cbc_mac(m->aes, m->mac, last, 1u);
  block_copy(tag, m->mac);
  wipe_bytes(last, sizeof last);
  return status;
}

couplet_status_t couplet_aes_cmac_start(couplet_aes_cmac_ctx_t *cmac, couplet_aes_ctx_t *aes) {
  if (cmac == NULL || aes == NULL) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  status = cmac_start_locked(cmac, aes);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    cmac_wipe(cmac);
  }
  return status;
}

static bool cmac_started(const couplet_aes_cmac_ctx_t *cmac) {
  return cmac->state == CMAC_STARTED && same_key(cmac->aes, cmac->key_id);
}

couplet_status_t couplet_aes_cmac_update(couplet_aes_cmac_ctx_t *cmac, const uint8_t *data, size_t len) {
  if (cmac == NULL || (data == NULL && len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!cmac_started(cmac)) {
    return COUPLET_ERR_STATE;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  couplet_status_t status = couplet_aes_session_begin(cmac->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  status = cmac_update_locked(cmac, data, len);
  couplet_aes_session_end(cmac->aes);
  if (status != COUPLET_OK) {
    cmac_wipe(cmac);
  }
  return status;
}

// finish and verify: the checks, the last block, and the end of the context.
static couplet_status_t cmac_end(couplet_aes_cmac_ctx_t *cmac, const uint8_t *tag, size_t tag_len,
                                 uint8_t full[16]) {
  if (cmac == NULL || (tag == NULL && tag_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!cmac_started(cmac)) {
    return COUPLET_ERR_STATE;
  }
  if (tag_len == 0u || tag_len > BLOCK) {
    return COUPLET_ERR_ARG;
  }
  couplet_status_t status = couplet_aes_session_begin(cmac->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  status = cmac_finish_locked(cmac, full);
  couplet_aes_session_end(cmac->aes);
  cmac_wipe(cmac);
  return status;
}

couplet_status_t couplet_aes_cmac_finish(couplet_aes_cmac_ctx_t *cmac, uint8_t *tag, size_t tag_len) {
  ALIGNED uint8_t full[16];
  const couplet_status_t status = cmac_end(cmac, tag, tag_len, full);
  if (status == COUPLET_OK) {
    copy_bytes(tag, full, tag_len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_cmac_verify(couplet_aes_cmac_ctx_t *cmac, const uint8_t *tag, size_t tag_len) {
  ALIGNED uint8_t full[16];
  couplet_status_t status = cmac_end(cmac, tag, tag_len, full);
  if (status == COUPLET_OK && bytes_differ(full, tag, tag_len) != 0u) {
    status = COUPLET_ERR_AUTH;
  }
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_cmac(couplet_aes_ctx_t *aes, const uint8_t *data, size_t len, uint8_t *tag,
                                  size_t tag_len) {
  if (aes == NULL || (data == NULL && len != 0u) || (tag == NULL && tag_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  if (tag_len == 0u || tag_len > BLOCK) {
    return COUPLET_ERR_ARG;
  }
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_cmac_ctx_t m;
  ALIGNED uint8_t full[16];
  status = cmac_start_locked(&m, aes);
  if (status == COUPLET_OK && len != 0u) {
    status = cmac_update_locked(&m, data, len);
  }
  if (status == COUPLET_OK) {
    status = cmac_finish_locked(&m, full);
  }
  couplet_aes_session_end(aes);
  if (status == COUPLET_OK) {
    copy_bytes(tag, full, tag_len);
  }
  cmac_wipe(&m);
  wipe_bytes(full, sizeof full);
  return status;
}

// ---------------------------------------------------------------------------------------------
// CCM (SP 800-38C) and CCM* (IEEE 802.15.4): CBC-MAC of B0, the encoded associated data and the
// message, beside CTR from A1; the tag is the MAC masked with AES(A0). A tag length of 0 is
// CCM* without authentication (802.15.4 level 4): CTR from A1 alone.

static bool ccm_tag_len_ok(size_t tag_len) {
  return tag_len >= 4u && tag_len <= 16u && tag_len % 2u == 0u;
}

// The message length must fit the 15 - nonce_len bytes of B0's length field.
static bool ccm_len_ok(size_t nonce_len, size_t len) {
  return !exceeds_bytes((uint64_t)len, (unsigned)(15u - nonce_len));
}

// Associated data this short (2 length bytes + 46 = 3 blocks after B0) goes through the CBC-MAC
// with B0 in one backend call, when a one-shot call has all of it at the start: the seeds'
// messages and 802.15.4 headers then cost one call instead of three.
#define CCM_SHORT_AAD 46u

// `short_aad`: NULL, or all the associated data (aad_len <= CCM_SHORT_AAD), MACed with B0.
static couplet_status_t ccm_start_locked(couplet_aes_ccm_ctx_t *c, couplet_aes_ctx_t *aes, const uint8_t *nonce,
                                         size_t nonce_len, size_t aad_len, size_t msg_len, size_t tag_len,
                                         const uint8_t *short_aad) {
  const unsigned q = (unsigned)(15u - nonce_len);  // bytes of the length field and the counter
  c->aes = aes;
  c->key_id = aes->key_id;
  c->aad_left = aad_len;
  c->msg_left = msg_len;
  c->tag_len = (uint32_t)tag_len;
  c->buf_len = 0u;
  block_zero(c->mac);
  block_zero(c->buf);
  block_zero(c->ks);
  block_zero(c->s0);
  // A0: flags (q - 1), the nonce, counter 0.
  block_zero(c->ctr);
  c->ctr[0] = (uint8_t)(q - 1u);
  copy_bytes(&c->ctr[1], nonce, nonce_len);
  couplet_status_t status = COUPLET_OK;
  if (tag_len != 0u) {
    status = encrypt_block(aes, c->ctr, c->s0);
    // B0 (A0 with other flags and the message length in the counter's place), then, when all the
    // associated data is here and short, its length and itself, zero-padded: one CBC-MAC call.
    ALIGNED uint8_t head[16u + 2u + CCM_SHORT_AAD];
    block_copy(head, c->ctr);
    head[0] = (uint8_t)((aad_len != 0u ? 0x40u : 0u) | (uint32_t)((tag_len - 2u) / 2u) << 3 | (q - 1u));
    uint64_t len = (uint64_t)msg_len;
    for (unsigned i = 0; i < q; ++i) {
      head[15u - i] = (uint8_t)len;
      len >>= 8;
    }
    size_t blocks = 1u;
    const bool with_aad = short_aad != NULL && aad_len != 0u && aad_len <= CCM_SHORT_AAD;
    if (with_aad) {
      blocks = (16u + 2u + aad_len + BLOCK - 1u) / BLOCK;
      zero_bytes(&head[BLOCK], (blocks - 1u) * BLOCK);
      head[16] = (uint8_t)(aad_len >> 8);
      head[17] = (uint8_t)aad_len;
      copy_bytes(&head[18], short_aad, aad_len);
    }
    if (status == COUPLET_OK) {
      status = cbc_mac(aes, c->mac, head, blocks);
    }
    wipe_bytes(head, blocks * BLOCK);
    if (with_aad) {
      c->aad_left = 0u;
      aad_len = 0u;
    }
    // Longer associated data starts with its length: 2 bytes below 2^16 - 2^8, else 0xFFFE and 4
    // bytes below 2^32, else 0xFFFF and 8 bytes.
    if (aad_len != 0u) {
      const uint64_t a = (uint64_t)aad_len;
      ALIGNED uint8_t encoded[8];
      store_be64(encoded, a);
      if (a < 0xFF00u) {
        copy_bytes(c->buf, &encoded[6], 2u);
        c->buf_len = 2u;
      } else if (!exceeds_bytes(a, 4u)) {
        c->buf[0] = 0xFFu;
        c->buf[1] = 0xFEu;
        copy_bytes(&c->buf[2], &encoded[4], 4u);
        c->buf_len = 6u;
      } else {
        c->buf[0] = 0xFFu;
        c->buf[1] = 0xFFu;
        copy_bytes(&c->buf[2], encoded, 8u);
        c->buf_len = 10u;
      }
    }
  }
  c->ctr[15] = 1u;  // A1: the first counter block of the message
  c->state = aad_len != 0u ? CCM_AAD : CCM_MSG;
  return status;
}

static couplet_status_t ccm_aad_locked(couplet_aes_ccm_ctx_t *c, const uint8_t *aad, size_t len) {
  couplet_status_t status = COUPLET_OK;
  c->aad_left -= len;
  if (c->buf_len != 0u) {
    const size_t fill = min_size(BLOCK - c->buf_len, len);
    copy_bytes(&c->buf[c->buf_len], aad, fill);
    c->buf_len += (uint32_t)fill;
    aad += fill;
    len -= fill;
    if (c->buf_len == BLOCK) {
      status = cbc_mac(c->aes, c->mac, c->buf, 1u);
      c->buf_len = 0u;
    }
  }
  const size_t blocks = len / BLOCK;
  if (status == COUPLET_OK) {
    status = cbc_mac(c->aes, c->mac, aad, blocks);
  }
  if (len % BLOCK != 0u) {  // buf is empty here
    copy_bytes(c->buf, &aad[blocks * BLOCK], len % BLOCK);
    c->buf_len = (uint32_t)(len % BLOCK);
  }
  if (c->aad_left == 0u) {  // the last piece: zero-padded to a block
    if (c->buf_len != 0u && status == COUPLET_OK) {
      zero_bytes(&c->buf[c->buf_len], BLOCK - c->buf_len);
      status = cbc_mac(c->aes, c->mac, c->buf, 1u);
    }
    c->buf_len = 0u;
    c->state = CCM_MSG;
  }
  return status;
}

// XORs n bytes with the keystream from ks[at]; buf[at..] gets the plaintext (for the MAC).
static void ccm_partial(couplet_aes_ccm_ctx_t *c, bool decrypt, const uint8_t *in, uint8_t *out, size_t n,
                        uint32_t at) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t x = in[i];
    const uint8_t y = (uint8_t)(x ^ c->ks[at + i]);
    c->buf[at + i] = decrypt ? y : x;
    out[i] = y;
  }
}

static couplet_status_t ccm_update_locked(couplet_aes_ccm_ctx_t *c, bool decrypt, const uint8_t *in, uint8_t *out,
                                          size_t len) {
  const bool mac = c->tag_len != 0u;
  couplet_status_t status = COUPLET_OK;
  c->msg_left -= len;
  c->state = decrypt ? CCM_DEC : CCM_ENC;
  if (c->buf_len != 0u) {  // the rest of the block whose keystream is in ks
    const size_t fill = min_size(BLOCK - c->buf_len, len);
    ccm_partial(c, decrypt, in, out, fill, c->buf_len);
    c->buf_len += (uint32_t)fill;
    in += fill;
    out += fill;
    len -= fill;
    if (c->buf_len == BLOCK) {
      if (mac) {
        status = cbc_mac(c->aes, c->mac, c->buf, 1u);
      }
      wipe_bytes(c->ks, sizeof c->ks);
      c->buf_len = 0u;
    }
  }
  const size_t blocks = len / BLOCK;
  if (status == COUPLET_OK && blocks != 0u) {
    // The MAC reads the plaintext: the input before encrypting (in place too), the output after
    // decrypting.
    if (mac && !decrypt) {
      status = cbc_mac(c->aes, c->mac, in, blocks);
    }
    if (status == COUPLET_OK) {
      status = ctr_blocks(c->aes, c->ctr, in, out, blocks);
    }
    if (status == COUPLET_OK && mac && decrypt) {
      status = cbc_mac(c->aes, c->mac, out, blocks);
    }
  }
  const size_t tail = len % BLOCK;
  if (status == COUPLET_OK && tail != 0u) {  // buf is empty here
    block_zero(c->ks);
    status = ctr_blocks(c->aes, c->ctr, c->ks, c->ks, 1u);
    ccm_partial(c, decrypt, &in[blocks * BLOCK], &out[blocks * BLOCK], tail, 0u);
    c->buf_len = (uint32_t)tail;
  }
  return status;
}

static couplet_status_t ccm_finish_locked(couplet_aes_ccm_ctx_t *c, uint8_t tag[16]) {
  couplet_status_t status = COUPLET_OK;
  if (c->buf_len != 0u && c->tag_len != 0u) {
    zero_bytes(&c->buf[c->buf_len], BLOCK - c->buf_len);
    status = cbc_mac(c->aes, c->mac, c->buf, 1u);
  }
  block_xor(tag, c->mac, c->s0);
  return status;
}

// The checks of the one-shot CCM calls, in the contract's order.
static couplet_status_t ccm_check(const couplet_aes_ctx_t *aes, const uint8_t *nonce, size_t nonce_len,
                                  const uint8_t *aad, size_t aad_len, const uint8_t *in, const uint8_t *out,
                                  size_t len, const uint8_t *tag, size_t tag_len) {
  if (aes == NULL || (nonce == NULL && nonce_len != 0u) || (aad == NULL && aad_len != 0u) ||
      (len != 0u && (in == NULL || out == NULL)) || (tag == NULL && tag_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  if (nonce_len < 7u || nonce_len > 13u || !ccm_tag_len_ok(tag_len)) {
    return COUPLET_ERR_ARG;
  }
  if (!ccm_len_ok(nonce_len, len)) {
    return COUPLET_ERR_LEN;
  }
  return COUPLET_OK;
}

// One CCM message, checked, inside one session: the tag (all 16 bytes of it) into `full`.
// `out` is zeroed when anything fails after the session began.
static couplet_status_t ccm_one_shot(couplet_aes_ctx_t *aes, bool decrypt, const uint8_t *nonce, size_t nonce_len,
                                     const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
                                     size_t tag_len, uint8_t full[16]) {
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ccm_ctx_t c;
  status = ccm_start_locked(&c, aes, nonce, nonce_len, aad_len, len, tag_len, aad);
  if (status == COUPLET_OK && c.state == CCM_AAD) {
    status = ccm_aad_locked(&c, aad, aad_len);
  }
  if (status == COUPLET_OK && len != 0u) {
    status = ccm_update_locked(&c, decrypt, in, out, len);
  }
  if (status == COUPLET_OK) {
    status = ccm_finish_locked(&c, full);
  }
  couplet_aes_session_end(aes);
  ccm_wipe(&c);
  if (status != COUPLET_OK && len != 0u) {
    wipe_bytes(out, len);
  }
  return status;
}

couplet_status_t couplet_aes_ccm_encrypt(couplet_aes_ctx_t *aes, const uint8_t *nonce, size_t nonce_len,
                                         const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                                         size_t len, uint8_t *tag, size_t tag_len) {
  couplet_status_t status = ccm_check(aes, nonce, nonce_len, aad, aad_len, in, out, len, tag, tag_len);
  if (status != COUPLET_OK) {
    return status;
  }
  ALIGNED uint8_t full[16];
  status = ccm_one_shot(aes, false, nonce, nonce_len, aad, aad_len, in, out, len, tag_len, full);
  if (status == COUPLET_OK) {
    copy_bytes(tag, full, tag_len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_ccm_decrypt(couplet_aes_ctx_t *aes, const uint8_t *nonce, size_t nonce_len,
                                         const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                                         size_t len, const uint8_t *tag, size_t tag_len) {
  couplet_status_t status = ccm_check(aes, nonce, nonce_len, aad, aad_len, in, out, len, tag, tag_len);
  if (status != COUPLET_OK) {
    return status;
  }
  ALIGNED uint8_t full[16];
  status = ccm_one_shot(aes, true, nonce, nonce_len, aad, aad_len, in, out, len, tag_len, full);
  if (status == COUPLET_OK && bytes_differ(full, tag, tag_len) != 0u) {
    status = COUPLET_ERR_AUTH;
    wipe_bytes(out, len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

// ---- Streaming CCM

couplet_status_t couplet_aes_ccm_start(couplet_aes_ccm_ctx_t *ccm, couplet_aes_ctx_t *aes, const uint8_t *nonce,
                                       size_t nonce_len, size_t aad_len, size_t msg_len, size_t tag_len) {
  if (ccm == NULL || aes == NULL || (nonce == NULL && nonce_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  if (nonce_len < 7u || nonce_len > 13u || !ccm_tag_len_ok(tag_len)) {
    return COUPLET_ERR_ARG;
  }
  if (!ccm_len_ok(nonce_len, msg_len)) {
    return COUPLET_ERR_LEN;
  }
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  status = ccm_start_locked(ccm, aes, nonce, nonce_len, aad_len, msg_len, tag_len, NULL);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    ccm_wipe(ccm);
  }
  return status;
}

static bool ccm_in(const couplet_aes_ccm_ctx_t *ccm, uint32_t phase_a, uint32_t phase_b) {
  return (ccm->state == phase_a || ccm->state == phase_b) && same_key(ccm->aes, ccm->key_id);
}

couplet_status_t couplet_aes_ccm_aad(couplet_aes_ccm_ctx_t *ccm, const uint8_t *aad, size_t len) {
  if (ccm == NULL || (aad == NULL && len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!ccm_in(ccm, CCM_AAD, CCM_MSG)) {  // before the message: all of the AAD in, or not
    return COUPLET_ERR_STATE;
  }
  if (len > ccm->aad_left) {
    return COUPLET_ERR_LEN;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  couplet_status_t status = couplet_aes_session_begin(ccm->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ctx_t *aes = ccm->aes;
  status = ccm_aad_locked(ccm, aad, len);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    ccm_wipe(ccm);
  }
  return status;
}

static couplet_status_t ccm_update(couplet_aes_ccm_ctx_t *ccm, bool decrypt, const uint8_t *in, uint8_t *out,
                                   size_t len) {
  if (ccm == NULL || (len != 0u && (in == NULL || out == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (!ccm_in(ccm, CCM_MSG, decrypt ? CCM_DEC : CCM_ENC)) {
    return COUPLET_ERR_STATE;
  }
  if (len > ccm->msg_left) {
    return COUPLET_ERR_LEN;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  couplet_status_t status = couplet_aes_session_begin(ccm->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ctx_t *aes = ccm->aes;
  status = ccm_update_locked(ccm, decrypt, in, out, len);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    ccm_wipe(ccm);
  }
  return status;
}

couplet_status_t couplet_aes_ccm_encrypt_update(couplet_aes_ccm_ctx_t *ccm, const uint8_t *in, uint8_t *out,
                                                size_t len) {
  return ccm_update(ccm, false, in, out, len);
}

couplet_status_t couplet_aes_ccm_decrypt_update(couplet_aes_ccm_ctx_t *ccm, const uint8_t *in, uint8_t *out,
                                                size_t len) {
  return ccm_update(ccm, true, in, out, len);
}

// finish and verify: the checks, the tag, the end of the context. *tag_len gets the stream's.
static couplet_status_t ccm_end(couplet_aes_ccm_ctx_t *ccm, bool decrypt, const uint8_t *tag, uint8_t full[16],
                                size_t *tag_len) {
  if (ccm == NULL || tag == NULL) {
    return COUPLET_ERR_NULL;
  }
  if (!ccm_in(ccm, CCM_MSG, decrypt ? CCM_DEC : CCM_ENC) || ccm->msg_left != 0u) {
    return COUPLET_ERR_STATE;
  }
  couplet_status_t status = couplet_aes_session_begin(ccm->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ctx_t *aes = ccm->aes;
  *tag_len = ccm->tag_len;
  status = ccm_finish_locked(ccm, full);
  couplet_aes_session_end(aes);
  ccm_wipe(ccm);
  return status;
}

couplet_status_t couplet_aes_ccm_finish(couplet_aes_ccm_ctx_t *ccm, uint8_t *tag) {
  ALIGNED uint8_t full[16];
  size_t tag_len = 0u;
  const couplet_status_t status = ccm_end(ccm, false, tag, full, &tag_len);
  if (status == COUPLET_OK) {
    copy_bytes(tag, full, tag_len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_ccm_verify(couplet_aes_ccm_ctx_t *ccm, const uint8_t *tag) {
  ALIGNED uint8_t full[16];
  size_t tag_len = 0u;
  couplet_status_t status = ccm_end(ccm, true, tag, full, &tag_len);
  if (status == COUPLET_OK && bytes_differ(full, tag, tag_len) != 0u) {
    status = COUPLET_ERR_AUTH;
  }
  wipe_bytes(full, sizeof full);
  return status;
}

// ---- CCM* (IEEE 802.15.4-2015 Annex B): nonce of 13 bytes, so lengths of 2 bytes.

// 0, 4, 8 or 16 bytes for level & 3 = 0..3.
static size_t ccm_star_mic_len(uint32_t level) {
  const uint32_t m = level & 3u;
  return m == 0u ? 0u : (size_t)2u << m;
}

static couplet_status_t ccm_star(couplet_aes_ctx_t *aes, bool decrypt, uint32_t level, const uint8_t *nonce,
                                 const uint8_t *a, size_t a_len, const uint8_t *in, uint8_t *out, size_t len,
                                 const uint8_t *mic_in, uint8_t *mic_out) {
  const size_t mic_len = ccm_star_mic_len(level);
  const uint8_t *mic = decrypt ? mic_in : mic_out;
  if (aes == NULL || nonce == NULL || (a == NULL && a_len != 0u) || (len != 0u && (in == NULL || out == NULL)) ||
      (mic == NULL && mic_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  if (level == 0u || level > 7u) {
    return COUPLET_ERR_ARG;
  }
  const bool encrypted = (level & 4u) != 0u;
  if (encrypted ? !ccm_len_ok(13u, len) : len > SIZE_MAX - a_len) {
    return COUPLET_ERR_LEN;
  }
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ccm_ctx_t c;
  ALIGNED uint8_t full[16];
  if (encrypted) {
    // Levels 4..7: the header is the associated data and the payload the message; level 4 has
    // no MIC, so no MAC at all (its header is not authenticated).
    const size_t aad_len = mic_len != 0u ? a_len : 0u;
    status = ccm_start_locked(&c, aes, nonce, 13u, aad_len, len, mic_len, a);
    if (status == COUPLET_OK && c.state == CCM_AAD) {
      status = ccm_aad_locked(&c, a, aad_len);
    }
    if (status == COUPLET_OK && len != 0u) {
      status = ccm_update_locked(&c, decrypt, in, out, len);
    }
  } else {
    // Levels 1..3: header and payload are all associated data; the payload goes out as it came.
    status = ccm_start_locked(&c, aes, nonce, 13u, a_len + len, 0u, mic_len, NULL);
    if (status == COUPLET_OK && a_len != 0u) {
      status = ccm_aad_locked(&c, a, a_len);
    }
    if (status == COUPLET_OK && len != 0u) {
      status = ccm_aad_locked(&c, in, len);
    }
  }
  if (status == COUPLET_OK) {
    status = ccm_finish_locked(&c, full);
  }
  couplet_aes_session_end(aes);
  if (status == COUPLET_OK && decrypt && bytes_differ(full, mic_in, mic_len) != 0u) {
    status = COUPLET_ERR_AUTH;
  }
  if (status == COUPLET_OK) {
    if (!encrypted) {
      copy_bytes(out, in, len);
    }
    if (!decrypt) {
      copy_bytes(mic_out, full, mic_len);
    }
  } else if (len != 0u) {
    wipe_bytes(out, len);
  }
  ccm_wipe(&c);
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_ccm_star_encrypt(couplet_aes_ctx_t *aes, uint32_t level, const uint8_t nonce[13],
                                              const uint8_t *a, size_t a_len, const uint8_t *in, uint8_t *out,
                                              size_t len, uint8_t *mic) {
  return ccm_star(aes, false, level, nonce, a, a_len, in, out, len, NULL, mic);
}

couplet_status_t couplet_aes_ccm_star_decrypt(couplet_aes_ctx_t *aes, uint32_t level, const uint8_t nonce[13],
                                              const uint8_t *a, size_t a_len, const uint8_t *in, uint8_t *out,
                                              size_t len, const uint8_t *mic) {
  return ccm_star(aes, true, level, nonce, a, a_len, in, out, len, mic, NULL);
}

// ---------------------------------------------------------------------------------------------
// GCM (SP 800-38D)

static bool gcm_engine(const couplet_aes_ctx_t *aes) {
  return has_modes(aes, MODE_BIT(AES_MODE_GCM) | MODE_BIT(AES_MODE_GHASH));
}

// {ctr, s, h}, as the engine's GCM and GHASH modes take it (the byte address of the context,
// so that the 48 bytes are one object).
static uint8_t *gcm_state(couplet_aes_gcm_ctx_t *g) {
  return (uint8_t *)g + offsetof(couplet_aes_gcm_ctx_t, ctr);
}

// s = (s ^ X) * H over whole blocks, on a 48-byte state {ctr, s, h}.
static couplet_status_t ghash_on(couplet_aes_ctx_t *aes, uint8_t state[48], const uint8_t *in, size_t blocks) {
  if (blocks == 0u) {
    return COUPLET_OK;
  }
  if (gcm_engine(aes)) {
    return couplet_aes_session_crypt(aes, AES_MODE_GHASH, false, state, in, NULL, blocks);
  }
  couplet_aes_ghash(&state[16], &state[32], in, blocks);
  return COUPLET_OK;
}

static couplet_status_t gcm_hash(couplet_aes_gcm_ctx_t *g, const uint8_t *in, size_t blocks) {
  return ghash_on(g->aes, gcm_state(g), in, blocks);
}

// Whole message blocks: CTR (inc32) and GHASH of the ciphertext.
static couplet_status_t gcm_blocks(couplet_aes_gcm_ctx_t *g, bool decrypt, const uint8_t *in, uint8_t *out,
                                   size_t blocks) {
  if (blocks == 0u) {
    return COUPLET_OK;
  }
  if (gcm_engine(g->aes)) {
    return couplet_aes_session_crypt(g->aes, AES_MODE_GCM, decrypt, gcm_state(g), in, out, blocks);
  }
  if (decrypt) {  // the ciphertext is the input: hashed before it is overwritten (in place)
    couplet_aes_ghash(g->s, g->h, in, blocks);
    return ctr32_blocks(g->aes, g->ctr, in, out, blocks);
  }
  const couplet_status_t status = ctr32_blocks(g->aes, g->ctr, in, out, blocks);
  if (status == COUPLET_OK) {
    couplet_aes_ghash(g->s, g->h, out, blocks);
  }
  return status;
}

// J0 for an IV of any length but 12 bytes: GHASH(IV || 0-pad || 0^64 || [len(IV)]_64), which
// needs H first; then AES(J0) and ctr = inc32(J0). The GHASH runs on a state of its own, so that
// the context's S is never changed after a GHASH call on it in the session (aes_backend.h:
// the engine may keep S and H from one GHASH call to the next). Out of line, so that the
// 12-byte IV's path saves no register for it.
static __attribute__((noinline)) couplet_status_t gcm_start_any_iv(couplet_aes_gcm_ctx_t *g, const uint8_t *iv,
                                                                   size_t iv_len) {
  couplet_aes_ctx_t *aes = g->aes;
  ALIGNED uint8_t j0[48];  // {ctr, s, h}: the counter is not used, S becomes J0
  block_zero(j0);
  block_zero(&j0[16]);
  block_zero(g->buf);
  couplet_status_t status = encrypt_block(aes, g->h, g->h);
  block_copy(&j0[32], g->h);
  const size_t blocks = iv_len / BLOCK;
  const size_t tail = iv_len % BLOCK;
  if (status == COUPLET_OK) {
    status = ghash_on(aes, j0, iv, blocks);
  }
  if (tail != 0u) {
    copy_bytes(g->buf, &iv[blocks * BLOCK], tail);
    if (status == COUPLET_OK) {
      status = ghash_on(aes, j0, g->buf, 1u);
    }
    block_zero(g->buf);
  }
  store_be64(&g->buf[8], (uint64_t)iv_len * 8u);
  if (status == COUPLET_OK) {
    status = ghash_on(aes, j0, g->buf, 1u);
  }
  block_zero(g->buf);
  block_copy(g->ctr, &j0[16]);
  wipe_bytes(j0, sizeof j0);  // H
  if (status == COUPLET_OK) {
    status = encrypt_block(aes, g->ctr, g->ek_j0);
  }
  inc32(g->ctr);
  return status;
}

static couplet_status_t gcm_start_locked(couplet_aes_gcm_ctx_t *g, couplet_aes_ctx_t *aes, const uint8_t *iv,
                                         size_t iv_len) {
  _Static_assert(offsetof(couplet_aes_gcm_ctx_t, ek_j0) == offsetof(couplet_aes_gcm_ctx_t, h) + 16u,
                 "H and AES(J0) come from one two-block call: h and ek_j0 in a row");
  g->aes = aes;
  g->key_id = aes->key_id;
  g->aad_bytes = 0u;
  g->msg_bytes = 0u;
  g->buf_len = 0u;
  g->state = GCM_AAD;
  // buf and ks are not zeroed: every byte of them is written before it is read (a partial
  // block is padded when it is closed; a keystream block is made before it is used).
  block_zero(g->s);
  block_zero(g->h);
  if (iv_len != 12u) {
    return gcm_start_any_iv(g, iv, iv_len);
  }
  // J0 = IV || 0^31 || 1 into ek_j0, and ctr = inc32(J0) = IV || 0^30 || 10, the first message
  // block's counter; then H = AES(0) and AES(J0) in one call, in place over h and ek_j0. The
  // IV's words are loaded as words, whatever its alignment (word_access.h).
  const uint32_t w0 = couplet_load_le32_any(iv);
  const uint32_t w1 = couplet_load_le32_any(&iv[4]);
  const uint32_t w2 = couplet_load_le32_any(&iv[8]);
  couplet_store_le32_any(g->ek_j0, w0);
  couplet_store_le32_any(&g->ek_j0[4], w1);
  couplet_store_le32_any(&g->ek_j0[8], w2);
  couplet_store_le32_any(&g->ek_j0[12], couplet_bswap32(1u));
  couplet_store_le32_any(g->ctr, w0);
  couplet_store_le32_any(&g->ctr[4], w1);
  couplet_store_le32_any(&g->ctr[8], w2);
  couplet_store_le32_any(&g->ctr[12], couplet_bswap32(2u));
  return couplet_aes_session_crypt(aes, COUPLET_AES_ECB, false, NULL, g->h, g->h, 2u);
}

static couplet_status_t gcm_aad_locked(couplet_aes_gcm_ctx_t *g, const uint8_t *aad, size_t len) {
  couplet_status_t status = COUPLET_OK;
  g->aad_bytes += (uint64_t)len;
  if (g->buf_len != 0u) {
    const size_t fill = min_size(BLOCK - g->buf_len, len);
    copy_bytes(&g->buf[g->buf_len], aad, fill);
    g->buf_len += (uint32_t)fill;
    aad += fill;
    len -= fill;
    if (g->buf_len == BLOCK) {
      status = gcm_hash(g, g->buf, 1u);
      g->buf_len = 0u;
    }
  }
  const size_t blocks = len / BLOCK;
  if (status == COUPLET_OK) {
    status = gcm_hash(g, aad, blocks);
  }
  if (len % BLOCK != 0u) {  // buf is empty here
    copy_bytes(g->buf, &aad[blocks * BLOCK], len % BLOCK);
    g->buf_len = (uint32_t)(len % BLOCK);
  }
  return status;
}

// The end of the associated data: its last block, zero-padded.
static couplet_status_t gcm_close_aad(couplet_aes_gcm_ctx_t *g) {
  couplet_status_t status = COUPLET_OK;
  if (g->buf_len != 0u) {
    zero_bytes(&g->buf[g->buf_len], BLOCK - g->buf_len);
    status = gcm_hash(g, g->buf, 1u);
    g->buf_len = 0u;
  }
  return status;
}

// XORs n bytes with the keystream from ks[at]; buf[at..] gets the ciphertext (for GHASH).
static void gcm_partial(couplet_aes_gcm_ctx_t *g, bool decrypt, const uint8_t *in, uint8_t *out, size_t n,
                        uint32_t at) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t x = in[i];
    const uint8_t y = (uint8_t)(x ^ g->ks[at + i]);
    g->buf[at + i] = decrypt ? x : y;
    out[i] = y;
  }
}

static couplet_status_t gcm_update_locked(couplet_aes_gcm_ctx_t *g, bool decrypt, const uint8_t *in, uint8_t *out,
                                          size_t len) {
  couplet_status_t status = COUPLET_OK;
  if (g->state == GCM_AAD) {
    status = gcm_close_aad(g);
  }
  g->state = decrypt ? GCM_DEC : GCM_ENC;
  g->msg_bytes += (uint64_t)len;
  if (g->buf_len != 0u && status == COUPLET_OK) {  // the rest of the block whose keystream is in ks
    const size_t fill = min_size(BLOCK - g->buf_len, len);
    gcm_partial(g, decrypt, in, out, fill, g->buf_len);
    g->buf_len += (uint32_t)fill;
    in += fill;
    out += fill;
    len -= fill;
    if (g->buf_len == BLOCK) {
      status = gcm_hash(g, g->buf, 1u);
      wipe_bytes(g->ks, sizeof g->ks);
      g->buf_len = 0u;
    }
  }
  const size_t blocks = len / BLOCK;
  if (status == COUPLET_OK) {
    status = gcm_blocks(g, decrypt, in, out, blocks);
  }
  const size_t tail = len % BLOCK;
  if (status == COUPLET_OK && tail != 0u) {  // buf is empty here
    status = encrypt_block(g->aes, g->ctr, g->ks);
    inc32(g->ctr);
    gcm_partial(g, decrypt, &in[blocks * BLOCK], &out[blocks * BLOCK], tail, 0u);
    g->buf_len = (uint32_t)tail;
  }
  return status;
}

static couplet_status_t gcm_finish_locked(couplet_aes_gcm_ctx_t *g, uint8_t tag[16]) {
  couplet_status_t status = gcm_close_aad(g);  // the associated data's or the message's last block
  ALIGNED uint8_t lengths[16];
  store_be64(lengths, g->aad_bytes * 8u);
  store_be64(&lengths[8], g->msg_bytes * 8u);
  if (status == COUPLET_OK) {
    status = gcm_hash(g, lengths, 1u);
  }
  block_xor(tag, g->s, g->ek_j0);
  return status;
}

// The tag out of `full` (word-aligned); GCM's tag is almost always whole: then four words in
// line (the tag at any address: word_access.h) instead of a call of copy_bytes and its loop.
static void gcm_copy_tag(uint8_t *tag, const uint8_t full[16], size_t tag_len) {
  if (tag_len != BLOCK) {
    copy_bytes(tag, full, tag_len);
    return;
  }
  const word_t *f = (const word_t *)(const void *)full;
  couplet_store_le32_any(tag, f[0]);
  couplet_store_le32_any(&tag[4], f[1]);
  couplet_store_le32_any(&tag[8], f[2]);
  couplet_store_le32_any(&tag[12], f[3]);
}

static bool gcm_iv_len_ok(size_t iv_len) {
  return iv_len != 0u && !above(iv_len, GCM_MAX_AAD);
}

static bool gcm_tag_len_ok(size_t tag_len) {
  return tag_len >= 4u && tag_len <= BLOCK;
}

static couplet_status_t gcm_one_shot(couplet_aes_ctx_t *aes, bool decrypt, const uint8_t *iv, size_t iv_len,
                                     const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
                                     const uint8_t *tag, size_t tag_len, uint8_t full[16]) {
  if (aes == NULL || (iv == NULL && iv_len != 0u) || (aad == NULL && aad_len != 0u) ||
      (len != 0u && (in == NULL || out == NULL)) || (tag == NULL && tag_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  if (!gcm_iv_len_ok(iv_len) || !gcm_tag_len_ok(tag_len)) {
    return COUPLET_ERR_ARG;
  }
  if (above(len, GCM_MAX_MSG) || above(aad_len, GCM_MAX_AAD)) {
    return COUPLET_ERR_LEN;
  }
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_gcm_ctx_t g;
  status = gcm_start_locked(&g, aes, iv, iv_len);
  if (status == COUPLET_OK && aad_len != 0u) {
    status = gcm_aad_locked(&g, aad, aad_len);
  }
  if (status == COUPLET_OK && len != 0u) {
    status = gcm_update_locked(&g, decrypt, in, out, len);
  }
  if (status == COUPLET_OK) {
    status = gcm_finish_locked(&g, full);
  }
  couplet_aes_session_end(aes);
  gcm_wipe(&g);
  if (status != COUPLET_OK && len != 0u) {
    wipe_bytes(out, len);
  }
  return status;
}

couplet_status_t couplet_aes_gcm_encrypt(couplet_aes_ctx_t *aes, const uint8_t *iv, size_t iv_len,
                                         const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                                         size_t len, uint8_t *tag, size_t tag_len) {
  ALIGNED uint8_t full[16];
  const couplet_status_t status =
      gcm_one_shot(aes, false, iv, iv_len, aad, aad_len, in, out, len, tag, tag_len, full);
  if (status == COUPLET_OK) {
    gcm_copy_tag(tag, full, tag_len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_gcm_decrypt(couplet_aes_ctx_t *aes, const uint8_t *iv, size_t iv_len,
                                         const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                                         size_t len, const uint8_t *tag, size_t tag_len) {
  ALIGNED uint8_t full[16];
  couplet_status_t status = gcm_one_shot(aes, true, iv, iv_len, aad, aad_len, in, out, len, tag, tag_len, full);
  if (status == COUPLET_OK && bytes_differ(full, tag, tag_len) != 0u) {
    status = COUPLET_ERR_AUTH;
    wipe_bytes(out, len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

// ---- Streaming GCM

couplet_status_t couplet_aes_gcm_start(couplet_aes_gcm_ctx_t *gcm, couplet_aes_ctx_t *aes, const uint8_t *iv,
                                       size_t iv_len) {
  if (gcm == NULL || aes == NULL || (iv == NULL && iv_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!keyed(aes)) {
    return COUPLET_ERR_STATE;
  }
  if (!gcm_iv_len_ok(iv_len)) {
    return COUPLET_ERR_ARG;
  }
  couplet_status_t status = couplet_aes_session_begin(aes);
  if (status != COUPLET_OK) {
    return status;
  }
  status = gcm_start_locked(gcm, aes, iv, iv_len);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    gcm_wipe(gcm);
  }
  return status;
}

static bool gcm_in(const couplet_aes_gcm_ctx_t *gcm, uint32_t phase_a, uint32_t phase_b) {
  return (gcm->state == phase_a || gcm->state == phase_b) && same_key(gcm->aes, gcm->key_id);
}

couplet_status_t couplet_aes_gcm_aad(couplet_aes_gcm_ctx_t *gcm, const uint8_t *aad, size_t len) {
  if (gcm == NULL || (aad == NULL && len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!gcm_in(gcm, GCM_AAD, GCM_AAD)) {
    return COUPLET_ERR_STATE;
  }
  if (above(len, GCM_MAX_AAD - gcm->aad_bytes)) {
    return COUPLET_ERR_LEN;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  couplet_status_t status = couplet_aes_session_begin(gcm->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ctx_t *aes = gcm->aes;
  status = gcm_aad_locked(gcm, aad, len);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    gcm_wipe(gcm);
  }
  return status;
}

static couplet_status_t gcm_update(couplet_aes_gcm_ctx_t *gcm, bool decrypt, const uint8_t *in, uint8_t *out,
                                   size_t len) {
  if (gcm == NULL || (len != 0u && (in == NULL || out == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (!gcm_in(gcm, GCM_AAD, decrypt ? GCM_DEC : GCM_ENC)) {
    return COUPLET_ERR_STATE;
  }
  if (above(len, GCM_MAX_MSG - gcm->msg_bytes)) {
    return COUPLET_ERR_LEN;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  couplet_status_t status = couplet_aes_session_begin(gcm->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ctx_t *aes = gcm->aes;
  status = gcm_update_locked(gcm, decrypt, in, out, len);
  couplet_aes_session_end(aes);
  if (status != COUPLET_OK) {
    gcm_wipe(gcm);
  }
  return status;
}

couplet_status_t couplet_aes_gcm_encrypt_update(couplet_aes_gcm_ctx_t *gcm, const uint8_t *in, uint8_t *out,
                                                size_t len) {
  return gcm_update(gcm, false, in, out, len);
}

couplet_status_t couplet_aes_gcm_decrypt_update(couplet_aes_gcm_ctx_t *gcm, const uint8_t *in, uint8_t *out,
                                                size_t len) {
  return gcm_update(gcm, true, in, out, len);
}

// finish and verify: the checks, the tag, the end of the context.
static couplet_status_t gcm_end(couplet_aes_gcm_ctx_t *gcm, bool decrypt, const uint8_t *tag, size_t tag_len,
                                uint8_t full[16]) {
  if (gcm == NULL || (tag == NULL && tag_len != 0u)) {
    return COUPLET_ERR_NULL;
  }
  if (!gcm_in(gcm, GCM_AAD, decrypt ? GCM_DEC : GCM_ENC)) {
    return COUPLET_ERR_STATE;
  }
  if (!gcm_tag_len_ok(tag_len)) {
    return COUPLET_ERR_ARG;
  }
  couplet_status_t status = couplet_aes_session_begin(gcm->aes);
  if (status != COUPLET_OK) {
    return status;
  }
  couplet_aes_ctx_t *aes = gcm->aes;
  status = gcm_finish_locked(gcm, full);
  couplet_aes_session_end(aes);
  gcm_wipe(gcm);
  return status;
}

couplet_status_t couplet_aes_gcm_finish(couplet_aes_gcm_ctx_t *gcm, uint8_t *tag, size_t tag_len) {
  ALIGNED uint8_t full[16];
  const couplet_status_t status = gcm_end(gcm, false, tag, tag_len, full);
  if (status == COUPLET_OK) {
    gcm_copy_tag(tag, full, tag_len);
  }
  wipe_bytes(full, sizeof full);
  return status;
}

couplet_status_t couplet_aes_gcm_verify(couplet_aes_gcm_ctx_t *gcm, const uint8_t *tag, size_t tag_len) {
  ALIGNED uint8_t full[16];
  couplet_status_t status = gcm_end(gcm, true, tag, tag_len, full);
  if (status == COUPLET_OK && bytes_differ(full, tag, tag_len) != 0u) {
    status = COUPLET_ERR_AUTH;
  }
  wipe_bytes(full, sizeof full);
  return status;
}
