// Checks for firmware tests that run many cases per backend (test_aes, test_sha3): only a
// failure prints a line, "  FAIL <backend>: <what> (<detail>)", and every failure is counted,
// so a test runs all its cases and then reports per backend. The random inputs come from a
// fixed xorshift32 sequence, so a failure reproduces exactly.
//
//   if (!couplet_check_status(name, "set_key", COUPLET_OK, couplet_aes_set_key(...))) continue;
//   ...
//   return couplet_check_failures() == 0u ? 0 : 1;
//
// (couplet/selftest.h is for short tests that print a line for every check.)

#ifndef COUPLET_CHECK_H_
#define COUPLET_CHECK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/status.h>

// Prints the failure line and counts it.
void couplet_check_fail(const char *backend, const char *what, const char *detail);
// Whether got == expected; if not, a failure "expected <status>, got <status>".
bool couplet_check_status(const char *backend, const char *what, couplet_status_t expected,
                          couplet_status_t got);
// Failures so far.
uint32_t couplet_check_failures(void);

// Restarts the random sequence from `seed` (nonzero). Before the first call the seed is
// COUPLET_CHECK_SEED.
#define COUPLET_CHECK_SEED 0x2545F491u
void couplet_check_seed(uint32_t seed);
// The next number of the sequence.
uint32_t couplet_check_rand(void);
// n bytes of the sequence (one number each) into p.
void couplet_check_fill(uint8_t *p, size_t n);

#endif  // COUPLET_CHECK_H_
