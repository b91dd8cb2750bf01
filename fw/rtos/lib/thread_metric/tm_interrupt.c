// Installs the Thread-Metric suite's vectored trap table (tm_interrupt.S); see tm_interrupt.h.

#include "tm_interrupt.h"

#include <stdint.h>

#include <couplet/csr.h>
#include <couplet/soc_config.h>
#include <couplet/timer.h>

// mtvec.MODE = 1: interrupts enter at base + 4 * cause.
#define MTVEC_VECTORED 1u

extern char tm_trap_table[];

void tm_install_interrupt_vector(void) {
  couplet_software_irq_clear();
  couplet_csr_write_mtvec((uint32_t)(uintptr_t)tm_trap_table | MTVEC_VECTORED);
  // The port's xPortStartScheduler() only sets bits (MTIE, MEIE) in mie: MSIE stays on.
  couplet_csr_set_mie(1u << COUPLET_IRQ_SOFTWARE);
}
