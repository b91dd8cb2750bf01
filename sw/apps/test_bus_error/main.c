// test_bus_error: bus errors and illegal instructions trap and can be recovered from.
//
// What CV32E40X (this SoC, no PMA regions) does, and what is checked:
// - load / store to an unmapped address: the bus answers an error, which the core reports
//   as an imprecise NMI (mcause 0x80000400 / 0x80000401), taken after the access retired,
//   with mepc a little past it. Checked: the cause, mepc within a few instructions after
//   the access, and that RESUME carries on there.
// - jump to an unmapped address: precise instruction bus fault, mcause 48 (or 1,
//   instruction access fault, should the SoC ever configure PMA regions), mepc = target.
//   The handler resumes at the caller's return address.
// - a custom instruction no unit claims, and c.unimp: precise illegal instruction (mcause 2);
//   COUPLET_TRAP_SKIP must step over 4 and 2 bytes respectively.
// - ecall: precise (mcause 11); the handler's change to a0 in the frame reaches the caller.
// - an NMI inside an exception handler (ebreak whose handler loads from unmapped space):
//   both return, and the code that ran ebreak with interrupts off still has them off.
// mtval is printed, not checked: CV32E40X may leave it 0.
// Prints one line per check; exits 0 when all pass, 1 at the first failure.

#include <stdint.h>
#include <stdio.h>

#include <couplet/csr.h>
#include <couplet/irq.h>
#include <couplet/selftest.h>

// Outside every region of the memory map (SRAM, CLINT, simctrl): the bus answers an error.
#define UNMAPPED_ADDRESS 0x40000000u
// What a register holds before a faulting instruction; it must still hold it afterwards.
#define UNTOUCHED 0x5a5a5a5au
// Written by the instruction right after a compressed faulting one, proving it ran.
#define NEXT_RAN 7u
// An NMI is taken once the faulting access retires; the nops after the access give it a
// landing zone of this many bytes.
#define NMI_LANDING_BYTES 16u

static volatile uint32_t traps_seen;
static volatile uint32_t seen_mcause;
static volatile uint32_t seen_mepc;
static volatile uint32_t seen_mtval;

static void record(const couplet_trap_frame_t *frame) {
  traps_seen = traps_seen + 1u;
  seen_mcause = frame->mcause;
  seen_mepc = frame->mepc;
  seen_mtval = frame->mtval;
}

static couplet_trap_action_t record_and_skip(couplet_trap_frame_t *frame) {
  record(frame);
  return COUPLET_TRAP_SKIP;
}

// Bus-fault NMIs: mepc is already past the access, so carry on there.
static couplet_trap_action_t record_and_resume(couplet_trap_frame_t *frame) {
  record(frame);
  return COUPLET_TRAP_RESUME;
}

// The faulting "instruction" is the jump target itself: there is nothing to skip, so go
// back to where the call would have returned.
static couplet_trap_action_t record_and_return_to_caller(couplet_trap_frame_t *frame) {
  record(frame);
  frame->mepc = frame->ra;
  return COUPLET_TRAP_RESUME;
}

// A system call in miniature: the handler answers in a0.
static couplet_trap_action_t increment_a0(couplet_trap_frame_t *frame) {
  record(frame);
  frame->a0 += 1u;
  return COUPLET_TRAP_SKIP;
}

// Causes a bus-fault NMI inside this exception handler, then steps over the ebreak.
static couplet_trap_action_t fault_inside_handler(couplet_trap_frame_t *frame) {
  (void)frame;
  (void)*(volatile uint32_t *)(uintptr_t)UNMAPPED_ADDRESS;
  return COUPLET_TRAP_SKIP;
}

// Checks the trap recorded since `traps_before`, with the expected cause and address.
static int expect_trap(const char *what, uint32_t traps_before, uint32_t mcause, uint32_t mepc) {
  char line[80];
  snprintf(line, sizeof line, "%s: one trap", what);
  COUPLET_REQUIRE(couplet_expect_u32(line, traps_before + 1u, traps_seen));
  snprintf(line, sizeof line, "%s: mcause", what);
  COUPLET_REQUIRE(couplet_expect_u32(line, mcause, seen_mcause));
  snprintf(line, sizeof line, "%s: mepc is the faulting instruction", what);
  COUPLET_REQUIRE(couplet_expect_u32(line, mepc, seen_mepc));
  printf("  info %s: mtval = 0x%08lx\n", what, (unsigned long)seen_mtval);
  return 0;
}

// Checks the NMI recorded since `traps_before`: its cause, and mepc after the access at
// `access` and within the landing zone.
static int expect_nmi(const char *what, uint32_t traps_before, uint32_t mcause, uint32_t access) {
  char line[80];
  snprintf(line, sizeof line, "%s: one NMI", what);
  COUPLET_REQUIRE(couplet_expect_u32(line, traps_before + 1u, traps_seen));
  snprintf(line, sizeof line, "%s: mcause", what);
  COUPLET_REQUIRE(couplet_expect_u32(line, mcause, seen_mcause));
  snprintf(line, sizeof line, "%s: mepc - faulting access (bytes)", what);
  COUPLET_REQUIRE(couplet_expect_range_u64(line, 2u, NMI_LANDING_BYTES, seen_mepc - access));
  printf("  info %s: mtval = 0x%08lx\n", what, (unsigned long)seen_mtval);
  return 0;
}

static int check_load(void) {
  uint32_t value;
  uint32_t at;
  uint32_t before = traps_seen;
  __asm__ volatile(
      "la %[at], 1f\n"
      "1: lw %[value], 0(%[address])\n"
      "nop\n nop\n nop\n nop\n"
      : [value] "=&r"(value), [at] "=&r"(at)
      : [address] "r"(UNMAPPED_ADDRESS)
      : "memory");
  (void)value;  // whatever the bus returned with its error
  COUPLET_REQUIRE(expect_nmi("lw from unmapped", before, COUPLET_MCAUSE_INTERRUPT | COUPLET_NMI_LOAD_BUS_FAULT, at) == 0);
  return 0;
}

static int check_store(void) {
  uint32_t at;
  uint32_t before = traps_seen;
  __asm__ volatile(
      "la %[at], 1f\n"
      "1: sw %[value], 0(%[address])\n"
      "nop\n nop\n nop\n nop\n"
      : [at] "=&r"(at)
      : [address] "r"(UNMAPPED_ADDRESS), [value] "r"(UNTOUCHED)
      : "memory");
  COUPLET_REQUIRE(expect_nmi("sw to unmapped", before, COUPLET_MCAUSE_INTERRUPT | COUPLET_NMI_STORE_BUS_FAULT, at) == 0);
  return 0;
}

// Kept out of line and doing work after the call, so the call is a real jalr with ra
// pointing back here (a tail call would return to our caller instead).
static __attribute__((noinline)) uint32_t call_unmapped(void) {
  void (*function)(void) = (void (*)(void))(uintptr_t)UNMAPPED_ADDRESS;
  function();
  return NEXT_RAN;
}

static int check_fetch(void) {
  uint32_t before = traps_seen;
  uint32_t result = call_unmapped();
  // Bus fault without PMA regions, access fault with them: expect whichever was raised.
  uint32_t expected_cause =
      (seen_mcause == COUPLET_EXC_INSN_ACCESS_FAULT) ? COUPLET_EXC_INSN_ACCESS_FAULT : COUPLET_EXC_INSN_BUS_FAULT;
  COUPLET_REQUIRE(expect_trap("jump to unmapped", before, expected_cause, UNMAPPED_ADDRESS) == 0);
  COUPLET_REQUIRE(couplet_expect_u32("jump to unmapped: resumed at the return address", NEXT_RAN, result));
  return 0;
}

// An R-type instruction no unit of this SoC claims. The AES, Keccak and RTOS accelerators each
// take a whole custom opcode (configs/*.toml, never the same one), so one of the four is free of
// them; if that is custom-1, the kc.* unit may sit there, and it refuses funct3 bit 2.
#if COUPLET_AES_PRESENT && (COUPLET_AES_HAS_TIGHT || COUPLET_AES_HAS_MEM)
#define AES_OPCODE COUPLET_AES_CUSTOM_OPCODE
#else
#define AES_OPCODE 0
#endif
#if COUPLET_KECCAK_PRESENT && (COUPLET_SHA3_HAS_TIGHT || COUPLET_SHA3_HAS_MEM)
#define KECCAK_OPCODE COUPLET_KECCAK_CUSTOM_OPCODE
#else
#define KECCAK_OPCODE 0
#endif
#if COUPLET_RTOS_PRESENT && COUPLET_RTOS_HAS_TIGHT
#define RTOS_OPCODE COUPLET_RTOS_CUSTOM_OPCODE
#else
#define RTOS_OPCODE 0
#endif
#define CLAIMED(opcode) (AES_OPCODE == (opcode) || KECCAK_OPCODE == (opcode) || RTOS_OPCODE == (opcode))
#if !CLAIMED(0x7b)
#define FREE_OPCODE 0x7b
#elif !CLAIMED(0x5b)
#define FREE_OPCODE 0x5b
#elif !CLAIMED(0x2b)
#define FREE_OPCODE 0x2b
#else
#define FREE_OPCODE 0x0b
#endif
#if FREE_OPCODE == 0x2b && COUPLET_SHA3_HAS_ISE
#define FREE_FUNCT3 4
#else
#define FREE_FUNCT3 0
#endif

static int check_unclaimed_custom(void) {
  uint32_t value = UNTOUCHED;
  uint32_t at;
  uint32_t before = traps_seen;
  // The X-IF adapter (or its tie-off) refuses it, so the core treats it as illegal.
  __asm__ volatile(
      "la %[at], 1f\n"
      "1: .insn r %[opcode], %[funct3], 0, %[value], %[a], %[b]\n"
      : [value] "+r"(value), [at] "=&r"(at)
      : [a] "r"(1u), [b] "r"(2u), [opcode] "i"(FREE_OPCODE), [funct3] "i"(FREE_FUNCT3)
      : "memory");
  COUPLET_REQUIRE(expect_trap("unclaimed custom instruction", before, COUPLET_EXC_ILLEGAL_INSN, at) == 0);
  COUPLET_REQUIRE(couplet_expect_u32("unclaimed custom instruction: destination untouched", UNTOUCHED, value));
  return 0;
}

static int check_compressed_illegal(void) {
  register uint32_t next __asm__("a2") = 0u;
  uint32_t at;
  uint32_t before = traps_seen;
  // The all-zero halfword is defined to be illegal, and is a 2-byte instruction.
  __asm__ volatile(
      "la %[at], 1f\n"
      "1: c.unimp\n"
      "c.li %[next], %[next_ran]\n"
      : [next] "+r"(next), [at] "=&r"(at)
      : [next_ran] "i"(NEXT_RAN)
      : "memory");
  uint32_t next_result = next;
  COUPLET_REQUIRE(expect_trap("c.unimp", before, COUPLET_EXC_ILLEGAL_INSN, at) == 0);
  COUPLET_REQUIRE(couplet_expect_u32("c.unimp: skipped 2 bytes, next instruction ran", NEXT_RAN, next_result));
  return 0;
}

static int check_ecall(void) {
  register uint32_t argument __asm__("a0") = 41u;
  uint32_t at;
  uint32_t before = traps_seen;
  __asm__ volatile(
      "la %[at], 1f\n"
      "1: ecall\n"
      : [arg] "+r"(argument), [at] "=&r"(at)
      :
      : "memory");
  uint32_t answer = argument;
  COUPLET_REQUIRE(expect_trap("ecall", before, COUPLET_EXC_ECALL_M, at) == 0);
  COUPLET_REQUIRE(couplet_expect_u32("ecall: handler's change to a0 reached the caller", 42u, answer));
  return 0;
}

static int check_nmi_inside_handler(void) {
  uint32_t before = traps_seen;
  bool was_enabled = couplet_irq_global_disable();
  __asm__ volatile("ebreak" : : : "memory");
  bool enabled_after = (couplet_csr_read_mstatus() & COUPLET_MSTATUS_MIE) != 0u;
  couplet_irq_global_restore(was_enabled);
  COUPLET_REQUIRE(couplet_expect_u32("NMI inside the ebreak handler: one NMI", before + 1u, traps_seen));
  COUPLET_REQUIRE(couplet_expect_u32("NMI inside the ebreak handler: mcause",
                                     COUPLET_MCAUSE_INTERRUPT | COUPLET_NMI_LOAD_BUS_FAULT, seen_mcause));
  COUPLET_REQUIRE(couplet_expect_true("after both traps, interrupts are still off", !enabled_after));
  return 0;
}

int main(void) {
  printf("test_bus_error: access faults and illegal instructions\n");
  COUPLET_REQUIRE(couplet_expect_ok("register bus fault NMI handler", couplet_nmi_register(record_and_resume)));
  COUPLET_REQUIRE(couplet_expect_ok("register fetch bus fault handler",
                                    couplet_exception_register(COUPLET_EXC_INSN_BUS_FAULT, record_and_return_to_caller)));
  COUPLET_REQUIRE(couplet_expect_ok("register fetch access fault handler",
                                    couplet_exception_register(COUPLET_EXC_INSN_ACCESS_FAULT, record_and_return_to_caller)));
  COUPLET_REQUIRE(couplet_expect_ok("register illegal instruction handler",
                                    couplet_exception_register(COUPLET_EXC_ILLEGAL_INSN, record_and_skip)));
  COUPLET_REQUIRE(couplet_expect_ok("register ecall handler", couplet_exception_register(COUPLET_EXC_ECALL_M, increment_a0)));
  COUPLET_REQUIRE(couplet_expect_ok("register ebreak handler",
                                    couplet_exception_register(COUPLET_EXC_BREAKPOINT, fault_inside_handler)));
  COUPLET_REQUIRE(couplet_expect_status("register exception code 64", COUPLET_ERR_ARG,
                                        couplet_exception_register(64u, record_and_skip)));

  COUPLET_REQUIRE(check_load() == 0);
  COUPLET_REQUIRE(check_store() == 0);
  COUPLET_REQUIRE(check_fetch() == 0);
  COUPLET_REQUIRE(check_unclaimed_custom() == 0);
  COUPLET_REQUIRE(check_compressed_illegal() == 0);
  COUPLET_REQUIRE(check_ecall() == 0);
  COUPLET_REQUIRE(check_nmi_inside_handler() == 0);
  printf("test_bus_error: PASS\n");
  return 0;
}
