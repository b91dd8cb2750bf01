// The SHA-3 front end: argument checks, the backend table of this SoC configuration, the block
// buffer (messages arrive in pieces of any length, backends take whole blocks), the pad10*1
// padding with the domain bits, squeezing across blocks, and the lock that gives one call at a
// time the (single, shared) accelerator.

#include <couplet/sha3.h>

#include <stdatomic.h>

#include <couplet/soc_config.h>
#include <couplet/wipe.h>

#include "sha3_backend.h"

#ifndef COUPLET_SHA3_DEFAULT_BACKEND
#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_SOFT
#endif

// Only the backends this SoC has are referenced, so only they are linked.
static const couplet_sha3_backend_t *const backends[COUPLET_SHA3_BACKEND_COUNT] = {
    [COUPLET_SHA3_BACKEND_SOFT] = &couplet_sha3_backend_soft,
#if defined(COUPLET_SHA3_HAS_ISE) && COUPLET_SHA3_HAS_ISE
    [COUPLET_SHA3_BACKEND_ISE] = &couplet_sha3_backend_ise,
#endif
#if defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT
    [COUPLET_SHA3_BACKEND_TIGHT] = &couplet_sha3_backend_tight,
#endif
#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM
    [COUPLET_SHA3_BACKEND_MEM] = &couplet_sha3_backend_mem,
#endif
#if defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO
    [COUPLET_SHA3_BACKEND_MMIO] = &couplet_sha3_backend_mmio,
#endif
#if defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA
    [COUPLET_SHA3_BACKEND_DMA] = &couplet_sha3_backend_dma,
#endif
};

static const char *const backend_names[COUPLET_SHA3_BACKEND_COUNT] = {
    [COUPLET_SHA3_BACKEND_SOFT] = "soft",
    [COUPLET_SHA3_BACKEND_ISE] = "ise",
    [COUPLET_SHA3_BACKEND_TIGHT] = "tight",
    [COUPLET_SHA3_BACKEND_MEM] = "mem",
    [COUPLET_SHA3_BACKEND_MMIO] = "mmio",
    [COUPLET_SHA3_BACKEND_DMA] = "dma",
};

#define ALG_COUNT 6u

// Bytes per block: 200 - 2 * security level in bytes (FIPS 202 sections 6.1 and 6.2).
static const uint8_t alg_rate[ALG_COUNT] = {144u, 136u, 104u, 72u, 168u, 136u};
static const uint8_t alg_digest[ALG_COUNT] = {28u, 32u, 48u, 64u, 0u, 0u};

// The domain-separation suffix (SHA3: 01, SHAKE: 1111, FIPS 202 section 6) followed by the first
// 1 of pad10*1, as a byte in the state's bit order (bit i of byte j is bit 8j+i of the string).
#define PAD_SHA3 0x06u
#define PAD_SHAKE 0x1Fu
// The last 1 of pad10*1: the top bit of the block's last byte.
#define PAD_LAST 0x80u

// ctx->phase. Zero is none of them, so a zeroed context is refused.
#define PHASE_ABSORBING 0x5A3A0001u
#define PHASE_SQUEEZING 0x5A3A0002u
#define PHASE_FINISHED 0x5A3A0003u

// Error paths are marked unlikely so that the compiler lays the checks out as a run of
// untaken branches: on CV32E40X a taken branch costs two more cycles.
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

// Held for the length of every call into a backend that drives the accelerator. A try-lock,
// never a spin (see aes.c: a thread that finds it taken gets COUPLET_ERR_BUSY).
static atomic_uint accel_lock;

// The block buffer is wiped a word at a time; its offset keeps it word-aligned.
_Static_assert(offsetof(couplet_sha3_ctx_t, buf) % 4u == 0u, "ctx->buf must be word-aligned");
_Static_assert(COUPLET_SHA3_MAX_RATE % 4u == 0u, "ctx->buf must be whole words");

static bool alg_valid(couplet_sha3_alg_t alg) {
  return (unsigned)alg < ALG_COUNT;
}

static bool alg_is_shake(uint32_t alg) {
  return alg == (uint32_t)COUPLET_SHAKE128 || alg == (uint32_t)COUPLET_SHAKE256;
}

static bool lock_take(const couplet_sha3_backend_t *backend) {
  return !backend->uses_accelerator ||
         atomic_exchange_explicit(&accel_lock, 1u, memory_order_acquire) == 0u;
}

static void lock_give(const couplet_sha3_backend_t *backend) {
  if (backend->uses_accelerator) {
    atomic_store_explicit(&accel_lock, 0u, memory_order_release);
  }
}

static void wipe_data(couplet_sha3_ctx_t *ctx) {
  couplet_wipe_words(ctx->state, COUPLET_SHA3_STATE_WORDS);
  couplet_wipe_words((uint32_t *)(sha3_alias_word_t *)(void *)ctx->buf, COUPLET_SHA3_MAX_RATE / 4u);
  ctx->buf_len = 0u;
  ctx->squeezed = 0u;
}

// A context is initialised when its backend pointer is this SoC's backend of its backend_id: a
// zeroed or garbage context is refused rather than followed into a random function pointer.
// The fields that index ctx->buf are checked too, so that a corrupted context cannot make the
// front end write outside it.
static bool ctx_initialised(const couplet_sha3_ctx_t *ctx) {
  return ctx->backend_id < (uint32_t)COUPLET_SHA3_BACKEND_COUNT && ctx->backend != NULL &&
         ctx->backend == backends[ctx->backend_id] && ctx->alg < ALG_COUNT &&
         ctx->rate == alg_rate[ctx->alg] && ctx->digest_len == alg_digest[ctx->alg] &&
         ctx->buf_len < ctx->rate && ctx->squeezed <= ctx->rate &&
         (ctx->phase == PHASE_ABSORBING || ctx->phase == PHASE_SQUEEZING ||
          ctx->phase == PHASE_FINISHED);
}

// Copies bytes in a plain loop rather than calling picolibc's byte-at-a-time memcpy (GCC keeps
// it a loop; tests/test_sha3_host.py checks the object calls no library function).
static void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = src[i];
  }
}

// Zeroes buf[from..to) of the word-aligned block buffer (`to` a multiple of 4). The stores go
// through volatile pointers: GCC would turn plain zeroing loops into a call of picolibc's
// byte-at-a-time memset.
static void zero_bytes(uint8_t *buf, size_t from, size_t to) {
  volatile uint8_t *b = buf;
  for (; from % 4u != 0u; ++from) {
    b[from] = 0u;
  }
  volatile sha3_alias_word_t *w = (volatile sha3_alias_word_t *)(void *)buf;
  for (size_t i = from / 4u; i < to / 4u; ++i) {
    w[i] = 0u;
  }
}

bool couplet_sha3_backend_available(couplet_sha3_backend_id_t backend) {
  return (unsigned)backend < (unsigned)COUPLET_SHA3_BACKEND_COUNT && backends[backend] != NULL;
}

const char *couplet_sha3_backend_name(couplet_sha3_backend_id_t backend) {
  if ((unsigned)backend >= (unsigned)COUPLET_SHA3_BACKEND_COUNT) {
    return "unknown";
  }
  return backend_names[backend];
}

size_t couplet_sha3_digest_size(couplet_sha3_alg_t alg) {
  return alg_valid(alg) ? alg_digest[alg] : 0u;
}

couplet_status_t couplet_sha3_init_backend(couplet_sha3_ctx_t *ctx, couplet_sha3_alg_t alg,
                                           couplet_sha3_backend_id_t backend) {
  if (ctx == NULL) {
    return COUPLET_ERR_NULL;
  }
  // Whatever the outcome, the context starts clean; after a failure it is uninitialised, so
  // that using it anyway gives COUPLET_ERR_STATE.
  wipe_data(ctx);
  ctx->backend = NULL;
  ctx->backend_id = (uint32_t)COUPLET_SHA3_BACKEND_COUNT;
  ctx->phase = 0u;
  ctx->alg = ALG_COUNT;
  ctx->rate = 0u;
  ctx->digest_len = 0u;
  if (!alg_valid(alg) || (unsigned)backend >= (unsigned)COUPLET_SHA3_BACKEND_COUNT) {
    return COUPLET_ERR_ARG;
  }
  if (backends[backend] == NULL) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  ctx->alg = (uint32_t)alg;
  ctx->rate = alg_rate[alg];
  ctx->digest_len = alg_digest[alg];
  ctx->phase = PHASE_ABSORBING;
  ctx->backend = backends[backend];
  ctx->backend_id = (uint32_t)backend;
  return COUPLET_OK;
}

couplet_status_t couplet_sha3_init(couplet_sha3_ctx_t *ctx, couplet_sha3_alg_t alg) {
  return couplet_sha3_init_backend(ctx, alg, COUPLET_SHA3_DEFAULT_BACKEND);
}

// Ends a call that went into the backend: release (always, once), then the lock. A backend
// error loses the message, so the context is wiped and refuses further use.
static couplet_status_t end_call(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                 couplet_status_t status) {
  if (backend->release != NULL) {
    couplet_status_t released = backend->release(ctx);
    if (status == COUPLET_OK) {
      status = released;
    }
  }
  lock_give(backend);
  if (UNLIKELY(status != COUPLET_OK)) {
    wipe_data(ctx);
    ctx->phase = PHASE_FINISHED;
  }
  return status;
}

// The checks every call on a context starts with: NULL, then an uninitialised context or one
// in another phase (or of the other family) than the call needs.
static couplet_status_t check_ctx(const couplet_sha3_ctx_t *ctx, bool pointers_ok, uint32_t phase,
                                  bool shake) {
  if (UNLIKELY(ctx == NULL || !pointers_ok)) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!ctx_initialised(ctx) || ctx->phase != phase || alg_is_shake(ctx->alg) != shake)) {
    return COUPLET_ERR_STATE;
  }
  return COUPLET_OK;
}

couplet_status_t couplet_sha3_update(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t len) {
  if (UNLIKELY(ctx == NULL || (len != 0u && data == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!ctx_initialised(ctx) || ctx->phase != PHASE_ABSORBING)) {
    return COUPLET_ERR_STATE;
  }
  const size_t rate = ctx->rate;
  const size_t have = ctx->buf_len;
  if (len < rate - have) {
    // Still short of a block: only the buffer changes, the backend is not needed.
    copy_bytes(&ctx->buf[have], data, len);
    ctx->buf_len = (uint32_t)(have + len);
    return COUPLET_OK;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!lock_take(backend))) {
    return COUPLET_ERR_BUSY;
  }
  couplet_status_t status = COUPLET_OK;
  if (have != 0u) {
    const size_t fill = rate - have;
    copy_bytes(&ctx->buf[have], data, fill);
    status = backend->absorb(ctx, ctx->buf, 1u);
    data += fill;
    len -= fill;
  }
  // Whole blocks straight from the caller's buffer.
  const size_t blocks = len / rate;
  if (status == COUPLET_OK && blocks != 0u) {
    status = backend->absorb(ctx, data, blocks);
    data += blocks * rate;
    len -= blocks * rate;
  }
  if (status == COUPLET_OK) {
    copy_bytes(ctx->buf, data, len);  // len < rate now
    ctx->buf_len = (uint32_t)len;
  }
  return end_call(ctx, backend, status);
}

// Appends the padding to the buffered tail of the message and absorbs the last block.
static couplet_status_t absorb_last_block(couplet_sha3_ctx_t *ctx,
                                          const couplet_sha3_backend_t *backend, uint8_t pad) {
  const size_t rate = ctx->rate;
  uint8_t *buf = ctx->buf;
  zero_bytes(buf, ctx->buf_len, rate);
  buf[ctx->buf_len] = pad;
  buf[rate - 1u] |= PAD_LAST;  // the same byte as the first 1 when only one byte was free
  ctx->buf_len = 0u;
  return backend->absorb(ctx, buf, 1u);
}

couplet_status_t couplet_sha3_final(couplet_sha3_ctx_t *ctx, uint8_t *digest, size_t digest_len) {
  couplet_status_t status = check_ctx(ctx, digest != NULL, PHASE_ABSORBING, false);
  if (UNLIKELY(status != COUPLET_OK)) {
    return status;
  }
  if (UNLIKELY(digest_len < ctx->digest_len)) {
    return COUPLET_ERR_LEN;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!lock_take(backend))) {
    return COUPLET_ERR_BUSY;
  }
  status = absorb_last_block(ctx, backend, PAD_SHA3);
  if (status == COUPLET_OK) {
    status = backend->extract(ctx, digest, ctx->digest_len);
  }
  status = end_call(ctx, backend, status);
  // Finished either way: nothing of the message stays behind in the context.
  wipe_data(ctx);
  ctx->phase = PHASE_FINISHED;
  return status;
}

couplet_status_t couplet_shake_final(couplet_sha3_ctx_t *ctx) {
  couplet_status_t status = check_ctx(ctx, true, PHASE_ABSORBING, true);
  if (UNLIKELY(status != COUPLET_OK)) {
    return status;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!lock_take(backend))) {
    return COUPLET_ERR_BUSY;
  }
  // The first output block goes to the buffer now, so that squeezes of any length can be
  // served from it.
  status = absorb_last_block(ctx, backend, PAD_SHAKE);
  if (status == COUPLET_OK) {
    status = backend->extract(ctx, ctx->buf, ctx->rate);
  }
  ctx->squeezed = 0u;
  ctx->phase = PHASE_SQUEEZING;
  return end_call(ctx, backend, status);
}

couplet_status_t couplet_shake_squeeze(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  couplet_status_t status = check_ctx(ctx, len == 0u || out != NULL, PHASE_SQUEEZING, true);
  if (UNLIKELY(status != COUPLET_OK)) {
    return status;
  }
  const size_t rate = ctx->rate;
  const size_t left = rate - ctx->squeezed;  // bytes of the current block not yet returned
  if (len <= left) {
    copy_bytes(out, &ctx->buf[ctx->squeezed], len);
    ctx->squeezed += (uint32_t)len;
    return COUPLET_OK;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!lock_take(backend))) {
    return COUPLET_ERR_BUSY;
  }
  copy_bytes(out, &ctx->buf[ctx->squeezed], left);
  out += left;
  len -= left;
  // Whole blocks go straight to the caller's buffer, the last partial one through ctx->buf.
  while (status == COUPLET_OK && len >= rate) {
    status = backend->permute(ctx);
    if (status == COUPLET_OK) {
      status = backend->extract(ctx, out, rate);
    }
    out += rate;
    len -= rate;
  }
  ctx->squeezed = (uint32_t)rate;
  if (status == COUPLET_OK && len != 0u) {
    status = backend->permute(ctx);
    if (status == COUPLET_OK) {
      status = backend->extract(ctx, ctx->buf, rate);
    }
    copy_bytes(out, ctx->buf, len);
    ctx->squeezed = (uint32_t)len;
  }
  return end_call(ctx, backend, status);
}

// The one-shot calls run a context on the stack and wipe it before returning.
static void wipe_ctx(couplet_sha3_ctx_t *ctx) {
  wipe_data(ctx);
  ctx->phase = 0u;
}

// The one-shot calls. A backend with the `hash` short cut gets the whole message at once when
// the output fits one block; otherwise a context on the stack runs the incremental calls and
// is wiped before returning.
static couplet_status_t one_shot(couplet_sha3_backend_id_t backend_id, couplet_sha3_alg_t alg,
                                 const uint8_t *data, size_t len, uint8_t *out, size_t out_len) {
  if (UNLIKELY((unsigned)backend_id >= (unsigned)COUPLET_SHA3_BACKEND_COUNT)) {
    return COUPLET_ERR_ARG;
  }
  const couplet_sha3_backend_t *backend = backends[backend_id];
  if (UNLIKELY(backend == NULL)) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  const bool shake = alg_is_shake((uint32_t)alg);
  if (backend->hash != NULL && out_len != 0u && out_len <= alg_rate[alg]) {
    if (UNLIKELY(!lock_take(backend))) {
      return COUPLET_ERR_BUSY;
    }
    const couplet_status_t status =
        backend->hash(alg_rate[alg], shake ? PAD_SHAKE : PAD_SHA3, data, len, out, out_len);
    lock_give(backend);
    return status;
  }
  couplet_sha3_ctx_t ctx;
  couplet_status_t status = couplet_sha3_init_backend(&ctx, alg, backend_id);
  if (status == COUPLET_OK) {
    status = couplet_sha3_update(&ctx, data, len);
  }
  if (status == COUPLET_OK && !shake) {
    status = couplet_sha3_final(&ctx, out, out_len);
  } else if (status == COUPLET_OK) {
    status = couplet_shake_final(&ctx);
    if (status == COUPLET_OK) {
      status = couplet_shake_squeeze(&ctx, out, out_len);
    }
  }
  wipe_ctx(&ctx);
  return status;
}

couplet_status_t couplet_sha3_using(couplet_sha3_backend_id_t backend, couplet_sha3_alg_t alg,
                                    const uint8_t *data, size_t len, uint8_t *digest, size_t digest_len) {
  if (UNLIKELY((len != 0u && data == NULL) || digest == NULL)) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!alg_valid(alg) || alg_is_shake((uint32_t)alg))) {
    return COUPLET_ERR_ARG;
  }
  if (UNLIKELY(digest_len < alg_digest[alg])) {
    return COUPLET_ERR_LEN;
  }
  return one_shot(backend, alg, data, len, digest, alg_digest[alg]);
}

couplet_status_t couplet_sha3(couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                              uint8_t *digest, size_t digest_len) {
  return couplet_sha3_using(COUPLET_SHA3_DEFAULT_BACKEND, alg, data, len, digest, digest_len);
}

couplet_status_t couplet_shake_using(couplet_sha3_backend_id_t backend, couplet_sha3_alg_t alg,
                                     const uint8_t *data, size_t len, uint8_t *out, size_t out_len) {
  if (UNLIKELY((len != 0u && data == NULL) || (out_len != 0u && out == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!alg_valid(alg) || !alg_is_shake((uint32_t)alg))) {
    return COUPLET_ERR_ARG;
  }
  return one_shot(backend, alg, data, len, out, out_len);
}

couplet_status_t couplet_shake(couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                               uint8_t *out, size_t out_len) {
  return couplet_shake_using(COUPLET_SHA3_DEFAULT_BACKEND, alg, data, len, out, out_len);
}
