#include <couplet/timer.h>

#include <couplet/autogen/clint_regs.h>
#include <couplet/csr.h>
#include <couplet/mmio.h>

#define CLINT_REG(offset) ((uintptr_t)COUPLET_CLINT_BASE + (offset))

uint64_t couplet_timer_now(void) {
  // Same reasoning as couplet_cycles(): if the high word moved during the read, {high, 0}
  // is the value mtime had when its low word wrapped, inside the read window.
  uint32_t high_before = couplet_mmio_read32(CLINT_REG(CLINT_MTIME_HI_OFFSET));
  uint32_t low = couplet_mmio_read32(CLINT_REG(CLINT_MTIME_LO_OFFSET));
  uint32_t high_after = couplet_mmio_read32(CLINT_REG(CLINT_MTIME_HI_OFFSET));
  uint32_t low_part = (high_before == high_after) ? low : 0u;
  return ((uint64_t)high_after << 32) | low_part;
}

void couplet_timer_set_compare(uint64_t when) {
  // Raising the high word first keeps every intermediate mtimecmp in the future: writing
  // the low word first could briefly pair the new low with an old, smaller high word.
  couplet_mmio_write32(CLINT_REG(CLINT_MTIMECMP_HI_OFFSET), UINT32_MAX);
  couplet_mmio_write32(CLINT_REG(CLINT_MTIMECMP_LO_OFFSET), (uint32_t)when);
  couplet_mmio_write32(CLINT_REG(CLINT_MTIMECMP_HI_OFFSET), (uint32_t)(when >> 32));
}

uint64_t couplet_timer_get_compare(void) {
  // Only software changes mtimecmp, so the two halves cannot move between the reads.
  uint32_t low = couplet_mmio_read32(CLINT_REG(CLINT_MTIMECMP_LO_OFFSET));
  uint32_t high = couplet_mmio_read32(CLINT_REG(CLINT_MTIMECMP_HI_OFFSET));
  return ((uint64_t)high << 32) | low;
}

void couplet_timer_disable(void) {
  couplet_timer_set_compare(UINT64_MAX);
}

// Clock cycles per mtime tick, at least 1; the delay budget below is counted in loop
// iterations, each of which takes more than one cycle.
#define CYCLES_PER_TICK ((COUPLET_CLOCK_HZ + COUPLET_MTIME_HZ - 1u) / COUPLET_MTIME_HZ)
// How many times the expected time a delay may take before the timer is declared broken.
#define DELAY_BUDGET_FACTOR 4u

couplet_status_t couplet_delay_us(uint32_t us) {
  uint64_t ticks = couplet_timer_us_to_ticks(us);
  uint64_t deadline = couplet_timer_now() + ticks;
  // Each iteration reads mtime over the bus (several cycles), so this many iterations take
  // well over DELAY_BUDGET_FACTOR times the requested delay in clock cycles.
  uint64_t budget = (ticks + 1u) * CYCLES_PER_TICK * DELAY_BUDGET_FACTOR;
  for (uint64_t i = 0; i < budget; ++i) {
    if (couplet_timer_now() >= deadline) {
      return COUPLET_OK;
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

void couplet_delay_cycles(uint32_t cycles) {
  uint32_t start = couplet_csr_read_mcycle();
  // Unsigned difference handles the wrap of the low word; one iteration takes more than
  // one cycle, so the iteration bound never ends a working delay early.
  for (uint32_t i = 0; i < cycles; ++i) {
    if (couplet_csr_read_mcycle() - start >= cycles) {
      return;
    }
  }
}

void couplet_software_irq_raise(void) {
  couplet_mmio_write32(CLINT_REG(CLINT_MSIP_OFFSET), 1u);
}

void couplet_software_irq_clear(void) {
  couplet_mmio_write32(CLINT_REG(CLINT_MSIP_OFFSET), 0u);
}

bool couplet_software_irq_is_raised(void) {
  return (couplet_mmio_read32(CLINT_REG(CLINT_MSIP_OFFSET)) & 1u) != 0u;
}
