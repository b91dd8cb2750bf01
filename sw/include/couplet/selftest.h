// Helpers for self-checking firmware tests: each check prints one line saying what it
// checked, and on a mismatch the expected and actual values.
//
//   if (!couplet_expect_u32("divu 7/2", 3, got)) return 1;
//   COUPLET_REQUIRE(couplet_expect_u32("divu 7/2", 3, got));
//
// Lines look like "  ok   divu 7/2 = 0x00000003" and
// "  FAIL divu 7/2: expected 0x00000003, got 0x00000004". They use the raw console, so
// they also work inside trap handlers.

#ifndef COUPLET_SELFTEST_H_
#define COUPLET_SELFTEST_H_

#include <stdbool.h>
#include <stdint.h>

#include <couplet/status.h>

// Each returns whether the check passed.
bool couplet_expect_u32(const char *what, uint32_t expected, uint32_t got);
bool couplet_expect_u64(const char *what, uint64_t expected, uint64_t got);
// low <= got <= high.
bool couplet_expect_range_u64(const char *what, uint64_t low, uint64_t high, uint64_t got);
bool couplet_expect_true(const char *what, bool condition);
bool couplet_expect_ok(const char *what, couplet_status_t status);
bool couplet_expect_status(const char *what, couplet_status_t expected, couplet_status_t got);

// In a function returning int (such as main): return 1 when `check` fails, so the test
// stops at the first failure with a nonzero exit code.
#define COUPLET_REQUIRE(check) \
  do {                         \
    if (!(check)) {            \
      return 1;                \
    }                          \
  } while (0)

#endif  // COUPLET_SELFTEST_H_
