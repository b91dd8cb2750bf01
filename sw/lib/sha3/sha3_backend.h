// The interface between the SHA-3 front end (sha3.c: argument checks, the block buffer, padding,
// squeezing across blocks, the accelerator lock) and the backends (sha3_soft.c, sha3_ise.c, and
// one file per accelerator coupling).
//
// Where the state lives. Between API calls the state of a context is either zero (a fresh hash:
// ctx->state_tag == 0, ctx->state holds nothing and is never read) or ctx->state (state_tag != 0;
// word w = bytes 4w..4w+3 of the FIPS 202 state string, little-endian: the accelerator's word
// order). Within one API call the front end calls the operations below any number of times and
// then, if it called any of them, release exactly once (also after an error). A backend that
// works on ctx->state itself (soft, ise) zeroes it at its first operation on a fresh context and
// sets state_tag, and needs no release (NULL). One that works on a copy elsewhere (the
// accelerator's state registers) starts from the zero state or loads ctx->state at its first
// operation of the call, and in release either stores the state back to ctx->state and gives it
// a new state_tag (keep: the hash goes on), or drops it (the hash is over or failed). The front
// end never reads or writes ctx->state between the first operation and release, and never runs
// two contexts' calls into one accelerator backend at once (it holds the accelerator lock for
// the length of the call when uses_accelerator is set).
//
// The one-shot and held calls do not use these operations on an accelerator: each backend has a
// function couplet_sha3_hash_<name> (declared in couplet/sha3_held.h) that hashes a whole
// message from the zero state, called through a switch on the backend id.
//
// Arguments are checked by the front end; every length below is within the stated bounds.

#ifndef COUPLET_SHA3_BACKEND_H_
#define COUPLET_SHA3_BACKEND_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/sha3.h>

// The accelerator lock (sha3.c): held for the length of every call into a backend that drives
// the accelerator, and from couplet_sha3_hold to couplet_sha3_release. A try-lock, never a spin
// (see aes.c: a thread that finds it taken gets COUPLET_ERR_BUSY).
//
// The SoC has one hart (CV32E40X), so the threads that share the accelerator are RTOS threads
// and interrupt handlers on that hart: they see its loads, stores and custom instructions in
// program order. The lock therefore needs an atomic take (an AMO, so that an interrupt cannot
// come between a test and a set) and compiler ordering, but no hardware fence on the way out: a
// FENCE flushes CV32E40X's pipeline (4 cycles) and would order nothing more. The one-shot calls let the whole
// hash function give the lock back (its `release_lock`), so that the call ends in a tail call.
extern atomic_uint sha3_accel_lock;

// (Acquire costs nothing more here: the AMO itself is serialised.)
static inline __attribute__((always_inline)) bool sha3_lock_take(void) {
  return atomic_exchange_explicit(&sha3_accel_lock, 1u, memory_order_acquire) == 0u;
}

// A plain store after a compiler barrier (GCC 12 emits an AMO for any atomic store, a bus
// read-modify-write of 4 cycles here).
static inline __attribute__((always_inline)) void sha3_lock_give(void) {
  atomic_signal_fence(memory_order_release);
#if defined(__riscv)
  __asm__ volatile("sw zero, %0" : "=m"(sha3_accel_lock));
#else
  atomic_store_explicit(&sha3_accel_lock, 0u, memory_order_relaxed);
#endif
}

// Word access to the caller's byte buffers, for every backend: on a little-endian machine an
// aligned buffer is read and written a word at a time (may_alias makes that well defined in
// GCC), otherwise byte by byte.
typedef uint32_t __attribute__((may_alias)) sha3_alias_word_t;

static inline bool sha3_word_aligned(const void *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return ((uintptr_t)p & 3u) == 0u;
#else
  (void)p;
  return false;
#endif
}

// The last 1 of pad10*1: the top bit of the block's last byte, in its state word.
#define SHA3_PAD_LAST_BIT 0x80000000u

// The `n` (0..4) bytes at p as the low bytes of a little-endian word, the rest zero: a word of
// an unaligned buffer, or the partial word at the end of a message. Byte loads only, so nothing
// past p[n-1] is read.
static inline uint32_t sha3_partial_word(const uint8_t *p, size_t n) {
  uint32_t w = 0u;
  for (size_t i = 0; i < n; ++i) {
    w |= (uint32_t)p[i] << (8u * i);
  }
  return w;
}

// Copies the first `len` bytes of the little-endian words `words` (a plain state, or an output
// block read from the accelerator) to `out` (any alignment). Inline: the software backend's
// object calls no function (tests/test_sha3_host.py).
static inline void sha3_words_to_bytes(uint8_t *out, const uint32_t *words, size_t len) {
  const size_t n = len / 4u;
  if (sha3_word_aligned(out)) {
    // Two words a pass: half the loop overhead.
    sha3_alias_word_t *w = (sha3_alias_word_t *)(void *)out;
    size_t i = 0;
    for (; i + 2u <= n; i += 2u) {
      w[i] = words[i];
      w[i + 1u] = words[i + 1u];
      // Keeps GCC from turning the loop into a memcpy call: the library calls no C library
      // function (tests/test_sha3_host.py). Emits nothing.
      __asm__ volatile("");
    }
    if (i < n) {
      w[i] = words[i];
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = words[i];
      out[4u * i] = (uint8_t)v;
      out[4u * i + 1u] = (uint8_t)(v >> 8);
      out[4u * i + 2u] = (uint8_t)(v >> 16);
      out[4u * i + 3u] = (uint8_t)(v >> 24);
    }
  }
  for (size_t i = 4u * n; i < len; ++i) {
    out[i] = (uint8_t)(words[i / 4u] >> (8u * (i % 4u)));
  }
}

// For the backends that keep the state in ctx->state (soft, ise): XORs the `n` bytes at `src`
// (any alignment) into the first n bytes of the plain state words.
static inline void sha3_xor_bytes(uint32_t *state, const uint8_t *src, size_t n) {
  const size_t words = n / 4u;
  if (sha3_word_aligned(src)) {
    // Two words a pass: half the loop overhead (the length is public, the passes depend on it
    // alone).
    const sha3_alias_word_t *w = (const sha3_alias_word_t *)(const void *)src;
    size_t i = 0;
    for (; i + 2u <= words; i += 2u) {
      state[i] ^= w[i];
      state[i + 1u] ^= w[i + 1u];
    }
    if (i < words) {
      state[i] ^= w[i];
    }
  } else {
    for (size_t i = 0; i < words; ++i) {
      state[i] ^= sha3_partial_word(src + 4u * i, 4u);
    }
  }
  if (n % 4u != 0u) {
    state[words] ^= sha3_partial_word(src + 4u * words, n % 4u);
  }
}

// The same backends: pad10*1 with the domain byte `pad` at byte n, the last bit at byte rate-1
// (the same byte when n = rate - 1).
static inline void sha3_xor_padding(uint32_t *state, size_t n, uint32_t pad, uint32_t rate) {
  state[n / 4u] ^= pad << (8u * (n % 4u));
  state[rate / 4u - 1u] ^= SHA3_PAD_LAST_BIT;
}

typedef struct couplet_sha3_backend {
  couplet_sha3_backend_id_t id;
  const char *name;
  // True when the backend drives the (single, shared) Keccak accelerator: the front end then
  // holds the accelerator lock around every call into the backend.
  bool uses_accelerator;
  // XORs `nblocks` (>= 1) whole blocks of ctx->rate bytes into the state, permuting after each.
  // `blocks` has any alignment.
  couplet_status_t (*absorb)(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks);
  // XORs the `n` (1..rate-1) bytes at `data` (any alignment) into the first n bytes of the
  // state, without permuting: the start of a block, the rest of which comes later.
  couplet_status_t (*absorb_part)(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n);
  // Ends the input: XORs the first `n` (0..rate-1) bytes at `tail` (any alignment; NULL when
  // those bytes are in the state already), the domain byte `pad` at byte n and pad10*1's last
  // bit into the state, and permutes.
  couplet_status_t (*absorb_last)(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad);
  // Keccak-f[1600] on the state (squeezing the next output block).
  couplet_status_t (*permute)(couplet_sha3_ctx_t *ctx);
  // Copies the first `len` (1..ctx->rate) bytes of the state string to `out` (any alignment).
  couplet_status_t (*extract)(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len);
  // Ends a call and lets go of the hardware. With `keep` the hash goes on: the state is stored
  // to ctx->state with a new state_tag. Without, the hash is over or failed: the state is
  // dropped (zeroized), not stored. May be NULL.
  couplet_status_t (*release)(couplet_sha3_ctx_t *ctx, bool keep);
} couplet_sha3_backend_t;

// A backend's table, written in one place for every backend: `ID` names its id
// (COUPLET_SHA3_BACKEND_<ID>), then come its name and the fields above in their order.
#define SHA3_BACKEND_TABLE(ID, name_, uses_accelerator_, absorb_, absorb_part_, absorb_last_, permute_, extract_, \
                           release_)                                                                              \
  {.id = COUPLET_SHA3_BACKEND_##ID, .name = (name_), .uses_accelerator = (uses_accelerator_),                     \
   .absorb = (absorb_), .absorb_part = (absorb_part_), .absorb_last = (absorb_last_), .permute = (permute_),      \
   .extract = (extract_), .release = (release_)}

// One per backend; a hardware backend is linked only when the SoC configuration has it.
extern const couplet_sha3_backend_t couplet_sha3_backend_soft;
extern const couplet_sha3_backend_t couplet_sha3_backend_ise;
extern const couplet_sha3_backend_t couplet_sha3_backend_tight;
extern const couplet_sha3_backend_t couplet_sha3_backend_mem;
extern const couplet_sha3_backend_t couplet_sha3_backend_mmio;
extern const couplet_sha3_backend_t couplet_sha3_backend_dma;

// A whole hash through a backend's operations on a context of its own (the soft and ise
// backends' couplet_sha3_hash_<name>; sha3.c): from the zero state, absorbs `len` bytes of
// `data`, pads with `pad` and writes `out_len` bytes of output (squeezing as many blocks as
// that takes). The context is wiped before it returns.
couplet_status_t sha3_ops_hash(const couplet_sha3_backend_t *backend, uint32_t rate, uint32_t pad,
                               const uint8_t *data, size_t len, uint8_t *out, size_t out_len);

#endif  // COUPLET_SHA3_BACKEND_H_
