// The software AES backend: portable, constant-time C, and the baseline the accelerator
// couplings are measured against.
//
// Why it is constant time. The cipher is bitsliced: two blocks (32 bytes) are spread over eight
// 32-bit words, word i holding bit i of every byte, so each instruction works on one bit of all
// 32 bytes at once. SubBytes is then a fixed circuit of AND/XOR/NOT gates (the S-box as
// inversion in GF(2^8) followed by the affine map, in the 113-gate form published by Boyar and
// Peralta), ShiftRows and MixColumns are fixed shifts, masks and rotations, and AddRoundKey is
// XOR. No memory address and no branch depends on the key or the data: there is no S-box or
// T-table lookup at all (the object has no table; the round constants of the key schedule are
// computed by doubling), and the only loops and branches depend on the key length, the mode,
// the message length and the buffers' alignment, which are public. The key schedule runs its
// SubWord through the same circuit. The CTR counter is incremented with carries computed by
// comparisons (set-if-zero), not branches. CV32E40X has no data cache, and its one instruction
// with operand-dependent timing, division, only sees the key length and a loop index (in the
// key schedule), so the time of every call follows the public values only.
//
// Bit layout. Each block is read as four little-endian words, one per column (byte r of the
// word is row r). Block A's and block B's column words are interleaved (A0 B0 A1 B1 ... B3) and
// the eight words are transposed as an 8x8 bit matrix in each byte lane ("ortho", its own
// inverse). Afterwards bit 8*row + 2*column + block of word i is bit i of that state byte:
// every row sits in one byte of each plane, so MixColumns (which combines rows) is made of
// rotations by 8 and 16 bits, and ShiftRows (which moves columns inside a row) rotates each
// byte by 2*row bits.
//
// Round keys are stored in ctx->round_keys in this layout with the two block slots folded
// into one word (planes 2v and 2v+1 in the even and odd bits of word v: 4 words per round, so
// all 15 rounds of AES-256 fit the 60 words of the context) and unfolded on the stack at the
// start of each call. The stack buffers holding keys, keystream and data are wiped before each
// call returns (what the compiler spills of the round's registers is out of C's reach).
//
// Speed: two blocks per pass of the cipher wherever the mode allows it (ECB, CTR, CBC and CFB
// decryption); CBC/CFB encryption and OFB chain block to block, so they fill one of the two
// slots and cost about twice as much per block. Data is read and written with byte loads and
// stores assembled into words (in and out may have any alignment), except that 4-byte-aligned
// buffers use word accesses; picolibc's byte-at-a-time memcpy is never called. Measured on
// the couplet SoC (CV32E40X, GCC 12, -O2 -fno-schedule-insns, 1 KiB messages), cycles per block
// for AES-128/192/256: ECB encryption 2060/2420/2790, decryption 2360/2800/3230, CTR
// 2140/2500/2870, CBC/CFB encryption and OFB 4080/4810/5530; about 1000 cycles per call on top
// (unfolding and wiping the round keys); set_key 11000-15000 cycles.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/wipe.h>

#include "../word_access.h"
#include "aes_backend.h"

// The steps of a round are inlined into the round functions so that the state stays in
// registers; GCC's size heuristics would otherwise call some of them.
#define AES_INLINE static inline __attribute__((always_inline))

#define AES_MAX_ROUNDS 14u
#define PLANES 8u
// Folded words per round in ctx->round_keys.
#define FOLDED_WORDS_PER_ROUND 4u

// Everything a call keeps on the stack that must not outlive it.
typedef struct {
  uint32_t rk[PLANES * (AES_MAX_ROUNDS + 1u)];  // round keys, bit planes for both block slots
  uint32_t q[PLANES];                           // the two blocks in flight, as bit planes
  uint32_t chain[4];                            // chaining value or counter, column words
  uint32_t ks[8];                               // two blocks of cipher input or output
  uint32_t data[8];                             // two blocks of message
} soft_work_t;

// ---------------------------------------------------------------------------------------------
// Word access. The byte forms work for any alignment and any host byte order; when the
// pointer is aligned on a little-endian target, one word access does the same job.

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AES_LITTLE_ENDIAN 1
#else
#define AES_LITTLE_ENDIAN 0
#endif

// The functions every block pair runs start on a word boundary: CV32E40X fetches whole words, so
// a call into one that starts half-way through a word costs a cycle more, and where the linker
// puts them would otherwise move every figure by a few cycles per block.
#define HOT __attribute__((aligned(4)))

static inline uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

static inline void store_le32(uint8_t *p, uint32_t w) {
  p[0] = (uint8_t)w;
  p[1] = (uint8_t)(w >> 8);
  p[2] = (uint8_t)(w >> 16);
  p[3] = (uint8_t)(w >> 24);
}

static inline bool is_word_aligned(const void *p) {
  return AES_LITTLE_ENDIAN && ((uintptr_t)p & 3u) == 0u;
}

// One block as four column words. An aligned buffer on a little-endian target is accessed a
// word at a time: a 4-byte memcpy from a pointer known to be aligned compiles to one load or
// store (no call, and no aliasing question). The copies are written out, not looped: GCC turns
// copy loops into calls to memcpy, which picolibc runs a byte at a time.
static void load_block(uint32_t w[4], const uint8_t *p) {
  if (is_word_aligned(p)) {
    const uint8_t *a = __builtin_assume_aligned(p, 4);
    __builtin_memcpy(&w[0], a, 4u);
    __builtin_memcpy(&w[1], a + 4, 4u);
    __builtin_memcpy(&w[2], a + 8, 4u);
    __builtin_memcpy(&w[3], a + 12, 4u);
  } else {
    w[0] = load_le32(p);
    w[1] = load_le32(p + 4);
    w[2] = load_le32(p + 8);
    w[3] = load_le32(p + 12);
  }
}

static void store_block(uint8_t *p, const uint32_t w[4]) {
  if (is_word_aligned(p)) {
    uint8_t *a = __builtin_assume_aligned(p, 4);
    __builtin_memcpy(a, &w[0], 4u);
    __builtin_memcpy(a + 4, &w[1], 4u);
    __builtin_memcpy(a + 8, &w[2], 4u);
    __builtin_memcpy(a + 12, &w[3], 4u);
  } else {
    store_le32(p, w[0]);
    store_le32(p + 4, w[1]);
    store_le32(p + 8, w[2]);
    store_le32(p + 12, w[3]);
  }
}

AES_INLINE void copy_block(uint32_t dst[4], const uint32_t src[4]) {
  dst[0] = src[0];
  dst[1] = src[1];
  dst[2] = src[2];
  dst[3] = src[3];
}

AES_INLINE void xor_block(uint32_t dst[4], const uint32_t src[4]) {
  dst[0] ^= src[0];
  dst[1] ^= src[1];
  dst[2] ^= src[2];
  dst[3] ^= src[3];
}

static inline uint32_t rotr32(uint32_t x, unsigned n) {
  return (x >> n) | (x << ((32u - n) & 31u));
}

// ---------------------------------------------------------------------------------------------
// The bit-plane transform: an 8x8 bit transpose in each byte lane of the eight words.

// Exchanges the bits of `lo` selected by `mask << shift` with the bits of `hi` selected by
// `mask` (a delta swap).
static inline void swap_bits(uint32_t *lo, uint32_t *hi, uint32_t mask, unsigned shift) {
  uint32_t t = ((*lo >> shift) ^ *hi) & mask;
  *hi ^= t;
  *lo ^= t << shift;
}

HOT static void ortho(uint32_t q[PLANES]) {
  // Stage k exchanges bit k of the word index with bit k of the bit-in-byte index.
  swap_bits(&q[0], &q[1], 0x55555555u, 1u);
  swap_bits(&q[2], &q[3], 0x55555555u, 1u);
  swap_bits(&q[4], &q[5], 0x55555555u, 1u);
  swap_bits(&q[6], &q[7], 0x55555555u, 1u);
  swap_bits(&q[0], &q[2], 0x33333333u, 2u);
  swap_bits(&q[1], &q[3], 0x33333333u, 2u);
  swap_bits(&q[4], &q[6], 0x33333333u, 2u);
  swap_bits(&q[5], &q[7], 0x33333333u, 2u);
  swap_bits(&q[0], &q[4], 0x0F0F0F0Fu, 4u);
  swap_bits(&q[1], &q[5], 0x0F0F0F0Fu, 4u);
  swap_bits(&q[2], &q[6], 0x0F0F0F0Fu, 4u);
  swap_bits(&q[3], &q[7], 0x0F0F0F0Fu, 4u);
}

// ---------------------------------------------------------------------------------------------
// The round functions. Each loads the eight planes, applies its steps with the planes in
// registers and stores them once: the steps are always inlined into them (keeping the state in
// memory between steps costs about 15% more), and their arrays of planes are local, so the
// compiler turns them into registers.

// SubBytes: Boyar-Peralta's circuit. u0 is the most significant bit of the byte (plane 7), the
// first result the most significant bit of the output. The top linear layer maps the input to
// the signals the GF(2^4)-tower inversion needs, the middle layer inverts (all the ANDs), the
// bottom linear layer maps back and applies the affine transform; its four NOTs add 0x63.
AES_INLINE void sub_bytes(uint32_t q[PLANES]) {
  const uint32_t u0 = q[7], u1 = q[6], u2 = q[5], u3 = q[4];
  const uint32_t u4 = q[3], u5 = q[2], u6 = q[1], u7 = q[0];

  const uint32_t t1 = u0 ^ u3;
  const uint32_t t2 = u0 ^ u5;
  const uint32_t t3 = u0 ^ u6;
  const uint32_t t4 = u3 ^ u5;
  const uint32_t t5 = u4 ^ u6;
  const uint32_t t6 = t1 ^ t5;
  const uint32_t t7 = u1 ^ u2;
  const uint32_t t8 = u7 ^ t6;
  const uint32_t t9 = u7 ^ t7;
  const uint32_t t10 = t6 ^ t7;
  const uint32_t t11 = u1 ^ u5;
  const uint32_t t12 = u2 ^ u5;
  const uint32_t t13 = t3 ^ t4;
  const uint32_t t14 = t6 ^ t11;
  const uint32_t t15 = t5 ^ t11;
  const uint32_t t16 = t5 ^ t12;
  const uint32_t t17 = t9 ^ t16;
  const uint32_t t18 = u3 ^ u7;
  const uint32_t t19 = t7 ^ t18;
  const uint32_t t20 = t1 ^ t19;
  const uint32_t t21 = u6 ^ u7;
  const uint32_t t22 = t7 ^ t21;
  const uint32_t t23 = t2 ^ t22;
  const uint32_t t24 = t2 ^ t10;
  const uint32_t t25 = t20 ^ t17;
  const uint32_t t26 = t3 ^ t16;
  const uint32_t t27 = t1 ^ t12;

  const uint32_t m1 = t13 & t6;
  const uint32_t m2 = t23 & t8;
  const uint32_t m3 = t14 ^ m1;
  const uint32_t m4 = t19 & u7;
  const uint32_t m5 = m4 ^ m1;
  const uint32_t m6 = t3 & t16;
  const uint32_t m7 = t22 & t9;
  const uint32_t m8 = t26 ^ m6;
  const uint32_t m9 = t20 & t17;
  const uint32_t m10 = m9 ^ m6;
  const uint32_t m11 = t1 & t15;
  const uint32_t m12 = t4 & t27;
  const uint32_t m13 = m12 ^ m11;
  const uint32_t m14 = t2 & t10;
  const uint32_t m15 = m14 ^ m11;
  const uint32_t m16 = m3 ^ m2;
  const uint32_t m17 = m5 ^ t24;
  const uint32_t m18 = m8 ^ m7;
  const uint32_t m19 = m10 ^ m15;
  const uint32_t m20 = m16 ^ m13;
  const uint32_t m21 = m17 ^ m15;
  const uint32_t m22 = m18 ^ m13;
  const uint32_t m23 = m19 ^ t25;
  const uint32_t m24 = m22 ^ m23;
  const uint32_t m25 = m22 & m20;
  const uint32_t m26 = m21 ^ m25;
  const uint32_t m27 = m20 ^ m21;
  const uint32_t m28 = m23 ^ m25;
  const uint32_t m29 = m28 & m27;
  const uint32_t m30 = m26 & m24;
  const uint32_t m31 = m20 & m23;
  const uint32_t m32 = m27 & m31;
  const uint32_t m33 = m27 ^ m25;
  const uint32_t m34 = m21 & m22;
  const uint32_t m35 = m24 & m34;
  const uint32_t m36 = m24 ^ m25;
  const uint32_t m37 = m21 ^ m29;
  const uint32_t m38 = m32 ^ m33;
  const uint32_t m39 = m23 ^ m30;
  const uint32_t m40 = m35 ^ m36;
  const uint32_t m41 = m38 ^ m40;
  const uint32_t m42 = m37 ^ m39;
  const uint32_t m43 = m37 ^ m38;
  const uint32_t m44 = m39 ^ m40;
  const uint32_t m45 = m42 ^ m41;
  const uint32_t m46 = m44 & t6;
  const uint32_t m47 = m40 & t8;
  const uint32_t m48 = m39 & u7;
  const uint32_t m49 = m43 & t16;
  const uint32_t m50 = m38 & t9;
  const uint32_t m51 = m37 & t17;
  const uint32_t m52 = m42 & t15;
  const uint32_t m53 = m45 & t27;
  const uint32_t m54 = m41 & t10;
  const uint32_t m55 = m44 & t13;
  const uint32_t m56 = m40 & t23;
  const uint32_t m57 = m39 & t19;
  const uint32_t m58 = m43 & t3;
  const uint32_t m59 = m38 & t22;
  const uint32_t m60 = m37 & t20;
  const uint32_t m61 = m42 & t1;
  const uint32_t m62 = m45 & t4;
  const uint32_t m63 = m41 & t2;

  const uint32_t l0 = m61 ^ m62;
  const uint32_t l1 = m50 ^ m56;
  const uint32_t l2 = m46 ^ m48;
  const uint32_t l3 = m47 ^ m55;
  const uint32_t l4 = m54 ^ m58;
  const uint32_t l5 = m49 ^ m61;
  const uint32_t l6 = m62 ^ l5;
  const uint32_t l7 = m46 ^ l3;
  const uint32_t l8 = m51 ^ m59;
  const uint32_t l9 = m52 ^ m53;
  const uint32_t l10 = m53 ^ l4;
  const uint32_t l11 = m60 ^ l2;
  const uint32_t l12 = m48 ^ m51;
  const uint32_t l13 = m50 ^ l0;
  const uint32_t l14 = m52 ^ m61;
  const uint32_t l15 = m55 ^ l1;
  const uint32_t l16 = m56 ^ l0;
  const uint32_t l17 = m57 ^ l1;
  const uint32_t l18 = m58 ^ l8;
  const uint32_t l19 = m63 ^ l4;
  const uint32_t l20 = l0 ^ l1;
  const uint32_t l21 = l1 ^ l7;
  const uint32_t l22 = l3 ^ l12;
  const uint32_t l23 = l18 ^ l2;
  const uint32_t l24 = l15 ^ l9;
  const uint32_t l25 = l6 ^ l10;
  const uint32_t l26 = l7 ^ l9;
  const uint32_t l27 = l8 ^ l10;
  const uint32_t l28 = l11 ^ l14;
  const uint32_t l29 = l11 ^ l17;

  q[7] = l6 ^ l24;
  q[6] = ~(l16 ^ l26);
  q[5] = ~(l19 ^ l28);
  q[4] = l6 ^ l21;
  q[3] = l20 ^ l22;
  q[2] = l25 ^ l29;
  q[1] = ~(l13 ^ l27);
  q[0] = ~(l6 ^ l23);
}

// The inverse of the affine map of the S-box, constant 0x63 included:
// y -> M^-1 * y ^ 0x05 (bit i of the result is y[i+2] ^ y[i+5] ^ y[i+7], indices mod 8).
// S(x) = A(x^-1) with A this map's inverse, so S^-1 = L o S o L: the first L undoes A on the
// input, S inverts and applies A, and the second L undoes that A.
AES_INLINE void inv_affine(uint32_t q[PLANES]) {
  const uint32_t y0 = q[0], y1 = q[1], y2 = q[2], y3 = q[3];
  const uint32_t y4 = q[4], y5 = q[5], y6 = q[6], y7 = q[7];
  q[0] = ~(y2 ^ y5 ^ y7);
  q[1] = y3 ^ y6 ^ y0;
  q[2] = ~(y4 ^ y7 ^ y1);
  q[3] = y5 ^ y0 ^ y2;
  q[4] = y6 ^ y1 ^ y3;
  q[5] = y7 ^ y2 ^ y4;
  q[6] = y0 ^ y3 ^ y5;
  q[7] = y1 ^ y4 ^ y6;
}

// ShiftRows: row r moves r columns left, i.e. its byte in each plane rotates right by 2*r
// bits. Two steps: rows 1 and 3 by one column, then rows 2 and 3 by two (a nibble swap).
AES_INLINE uint32_t swap_nibbles_rows23(uint32_t x) {
  uint32_t t = ((x >> 4) ^ x) & 0x0F0F0000u;
  return x ^ t ^ (t << 4);
}

AES_INLINE uint32_t shift_rows_plane(uint32_t x) {
  x = (x & 0x00FF00FFu) | ((x >> 2) & 0x3F003F00u) | ((x << 6) & 0xC000C000u);
  return swap_nibbles_rows23(x);
}

AES_INLINE uint32_t inv_shift_rows_plane(uint32_t x) {
  x = (x & 0x00FF00FFu) | ((x << 2) & 0xFC00FC00u) | ((x >> 6) & 0x03000300u);
  return swap_nibbles_rows23(x);
}

AES_INLINE void shift_rows(uint32_t q[PLANES]) {
  q[0] = shift_rows_plane(q[0]);
  q[1] = shift_rows_plane(q[1]);
  q[2] = shift_rows_plane(q[2]);
  q[3] = shift_rows_plane(q[3]);
  q[4] = shift_rows_plane(q[4]);
  q[5] = shift_rows_plane(q[5]);
  q[6] = shift_rows_plane(q[6]);
  q[7] = shift_rows_plane(q[7]);
}

AES_INLINE void inv_shift_rows(uint32_t q[PLANES]) {
  q[0] = inv_shift_rows_plane(q[0]);
  q[1] = inv_shift_rows_plane(q[1]);
  q[2] = inv_shift_rows_plane(q[2]);
  q[3] = inv_shift_rows_plane(q[3]);
  q[4] = inv_shift_rows_plane(q[4]);
  q[5] = inv_shift_rows_plane(q[5]);
  q[6] = inv_shift_rows_plane(q[6]);
  q[7] = inv_shift_rows_plane(q[7]);
}

// MixColumns: out[r] = 2*a[r] ^ 3*a[r+1] ^ a[r+2] ^ a[r+3] (rows mod 4). Rotating a plane right
// by 8 bits brings row r+1 to row r, so with t = a ^ rotr8(a):
// out = xtime(t) ^ rotr8(a) ^ rotr16(t). xtime (multiply by x modulo x^8+x^4+x^3+x+1) moves
// each plane up one bit and folds plane 7 into planes 0, 1, 3 and 4.
AES_INLINE void mix_columns(uint32_t q[PLANES]) {
  const uint32_t a0 = q[0], a1 = q[1], a2 = q[2], a3 = q[3];
  const uint32_t a4 = q[4], a5 = q[5], a6 = q[6], a7 = q[7];
  const uint32_t r0 = rotr32(a0, 8), r1 = rotr32(a1, 8), r2 = rotr32(a2, 8);
  const uint32_t r3 = rotr32(a3, 8), r4 = rotr32(a4, 8), r5 = rotr32(a5, 8);
  const uint32_t r6 = rotr32(a6, 8), r7 = rotr32(a7, 8);
  const uint32_t t0 = a0 ^ r0, t1 = a1 ^ r1, t2 = a2 ^ r2, t3 = a3 ^ r3;
  const uint32_t t4 = a4 ^ r4, t5 = a5 ^ r5, t6 = a6 ^ r6, t7 = a7 ^ r7;
  q[0] = t7 ^ r0 ^ rotr32(t0, 16);
  q[1] = t0 ^ t7 ^ r1 ^ rotr32(t1, 16);
  q[2] = t1 ^ r2 ^ rotr32(t2, 16);
  q[3] = t2 ^ t7 ^ r3 ^ rotr32(t3, 16);
  q[4] = t3 ^ t7 ^ r4 ^ rotr32(t4, 16);
  q[5] = t4 ^ r5 ^ rotr32(t5, 16);
  q[6] = t5 ^ r6 ^ rotr32(t6, 16);
  q[7] = t6 ^ r7 ^ rotr32(t7, 16);
}

// InvMixColumns = MixColumns after u[r] = a[r] ^ 4*(a[r] ^ a[r+2]): the inverse matrix
// {0e 0b 0d 09} factors as {02 03 01 01} x {05 00 04 00}. Multiplying by 4 is xtime twice.
AES_INLINE void inv_mix_columns(uint32_t q[PLANES]) {
  const uint32_t w0 = q[0] ^ rotr32(q[0], 16), w1 = q[1] ^ rotr32(q[1], 16);
  const uint32_t w2 = q[2] ^ rotr32(q[2], 16), w3 = q[3] ^ rotr32(q[3], 16);
  const uint32_t w4 = q[4] ^ rotr32(q[4], 16), w5 = q[5] ^ rotr32(q[5], 16);
  const uint32_t w6 = q[6] ^ rotr32(q[6], 16), w7 = q[7] ^ rotr32(q[7], 16);
  const uint32_t w67 = w6 ^ w7;
  q[0] ^= w6;
  q[1] ^= w67;
  q[2] ^= w0 ^ w7;
  q[3] ^= w1 ^ w6;
  q[4] ^= w2 ^ w67;
  q[5] ^= w3 ^ w7;
  q[6] ^= w4;
  q[7] ^= w5;
  mix_columns(q);
}

AES_INLINE void load_planes(uint32_t q[PLANES], const uint32_t *state) {
  q[0] = state[0];
  q[1] = state[1];
  q[2] = state[2];
  q[3] = state[3];
  q[4] = state[4];
  q[5] = state[5];
  q[6] = state[6];
  q[7] = state[7];
}

// Stores q ^ rk: AddRoundKey on the way out.
AES_INLINE void store_planes_add_key(uint32_t *state, const uint32_t q[PLANES],
                                     const uint32_t *rk) {
  state[0] = q[0] ^ rk[0];
  state[1] = q[1] ^ rk[1];
  state[2] = q[2] ^ rk[2];
  state[3] = q[3] ^ rk[3];
  state[4] = q[4] ^ rk[4];
  state[5] = q[5] ^ rk[5];
  state[6] = q[6] ^ rk[6];
  state[7] = q[7] ^ rk[7];
}

// One round of the cipher; the last round has no MixColumns. One function for both keeps a
// single inlined copy of the S-box circuit per direction (the branch depends on the round
// number only).
AES_INLINE void encrypt_round(uint32_t state[PLANES], const uint32_t *rk, bool mix) {
  uint32_t q[PLANES];
  load_planes(q, state);
  sub_bytes(q);
  shift_rows(q);
  if (mix) {
    mix_columns(q);
  }
  store_planes_add_key(state, q, rk);
}

// The inverse round in the order of FIPS-197's InvCipher: InvShiftRows, InvSubBytes,
// AddRoundKey, then InvMixColumns except in the last round.
AES_INLINE void decrypt_round(uint32_t state[PLANES], const uint32_t *rk, bool mix) {
  uint32_t q[PLANES];
  load_planes(q, state);
  inv_shift_rows(q);
  inv_affine(q);
  sub_bytes(q);
  inv_affine(q);
  store_planes_add_key(q, q, rk);
  if (mix) {
    inv_mix_columns(q);
  }
  load_planes(state, q);
}

static inline void add_round_key(uint32_t q[PLANES], const uint32_t *rk) {
  for (unsigned i = 0; i < PLANES; ++i) {
    q[i] ^= rk[i];
  }
}

// ---------------------------------------------------------------------------------------------
// The cipher on bit planes: `rk` has PLANES words per round, nr + 1 rounds. The rounds are
// inlined here, so that registers are saved once per call rather than once per round:
// encryption has one copy of the round for the loop and one for the last round (about 3% faster
// than a single copy with the MixColumns branch in the loop, for 1 KiB more code), decryption,
// which the modes use less, a single copy.

HOT static void encrypt_planes(uint32_t q[PLANES], const uint32_t *rk, unsigned nr) {
  add_round_key(q, rk);
  for (unsigned round = 1; round < nr; ++round) {
    encrypt_round(q, rk + PLANES * round, true);
  }
  encrypt_round(q, rk + PLANES * nr, false);
}

HOT static void decrypt_planes(uint32_t q[PLANES], const uint32_t *rk, unsigned nr) {
  add_round_key(q, rk + PLANES * nr);
  for (unsigned round = nr; round-- > 0u;) {
    decrypt_round(q, rk + PLANES * round, round != 0u);
  }
}

// Runs the cipher over the two blocks in w[0..3] and w[4..7] (column words), in place.
HOT static void cipher2(uint32_t q[PLANES], uint32_t w[8], const uint32_t *rk, unsigned nr,
                    bool decrypt) {
  for (unsigned c = 0; c < 4u; ++c) {
    q[2u * c] = w[c];
    q[2u * c + 1u] = w[4u + c];
  }
  ortho(q);
  if (decrypt) {
    decrypt_planes(q, rk, nr);
  } else {
    encrypt_planes(q, rk, nr);
  }
  ortho(q);
  for (unsigned c = 0; c < 4u; ++c) {
    w[c] = q[2u * c];
    w[4u + c] = q[2u * c + 1u];
  }
}

// ---------------------------------------------------------------------------------------------
// Key schedule (FIPS-197 5.2), on little-endian words: RotWord is a right rotation by 8 and the
// round constant goes into the low byte.

// SubWord through the cipher itself: one round (which has no MixColumns, being the last) with
// zero round keys. The word goes into all four columns of block A, so each row holds four
// equal bytes and ShiftRows leaves them where they are; column 0 of block A is the result.
static uint32_t sub_word(uint32_t x) {
  uint32_t q[PLANES] = {x, 0u, x, 0u, x, 0u, x, 0u};
  static const uint32_t zero_keys[2u * PLANES] = {0u};
  ortho(q);
  encrypt_planes(q, zero_keys, 1u);
  ortho(q);
  uint32_t y = q[0];
  couplet_wipe_words(q, PLANES);
  return y;
}

static couplet_status_t soft_set_key(couplet_aes_ctx_t *ctx) {
  const unsigned nk = ctx->key_len / 4u;
  const unsigned nr = nk + 6u;
  const unsigned total = 4u * (nr + 1u);
  uint32_t w[4u * (AES_MAX_ROUNDS + 1u)];
  uint32_t q[PLANES];

  // The key words start the schedule. Copied inside the expansion loop: a loop of its own
  // would become a call to picolibc's byte-wise memcpy.
  uint32_t rcon = 1u;
  for (unsigned i = 0; i < total; ++i) {
    if (i < nk) {
      w[i] = ctx->key[i];
      continue;
    }
    uint32_t t = w[i - 1u];
    if (i % nk == 0u) {
      t = sub_word(rotr32(t, 8)) ^ rcon;
      rcon = ((rcon << 1) ^ (0x11Bu & (0u - (rcon >> 7)))) & 0xFFu;
    } else if (nk > 6u && i % nk == 4u) {
      t = sub_word(t);
    }
    w[i] = w[i - nk] ^ t;
  }

  // Bit planes of each round key with both block slots equal (the key words are interleaved
  // with themselves), then folded: plane 2v in the even bits of word v, plane 2v+1 in the odd.
  for (unsigned round = 0; round <= nr; ++round) {
    for (unsigned c = 0; c < 4u; ++c) {
      q[2u * c] = w[4u * round + c];
      q[2u * c + 1u] = w[4u * round + c];
    }
    ortho(q);
    for (unsigned v = 0; v < FOLDED_WORDS_PER_ROUND; ++v) {
      ctx->round_keys[FOLDED_WORDS_PER_ROUND * round + v] =
          (q[2u * v] & 0x55555555u) | (q[2u * v + 1u] & 0xAAAAAAAAu);
    }
  }
  // What an earlier, longer key left past this schedule.
  couplet_wipe_words(&ctx->round_keys[total], sizeof ctx->round_keys / sizeof ctx->round_keys[0] - total);
  couplet_wipe_words(w, total);
  couplet_wipe_words(q, PLANES);
  return COUPLET_OK;
}

// Unfolds the round keys of ctx into work->rk; returns the number of rounds.
static unsigned unfold_round_keys(soft_work_t *work, const couplet_aes_ctx_t *ctx) {
  const unsigned nr = ctx->key_len / 4u + 6u;
  const unsigned words = FOLDED_WORDS_PER_ROUND * (nr + 1u);
  // Four words per iteration (words is a multiple of FOLDED_WORDS_PER_ROUND): the loop's own
  // pointer updates and branch were a fifth of it, on every call.
  _Static_assert(FOLDED_WORDS_PER_ROUND % 4u == 0u, "whole iterations of four words");
#pragma GCC unroll 4
  for (unsigned i = 0; i < words; ++i) {
    const uint32_t k = ctx->round_keys[i];
    const uint32_t even = k & 0x55555555u;
    const uint32_t odd = k & 0xAAAAAAAAu;
    work->rk[2u * i] = even | (even << 1);
    work->rk[2u * i + 1u] = odd | (odd >> 1);
  }
  return nr;
}

// ---------------------------------------------------------------------------------------------
// Modes. `blocks` >= 1; in and out may be the same buffer: every mode reads a block (or a pair)
// completely before writing it.

static void ecb(soft_work_t *work, unsigned nr, bool decrypt, const uint8_t *in, uint8_t *out,
                size_t blocks) {
  uint32_t *w = work->ks;
  for (; blocks >= 2u; blocks -= 2u, in += 32, out += 32) {
    load_block(w, in);
    load_block(w + 4, in + 16);
    cipher2(work->q, w, work->rk, nr, decrypt);
    store_block(out, w);
    store_block(out + 16, w + 4);
  }
  if (blocks != 0u) {
    load_block(w, in);
    copy_block(w + 4, w);
    cipher2(work->q, w, work->rk, nr, decrypt);
    store_block(out, w);
  }
}

static void cbc_encrypt(soft_work_t *work, unsigned nr, const uint8_t *in, uint8_t *out,
                        size_t blocks) {
  uint32_t *w = work->ks;
  for (; blocks != 0u; --blocks, in += 16, out += 16) {
    load_block(w, in);
    xor_block(w, work->chain);
    copy_block(w + 4, w);
    cipher2(work->q, w, work->rk, nr, false);
    copy_block(work->chain, w);
    store_block(out, w);
  }
}

static void cbc_decrypt(soft_work_t *work, unsigned nr, const uint8_t *in, uint8_t *out,
                        size_t blocks) {
  uint32_t *w = work->ks;
  uint32_t *c = work->data;  // the ciphertext, kept because out may overwrite in
  for (; blocks >= 2u; blocks -= 2u, in += 32, out += 32) {
    load_block(c, in);
    load_block(c + 4, in + 16);
    copy_block(w, c);
    copy_block(w + 4, c + 4);
    cipher2(work->q, w, work->rk, nr, true);
    xor_block(w, work->chain);
    xor_block(w + 4, c);
    copy_block(work->chain, c + 4);
    store_block(out, w);
    store_block(out + 16, w + 4);
  }
  if (blocks != 0u) {
    load_block(c, in);
    copy_block(w, c);
    copy_block(w + 4, c);
    cipher2(work->q, w, work->rk, nr, true);
    xor_block(w, work->chain);
    copy_block(work->chain, c);
    store_block(out, w);
  }
}

// The counter block is a 128-bit big-endian integer; work->chain holds it as four big-endian
// words, most significant first. The carry is propagated with set-if-zero, not branches.
AES_INLINE void counter_next(uint32_t c[4]) {
  c[3] += 1u;
  uint32_t carry = (uint32_t)(c[3] == 0u);
  c[2] += carry;
  carry &= (uint32_t)(c[2] == 0u);
  c[1] += carry;
  carry &= (uint32_t)(c[1] == 0u);
  c[0] += carry;
}

// The counter as the cipher's input block (little-endian column words).
AES_INLINE void counter_block(uint32_t w[4], const uint32_t c[4]) {
  w[0] = couplet_bswap32(c[0]);
  w[1] = couplet_bswap32(c[1]);
  w[2] = couplet_bswap32(c[2]);
  w[3] = couplet_bswap32(c[3]);
}

static void ctr(soft_work_t *work, unsigned nr, const uint8_t *in, uint8_t *out, size_t blocks) {
  uint32_t *w = work->ks;
  uint32_t *d = work->data;
  for (; blocks >= 2u; blocks -= 2u, in += 32, out += 32) {
    counter_block(w, work->chain);
    counter_next(work->chain);
    counter_block(w + 4, work->chain);
    counter_next(work->chain);
    cipher2(work->q, w, work->rk, nr, false);
    load_block(d, in);
    load_block(d + 4, in + 16);
    xor_block(d, w);
    xor_block(d + 4, w + 4);
    store_block(out, d);
    store_block(out + 16, d + 4);
  }
  if (blocks != 0u) {
    counter_block(w, work->chain);
    counter_next(work->chain);
    copy_block(w + 4, w);
    cipher2(work->q, w, work->rk, nr, false);
    load_block(d, in);
    xor_block(d, w);
    store_block(out, d);
  }
}

static void cfb_encrypt(soft_work_t *work, unsigned nr, const uint8_t *in, uint8_t *out,
                        size_t blocks) {
  uint32_t *w = work->ks;
  for (; blocks != 0u; --blocks, in += 16, out += 16) {
    copy_block(w, work->chain);
    copy_block(w + 4, work->chain);
    cipher2(work->q, w, work->rk, nr, false);
    load_block(work->chain, in);
    xor_block(work->chain, w);
    store_block(out, work->chain);
  }
}

static void cfb_decrypt(soft_work_t *work, unsigned nr, const uint8_t *in, uint8_t *out,
                        size_t blocks) {
  uint32_t *w = work->ks;
  uint32_t *c = work->data;  // the ciphertext, kept because out may overwrite in
  for (; blocks >= 2u; blocks -= 2u, in += 32, out += 32) {
    load_block(c, in);
    load_block(c + 4, in + 16);
    copy_block(w, work->chain);
    copy_block(w + 4, c);
    cipher2(work->q, w, work->rk, nr, false);
    xor_block(w, c);
    xor_block(w + 4, c + 4);
    copy_block(work->chain, c + 4);
    store_block(out, w);
    store_block(out + 16, w + 4);
  }
  if (blocks != 0u) {
    load_block(c, in);
    copy_block(w, work->chain);
    copy_block(w + 4, work->chain);
    cipher2(work->q, w, work->rk, nr, false);
    xor_block(w, c);
    copy_block(work->chain, c);
    store_block(out, w);
  }
}

static void ofb(soft_work_t *work, unsigned nr, const uint8_t *in, uint8_t *out, size_t blocks) {
  uint32_t *w = work->ks;
  uint32_t *d = work->data;
  for (; blocks != 0u; --blocks, in += 16, out += 16) {
    copy_block(w, work->chain);
    copy_block(w + 4, work->chain);
    cipher2(work->q, w, work->rk, nr, false);
    copy_block(work->chain, w);
    load_block(d, in);
    xor_block(d, w);
    store_block(out, d);
  }
}

static couplet_status_t soft_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  soft_work_t work;
  const unsigned nr = unfold_round_keys(&work, ctx);
  couplet_status_t status = COUPLET_OK;

  if (mode == COUPLET_AES_CTR) {
    for (unsigned i = 0; i < 4u; ++i) {
      work.chain[i] = couplet_bswap32(load_le32(&iv[4u * i]));
    }
  } else if (mode != COUPLET_AES_ECB) {
    load_block(work.chain, iv);
  }

  switch (mode) {
    case COUPLET_AES_ECB:
      ecb(&work, nr, decrypt, in, out, blocks);
      break;
    case COUPLET_AES_CBC:
      if (decrypt) {
        cbc_decrypt(&work, nr, in, out, blocks);
      } else {
        cbc_encrypt(&work, nr, in, out, blocks);
      }
      break;
    case COUPLET_AES_CTR:
      ctr(&work, nr, in, out, blocks);
      break;
    case COUPLET_AES_CFB:
      if (decrypt) {
        cfb_decrypt(&work, nr, in, out, blocks);
      } else {
        cfb_encrypt(&work, nr, in, out, blocks);
      }
      break;
    case COUPLET_AES_OFB:
      ofb(&work, nr, in, out, blocks);
      break;
    default:
      status = COUPLET_ERR_ARG;
      break;
  }

  if (status == COUPLET_OK && mode == COUPLET_AES_CTR) {
    for (unsigned i = 0; i < 4u; ++i) {
      store_le32(&iv[4u * i], couplet_bswap32(work.chain[i]));
    }
  } else if (status == COUPLET_OK && mode != COUPLET_AES_ECB) {
    store_block(iv, work.chain);
  }
  couplet_wipe_words(work.rk, PLANES * (nr + 1u));
  couplet_wipe_words(work.q, PLANES);
  couplet_wipe_words(work.chain, 4u);
  couplet_wipe_words(work.ks, 8u);
  couplet_wipe_words(work.data, 8u);
  return status;
}

// No zeroize: the software backend keeps no key outside the context.
const couplet_aes_backend_t couplet_aes_backend_soft =
    AES_BACKEND_TABLE(SOFT, "soft", false, soft_set_key, soft_crypt, NULL, 0u);
