// The AES front end: argument checks, the backend table of this SoC configuration, the CTR
// tail, and the lock that gives one call at a time the (single, shared) accelerator.

#include <couplet/aes.h>

#include <stdatomic.h>

#include <couplet/soc_config.h>
#include <couplet/wipe.h>

#include "aes_backend.h"

#ifndef COUPLET_AES_DEFAULT_BACKEND
#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_SOFT
#endif

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

// Held for the length of every call into a backend that drives the accelerator. A try-lock,
// never a spin: a thread that finds it taken gets COUPLET_ERR_BUSY and decides itself whether
// to retry or yield (spinning could wait forever on a thread it preempted). A word rather than
// an atomic_flag: on RV32A the take is then one amoswap.w.aq and the release a fence and a
// store (a byte-sized flag costs a shifted amoor and a mask).
static atomic_uint accel_lock;

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

static bool lock_take(const couplet_aes_backend_t *backend) {
  return !backend->uses_accelerator ||
         atomic_exchange_explicit(&accel_lock, 1u, memory_order_acquire) == 0u;
}

static void lock_give(const couplet_aes_backend_t *backend) {
  if (backend->uses_accelerator) {
    atomic_store_explicit(&accel_lock, 0u, memory_order_release);
  }
}

static uint32_t new_key_id(void) {
  uint32_t id = (uint32_t)atomic_fetch_add_explicit(&key_id_counter, 1u, memory_order_relaxed) + 1u;
  if (id == 0u) {
    // The counter wrapped: 0 means "no key", so take the next value.
    id = (uint32_t)atomic_fetch_add_explicit(&key_id_counter, 1u, memory_order_relaxed) + 1u;
  }
  return id;
}

static void wipe_key(couplet_aes_ctx_t *ctx) {
  couplet_wipe_words(ctx->round_keys, sizeof ctx->round_keys / sizeof ctx->round_keys[0]);
  couplet_wipe_words(ctx->key, sizeof ctx->key / sizeof ctx->key[0]);
  ctx->key_len = 0u;
  ctx->key_id = 0u;
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

couplet_status_t couplet_aes_init(couplet_aes_ctx_t *ctx) {
  return couplet_aes_init_backend(ctx, COUPLET_AES_DEFAULT_BACKEND);
}

couplet_status_t couplet_aes_set_key(couplet_aes_ctx_t *ctx, const uint8_t *key,
                                     size_t key_len) {
  if (ctx == NULL || key == NULL) {
    return COUPLET_ERR_NULL;
  }
  if (!ctx_initialised(ctx)) {
    return COUPLET_ERR_STATE;
  }
  if (key_len != 16u && key_len != 24u && key_len != 32u) {
    return COUPLET_ERR_KEY_LEN;
  }
  const couplet_aes_backend_t *backend = ctx->backend;
  if (!lock_take(backend)) {
    return COUPLET_ERR_BUSY;
  }
  // Only the key words are written here: the backend's set_key writes all of round_keys (the
  // software backends) or none of it (the accelerator's, where it stays zero from init). The
  // words a shorter key leaves unused are cleared.
  const size_t words = key_len / 4u;
  if (KEY_WORD_COPY && ((uintptr_t)key & 3u) == 0u) {
    const key_word_t *k = (const key_word_t *)(const void *)key;
    for (size_t i = 0; i < words; ++i) {
      ctx->key[i] = k[i];
    }
  } else {
    for (size_t i = 0; i < words; ++i) {
      const uint8_t *k = &key[4u * i];
      ctx->key[i] = (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24;
    }
  }
  couplet_wipe_words(&ctx->key[words], sizeof ctx->key / sizeof ctx->key[0] - words);
  ctx->key_len = (uint32_t)key_len;
  ctx->key_id = new_key_id();
  couplet_status_t status = backend->set_key(ctx);
  if (status != COUPLET_OK) {
    wipe_key(ctx);
  }
  lock_give(backend);
  return status;
}

// Error paths are marked unlikely so that the compiler lays the checks out as a run of
// untaken branches: on CV32E40X a taken branch costs two more cycles.
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static inline couplet_status_t check_crypt(const couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                    const uint8_t *iv, const uint8_t *in, const uint8_t *out,
                                    size_t len) {
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

couplet_status_t couplet_aes_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t iv[16], const uint8_t *in, uint8_t *out, size_t len) {
  couplet_status_t status = check_crypt(ctx, mode, iv, in, out, len);
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
  lock_give(backend);
  return status;
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
  if (backend->zeroize != NULL) {
    // The backend needs the lock to touch the accelerator, and key_id to know whether it holds
    // this context's key: on BUSY nothing is wiped, so that a retry still knows.
    if (!lock_take(backend)) {
      return COUPLET_ERR_BUSY;
    }
    status = backend->zeroize(ctx);
    lock_give(backend);
  }
  wipe_key(ctx);
  return status;
}

couplet_status_t couplet_aes_ecb_encrypt(couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out,
                                         size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_ECB, false, NULL, in, out, len);
}

couplet_status_t couplet_aes_ecb_decrypt(couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out,
                                         size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_ECB, true, NULL, in, out, len);
}

couplet_status_t couplet_aes_cbc_encrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_CBC, false, iv, in, out, len);
}

couplet_status_t couplet_aes_cbc_decrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_CBC, true, iv, in, out, len);
}

couplet_status_t couplet_aes_ctr_crypt(couplet_aes_ctx_t *ctx, uint8_t counter[16],
                                       const uint8_t *in, uint8_t *out, size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_CTR, false, counter, in, out, len);
}

couplet_status_t couplet_aes_cfb_encrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_CFB, false, iv, in, out, len);
}

couplet_status_t couplet_aes_cfb_decrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_CFB, true, iv, in, out, len);
}

couplet_status_t couplet_aes_ofb_crypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                       uint8_t *out, size_t len) {
  return couplet_aes_crypt(ctx, COUPLET_AES_OFB, false, iv, in, out, len);
}
