// GHASH in portable constant-time C: the hash of AES-GCM on the backends whose engine has no
// GHASH mode (aes_aead.c), and the software baseline the engine's GHASH is measured against.
//
// Why it is constant time. The usual fast GHASH multiplies by H with tables of multiples of H
// (Shoup's 4-bit tables), indexed by bits of the data: which table entry is read then depends on
// secret data (and on H), a cache or bus timing channel elsewhere and a bad habit here. This file
// has no table and no branch on data. It multiplies carry-less with the integer multiplier:
// each 32x32-bit carry-less product is 16 integer multiplications of the operands masked to
// every fourth bit (0x11111111 << i), so that each column of a product sums at most 8 one-bits
// (a value below 16) and its carries stay in the three holes above it; the right bits are then
// kept by masks. CV32E40X's mul (1 cycle) and mulhu (4 cycles) take the same time whatever the
// operands, as do its shifts and logic, so the time of a call depends on `blocks` only.
//
// The 128x128-bit product is two levels of Karatsuba (3 products of 64x64 bits, each 3 of 32x32:
// 9 carry-less products, 144 multiplications), on the blocks read as big-endian integers. In that
// view GCM's bit order (the first bit of a block is x^0) is reversed, so the 255-bit integer
// product is the reversed polynomial product: shifted left by one bit it holds x^0..x^127 in its
// upper half and x^128..x^255 in its lower half, and the lower half R is folded back with
// x^128 = 1 + x + x^2 + x^7 (multiplying by x is a right shift here): the upper half plus
// R' + R'>>1 + R'>>2 + R'>>7, where R' is R plus the at most 7 bits those shifts push out the
// bottom (R's low bits moved to the top: R<<127 + R<<126 + R<<121), which need no further fold.
//
// Cost, measured on the couplet SoC (CV32E40X, GCC 12, -O2 -fno-schedule-insns): 1507 cycles per
// block over 64 blocks, 2190 for a call of one block; the 144 multiplications take 720 of them
// (mulhu: 4 cycles). Tried and dropped: splitting H's operands once per call (no gain: the
// masks are cheap where the registers are), an out-of-line 32x32 product (9% slower), 16-bit
// products with mul alone (more masking than the mulhu it saves). A 4-bit-table GHASH would be
// faster, at the price above; the engine's GHASH mode does a block in a few cycles.

#include "aes_ghash.h"

#define GHASH_INLINE static inline __attribute__((always_inline))

// Reads and writes 8 bytes as a big-endian integer (any alignment, any host byte order).
GHASH_INLINE uint64_t load_be64(const uint8_t *p) {
  uint64_t v = 0u;
  for (unsigned i = 0; i < 8u; ++i) {
    v = (v << 8) | p[i];
  }
  return v;
}

GHASH_INLINE void store_be64(uint8_t *p, uint64_t v) {
  for (unsigned i = 0; i < 8u; ++i) {
    p[7u - i] = (uint8_t)(v >> (8u * i));
  }
}

GHASH_INLINE uint64_t wide(uint32_t a, uint32_t b) {
  return (uint64_t)a * (uint64_t)b;  // mul and mulhu on RV32: no library call
}

// The carry-less product of two 32-bit polynomials (bit i is x^i), 63 bits.
static inline uint64_t clmul32(uint32_t x, uint32_t y) {
  const uint32_t x0 = x & 0x11111111u, x1 = x & 0x22222222u, x2 = x & 0x44444444u, x3 = x & 0x88888888u;
  const uint32_t y0 = y & 0x11111111u, y1 = y & 0x22222222u, y2 = y & 0x44444444u, y3 = y & 0x88888888u;
  // Product (a, b) has its columns at bits a + b (mod 4).
  const uint64_t z0 = wide(x0, y0) ^ wide(x1, y3) ^ wide(x2, y2) ^ wide(x3, y1);
  const uint64_t z1 = wide(x0, y1) ^ wide(x1, y0) ^ wide(x2, y3) ^ wide(x3, y2);
  const uint64_t z2 = wide(x0, y2) ^ wide(x1, y1) ^ wide(x2, y0) ^ wide(x3, y3);
  const uint64_t z3 = wide(x0, y3) ^ wide(x1, y2) ^ wide(x2, y1) ^ wide(x3, y0);
  return (z0 & UINT64_C(0x1111111111111111)) | (z1 & UINT64_C(0x2222222222222222)) |
         (z2 & UINT64_C(0x4444444444444444)) | (z3 & UINT64_C(0x8888888888888888));
}

// 64x64 -> 128 bits carry-less (hi:lo), Karatsuba on the 32-bit halves.
GHASH_INLINE void clmul64(uint64_t x, uint64_t y, uint64_t *hi, uint64_t *lo) {
  const uint32_t x1 = (uint32_t)(x >> 32), x0 = (uint32_t)x;
  const uint32_t y1 = (uint32_t)(y >> 32), y0 = (uint32_t)y;
  const uint64_t hh = clmul32(x1, y1);
  const uint64_t ll = clmul32(x0, y0);
  const uint64_t mm = clmul32(x1 ^ x0, y1 ^ y0) ^ hh ^ ll;
  *hi = hh ^ (mm >> 32);
  *lo = ll ^ (mm << 32);
}

// (a1:a0) = (a1:a0) * (b1:b0) in GF(2^128), blocks as big-endian integers (a1 the first 8 bytes).
GHASH_INLINE void gf128_mul(uint64_t *a1, uint64_t *a0, uint64_t b1, uint64_t b0) {
  uint64_t h1, h0, l1, l0, m1, m0;
  clmul64(*a1, b1, &h1, &h0);
  clmul64(*a0, b0, &l1, &l0);
  clmul64(*a1 ^ *a0, b1 ^ b0, &m1, &m0);
  m1 ^= h1 ^ l1;
  m0 ^= h0 ^ l0;
  // The 256-bit product p3:p2:p1:p0, shifted left by one bit (q3:q2:q1:q0).
  const uint64_t p3 = h1, p2 = h0 ^ m1, p1 = l1 ^ m0, p0 = l0;
  const uint64_t q3 = (p3 << 1) | (p2 >> 63);
  const uint64_t q2 = (p2 << 1) | (p1 >> 63);
  const uint64_t q1 = (p1 << 1) | (p0 >> 63);
  const uint64_t q0 = p0 << 1;
  // Fold the lower half (x^128..x^255) back: R' = R + its bits pushed out below, moved to the top.
  const uint64_t r1 = q1 ^ (q0 << 63) ^ (q0 << 62) ^ (q0 << 57);
  const uint64_t r0 = q0;
  *a1 = q3 ^ r1 ^ (r1 >> 1) ^ (r1 >> 2) ^ (r1 >> 7);
  *a0 = q2 ^ r0 ^ ((r0 >> 1) | (r1 << 63)) ^ ((r0 >> 2) | (r1 << 62)) ^ ((r0 >> 7) | (r1 << 57));
}

void couplet_aes_ghash(uint8_t s[16], const uint8_t h[16], const uint8_t *in, size_t blocks) {
  const uint64_t h1 = load_be64(h), h0 = load_be64(h + 8);
  uint64_t s1 = load_be64(s), s0 = load_be64(s + 8);
  for (size_t i = 0; i < blocks; ++i, in += 16) {
    s1 ^= load_be64(in);
    s0 ^= load_be64(in + 8);
    gf128_mul(&s1, &s0, h1, h0);
  }
  store_be64(s, s1);
  store_be64(s + 8, s0);
}
