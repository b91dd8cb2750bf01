// What the benchmark firmware (bench_aes, bench_sha3) shares: counter samples around a timed
// sequence of calls, and the result lines that couplet/bench_*.py parse:
//
//   result <suite>/<backend>/<measure> cycles=<N> instret=<M> check=<0xHEX>
//
// check is FNV-1a of the output, so the host can confirm that every backend computed the
// right result.

#ifndef COUPLET_BENCH_H_
#define COUPLET_BENCH_H_

#include <stddef.h>
#include <stdint.h>

#include <couplet/csr.h>
#include <couplet/status.h>

// The low words of mcycle and minstret: a timed sequence is far shorter than 2^32 cycles, so the
// difference of two low words (mod 2^32) is exact.
typedef struct {
  uint32_t cycles, instret;
} couplet_bench_sample_t;

// The cycle count is read last at the start and first at the end, each a single csrr in line,
// so that a figure holds the timed calls and nothing of the measurement but that one
// instruction (the instret reads sit outside the cycle window).
static inline couplet_bench_sample_t couplet_bench_start(void) {
  couplet_bench_sample_t s;
  s.instret = couplet_csr_read_minstret();
  s.cycles = couplet_csr_read_mcycle();
  return s;
}

static inline couplet_bench_sample_t couplet_bench_end(void) {
  couplet_bench_sample_t s;
  s.cycles = couplet_csr_read_mcycle();
  s.instret = couplet_csr_read_minstret();
  return s;
}

// FNV-1a of the n bytes at p.
uint32_t couplet_bench_fnv1a(const uint8_t *p, size_t n);

// Prints the result line of one run that started at `start` and ended at `end`.
void couplet_bench_report(const char *suite, const char *backend, const char *measure,
                          couplet_bench_sample_t start, couplet_bench_sample_t end, uint32_t check);

// Prints "<app>: FAIL <backend> <what>: <status name>" and returns 1, main's exit code.
int couplet_bench_failed(const char *app, const char *backend, const char *what,
                         couplet_status_t status);

#endif  // COUPLET_BENCH_H_
