// C wrappers of the kc.* custom instructions (hw/ip/keccak/doc/ise.md): the stateless Keccak
// instruction unit on COUPLET_KECCAK_ISE_OPCODE (custom-1), for a software Keccak on the
// bit-interleaved state (sha3_ise.c).
//
// The SDK builds with -march=rv32imac_zicsr_zifencei, which has no mnemonics for these
// instructions: `.insn` emits them. The asm is not volatile, so the compiler treats each like
// an ALU operation (it may schedule, merge or drop it). A rotation amount `n` must fold to a
// constant, because the "i" constraint puts it into the encoding: with the SDK's -O2 and
// always_inline it does, also inside unrolled loops; at -O0 it does not.
//
// A host build of sha3_ise.c (hw/ip/keccak/test/test_keccak_ise.py) defines KC_HOST_MODELS and
// provides C models of these seven functions instead.

#ifndef COUPLET_KECCAK_ISE_H_
#define COUPLET_KECCAK_ISE_H_

#include <stdint.h>

#ifndef KC_INLINE
#define KC_INLINE static inline __attribute__((always_inline))
#endif

#ifndef KC_HOST_MODELS

#include <couplet/soc_config.h>

#define KC_STR_(x) #x
#define KC_STR(x) KC_STR_(x)
#define KC_INSN ".insn r " KC_STR(COUPLET_KECCAK_ISE_OPCODE)

// kc.xrol rd, rs1, rs2, n: rol32(rs1 ^ rs2, n). n = 0 is a plain XOR and needs no instruction.
KC_INLINE uint32_t kc_xrol(uint32_t rs1, uint32_t rs2, unsigned n) {
  uint32_t rd;
  if (n == 0u) {
    return rs1 ^ rs2;
  }
  __asm__(KC_INSN ", 0, %3, %0, %1, %2" : "=r"(rd) : "r"(rs1), "r"(rs2), "i"(n));
  return rd;
}

// kc.rolx rd, rs1, rs2, n: rs1 ^ rol32(rs2, n).
KC_INLINE uint32_t kc_rolx(uint32_t rs1, uint32_t rs2, unsigned n) {
  uint32_t rd;
  __asm__(KC_INSN ", 1, %3, %0, %1, %2" : "=r"(rd) : "r"(rs1), "r"(rs2), "i"(n));
  return rd;
}

// kc.andn rd, rs1, rs2: ~rs1 & rs2.
KC_INLINE uint32_t kc_andn(uint32_t rs1, uint32_t rs2) {
  uint32_t rd;
  __asm__(KC_INSN ", 2, 0, %0, %1, %2" : "=r"(rd) : "r"(rs1), "r"(rs2));
  return rd;
}

// kc.ileave.lo / .hi rd, lo, hi: the even / odd bits of the lane {hi, lo}.
KC_INLINE uint32_t kc_ileave_lo(uint32_t lo, uint32_t hi) {
  uint32_t rd;
  __asm__(KC_INSN ", 3, 0, %0, %1, %2" : "=r"(rd) : "r"(lo), "r"(hi));
  return rd;
}

KC_INLINE uint32_t kc_ileave_hi(uint32_t lo, uint32_t hi) {
  uint32_t rd;
  __asm__(KC_INSN ", 3, 1, %0, %1, %2" : "=r"(rd) : "r"(lo), "r"(hi));
  return rd;
}

// kc.dleave.lo / .hi rd, even, odd: the low / high word of the lane with these even/odd bits.
KC_INLINE uint32_t kc_dleave_lo(uint32_t even, uint32_t odd) {
  uint32_t rd;
  __asm__(KC_INSN ", 3, 2, %0, %1, %2" : "=r"(rd) : "r"(even), "r"(odd));
  return rd;
}

KC_INLINE uint32_t kc_dleave_hi(uint32_t even, uint32_t odd) {
  uint32_t rd;
  __asm__(KC_INSN ", 3, 3, %0, %1, %2" : "=r"(rd) : "r"(even), "r"(odd));
  return rd;
}

#endif  // KC_HOST_MODELS

#endif  // COUPLET_KECCAK_ISE_H_
