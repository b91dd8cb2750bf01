// bench_aead: the `couplet bench aead` firmware. Times the authenticated AES API
// (couplet/aes_aead.h) with mcycle for every AES backend this SoC has, AES-128, exactly as an
// application calls it, and prints one line per run:
//
//   result aead/<backend>/<measure> cycles=<N> instret=<M> check=<0xHEX>
//
// measures (RUNS runs each unless stated; couplet/flows/bench/aead.py computes mean and
// standard deviation):
//   ccm/enc/<aad>/<bytes>  CCM encryption, 13-byte nonce, 8-byte tag, <aad> = 0 or 16 bytes of
//   ccm/dec/<aad>/<bytes>  associated data, 16..80 bytes; decryption of that ciphertext and tag
//   frame/enc, frame/dec   IEEE 802.15.4 CCM* level 6 (ENC-MIC-64) of a 127-byte frame: a 23-byte
//                          MAC header authenticated, a 96-byte payload encrypted, an 8-byte MIC
//   gcm/enc/<bytes>        GCM encryption, 12-byte IV, 16-byte tag, 16 bytes of associated data
//   gcm4k/enc              the same over 4 KiB, GCM4K_RUNS runs (SLOW_GCM4K_RUNS for the
//                          backends whose GHASH is C: soft, zkn)
//   cmac/<bytes>           AES-CMAC of 16..80 bytes, 16-byte tag
// check is FNV-1a of the output (ciphertext then tag, the plaintext of a decryption, the tag of
// a MAC), so the report can confirm that every backend computed the same, and the host's AES. A
// failing call prints "bench_aead: FAIL" and exits 1.

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_aead.h>
#include <couplet/bench.h>

#define APP "bench_aead"
#define SUITE "aead"  // result lines: result aead/...
// The test suite builds this app with fewer runs (-DRUNS=2 -DGCM4K_RUNS=1): the figures are the
// same, only their standard deviation rests on fewer samples.
#ifndef RUNS
#define RUNS 10u
#endif
#ifndef GCM4K_RUNS
#define GCM4K_RUNS 3u
#endif
// Soft and zkn hash GCM in C: about 0.95 M cycles per 4 KiB on soft, 0.47 M on zkn. The
// simulation is deterministic, so one run gives the figure.
#ifndef SLOW_GCM4K_RUNS
#define SLOW_GCM4K_RUNS 1u
#endif

#define LONG_BYTES 4096u
#define MAX_TAG 16u
#define CCM_NONCE_BYTES 13u
#define CCM_TAG_BYTES 8u
#define GCM_IV_BYTES 12u
#define GCM_TAG_BYTES 16u
#define AAD_BYTES 16u
#define FRAME_HEADER_BYTES 23u
#define FRAME_PAYLOAD_BYTES 96u
#define FRAME_LEVEL 6u  // ENC-MIC-64: payload encrypted, 8-byte MIC

static uint8_t message[LONG_BYTES] __attribute__((aligned(4)));
static uint8_t output[LONG_BYTES + MAX_TAG] __attribute__((aligned(4)));
static uint8_t sealed[128u + MAX_TAG] __attribute__((aligned(4)));  // a ciphertext and its tag
static uint8_t aad[AAD_BYTES] __attribute__((aligned(4)));
static uint8_t header[FRAME_HEADER_BYTES] __attribute__((aligned(4)));

static const uint8_t key_bytes[16] = {0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe,
                                      0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81};
static const uint8_t ccm_nonce[CCM_NONCE_BYTES] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6,
                                                   0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac};
// 802.15.4's nonce: the source's extended address, the frame counter, the security level.
static const uint8_t frame_nonce[13] = {0xac, 0xde, 0x48, 0x00, 0x00, 0x00, 0x00, 0x01,
                                        0x00, 0x00, 0x00, 0x05, FRAME_LEVEL};
static const uint8_t gcm_iv[GCM_IV_BYTES] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                                             0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};

// The inputs, which couplet/flows/bench/aead.py rebuilds on the host: message byte i = 7i + 3,
// associated data byte i = 29i + 11, header byte i = 11i + 0x41 (it stands for the MAC header:
// frame control, sequence number, addresses and the auxiliary security header).
static void fill_inputs(void) {
  for (size_t i = 0; i < sizeof message; i++) {
    message[i] = (uint8_t)(i * 7u + 3u);
  }
  for (size_t i = 0; i < sizeof aad; i++) {
    aad[i] = (uint8_t)(i * 29u + 11u);
  }
  for (size_t i = 0; i < sizeof header; i++) {
    header[i] = (uint8_t)(i * 11u + 0x41u);
  }
}

// A result line, from the cycle counts and the output.
static void report(const char *name, const char *measure, couplet_bench_sample_t start,
                   couplet_bench_sample_t end, const uint8_t *out, size_t n) {
  couplet_bench_report(SUITE, name, measure, start, end, couplet_bench_fnv1a(out, n));
}

static int bench_ccm(couplet_aes_ctx_t *ctx, const char *name) {
  char measure[40];
  couplet_status_t status;
  for (size_t a = 0; a <= AAD_BYTES; a += AAD_BYTES) {
    for (size_t len = 16u; len <= 80u; len += 16u) {
      snprintf(measure, sizeof measure, "ccm/enc/%u/%u", (unsigned)a, (unsigned)len);
      for (uint32_t r = 0; r < RUNS; r++) {
        // A backend that wrote nothing must not pass on the previous backend's output.
        memset(output, 0, len + CCM_TAG_BYTES);
        couplet_bench_sample_t start;
        couplet_bench_start(&start);
        status = couplet_aes_ccm_encrypt(ctx, ccm_nonce, CCM_NONCE_BYTES, aad, a, message, output, len,
                                         output + len, CCM_TAG_BYTES);
        couplet_bench_sample_t end = couplet_bench_end();
        if (status != COUPLET_OK) {
          return couplet_bench_failed(APP, name, "ccm_encrypt", status);
        }
        report(name, measure, start, end, output, len + CCM_TAG_BYTES);
      }
      memcpy(sealed, output, len + CCM_TAG_BYTES);
      snprintf(measure, sizeof measure, "ccm/dec/%u/%u", (unsigned)a, (unsigned)len);
      for (uint32_t r = 0; r < RUNS; r++) {
        memset(output, 0, len);
        couplet_bench_sample_t start;
        couplet_bench_start(&start);
        status = couplet_aes_ccm_decrypt(ctx, ccm_nonce, CCM_NONCE_BYTES, aad, a, sealed, output, len,
                                         sealed + len, CCM_TAG_BYTES);
        couplet_bench_sample_t end = couplet_bench_end();
        if (status != COUPLET_OK) {
          return couplet_bench_failed(APP, name, "ccm_decrypt", status);
        }
        report(name, measure, start, end, output, len);
      }
    }
  }
  return 0;
}

static int bench_frame(couplet_aes_ctx_t *ctx, const char *name) {
  const size_t len = FRAME_PAYLOAD_BYTES;
  couplet_status_t status;
  for (uint32_t r = 0; r < RUNS; r++) {
    memset(output, 0, len + CCM_TAG_BYTES);
    couplet_bench_sample_t start;
    couplet_bench_start(&start);
    status = couplet_aes_ccm_star_encrypt(ctx, FRAME_LEVEL, frame_nonce, header, FRAME_HEADER_BYTES, message,
                                          output, len, output + len);
    couplet_bench_sample_t end = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "ccm_star_encrypt", status);
    }
    report(name, "frame/enc", start, end, output, len + CCM_TAG_BYTES);
  }
  memcpy(sealed, output, len + CCM_TAG_BYTES);
  for (uint32_t r = 0; r < RUNS; r++) {
    memset(output, 0, len);
    couplet_bench_sample_t start;
    couplet_bench_start(&start);
    status = couplet_aes_ccm_star_decrypt(ctx, FRAME_LEVEL, frame_nonce, header, FRAME_HEADER_BYTES, sealed,
                                          output, len, sealed + len);
    couplet_bench_sample_t end = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "ccm_star_decrypt", status);
    }
    report(name, "frame/dec", start, end, output, len);
  }
  return 0;
}

static int gcm_encrypt_runs(couplet_aes_ctx_t *ctx, const char *name, const char *measure, size_t len,
                            uint32_t runs) {
  for (uint32_t r = 0; r < runs; r++) {
    memset(output, 0, len + GCM_TAG_BYTES);
    couplet_bench_sample_t start;
    couplet_bench_start(&start);
    couplet_status_t status = couplet_aes_gcm_encrypt(ctx, gcm_iv, GCM_IV_BYTES, aad, AAD_BYTES, message,
                                                      output, len, output + len, GCM_TAG_BYTES);
    couplet_bench_sample_t end = couplet_bench_end();
    if (status != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "gcm_encrypt", status);
    }
    report(name, measure, start, end, output, len + GCM_TAG_BYTES);
  }
  return 0;
}

static int bench_gcm(couplet_aes_ctx_t *ctx, couplet_aes_backend_id_t id, const char *name) {
  char measure[40];
  for (size_t len = 16u; len <= 80u; len += 16u) {
    snprintf(measure, sizeof measure, "gcm/enc/%u", (unsigned)len);
    if (gcm_encrypt_runs(ctx, name, measure, len, RUNS) != 0) {
      return 1;
    }
  }
  const bool slow = id == COUPLET_AES_BACKEND_SOFT || id == COUPLET_AES_BACKEND_ZKN;
  return gcm_encrypt_runs(ctx, name, "gcm4k/enc", LONG_BYTES, slow ? SLOW_GCM4K_RUNS : GCM4K_RUNS);
}

static int bench_cmac(couplet_aes_ctx_t *ctx, const char *name) {
  char measure[40];
  for (size_t len = 16u; len <= 80u; len += 16u) {
    snprintf(measure, sizeof measure, "cmac/%u", (unsigned)len);
    for (uint32_t r = 0; r < RUNS; r++) {
      memset(output, 0, MAX_TAG);
      couplet_bench_sample_t start;
      couplet_bench_start(&start);
      couplet_status_t status = couplet_aes_cmac(ctx, message, len, output, MAX_TAG);
      couplet_bench_sample_t end = couplet_bench_end();
      if (status != COUPLET_OK) {
        return couplet_bench_failed(APP, name, "cmac", status);
      }
      report(name, measure, start, end, output, MAX_TAG);
    }
  }
  return 0;
}

static int bench_backend(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  couplet_aes_ctx_t ctx;
  couplet_status_t status;
  if ((status = couplet_aes_init_backend(&ctx, id)) != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "init", status);
  }
  if ((status = couplet_aes_set_key(&ctx, key_bytes, sizeof key_bytes)) != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "set_key", status);
  }
  if (bench_ccm(&ctx, name) != 0 || bench_frame(&ctx, name) != 0 || bench_gcm(&ctx, id, name) != 0 ||
      bench_cmac(&ctx, name) != 0) {
    return 1;
  }
  if ((status = couplet_aes_zeroize(&ctx)) != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "zeroize", status);
  }
  return 0;
}

int main(void) {
  fill_inputs();
  for (uint32_t b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    couplet_aes_backend_id_t id = (couplet_aes_backend_id_t)b;
    if (!couplet_aes_backend_available(id)) {
      continue;
    }
    printf("bench_aead: backend %s\n", couplet_aes_backend_name(id));
    if (bench_backend(id) != 0) {
      return 1;
    }
  }
  return 0;
}
