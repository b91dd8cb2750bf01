// bench_aes: the `couplet bench aes` firmware. Times the public AES API (couplet/aes.h) with
// mcycle for every backend this SoC has, exactly as an application calls it, and prints one
// line per run:
//
//   result aes/<backend>/<measure> cycles=<N> instret=<M> check=<0xHEX>
//
// measures (each run RUNS times; couplet/flows/bench/aes.py computes mean and standard deviation):
//   init/<bits>            couplet_aes_set_key on a fresh context        (FAC-V Table 6)
//   ecb/<bits>/<bytes>     ECB encryption of 16..80 bytes, key set up    (FAC-V Table 7)
//   4blk/<mode>/<bits>     4 consecutive blocks (64 bytes), each mode    (AES-RV Fig. 7)
//   ctr4k/128              CTR over 4 KiB, for sustained bytes per cycle
//   held/<bits>/<bytes>    ECB of 16 or 80 bytes through couplet/aes_held.h: the accelerator
//                          taken once with the key and mode, each call timed
//   bare/<bits>/16         one block by the coupling's bare instruction sequence (tight, mem,
//                          mmio), with the accelerator held: no API at all
// check is a fold of the output, so the report can confirm that every backend computed the
// same ciphertext. A failing call prints "bench_aes: FAIL" and exits 1.

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_held.h>
#include <couplet/bench.h>

#define APP "bench_aes"
#define SUITE "aes"  // result lines: result aes/...
// The test suite builds this app with fewer runs (-DRUNS=3): the figures are the same, only their
// standard deviation rests on fewer samples.
#ifndef RUNS
#define RUNS 10u
#endif
#define CTR_RUNS 3u
#define CTR_BYTES 4096u

static uint8_t message[CTR_BYTES] __attribute__((aligned(4)));
static uint8_t output[CTR_BYTES] __attribute__((aligned(4)));

static const char *const mode_names[] = {"ecb", "cbc", "ctr", "cfb", "ofb"};

static const uint8_t key_bytes[32] = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4};

// bare/<bits>/16: one block by the coupling's bare sequence (couplet/aes_coupling.h), with the
// accelerator held in ECB: what the inline couplings cost with no API around them at all, the
// measured counterpart of the report's floor. Only for tight, mem and mmio. Not inlined into
// bench_backend, whose many live values would otherwise spill the block's words to the stack
// inside the timed window.
static __attribute__((noinline)) int bare_block(couplet_aes_backend_id_t id, couplet_aes_held_t *held, size_t key_len) {
  const char *name = couplet_aes_backend_name(id);
  const couplet_aes_word_t *in = (const couplet_aes_word_t *)(const void *)message;
  couplet_aes_word_t *out = (couplet_aes_word_t *)(void *)output;
  char measure[40];
  snprintf(measure, sizeof measure, "bare/%u/16", (unsigned)(key_len * 8u));
  for (uint32_t r = 0; r < RUNS; r++) {
    memset(output, 0, 16u);
    uint32_t code = 0u;
    couplet_bench_sample_t start, end;
    switch (id) {
#if defined(COUPLET_AES_CUSTOM_OPCODE) && COUPLET_AES_HAS_TIGHT
      case COUPLET_AES_BACKEND_TIGHT:
        couplet_bench_start(&start);
        couplet_aes_tight_block(in, out);
        end = couplet_bench_end();
        break;
#if COUPLET_AES_HAS_MEM
      case COUPLET_AES_BACKEND_MEM:
        couplet_bench_start(&start);
        code = couplet_aes_mem_job(message, output, 16u);
        end = couplet_bench_end();
        break;
#endif
#endif
#if defined(COUPLET_AES_BASE) && COUPLET_AES_HAS_MMIO
      case COUPLET_AES_BACKEND_MMIO:
        couplet_bench_start(&start);
        couplet_aes_mmio_block(in, out);
        end = couplet_bench_end();
        break;
#endif
      default:
        return 0;  // no bare sequence: nothing to time
    }
    if (code != 0u) {
      return couplet_bench_failed(APP, name, "bare", COUPLET_ERR_HW);
    }
    (void)held;  // the sequences need the accelerator held; nothing else of the hold
    couplet_bench_report(SUITE, name, measure, start, end, couplet_bench_fnv1a(output, 16u));
  }
  return 0;
}

static int bench_backend(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  char measure[40];
  couplet_status_t status;
  for (uint32_t k = 0; k < 3u; k++) {
    size_t key_len = 16u + 8u * k;
    unsigned bits = (unsigned)(key_len * 8u);
    couplet_aes_ctx_t ctx;
    for (uint32_t r = 0; r < RUNS; r++) {
      if ((status = couplet_aes_init_backend(&ctx, id)) != COUPLET_OK) {
        return couplet_bench_failed(APP, name, "init", status);
      }
      couplet_bench_sample_t start;
      couplet_bench_start(&start);
      status = couplet_aes_set_key(&ctx, key_bytes, key_len);
      couplet_bench_sample_t end = couplet_bench_end();
      if (status != COUPLET_OK) {
        return couplet_bench_failed(APP, name, "set_key", status);
      }
      snprintf(measure, sizeof measure, "init/%u", bits);
      couplet_bench_report(SUITE, name, measure, start, end, (uint32_t)key_len);
    }
    for (size_t bytes = 16u; bytes <= 80u; bytes += 16u) {
      for (uint32_t r = 0; r < RUNS; r++) {
        memset(output, 0, bytes);
        couplet_bench_sample_t start;
        couplet_bench_start(&start);
        status = couplet_aes_ecb_encrypt(&ctx, message, output, bytes);
        couplet_bench_sample_t end = couplet_bench_end();
        if (status != COUPLET_OK) {
          return couplet_bench_failed(APP, name, "ecb", status);
        }
        snprintf(measure, sizeof measure, "ecb/%u/%u", bits, (unsigned)bytes);
        couplet_bench_report(SUITE, name, measure, start, end, couplet_bench_fnv1a(output, bytes));
      }
    }
    for (uint32_t mode = 0; mode < 5u; mode++) {
      for (uint32_t r = 0; r < RUNS; r++) {
        uint8_t iv[16] = {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
                          0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff};
        memset(output, 0, 64u);
        couplet_bench_sample_t start;
        couplet_bench_start(&start);
        status = couplet_aes_crypt(&ctx, (couplet_aes_mode_t)mode, false,
                                   mode == COUPLET_AES_ECB ? NULL : iv, message, output, 64u);
        couplet_bench_sample_t end = couplet_bench_end();
        if (status != COUPLET_OK) {
          return couplet_bench_failed(APP, name, mode_names[mode], status);
        }
        snprintf(measure, sizeof measure, "4blk/%s/%u", mode_names[mode], bits);
        couplet_bench_report(SUITE, name, measure, start, end, couplet_bench_fnv1a(output, 64u));
      }
    }
    for (size_t bytes = 16u; bytes <= 80u; bytes += 64u) {
      couplet_aes_held_t held;
      if ((status = couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL)) != COUPLET_OK) {
        return couplet_bench_failed(APP, name, "hold", status);
      }
      for (uint32_t r = 0; r < RUNS; r++) {
        memset(output, 0, bytes);
        couplet_bench_sample_t start;
        couplet_bench_start(&start);
        status = couplet_aes_held_crypt(&held, message, output, bytes);
        couplet_bench_sample_t end = couplet_bench_end();
        if (status != COUPLET_OK) {
          couplet_status_t released = couplet_aes_release(&held, NULL);
          (void)released;  // the call's own error is the one to report
          return couplet_bench_failed(APP, name, "held", status);
        }
        snprintf(measure, sizeof measure, "held/%u/%u", bits, (unsigned)bytes);
        couplet_bench_report(SUITE, name, measure, start, end, couplet_bench_fnv1a(output, bytes));
      }
      if (bytes == 16u && bare_block(id, &held, key_len) != 0) {
        return 1;
      }
      if ((status = couplet_aes_release(&held, NULL)) != COUPLET_OK) {
        return couplet_bench_failed(APP, name, "release", status);
      }
    }
    if (key_len == 16u) {
      for (uint32_t r = 0; r < CTR_RUNS; r++) {
        uint8_t counter[16] = {0};
        // A backend that wrote nothing must not pass on the previous backend's output.
        memset(output, 0, sizeof output);
        couplet_bench_sample_t start;
        couplet_bench_start(&start);
        status = couplet_aes_ctr_crypt(&ctx, counter, message, output, CTR_BYTES);
        couplet_bench_sample_t end = couplet_bench_end();
        if (status != COUPLET_OK) {
          return couplet_bench_failed(APP, name, "ctr4k", status);
        }
        couplet_bench_report(SUITE, name, "ctr4k/128", start, end, couplet_bench_fnv1a(output, CTR_BYTES));
      }
    }
    if ((status = couplet_aes_zeroize(&ctx)) != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "zeroize", status);
    }
  }
  return 0;
}

int main(void) {
  for (size_t i = 0; i < sizeof message; i++) {
    message[i] = (uint8_t)(i * 7u + 3u);
  }
  for (uint32_t b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    couplet_aes_backend_id_t id = (couplet_aes_backend_id_t)b;
    if (!couplet_aes_backend_available(id)) {
      continue;
    }
    printf("bench_aes: backend %s\n", couplet_aes_backend_name(id));
    if (bench_backend(id) != 0) {
      return 1;
    }
  }
  return 0;
}
