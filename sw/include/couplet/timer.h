// The CLINT: 64-bit machine timer (mtime/mtimecmp), delays, and the software interrupt.
//
// mtime counts at COUPLET_MTIME_HZ from reset. The timer interrupt (COUPLET_IRQ_TIMER) is
// pending while mtime >= mtimecmp; a handler stops it by moving mtimecmp forward or calling
// couplet_timer_disable(). The software interrupt (COUPLET_IRQ_SOFTWARE) is pending while
// msip is set; a handler stops it with couplet_software_irq_clear().

#ifndef COUPLET_TIMER_H_
#define COUPLET_TIMER_H_

#include <stdbool.h>
#include <stdint.h>

#include <couplet/soc_config.h>
#include <couplet/status.h>

// Current mtime; consistent even when the low word wraps during the read.
uint64_t couplet_timer_now(void);

// Makes the timer interrupt pending from mtime == `when` on. Written so that no
// intermediate value of mtimecmp can raise a spurious interrupt.
void couplet_timer_set_compare(uint64_t when);

// Current mtimecmp.
uint64_t couplet_timer_get_compare(void);

// Moves mtimecmp to the maximum, so the timer interrupt is no longer pending.
void couplet_timer_disable(void);

// Busy-waits at least `us` microseconds of mtime.
// COUPLET_ERR_TIMEOUT: mtime did not reach the deadline within a cycle budget several times
// the expected one (the timer is stopped or much slower than COUPLET_MTIME_HZ says).
COUPLET_MUST_CHECK couplet_status_t couplet_delay_us(uint32_t us);

// Busy-waits at least `cycles` clock cycles (mcycle). Bounded even if mcycle is inhibited:
// the loop then ends after `cycles` iterations, each longer than one cycle.
void couplet_delay_cycles(uint32_t cycles);

// Conversions between mtime ticks and time, rounding down. No intermediate result
// overflows: ticks_to_us splits whole seconds from the remainder for that.
// When the rate is a whole number of MHz (the constant test folds away), a 32x32-bit
// multiply replaces the 64-bit division, a libgcc call of several hundred cycles on rv32.
static inline uint64_t couplet_timer_us_to_ticks(uint32_t us) {
  if (COUPLET_MTIME_HZ % 1000000u == 0u) {
    return (uint64_t)us * (COUPLET_MTIME_HZ / 1000000u);
  }
  return (uint64_t)us * COUPLET_MTIME_HZ / 1000000u;
}
static inline uint64_t couplet_timer_ms_to_ticks(uint32_t ms) {
  if (COUPLET_MTIME_HZ % 1000u == 0u) {
    return (uint64_t)ms * (COUPLET_MTIME_HZ / 1000u);
  }
  return (uint64_t)ms * COUPLET_MTIME_HZ / 1000u;
}
static inline uint64_t couplet_timer_ticks_to_us(uint64_t ticks) {
  return ticks / COUPLET_MTIME_HZ * 1000000u + ticks % COUPLET_MTIME_HZ * 1000000u / COUPLET_MTIME_HZ;
}

// Sets / clears msip: the machine software interrupt becomes pending / not pending.
void couplet_software_irq_raise(void);
void couplet_software_irq_clear(void);
bool couplet_software_irq_is_raised(void);

#endif  // COUPLET_TIMER_H_
