// Machine-mode CSR access for the CV32E40X (RV32, machine mode only).
//
// Each CSR gets typed inline functions (couplet_csr_read_mstatus() ...) rather than one
// generic macro: the CSR number must be an assembler immediate, and per-CSR functions keep
// that true at every optimisation level while still type-checking the value.
// set/clear are the atomic csrrs/csrrc and return the previous value.
// Every access is also a compiler memory barrier, so enabling an interrupt cannot be moved
// before the stores that prepare its handler's data.

#ifndef COUPLET_CSR_H_
#define COUPLET_CSR_H_

#include <stdint.h>

#define COUPLET_DEFINE_CSR(name)                                                  \
  static inline uint32_t couplet_csr_read_##name(void) {                          \
    uint32_t value;                                                               \
    __asm__ volatile("csrr %0, " #name : "=r"(value) : : "memory");               \
    return value;                                                                 \
  }                                                                               \
  static inline void couplet_csr_write_##name(uint32_t value) {                   \
    __asm__ volatile("csrw " #name ", %0" : : "rK"(value) : "memory");            \
  }                                                                               \
  static inline uint32_t couplet_csr_set_##name(uint32_t bits) {                  \
    uint32_t previous;                                                            \
    __asm__ volatile("csrrs %0, " #name ", %1" : "=r"(previous) : "rK"(bits) : "memory"); \
    return previous;                                                              \
  }                                                                               \
  static inline uint32_t couplet_csr_clear_##name(uint32_t bits) {                \
    uint32_t previous;                                                            \
    __asm__ volatile("csrrc %0, " #name ", %1" : "=r"(previous) : "rK"(bits) : "memory"); \
    return previous;                                                              \
  }

COUPLET_DEFINE_CSR(mstatus)
COUPLET_DEFINE_CSR(misa)
COUPLET_DEFINE_CSR(mie)
COUPLET_DEFINE_CSR(mip)
COUPLET_DEFINE_CSR(mtvec)
COUPLET_DEFINE_CSR(mscratch)
COUPLET_DEFINE_CSR(mepc)
COUPLET_DEFINE_CSR(mcause)
COUPLET_DEFINE_CSR(mtval)
COUPLET_DEFINE_CSR(mhartid)
COUPLET_DEFINE_CSR(mcycle)
COUPLET_DEFINE_CSR(mcycleh)
COUPLET_DEFINE_CSR(minstret)
COUPLET_DEFINE_CSR(minstreth)
COUPLET_DEFINE_CSR(mcountinhibit)

#undef COUPLET_DEFINE_CSR

// mstatus
#define COUPLET_MSTATUS_MIE (1u << 3)   // global machine interrupt enable
#define COUPLET_MSTATUS_MPIE (1u << 7)  // MIE before the current trap

// mcause: bit 31 tells an interrupt from an exception; the rest is the code.
#define COUPLET_MCAUSE_INTERRUPT (1u << 31)
#define COUPLET_MCAUSE_CODE_MASK 0x7fffffffu

// Exception codes (mcause with bit 31 clear), RISC-V privileged spec table 3.6.
#define COUPLET_EXC_INSN_MISALIGNED 0u
#define COUPLET_EXC_INSN_ACCESS_FAULT 1u
#define COUPLET_EXC_ILLEGAL_INSN 2u
#define COUPLET_EXC_BREAKPOINT 3u
#define COUPLET_EXC_LOAD_MISALIGNED 4u
#define COUPLET_EXC_LOAD_ACCESS_FAULT 5u
#define COUPLET_EXC_STORE_MISALIGNED 6u
#define COUPLET_EXC_STORE_ACCESS_FAULT 7u
#define COUPLET_EXC_ECALL_M 11u
// CV32E40X: an error response to an instruction fetch (precise; mepc is the fetch address).
#define COUPLET_EXC_INSN_BUS_FAULT 48u

// CV32E40X reports an error response to a load or store not as exception 5/7 but as a
// non-maskable interrupt: mcause has bit 31 set and one of these codes, the trap goes to
// mtvec base + 0x3c (trap_entry.S has a jump there), and it is imprecise: the faulting
// access has already retired and mepc points at a later instruction. Exceptions 5/7 come
// only from the core's own checks (PMA), which this SoC does not configure.
#define COUPLET_NMI_LOAD_BUS_FAULT 0x400u
#define COUPLET_NMI_STORE_BUS_FAULT 0x401u

// mcountinhibit: set a bit to stop that counter.
#define COUPLET_MCOUNTINHIBIT_CY (1u << 0)  // mcycle
#define COUPLET_MCOUNTINHIBIT_IR (1u << 2)  // minstret

#endif  // COUPLET_CSR_H_
