// The interface between the SHA-3 front end (sha3.c: argument checks, the block buffer, padding,
// squeezing across blocks, the accelerator lock) and the backends (sha3_soft.c, and one file per
// accelerator coupling).
//
// Where the state lives. Between API calls, ctx->state is the canonical Keccak state (word w =
// bytes 4w..4w+3 of the FIPS 202 state string, little-endian: the accelerator's word order).
// Within one API call the front end calls absorb/permute/extract any number of times and then,
// if it called any of them, release exactly once (also after an error). A backend that works on
// a copy elsewhere (the accelerator's state registers) loads ctx->state at its first operation
// of the call and stores it back to ctx->state in release; one that works on ctx->state itself
// needs no release (NULL). The front end never reads or writes ctx->state between the first
// operation and release, and never runs two contexts' calls into one accelerator backend at
// once (it holds the accelerator lock for the length of the call when uses_accelerator is set).
//
// Arguments are checked by the front end; every length below is within the stated bounds.

#ifndef COUPLET_SHA3_BACKEND_H_
#define COUPLET_SHA3_BACKEND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/sha3.h>

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

// Copies the first `len` bytes of the little-endian words `words` (a plain state, or an output
// block read from the accelerator) to `out` (any alignment). Inline: the software backend's
// object calls no function (tests/test_sha3_host.py).
static inline void sha3_words_to_bytes(uint8_t *out, const uint32_t *words, size_t len) {
  const size_t n = len / 4u;
  if (sha3_word_aligned(out)) {
    sha3_alias_word_t *w = (sha3_alias_word_t *)(void *)out;
    for (size_t i = 0; i < n; ++i) {
      w[i] = words[i];
      // Keeps GCC from turning the loop into a memcpy call: the library calls no C library
      // function (tests/test_sha3_host.py). Emits nothing.
      __asm__ volatile("");
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

typedef struct couplet_sha3_backend {
  couplet_sha3_backend_id_t id;
  const char *name;
  // True when the backend drives the (single, shared) Keccak accelerator: the front end then
  // holds the accelerator lock around every call into the backend.
  bool uses_accelerator;
  // XORs `nblocks` (>= 1) whole blocks of ctx->rate bytes into the state, permuting after each.
  // `blocks` has any alignment; the padded last block of a message comes here like any other.
  couplet_status_t (*absorb)(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks);
  // Keccak-f[1600] on the state (squeezing the next output block).
  couplet_status_t (*permute)(couplet_sha3_ctx_t *ctx);
  // Copies the first `len` (1..ctx->rate) bytes of the state string to `out` (any alignment).
  couplet_status_t (*extract)(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len);
  // Ends a call: stores the state back to ctx->state and lets go of the hardware. May be NULL.
  couplet_status_t (*release)(couplet_sha3_ctx_t *ctx);
  // The one-shot calls' short cut, may be NULL: the whole hash in one go from the zero state,
  // without a context. Absorbs `len` bytes of `data` (any alignment), pads with the domain byte
  // `pad` (pad10*1), and writes the first `out_len` (1..rate) output bytes to `out` only if it
  // succeeds. Leaves nothing of the message in the hardware. The front end holds the lock. It
  // exists because a context's state travels to the accelerator and back on every API call,
  // which costs more than a short message's whole hash (docs/sha3.md).
  couplet_status_t (*hash)(uint32_t rate, uint8_t pad, const uint8_t *data, size_t len, uint8_t *out,
                           size_t out_len);
} couplet_sha3_backend_t;

// One per backend; a hardware backend is linked only when the SoC configuration has it.
extern const couplet_sha3_backend_t couplet_sha3_backend_soft;
extern const couplet_sha3_backend_t couplet_sha3_backend_ise;
extern const couplet_sha3_backend_t couplet_sha3_backend_tight;
extern const couplet_sha3_backend_t couplet_sha3_backend_mem;
extern const couplet_sha3_backend_t couplet_sha3_backend_mmio;
extern const couplet_sha3_backend_t couplet_sha3_backend_dma;

#endif  // COUPLET_SHA3_BACKEND_H_
