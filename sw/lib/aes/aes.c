// The AES front end: argument checks, the backend table of this SoC configuration, the CTR
// tail, and the lock that gives one call at a time the (single, shared) accelerator.
//
// The common call (a context with its key, whole blocks, word-aligned buffers, the key already
// in the accelerator) of the instruction and register couplings runs inline in each API
// function, so that it is one leaf function with no indirect call: its cost is then the
// coupling's own instructions plus a few (README, "AES: what each coupling costs"). Everything
// else, and every error, takes the checked path through the backend table, which decides the
// error code: the common call only recognises calls that cannot fail a check.

#include <couplet/aes.h>

#include <stdatomic.h>

#include <couplet/aes_held.h>

#include <couplet/soc_config.h>
#include <couplet/wipe.h>

#include "aes_backend.h"

// Host builds of this file (tests/test_aes_host.py) have stand-in backends and no accelerator:
// there every call takes the backend table.
#if defined(__riscv) && defined(COUPLET_AES_CUSTOM_OPCODE) && COUPLET_AES_HAS_TIGHT
#define INLINE_XIF 1
#else
#define INLINE_XIF 0
#endif
#if defined(__riscv) && defined(COUPLET_AES_BASE) && COUPLET_AES_HAS_MMIO
#define INLINE_MMIO 1
#else
#define INLINE_MMIO 0
#endif
#if INLINE_XIF || INLINE_MMIO
#include "aes_hw.h"
#endif

// Error paths are marked unlikely so that the compiler lays the checks out as a run of
// untaken branches: on CV32E40X a taken branch costs two more cycles.
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect(!!(x), 1)

#ifndef COUPLET_AES_DEFAULT_BACKEND
#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_SOFT
#endif

// What the accelerator's engine was built with (couplet/soc_config.h); a SoC without it, and a
// host build, refuse nothing. Every check below is a constant false for a full engine, so that
// its code is as it was without the options.
#define ENGINE_ALL_KEY_SIZES ((1u << AES_KEY_LEN_128) | (1u << AES_KEY_LEN_192) | (1u << AES_KEY_LEN_256))
#ifdef COUPLET_AES_ENGINE_DECRYPT
#define ENGINE_DECRYPT COUPLET_AES_ENGINE_DECRYPT
#define ENGINE_KEY_SIZES COUPLET_AES_ENGINE_KEY_SIZES
#else
#define ENGINE_DECRYPT 1
#define ENGINE_KEY_SIZES ENGINE_ALL_KEY_SIZES
#endif

// ECB and CBC decryption need the inverse cipher; the other modes run the forward one both ways.
static inline __attribute__((always_inline)) bool engine_refuses_mode(couplet_aes_mode_t mode, bool decrypt) {
  return !ENGINE_DECRYPT && decrypt && (mode == COUPLET_AES_ECB || mode == COUPLET_AES_CBC);
}

// key_len is 16, 24 or 32 here.
static inline __attribute__((always_inline)) bool engine_refuses_key_len(size_t key_len) {
  return ENGINE_KEY_SIZES != ENGINE_ALL_KEY_SIZES &&
         ((ENGINE_KEY_SIZES >> (AES_KEY_LEN_128 + (key_len - 16u) / 8u)) & 1u) == 0u;
}

// Only the backends this SoC has are referenced, so only they are linked.
static const couplet_aes_backend_t *const backends[COUPLET_AES_BACKEND_COUNT] = {
    [COUPLET_AES_BACKEND_SOFT] = &couplet_aes_backend_soft,
#if defined(COUPLET_AES_HAS_TIGHT) && COUPLET_AES_HAS_TIGHT
    [COUPLET_AES_BACKEND_TIGHT] = &couplet_aes_backend_tight,
#endif
#if defined(COUPLET_AES_HAS_MEM) && COUPLET_AES_HAS_MEM
    [COUPLET_AES_BACKEND_MEM] = &couplet_aes_backend_mem,
#endif
#if defined(COUPLET_AES_HAS_MMIO) && COUPLET_AES_HAS_MMIO
    [COUPLET_AES_BACKEND_MMIO] = &couplet_aes_backend_mmio,
    [COUPLET_AES_BACKEND_MMIO_IRQ] = &couplet_aes_backend_mmio_irq,
#endif
#if defined(COUPLET_AES_HAS_DMA) && COUPLET_AES_HAS_DMA
    [COUPLET_AES_BACKEND_DMA] = &couplet_aes_backend_dma,
#endif
#if defined(COUPLET_AES_HAS_ZKN) && COUPLET_AES_HAS_ZKN
    [COUPLET_AES_BACKEND_ZKN] = &couplet_aes_backend_zkn,
#endif
};

static const char *const backend_names[COUPLET_AES_BACKEND_COUNT] = {
    [COUPLET_AES_BACKEND_SOFT] = "soft",
    [COUPLET_AES_BACKEND_TIGHT] = "tight",
    [COUPLET_AES_BACKEND_MEM] = "mem",
    [COUPLET_AES_BACKEND_MMIO] = "mmio",
    [COUPLET_AES_BACKEND_MMIO_IRQ] = "mmio_irq",
    [COUPLET_AES_BACKEND_DMA] = "dma",
    [COUPLET_AES_BACKEND_ZKN] = "zkn",
};

// The accelerator's state (couplet/aes_held.h). Its lock is held for the length of every call
// into a backend that drives the accelerator, and from hold to release. A try-lock, never a
// spin: a thread that finds it taken gets COUPLET_ERR_BUSY and decides itself whether to retry
// or yield (spinning could wait forever on a thread it preempted). A word rather than an
// atomic_flag: on RV32A the take is then one amoswap.w.aq and the release one amoswap.w.rl (a
// byte-sized flag costs a shifted amoor and a mask). Lock and resident key share one address
// base, so the common call forms it once.
couplet_aes_accel_t couplet_aes_accel = {.resident_key = COUPLET_AES_NO_RESIDENT_KEY};

// Source of key_id: unique per couplet_aes_set_key so that a hardware backend can tell whether
// the key it holds is this context's current key. Atomic because contexts of different threads
// may set keys concurrently.
static atomic_uint key_id_counter;

// ctx->key holds little-endian words: on a little-endian machine an aligned key is copied as is,
// a word at a time. may_alias makes reading the caller's bytes as words well defined (GCC).
typedef uint32_t __attribute__((may_alias)) key_word_t;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KEY_WORD_COPY 1
#else
#define KEY_WORD_COPY 0
#endif

static inline bool accel_take(void) {
  return atomic_exchange_explicit(&couplet_aes_accel.lock, 1u, memory_order_acquire) == 0u;
}

// One amoswap.w.rl: GCC 12 gives a C11 release store or exchange a separate fence, which
// costs more than the AMO.
static inline void accel_give(void) {
#if defined(__riscv_atomic)
  __asm__ volatile("amoswap.w.rl zero, zero, %0" : "+A"(couplet_aes_accel.lock) : : "memory");
#else
  atomic_store_explicit(&couplet_aes_accel.lock, 0u, memory_order_release);
#endif
}

static bool lock_take(const couplet_aes_backend_t *backend) {
  return !backend->uses_accelerator || accel_take();
}

static void lock_give(const couplet_aes_backend_t *backend) {
  if (backend->uses_accelerator) {
    accel_give();
  }
}

// After a hardware backend failed, nothing is assumed about the accelerator's state: no key is
// resident, so the next call takes the checked path and reloads (inline_call explains why).
static inline void distrust_after_failure(const couplet_aes_backend_t *backend, couplet_status_t status) {
  if (UNLIKELY(status != COUPLET_OK) && backend->uses_accelerator) {
    couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
    couplet_aes_accel.ghash_state = 0u;
  }
}

// 0 means "no key" and COUPLET_AES_NO_RESIDENT_KEY "none resident": a wrapped counter skips
// both.
static uint32_t new_key_id(void) {
  uint32_t id;
  do {
    id = (uint32_t)atomic_fetch_add_explicit(&key_id_counter, 1u, memory_order_relaxed) + 1u;
  } while (UNLIKELY(id == 0u || id == COUPLET_AES_NO_RESIDENT_KEY));
  return id;
}

static void wipe_key(couplet_aes_ctx_t *ctx) {
  couplet_wipe_words(ctx->round_keys, sizeof ctx->round_keys / sizeof ctx->round_keys[0]);
  couplet_wipe_words(ctx->key, sizeof ctx->key / sizeof ctx->key[0]);
  ctx->key_len = 0u;
  ctx->key_id = 0u;
  ctx->ctrl = 0u;
  __asm__ volatile("" ::: "memory");
}

// A context is initialised when its backend pointer is this SoC's backend of its backend_id: a
// zeroed or garbage context is refused rather than followed into a random function pointer.
static bool ctx_initialised(const couplet_aes_ctx_t *ctx) {
  return ctx->backend_id < (uint32_t)COUPLET_AES_BACKEND_COUNT && ctx->backend != NULL &&
         ctx->backend == backends[ctx->backend_id];
}

static bool ctx_has_key(const couplet_aes_ctx_t *ctx) {
  return (ctx->key_len == 16u || ctx->key_len == 24u || ctx->key_len == 32u) && ctx->key_id != 0u;
}

bool couplet_aes_backend_available(couplet_aes_backend_id_t backend) {
  return (unsigned)backend < (unsigned)COUPLET_AES_BACKEND_COUNT && backends[backend] != NULL;
}

const char *couplet_aes_backend_name(couplet_aes_backend_id_t backend) {
  if ((unsigned)backend >= (unsigned)COUPLET_AES_BACKEND_COUNT) {
    return "unknown";
  }
  return backend_names[backend];
}

couplet_status_t couplet_aes_init_backend(couplet_aes_ctx_t *ctx,
                                          couplet_aes_backend_id_t backend) {
  if (ctx == NULL) {
    return COUPLET_ERR_NULL;
  }
  // Whatever the outcome, the context starts clean; after a failure it is uninitialised, so
  // that using it anyway gives COUPLET_ERR_STATE.
  wipe_key(ctx);
  ctx->backend = NULL;
  ctx->backend_id = (uint32_t)COUPLET_AES_BACKEND_COUNT;
  if ((unsigned)backend >= (unsigned)COUPLET_AES_BACKEND_COUNT) {
    return COUPLET_ERR_ARG;
  }
  if (backends[backend] == NULL) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  ctx->backend = backends[backend];
  ctx->backend_id = (uint32_t)backend;
  return COUPLET_OK;
}

couplet_status_t couplet_aes_backend_supports(couplet_aes_backend_id_t backend, couplet_aes_mode_t mode,
                                              bool decrypt, size_t key_len) {
  if ((unsigned)backend >= (unsigned)COUPLET_AES_BACKEND_COUNT || (unsigned)mode > (unsigned)COUPLET_AES_OFB ||
      (key_len != 16u && key_len != 24u && key_len != 32u)) {
    return COUPLET_ERR_ARG;
  }
  if (backends[backend] == NULL) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  if (backends[backend]->uses_accelerator && engine_refuses_key_len(key_len)) {
    return COUPLET_ERR_UNSUPPORTED_KEY_SIZE;
  }
  if (backends[backend]->uses_accelerator && engine_refuses_mode(mode, decrypt)) {
    return COUPLET_ERR_UNSUPPORTED_MODE;
  }
  return COUPLET_OK;
}

couplet_status_t couplet_aes_init(couplet_aes_ctx_t *ctx) {
  return couplet_aes_init_backend(ctx, COUPLET_AES_DEFAULT_BACKEND);
}

// Copies the key into ctx->key (little-endian words) and clears the words it leaves unused.
static inline __attribute__((always_inline)) void copy_key(couplet_aes_ctx_t *ctx, const uint8_t *key,
                                                           size_t key_len) {
  const size_t words = key_len / 4u;
  if (KEY_WORD_COPY && ((uintptr_t)key & 3u) == 0u) {
    // Straight-line for each key length: a word loop costs more than the copy.
    const key_word_t *k = (const key_word_t *)(const void *)key;
    ctx->key[0] = k[0];
    ctx->key[1] = k[1];
    ctx->key[2] = k[2];
    ctx->key[3] = k[3];
    if (key_len > 16u) {
      ctx->key[4] = k[4];
      ctx->key[5] = k[5];
    }
    if (key_len > 24u) {
      ctx->key[6] = k[6];
      ctx->key[7] = k[7];
    }
  } else {
    for (size_t i = 0; i < words; ++i) {
      const uint8_t *k = &key[4u * i];
      ctx->key[i] = (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24;
    }
  }
  if (key_len < 32u) {
    couplet_wipe_words(&ctx->key[words], sizeof ctx->key / sizeof ctx->key[0] - words);
  }
}

// Every key set-up that is not the common one, with all the checks.
static __attribute__((noinline)) couplet_status_t set_key_checked(couplet_aes_ctx_t *ctx, const uint8_t *key,
                                                                  size_t key_len) {
  if (UNLIKELY(ctx == NULL || key == NULL)) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!ctx_initialised(ctx))) {
    return COUPLET_ERR_STATE;
  }
  if (UNLIKELY(key_len != 16u && key_len != 24u && key_len != 32u)) {
    return COUPLET_ERR_KEY_LEN;
  }
  const couplet_aes_backend_t *backend = ctx->backend;
  if (UNLIKELY(backend->uses_accelerator && engine_refuses_key_len(key_len))) {
    return COUPLET_ERR_UNSUPPORTED_KEY_SIZE;
  }
  if (UNLIKELY(!lock_take(backend))) {
    return COUPLET_ERR_BUSY;
  }
  // Only the key words are written here: the backend's set_key writes all of round_keys (the
  // software backends) or none of it (the accelerator's, where it stays zero from init).
  copy_key(ctx, key, key_len);
  ctx->key_len = (uint32_t)key_len;
  ctx->key_id = new_key_id();
  ctx->ctrl = couplet_aes_ctrl_key_len((uint32_t)key_len);
  couplet_status_t status;
  status = backend->set_key(ctx);
  if (UNLIKELY(status != COUPLET_OK)) {
    wipe_key(ctx);
    distrust_after_failure(backend, status);
  }
  lock_give(backend);
  return status;
}

#if INLINE_XIF
// The common key set-up of the instruction couplings (a word-aligned key): each key word is
// loaded once, stored in the context (for reloads after another context) and written to the
// accelerator. A leaf function: a failed EXPAND goes out of line.
static __attribute__((noinline)) couplet_status_t give_after_key_failure(couplet_aes_ctx_t *ctx, uint32_t code) {
  const couplet_status_t status = aes_hw_result(code);
  wipe_key(ctx);
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  accel_give();
  return status;
}

static inline __attribute__((always_inline)) couplet_status_t xif_set_key(couplet_aes_ctx_t *ctx,
                                                                         const key_word_t *k,
                                                                         size_t key_len) {
  const uint32_t k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3];
  (void)couplet_aes_xif_write2_key0(k0, k1);
  (void)couplet_aes_xif_write2_key2(k2, k3);
  ctx->key[0] = k0;
  ctx->key[1] = k1;
  ctx->key[2] = k2;
  ctx->key[3] = k3;
  uint32_t k4 = 0u, k5 = 0u, k6 = 0u, k7 = 0u;
  if (key_len > 16u) {
    k4 = k[4];
    k5 = k[5];
    (void)couplet_aes_xif_write2_key4(k4, k5);
  }
  if (key_len > 24u) {
    k6 = k[6];
    k7 = k[7];
    (void)couplet_aes_xif_write2_key6(k6, k7);
  }
  ctx->key[4] = k4;  // zero past a shorter key
  ctx->key[5] = k5;
  ctx->key[6] = k6;
  ctx->key[7] = k7;
  const uint32_t ctrl = couplet_aes_ctrl_key_len((uint32_t)key_len);
  const uint32_t key_id = new_key_id();
  (void)couplet_aes_xif_write_ctrl(ctrl, 0);
  const uint32_t code = couplet_aes_xif_expand(0, 0);
  ctx->key_len = (uint32_t)key_len;
  ctx->ctrl = ctrl;
  ctx->key_id = key_id;
  if (UNLIKELY(code != AES_RESULT_OK)) {
    return give_after_key_failure(ctx, code);
  }
  couplet_aes_accel.resident_key = key_id;
  accel_give();
  return COUPLET_OK;
}
#endif

couplet_status_t couplet_aes_set_key(couplet_aes_ctx_t *ctx, const uint8_t *key, size_t key_len) {
#if INLINE_XIF
  // The backend id first, so that the other backends leave for the checked path at once.
  const uint32_t id = ctx == NULL ? (uint32_t)COUPLET_AES_BACKEND_COUNT : ctx->backend_id;
  if (LIKELY(id == COUPLET_AES_BACKEND_TIGHT || id == COUPLET_AES_BACKEND_MEM) &&
      LIKELY(KEY_WORD_COPY && key != NULL && ((uintptr_t)key & 3u) == 0u && key_len - 16u <= 16u &&
             (key_len & 7u) == 0u && !engine_refuses_key_len(key_len)) &&
      LIKELY(ctx->backend == backends[id]) && LIKELY(accel_take())) {
    return xif_set_key(ctx, (const key_word_t *)(const void *)key, key_len);
  }
#endif
  return set_key_checked(ctx, key, key_len);
}

static inline couplet_status_t check_crypt(const couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                    bool decrypt, const uint8_t *iv, const uint8_t *in,
                                    const uint8_t *out, size_t len) {
  if (UNLIKELY(ctx == NULL || (mode != COUPLET_AES_ECB && iv == NULL) ||
               (len != 0u && (in == NULL || out == NULL)))) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!ctx_initialised(ctx) || !ctx_has_key(ctx))) {
    return COUPLET_ERR_STATE;
  }
  if (UNLIKELY(mode != COUPLET_AES_CTR && len % COUPLET_AES_BLOCK_BYTES != 0u)) {
    return COUPLET_ERR_LEN;
  }
  if (UNLIKELY((unsigned)mode > (unsigned)COUPLET_AES_OFB)) {
    return COUPLET_ERR_ARG;
  }
  if (UNLIKELY(ctx->backend->uses_accelerator && engine_refuses_mode(mode, decrypt))) {
    return COUPLET_ERR_UNSUPPORTED_MODE;
  }
  return COUPLET_OK;
}

// CTR with a partial last block, kept out of couplet_aes_crypt so that the common whole-block
// call saves few registers. Encrypting a zero block in CTR mode yields the keystream block of
// the current counter and advances the counter, the same in every backend.
static __attribute__((noinline)) couplet_status_t ctr_with_tail(
    couplet_aes_ctx_t *ctx, const couplet_aes_backend_t *backend, uint8_t *counter,
    const uint8_t *in, uint8_t *out, size_t len) {
  const size_t blocks = len / COUPLET_AES_BLOCK_BYTES;
  const size_t done = blocks * COUPLET_AES_BLOCK_BYTES;
  couplet_status_t status = COUPLET_OK;
  if (blocks != 0u) {
    status = backend->crypt(ctx, COUPLET_AES_CTR, false, counter, in, out, blocks);
  }
  if (status != COUPLET_OK) {
    return status;
  }
  uint32_t keystream[COUPLET_AES_BLOCK_BYTES / 4u] = {0};
  uint8_t *ks = (uint8_t *)keystream;
  status = backend->crypt(ctx, COUPLET_AES_CTR, false, counter, ks, ks, 1u);
  if (status == COUPLET_OK) {
    for (size_t i = 0; done + i < len; ++i) {
      out[done + i] = (uint8_t)(in[done + i] ^ ks[i]);
    }
  }
  couplet_wipe_words(keystream, sizeof keystream / sizeof keystream[0]);
  return status;
}

// Every call that is not the common one: all checks in the contract's order, then the backend
// through the table.
// Its arguments come in the order of the ECB calls', so that their common path keeps its
// registers where the slow call wants them.
static __attribute__((noinline)) couplet_status_t crypt_checked(
    couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out, size_t len, uint8_t *iv,
    couplet_aes_mode_t mode, bool decrypt) {
  couplet_status_t status = check_crypt(ctx, mode, decrypt, iv, in, out, len);
  if (UNLIKELY(status != COUPLET_OK || len == 0u)) {
    return status;
  }
  if (mode == COUPLET_AES_ECB) {
    iv = NULL;
  }
  if (mode == COUPLET_AES_CTR || mode == COUPLET_AES_OFB) {
    decrypt = false;  // the same keystream both ways
  }
  const couplet_aes_backend_t *backend = ctx->backend;
  if (UNLIKELY(!lock_take(backend))) {
    return COUPLET_ERR_BUSY;
  }
  if (len % COUPLET_AES_BLOCK_BYTES == 0u) {
    status = backend->crypt(ctx, mode, decrypt, iv, in, out, len / COUPLET_AES_BLOCK_BYTES);
  } else {
    status = ctr_with_tail(ctx, backend, iv, in, out, len);  // only CTR gets here
  }
  distrust_after_failure(backend, status);
  lock_give(backend);
  return status;
}

#if INLINE_XIF || INLINE_MMIO
// True for arguments that pass every check of check_crypt except the context's: a nonzero
// number of whole blocks, word-aligned buffers (and chaining value), a mode of the enum.
// Combined with bitwise operations, so that the common call passes them as a few ALU
// instructions and one untaken branch.
static inline __attribute__((always_inline)) bool common_args(couplet_aes_mode_t mode,
                                                              const uint8_t *iv, const uint8_t *in,
                                                              const uint8_t *out, size_t len) {
  uintptr_t odd = (uintptr_t)in | (uintptr_t)out;
  bool missing = in == NULL || out == NULL || len == 0u;
  if (mode != COUPLET_AES_ECB) {
    odd |= (uintptr_t)iv;
    missing = missing || iv == NULL;
  }
  // Misaligned pointers put their low bits into bits 2-3, where len's must be zero too.
  const uintptr_t bad = ((odd << 2) | len) & (COUPLET_AES_BLOCK_BYTES - 1u);
  return bad == 0u && !missing && (unsigned)mode <= (unsigned)COUPLET_AES_OFB;
}

// The common call's ways out other than success, out of line so that it stays a leaf function
// with no register saved; both run under the accelerator lock and give it back.
static __attribute__((noinline)) couplet_status_t give_after_backend(
    couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out, size_t len, uint8_t *iv,
    couplet_aes_mode_t mode, bool decrypt) {
  const couplet_status_t status =
      backends[ctx->backend_id]->crypt(ctx, mode, decrypt, iv, in, out, len / COUPLET_AES_BLOCK_BYTES);
  if (status != COUPLET_OK) {
    couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  }
  accel_give();
  return status;
}

#if INLINE_XIF && COUPLET_AES_HAS_MEM
static __attribute__((noinline)) couplet_status_t give_after_job_failure(uint32_t code) {
  const couplet_status_t status = aes_xif_job_failed(code);
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  accel_give();
  return status;
}
#endif
#endif

#if INLINE_XIF || INLINE_MMIO
// The common call of backend `id` (a constant: tight, mem or mmio), or the checked path.
//
// It trusts residency: when the accelerator holds this context's key (checked under the lock),
// the context is keyed for this backend and the accelerator is idle with no refusal pending,
// because every call ends with its blocks read (or its job answered) and every call that fails
// in the hardware marks no key resident (distrust_after_failure). So it reads no STATUS: a
// refusal cannot happen there, and anything else goes to the checked path, which reloads the
// key and reports what the hardware says. A failed take goes to the checked path too, which
// answers BUSY.
static inline __attribute__((always_inline)) couplet_status_t inline_call(
    couplet_aes_ctx_t *ctx, uint32_t id, couplet_aes_mode_t mode, bool decrypt, uint8_t *iv,
    const uint8_t *in, uint8_t *out, size_t len) {
  if (mode == COUPLET_AES_ECB) {
    iv = NULL;
  }
  if (mode == COUPLET_AES_CTR || mode == COUPLET_AES_OFB) {
    decrypt = false;  // the same keystream both ways
  }
  // The context's words are loaded where no instruction waits on them: key_id before the take,
  // the control word between the resident key's load and its compare.
  const uint32_t key_id = ctx->key_id;
  if (LIKELY(common_args(mode, iv, in, out, len)) && LIKELY(!engine_refuses_mode(mode, decrypt)) &&
      LIKELY(accel_take())) {
    const uint32_t resident = couplet_aes_accel.resident_key;
    const uint32_t ctrl = ctx->ctrl | (uint32_t)mode | (decrypt ? AES_CTRL_DECRYPT_MASK : 0u);
    if (LIKELY(resident == key_id)) {
#if INLINE_XIF
      if (id == COUPLET_AES_BACKEND_TIGHT) {
        aes_xif_blocks(ctrl, iv, in, out, len);
        accel_give();
        return COUPLET_OK;
      }
#if COUPLET_AES_HAS_MEM
      if (id == COUPLET_AES_BACKEND_MEM && len <= AES_MAX_JOB_BYTES) {
        const uint32_t code = aes_xif_job(ctrl, iv, in, out, len);
        if (UNLIKELY(code != AES_RESULT_OK)) {
          return give_after_job_failure(code);
        }
        accel_give();
        return COUPLET_OK;
      }
#endif
#endif
#if INLINE_MMIO
      if (id == COUPLET_AES_BACKEND_MMIO) {
        aes_mmio_blocks(ctrl, iv, in, out, len);
        accel_give();
        return COUPLET_OK;
      }
#endif
      (void)ctrl;
      return give_after_backend(ctx, in, out, len, iv, mode, decrypt);
    }
    accel_give();
  }
  return crypt_checked(ctx, in, out, len, iv, mode, decrypt);
}
#endif

// One API call. `mode` and `decrypt` are constants in the mode functions below, so each of them
// is its own leaf function on the common path. The backend id comes first, so that the other
// backends (software included) leave for the checked path after a few instructions.
static inline __attribute__((always_inline)) couplet_status_t crypt_call(
    couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt, uint8_t *iv, const uint8_t *in,
    uint8_t *out, size_t len) {
#if INLINE_XIF || INLINE_MMIO
  if (LIKELY(ctx != NULL)) {
    const uint32_t id = ctx->backend_id;
#if INLINE_XIF
    if (LIKELY(id == COUPLET_AES_BACKEND_TIGHT)) {
      return inline_call(ctx, COUPLET_AES_BACKEND_TIGHT, mode, decrypt, iv, in, out, len);
    }
#if COUPLET_AES_HAS_MEM
    if (id == COUPLET_AES_BACKEND_MEM) {
      return inline_call(ctx, COUPLET_AES_BACKEND_MEM, mode, decrypt, iv, in, out, len);
    }
#endif
#endif
#if INLINE_MMIO
    if (id == COUPLET_AES_BACKEND_MMIO) {
      return inline_call(ctx, COUPLET_AES_BACKEND_MMIO, mode, decrypt, iv, in, out, len);
    }
#endif
  }
#endif
  return crypt_checked(ctx, in, out, len, iv, mode, decrypt);
}

couplet_status_t couplet_aes_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t iv[16], const uint8_t *in, uint8_t *out, size_t len) {
  return crypt_call(ctx, mode, decrypt, iv, in, out, len);
}

// Forgets a hold: the chaining value it kept is wiped, and it no longer has the accelerator.
static void end_hold(couplet_aes_held_t *held) {
  couplet_wipe_words(held->iv, sizeof held->iv / sizeof held->iv[0]);
  held->path = COUPLET_AES_HELD_NONE;
  if (couplet_aes_accel.holder == held) {
    couplet_aes_accel.holder = NULL;
  }
}

couplet_status_t couplet_aes_zeroize(couplet_aes_ctx_t *ctx) {
  if (ctx == NULL) {
    return COUPLET_ERR_NULL;
  }
  if (!ctx_initialised(ctx)) {
    return COUPLET_ERR_STATE;
  }
  const couplet_aes_backend_t *backend = ctx->backend;
  couplet_status_t status = COUPLET_OK;
  couplet_aes_held_t *held = couplet_aes_accel.holder;
  if (backend->uses_accelerator && held != NULL && held->ctx == ctx) {
    // The holder wipes its own context (contexts belong to one thread, so no other thread's
    // hold can name it): the key leaves the accelerator and the hold ends.
    status = backend->zeroize(ctx);
    end_hold(held);
    distrust_after_failure(backend, status);
    accel_give();
    wipe_key(ctx);
    return status;
  }
  if (backend->zeroize != NULL) {
    // The backend needs the lock to touch the accelerator, and key_id to know whether it holds
    // this context's key: on BUSY nothing is wiped, so that a retry still knows.
    if (!lock_take(backend)) {
      return COUPLET_ERR_BUSY;
    }
    status = backend->zeroize(ctx);
    distrust_after_failure(backend, status);
    lock_give(backend);
  }
  wipe_key(ctx);
  return status;
}

couplet_status_t couplet_aes_ecb_encrypt(couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out,
                                         size_t len) {
  return crypt_call(ctx, COUPLET_AES_ECB, false, NULL, in, out, len);
}

couplet_status_t couplet_aes_ecb_decrypt(couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out,
                                         size_t len) {
  return crypt_call(ctx, COUPLET_AES_ECB, true, NULL, in, out, len);
}

couplet_status_t couplet_aes_cbc_encrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return crypt_call(ctx, COUPLET_AES_CBC, false, iv, in, out, len);
}

couplet_status_t couplet_aes_cbc_decrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return crypt_call(ctx, COUPLET_AES_CBC, true, iv, in, out, len);
}

couplet_status_t couplet_aes_ctr_crypt(couplet_aes_ctx_t *ctx, uint8_t counter[16],
                                       const uint8_t *in, uint8_t *out, size_t len) {
  return crypt_call(ctx, COUPLET_AES_CTR, false, counter, in, out, len);
}

couplet_status_t couplet_aes_cfb_encrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return crypt_call(ctx, COUPLET_AES_CFB, false, iv, in, out, len);
}

couplet_status_t couplet_aes_cfb_decrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return crypt_call(ctx, COUPLET_AES_CFB, true, iv, in, out, len);
}

couplet_status_t couplet_aes_ofb_crypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                       uint8_t *out, size_t len) {
  return crypt_call(ctx, COUPLET_AES_OFB, false, iv, in, out, len);
}

// ---------------------------------------------------------------------------------------------
// Holding the accelerator (couplet/aes_held.h)

// How a hold on backend `id` is served (couplet_aes_held_path_t). The backends whose held calls
// run inline keep the mode and the chaining value in the accelerator from hold to release.
static couplet_aes_held_path_t held_path(uint32_t id) {
#if INLINE_XIF
  if (id == COUPLET_AES_BACKEND_TIGHT) {
    return COUPLET_AES_HELD_TIGHT;
  }
  if (COUPLET_AES_HAS_MEM && id == COUPLET_AES_BACKEND_MEM) {
    return COUPLET_AES_HELD_MEM;
  }
#endif
#if INLINE_MMIO
  if (id == COUPLET_AES_BACKEND_MMIO) {
    return COUPLET_AES_HELD_MMIO;
  }
#endif
  (void)id;
  return COUPLET_AES_HELD_CHECKED;
}

static bool held_in_hardware(uint32_t id) {
  return held_path(id) != COUPLET_AES_HELD_CHECKED;
}

// Byte access to the chaining value kept in `held` (its words hold the bytes in memory order).
static uint8_t *held_iv_bytes(couplet_aes_held_t *held) {
  return (uint8_t *)(void *)held->iv;
}

couplet_status_t couplet_aes_hold(couplet_aes_held_t *held, couplet_aes_ctx_t *ctx,
                                  couplet_aes_mode_t mode, bool decrypt, const uint8_t iv[16]) {
  if (held == NULL || ctx == NULL || (mode != COUPLET_AES_ECB && iv == NULL)) {
    return COUPLET_ERR_NULL;
  }
  if (!ctx_initialised(ctx) || !ctx_has_key(ctx)) {
    return COUPLET_ERR_STATE;
  }
  if ((unsigned)mode > (unsigned)COUPLET_AES_OFB) {
    return COUPLET_ERR_ARG;
  }
  if (mode == COUPLET_AES_CTR || mode == COUPLET_AES_OFB) {
    decrypt = false;  // the same keystream both ways
  }
  const couplet_aes_backend_t *backend = ctx->backend;
  if (backend->uses_accelerator && engine_refuses_mode(mode, decrypt)) {
    return COUPLET_ERR_UNSUPPORTED_MODE;
  }
  if (!lock_take(backend)) {
    return COUPLET_ERR_BUSY;
  }
  held->ctx = ctx;
  held->backend_id = ctx->backend_id;
  held->key_id = ctx->key_id;
  held->mode = (uint32_t)mode;
  held->decrypt = decrypt ? 1u : 0u;
  uint8_t *kept = held_iv_bytes(held);
  for (size_t i = 0; i < COUPLET_AES_BLOCK_BYTES; ++i) {
    kept[i] = mode == COUPLET_AES_ECB ? 0u : iv[i];
  }
  couplet_status_t status = COUPLET_OK;
  if (backend->uses_accelerator) {
    if (held_in_hardware(ctx->backend_id)) {
      if (couplet_aes_accel.resident_key != ctx->key_id) {
        status = backend->set_key(ctx);
      }
#if INLINE_XIF || INLINE_MMIO
      const uint32_t ctrl = ctx->ctrl | (uint32_t)mode | (decrypt ? AES_CTRL_DECRYPT_MASK : 0u);
#endif
#if INLINE_XIF
      if (status == COUPLET_OK && ctx->backend_id != COUPLET_AES_BACKEND_MMIO) {
        (void)couplet_aes_xif_write_ctrl(ctrl, 0);
        couplet_aes_tight_write_iv(held->iv);
      }
#endif
#if INLINE_MMIO
      if (status == COUPLET_OK && ctx->backend_id == COUPLET_AES_BACKEND_MMIO) {
        couplet_aes_reg_write(AES_CTRL_INDEX, ctrl);
        couplet_aes_mmio_write_iv(held->iv);
      }
#endif
    }
    if (status != COUPLET_OK) {
      end_hold(held);
      distrust_after_failure(backend, status);
      accel_give();
      return status;
    }
    couplet_aes_accel.holder = held;
  }
  held->path = held_path(ctx->backend_id);
  return COUPLET_OK;
}

// The backend of a hold, or NULL if `held` is not holding: never held, released, or ended by
// couplet_aes_zeroize of its context (a hold of the accelerator ends there; a software hold
// ends when its context loses or changes its key: a key set later, perhaps on a backend whose
// set_key leaves round_keys zero, must not revive it). A hold of the accelerator whose context
// was re-initialised still holds, so that its release gives the accelerator back.
static const couplet_aes_backend_t *holding(const couplet_aes_held_t *held) {
  if (held->path == COUPLET_AES_HELD_NONE || held->ctx == NULL || held->backend_id >= (uint32_t)COUPLET_AES_BACKEND_COUNT) {
    return NULL;
  }
  const couplet_aes_backend_t *backend = backends[held->backend_id];
  if (backend == NULL) {
    return NULL;
  }
  if (backend->uses_accelerator) {
    return couplet_aes_accel.holder == held ? backend : NULL;
  }
  return ctx_has_key(held->ctx) && held->ctx->key_id == held->key_id ? backend : NULL;
}

couplet_status_t couplet_aes_held_crypt_checked(couplet_aes_held_t *held, const uint8_t *in,
                                                uint8_t *out, size_t len) {
  if (held == NULL) {
    return COUPLET_ERR_NULL;
  }
  const couplet_aes_backend_t *backend = holding(held);
  if (backend == NULL || !ctx_has_key(held->ctx)) {
    return COUPLET_ERR_STATE;  // not holding, or its context was re-initialised meanwhile
  }
  if (len != 0u && (in == NULL || out == NULL)) {
    return COUPLET_ERR_NULL;
  }
  if (len % COUPLET_AES_BLOCK_BYTES != 0u) {
    return COUPLET_ERR_LEN;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  // The backends that keep the chaining value in the accelerator get none: their CTRL write
  // sets the same mode again and the chaining value stays where hold put it.
  const couplet_aes_mode_t mode = (couplet_aes_mode_t)held->mode;
  uint8_t *iv = (mode == COUPLET_AES_ECB || held_in_hardware(held->backend_id)) ? NULL : held_iv_bytes(held);
  const couplet_status_t status =
      backend->crypt(held->ctx, mode, held->decrypt != 0u, iv, in, out, len / COUPLET_AES_BLOCK_BYTES);
  distrust_after_failure(backend, status);
  return status;
}

couplet_status_t couplet_aes_held_job_failed(uint32_t code) {
#if INLINE_XIF
  const couplet_status_t status = aes_xif_job_failed(code);
#else
  const couplet_status_t status = code == 0u ? COUPLET_OK : COUPLET_ERR_HW;
#endif
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  return status;
}

couplet_status_t couplet_aes_release(couplet_aes_held_t *held, uint8_t iv[16]) {
  if (held == NULL) {
    return COUPLET_ERR_NULL;
  }
  const couplet_aes_backend_t *backend = holding(held);
  if (backend == NULL) {
    return COUPLET_ERR_STATE;
  }
  couplet_status_t status = COUPLET_OK;
  if (held_in_hardware(held->backend_id)) {
    // The chaining value comes back, and a block the hardware refused while held shows in
    // STATUS's sticky bits.
#if INLINE_XIF
    if (held->backend_id != COUPLET_AES_BACKEND_MMIO) {
      couplet_aes_tight_read_iv(held->iv);
      const uint32_t flags = couplet_aes_xif_read_status(0, 0);
      status = (flags & AES_STATUS_REFUSALS) == 0u ? COUPLET_OK : aes_xif_refused(flags);
    }
#endif
#if INLINE_MMIO
    if (held->backend_id == COUPLET_AES_BACKEND_MMIO) {
      couplet_aes_mmio_read_iv(held->iv);
      const uint32_t flags = couplet_aes_reg_read(AES_STATUS_INDEX);
      status = (flags & AES_STATUS_REFUSALS) == 0u ? COUPLET_OK : aes_mmio_refused(flags);
    }
#endif
  }
  if (iv != NULL && held->mode != (uint32_t)COUPLET_AES_ECB) {
    const uint8_t *kept = held_iv_bytes(held);
    for (size_t i = 0; i < COUPLET_AES_BLOCK_BYTES; ++i) {
      iv[i] = kept[i];
    }
  }
  end_hold(held);
  if (backend->uses_accelerator) {
    distrust_after_failure(backend, status);
    accel_give();
  }
  return status;
}

// ---------------------------------------------------------------------------------------------
// Sessions of the authenticated layer (aes_aead.c; aes_backend.h): one AEAD call takes the
// accelerator once and runs its backend calls inside. The inline paths above are not used: the
// layer's calls are many small ones whose arguments it has already checked.

couplet_status_t couplet_aes_session_begin(couplet_aes_ctx_t *ctx) {
  if (ctx == NULL) {
    return COUPLET_ERR_NULL;
  }
  if (!ctx_initialised(ctx) || !ctx_has_key(ctx)) {
    return COUPLET_ERR_STATE;
  }
  if (!lock_take(ctx->backend)) {
    return COUPLET_ERR_BUSY;
  }
  return COUPLET_OK;
}

couplet_status_t couplet_aes_session_crypt(couplet_aes_ctx_t *ctx, uint32_t mode, bool decrypt, uint8_t *iv,
                                           const uint8_t *in, uint8_t *out, size_t blocks) {
  if (blocks == 0u) {
    return COUPLET_OK;
  }
  const couplet_aes_backend_t *backend = ctx->backend;
  const couplet_status_t status = backend->crypt(ctx, (couplet_aes_mode_t)mode, decrypt, iv, in, out, blocks);
  distrust_after_failure(backend, status);
  return status;
}

void couplet_aes_session_end(couplet_aes_ctx_t *ctx) {
  if (ctx->backend->uses_accelerator) {
    couplet_aes_accel.ghash_state = 0u;  // the next session's caller may have changed its state
    accel_give();
  }
}
