// The AES front end: argument checks, the backend table of this SoC configuration, the CTR
// tail, and the lock that gives one call at a time the (single, shared) accelerator.

#include <couplet/aes.h>

#include <stdatomic.h>

#include <couplet/soc_config.h>

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
// to retry or yield (spinning could wait forever on a thread it preempted). On RV32A the
// test-and-set is one AMO (GCC 12: amoor.w.aq on the flag's word), the release a fence and a
// byte store: no libatomic call.
static atomic_flag accel_lock = ATOMIC_FLAG_INIT;

// Source of key_id: unique per couplet_aes_set_key so that a hardware backend can tell whether
// the key it holds is this context's current key. Atomic because contexts of different threads
// may set keys concurrently.
static atomic_uint key_id_counter;

static bool lock_take(const couplet_aes_backend_t *backend) {
  return !backend->uses_accelerator ||
         !atomic_flag_test_and_set_explicit(&accel_lock, memory_order_acquire);
}

static void lock_give(const couplet_aes_backend_t *backend) {
  if (backend->uses_accelerator) {
    atomic_flag_clear_explicit(&accel_lock, memory_order_release);
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

// Volatile stores, then a compiler barrier: the wipe of a context that is never read again
// must not be removed as dead stores.
static void wipe(void *p, size_t n) {
  volatile uint8_t *v = p;
  for (size_t i = 0; i < n; ++i) {
    v[i] = 0u;
  }
  __asm__ volatile("" ::: "memory");
}

static void wipe_key(couplet_aes_ctx_t *ctx) {
  wipe(ctx->round_keys, sizeof ctx->round_keys);
  wipe(ctx->key, sizeof ctx->key);
  ctx->key_len = 0u;
  ctx->key_id = 0u;
  __asm__ volatile("" ::: "memory");
}

// A context is initialised when its backend pointer is one of this SoC's backends: a zeroed or
// garbage context is refused rather than followed into a random function pointer.
static bool ctx_initialised(const couplet_aes_ctx_t *ctx) {
  for (unsigned i = 0; i < (unsigned)COUPLET_AES_BACKEND_COUNT; ++i) {
    if (backends[i] != NULL && ctx->backend == backends[i]) {
      return true;
    }
  }
  return false;
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
  if ((unsigned)backend >= (unsigned)COUPLET_AES_BACKEND_COUNT) {
    return COUPLET_ERR_ARG;
  }
  if (backends[backend] == NULL) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  ctx->backend = backends[backend];
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
  wipe_key(ctx);
  for (size_t i = 0; i < key_len; ++i) {
    ctx->key[i] = key[i];
  }
  ctx->key_len = (uint32_t)key_len;
  ctx->key_id = new_key_id();
  couplet_status_t status = backend->set_key(ctx);
  if (status != COUPLET_OK) {
    wipe_key(ctx);
  }
  lock_give(backend);
  return status;
}

couplet_status_t couplet_aes_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t iv[16], const uint8_t *in, uint8_t *out, size_t len) {
  if (ctx == NULL || (mode != COUPLET_AES_ECB && iv == NULL) ||
      (len != 0u && (in == NULL || out == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (!ctx_initialised(ctx) || !ctx_has_key(ctx)) {
    return COUPLET_ERR_STATE;
  }
  if (mode != COUPLET_AES_CTR && len % COUPLET_AES_BLOCK_BYTES != 0u) {
    return COUPLET_ERR_LEN;
  }
  if ((unsigned)mode > (unsigned)COUPLET_AES_OFB) {
    return COUPLET_ERR_ARG;
  }
  if (len == 0u) {
    return COUPLET_OK;
  }
  if (mode == COUPLET_AES_ECB) {
    iv = NULL;
  }
  if (mode == COUPLET_AES_CTR || mode == COUPLET_AES_OFB) {
    decrypt = false;  // the same keystream both ways
  }

  const couplet_aes_backend_t *backend = ctx->backend;
  if (!lock_take(backend)) {
    return COUPLET_ERR_BUSY;
  }
  const size_t blocks = len / COUPLET_AES_BLOCK_BYTES;
  const size_t tail = len % COUPLET_AES_BLOCK_BYTES;
  couplet_status_t status = COUPLET_OK;
  if (blocks != 0u) {
    status = backend->crypt(ctx, mode, decrypt, iv, in, out, blocks);
  }
  if (status == COUPLET_OK && tail != 0u) {
    // Only CTR gets here. Encrypting a zero block in CTR mode yields the keystream block of the
    // current counter and advances the counter, the same in every backend.
    const size_t done = blocks * COUPLET_AES_BLOCK_BYTES;
    uint8_t keystream[COUPLET_AES_BLOCK_BYTES] = {0};
    status = backend->crypt(ctx, COUPLET_AES_CTR, false, iv, keystream, keystream, 1u);
    if (status == COUPLET_OK) {
      for (size_t i = 0; i < tail; ++i) {
        out[done + i] = (uint8_t)(in[done + i] ^ keystream[i]);
      }
    }
    wipe(keystream, sizeof keystream);
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
