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

// A timed window starts by reading minstret, storing the start sample and then zeroing mcycle,
// and ends by reading mcycle and then minstret, each a single instruction in line, so that the
// cycle count holds the timed calls and nothing of the measurement:
//   - the start sample is stored before the window opens (*start; the zeroing is a compiler
//     barrier): a sample returned by value was stored to the stack by GCC inside the window, two
//     stores in every window of a function with many live values;
//   - the start's cycle count is the constant 0, and on CV32E40X a window of N one-cycle
//     instructions then reads N (an empty one 1), where a window between two mcycle reads
//     reads N + 2.
// mcycle belongs to the benchmark while it runs: nothing else in a bench app reads it (minstret
// is only read: the simulator reports it at the end).
static inline void couplet_bench_start(couplet_bench_sample_t *start) {
  start->instret = couplet_csr_read_minstret();
  start->cycles = 0u;
  couplet_csr_write_mcycle(0u);
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
