// bench_sim: a CPU-bound load of about 3 million cycles (2.8 M measured on the default
// SoC) for measuring simulation speed.
//
// BENCH_ROUNDS rounds of: CRC-32 over a 4 KiB pattern (chained across rounds) and a 32x32
// matrix multiply whose product seeds the next round's left operand. Both final values
// are checked against constants computed independently with Python, so the work cannot
// be skipped and a wrong core is noticed. Exit code 0 on success, 1 on a mismatch.

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <couplet/counters.h>

#include "../demo/workloads.h"

#define BENCH_ROUNDS 7u
// Python: crc = 0; for each round crc = zlib.crc32(pattern, crc), pattern as in workloads.h.
#define EXPECTED_CRC 0xfc006921u
// Python: sum over rounds of matrix_checksum(A_r x B) mod 2^32, A_0 from matrix_fill_inputs
// and A_{r+1} = matrix_fold(A_r x B), with the definitions of workloads.h.
#define EXPECTED_MATRIX_SUM 0xffb05ed8u

static crc32_table_t crc_table;
static uint8_t crc_buffer[CRC_BUFFER_BYTES];
static matrix_t matrix_a, matrix_b, matrix_c;

int main(void) {
  printf("bench_sim: %u rounds of CRC-32 (4 KiB) and 32x32 matrix multiply\n", BENCH_ROUNDS);
  crc32_table_init(&crc_table);
  crc_pattern_fill(crc_buffer, sizeof crc_buffer);
  matrix_fill_inputs(&matrix_a, &matrix_b);

  uint64_t cycles_start = couplet_cycles();
  uint64_t instret_start = couplet_instret();
  uint32_t crc = 0u;
  uint32_t matrix_sum = 0u;
  for (uint32_t round = 0; round < BENCH_ROUNDS; ++round) {
    crc = crc32_update(&crc_table, crc, crc_buffer, sizeof crc_buffer);
    matrix_multiply(&matrix_a, &matrix_b, &matrix_c);
    matrix_sum += matrix_checksum(&matrix_c);
    matrix_fold(&matrix_c, &matrix_a);
  }
  uint64_t cycles = couplet_cycles() - cycles_start;
  uint64_t instret = couplet_instret() - instret_start;

  printf("bench_sim: cycles=%" PRIu64 " instret=%" PRIu64 " crc=0x%08" PRIx32 " matrix_sum=0x%08" PRIx32 "\n",
         cycles, instret, crc, matrix_sum);
  if (crc != EXPECTED_CRC || matrix_sum != EXPECTED_MATRIX_SUM) {
    printf("bench_sim: FAIL expected crc=0x%08" PRIx32 " matrix_sum=0x%08" PRIx32 "\n", (uint32_t)EXPECTED_CRC,
           (uint32_t)EXPECTED_MATRIX_SUM);
    return 1;
  }
  printf("bench_sim: PASS\n");
  return 0;
}
