// The SHA-3 front end: argument checks, the backend table of this SoC configuration, the block
// buffer (messages arrive in pieces of any length, backends take whole blocks), the padding,
// squeezing across blocks, the lock that gives one call at a time (or one holder) the single,
// shared accelerator, and the one-shot and held calls.

#include <couplet/sha3.h>

#include <stdatomic.h>

#include <couplet/sha3_held.h>
#include <couplet/soc_config.h>
#include <couplet/wipe.h>

#include "sha3_backend.h"

// The common calls of update and final (below) issue the accelerator's instructions or register
// accesses themselves: on the SoC, with its coupling's macros.
#if defined(__riscv) && defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT && \
    defined(COUPLET_KECCAK_CUSTOM_OPCODE) && \
    ((defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT) || (defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM))
#define FAST_XIF 1
#include "sha3_xif.h"
#else
#define FAST_XIF 0
#endif
#if defined(__riscv) && defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT && defined(COUPLET_KECCAK_BASE) && \
    ((defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO) || (defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA))
#define FAST_MMIO 1
#include "sha3_mmio.h"
#else
#define FAST_MMIO 0
#endif

static const char *const backend_names[COUPLET_SHA3_BACKEND_COUNT] = {
    [COUPLET_SHA3_BACKEND_SOFT] = "soft",
    [COUPLET_SHA3_BACKEND_ISE] = "ise",
    [COUPLET_SHA3_BACKEND_TIGHT] = "tight",
    [COUPLET_SHA3_BACKEND_MEM] = "mem",
    [COUPLET_SHA3_BACKEND_MMIO] = "mmio",
    [COUPLET_SHA3_BACKEND_DMA] = "dma",
};

// The ids from TIGHT on drive the accelerator (the one-shot and held calls tell them apart by
// id; the context calls by the backend's uses_accelerator).
_Static_assert(COUPLET_SHA3_BACKEND_SOFT < COUPLET_SHA3_BACKEND_TIGHT &&
                   COUPLET_SHA3_BACKEND_ISE < COUPLET_SHA3_BACKEND_TIGHT &&
                   COUPLET_SHA3_BACKEND_MEM > COUPLET_SHA3_BACKEND_TIGHT &&
                   COUPLET_SHA3_BACKEND_MMIO > COUPLET_SHA3_BACKEND_TIGHT &&
                   COUPLET_SHA3_BACKEND_DMA > COUPLET_SHA3_BACKEND_TIGHT,
               "accelerator backends are the ids from TIGHT on");

#define ALG_COUNT 6u

// Bytes per block: 200 - 2 * security level in bytes (FIPS 202 sections 6.1 and 6.2).
static const uint8_t alg_rate[ALG_COUNT] = {144u, 136u, 104u, 72u, 168u, 136u};
static const uint8_t alg_digest[ALG_COUNT] = {28u, 32u, 48u, 64u, 0u, 0u};

// The domain-separation suffix (SHA3: 01, SHAKE: 1111, FIPS 202 section 6) followed by the first
// 1 of pad10*1, as a byte in the state's bit order (bit i of byte j is bit 8j+i of the string).
#define PAD_SHA3 COUPLET_SHA3_PAD_SHA3
#define PAD_SHAKE COUPLET_SHA3_PAD_SHAKE

// ctx->phase. Zero is none of them, so a zeroed context is refused.
#define PHASE_ABSORBING 0x5A3A0001u
#define PHASE_SQUEEZING 0x5A3A0002u
#define PHASE_FINISHED 0x5A3A0003u

// Error paths are marked unlikely so that the compiler lays the checks out as a run of
// untaken branches: on CV32E40X a taken branch costs two more cycles.
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define SHA3_INLINE static inline __attribute__((always_inline))

atomic_uint sha3_accel_lock;

// The current hold's number (sha3_held.h): written by the thread that holds the lock.
atomic_uint couplet_sha3_holder_token;
static uint32_t last_hold_token;

// The block buffer is wiped a word at a time; its offset keeps it word-aligned.
_Static_assert(offsetof(couplet_sha3_ctx_t, buf) % 4u == 0u, "ctx->buf must be word-aligned");
_Static_assert(COUPLET_SHA3_MAX_RATE % 4u == 0u, "ctx->buf must be whole words");

SHA3_INLINE bool alg_valid(couplet_sha3_alg_t alg) {
  return (unsigned)alg < ALG_COUNT;
}

SHA3_INLINE bool alg_is_shake(uint32_t alg) {
  return alg == (uint32_t)COUPLET_SHAKE128 || alg == (uint32_t)COUPLET_SHAKE256;
}

// Zeroes words [0, n) of ctx->buf.
static void wipe_buf_words(couplet_sha3_ctx_t *ctx, size_t n) {
  couplet_wipe_words((uint32_t *)(sha3_alias_word_t *)(void *)ctx->buf, n);
}

// Zeroes the state words with volatile stores (the compiler must not drop them as dead), all 50
// unrolled: a wipe that every finished hash pays (a loop of them costs twice as many cycles).
static void wipe_state(uint32_t *state) {
  volatile uint32_t *v = state;
#pragma GCC unroll 50
  for (size_t i = 0; i < COUPLET_SHA3_STATE_WORDS; ++i) {
    v[i] = 0u;
  }
  __asm__ volatile("" ::: "memory");
}

// Everything a context may hold of a message, whatever its state: for failures and for a hash
// abandoned half-way.
static void wipe_data(couplet_sha3_ctx_t *ctx) {
  couplet_wipe_words(ctx->state, COUPLET_SHA3_STATE_WORDS);
  wipe_buf_words(ctx, COUPLET_SHA3_MAX_RATE / 4u);
  ctx->buf_len = 0u;
  ctx->in_state = 0u;
  ctx->squeezed = 0u;
  ctx->state_tag = 0u;
}

// A context is initialised when its backend pointer is this SoC's backend of its backend_id: a
// zeroed or garbage context is refused rather than followed into a random function pointer.
// The fields that index ctx->buf are checked too, so that a corrupted context cannot make the
// front end write outside it. (The phase is the caller's check: each call needs one phase.)
// Every field is loaded and compared without a branch, then one branch: a chain of loads each
// followed by its branch stalls CV32E40X on every load. The tables are indexed masked to their
// padded size, so a garbage index reads nothing outside them (and fails the test).
#define BACKEND_SLOTS 8u
#define ALG_SLOTS 8u
_Static_assert(COUPLET_SHA3_BACKEND_COUNT <= BACKEND_SLOTS && ALG_COUNT <= ALG_SLOTS, "padded tables");
// Only the backends this SoC has are referenced, so only they are linked.
static const couplet_sha3_backend_t *const backend_slots[BACKEND_SLOTS] = {
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
// (rate, digest size) of each algorithm as one halfword; 0 past the end (no context matches).
static const uint16_t alg_shape[ALG_SLOTS] = {144u | 28u << 8, 136u | 32u << 8, 104u | 48u << 8,
                                              72u | 64u << 8, 168u, 136u};

SHA3_INLINE bool ctx_initialised(const couplet_sha3_ctx_t *ctx) {
  const uint32_t id = ctx->backend_id, alg = ctx->alg, rate = ctx->rate, digest_len = ctx->digest_len;
  const uint32_t buf_len = ctx->buf_len, in_state = ctx->in_state, squeezed = ctx->squeezed;
  const couplet_sha3_backend_t *const backend = ctx->backend;
  const uint32_t bad = (uint32_t)(id >= (uint32_t)COUPLET_SHA3_BACKEND_COUNT) | (uint32_t)(backend == NULL) |
                       (uint32_t)(backend != backend_slots[id & (BACKEND_SLOTS - 1u)]) |
                       (uint32_t)(alg >= ALG_COUNT) |
                       (uint32_t)((rate | digest_len << 8) != alg_shape[alg & (ALG_SLOTS - 1u)]) |
                       (uint32_t)(buf_len >= rate) | (uint32_t)(in_state > buf_len) | (uint32_t)(squeezed > rate);
  return bad == 0u;
}

// Copies bytes: a word at a time when both sides are aligned, otherwise a plain byte loop rather
// than picolibc's byte-at-a-time memcpy (tests/test_sha3_host.py checks the object calls no
// library function; the empty asm keeps GCC from turning the loops into memcpy calls).
static void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n) {
  size_t i = 0;
  if (sha3_word_aligned(dst) && sha3_word_aligned(src)) {
    for (; i + 4u <= n; i += 4u) {
      *(sha3_alias_word_t *)(void *)(dst + i) = *(const sha3_alias_word_t *)(const void *)(src + i);
      __asm__ volatile("");
    }
  }
  for (; i < n; ++i) {
    dst[i] = src[i];
    __asm__ volatile("");
  }
}

// Whole blocks in `len` bytes: `len / rate` without a division for short messages (CV32E40X
// divides in up to 35 cycles).
SHA3_INLINE size_t whole_blocks(size_t len, size_t rate) {
  if (len < 2u * rate) {
    return len >= rate ? 1u : 0u;
  }
  return len / rate;
}

bool couplet_sha3_backend_available(couplet_sha3_backend_id_t backend) {
  return (unsigned)backend < (unsigned)COUPLET_SHA3_BACKEND_COUNT && backend_slots[backend] != NULL;
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
  if (UNLIKELY(ctx == NULL)) {
    return COUPLET_ERR_NULL;
  }
  // A hash abandoned half-way leaves nothing behind in the context. A finished one was wiped by
  // its final call; anything else is not ours (a new context's memory), and the state and buffer
  // are not read before this hash writes them (state_tag 0: a fresh, zero state).
  if (UNLIKELY(ctx->phase == PHASE_ABSORBING || ctx->phase == PHASE_SQUEEZING)) {
    wipe_data(ctx);
  }
  // After a failure the context is uninitialised, so that using it anyway gives
  // COUPLET_ERR_STATE.
  ctx->backend = NULL;
  ctx->backend_id = (uint32_t)COUPLET_SHA3_BACKEND_COUNT;
  ctx->phase = 0u;
  ctx->alg = ALG_COUNT;
  ctx->rate = 0u;
  ctx->digest_len = 0u;
  ctx->buf_len = 0u;
  ctx->in_state = 0u;
  ctx->squeezed = 0u;
  ctx->state_tag = 0u;
  if (UNLIKELY(!alg_valid(alg) || (unsigned)backend >= (unsigned)COUPLET_SHA3_BACKEND_COUNT)) {
    return COUPLET_ERR_ARG;
  }
  if (UNLIKELY(backend_slots[backend] == NULL)) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  ctx->alg = (uint32_t)alg;
  ctx->rate = alg_rate[alg];
  ctx->digest_len = alg_digest[alg];
  ctx->phase = PHASE_ABSORBING;
  ctx->backend = backend_slots[backend];
  ctx->backend_id = (uint32_t)backend;
  return COUPLET_OK;
}

couplet_status_t couplet_sha3_init(couplet_sha3_ctx_t *ctx, couplet_sha3_alg_t alg) {
  return couplet_sha3_init_backend(ctx, alg, COUPLET_SHA3_DEFAULT_BACKEND);
}

// Takes the accelerator for a call into `backend` if it drives it.
SHA3_INLINE bool begin_call(const couplet_sha3_backend_t *backend) {
  return !backend->uses_accelerator || sha3_lock_take();
}

// Ends a call that went into the backend: release (always, once; `keep` when the hash goes on
// and nothing failed), then the lock. A backend error loses the message, so the context is wiped
// and refuses further use.
SHA3_INLINE couplet_status_t end_call(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                      couplet_status_t status, bool keep) {
  if (backend->release != NULL) {
    couplet_status_t released = backend->release(ctx, keep && status == COUPLET_OK);
    if (status == COUPLET_OK) {
      status = released;
    }
  }
  if (backend->uses_accelerator) {
    sha3_lock_give();
  }
  if (UNLIKELY(status != COUPLET_OK)) {
    wipe_data(ctx);
    ctx->phase = PHASE_FINISHED;
  }
  return status;
}

// The checks every call on a context starts with: NULL, then an uninitialised context or one
// in another phase (or of the other family) than the call needs.
SHA3_INLINE couplet_status_t check_ctx(const couplet_sha3_ctx_t *ctx, bool pointers_ok, uint32_t phase,
                                       bool shake) {
  if (UNLIKELY(ctx == NULL || !pointers_ok)) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!ctx_initialised(ctx) || ctx->phase != phase || alg_is_shake(ctx->alg) != shake)) {
    return COUPLET_ERR_STATE;
  }
  return COUPLET_OK;
}

// The first bytes of the block are in the state (an update's last part went there) and more
// are about to be buffered behind them: zero the buffer below them, so that the buffer can go to
// the backend as a whole (XOR of zero changes nothing there).
static void buffer_behind_state(couplet_sha3_ctx_t *ctx) {
  wipe_buf_words(ctx, (ctx->in_state + 3u) / 4u);
}

// An update that reaches the backend, after the checks and the lock: the buffered start of the
// block completed, the whole blocks, the rest into the state, the release.
SHA3_INLINE couplet_status_t update_backend(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                            const uint8_t *data, size_t len, size_t rate, size_t have) {
  couplet_status_t status = COUPLET_OK;
  if (have != 0u) {
    // The buffered start of the block (and zeros below it where the state has the rest), then
    // the caller's bytes that complete it.
    if (ctx->in_state == have) {
      buffer_behind_state(ctx);
    }
    const size_t fill = rate - have;
    copy_bytes(&ctx->buf[have], data, fill);
    status = backend->absorb(ctx, ctx->buf, 1u);
    wipe_buf_words(ctx, rate / 4u);  // it held message bytes
    data += fill;
    len -= fill;
  }
  // Whole blocks straight from the caller's buffer; the rest straight into the state.
  const size_t blocks = whole_blocks(len, rate);
  if (status == COUPLET_OK && blocks != 0u) {
    status = backend->absorb(ctx, data, blocks);
    data += blocks * rate;
    len -= blocks * rate;
  }
  if (status == COUPLET_OK && len != 0u) {
    status = backend->absorb_part(ctx, data, len);
  }
  ctx->buf_len = (uint32_t)len;  // len < rate now
  ctx->in_state = (uint32_t)len;
  return end_call(ctx, backend, status, true);
}

// The checked path of couplet_sha3_update (below): every context, backend and length.
static __attribute__((noinline)) couplet_status_t update_checked(couplet_sha3_ctx_t *ctx, const uint8_t *data,
                                                                 size_t len) {
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
    if (len != 0u) {
      if (ctx->in_state == have && have != 0u) {
        buffer_behind_state(ctx);
      }
      copy_bytes(&ctx->buf[have], data, len);
      ctx->buf_len = (uint32_t)(have + len);
    }
    return COUPLET_OK;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!begin_call(backend))) {
    return COUPLET_ERR_BUSY;
  }
  return update_backend(ctx, backend, data, len, rate, have);
}

#if FAST_XIF || FAST_MMIO
// The same after the common call's checks and lock (xif_update, mmio_update), for what it leaves
// to the backend's operations: the runs of blocks that go by ABSORB jobs (mem) or descriptors
// (dma).
// Nothing is buffered then (fast_update_bad).
static __attribute__((noinline)) couplet_status_t update_locked(couplet_sha3_ctx_t *ctx, const uint8_t *data,
                                                                size_t len) {
  return update_backend(ctx, ctx->backend, data, len, ctx->rate, 0u);
}
#endif

// Ends the input: the buffered bytes of the last block (none when they are all in the state;
// where the state has some, the buffer is zero there), the padding and the last permutation.
SHA3_INLINE couplet_status_t absorb_last_block(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                               uint32_t pad) {
  const bool buffered = ctx->buf_len != ctx->in_state;
  return backend->absorb_last(ctx, buffered ? ctx->buf : NULL, ctx->buf_len, pad);
}

// The checked path of couplet_sha3_final (below).
static __attribute__((noinline)) couplet_status_t final_checked(couplet_sha3_ctx_t *ctx, uint8_t *digest,
                                                                size_t digest_len) {
  couplet_status_t status = check_ctx(ctx, digest != NULL, PHASE_ABSORBING, false);
  if (UNLIKELY(status != COUPLET_OK)) {
    return status;
  }
  if (UNLIKELY(digest_len < ctx->digest_len)) {
    return COUPLET_ERR_LEN;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!begin_call(backend))) {
    return COUPLET_ERR_BUSY;
  }
  const size_t buffered = ctx->buf_len != ctx->in_state ? ctx->buf_len : 0u;
  status = absorb_last_block(ctx, backend, PAD_SHA3);
  if (status == COUPLET_OK) {
    status = backend->extract(ctx, digest, ctx->digest_len);
  }
  status = end_call(ctx, backend, status, false);
  // Finished either way: nothing of the message stays behind in the context (only what held
  // some is wiped: the buffered bytes, the stored state).
  wipe_buf_words(ctx, (buffered + 3u) / 4u);
  if (ctx->state_tag != 0u) {
    wipe_state(ctx->state);
  }
  ctx->buf_len = 0u;
  ctx->in_state = 0u;
  ctx->state_tag = 0u;
  ctx->phase = PHASE_FINISHED;
  return status;
}

// The common calls of the accelerator backends: couplet_sha3_update and couplet_sha3_final on
// tight, mem, mmio and dma, when they can, run as one leaf function each: no register saved, no
// call through the backend table, the state's residency checked once, the coupling's
// instructions inline. They take a context that passes every check of the call and that is
// fresh or whose state the accelerator holds, and word-aligned buffers: an update that starts
// on a block boundary and reaches the accelerator (on mem fewer blocks than an ABSORB job is
// worth, on dma fewer than a descriptor), a final of a SHA3-* digest. They do what the checked
// path does through the backend's operations and leave the same context and the same record
// (sha3_hw.h); everything else, and every error they do not decide themselves (BUSY and the
// accelerator's own), goes to the checked path, which decides the error code. Host builds
// (tests/test_sha3_host.py) have stand-in backends and no accelerator: there every call takes
// the checked path.

#if FAST_XIF || FAST_MMIO
// Whether ctx (of the backend `id` whose table entry is `backend`) fails a check of
// ctx_initialised or the absorbing phase, or is not of the first `algs` algorithms. One value,
// one branch, as in ctx_initialised.
SHA3_INLINE uint32_t fast_ctx_bad(const couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                  uint32_t algs) {
  const uint32_t alg = ctx->alg, rate = ctx->rate, digest_len = ctx->digest_len;
  return (uint32_t)(ctx->backend != backend) | (uint32_t)(ctx->phase != PHASE_ABSORBING) | (uint32_t)(alg >= algs) |
         (uint32_t)((rate | digest_len << 8) != alg_shape[alg & (ALG_SLOTS - 1u)]);
}

// Whether an update that reaches the accelerator is not a common call: a check fails,
// something is buffered or in the state, the data is unaligned.
SHA3_INLINE uint32_t fast_update_bad(const couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                     const uint8_t *data) {
  return fast_ctx_bad(ctx, backend, ALG_COUNT) | (uint32_t)((ctx->buf_len | ctx->in_state | ctx->squeezed) != 0u) |
         (uint32_t)(data == NULL) | (uint32_t)(((uintptr_t)data & 3u) != 0u);
}

// Whether final(ctx, digest, digest_len) is not a common call: a check fails (a SHAKE context
// included), or the digest buffer is unaligned.
SHA3_INLINE uint32_t fast_final_bad(const couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                    const uint8_t *digest, size_t digest_len) {
  const uint32_t buf_len = ctx->buf_len;
  return fast_ctx_bad(ctx, backend, (uint32_t)COUPLET_SHA3_512 + 1u) | (uint32_t)(ctx->squeezed != 0u) |
         (uint32_t)(ctx->in_state > buf_len) | (uint32_t)(buf_len >= ctx->rate) | (uint32_t)(digest == NULL) |
         (uint32_t)(((uintptr_t)digest & 3u) != 0u) | (uint32_t)(digest_len < ctx->digest_len);
}

// An update that stays short of a block (len < rate - have) only buffers, without the
// accelerator: copy_bytes inline (a call would cost the leaf its return address). Anything
// else goes to the checked path: a failed check, the start of the block in the state with the
// buffer below it not yet zeroed (buffer_behind_state), data NULL with a length.
SHA3_INLINE couplet_status_t fast_buffer(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                         const uint8_t *data, size_t len, size_t have) {
  const uint32_t in_state = ctx->in_state;
  const uint32_t bad = fast_ctx_bad(ctx, backend, ALG_COUNT) | (uint32_t)(ctx->squeezed != 0u) |
                       (uint32_t)(have >= ctx->rate) | (uint32_t)(in_state >= have && have != 0u) |
                       (uint32_t)(in_state > have) | (uint32_t)(data == NULL && len != 0u);
  if (UNLIKELY(bad != 0u)) {
    return update_checked(ctx, data, len);
  }
  uint8_t *dst = &ctx->buf[have];
  size_t i = 0;
  if ((((uintptr_t)dst | (uintptr_t)data) & 3u) == 0u) {
    for (; i + 4u <= len; i += 4u) {
      *(sha3_alias_word_t *)(void *)(dst + i) = *(const sha3_alias_word_t *)(const void *)(data + i);
      __asm__ volatile("");  // no memcpy call (see copy_bytes)
    }
  }
  for (; i < len; ++i) {
    dst[i] = data[i];
    __asm__ volatile("");
  }
  ctx->buf_len = (uint32_t)(have + len);
  return COUPLET_OK;
}

// Whether the accelerator holds ctx's state (tag: ctx->state_tag, not 0).
SHA3_INLINE bool fast_resident(const couplet_sha3_ctx_t *ctx, uint32_t tag) {
  return sha3_hw.resident == ctx && sha3_hw.tag == tag;
}

// Update's bookkeeping, done while a permutation runs: the `left` bytes of the block that go
// into the state, and the record of a state that will be stored under a new tag and stay
// resident (sha3_hw_stored, sha3_hw_now_resident). A failure later wipes the context and
// forgets the record.
SHA3_INLINE void fast_update_record(couplet_sha3_ctx_t *ctx, size_t left) {
  ctx->buf_len = (uint32_t)left;
  ctx->in_state = (uint32_t)left;
  uint32_t tag = sha3_hw.last_tag + 1u;
  if (tag == 0u) {
    tag = 1u;  // 0 means a fresh hash
  }
  sha3_hw.last_tag = tag;
  sha3_hw.tag = tag;
  sha3_hw.resident = ctx;
  sha3_hw.permute_issued = false;
  ctx->state_tag = tag;
}

// Final's wipes, done while the last permutation runs: the buffered bytes, the stored state
// (when there is one), and the context finished. Read from the context again rather than kept
// from before the permutation: a leaf function has no register to spare.
SHA3_INLINE void fast_final_wipe(couplet_sha3_ctx_t *ctx) {
  const uint32_t n = ctx->buf_len;
  if (n != ctx->in_state) {
    couplet_wipe_words((uint32_t *)(sha3_alias_word_t *)(void *)ctx->buf, (n + 3u) / 4u);
  }
  if (ctx->state_tag != 0u) {
    wipe_state(ctx->state);
  }
  ctx->buf_len = 0u;
  ctx->in_state = 0u;
  ctx->state_tag = 0u;
  ctx->phase = PHASE_FINISHED;
}

// A common call whose hardware failed (its accelerator zeroized, the record forgotten): as
// end_call after a backend error, the lock given back and the context wiped.
static __attribute__((noinline)) couplet_status_t fast_failed(couplet_sha3_ctx_t *ctx, couplet_status_t status) {
  sha3_hw_forget();
  sha3_lock_give();
  wipe_data(ctx);
  ctx->phase = PHASE_FINISHED;
  return status;
}

#endif

#if FAST_XIF
// A refused PERMUTE (acc, ORed answers): as xif_failed (sha3_tight.c), its sticky bit cleared.
static __attribute__((noinline)) couplet_status_t xif_fast_failed(couplet_sha3_ctx_t *ctx, uint32_t acc) {
  (void)xif(XIF_WRITE, KECCAK_STATUS_INDEX, KECCAK_STATUS_REFUSED_BUSY_MASK, 0u);
  xif_zeroize();
  return fast_failed(ctx, (acc & XIF_BAD_COUNT) ? COUPLET_ERR_HW : COUPLET_ERR_BUSY);
}

// couplet_sha3_update on tight or mem (`backend`): sha3_xif_absorb's blocks, sha3_xif_absorb_part's
// tail, sha3_xif_release's store.
SHA3_INLINE couplet_status_t xif_update(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                        uint32_t max_blocks, const uint8_t *data, size_t len) {
  const size_t have = ctx->buf_len;
  if (len < ctx->rate - have) {
    return fast_buffer(ctx, backend, data, len, have);
  }
  if (UNLIKELY(fast_update_bad(ctx, backend, data) != 0u)) {
    return update_checked(ctx, data, len);
  }
  if (UNLIKELY(!sha3_lock_take())) {
    return COUPLET_ERR_BUSY;
  }
  if (max_blocks != 0u && len >= max_blocks * (size_t)ctx->rate) {
    return update_locked(ctx, data, len);  // checked, and the accelerator taken
  }
  const uint32_t tag = ctx->state_tag;
  if (tag == 0u) {
    xif_zeroize();  // a fresh hash
  } else if (UNLIKELY(!fast_resident(ctx, tag))) {
    sha3_lock_give();
    return update_checked(ctx, data, len);  // it loads the state
  }
  const size_t rate = ctx->rate;
  const uint32_t top = (uint32_t)rate / 8u - 1u;
  uint32_t acc = 0u;
  // (The top pair by a pointer of its own: an offset from data would be one more register.)
  const uint8_t *top_pair = data + 8u * top;
  do {
    xif_xor_chain(data, top, couplet_load_le32_as(top_pair, true), couplet_load_le32_as(top_pair + 4u, true));
    acc |= xif_permute();
    data += rate;
    top_pair += rate;
    len -= rate;
  } while (len >= rate);
  fast_update_record(ctx, len);
  xif_xor_part(data, len);  // the rest into the state
  if (UNLIKELY(acc != 0u)) {
    return xif_fast_failed(ctx, acc);
  }
  xif_store_state(ctx->state);  // for the next call
  sha3_lock_give();
  return COUPLET_OK;
}

// couplet_sha3_final on tight or mem: sha3_xif_absorb_last, the digest READ straight into the
// caller's buffer, release's ZEROIZE; the context's wipes while the last permutation runs.
SHA3_INLINE couplet_status_t xif_final(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                       uint8_t *digest, size_t digest_len) {
  if (UNLIKELY(fast_final_bad(ctx, backend, digest, digest_len) != 0u)) {
    return final_checked(ctx, digest, digest_len);
  }
  if (UNLIKELY(!sha3_lock_take())) {
    return COUPLET_ERR_BUSY;
  }
  const uint32_t tag = ctx->state_tag;
  if (tag == 0u) {
    xif_zeroize();
  } else if (UNLIKELY(!fast_resident(ctx, tag))) {
    sha3_lock_give();
    return final_checked(ctx, digest, digest_len);
  }
  const uint32_t n = ctx->buf_len, pairs = ctx->rate >> 3;
  const uint32_t q = n >> 3;
  const bool bit_here = q == pairs - 1u;
  uint32_t acc = 0u;
  // pad10*1's last bit first when it is not in the pair of the last bytes (XOR: any order).
  if (!bit_here) {
    acc = xif_write_pair_inline(pairs - 1u, 0u, SHA3_PAD_LAST_BIT);
  }
  if (n != ctx->in_state) {
    // The buffered bytes (zero below those in the state).
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(ctx->buf, n, true, PAD_SHA3, bit_here);
    xif_xor_chain(ctx->buf, q, pair.lo, pair.hi);
  } else {
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(NULL, n, true, PAD_SHA3, bit_here);
    acc |= xif_write_pair_inline(q, pair.lo, pair.hi);
  }
  acc |= xif_permute();
  fast_final_wipe(ctx);
  if (UNLIKELY(acc != 0u)) {
    return xif_fast_failed(ctx, acc);
  }
  // The digest (7, 8, 12 or 16 words); the first READ waits for the permutation.
  switch (ctx->alg) {
    case COUPLET_SHA3_224:
      XIF_R1(digest, 6u, true);
      goto xd6;
    case COUPLET_SHA3_256:
      goto xd8;
    case COUPLET_SHA3_384:
      goto xd12;
    default:
      goto xd16;
  }
  SHA3_READ_CHAIN(xd, XIF_R2, digest, true)
  xif_zeroize();
  sha3_hw_forget();
  sha3_hw.permute_issued = false;
  sha3_lock_give();
  return COUPLET_OK;
}
#endif

#if FAST_MMIO
// An error bit in STATUS after the last PERMUTE: as mmio_take_status (sha3_mmio.c), cleared.
static __attribute__((noinline)) couplet_status_t mmio_fast_failed(couplet_sha3_ctx_t *ctx, uint32_t status) {
  reg_write(KECCAK_STATUS_INDEX, status & KECCAK_STATUS_ERRORS);
  mmio_zeroize();
  return fast_failed(ctx, sha3_hw_refusal(status));
}

// couplet_sha3_update on mmio or dma (dma: runs shorter than a descriptor is worth, as
// dma_absorb): sha3_mmio_absorb's blocks, sha3_mmio_absorb_part's tail, sha3_mmio_release's
// STATUS check and store.
SHA3_INLINE couplet_status_t mmio_update(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                         uint32_t max_blocks, const uint8_t *data, size_t len) {
  const size_t have = ctx->buf_len;
  if (len < ctx->rate - have) {
    return fast_buffer(ctx, backend, data, len, have);
  }
  if (UNLIKELY(fast_update_bad(ctx, backend, data) != 0u)) {
    return update_checked(ctx, data, len);
  }
  if (UNLIKELY(!sha3_lock_take())) {
    return COUPLET_ERR_BUSY;
  }
  if (max_blocks != 0u && len >= max_blocks * (size_t)ctx->rate) {
    return update_locked(ctx, data, len);  // checked, and the accelerator taken
  }
  const uint32_t tag = ctx->state_tag;
  if (tag == 0u) {
    mmio_zeroize();
  } else if (UNLIKELY(!fast_resident(ctx, tag))) {
    sha3_lock_give();
    return update_checked(ctx, data, len);
  }
  const size_t rate = ctx->rate;
  const uint32_t top = (uint32_t)rate / 8u - 1u;
  do {
    mmio_xor_chain_permute(data, top, couplet_load_le32_as(data + 8u * top, true),
                           couplet_load_le32_as(data + 8u * top + 4u, true));
    data += rate;
    len -= rate;
  } while (len >= rate);
  fast_update_record(ctx, len);
  mmio_xor_part(data, len);  // the rest into the state
  // A refused PERMUTE shows only in STATUS.
  const uint32_t status = reg_read(KECCAK_STATUS_INDEX);
  if (UNLIKELY((status & KECCAK_STATUS_ERRORS) != 0u)) {
    return mmio_fast_failed(ctx, status);
  }
  mmio_store_state(ctx->state);  // for the next call
  sha3_lock_give();
  return COUPLET_OK;
}

// couplet_sha3_final on mmio or dma: sha3_mmio_absorb_last (its STATUS check), the digest
// loaded straight into the caller's buffer, release's ZEROIZE.
SHA3_INLINE couplet_status_t mmio_final(couplet_sha3_ctx_t *ctx, const couplet_sha3_backend_t *backend,
                                        uint8_t *digest, size_t digest_len) {
  if (UNLIKELY(fast_final_bad(ctx, backend, digest, digest_len) != 0u)) {
    return final_checked(ctx, digest, digest_len);
  }
  if (UNLIKELY(!sha3_lock_take())) {
    return COUPLET_ERR_BUSY;
  }
  const uint32_t tag = ctx->state_tag;
  if (tag == 0u) {
    mmio_zeroize();
  } else if (UNLIKELY(!fast_resident(ctx, tag))) {
    sha3_lock_give();
    return final_checked(ctx, digest, digest_len);
  }
  const uint32_t n = ctx->buf_len, pairs = ctx->rate >> 3;
  const uint32_t q = n >> 3;
  const bool bit_here = q == pairs - 1u;
  if (!bit_here) {
    reg_write(KECCAK_STATE_XOR_INDEX + 2u * pairs - 1u, SHA3_PAD_LAST_BIT);
  }
  if (n != ctx->in_state) {
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(ctx->buf, n, true, PAD_SHA3, bit_here);
    mmio_xor_chain(ctx->buf, q, pair.lo, pair.hi);
  } else {
    // Stores take any address: the pair by its index.
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(NULL, n, true, PAD_SHA3, bit_here);
    reg_write(KECCAK_STATE_XOR_INDEX + 2u * q, pair.lo);
    reg_write(KECCAK_STATE_XOR_INDEX + 2u * q + 1u, pair.hi);
  }
  reg_write(KECCAK_CMD_INDEX, KECCAK_CMD_PERMUTE_MASK);
  // Answered at once, during the permutation.
  const uint32_t status = reg_read(KECCAK_STATUS_INDEX);
  fast_final_wipe(ctx);
  if (UNLIKELY((status & KECCAK_STATUS_ERRORS) != 0u)) {
    return mmio_fast_failed(ctx, status);
  }
  // The first load waits for the permutation.
  switch (ctx->alg) {
    case COUPLET_SHA3_224:
      MMIO_R1(digest, 6u, true);
      goto md6;
    case COUPLET_SHA3_256:
      goto md8;
    case COUPLET_SHA3_384:
      goto md12;
    default:
      goto md16;
  }
  SHA3_READ_CHAIN(md, MMIO_R2, digest, true)
  mmio_zeroize();
  sha3_hw_forget();
  sha3_hw.permute_issued = false;
  sha3_lock_give();
  return COUPLET_OK;
}
#endif

// The backends of one coupling share their common calls: tight and mem differ only in the
// backend and in whether long runs go by ABSORB jobs, mmio and dma in the backend and whether
// they go by descriptors. One function per coupling (noinline: each is allocated registers on
// its own; inlined together they made every path save registers), with the backend chosen at
// run time, rather than one per backend: each is a few KB of unrolled instructions. A backend the
// SoC lacks is NULL here, which no initialised context has, so such a call takes the checked
// path.
#if defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT
#define TIGHT_BACKEND (&couplet_sha3_backend_tight)
#else
#define TIGHT_BACKEND NULL
#endif
#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM
#define MEM_BACKEND (&couplet_sha3_backend_mem)
#else
#define MEM_BACKEND NULL
#endif
#if defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO
#define MMIO_BACKEND (&couplet_sha3_backend_mmio)
#else
#define MMIO_BACKEND NULL
#endif
#if defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA
#define DMA_BACKEND (&couplet_sha3_backend_dma)
#else
#define DMA_BACKEND NULL
#endif

#if FAST_XIF
static __attribute__((noinline)) couplet_status_t update_xif(couplet_sha3_ctx_t *ctx, const uint8_t *data,
                                                             size_t len, bool mem) {
  return xif_update(ctx, mem ? MEM_BACKEND : TIGHT_BACKEND, mem ? XIF_JOB_MIN_BLOCKS : 0u, data, len);
}

#endif
#if FAST_MMIO
static __attribute__((noinline)) couplet_status_t update_mmio(couplet_sha3_ctx_t *ctx, const uint8_t *data,
                                                              size_t len, bool dma) {
  return mmio_update(ctx, dma ? DMA_BACKEND : MMIO_BACKEND, dma ? SHA3_DMA_MIN_BLOCKS : 0u, data, len);
}

#endif

couplet_status_t couplet_sha3_update(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t len) {
#if FAST_XIF || FAST_MMIO
  if (LIKELY(ctx != NULL)) {
    const uint32_t id = ctx->backend_id;
#if FAST_XIF
    if (id == (uint32_t)COUPLET_SHA3_BACKEND_MEM || id == (uint32_t)COUPLET_SHA3_BACKEND_TIGHT) {
      return update_xif(ctx, data, len, id == (uint32_t)COUPLET_SHA3_BACKEND_MEM);
    }
#endif
#if FAST_MMIO
    if (id == (uint32_t)COUPLET_SHA3_BACKEND_MMIO || id == (uint32_t)COUPLET_SHA3_BACKEND_DMA) {
      return update_mmio(ctx, data, len, id == (uint32_t)COUPLET_SHA3_BACKEND_DMA);
    }
#endif
  }
#endif
  return update_checked(ctx, data, len);
}

couplet_status_t couplet_sha3_final(couplet_sha3_ctx_t *ctx, uint8_t *digest, size_t digest_len) {
#if FAST_XIF || FAST_MMIO
  if (LIKELY(ctx != NULL)) {
    const uint32_t id = ctx->backend_id;
#if FAST_XIF
    if (id == (uint32_t)COUPLET_SHA3_BACKEND_MEM || id == (uint32_t)COUPLET_SHA3_BACKEND_TIGHT) {
      return xif_final(ctx, id == (uint32_t)COUPLET_SHA3_BACKEND_MEM ? MEM_BACKEND : TIGHT_BACKEND, digest,
                       digest_len);
    }
#endif
#if FAST_MMIO
    if (id == (uint32_t)COUPLET_SHA3_BACKEND_MMIO || id == (uint32_t)COUPLET_SHA3_BACKEND_DMA) {
      return mmio_final(ctx, id == (uint32_t)COUPLET_SHA3_BACKEND_DMA ? DMA_BACKEND : MMIO_BACKEND, digest,
                        digest_len);
    }
#endif
  }
#endif
  return final_checked(ctx, digest, digest_len);
}

couplet_status_t couplet_shake_final(couplet_sha3_ctx_t *ctx) {
  couplet_status_t status = check_ctx(ctx, true, PHASE_ABSORBING, true);
  if (UNLIKELY(status != COUPLET_OK)) {
    return status;
  }
  const couplet_sha3_backend_t *backend = ctx->backend;
  if (UNLIKELY(!begin_call(backend))) {
    return COUPLET_ERR_BUSY;
  }
  // The first output block goes to the buffer now (over the buffered message bytes), so that
  // squeezes of any length can be served from it.
  status = absorb_last_block(ctx, backend, PAD_SHAKE);
  if (status == COUPLET_OK) {
    status = backend->extract(ctx, ctx->buf, ctx->rate);
  }
  ctx->buf_len = 0u;
  ctx->in_state = 0u;
  ctx->squeezed = 0u;
  ctx->phase = PHASE_SQUEEZING;
  return end_call(ctx, backend, status, true);
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
  if (UNLIKELY(!begin_call(backend))) {
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
  return end_call(ctx, backend, status, true);
}

// A whole hash through a backend's operations (sha3_backend.h): the soft and ise backends'
// couplet_sha3_hash_<name>, and any backend without a whole-hash function of its own.
couplet_status_t sha3_ops_hash(const couplet_sha3_backend_t *backend, uint32_t rate, uint32_t pad,
                               const uint8_t *data, size_t len, uint8_t *out, size_t out_len) {
  couplet_sha3_ctx_t ctx;  // the operations use its state, rate and state_tag
  ctx.rate = rate;
  ctx.state_tag = 0u;
  couplet_status_t status = COUPLET_OK;
  const size_t blocks = whole_blocks(len, rate);
  if (blocks != 0u) {
    status = backend->absorb(&ctx, data, blocks);
    data += blocks * rate;
    len -= blocks * rate;
  }
  if (status == COUPLET_OK) {
    status = backend->absorb_last(&ctx, data, len, pad);
  }
  while (status == COUPLET_OK && out_len != 0u) {
    const size_t take = out_len < rate ? out_len : rate;
    status = backend->extract(&ctx, out, take);
    out += take;
    out_len -= take;
    if (status == COUPLET_OK && out_len != 0u) {
      status = backend->permute(&ctx);
    }
  }
  if (backend->release != NULL) {
    const couplet_status_t released = backend->release(&ctx, false);
    status = status == COUPLET_OK ? released : status;
  }
  couplet_wipe_words(ctx.state, COUPLET_SHA3_STATE_WORDS);
  return status;
}

couplet_status_t couplet_sha3_hash_soft(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                        uint8_t *out, size_t out_len, bool release_lock) {
  (void)release_lock;  // never taken for a software backend
  return sha3_ops_hash(&couplet_sha3_backend_soft, rate, pad, data, len, out, out_len);
}

#if defined(COUPLET_SHA3_HAS_ISE) && COUPLET_SHA3_HAS_ISE
couplet_status_t couplet_sha3_hash_ise(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                       uint8_t *out, size_t out_len, bool release_lock) {
  (void)release_lock;  // never taken for a software backend
  return sha3_ops_hash(&couplet_sha3_backend_ise, rate, pad, data, len, out, out_len);
}
#endif

// The one-shot calls: backend `id`'s whole hash, with the accelerator taken for it when the
// backend drives it. Always inlined, so that with the default backend's (constant) id the
// checks of the id fold away and the hash is one direct call, its arguments already in the
// registers the caller got them in.
SHA3_INLINE couplet_status_t one_shot_with(uint32_t id, uint32_t rate, uint32_t pad, const uint8_t *data,
                                           size_t len, uint8_t *out, size_t out_len) {
  if (UNLIKELY(id >= (uint32_t)COUPLET_SHA3_BACKEND_COUNT)) {
    return COUPLET_ERR_ARG;
  }
  if (UNLIKELY(backend_slots[id] == NULL)) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  if (id < (uint32_t)COUPLET_SHA3_BACKEND_TIGHT) {
    return couplet_sha3_hash_switch_(id, rate, pad, data, len, out, out_len, false);
  }
  if (UNLIKELY(!sha3_lock_take())) {
    return COUPLET_ERR_BUSY;
  }
  // The hash gives the lock back itself, so that this is a tail call.
  return couplet_sha3_hash_switch_(id, rate, pad, data, len, out, out_len, true);
}

// Whether `len` bytes at `p` are missing: p NULL with a length. Computed without branching, so
// that the checks of a call are a run of untaken branches.
SHA3_INLINE bool missing(const void *p, size_t len) {
  return (bool)((unsigned)(len != 0u) & (unsigned)(p == NULL));
}

SHA3_INLINE couplet_status_t sha3_using(uint32_t backend, couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                                        uint8_t *digest, size_t digest_len) {
  if (UNLIKELY((unsigned)missing(data, len) | (unsigned)(digest == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY((unsigned)alg > (unsigned)COUPLET_SHA3_512)) {
    return COUPLET_ERR_ARG;  // outside the enum, or a SHAKE
  }
  const uint32_t size = alg_digest[alg];
  if (UNLIKELY(digest_len < size)) {
    return COUPLET_ERR_LEN;
  }
  // The rate of a SHA3-* is 200 - 2 * its digest size (FIPS 202 section 6.1): no second table.
  return one_shot_with(backend, 200u - 2u * size, PAD_SHA3, data, len, digest, size);
}

// The default backend first (one compare, then the path with the id folded away; the checks
// keep their order: the id is only judged after the others).
couplet_status_t couplet_sha3_using(couplet_sha3_backend_id_t backend, couplet_sha3_alg_t alg,
                                    const uint8_t *data, size_t len, uint8_t *digest, size_t digest_len) {
  if (LIKELY((uint32_t)backend == (uint32_t)COUPLET_SHA3_DEFAULT_BACKEND)) {
    return sha3_using((uint32_t)COUPLET_SHA3_DEFAULT_BACKEND, alg, data, len, digest, digest_len);
  }
  return sha3_using((uint32_t)backend, alg, data, len, digest, digest_len);
}

couplet_status_t couplet_sha3(couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                              uint8_t *digest, size_t digest_len) {
  return couplet_sha3_using(COUPLET_SHA3_DEFAULT_BACKEND, alg, data, len, digest, digest_len);
}

SHA3_INLINE couplet_status_t shake_using(uint32_t backend, couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                                         uint8_t *out, size_t out_len) {
  if (UNLIKELY((unsigned)missing(data, len) | (unsigned)missing(out, out_len))) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!alg_valid(alg) || !alg_is_shake((uint32_t)alg))) {
    return COUPLET_ERR_ARG;
  }
  return one_shot_with(backend, alg_rate[alg], PAD_SHAKE, data, len, out, out_len);
}

couplet_status_t couplet_shake_using(couplet_sha3_backend_id_t backend, couplet_sha3_alg_t alg,
                                     const uint8_t *data, size_t len, uint8_t *out, size_t out_len) {
  if (LIKELY((uint32_t)backend == (uint32_t)COUPLET_SHA3_DEFAULT_BACKEND)) {
    return shake_using((uint32_t)COUPLET_SHA3_DEFAULT_BACKEND, alg, data, len, out, out_len);
  }
  return shake_using((uint32_t)backend, alg, data, len, out, out_len);
}

couplet_status_t couplet_shake(couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                               uint8_t *out, size_t out_len) {
  return couplet_shake_using(COUPLET_SHA3_DEFAULT_BACKEND, alg, data, len, out, out_len);
}

// The held calls (sha3_held.h).

couplet_status_t couplet_sha3_hold(couplet_sha3_held_t *held, couplet_sha3_backend_id_t backend) {
  if (UNLIKELY(held == NULL)) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY((unsigned)backend >= (unsigned)COUPLET_SHA3_BACKEND_COUNT)) {
    return COUPLET_ERR_ARG;
  }
  if (UNLIKELY(backend_slots[backend] == NULL)) {
    return COUPLET_ERR_UNSUPPORTED;
  }
  if ((uint32_t)backend < (uint32_t)COUPLET_SHA3_BACKEND_TIGHT) {
    // Software: nothing shared to take.
    held->backend = (uint32_t)backend;
    held->token = COUPLET_SHA3_SOFT_HOLD_TOKEN;
    return COUPLET_OK;
  }
  if (UNLIKELY(!sha3_lock_take())) {
    return COUPLET_ERR_BUSY;
  }
  // A new number per hold, never 0 (not held) nor the software token, so that a released
  // handle (or a copy of it) is refused.
  uint32_t token = last_hold_token;
  do {
    ++token;
  } while (token == 0u || token == COUPLET_SHA3_SOFT_HOLD_TOKEN);
  last_hold_token = token;
  atomic_store_explicit(&couplet_sha3_holder_token, token, memory_order_relaxed);
  held->backend = (uint32_t)backend;
  held->token = token;
  return COUPLET_OK;
}

couplet_status_t couplet_sha3_release(couplet_sha3_held_t *held) {
  if (UNLIKELY(held == NULL)) {
    return COUPLET_ERR_NULL;
  }
  if (UNLIKELY(!couplet_sha3_held_valid_(held))) {
    return COUPLET_ERR_STATE;
  }
  if (held->token != COUPLET_SHA3_SOFT_HOLD_TOKEN) {
    // Every held hash ended with a ZEROIZE: nothing is left to clear in the accelerator.
    atomic_store_explicit(&couplet_sha3_holder_token, 0u, memory_order_relaxed);
    sha3_lock_give();
  }
  held->token = 0u;
  return COUPLET_OK;
}
