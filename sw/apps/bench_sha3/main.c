// bench_sha3: the `couplet bench sha3` firmware. Times the public SHA-3 API (couplet/sha3.h) with
// mcycle for every backend this SoC has, exactly as an application calls it, and prints one
// line per run:
//
//   result sha3/<backend>/<measure> cycles=<N> instret=<M> check=<0xHEX>
//
// measures (each timed as one sequence: init_backend + update + final [+ squeeze]):
//   kronos/oneshot  SHA3-384 of a 200-byte message (KRONOS Table 1) in one call,
//                   couplet_sha3_using() (the backend's one-shot short cut, if it has one)
//   kronos          the same hash by init_backend + update + final
//   kronos/init, kronos/update, kronos/final
//                   the same hash with each of its three calls timed on its own (where the
//                   cycles go); all three lines carry the digest's check
//   kronos/held     the same hash by couplet_sha3_held() (couplet/sha3_held.h), the backend
//                   held around all the runs
//   sha3-256/4096   SHA3-256 of 4 KiB, for cycles per byte
//   shake128/4096   SHAKE128 of 4 KiB, 32 bytes of output squeezed
// and, once, two lines that are not hashes:
//
//   result sha3-harness/none/empty cycles=<N> ...   an empty timed interval: what the timing
//                                                   itself adds to every figure
//   result sha3-access/mmio/store cycles=<N> ...    ACCESS_WORDS back-to-back stores into the
//   result sha3-access/mmio/load cycles=<N> ...     Keccak window (STATE_XOR, zeros), and loads
//                                                   from it (STATE): the cost of a memory-mapped
//                                                   access, for the floor model of bench_sha3.py
// The message is byte i = (7i + 3) mod 256, the same as bench_aes, so couplet/flows/bench/sha3.py
// recomputes every digest with hashlib. check is FNV-1a of the output, so the report can confirm
// that every backend computed the right digest. The software and ISE backends are slow (about 115
// and 80 cycles per byte), so their 4 KiB runs are fewer. A failing call prints
// "bench_sha3: FAIL" and exits 1.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/bench.h>
#include <couplet/sha3.h>
#include <couplet/sha3_held.h>
#include <couplet/soc_config.h>

#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT
#include <couplet/autogen/keccak_regs.h>
#include <couplet/mmio.h>
#endif

#define APP "bench_sha3"
#define SUITE "sha3"  // result lines: result sha3/...
#define RUNS 10u
#define SPLIT_RUNS 3u
#define LONG_RUNS 3u
#define SLOW_LONG_RUNS 2u
#define KRONOS_BYTES 200u
#define LONG_BYTES 4096u
#define SHAKE_OUT_BYTES 32u
#define ACCESS_WORDS 32u

static uint8_t message[LONG_BYTES] __attribute__((aligned(4)));
static uint8_t output[COUPLET_SHA3_MAX_DIGEST] __attribute__((aligned(4)));
// One context for the SHA3-* runs and one for the SHAKE ones. A SHAKE context is still
// squeezing when its run ends (SHAKE has no final), and initialising that memory again wipes
// what it held (couplet_sha3_init): a SHA3-* run in the same memory would pay that wipe once
// after each SHAKE run and its figure would vary.
static couplet_sha3_ctx_t sha3_ctx, shake_ctx;

// One whole hash: SHA3-* writes its digest, SHAKE squeezes SHAKE_OUT_BYTES. The status of the
// first failing call is returned; start and end bracket all of them.
static couplet_status_t hash_once(couplet_sha3_backend_id_t id, couplet_sha3_alg_t alg, size_t len,
                                  size_t out_len, couplet_bench_sample_t *start,
                                  couplet_bench_sample_t *end) {
  const bool shake = alg == COUPLET_SHAKE128 || alg == COUPLET_SHAKE256;
  couplet_sha3_ctx_t *ctx = shake ? &shake_ctx : &sha3_ctx;
  couplet_status_t status;
  couplet_bench_start(start);
  status = couplet_sha3_init_backend(ctx, alg, id);
  if (status == COUPLET_OK) {
    status = couplet_sha3_update(ctx, message, len);
  }
  if (status == COUPLET_OK) {
    if (shake) {
      status = couplet_shake_final(ctx);
      if (status == COUPLET_OK) {
        status = couplet_shake_squeeze(ctx, output, out_len);
      }
    } else {
      status = couplet_sha3_final(ctx, output, sizeof output);
    }
  }
  *end = couplet_bench_end();
  return status;
}

static int bench_case(couplet_sha3_backend_id_t id, const char *measure, couplet_sha3_alg_t alg,
                      size_t len, size_t out_len, uint32_t runs) {
  const char *name = couplet_sha3_backend_name(id);
  for (uint32_t r = 0; r < runs; r++) {
    couplet_bench_sample_t start, end;
    // A backend that wrote nothing must not pass on the previous backend's output.
    memset(output, 0, sizeof output);
    couplet_status_t status = hash_once(id, alg, len, out_len, &start, &end);
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, measure, status);
    }
    couplet_bench_report(SUITE, name, measure, start, end, couplet_bench_fnv1a(output, out_len));
  }
  return 0;
}

// The KRONOS hash by the one-shot call.
static int bench_oneshot(couplet_sha3_backend_id_t id) {
  const char *name = couplet_sha3_backend_name(id);
  for (uint32_t r = 0; r < RUNS; r++) {
    memset(output, 0, sizeof output);
    couplet_bench_sample_t start;
    couplet_bench_start(&start);
    couplet_status_t status = couplet_sha3_using(id, COUPLET_SHA3_384, message, KRONOS_BYTES, output, sizeof output);
    couplet_bench_sample_t end = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "kronos/oneshot", status);
    }
    couplet_bench_report(SUITE, name, "kronos/oneshot", start, end, couplet_bench_fnv1a(output, 48u));
  }
  return 0;
}

// The KRONOS hash again, each call timed on its own.
static int bench_split(couplet_sha3_backend_id_t id) {
  const char *name = couplet_sha3_backend_name(id);
  for (uint32_t r = 0; r < SPLIT_RUNS; r++) {
    couplet_sha3_ctx_t *ctx = &sha3_ctx;
    couplet_bench_sample_t t[6];
    memset(output, 0, sizeof output);
    couplet_bench_start(&t[0]);
    couplet_status_t status = couplet_sha3_init_backend(ctx, COUPLET_SHA3_384, id);
    t[1] = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "kronos/init", status);
    }
    couplet_bench_start(&t[2]);
    status = couplet_sha3_update(ctx, message, KRONOS_BYTES);
    t[3] = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "kronos/update", status);
    }
    couplet_bench_start(&t[4]);
    status = couplet_sha3_final(ctx, output, sizeof output);
    t[5] = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "kronos/final", status);
    }
    uint32_t check = couplet_bench_fnv1a(output, 48u);
    couplet_bench_report(SUITE, name, "kronos/init", t[0], t[1], check);
    couplet_bench_report(SUITE, name, "kronos/update", t[2], t[3], check);
    couplet_bench_report(SUITE, name, "kronos/final", t[4], t[5], check);
  }
  return 0;
}

// The KRONOS hash by the held call, the backend held around all the runs (the hold and the
// release are not timed: they are once per batch of messages).
static int bench_held(couplet_sha3_backend_id_t id) {
  const char *name = couplet_sha3_backend_name(id);
  couplet_sha3_held_t held;
  couplet_status_t status = couplet_sha3_hold(&held, id);
  if (status != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "kronos/held hold", status);
  }
  for (uint32_t r = 0; r < RUNS; r++) {
    memset(output, 0, sizeof output);
    couplet_bench_sample_t start;
    couplet_bench_start(&start);
    status = couplet_sha3_held(&held, COUPLET_SHA3_384, message, KRONOS_BYTES, output, sizeof output);
    couplet_bench_sample_t end = couplet_bench_end();
    if (status != COUPLET_OK) {
      // Given back, whatever the release says: the run ends here with the held call's status.
      if (couplet_sha3_release(&held) != COUPLET_OK) {
        printf("%s: %s: release after a failure failed too\n", APP, name);
      }
      return couplet_bench_failed(APP, name, "kronos/held", status);
    }
    couplet_bench_report(SUITE, name, "kronos/held", start, end, couplet_bench_fnv1a(output, 48u));
  }
  status = couplet_sha3_release(&held);
  return status == COUPLET_OK ? 0 : couplet_bench_failed(APP, name, "kronos/held release", status);
}

// What the timing adds to every figure: an empty interval.
static void bench_harness(void) {
  couplet_bench_sample_t start;
  couplet_bench_start(&start);
  couplet_bench_sample_t end = couplet_bench_end();
  couplet_bench_report("sha3-harness", "none", "empty", start, end, 0u);
}

#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT
// The cost of a memory-mapped access in this SoC, measured rather than assumed: ACCESS_WORDS
// stores of zero into STATE_XOR (which change nothing) and as many loads from STATE, back to
// back, the accelerator held meanwhile (and zero: every hash ends with a ZEROIZE).
#define ACCESS_REG(i) (COUPLET_KECCAK_BASE + KECCAK_STATE_XOR_OFFSET + 4u * (i))
#define STATE_REG(i) (COUPLET_KECCAK_BASE + KECCAK_STATE_OFFSET + 4u * (i))
static int bench_access(void) {
  couplet_sha3_held_t held;
  couplet_status_t status = couplet_sha3_hold(&held, COUPLET_SHA3_BACKEND_MMIO);
  if (status != COUPLET_OK) {
    return couplet_bench_failed(APP, "mmio", "access hold", status);
  }
  couplet_bench_sample_t start;
  couplet_bench_start(&start);
#pragma GCC unroll 32
  for (uint32_t i = 0; i < ACCESS_WORDS; i++) {
    couplet_mmio_write32(ACCESS_REG(i % KECCAK_STATE_XOR_COUNT), 0u);
  }
  couplet_bench_sample_t end = couplet_bench_end();
  couplet_bench_report("sha3-access", "mmio", "store", start, end, 0u);
  // Loads whose values nothing uses (a load feeding the next instruction would add a stall
  // that is not the bus's): volatile asm, so they happen all the same.
  couplet_bench_start(&start);
#pragma GCC unroll 8
  for (uint32_t i = 0; i < ACCESS_WORDS; i += 4u) {
    uint32_t a, b, c, d;
    __asm__ volatile("lw %0, 0(%4)\n\tlw %1, 4(%4)\n\tlw %2, 8(%4)\n\tlw %3, 12(%4)"
                     : "=&r"(a), "=&r"(b), "=&r"(c), "=&r"(d)
                     : "r"(STATE_REG(i % KECCAK_STATE_COUNT))
                     : "memory");
  }
  end = couplet_bench_end();
  couplet_bench_report("sha3-access", "mmio", "load", start, end, 0u);
  status = couplet_sha3_release(&held);
  return status == COUPLET_OK ? 0 : couplet_bench_failed(APP, "mmio", "access release", status);
}
#endif

static int bench_backend(couplet_sha3_backend_id_t id) {
  bool slow = id == COUPLET_SHA3_BACKEND_SOFT || id == COUPLET_SHA3_BACKEND_ISE;
  uint32_t long_runs = slow ? SLOW_LONG_RUNS : LONG_RUNS;
  if (bench_oneshot(id) != 0 || bench_case(id, "kronos", COUPLET_SHA3_384, KRONOS_BYTES, 48u, RUNS) != 0 ||
      bench_split(id) != 0 || bench_held(id) != 0 ||
      bench_case(id, "sha3-256/4096", COUPLET_SHA3_256, LONG_BYTES, 32u, long_runs) != 0 ||
      bench_case(id, "shake128/4096", COUPLET_SHAKE128, LONG_BYTES, SHAKE_OUT_BYTES, long_runs) != 0) {
    return 1;
  }
  return 0;
}

int main(void) {
  for (size_t i = 0; i < sizeof message; i++) {
    message[i] = (uint8_t)(i * 7u + 3u);
  }
  bench_harness();
#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT
  if (couplet_sha3_backend_available(COUPLET_SHA3_BACKEND_MMIO) && bench_access() != 0) {
    return 1;
  }
#endif
  for (uint32_t b = 0; b < COUPLET_SHA3_BACKEND_COUNT; b++) {
    couplet_sha3_backend_id_t id = (couplet_sha3_backend_id_t)b;
    if (!couplet_sha3_backend_available(id)) {
      continue;
    }
    printf("bench_sha3: backend %s\n", couplet_sha3_backend_name(id));
    if (bench_backend(id) != 0) {
      return 1;
    }
  }
  printf("bench_sha3: done\n");
  return 0;
}
