#include <couplet/check.h>

#include <stdio.h>

static uint32_t failures;
static uint32_t rng_state = COUPLET_CHECK_SEED;

void couplet_check_fail(const char *backend, const char *what, const char *detail) {
  failures++;
  printf("  FAIL %s: %s (%s)\n", backend, what, detail);
}

bool couplet_check_status(const char *backend, const char *what, couplet_status_t expected,
                          couplet_status_t got) {
  if (expected == got) {
    return true;
  }
  char detail[80];
  snprintf(detail, sizeof detail, "expected %s, got %s", couplet_status_name(expected),
           couplet_status_name(got));
  couplet_check_fail(backend, what, detail);
  return false;
}

uint32_t couplet_check_failures(void) {
  return failures;
}

void couplet_check_seed(uint32_t seed) {
  rng_state = seed;
}

uint32_t couplet_check_rand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

void couplet_check_fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    p[i] = (uint8_t)couplet_check_rand();
  }
}
