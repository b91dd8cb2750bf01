// The "ise" SHA-3 backend: a software Keccak-f[1600] on the bit-interleaved state, using the
// kc.* custom instructions of the stateless Keccak instruction unit (hw/ip/keccak/doc/ise.md,
// wrappers in keccak_ise.h).
//
// Representation. Each 64-bit lane is kept as two words: `even` holds lane bits 0, 2, ..., 62
// and `odd` bits 1, 3, ..., 63, so a 64-bit rotation is two independent 32-bit rotations, which
// kc.xrol fuses with theta's XOR. Lane x + 5y is word 2(x + 5y) (even) and 2(x + 5y) + 1 (odd).
//
// Where the state is interleaved. ctx->state is canonical (plain words) between API calls
// (sha3_backend.h). Each operation that permutes (absorb, permute) interleaves ctx->state in
// place (kc.ileave, 2 instructions per lane), runs, and turns it back (kc.dleave) before it
// returns; extract reads the plain words. The conversion is per operation rather than per call
// because this backend takes no lock (uses_accelerator is false: the unit keeps no state), so a
// backend-wide buffer or "already interleaved" flag would not be reentrant when two threads
// hash at once. The price: one more conversion (about 150 instructions, under 2% of a
// permutation) for each further operation in the same call (a squeeze of several blocks, an
// update that completes the buffered block and then absorbs more); a multi-block absorb
// converts once.
//
// Hygiene, as in the soft backend: the stack buffer holding intermediate states (and the
// bounce buffer of unaligned blocks) is wiped before each operation returns.

#include <couplet/soc_config.h>

#if defined(COUPLET_SHA3_HAS_ISE) && COUPLET_SHA3_HAS_ISE

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/wipe.h>

#include "keccak_ise.h"
#include "sha3_backend.h"

#define KC_STATE_WORDS COUPLET_SHA3_STATE_WORDS
#define KC_LANES (KC_STATE_WORDS / 2u)

static const uint8_t kc_rho[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                   25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

// Round constants of iota, interleaved: {even bits, odd bits}.
static const uint32_t kc_rc[24][2] = {
    {0x00000001u, 0x00000000u}, {0x00000000u, 0x00000089u}, {0x00000000u, 0x8000008Bu},
    {0x00000000u, 0x80008080u}, {0x00000001u, 0x0000008Bu}, {0x00000001u, 0x00008000u},
    {0x00000001u, 0x80008088u}, {0x00000001u, 0x80000082u}, {0x00000000u, 0x0000000Bu},
    {0x00000000u, 0x0000000Au}, {0x00000001u, 0x00008082u}, {0x00000000u, 0x00008003u},
    {0x00000001u, 0x0000808Bu}, {0x00000001u, 0x8000000Bu}, {0x00000001u, 0x8000008Au},
    {0x00000001u, 0x80000081u}, {0x00000000u, 0x80000081u}, {0x00000000u, 0x80000008u},
    {0x00000000u, 0x00000083u}, {0x00000000u, 0x80008003u}, {0x00000001u, 0x80008088u},
    {0x00000000u, 0x80000088u}, {0x00000001u, 0x00008000u}, {0x00000000u, 0x80008082u},
};

// One round from a into e. Every index and rotation amount is a constant after unrolling.
KC_INLINE void kc_round(const uint32_t *restrict a, uint32_t *restrict e, const uint32_t rc[2]) {
  uint32_t c[10], d[10];
  // Load this round's words from memory rather than keep last round's results in registers,
  // which would spill most of them (GCC 12).
  __asm__ volatile("" ::: "memory");
#pragma GCC unroll 10
  for (unsigned w = 0; w < 10u; ++w) {  // theta: column parities, even and odd words
    c[w] = a[w] ^ a[w + 10u] ^ a[w + 20u] ^ a[w + 30u] ^ a[w + 40u];
  }
#pragma GCC unroll 5
  for (unsigned x = 0; x < 5u; ++x) {  // D[x] = C[x-1] ^ rot64(C[x+1], 1)
    const unsigned m = 2u * ((x + 4u) % 5u), p = 2u * ((x + 1u) % 5u);
    d[2u * x] = kc_rolx(c[m], c[p + 1u], 1u);
    d[2u * x + 1u] = c[m + 1u] ^ c[p];
  }
#pragma GCC unroll 5
  for (unsigned y = 0; y < 5u; ++y) {  // output plane y
    uint32_t b[10];
#pragma GCC unroll 5
    for (unsigned X = 0; X < 5u; ++X) {  // pi: lane (X, y) comes from (x, X), x = X + 3y
      const unsigned x = (X + 3u * y) % 5u, i = x + 5u * X, r = kc_rho[i];
      if (r % 2u == 0u) {  // theta's D, then rho: a 64-bit rotation by r
        b[2u * X] = kc_xrol(a[2u * i], d[2u * x], r / 2u);
        b[2u * X + 1u] = kc_xrol(a[2u * i + 1u], d[2u * x + 1u], r / 2u);
      } else {
        b[2u * X] = kc_xrol(a[2u * i + 1u], d[2u * x + 1u], (r + 1u) / 2u);
        b[2u * X + 1u] = kc_xrol(a[2u * i], d[2u * x], (r - 1u) / 2u);
      }
    }
#pragma GCC unroll 10
    for (unsigned w = 0; w < 10u; ++w) {  // chi
      e[10u * y + w] = b[w] ^ kc_andn(b[(w + 2u) % 10u], b[(w + 4u) % 10u]);
    }
  }
  e[0] ^= rc[0];  // iota
  e[1] ^= rc[1];
}

// Keccak-f[1600] on an interleaved state; tmp (50 words) holds the odd rounds' results and must
// be wiped by the caller (a keyed mode's secrets pass through it).
// On a word boundary, whatever is linked before it: a taken branch to a 32-bit instruction that
// straddles two words costs a cycle, and the round loop's branch targets move with the start.
static __attribute__((noinline, aligned(4))) void kc_keccak_f1600(uint32_t state[KC_STATE_WORDS],
                                                                  uint32_t tmp[KC_STATE_WORDS]) {
  for (unsigned r = 0; r < 24u; r += 2u) {
    kc_round(state, tmp, kc_rc[r]);
    kc_round(tmp, state, kc_rc[r + 1u]);
  }
}

// Absorb: XOR n_lanes lanes of little-endian words (low word first) into the interleaved state.
static __attribute__((noinline)) void kc_absorb(uint32_t state[KC_STATE_WORDS],
                                                const sha3_alias_word_t *words, unsigned n_lanes) {
  for (unsigned i = 0; i < n_lanes; ++i) {
    const uint32_t lo = words[2u * i], hi = words[2u * i + 1u];
    state[2u * i] ^= kc_ileave_lo(lo, hi);
    state[2u * i + 1u] ^= kc_ileave_hi(lo, hi);
  }
}

// Extract: n_lanes interleaved lanes back to plain little-endian words. `words` may be `state`
// itself (both words of a lane are read before either is written).
static __attribute__((noinline)) void kc_extract(const uint32_t *state, uint32_t *words,
                                                 unsigned n_lanes) {
  for (unsigned i = 0; i < n_lanes; ++i) {
    const uint32_t even = state[2u * i], odd = state[2u * i + 1u];
    words[2u * i] = kc_dleave_lo(even, odd);
    words[2u * i + 1u] = kc_dleave_hi(even, odd);
  }
}

// Plain words to interleaved, in place.
static __attribute__((noinline)) void kc_interleave(uint32_t state[KC_STATE_WORDS]) {
  for (unsigned i = 0; i < KC_LANES; ++i) {
    const uint32_t lo = state[2u * i], hi = state[2u * i + 1u];
    state[2u * i] = kc_ileave_lo(lo, hi);
    state[2u * i + 1u] = kc_ileave_hi(lo, hi);
  }
}

static uint32_t kc_load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// A fresh hash's state is zero and not yet in ctx->state (sha3_backend.h): zero it at the
// first operation.
static void ise_begin(couplet_sha3_ctx_t *ctx) {
  if (ctx->state_tag == 0u) {
    couplet_wipe_words(ctx->state, KC_STATE_WORDS);
    ctx->state_tag = 1u;
  }
}

static couplet_status_t ise_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  uint32_t tmp[KC_STATE_WORDS];
  ise_begin(ctx);
  uint32_t *state = ctx->state;
  const unsigned lanes = ctx->rate / 8u;
  kc_interleave(state);
  if (sha3_word_aligned(blocks)) {
    for (size_t n = 0; n < nblocks; ++n, blocks += ctx->rate) {
      kc_absorb(state, (const sha3_alias_word_t *)(const void *)blocks, lanes);
      kc_keccak_f1600(state, tmp);
    }
  } else {
    // Through an aligned copy of each block, assembled from bytes.
    uint32_t bounce[COUPLET_SHA3_MAX_RATE / 4u];
    for (size_t n = 0; n < nblocks; ++n, blocks += ctx->rate) {
      for (unsigned w = 0; w < 2u * lanes; ++w) {
        bounce[w] = kc_load_le32(&blocks[4u * w]);
      }
      kc_absorb(state, bounce, lanes);
      kc_keccak_f1600(state, tmp);
    }
    couplet_wipe_words(bounce, COUPLET_SHA3_MAX_RATE / 4u);
  }
  kc_extract(state, state, KC_LANES);
  couplet_wipe_words(tmp, KC_STATE_WORDS);
  return COUPLET_OK;
}

// Permutes the plain ctx->state: interleave, Keccak-f, back.
static void ise_permute_plain(couplet_sha3_ctx_t *ctx) {
  uint32_t tmp[KC_STATE_WORDS];
  kc_interleave(ctx->state);
  kc_keccak_f1600(ctx->state, tmp);
  kc_extract(ctx->state, ctx->state, KC_LANES);
  couplet_wipe_words(tmp, KC_STATE_WORDS);
}

// ctx->state is plain between operations: a part of a block and the padding are plain XORs.
static couplet_status_t ise_absorb_part(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n) {
  ise_begin(ctx);
  sha3_xor_bytes(ctx->state, data, n);
  return COUPLET_OK;
}

static couplet_status_t ise_absorb_last(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad) {
  ise_begin(ctx);
  if (tail != NULL) {
    sha3_xor_bytes(ctx->state, tail, n);
  }
  sha3_xor_padding(ctx->state, n, pad, ctx->rate);
  ise_permute_plain(ctx);
  return COUPLET_OK;
}

static couplet_status_t ise_permute(couplet_sha3_ctx_t *ctx) {
  ise_begin(ctx);
  ise_permute_plain(ctx);
  return COUPLET_OK;
}

// ctx->state is plain between operations: the bytes come straight from it.
static couplet_status_t ise_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  ise_begin(ctx);
  sha3_words_to_bytes(out, ctx->state, len);
  return COUPLET_OK;
}

const couplet_sha3_backend_t couplet_sha3_backend_ise =
    SHA3_BACKEND_TABLE(ISE, "ise", false, ise_absorb, ise_absorb_part, ise_absorb_last, ise_permute, ise_extract,
                       NULL);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_ise_unused_t;
#endif
