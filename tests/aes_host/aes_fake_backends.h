// Stand-ins for every hardware backend of the AES library, for host builds (FAKE_BACKENDS):
// each marks itself as using the accelerator, so that the front end takes the accelerator lock
// around it, and computes with the software backend. Shared by the host test drivers
// (tests/aes_host/aes_driver.c, aead_driver.c) and the API fuzzer (tests/fuzz_host/); it defines
// the backend tables, so include it in one file of a program only.
//
// The stand-ins of the engine's couplings (tight, mem, mmio, mmio_irq, dma) also take the
// authenticated layer's modes CBC_MAC, GCM and GHASH (aead_modes, aes_backend.h), written here
// from that contract on the software backend's ECB and a bit-serial GHASH (SP 800-38D,
// Algorithm 1), independently of aes_aead.c and aes_ghash.c; the zkn stand-in has none, so that
// the layer's other path runs behind the lock too. A mode a backend does not list is refused
// (COUPLET_ERR_ARG) and counted in fake.violations.
//
// Hooks for the includer: fake.probe_ctx (re-enter the API on that context from inside the next
// backend call, as another thread would while this one holds the accelerator; the statuses go to
// fake.crypt/set_key/zeroize), fake.hook (or call this function there instead, once),
// fake.fail_next (the next crypt, or the one after fake.fail_skip more, returns that status and
// does nothing) and the call counters (fake.mode_calls by crypt's mode).

#ifndef COUPLET_TESTS_AES_FAKE_BACKENDS_H_
#define COUPLET_TESTS_AES_FAKE_BACKENDS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <couplet/aes.h>

#include "aes_backend.h"

static struct {
  couplet_aes_ctx_t *probe_ctx;  // NULL: disarmed
  void (*hook)(void);            // NULL: disarmed
  int fired;
  couplet_status_t crypt, set_key, zeroize;
  int fail_next;  // -1: none
  int fail_skip;  // crypt calls to let through before fail_next fails one
  unsigned set_key_calls, crypt_calls, zeroize_calls;
  uint32_t key_id_at_zeroize;
  unsigned mode_calls[8];  // crypt calls by mode (AES_MODE_*)
  unsigned violations;     // modes asked of a backend that does not list them
} fake = {.fail_next = -1};

static void fake_probe(void) {
  if (fake.hook != NULL) {
    void (*hook)(void) = fake.hook;
    fake.hook = NULL;
    fake.fired = 1;
    hook();
    return;
  }
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

// The engine's authenticated modes (aes_backend.h), from their definitions.
#define FAKE_AEAD_MODES ((1u << AES_MODE_CBC_MAC) | (1u << AES_MODE_GCM) | (1u << AES_MODE_GHASH))

static couplet_status_t fake_block(couplet_aes_ctx_t *ctx, const uint8_t in[16], uint8_t out[16]) {
  return couplet_aes_backend_soft.crypt(ctx, COUPLET_AES_ECB, false, NULL, in, out, 1u);
}

static uint64_t fake_be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// x = x * y in GF(2^128): SP 800-38D Algorithm 1, one bit of x at a time (the block as two
// big-endian halves: its first bit is the top bit of v0).
static void fake_gf_mul(uint8_t x[16], const uint8_t y[16]) {
  uint64_t z0 = 0, z1 = 0, v0 = fake_be64(y), v1 = fake_be64(y + 8);
  for (int i = 0; i < 128; ++i) {
    if ((x[i / 8] >> (7 - i % 8)) & 1) {
      z0 ^= v0;
      z1 ^= v1;
    }
    const int lsb = (int)(v1 & 1u);
    v1 = v1 >> 1 | v0 << 63;
    v0 >>= 1;
    if (lsb) v0 ^= (uint64_t)0xE1 << 56;  // R = 11100001 || 0^120
  }
  for (int i = 0; i < 8; ++i) {
    x[i] = (uint8_t)(z0 >> (56 - 8 * i));
    x[8 + i] = (uint8_t)(z1 >> (56 - 8 * i));
  }
}

static couplet_status_t fake_aead_crypt(couplet_aes_ctx_t *ctx, uint32_t mode, bool decrypt, uint8_t *iv,
                                        const uint8_t *in, uint8_t *out, size_t blocks) {
  for (size_t b = 0; b < blocks; ++b) {
    uint8_t x[16], ks[16];
    memcpy(x, &in[16 * b], 16);
    if (mode == AES_MODE_CBC_MAC) {  // mac = AES(mac ^ block)
      for (int j = 0; j < 16; ++j) iv[j] ^= x[j];
      couplet_status_t status = fake_block(ctx, iv, iv);
      if (status != COUPLET_OK) return status;
      continue;
    }
    uint8_t *ctr = iv, *s = iv + 16, *h = iv + 32;  // GCM and GHASH: 48 bytes
    if (mode == AES_MODE_GCM) {  // CTR with inc32; GHASH of the ciphertext
      couplet_status_t status = fake_block(ctx, ctr, ks);
      if (status != COUPLET_OK) return status;
      uint32_t low = (uint32_t)ctr[12] << 24 | (uint32_t)ctr[13] << 16 | (uint32_t)ctr[14] << 8 | ctr[15];
      low += 1u;  // mod 2^32: bytes 0..11 never change
      for (int j = 0; j < 4; ++j) ctr[12 + j] = (uint8_t)(low >> (24 - 8 * j));
      uint8_t y[16];
      for (int j = 0; j < 16; ++j) y[j] = x[j] ^ ks[j];
      memcpy(&out[16 * b], y, 16);
      if (!decrypt) memcpy(x, y, 16);  // the ciphertext is hashed
    }
    for (int j = 0; j < 16; ++j) s[j] ^= x[j];  // GCM and GHASH: s = (s ^ X) * H
    fake_gf_mul(s, h);
  }
  return COUPLET_OK;
}

static couplet_status_t fake_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  fake.crypt_calls++;
  fake.mode_calls[(uint32_t)mode & 7u]++;
  fake_probe();
  if (fake.fail_next >= 0 && fake.fail_skip > 0) {
    fake.fail_skip--;
  } else if (fake.fail_next >= 0) {
    couplet_status_t status = (couplet_status_t)fake.fail_next;
    fake.fail_next = -1;
    return status;
  }
  if ((uint32_t)mode > (uint32_t)COUPLET_AES_OFB) {
    if ((uint32_t)mode > 7u || (ctx->backend->aead_modes & (1u << (uint32_t)mode)) == 0u) {
      fake.violations++;
      return COUPLET_ERR_ARG;
    }
    return fake_aead_crypt(ctx, (uint32_t)mode, decrypt, iv, in, out, blocks);
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

#define FAKE(var, id_, name_, aead_modes_) \
  const couplet_aes_backend_t var = {id_, name_, true, fake_set_key, fake_crypt, fake_zeroize, aead_modes_}
FAKE(couplet_aes_backend_tight, COUPLET_AES_BACKEND_TIGHT, "tight", FAKE_AEAD_MODES);
FAKE(couplet_aes_backend_mem, COUPLET_AES_BACKEND_MEM, "mem", FAKE_AEAD_MODES);
FAKE(couplet_aes_backend_mmio, COUPLET_AES_BACKEND_MMIO, "mmio", FAKE_AEAD_MODES);
FAKE(couplet_aes_backend_mmio_irq, COUPLET_AES_BACKEND_MMIO_IRQ, "mmio_irq", FAKE_AEAD_MODES);
FAKE(couplet_aes_backend_dma, COUPLET_AES_BACKEND_DMA, "dma", FAKE_AEAD_MODES);
FAKE(couplet_aes_backend_zkn, COUPLET_AES_BACKEND_ZKN, "zkn", 0u);

#endif  // COUPLET_TESTS_AES_FAKE_BACKENDS_H_
