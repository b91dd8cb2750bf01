// The software SHA-3 backend: Keccak-f[1600] in portable C on 32-bit words, and the baseline
// the accelerator couplings are measured against.
//
// Lane representation. Each 64-bit lane is a pair of 32-bit words, low and high half, exactly
// as the canonical state (ctx->state) holds it, so absorbing is a plain XOR of little-endian
// words and extracting a plain store: nothing to convert. The alternative, bit interleaving
// (even bits in one word, odd bits in the other, which turns every 64-bit rotation into two
// 32-bit rotations), only pays on a core with a rotate instruction (Zbb/Zbkb): without one a
// 32-bit rotation costs three instructions (two shifts and an OR), so a rotated lane costs six
// instructions in either representation, and interleaving would add the conversion of every
// block in and every block out (about 30 instructions per lane). The core here is RV32IMC
// without B, so the plain pairs are the faster choice and the simpler one.
//
// The round. Each round reads the state from one 50-word buffer and writes it to another (the
// context's state and a stack buffer, in turn; the 24 rounds end back in the context). Theta's
// column parities are computed from the source first; then each of the five output planes is
// built on its own: its five lanes are loaded from their pi positions, theta's D is added, rho
// rotates them, and chi and iota combine them into the plane that is stored. The working set of
// a plane (D: 10 words, the plane: 10 words, two pointers) fits the register file, so every
// state word is loaded twice and stored once per round and nothing else goes to the stack: two
// compiler barriers keep GCC from forwarding the previous round's stores or reusing the
// parities' loads, either of which would keep all 50 words live and spill them. The round is
// written as loops over constant bounds that the compiler unrolls completely (GCC unroll
// pragmas): every index and rotation amount is then a constant, and every rotation is two
// shifts and an OR on each half (amounts from 32 up swap the halves first, which is free).
//
// No table is indexed by data: the only tables are the round constants, indexed by the round
// number, and the rotation amounts, which fold into the code; no branch depends on the data
// either. The stack buffer holding intermediate states is wiped before each call returns.
//
// Cost on CV32E40X (RV32IMC, GCC 12 -O2 -fno-schedule-insns): a round is ~588 instructions:
// theta's parities 50 loads and 40 XORs, D 40, the planes 50 loads, 50 XORs with D, 24
// rotations of 6 instructions (lane 0 is not rotated), chi 50 x 3 (NOT, AND, XOR), 50 stores,
// iota 2; with ~33 load-use stalls ~620 cycles, ~14,900 cycles per permutation.
// Measured in the default SoC's simulation, one-shot hash of 4 KiB, in cycles per byte: SHA3-224
// 108, SHA3-256 115 (119 from an unaligned buffer), SHA3-384 148, SHA3-512 210 (its 72-byte
// blocks), SHAKE128 94, SHAKE256 115; a short message (one block) ~16,600 cycles. Lane
// complementing (Keccak implementation overview, section 2.2) would save most of chi's 50 NOTs,
// ~6%, at the cost of plane-specific chi formulas; not done, for readability.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/wipe.h>

#include "sha3_backend.h"

#define SOFT_INLINE static inline __attribute__((always_inline))

#define KECCAK_ROUNDS 24u
#define STATE_WORDS COUPLET_SHA3_STATE_WORDS

// Round constants of iota (FIPS 202 section 3.2.5), as (low, high) word pairs.
static const uint32_t round_constants[KECCAK_ROUNDS][2] = {
    {0x00000001u, 0x00000000u}, {0x00008082u, 0x00000000u}, {0x0000808Au, 0x80000000u},
    {0x80008000u, 0x80000000u}, {0x0000808Bu, 0x00000000u}, {0x80000001u, 0x00000000u},
    {0x80008081u, 0x80000000u}, {0x00008009u, 0x80000000u}, {0x0000008Au, 0x00000000u},
    {0x00000088u, 0x00000000u}, {0x80008009u, 0x00000000u}, {0x8000000Au, 0x00000000u},
    {0x8000808Bu, 0x00000000u}, {0x0000008Bu, 0x80000000u}, {0x00008089u, 0x80000000u},
    {0x00008003u, 0x80000000u}, {0x00008002u, 0x80000000u}, {0x00000080u, 0x80000000u},
    {0x0000800Au, 0x00000000u}, {0x8000000Au, 0x80000000u}, {0x80008081u, 0x80000000u},
    {0x00008080u, 0x80000000u}, {0x80000001u, 0x00000000u}, {0x80008008u, 0x80000000u},
};

// Rotation amounts of rho, rho_offsets[x][y] (FIPS 202 section 3.2.2, Table 2).
static const uint8_t rho_offsets[5][5] = {
    {0u, 36u, 3u, 41u, 18u},
    {1u, 44u, 10u, 45u, 2u},
    {62u, 6u, 43u, 15u, 61u},
    {28u, 55u, 25u, 21u, 56u},
    {27u, 20u, 39u, 8u, 14u},
};

typedef struct {
  uint32_t lo, hi;
} lane_t;

// Words of lane (x, y) in the state: lane x + 5y is bytes 8(x + 5y).. of the state string.
#define LO(x, y) (2u * ((x) + 5u * (y)))
#define HI(x, y) (LO(x, y) + 1u)

SOFT_INLINE lane_t lane_load(const uint32_t *s, unsigned x, unsigned y) {
  lane_t v = {s[LO(x, y)], s[HI(x, y)]};
  return v;
}

SOFT_INLINE lane_t lane_xor(lane_t a, lane_t b) {
  lane_t v = {a.lo ^ b.lo, a.hi ^ b.hi};
  return v;
}

// Rotates left by n; n is a constant wherever this is inlined, so the branches fold away.
SOFT_INLINE lane_t lane_rol(lane_t v, unsigned n) {
  if (n >= 32u) {
    lane_t swapped = {v.hi, v.lo};
    v = swapped;
    n -= 32u;
  }
  if (n == 0u) {
    return v;
  }
  lane_t r = {(v.lo << n) | (v.hi >> (32u - n)), (v.hi << n) | (v.lo >> (32u - n))};
  return r;
}

// One round of Keccak-f[1600] from `a` into `e` (theta, rho, pi, chi, iota).
SOFT_INLINE void keccak_round(const uint32_t *restrict a, uint32_t *restrict e, uint32_t rc_lo,
                              uint32_t rc_hi) {
  // Every word is loaded from memory in this round, none forwarded from the stores of the one
  // before (which would keep all 50 of them in registers and spill them).
  __asm__ volatile("" ::: "memory");
  lane_t c[5], d[5];
#pragma GCC unroll 5
  for (unsigned x = 0; x < 5u; ++x) {
    c[x] = lane_xor(lane_xor(lane_xor(lane_load(a, x, 0), lane_load(a, x, 1)),
                             lane_xor(lane_load(a, x, 2), lane_load(a, x, 3))),
                    lane_load(a, x, 4));
  }
#pragma GCC unroll 5
  for (unsigned x = 0; x < 5u; ++x) {
    d[x] = lane_xor(c[(x + 4u) % 5u], lane_rol(c[(x + 1u) % 5u], 1u));
  }
  // Load the lanes again below rather than keep the 50 words loaded for the parities: GCC
  // would otherwise reuse those loads and spill most of them to the stack.
  __asm__ volatile("" ::: "memory");
#pragma GCC unroll 5
  for (unsigned y = 0; y < 5u; ++y) {
    // pi moves lane (x, y) to (y, 2x + 3y): output lane (X, y) comes from (X + 3y, X).
    lane_t b[5];
#pragma GCC unroll 5
    for (unsigned X = 0; X < 5u; ++X) {
      const unsigned x = (X + 3u * y) % 5u;
      b[X] = lane_rol(lane_xor(lane_load(a, x, X), d[x]), rho_offsets[x][X]);
    }
#pragma GCC unroll 5
    for (unsigned X = 0; X < 5u; ++X) {
      const lane_t p = b[(X + 1u) % 5u], q = b[(X + 2u) % 5u];
      uint32_t lo = b[X].lo ^ (~p.lo & q.lo);
      uint32_t hi = b[X].hi ^ (~p.hi & q.hi);
      if (X == 0u && y == 0u) {
        lo ^= rc_lo;
        hi ^= rc_hi;
      }
      e[LO(X, y)] = lo;
      e[HI(X, y)] = hi;
    }
  }
}

// Keccak-f[1600] on `state`, with `tmp` (50 words) for the odd rounds' results.
static void keccak_f1600(uint32_t *state, uint32_t *tmp) {
  uint32_t *src = state, *dst = tmp;
  for (unsigned r = 0; r < KECCAK_ROUNDS; ++r) {
    keccak_round(src, dst, round_constants[r][0], round_constants[r][1]);
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
}

SOFT_INLINE uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// A fresh hash's state is zero and not yet in ctx->state (sha3_backend.h): zero it at the
// first operation.
SOFT_INLINE void soft_begin(couplet_sha3_ctx_t *ctx) {
  if (ctx->state_tag == 0u) {
    couplet_wipe_words(ctx->state, STATE_WORDS);
    ctx->state_tag = 1u;
  }
}

static couplet_status_t soft_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks,
                                    size_t nblocks) {
  uint32_t tmp[STATE_WORDS];
  soft_begin(ctx);
  uint32_t *state = ctx->state;
  const size_t words = ctx->rate / 4u;  // even: every rate is a whole number of lanes
  const bool aligned = sha3_word_aligned(blocks);
  for (size_t n = 0; n < nblocks; ++n) {
    if (aligned) {
      const sha3_alias_word_t *w = (const sha3_alias_word_t *)(const void *)blocks;
      for (size_t i = 0; i < words; i += 2u) {
        state[i] ^= w[i];
        state[i + 1u] ^= w[i + 1u];
      }
    } else {
      for (size_t i = 0; i < words; ++i) {
        state[i] ^= load_le32(&blocks[4u * i]);
      }
    }
    keccak_f1600(state, tmp);
    blocks += 4u * words;
  }
  couplet_wipe_words(tmp, STATE_WORDS);
  return COUPLET_OK;
}

static couplet_status_t soft_absorb_part(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n) {
  soft_begin(ctx);
  sha3_xor_bytes(ctx->state, data, n);
  return COUPLET_OK;
}

static couplet_status_t soft_absorb_last(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad) {
  uint32_t tmp[STATE_WORDS];
  soft_begin(ctx);
  if (tail != NULL) {
    sha3_xor_bytes(ctx->state, tail, n);
  }
  sha3_xor_padding(ctx->state, n, pad, ctx->rate);
  keccak_f1600(ctx->state, tmp);
  couplet_wipe_words(tmp, STATE_WORDS);
  return COUPLET_OK;
}

static couplet_status_t soft_permute(couplet_sha3_ctx_t *ctx) {
  uint32_t tmp[STATE_WORDS];
  soft_begin(ctx);
  keccak_f1600(ctx->state, tmp);
  couplet_wipe_words(tmp, STATE_WORDS);
  return COUPLET_OK;
}

static couplet_status_t soft_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  soft_begin(ctx);
  sha3_words_to_bytes(out, ctx->state, len);
  return COUPLET_OK;
}

const couplet_sha3_backend_t couplet_sha3_backend_soft =
    SHA3_BACKEND_TABLE(SOFT, "soft", false, soft_absorb, soft_absorb_part, soft_absorb_last, soft_permute,
                       soft_extract, NULL);
