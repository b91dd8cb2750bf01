// test_timer_irq: the machine timer interrupt arrives when mtime reaches mtimecmp.
//
// For several delays D: program mtimecmp = now + D, enable the timer interrupt, and poll
// (bounded) until the handler has run. The handler records mtime on entry and moves
// mtimecmp to the maximum. Checks: exactly one interrupt, not before the programmed time,
// and at most MAX_LATENCY_TICKS after it. Also checks that couplet_delay_us waits long
// enough.
// Prints one line per check; exits 0 when all pass, 1 at the first failure.

#include <stdint.h>
#include <stdio.h>

#include <couplet/csr.h>
#include <couplet/irq.h>
#include <couplet/selftest.h>
#include <couplet/timer.h>

// Entry latency budget: pipeline flush, trap_entry.S saving 19 words, the dispatcher and
// the handler's own mtime read take on the order of 100 cycles at mtime = clock rate.
#define MAX_LATENCY_TICKS 200u
// How long to poll past the programmed time before declaring the interrupt lost.
#define GIVE_UP_TICKS 100000u

static volatile uint32_t interrupts_taken;
static volatile uint64_t mtime_at_entry;

static void on_timer(uint32_t irq) {
  (void)irq;
  mtime_at_entry = couplet_timer_now();
  couplet_timer_disable();
  interrupts_taken = interrupts_taken + 1u;
}

static int check_one_delay(uint32_t delay_ticks) {
  char what[64];
  interrupts_taken = 0u;
  uint64_t target = couplet_timer_now() + delay_ticks;
  couplet_timer_set_compare(target);
  bool was_enabled = couplet_irq_global_enable();
  uint64_t give_up = target + GIVE_UP_TICKS;
  while (interrupts_taken == 0u && couplet_timer_now() < give_up) {
  }
  couplet_irq_global_restore(was_enabled);

  snprintf(what, sizeof what, "D=%lu: one interrupt taken", (unsigned long)delay_ticks);
  COUPLET_REQUIRE(couplet_expect_u32(what, 1u, interrupts_taken));
  snprintf(what, sizeof what, "D=%lu: ticks from mtimecmp to handler", (unsigned long)delay_ticks);
  // A handler that ran early would see mtime < target: the subtraction wraps to a huge value.
  COUPLET_REQUIRE(couplet_expect_range_u64(what, 0u, MAX_LATENCY_TICKS, mtime_at_entry - target));
  snprintf(what, sizeof what, "D=%lu: handler moved mtimecmp to the maximum", (unsigned long)delay_ticks);
  COUPLET_REQUIRE(couplet_expect_u64(what, UINT64_MAX, couplet_timer_get_compare()));
  return 0;
}

static int check_delay_us(void) {
  const uint32_t us = 50u;
  uint64_t start = couplet_timer_now();
  couplet_status_t status = couplet_delay_us(us);
  uint64_t waited = couplet_timer_now() - start;
  COUPLET_REQUIRE(couplet_expect_ok("couplet_delay_us(50)", status));
  uint64_t wanted = couplet_timer_us_to_ticks(us);
  COUPLET_REQUIRE(couplet_expect_range_u64("ticks waited by couplet_delay_us(50)", wanted, wanted + MAX_LATENCY_TICKS, waited));
  return 0;
}

int main(void) {
  static const uint32_t delays[] = {2000u, 300u, 5000u, 1000u};
  printf("test_timer_irq: timer interrupt timing\n");
  COUPLET_REQUIRE(couplet_expect_u64("mtimecmp is at the maximum after start-up", UINT64_MAX, couplet_timer_get_compare()));
  COUPLET_REQUIRE(couplet_expect_ok("register timer handler", couplet_irq_register(COUPLET_IRQ_TIMER, on_timer)));
  COUPLET_REQUIRE(couplet_expect_ok("enable timer interrupt", couplet_irq_enable(COUPLET_IRQ_TIMER)));
  for (size_t i = 0; i < sizeof delays / sizeof delays[0]; ++i) {
    COUPLET_REQUIRE(check_one_delay(delays[i]) == 0);
  }
  COUPLET_REQUIRE(couplet_expect_ok("disable timer interrupt", couplet_irq_disable(COUPLET_IRQ_TIMER)));
  COUPLET_REQUIRE(check_delay_us() == 0);
  printf("test_timer_irq: PASS\n");
  return 0;
}
