// test_counters: mcycle and minstret count, and mcountinhibit stops them.
//
// The instruction-count checks run a loop of known length in inline assembly and read the
// counters with csrr right around it, so only the loop (plus a couple of instructions at
// its edges) lies between the two reads.
// Prints one line per check; exits 0 when all pass, 1 at the first failure.

#include <stdint.h>
#include <stdio.h>

#include <couplet/counters.h>
#include <couplet/csr.h>
#include <couplet/selftest.h>

// Loop iterations; each is two instructions (addi, bnez), plus one li before the loop.
#define LOOP_ITERATIONS 1000u
#define LOOP_INSTRUCTIONS (2u * LOOP_ITERATIONS + 1u)
// Slack for where each csrr falls relative to the retirement of its neighbours.
#define EDGE_SLACK 3u

typedef struct {
  uint32_t cycles;
  uint32_t instret;
} deltas_t;

// Runs the known loop between two reads of each counter (low words: the loop is far
// shorter than 2^32 cycles, and unsigned subtraction absorbs a wrap).
static deltas_t run_known_loop(void) {
  uint32_t cycle_start, cycle_end, instret_start, instret_end, counter;
  __asm__ volatile(
      "csrr %[c0], mcycle\n"
      "csrr %[i0], minstret\n"
      "li   %[n], %[iterations]\n"
      "1:\n"
      "addi %[n], %[n], -1\n"
      "bnez %[n], 1b\n"
      "csrr %[i1], minstret\n"
      "csrr %[c1], mcycle\n"
      : [c0] "=&r"(cycle_start), [c1] "=&r"(cycle_end), [i0] "=&r"(instret_start),
        [i1] "=&r"(instret_end), [n] "=&r"(counter)
      : [iterations] "i"(LOOP_ITERATIONS));
  deltas_t d = {cycle_end - cycle_start, instret_end - instret_start};
  return d;
}

static int check_counting(void) {
  uint64_t cycles_before = couplet_cycles();
  uint64_t instret_before = couplet_instret();
  uint64_t cycles_after = couplet_cycles();
  uint64_t instret_after = couplet_instret();
  COUPLET_REQUIRE(couplet_expect_true("mcycle advances", cycles_after > cycles_before));
  COUPLET_REQUIRE(couplet_expect_true("minstret advances", instret_after > instret_before));

  deltas_t d = run_known_loop();
  COUPLET_REQUIRE(couplet_expect_range_u64("minstret across a 2001-instruction loop", LOOP_INSTRUCTIONS,
                                           LOOP_INSTRUCTIONS + EDGE_SLACK, d.instret));
  // One instruction retires per cycle at most on this single-issue core.
  COUPLET_REQUIRE(couplet_expect_range_u64("mcycle across the same loop (>= minstret)", d.instret,
                                           UINT32_MAX, d.cycles));
  printf("  loop: %lu instructions in %lu cycles\n", (unsigned long)d.instret, (unsigned long)d.cycles);
  return 0;
}

static int check_inhibit(void) {
  couplet_csr_set_mcountinhibit(COUPLET_MCOUNTINHIBIT_IR);
  deltas_t stopped = run_known_loop();
  couplet_csr_clear_mcountinhibit(COUPLET_MCOUNTINHIBIT_IR);
  COUPLET_REQUIRE(couplet_expect_range_u64("minstret with mcountinhibit.IR set", 0u, EDGE_SLACK, stopped.instret));
  COUPLET_REQUIRE(couplet_expect_true("mcycle still counts with only IR inhibited", stopped.cycles >= LOOP_INSTRUCTIONS));

  couplet_csr_set_mcountinhibit(COUPLET_MCOUNTINHIBIT_CY);
  stopped = run_known_loop();
  couplet_csr_clear_mcountinhibit(COUPLET_MCOUNTINHIBIT_CY);
  COUPLET_REQUIRE(couplet_expect_range_u64("mcycle with mcountinhibit.CY set", 0u, EDGE_SLACK, stopped.cycles));

  deltas_t resumed = run_known_loop();
  COUPLET_REQUIRE(couplet_expect_range_u64("minstret counts again after clearing", LOOP_INSTRUCTIONS,
                                           LOOP_INSTRUCTIONS + EDGE_SLACK, resumed.instret));
  COUPLET_REQUIRE(couplet_expect_true("mcycle counts again after clearing", resumed.cycles >= LOOP_INSTRUCTIONS));
  return 0;
}

int main(void) {
  printf("test_counters: mcycle, minstret, mcountinhibit\n");
  COUPLET_REQUIRE(couplet_expect_u32("crt0 cleared mcountinhibit", 0u, couplet_csr_read_mcountinhibit()));
  COUPLET_REQUIRE(check_counting() == 0);
  COUPLET_REQUIRE(check_inhibit() == 0);
  printf("test_counters: PASS\n");
  return 0;
}
