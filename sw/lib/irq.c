#include <couplet/irq.h>

#include <couplet/bsp.h>
#include <couplet/console.h>
#include <couplet/csr.h>
#include <couplet/sim.h>

// mie/mip have 32 bits, so 32 interrupt numbers.
#define IRQ_TABLE_SIZE 32u
// Exception codes 0..63 cover the standard ones and CV32E40X's instruction bus fault (48).
#define EXCEPTION_TABLE_SIZE 64u

// Bit mask of the interrupts this SoC configuration wires to the core. The accelerator
// range is computed in 64 bits so that a count of 16 at position 16 cannot overflow.
#define ACCEL_IRQ_MASK \
  ((uint32_t)((((UINT64_C(1) << COUPLET_IRQ_ACCEL_COUNT) - 1u) << COUPLET_IRQ_ACCEL_FIRST) & UINT32_MAX))
#define IMPLEMENTED_IRQ_MASK                                                                 \
  ((1u << COUPLET_IRQ_SOFTWARE) | (1u << COUPLET_IRQ_TIMER) | (1u << COUPLET_IRQ_EXTERNAL) | \
   ACCEL_IRQ_MASK)

static couplet_irq_handler_t irq_handlers[IRQ_TABLE_SIZE];
static couplet_exception_handler_t exception_handlers[EXCEPTION_TABLE_SIZE];
static couplet_exception_handler_t nmi_handler;

static bool irq_is_implemented(uint32_t irq) {
  return irq < IRQ_TABLE_SIZE && (IMPLEMENTED_IRQ_MASK & (1u << irq)) != 0u;
}

couplet_status_t couplet_irq_register(uint32_t irq, couplet_irq_handler_t handler) {
  if (!irq_is_implemented(irq) || handler == NULL) {
    return COUPLET_ERR_ARG;
  }
  irq_handlers[irq] = handler;
  return COUPLET_OK;
}

couplet_status_t couplet_irq_unregister(uint32_t irq) {
  if (!irq_is_implemented(irq)) {
    return COUPLET_ERR_ARG;
  }
  // Disable first, so the interrupt cannot arrive between the two steps and find no handler.
  (void)couplet_csr_clear_mie(1u << irq);
  irq_handlers[irq] = NULL;
  return COUPLET_OK;
}

couplet_status_t couplet_irq_enable(uint32_t irq) {
  if (!irq_is_implemented(irq)) {
    return COUPLET_ERR_ARG;
  }
  (void)couplet_csr_set_mie(1u << irq);
  return COUPLET_OK;
}

couplet_status_t couplet_irq_disable(uint32_t irq) {
  if (!irq_is_implemented(irq)) {
    return COUPLET_ERR_ARG;
  }
  (void)couplet_csr_clear_mie(1u << irq);
  return COUPLET_OK;
}

couplet_status_t couplet_irq_is_pending(uint32_t irq, bool *pending) {
  if (!irq_is_implemented(irq) || pending == NULL) {
    return COUPLET_ERR_ARG;
  }
  *pending = (couplet_csr_read_mip() & (1u << irq)) != 0u;
  return COUPLET_OK;
}

bool couplet_irq_global_enable(void) {
  return (couplet_csr_set_mstatus(COUPLET_MSTATUS_MIE) & COUPLET_MSTATUS_MIE) != 0u;
}

bool couplet_irq_global_disable(void) {
  return (couplet_csr_clear_mstatus(COUPLET_MSTATUS_MIE) & COUPLET_MSTATUS_MIE) != 0u;
}

void couplet_irq_global_restore(bool enabled) {
  if (enabled) {
    (void)couplet_csr_set_mstatus(COUPLET_MSTATUS_MIE);
  } else {
    (void)couplet_csr_clear_mstatus(COUPLET_MSTATUS_MIE);
  }
}

couplet_status_t couplet_exception_register(uint32_t mcause, couplet_exception_handler_t handler) {
  if (mcause >= EXCEPTION_TABLE_SIZE || handler == NULL) {
    return COUPLET_ERR_ARG;
  }
  exception_handlers[mcause] = handler;
  return COUPLET_OK;
}

couplet_status_t couplet_exception_unregister(uint32_t mcause) {
  if (mcause >= EXCEPTION_TABLE_SIZE) {
    return COUPLET_ERR_ARG;
  }
  exception_handlers[mcause] = NULL;
  return COUPLET_OK;
}

couplet_status_t couplet_nmi_register(couplet_exception_handler_t handler) {
  if (handler == NULL) {
    return COUPLET_ERR_ARG;
  }
  nmi_handler = handler;
  return COUPLET_OK;
}

void couplet_nmi_unregister(void) {
  nmi_handler = NULL;
}

// ------------------------------------------------------------------------------ dispatch

typedef enum { TRAP_INTERRUPT, TRAP_EXCEPTION, TRAP_NMI } trap_kind_t;

static trap_kind_t trap_kind(uint32_t mcause) {
  uint32_t code = mcause & COUPLET_MCAUSE_CODE_MASK;
  if ((mcause & COUPLET_MCAUSE_INTERRUPT) == 0u) {
    return TRAP_EXCEPTION;
  }
  if (code == COUPLET_NMI_LOAD_BUS_FAULT || code == COUPLET_NMI_STORE_BUS_FAULT) {
    return TRAP_NMI;
  }
  return TRAP_INTERRUPT;
}

static const char *trap_description(trap_kind_t kind, uint32_t code) {
  if (kind == TRAP_INTERRUPT) {
    return "interrupt";
  }
  if (kind == TRAP_NMI) {
    return (code == COUPLET_NMI_LOAD_BUS_FAULT) ? "NMI, load bus fault, imprecise: mepc is past the access"
                                                : "NMI, store bus fault, imprecise: mepc is past the access";
  }
  switch (code) {
    case COUPLET_EXC_INSN_MISALIGNED:
      return "instruction address misaligned";
    case COUPLET_EXC_INSN_ACCESS_FAULT:
      return "instruction access fault";
    case COUPLET_EXC_ILLEGAL_INSN:
      return "illegal instruction";
    case COUPLET_EXC_BREAKPOINT:
      return "breakpoint";
    case COUPLET_EXC_LOAD_MISALIGNED:
      return "load address misaligned";
    case COUPLET_EXC_LOAD_ACCESS_FAULT:
      return "load access fault";
    case COUPLET_EXC_STORE_MISALIGNED:
      return "store address misaligned";
    case COUPLET_EXC_STORE_ACCESS_FAULT:
      return "store access fault";
    case COUPLET_EXC_ECALL_M:
      return "environment call from M-mode";
    case COUPLET_EXC_INSN_BUS_FAULT:
      return "instruction bus fault";
    default:
      return "exception";
  }
}

static int exit_code_for(trap_kind_t kind, uint32_t code) {
  switch (kind) {
    case TRAP_INTERRUPT:
      return COUPLET_EXIT_UNHANDLED_INTERRUPT + (int)(code & 0x1fu);
    case TRAP_NMI:
      return COUPLET_EXIT_UNHANDLED_NMI + (int)(code & 0x1u);
    case TRAP_EXCEPTION:
    default:
      return COUPLET_EXIT_UNHANDLED_EXCEPTION + (int)(code & 0x3fu);
  }
}

// Prints what the trap was and where, then ends the program. Uses only the console's raw
// functions: the trap may have hit in the middle of a printf.
static _Noreturn void die(const couplet_trap_frame_t *frame, const char *why) {
  uint32_t code = frame->mcause & COUPLET_MCAUSE_CODE_MASK;
  trap_kind_t kind = trap_kind(frame->mcause);
  static const char *const kind_names[] = {"interrupt", "exception", "NMI"};
  couplet_puts("\ncouplet: ");
  couplet_puts(why);
  couplet_putc(' ');
  couplet_puts(kind_names[kind]);
  couplet_putc(' ');
  couplet_put_dec(code);
  couplet_puts(" (");
  couplet_puts(trap_description(kind, code));
  couplet_puts("): mcause=");
  couplet_put_hex(frame->mcause);
  couplet_puts(" mepc=");
  couplet_put_hex(frame->mepc);
  couplet_puts(" mtval=");
  couplet_put_hex(frame->mtval);
  couplet_puts(" ra=");
  couplet_put_hex(frame->ra);
  couplet_putc('\n');
  couplet_exit(exit_code_for(kind, code));
}

static void dispatch_interrupt(couplet_trap_frame_t *frame, uint32_t irq) {
  couplet_irq_handler_t handler = (irq < IRQ_TABLE_SIZE) ? irq_handlers[irq] : NULL;
  if (handler == NULL) {
    die(frame, "unhandled");
  }
  handler(irq);
}

// Carries out an exception or NMI handler's decision.
static void apply_action(couplet_trap_frame_t *frame, trap_kind_t kind, couplet_trap_action_t action) {
  uint32_t code = frame->mcause & COUPLET_MCAUSE_CODE_MASK;
  switch (action) {
    case COUPLET_TRAP_RESUME:
      return;
    case COUPLET_TRAP_SKIP:
      // After a failed fetch there is no instruction to read (reading it would fault again
      // inside the trap handler); after an NMI, mepc is not the faulting instruction.
      if (kind == TRAP_NMI || code == COUPLET_EXC_INSN_ACCESS_FAULT || code == COUPLET_EXC_INSN_BUS_FAULT ||
          code == COUPLET_EXC_INSN_MISALIGNED) {
        die(frame, "handler asked to skip an instruction that cannot be skipped after");
      }
      // mepc is 2-byte aligned (C extension), so a halfword load is always aligned.
      frame->mepc += couplet_instruction_length(*(const volatile uint16_t *)(uintptr_t)frame->mepc);
      return;
    case COUPLET_TRAP_FATAL:
      die(frame, "handler gave up on");
    default:
      die(frame, "handler returned an invalid action for");
  }
}

void couplet_trap_dispatch(couplet_trap_frame_t *frame) {
  uint32_t code = frame->mcause & COUPLET_MCAUSE_CODE_MASK;
  trap_kind_t kind = trap_kind(frame->mcause);
  if (kind == TRAP_INTERRUPT) {
    dispatch_interrupt(frame, code);
    return;
  }
  couplet_exception_handler_t handler = nmi_handler;
  if (kind == TRAP_EXCEPTION) {
    handler = (code < EXCEPTION_TABLE_SIZE) ? exception_handlers[code] : NULL;
  }
  if (handler == NULL) {
    die(frame, "unhandled");
  }
  apply_action(frame, kind, handler(frame));
}
