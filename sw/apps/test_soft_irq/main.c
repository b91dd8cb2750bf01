// test_soft_irq: the machine software interrupt (CLINT msip).
//
// Checks: a raised msip is taken exactly once when MSIE and MIE are on, and the handler
// sees msip set and clears it; with MSIE off, or MIE off, nothing is taken while the
// interrupt stays pending; registration rejects bad arguments.
// Prints one line per check; exits 0 when all pass, 1 at the first failure.

#include <stdint.h>
#include <stdio.h>

#include <couplet/csr.h>
#include <couplet/irq.h>
#include <couplet/selftest.h>
#include <couplet/timer.h>

// Long enough for a pending interrupt to be taken many times over.
#define SETTLE_CYCLES 2000u

static volatile uint32_t interrupts_taken;
static volatile bool raised_in_handler;
static volatile bool cleared_in_handler;

static void on_software_irq(uint32_t irq) {
  (void)irq;
  raised_in_handler = couplet_software_irq_is_raised();
  couplet_software_irq_clear();
  cleared_in_handler = !couplet_software_irq_is_raised();
  interrupts_taken = interrupts_taken + 1u;
}

static bool is_pending(void) {
  bool pending = false;
  if (couplet_irq_is_pending(COUPLET_IRQ_SOFTWARE, &pending) != COUPLET_OK) {
    return false;
  }
  return pending;
}

static int check_arguments(void) {
  COUPLET_REQUIRE(couplet_expect_status("register NULL handler", COUPLET_ERR_ARG,
                                        couplet_irq_register(COUPLET_IRQ_SOFTWARE, NULL)));
  COUPLET_REQUIRE(couplet_expect_status("register irq 5 (not wired)", COUPLET_ERR_ARG,
                                        couplet_irq_register(5u, on_software_irq)));
  COUPLET_REQUIRE(couplet_expect_status("register irq 32", COUPLET_ERR_ARG, couplet_irq_register(32u, on_software_irq)));
  COUPLET_REQUIRE(couplet_expect_status("enable irq 4", COUPLET_ERR_ARG, couplet_irq_enable(4u)));
  COUPLET_REQUIRE(couplet_expect_status("exception code 64", COUPLET_ERR_ARG, couplet_exception_unregister(64u)));
  return 0;
}

static int check_taken_once(void) {
  interrupts_taken = 0u;
  COUPLET_REQUIRE(couplet_expect_ok("enable software interrupt", couplet_irq_enable(COUPLET_IRQ_SOFTWARE)));
  bool was_enabled = couplet_irq_global_enable();
  COUPLET_REQUIRE(couplet_expect_true("global enable reports it was off", !was_enabled));
  couplet_software_irq_raise();
  couplet_delay_cycles(SETTLE_CYCLES);
  bool still_enabled = couplet_irq_global_disable();
  COUPLET_REQUIRE(couplet_expect_true("global disable reports it was on", still_enabled));
  COUPLET_REQUIRE(couplet_expect_u32("interrupts taken", 1u, interrupts_taken));
  COUPLET_REQUIRE(couplet_expect_true("handler saw msip set", raised_in_handler));
  COUPLET_REQUIRE(couplet_expect_true("handler cleared msip", cleared_in_handler));
  COUPLET_REQUIRE(couplet_expect_true("msip clear after the handler", !couplet_software_irq_is_raised()));
  return 0;
}

static int check_masked_by_msie(void) {
  interrupts_taken = 0u;
  COUPLET_REQUIRE(couplet_expect_ok("disable software interrupt (MSIE off)", couplet_irq_disable(COUPLET_IRQ_SOFTWARE)));
  bool was_enabled = couplet_irq_global_enable();
  couplet_software_irq_raise();
  couplet_delay_cycles(SETTLE_CYCLES);
  couplet_irq_global_restore(was_enabled);
  COUPLET_REQUIRE(couplet_expect_u32("MSIE off: interrupts taken", 0u, interrupts_taken));
  COUPLET_REQUIRE(couplet_expect_true("MSIE off: mip.MSIP pending", is_pending()));
  couplet_software_irq_clear();
  couplet_delay_cycles(10u);  // mip follows msip through the CLINT's output register
  COUPLET_REQUIRE(couplet_expect_true("mip.MSIP clear after clearing msip", !is_pending()));
  return 0;
}

static int check_masked_by_mie(void) {
  interrupts_taken = 0u;
  COUPLET_REQUIRE(couplet_expect_ok("enable software interrupt (MIE off)", couplet_irq_enable(COUPLET_IRQ_SOFTWARE)));
  couplet_software_irq_raise();
  couplet_delay_cycles(SETTLE_CYCLES);
  COUPLET_REQUIRE(couplet_expect_u32("MIE off: interrupts taken", 0u, interrupts_taken));
  // Turning MIE on takes the interrupt that waited.
  bool was_enabled = couplet_irq_global_enable();
  couplet_delay_cycles(SETTLE_CYCLES);
  couplet_irq_global_restore(was_enabled);
  COUPLET_REQUIRE(couplet_expect_u32("MIE on: the waiting interrupt taken once", 1u, interrupts_taken));
  COUPLET_REQUIRE(couplet_expect_ok("unregister software interrupt", couplet_irq_unregister(COUPLET_IRQ_SOFTWARE)));
  COUPLET_REQUIRE(couplet_expect_u32("unregister cleared MSIE", 0u, couplet_csr_read_mie() & (1u << COUPLET_IRQ_SOFTWARE)));
  return 0;
}

int main(void) {
  printf("test_soft_irq: software interrupt\n");
  COUPLET_REQUIRE(check_arguments() == 0);
  COUPLET_REQUIRE(couplet_expect_ok("register software handler", couplet_irq_register(COUPLET_IRQ_SOFTWARE, on_software_irq)));
  COUPLET_REQUIRE(check_taken_once() == 0);
  COUPLET_REQUIRE(check_masked_by_msie() == 0);
  COUPLET_REQUIRE(check_masked_by_mie() == 0);
  printf("test_soft_irq: PASS\n");
  return 0;
}
