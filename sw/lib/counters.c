#include <couplet/counters.h>

#include <couplet/csr.h>

// The two halves of a 64-bit counter cannot be read at once. Reading high, low, high: if
// the high word did not change, the pair is consistent. If it changed, the low word wrapped
// during the read, and {high_after, 0} is exactly the count at that wrap, a moment inside
// the read. Either way the result is a true value of the counter, with no retry loop.
static uint64_t combine(uint32_t high_before, uint32_t low, uint32_t high_after) {
  uint32_t low_part = (high_before == high_after) ? low : 0u;
  return ((uint64_t)high_after << 32) | low_part;
}

uint64_t couplet_cycles(void) {
  uint32_t high_before = couplet_csr_read_mcycleh();
  uint32_t low = couplet_csr_read_mcycle();
  uint32_t high_after = couplet_csr_read_mcycleh();
  return combine(high_before, low, high_after);
}

uint64_t couplet_instret(void) {
  uint32_t high_before = couplet_csr_read_minstreth();
  uint32_t low = couplet_csr_read_minstret();
  uint32_t high_after = couplet_csr_read_minstreth();
  return combine(high_before, low, high_after);
}
