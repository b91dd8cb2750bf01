// Interrupts and exceptions: handler registration, enables and the trap frame.
//
// Every trap enters sw/bsp/trap_entry.S, which saves the caller-saved registers in a
// couplet_trap_frame_t on the current stack and calls the C dispatcher. The dispatcher runs
// the handler registered for the interrupt, exception or NMI. A trap nobody registered for
// prints mcause/mepc/mtval on the console and ends the program with an exit code from
// sim.h (128 + exception code, 192 + interrupt number, 224 + NMI kind), so a firmware bug
// never hangs the simulation.
//
// Three kinds of trap, told apart by mcause:
// - interrupts (bit 31 set, code < 32): the handler gets the interrupt number;
// - exceptions (bit 31 clear): precise, mepc is the instruction that trapped;
// - NMIs (bit 31 set, code COUPLET_NMI_LOAD_BUS_FAULT / _STORE_BUS_FAULT): CV32E40X's way of
//   reporting a bus error on a load or store. Imprecise: mepc is past the access, which
//   has already retired. A load from an unmapped address ends up here, not in exception 5.
//
// Handlers run with interrupts globally disabled (no nesting) on the interrupted code's stack.
// An interrupt handler must remove the cause of its interrupt (clear msip, move mtimecmp...)
// before returning, or the same interrupt is taken again at once.

#ifndef COUPLET_IRQ_H_
#define COUPLET_IRQ_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/soc_config.h>
#include <couplet/status.h>
#include <couplet/trap_frame.h>

// The interrupted context as trap_entry.S saved it. Exception and NMI handlers may change
// any field except mcause and mtval; the entry code restores the registers, mepc and
// mstatus from it before mret.
typedef struct {
  uint32_t ra;
  uint32_t t0, t1, t2;
  uint32_t a0, a1, a2, a3, a4, a5, a6, a7;
  uint32_t t3, t4, t5, t6;
  uint32_t mepc;    // where the trapped code resumes
  uint32_t mcause;  // as read at entry: bit 31 set for interrupts
  uint32_t mtval;   // as read at entry: CV32E40X leaves it 0
  // As read at entry. Restoring it keeps MPIE right when a trap lands inside a handler (an
  // NMI can), so the interrupted code gets back the interrupt enable it had.
  uint32_t mstatus;
} couplet_trap_frame_t;

_Static_assert(offsetof(couplet_trap_frame_t, ra) == COUPLET_TRAP_FRAME_RA, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, a0) == COUPLET_TRAP_FRAME_A0, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, t3) == COUPLET_TRAP_FRAME_T3, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, t6) == COUPLET_TRAP_FRAME_T6, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, mepc) == COUPLET_TRAP_FRAME_MEPC, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, mcause) == COUPLET_TRAP_FRAME_MCAUSE, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, mtval) == COUPLET_TRAP_FRAME_MTVAL, "frame layout");
_Static_assert(offsetof(couplet_trap_frame_t, mstatus) == COUPLET_TRAP_FRAME_MSTATUS, "frame layout");
_Static_assert(sizeof(couplet_trap_frame_t) == COUPLET_TRAP_FRAME_SIZE, "frame layout");

// Runs for interrupt `irq` (its mie/mip bit and mcause code).
typedef void (*couplet_irq_handler_t)(uint32_t irq);

// What the dispatcher does after an exception or NMI handler returns.
typedef enum {
  COUPLET_TRAP_RESUME = 0,  // return to frame->mepc (the handler may have changed it)
  COUPLET_TRAP_SKIP = 1,    // return to the instruction after the one at frame->mepc;
                            // exceptions only, and not after a failed fetch
  COUPLET_TRAP_FATAL = 2,   // the handler gives up: report the trap and exit
} couplet_trap_action_t;

typedef couplet_trap_action_t (*couplet_exception_handler_t)(couplet_trap_frame_t *frame);

// Interrupt numbers are mie/mip bit positions: COUPLET_IRQ_SOFTWARE, COUPLET_IRQ_TIMER,
// COUPLET_IRQ_EXTERNAL and COUPLET_IRQ_ACCEL_FIRST.. from soc_config.h. Exception codes
// are COUPLET_EXC_* in csr.h.

// Installs `handler` for interrupt `irq`; replaces any earlier one. Does not enable it.
// COUPLET_ERR_ARG: handler is NULL or irq is not an interrupt this SoC has.
COUPLET_MUST_CHECK couplet_status_t couplet_irq_register(uint32_t irq, couplet_irq_handler_t handler);

// Disables interrupt `irq` and forgets its handler.
COUPLET_MUST_CHECK couplet_status_t couplet_irq_unregister(uint32_t irq);

// Sets / clears the irq's bit in mie. Interrupts are taken only while the global enable is
// also on. Enabling an interrupt without a handler is allowed (for polling mip with wfi);
// if it is then taken, it is reported as unhandled.
COUPLET_MUST_CHECK couplet_status_t couplet_irq_enable(uint32_t irq);
COUPLET_MUST_CHECK couplet_status_t couplet_irq_disable(uint32_t irq);

// Whether interrupt `irq` is pending in mip (whatever its enable).
COUPLET_MUST_CHECK couplet_status_t couplet_irq_is_pending(uint32_t irq, bool *pending);

// Global machine interrupt enable (mstatus.MIE). Both return whether it was on before, so a
// critical section is: bool was = couplet_irq_global_disable(); ...; couplet_irq_global_restore(was);
bool couplet_irq_global_enable(void);
bool couplet_irq_global_disable(void);
void couplet_irq_global_restore(bool enabled);

// Installs `handler` for exception code `mcause` (0..63, bit 31 clear); replaces any
// earlier one. COUPLET_ERR_ARG: handler is NULL or mcause out of range.
COUPLET_MUST_CHECK couplet_status_t couplet_exception_register(uint32_t mcause,
                                                               couplet_exception_handler_t handler);
COUPLET_MUST_CHECK couplet_status_t couplet_exception_unregister(uint32_t mcause);

// Installs `handler` for both bus-fault NMIs (frame->mcause says which); replaces any
// earlier one. It may return COUPLET_TRAP_RESUME (carry on at mepc, after the faulting
// access) or COUPLET_TRAP_FATAL; COUPLET_TRAP_SKIP is refused as there is no instruction at
// mepc to skip. COUPLET_ERR_ARG: handler is NULL.
COUPLET_MUST_CHECK couplet_status_t couplet_nmi_register(couplet_exception_handler_t handler);
void couplet_nmi_unregister(void);

// Length in bytes (2 or 4) of the instruction whose first 16-bit parcel is `low_halfword`:
// compressed instructions have low bits != 0b11. This core has no longer encodings.
static inline uint32_t couplet_instruction_length(uint32_t low_halfword) {
  return ((low_halfword & 0x3u) == 0x3u) ? 4u : 2u;
}

#endif  // COUPLET_IRQ_H_
