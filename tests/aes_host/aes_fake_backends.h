// Stand-ins for every hardware backend of the AES library, for host builds (FAKE_BACKENDS):
// each marks itself as using the accelerator, so that the front end takes the accelerator lock
// around it, and computes with the software backend. Shared by the host test driver
// (tests/aes_host/aes_driver.c) and the API fuzzer (tests/fuzz_host/); it defines the backend
// tables, so include it in one file of a program only.
//
// Hooks for the includer: fake.probe_ctx (re-enter the API on that context from inside the next
// backend call, as another thread would while this one holds the accelerator; the statuses go to
// fake.crypt/set_key/zeroize), fake.fail_next (the next crypt returns that status and does
// nothing) and the call counters.

#ifndef COUPLET_TESTS_AES_FAKE_BACKENDS_H_
#define COUPLET_TESTS_AES_FAKE_BACKENDS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/aes.h>

#include "aes_backend.h"

static struct {
  couplet_aes_ctx_t *probe_ctx;  // NULL: disarmed
  int fired;
  couplet_status_t crypt, set_key, zeroize;
  int fail_next;  // -1: none
  unsigned set_key_calls, crypt_calls, zeroize_calls;
  uint32_t key_id_at_zeroize;
} fake = {NULL, 0, COUPLET_OK, COUPLET_OK, COUPLET_OK, -1, 0u, 0u, 0u, 0u};

static void fake_probe(void) {
  if (fake.probe_ctx == NULL) return;
  couplet_aes_ctx_t *other = fake.probe_ctx;
  fake.probe_ctx = NULL;
  fake.fired = 1;
  uint8_t block[16] = {0};
  static const uint8_t key[16] = {1};
  fake.crypt = couplet_aes_ecb_encrypt(other, block, block, sizeof block);
  fake.set_key = couplet_aes_set_key(other, key, sizeof key);
  fake.zeroize = couplet_aes_zeroize(other);
}

static couplet_status_t fake_set_key(couplet_aes_ctx_t *ctx) {
  fake.set_key_calls++;
  fake_probe();
  return couplet_aes_backend_soft.set_key(ctx);
}

#ifdef FAKE_PLANT
#include <limits.h>
#include <stdlib.h>
// Deliberate bugs in the stand-ins' crypt, built in with FAKE_PLANT and chosen at run time by the
// environment variable FAKE_PLANT, so that tests/test_api_fuzz.py can show the fuzzer catches
// each kind: 1 writes a byte past the output (AddressSanitizer), 2 overflows a signed int
// (UndefinedBehaviorSanitizer), 3 flips a bit of the second block (the fuzzer's model).
static void fake_plant(uint8_t *out, size_t blocks) {
  static int plant = -1;
  if (plant < 0) {
    const char *chosen = getenv("FAKE_PLANT");
    plant = chosen == NULL ? 0 : atoi(chosen);
  }
  if (plant == 1) {
    out[blocks * COUPLET_AES_BLOCK_BYTES] = out[0];
  } else if (plant == 2) {
    volatile int sum = INT_MAX;
    sum += (int)blocks;
  } else if (plant == 3 && blocks > 1u) {
    out[COUPLET_AES_BLOCK_BYTES] ^= 1u;
  }
}
#endif

static couplet_status_t fake_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  fake.crypt_calls++;
  fake_probe();
  if (fake.fail_next >= 0) {
    couplet_status_t status = (couplet_status_t)fake.fail_next;
    fake.fail_next = -1;
    return status;
  }
  const couplet_status_t status = couplet_aes_backend_soft.crypt(ctx, mode, decrypt, iv, in, out, blocks);
#ifdef FAKE_PLANT
  fake_plant(out, blocks);
#endif
  return status;
}

static couplet_status_t fake_zeroize(couplet_aes_ctx_t *ctx) {
  fake.zeroize_calls++;
  fake.key_id_at_zeroize = ctx->key_id;
  fake_probe();
  return COUPLET_OK;
}

#define FAKE(var, id_, name_) \
  const couplet_aes_backend_t var = {id_, name_, true, fake_set_key, fake_crypt, fake_zeroize}
FAKE(couplet_aes_backend_tight, COUPLET_AES_BACKEND_TIGHT, "tight");
FAKE(couplet_aes_backend_mem, COUPLET_AES_BACKEND_MEM, "mem");
FAKE(couplet_aes_backend_mmio, COUPLET_AES_BACKEND_MMIO, "mmio");
FAKE(couplet_aes_backend_mmio_irq, COUPLET_AES_BACKEND_MMIO_IRQ, "mmio_irq");
FAKE(couplet_aes_backend_dma, COUPLET_AES_BACKEND_DMA, "dma");
FAKE(couplet_aes_backend_zkn, COUPLET_AES_BACKEND_ZKN, "zkn");

#endif  // COUPLET_TESTS_AES_FAKE_BACKENDS_H_
