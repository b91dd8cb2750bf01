// The Keccak accelerator's register window, as the mmio and dma backends (sha3_mmio.c) and the
// front end's common calls (sha3.c) use it: register loads and stores, the READ pairs, and the
// computed-jump chain of stores that carries a buffer's word pairs into STATE_XOR. Include only
// where COUPLET_KECCAK_BASE is defined.

#ifndef COUPLET_SHA3_MMIO_H_
#define COUPLET_SHA3_MMIO_H_

#include <couplet/mmio.h>

#include "sha3_hw.h"

#ifndef SHA3_INLINE
#define SHA3_INLINE static inline __attribute__((always_inline))
#endif

// What a sequence below reports: a count outside its switch.
#define MMIO_BAD_COUNT 0x100u

SHA3_INLINE void reg_write(uint32_t index, uint32_t value) {
  couplet_mmio_write32(COUPLET_KECCAK_BASE + 4u * index, value);
}

SHA3_INLINE uint32_t reg_read(uint32_t index) {
  return couplet_mmio_read32(COUPLET_KECCAK_BASE + 4u * index);
}

SHA3_INLINE void mmio_zeroize(void) {
  reg_write(KECCAK_CMD_INDEX, KECCAK_CMD_ZEROIZE_MASK);
}

SHA3_INLINE void mmio_permute(void) {
  reg_write(KECCAK_CMD_INDEX, KECCAK_CMD_PERMUTE_MASK);
  sha3_hw.permute_issued = true;
}

// Two state words in one statement, both loads before their stores (mmio_output).
SHA3_INLINE void mmio_read2(uint32_t index0, uint32_t *v0, uint32_t index1, uint32_t *v1) {
  uint32_t r0, r1;
  __asm__ volatile("lw %0, %2(%4)\n\tlw %1, %3(%4)"
                   : "=&r"(r0), "=r"(r1)
                   : "i"(4u * index0), "i"(4u * index1), "r"(COUPLET_KECCAK_BASE)
                   : "memory");
  *v0 = r0;
  *v1 = r1;
}
#define MMIO_R2(out, k, al) SHA3_R2(mmio_read2, out, k, al)
#define MMIO_R1(out, k, al) SHA3_ST(out, k, reg_read(KECCAK_STATE_INDEX + (k)), al)

// The hot path's pairs: stores (lo, hi) into STATE_XOR pair k (0..20) and the word pairs k-1 .. 0
// from the word-aligned p (as xif_xor_chain in sha3_tight.c, whose comment says why this is
// assembly): one computed jump into a run of equal 16-byte steps, each loading the next pair
// while it stores the pair the step before loaded (6 cycles a pair: the two stores' bus time).
#define MMIO_ASM_STEP(k, cur, nxt)                                    \
  "lw %[" #nxt "0], " #k "*8-8(%[p])\n\t"                             \
  "lw %[" #nxt "1], " #k "*8-4(%[p])\n\t"                             \
  "sw %[" #cur "0], %[xor0]+" #k "*8(%[base])\n\t"                    \
  "sw %[" #cur "1], %[xor0]+" #k "*8+4(%[base])\n\t"
// The chain's assembly, then `end` (more instructions, or none).
#define MMIO_CHAIN_ASM(end)                                                                                        \
  ".option push\n\t"                                                                                              \
  /* On a word boundary (the linker keeps it so), and all 4-byte instructions after it: every step starts on   \
     one (a jump to a 32-bit instruction that straddles two words costs a cycle). */                            \
  ".balign 4\n\t"                                                                                                 \
  ".option norvc\n\t"                                                                                             \
  ".option norelax\n\t"                                                                                           \
  "slli %[o0], %[k], 4\n\t" /* step k starts 16 k bytes before step 0 */                                         \
  "7: auipc %[target], %%pcrel_hi(8f)\n\t"                                                                        \
  "sub %[target], %[target], %[o0]\n\t"                                                                           \
  "mv %[o0], %[e0]\n\t"                                                                                           \
  "mv %[o1], %[e1]\n\t"                                                                                           \
  "jalr x0, %%pcrel_lo(7b)(%[target])\n\t"                                                                        \
  MMIO_ASM_STEP(20, e, o) MMIO_ASM_STEP(19, o, e) MMIO_ASM_STEP(18, e, o) MMIO_ASM_STEP(17, o, e)                 \
  MMIO_ASM_STEP(16, e, o) MMIO_ASM_STEP(15, o, e) MMIO_ASM_STEP(14, e, o) MMIO_ASM_STEP(13, o, e)                 \
  MMIO_ASM_STEP(12, e, o) MMIO_ASM_STEP(11, o, e) MMIO_ASM_STEP(10, e, o) MMIO_ASM_STEP(9, o, e)                  \
  MMIO_ASM_STEP(8, e, o) MMIO_ASM_STEP(7, o, e) MMIO_ASM_STEP(6, e, o) MMIO_ASM_STEP(5, o, e)                     \
  MMIO_ASM_STEP(4, e, o) MMIO_ASM_STEP(3, o, e) MMIO_ASM_STEP(2, e, o) MMIO_ASM_STEP(1, o, e)                     \
  "8: sw %[e0], %[xor0](%[base])\n\t"                                                                             \
  "sw %[e1], %[xor0]+4(%[base])\n\t"                                                                              \
  end                                                                                                           \
  ".option pop"

SHA3_INLINE void mmio_xor_chain(const uint8_t *p, uint32_t k, uint32_t lo, uint32_t hi) {
  uint32_t o0, o1, target;
  __asm__ volatile(MMIO_CHAIN_ASM("")
                   : [e0] "+&r"(lo), [e1] "+&r"(hi), [o0] "=&r"(o0), [o1] "=&r"(o1), [target] "=&r"(target)
                   : [p] "r"(p), [k] "r"(k), [base] "r"(COUPLET_KECCAK_BASE), [xor0] "i"(4u * KECCAK_STATE_XOR_INDEX)
                   : "memory");
}

// The chain and then CMD.PERMUTE, its 1 made in a register the chain is done with: the whole
// block of a loop that has no register to spare for the constant.
SHA3_INLINE void mmio_xor_chain_permute(const uint8_t *p, uint32_t k, uint32_t lo, uint32_t hi) {
  uint32_t o0, o1, target;
  __asm__ volatile(MMIO_CHAIN_ASM("li %[target], %[permute]\n\tsw %[target], %[cmd](%[base])\n\t")
                   : [e0] "+&r"(lo), [e1] "+&r"(hi), [o0] "=&r"(o0), [o1] "=&r"(o1), [target] "=&r"(target)
                   : [p] "r"(p), [k] "r"(k), [base] "r"(COUPLET_KECCAK_BASE), [xor0] "i"(4u * KECCAK_STATE_XOR_INDEX),
                     [permute] "i"(KECCAK_CMD_PERMUTE_MASK), [cmd] "i"(4u * KECCAK_CMD_INDEX)
                   : "memory");
}

SHA3_INLINE void mmio_xor_part(const uint8_t *data, size_t n) {
  SHA3_XOR_PART(mmio_xor_chain, data, n);
}

SHA3_INLINE void mmio_store_state(uint32_t *s) {
  SHA3_STORE_STATE(mmio_read2, s);
}

#endif  // COUPLET_SHA3_MMIO_H_
