// demo: the `couplet demo` app. Prints a banner, then runs small workloads and prints one
// line per workload that the Python demo parses into a table:
//
//   result <name> cycles=<N> instret=<M> check=<0xHEX>
//
// cycles and instret are mcycle/minstret deltas around the measured part only. check is
// the workload's result, compared here against a constant computed independently; any
// mismatch prints "demo: FAIL ..." and exits 1.
//
//   crc32_4k       CRC-32 of a 4 KiB pattern (table already built). check = the CRC.
//   matmul_32      32x32 int32 matrix multiply. check = position-weighted sum of C.
//   timer_irq      arm mtimecmp = now + 1000 ticks, poll until the handler has run.
//                  check = interrupts taken (1).
//   soft_irq_lat   from the msip store to the first instruction of the C handler body.
//                  check = interrupts taken (1).
//   aes128_ecb_80B/<backend>   couplet_aes_ecb_encrypt of 80 bytes with every AES backend the
//                  SoC has (key already set). check = FNV-1a of the ciphertext.
//   aes128_ctr_4k/<backend>    couplet_aes_ctr_crypt over 4 KiB with the software backend
//                  and the fastest streaming couplings. check = FNV-1a of the output.
//   sha3_256_abc/<backend>     SHA3-256 of "abc" (the FIPS 202 example) with the software
//                  backend (init + update + final), and with the SoC's default backend through
//                  the one-shot couplet_sha3() when that is an accelerator. check = FNV-1a of
//                  the digest.
//   sha3_256_4k/<backend>      SHA3-256 of 4 KiB with the default backend, when it is an
//                  accelerator (the software one takes half a million cycles: see
//                  `couplet bench sha3`). check = FNV-1a of the digest.

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <couplet/aes.h>
#include <couplet/counters.h>
#include <couplet/csr.h>
#include <couplet/irq.h>
#include <couplet/sha3.h>
#include <couplet/soc_config.h>
#include <couplet/timer.h>

#include "workloads.h"

// Computed with Python: zlib.crc32(bytes(((i*131+7)^(i>>8))&0xff for i in range(4096))).
#define EXPECTED_CRC32_4K 0xfad9a1eau
// Computed with Python from the same definitions as workloads.h (matrix_fill_inputs,
// matrix_multiply, matrix_checksum) using arbitrary-precision integers.
#define EXPECTED_MATMUL_32 0x0000bae9u
#define EXPECTED_INTERRUPTS 1u
// Computed with pycryptodome: AES-128 key 00 01 .. 0f (FIPS-197 C.1), message byte i = 7i+3,
// FNV-1a over the ciphertext: ECB of the first 80 bytes, and CTR (counter block 0) of 4 KiB.
#define EXPECTED_AES_ECB_80 0x73d6b676u
#define EXPECTED_AES_CTR_4K 0xd4af58e3u
#define AES_STREAM_BYTES 4096u
// SHA3-256("abc") = 3a985da7 4fe225b2 ... 45114315 32 (NIST FIPS 202 examples), and SHA3-256 of
// the 4 KiB message above (hashlib); FNV-1a over the 32 digest bytes.
#define EXPECTED_SHA3_256_ABC 0x3f8a7b8du
#define EXPECTED_SHA3_256_4K 0xb7984742u

#ifndef COUPLET_SHA3_DEFAULT_BACKEND
#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_SOFT
#endif

#define TIMER_DELAY_TICKS 1000u
// Generous bound on the polls: the interrupt is due after TIMER_DELAY_TICKS.
#define GIVE_UP_TICKS 100000u

typedef struct {
  uint64_t cycles;
  uint64_t instret;
} sample_t;

static sample_t sample_now(void) {
  sample_t s = {couplet_cycles(), couplet_instret()};
  return s;
}

static sample_t sample_delta(sample_t start, sample_t end) {
  sample_t d = {end.cycles - start.cycles, end.instret - start.instret};
  return d;
}

static int report(const char *name, sample_t cost, uint32_t check, uint32_t expected) {
  printf("result %s cycles=%" PRIu64 " instret=%" PRIu64 " check=0x%08" PRIx32 "\n", name, cost.cycles,
         cost.instret, check);
  if (check != expected) {
    printf("demo: FAIL %s: expected check=0x%08" PRIx32 ", got 0x%08" PRIx32 "\n", name, expected, check);
    return 1;
  }
  return 0;
}

static crc32_table_t crc_table;
static uint8_t crc_buffer[CRC_BUFFER_BYTES];
static matrix_t matrix_a, matrix_b, matrix_c;

static int run_crc32(void) {
  crc32_table_init(&crc_table);
  crc_pattern_fill(crc_buffer, sizeof crc_buffer);
  sample_t start = sample_now();
  uint32_t crc = crc32_update(&crc_table, 0u, crc_buffer, sizeof crc_buffer);
  sample_t end = sample_now();
  return report("crc32_4k", sample_delta(start, end), crc, EXPECTED_CRC32_4K);
}

static int run_matmul(void) {
  matrix_fill_inputs(&matrix_a, &matrix_b);
  sample_t start = sample_now();
  matrix_multiply(&matrix_a, &matrix_b, &matrix_c);
  sample_t end = sample_now();
  return report("matmul_32", sample_delta(start, end), matrix_checksum(&matrix_c), EXPECTED_MATMUL_32);
}

static volatile uint32_t timer_interrupts;

static void on_timer(uint32_t irq) {
  (void)irq;
  couplet_timer_disable();
  timer_interrupts = timer_interrupts + 1u;
}

// Registers and enables `handler` for `irq`; a measurement that cannot do so fails.
static bool irq_ready(uint32_t irq, couplet_irq_handler_t handler, const char *measurement) {
  if (couplet_irq_register(irq, handler) != COUPLET_OK || couplet_irq_enable(irq) != COUPLET_OK) {
    printf("demo: FAIL %s: cannot set up interrupt %u\n", measurement, (unsigned)irq);
    return false;
  }
  return true;
}

static int run_timer_irq(void) {
  if (!irq_ready(COUPLET_IRQ_TIMER, on_timer, "timer_irq")) {
    return 1;
  }
  bool was_enabled = couplet_irq_global_enable();
  sample_t start = sample_now();
  uint64_t due = couplet_timer_now() + TIMER_DELAY_TICKS;
  couplet_timer_set_compare(due);
  while (timer_interrupts == 0u && couplet_timer_now() < due + GIVE_UP_TICKS) {
  }
  sample_t end = sample_now();
  couplet_irq_global_restore(was_enabled);
  if (couplet_irq_unregister(COUPLET_IRQ_TIMER) != COUPLET_OK) {
    return 1;
  }
  return report("timer_irq", sample_delta(start, end), timer_interrupts, EXPECTED_INTERRUPTS);
}

static volatile uint32_t soft_interrupts;
static volatile uint32_t soft_entry_cycle;
static volatile uint32_t soft_entry_instret;

static void on_software_irq(uint32_t irq) {
  (void)irq;
  // Read the counters first: this is the end of the latency being measured.
  soft_entry_cycle = couplet_csr_read_mcycle();
  soft_entry_instret = couplet_csr_read_minstret();
  couplet_software_irq_clear();
  soft_interrupts = soft_interrupts + 1u;
}

static int run_soft_irq_latency(void) {
  if (!irq_ready(COUPLET_IRQ_SOFTWARE, on_software_irq, "soft_irq_lat")) {
    return 1;
  }
  bool was_enabled = couplet_irq_global_enable();
  // Low words are enough for a latency of a few hundred cycles (unsigned wrap is fine).
  uint32_t cycle_start = couplet_csr_read_mcycle();
  uint32_t instret_start = couplet_csr_read_minstret();
  couplet_software_irq_raise();
  couplet_delay_cycles(1000u);
  couplet_irq_global_restore(was_enabled);
  if (couplet_irq_unregister(COUPLET_IRQ_SOFTWARE) != COUPLET_OK) {
    return 1;
  }
  sample_t latency = {(uint32_t)(soft_entry_cycle - cycle_start), (uint32_t)(soft_entry_instret - instret_start)};
  return report("soft_irq_lat", latency, soft_interrupts, EXPECTED_INTERRUPTS);
}

// The AES and SHA-3 input: byte i = 7i + 3 (mod 256).
static uint8_t aes_in[AES_STREAM_BYTES] __attribute__((aligned(4)));
static uint8_t aes_out[AES_STREAM_BYTES] __attribute__((aligned(4)));

static uint32_t fnv1a(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ p[i]) * 16777619u;
  }
  return h;
}

static int run_aes_backend(couplet_aes_backend_id_t id) {
  static const uint8_t key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  char name[48];
  couplet_aes_ctx_t ctx;
  if (couplet_aes_init_backend(&ctx, id) != COUPLET_OK || couplet_aes_set_key(&ctx, key, 16) != COUPLET_OK) {
    printf("demo: FAIL aes: cannot set up backend %s\n", couplet_aes_backend_name(id));
    return 1;
  }
  sample_t start = sample_now();
  couplet_status_t status = couplet_aes_ecb_encrypt(&ctx, aes_in, aes_out, 80u);
  sample_t end = sample_now();
  snprintf(name, sizeof name, "aes128_ecb_80B/%s", couplet_aes_backend_name(id));
  int failures = report(name, sample_delta(start, end), status == COUPLET_OK ? fnv1a(aes_out, 80u) : 0u,
                        EXPECTED_AES_ECB_80);
  if (id == COUPLET_AES_BACKEND_SOFT || id == COUPLET_AES_BACKEND_MEM || id == COUPLET_AES_BACKEND_DMA) {
    uint8_t counter[16] = {0};
    start = sample_now();
    status = couplet_aes_ctr_crypt(&ctx, counter, aes_in, aes_out, AES_STREAM_BYTES);
    end = sample_now();
    snprintf(name, sizeof name, "aes128_ctr_4k/%s", couplet_aes_backend_name(id));
    failures += report(name, sample_delta(start, end),
                       status == COUPLET_OK ? fnv1a(aes_out, AES_STREAM_BYTES) : 0u, EXPECTED_AES_CTR_4K);
  }
  return failures + (couplet_aes_zeroize(&ctx) == COUPLET_OK ? 0 : 1);
}

static int run_aes(void) {
  int failures = 0;
  for (uint32_t b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    if (couplet_aes_backend_available((couplet_aes_backend_id_t)b)) {
      failures += run_aes_backend((couplet_aes_backend_id_t)b);
    }
  }
  return failures;
}

static int report_sha3(const char *what, couplet_sha3_backend_id_t id, sample_t cost, couplet_status_t status,
                       const uint8_t *digest, uint32_t expected) {
  char name[48];
  snprintf(name, sizeof name, "%s/%s", what, couplet_sha3_backend_name(id));
  if (status != COUPLET_OK) {
    printf("demo: FAIL %s: %s\n", name, couplet_status_name(status));
    return 1;
  }
  return report(name, cost, fnv1a(digest, 32u), expected);
}

static int run_sha3(void) {
  static const uint8_t abc[3] = {'a', 'b', 'c'};
  uint8_t digest[32];
  couplet_sha3_ctx_t ctx;
  int failures = 0;
  // The software backend through the incremental calls, as an application that picks it does.
  sample_t start = sample_now();
  couplet_status_t status = couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, COUPLET_SHA3_BACKEND_SOFT);
  if (status == COUPLET_OK) {
    status = couplet_sha3_update(&ctx, abc, sizeof abc);
  }
  if (status == COUPLET_OK) {
    status = couplet_sha3_final(&ctx, digest, sizeof digest);
  }
  sample_t end = sample_now();
  failures += report_sha3("sha3_256_abc", COUPLET_SHA3_BACKEND_SOFT, sample_delta(start, end), status, digest,
                          EXPECTED_SHA3_256_ABC);
  if (COUPLET_SHA3_DEFAULT_BACKEND == COUPLET_SHA3_BACKEND_SOFT) {
    return failures;
  }
  // The accelerator, through the one-shot call that takes the SoC's default backend.
  start = sample_now();
  status = couplet_sha3(COUPLET_SHA3_256, abc, sizeof abc, digest, sizeof digest);
  end = sample_now();
  failures += report_sha3("sha3_256_abc", COUPLET_SHA3_DEFAULT_BACKEND, sample_delta(start, end), status, digest,
                          EXPECTED_SHA3_256_ABC);
  start = sample_now();
  status = couplet_sha3(COUPLET_SHA3_256, aes_in, AES_STREAM_BYTES, digest, sizeof digest);
  end = sample_now();
  failures += report_sha3("sha3_256_4k", COUPLET_SHA3_DEFAULT_BACKEND, sample_delta(start, end), status, digest,
                          EXPECTED_SHA3_256_4K);
  return failures;
}

int main(void) {
  printf("couplet demo on SoC '%s': %" PRIu32 " MHz, %" PRIu32 " KiB SRAM, mtime at %" PRIu32 " MHz\n",
         COUPLET_SOC_NAME, (uint32_t)(COUPLET_CLOCK_HZ / 1000000u), (uint32_t)(COUPLET_SRAM_SIZE / 1024u),
         (uint32_t)(COUPLET_MTIME_HZ / 1000000u));
  int failures = 0;
  failures += run_crc32();
  failures += run_matmul();
  failures += run_timer_irq();
  failures += run_soft_irq_latency();
  for (size_t i = 0; i < AES_STREAM_BYTES; i++) {
    aes_in[i] = (uint8_t)(i * 7u + 3u);
  }
  failures += run_aes();
  failures += run_sha3();
  if (failures != 0) {
    printf("demo: %d workload(s) failed\n", failures);
    return 1;
  }
  printf("demo: all results match\n");
  return 0;
}
