// Waiting for an accelerator's interrupt line with a bound, without taking the interrupt.
//
// A driver claims the line (global interrupts off, the line enabled in mie), starts the work,
// polls mip until the line is pending, removes the cause, and releases the line. It polls mip
// rather than sleeping in wfi: CV32E40X gates its clock in wfi, which stops mcycle, so every
// cycle count taken around a sleeping call would be too small. Under an RTOS this is where the
// task would block. The line is the SoC's (soc_config.h), so nothing is checked at run time:
// plain inline CSR accesses, unlike couplet_irq_enable().

#ifndef COUPLET_IRQ_WAIT_H_
#define COUPLET_IRQ_WAIT_H_

#include <stdint.h>

#include <couplet/csr.h>
#include <couplet/status.h>

// Polls of mip before a wait gives up with COUPLET_ERR_TIMEOUT.
#define COUPLET_IRQ_WAIT_LIMIT 1000000u

// Global interrupts off, line `irq` enabled. Returns the mstatus to hand back on release.
static inline uint32_t couplet_irq_wait_claim(uint32_t irq) {
  uint32_t mstatus = couplet_csr_clear_mstatus(COUPLET_MSTATUS_MIE);
  (void)couplet_csr_set_mie(1u << irq);
  return mstatus;
}

// Waits (bounded) until line `irq` is pending; the caller then removes the cause.
static inline couplet_status_t couplet_irq_wait(uint32_t irq) {
  for (uint32_t i = 0; i < COUPLET_IRQ_WAIT_LIMIT; i++) {
    uint32_t mip;
    __asm__ volatile("csrr %0, mip" : "=r"(mip));
    if (mip & (1u << irq)) {
      return COUPLET_OK;
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

// Line `irq` disabled again, and global interrupts as they were before the claim.
static inline void couplet_irq_wait_release(uint32_t irq, uint32_t mstatus) {
  (void)couplet_csr_clear_mie(1u << irq);
  if (mstatus & COUPLET_MSTATUS_MIE) {
    (void)couplet_csr_set_mstatus(COUPLET_MSTATUS_MIE);
  }
}

#endif  // COUPLET_IRQ_WAIT_H_
