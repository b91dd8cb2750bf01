// The Keccak accelerator's custom instructions (CV-X-IF), as the tight and mem backends
// (sha3_tight.c) and the front end's common calls (sha3.c) issue them: one instruction on
// registers, the READ pairs, and the computed-jump chain of WRITE2 that carries a buffer's word
// pairs into STATE_XOR. Include only where COUPLET_KECCAK_CUSTOM_OPCODE is defined.

#ifndef COUPLET_SHA3_XIF_H_
#define COUPLET_SHA3_XIF_H_

#include "sha3_hw.h"

#ifndef SHA3_INLINE
#define SHA3_INLINE static inline __attribute__((always_inline))
#endif
#define SHA3_STR_(x) #x
#define SHA3_STR(x) SHA3_STR_(x)

enum { XIF_READ = 0u, XIF_WRITE = 1u, XIF_WRITE2 = 2u, XIF_ACTION = 3u };

// What a sequence below reports besides PERMUTE's answer (1): a count outside its switch. The
// callers check the OR of both once.
#define XIF_BAD_COUNT 0x100u

#define UNLIKELY_HW(x) __builtin_expect(!!(x), 0)

// funct7 holds the index: every register the code below names must fit it.
_Static_assert(KECCAK_STATE_XOR_INDEX + KECCAK_STATE_XOR_COUNT - 1u < 128u, "index beyond funct7");
_Static_assert(KECCAK_CMD_INDEX < 128u && KECCAK_STATE_INDEX + KECCAK_STATE_COUNT <= KECCAK_CTRL_INDEX,
               "register map");
// The unrolled transfers below cover the largest rate (SHAKE128: 42 words, 21 pairs).
_Static_assert(COUPLET_SHA3_MAX_RATE == 168u, "the switches below stop at 21 pairs / 42 words");

// One custom instruction on registers. op and index must fold to constants (always inlined,
// -O1 or more): the "i" constraints put them into the encoding. %z prints x0 for a constant 0.
// Volatile keeps the instructions in program order; no "memory" clobber, as none of these
// touches memory, so the compiler may move the loads and stores of the caller's buffers around
// them (a READ's result stored while the next READ runs, no stall).
SHA3_INLINE uint32_t xif(const uint32_t op, const uint32_t index, uint32_t a, uint32_t b) {
  uint32_t rd;
  __asm__ volatile(".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %1, %2, %0, %z3, %z4"
                   : "=r"(rd)
                   : "i"(op), "i"(index), "rJ"(a), "rJ"(b));
  return rd;
}

// Two WRITE2 in one statement, so that all four operands are loaded before the first (the
// compiler would otherwise sink each load to its use and stall on every pair).
SHA3_INLINE void xif_write2x2(const uint32_t index0, uint32_t a0, uint32_t b0, const uint32_t index1, uint32_t a1,
                              uint32_t b1) {
  uint32_t rd0, rd1;
  __asm__ volatile(".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %2, %3, %0, %4, %5\n\t"
                   ".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %2, %6, %1, %7, %8"
                   : "=&r"(rd0), "=r"(rd1)
                   : "i"(XIF_WRITE2), "i"(index0), "r"(a0), "r"(b0), "i"(index1), "r"(a1), "r"(b1));
}

// Two READs in one statement: their stores come after both, none waiting for its READ.
SHA3_INLINE void xif_read2(const uint32_t index0, uint32_t *v0, const uint32_t index1, uint32_t *v1) {
  uint32_t rd0, rd1;
  __asm__ volatile(".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %2, %3, %0, x0, x0\n\t"
                   ".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %2, %4, %1, x0, x0"
                   : "=&r"(rd0), "=r"(rd1)
                   : "i"(XIF_READ), "i"(index0), "i"(index1));
  *v0 = rd0;
  *v1 = rd1;
}

// ABSORB: the accelerator's DMA reads memory, so the CPU's stores must be there before it.
SHA3_INLINE uint32_t xif_absorb_action(const uint8_t *src) {
  uint32_t rd;
  __asm__ volatile("fence\n\t.insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %1, %2, %0, %3, x0"
                   : "=r"(rd)
                   : "i"(XIF_ACTION), "i"(KECCAK_ACTION_ABSORB), "r"(src)
                   : "memory");
  return rd;
}

// A custom instruction whose answer is not needed: rd is x0, so that it ties up no register.
SHA3_INLINE void xif_x0(const uint32_t op, const uint32_t index, uint32_t a, uint32_t b) {
  __asm__ volatile(".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %0, %1, x0, %z2, %z3"
                   :
                   : "i"(op), "i"(index), "rJ"(a), "rJ"(b));
}

SHA3_INLINE void xif_zeroize(void) {
  xif_x0(XIF_ACTION, KECCAK_ACTION_ZEROIZE, 0u, 0u);
}

SHA3_INLINE uint32_t xif_permute(void) {
  return xif(XIF_ACTION, KECCAK_ACTION_PERMUTE, 0u, 0u);
}

// The hot paths' WRITE2 (rd x0: its answer, 0, is not needed).
#define XIF_W2(k, a, b) xif_x0(XIF_WRITE2, KECCAK_STATE_XOR_INDEX + 2u * (k), a, b)

// READs of state words two at a time, then their two stores (SHA3_READ_CHAIN, sha3_hw.h).
#define XIF_RD(w) xif(XIF_READ, KECCAK_STATE_INDEX + (w), 0u, 0u)
#define XIF_R2(out, k, al) SHA3_R2(xif_read2, out, k, al)
#define XIF_R1(out, k, al) SHA3_ST(out, k, XIF_RD(k), al)

// The hot path's pairs: XORs (lo, hi) into state pair k (0..20) and the word pairs k-1 .. 0 from
// the word-aligned p. With (lo, hi) the last pair of a message (its last bytes and padding, k
// the pair that holds them) that is the whole end of the message; with (lo, hi) loaded from
// p + 8k, it is k + 1 whole pairs. In assembly, because what makes it fast is its exact shape,
// which the compiler does not keep (it lays a chain of labelled steps out in its own order and
// jumps between them): one computed jump into a run of equal steps (no rvc, no relaxation, so
// each is 12 bytes), each loading the next pair while it writes the pair the step before
// loaded, so that no WRITE2 waits for a load (3 cycles a pair). The two register sets
// alternate; (lo, hi) goes into both, so that either parity can start.
// (A WRITE2 answers 0: its rd is x0.)
#define XIF_ASM_STEP(k, cur, nxt)                                                          \
  "lw %[" #nxt "0], " #k "*8-8(%[p])\n\t"                                                  \
  "lw %[" #nxt "1], " #k "*8-4(%[p])\n\t"                                                  \
  ".insn r %[opc], 2, %[xor0]+2*" #k ", x0, %[" #cur "0], %[" #cur "1]\n\t"
SHA3_INLINE void xif_xor_chain(const uint8_t *p, uint32_t k, uint32_t lo, uint32_t hi) {
  uint32_t o0, o1, target;
  __asm__ volatile(
      ".option push\n\t"
      // On a word boundary (the linker keeps it so), and all 4-byte instructions after it: every
      // step starts on one (a jump to a 32-bit instruction that straddles two words costs a cycle).
      ".balign 4\n\t"
      ".option norvc\n\t"
      ".option norelax\n\t"
      "slli %[o0], %[k], 2\n\t"
      "slli %[target], %[k], 3\n\t"
      "add %[o0], %[o0], %[target]\n\t"  // 12 k: step k starts 12 k bytes before step 0
      "7: auipc %[target], %%pcrel_hi(8f)\n\t"
      "sub %[target], %[target], %[o0]\n\t"
      "mv %[o0], %[e0]\n\t"
      "mv %[o1], %[e1]\n\t"
      "jalr x0, %%pcrel_lo(7b)(%[target])\n\t"
      XIF_ASM_STEP(20, e, o)
      XIF_ASM_STEP(19, o, e)
      XIF_ASM_STEP(18, e, o)
      XIF_ASM_STEP(17, o, e)
      XIF_ASM_STEP(16, e, o)
      XIF_ASM_STEP(15, o, e)
      XIF_ASM_STEP(14, e, o)
      XIF_ASM_STEP(13, o, e)
      XIF_ASM_STEP(12, e, o)
      XIF_ASM_STEP(11, o, e)
      XIF_ASM_STEP(10, e, o)
      XIF_ASM_STEP(9, o, e)
      XIF_ASM_STEP(8, e, o)
      XIF_ASM_STEP(7, o, e)
      XIF_ASM_STEP(6, e, o)
      XIF_ASM_STEP(5, o, e)
      XIF_ASM_STEP(4, e, o)
      XIF_ASM_STEP(3, o, e)
      XIF_ASM_STEP(2, e, o)
      XIF_ASM_STEP(1, o, e)
      "8: .insn r %[opc], 2, %[xor0], x0, %[e0], %[e1]\n\t"
      ".option pop"
      : [e0] "+&r"(lo), [e1] "+&r"(hi), [o0] "=&r"(o0), [o1] "=&r"(o1), [target] "=&r"(target)
      : [p] "r"(p), [k] "r"(k), [opc] "i"(COUPLET_KECCAK_CUSTOM_OPCODE),
        [xor0] "i"(KECCAK_STATE_XOR_INDEX)
      : "memory");
}

// XORs (a, b) into state pair k (0..20).
#define WRITE_PAIR_CASE(k)                                                             \
  case (k) - 1u:                                                                       \
    XIF_W2((k) - 1u, a, b);                                                            \
    return 0u;

SHA3_INLINE uint32_t xif_write_pair_inline(uint32_t k, uint32_t a, uint32_t b) {
  switch (k) {
    SHA3_DOWN_21(WRITE_PAIR_CASE)
    default:
      return XIF_BAD_COUNT;
  }
}

SHA3_INLINE void xif_xor_part(const uint8_t *data, size_t n) {
  SHA3_XOR_PART(xif_xor_chain, data, n);
}

SHA3_INLINE void xif_store_state(uint32_t *s) {
  SHA3_STORE_STATE(xif_read2, s);
}

#endif  // COUPLET_SHA3_XIF_H_
