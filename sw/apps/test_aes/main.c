// test_aes: every AES backend of this SoC against NIST vectors and against each other.
//
// For each available backend (software first, it is the reference for the random tests):
//  - the CAVP sample in cavp_vectors.c (every mode and key size, both directions);
//  - random messages in every mode and key size, compared with the software backend,
//    including the chaining value the call leaves in iv, unaligned and in-place buffers, a
//    message split over two calls, and decryption back to the plaintext;
//  - two contexts with different keys used in turn (the accelerator reloads keys);
//  - zeroize, and the error codes of bad arguments.
// Prints a line per backend and one per failure; exits 0 when everything passed.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_held.h>
#include <couplet/check.h>
#include <couplet/irq.h>
#include <couplet/sim.h>
#include <couplet/timer.h>

#include "cavp_vectors.h"

#ifndef RANDOM_MESSAGES  // per backend; a test of another engine may build with fewer
#define RANDOM_MESSAGES 24u
#endif
#define MAX_MESSAGE 96u

// Refusals of an engine built without the inverse cipher or some key sizes: each one the call
// gave, with an output buffer it left as it was (tests/test_aes_firmware.py counts them).
static uint32_t refused;

// True when `status` is `want`, a refusal, and `out` (len bytes, filled with 0xA5 before the
// call) is untouched: a refused call writes nothing.
static bool check_refused(const char *name, const char *what, couplet_status_t want, couplet_status_t status,
                          const uint8_t *out, size_t len) {
  if (!couplet_check_status(name, what, want, status)) {
    return false;
  }
  for (size_t i = 0; i < len; i++) {
    if (out[i] != 0xA5u) {
      couplet_check_fail(name, what, "a refused call wrote output");
      return false;
    }
  }
  refused++;
  return true;
}

static const char *mode_name(uint32_t mode) {
  static const char *const names[] = {"ECB", "CBC", "CTR", "CFB", "OFB"};
  return mode < 5u ? names[mode] : "?";
}

static uint32_t run_cavp(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  uint32_t passed = 0;
  for (size_t i = 0; i < cavp_vector_count; i++) {
    const aes_test_vector_t *v = &cavp_vectors[i];
    couplet_aes_ctx_t ctx;
    uint8_t iv[16] = {0};
    uint8_t out[160];
    if (v->iv != NULL) {
      memcpy(iv, v->iv, 16);
    }
    const couplet_status_t want =
        couplet_aes_backend_supports(id, (couplet_aes_mode_t)v->mode, v->decrypt, v->key_len);
    if (want != COUPLET_OK) {
      // An absent key size is refused by set_key, a mode by the call.
      memset(out, 0xA5, sizeof out);
      couplet_status_t got = couplet_aes_init_backend(&ctx, id);
      if (got == COUPLET_OK) {
        got = couplet_aes_set_key(&ctx, v->key, v->key_len);
      }
      if (got == COUPLET_OK) {
        got = couplet_aes_crypt(&ctx, (couplet_aes_mode_t)v->mode, v->decrypt, v->iv != NULL ? iv : NULL, v->in,
                                out, v->len);
      }
      if (check_refused(name, v->source, want, got, out, v->len)) {
        passed++;
      }
      continue;
    }
    if (!couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_init_backend(&ctx, id)) ||
        !couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_set_key(&ctx, v->key, v->key_len)) ||
        !couplet_check_status(name, v->source,  COUPLET_OK,
                              couplet_aes_crypt(&ctx, (couplet_aes_mode_t)v->mode, v->decrypt,
                                                v->iv != NULL ? iv : NULL, v->in, out, v->len))) {
      continue;
    }
    if (memcmp(out, v->out, v->len) != 0) {
      couplet_check_fail(name, v->source, "wrong output");
      continue;
    }
    passed++;
  }
  return passed;
}

// Encrypts (or decrypts) with `ctx` and with the software reference; compares the output and
// the chaining value the calls leave behind.
static bool compare_with_soft(const char *name, couplet_aes_ctx_t *ctx, couplet_aes_ctx_t *soft,
                              couplet_aes_mode_t mode, bool decrypt, const uint8_t iv0[16],
                              const uint8_t *in, uint8_t *out, size_t len, const char *what) {
  uint8_t iv[16], soft_iv[16], expected[MAX_MESSAGE];
  memcpy(iv, iv0, 16);
  memcpy(soft_iv, iv0, 16);
  uint8_t *ivp = mode == COUPLET_AES_ECB ? NULL : iv;
  uint8_t *soft_ivp = mode == COUPLET_AES_ECB ? NULL : soft_iv;
  if (!couplet_check_status("soft", what, COUPLET_OK,
                            couplet_aes_crypt(soft, mode, decrypt, soft_ivp, in, expected, len)) ||
      !couplet_check_status(name, what, COUPLET_OK, couplet_aes_crypt(ctx, mode, decrypt, ivp, in, out, len))) {
    return false;
  }
  if (memcmp(out, expected, len) != 0) {
    couplet_check_fail(name, what, "output differs from the software backend");
    return false;
  }
  if (ivp != NULL && memcmp(iv, soft_iv, 16) != 0) {
    couplet_check_fail(name, what, "chaining value differs from the software backend");
    return false;
  }
  return true;
}

static uint32_t run_random(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  uint32_t passed = 0;
  for (uint32_t r = 0; r < RANDOM_MESSAGES; r++) {
    couplet_aes_mode_t mode = (couplet_aes_mode_t)(r % 5u);
    size_t key_len = 16u + 8u * ((r / 5u) % 3u);
    size_t len = 16u * (1u + couplet_check_rand() % 5u);
    if (mode == COUPLET_AES_CTR) {
      len = 1u + couplet_check_rand() % MAX_MESSAGE;
    }
    // Odd offsets exercise unaligned buffers; every third message works in place.
    uint32_t in_offset = r % 2u, out_offset = (r / 2u) % 2u;
    bool in_place = r % 3u == 2u;
    static uint8_t in_buf[MAX_MESSAGE + 4], out_buf[MAX_MESSAGE + 4], back_buf[MAX_MESSAGE + 4];
    uint8_t key[32], iv0[16];
    couplet_check_fill(key, sizeof key);
    couplet_check_fill(iv0, sizeof iv0);
    uint8_t *msg = in_buf + in_offset;
    couplet_check_fill(msg, len);
    uint8_t plain[MAX_MESSAGE];
    memcpy(plain, msg, len);
    uint8_t *ct = in_place ? msg : out_buf + out_offset;

    couplet_aes_ctx_t ctx, soft;
    char what[64];
    snprintf(what, sizeof what, "random #%lu %s-%u len %u", (unsigned long)r, mode_name(mode),
             (unsigned)(key_len * 8u), (unsigned)len);
    if (couplet_aes_backend_supports(id, mode, false, key_len) == COUPLET_ERR_UNSUPPORTED_KEY_SIZE) {
      if (couplet_check_status(name, what, COUPLET_OK, couplet_aes_init_backend(&ctx, id)) &&
          check_refused(name, what, COUPLET_ERR_UNSUPPORTED_KEY_SIZE, couplet_aes_set_key(&ctx, key, key_len),
                        NULL, 0)) {
        passed++;
      }
      continue;
    }
    if (!couplet_check_status(name, what, COUPLET_OK, couplet_aes_init_backend(&ctx, id)) ||
        !couplet_check_status(name, what, COUPLET_OK, couplet_aes_init_backend(&soft, COUPLET_AES_BACKEND_SOFT)) ||
        !couplet_check_status(name, what, COUPLET_OK, couplet_aes_set_key(&ctx, key, key_len)) ||
        !couplet_check_status(name, what, COUPLET_OK, couplet_aes_set_key(&soft, key, key_len))) {
      continue;
    }
    if (!compare_with_soft(name, &ctx, &soft, mode, false, iv0, plain, ct, len, what)) {
      continue;
    }
    // Back to the plaintext: the stream modes decrypt by encrypting again.
    bool decrypt = mode == COUPLET_AES_ECB || mode == COUPLET_AES_CBC || mode == COUPLET_AES_CFB;
    uint8_t iv[16];
    memcpy(iv, iv0, 16);
    uint8_t *back = back_buf + in_offset;
    const couplet_status_t want = couplet_aes_backend_supports(id, mode, decrypt, key_len);
    if (want != COUPLET_OK) {
      memset(back, 0xA5, len);
      if (!check_refused(name, what, want,
                         couplet_aes_crypt(&ctx, mode, decrypt, mode == COUPLET_AES_ECB ? NULL : iv, ct, back, len),
                         back, len)) {
        continue;
      }
    } else if (!couplet_check_status(name, what, COUPLET_OK,
                                     couplet_aes_crypt(&ctx, mode, decrypt, mode == COUPLET_AES_ECB ? NULL : iv,
                                                       ct, back, len))) {
      continue;
    } else if (memcmp(back, plain, len) != 0) {
      couplet_check_fail(name, what, "decryption does not give the plaintext back");
      continue;
    }
    // The same message in two calls continues the chain (CTR: split at a block boundary).
    if (len >= 32u) {
      size_t first = 16u * ((len / 16u) / 2u);
      uint8_t split[MAX_MESSAGE];
      memcpy(iv, iv0, 16);
      uint8_t *ivp = mode == COUPLET_AES_ECB ? NULL : iv;
      if (!couplet_check_status(name, what, COUPLET_OK,
                                couplet_aes_crypt(&ctx, mode, false, ivp, plain, split, first)) ||
          !couplet_check_status(name, what, COUPLET_OK,
                                couplet_aes_crypt(&ctx, mode, false, ivp, plain + first, split + first, len - first))) {
        continue;
      }
      if (memcmp(split, ct, len) != 0) {
        couplet_check_fail(name, what, "two calls differ from one");
        continue;
      }
    }
    passed++;
  }
  return passed;
}

// Two contexts with different keys, used in turn: each call must use its own key even though
// the accelerator holds one key at a time.
static bool run_contexts(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  couplet_aes_ctx_t a, b, soft_a, soft_b;
  uint8_t key_a[16], key_b[32], msg[32], out[32], expected[32];
  // Two keys of different lengths where the backend has both.
  const size_t len_b = couplet_aes_backend_supports(id, COUPLET_AES_ECB, false, 32) == COUPLET_OK ? 32u : 16u;
  couplet_check_fill(key_a, sizeof key_a);
  couplet_check_fill(key_b, sizeof key_b);
  couplet_check_fill(msg, sizeof msg);
  if (!couplet_check_status(name, "contexts init", COUPLET_OK, couplet_aes_init_backend(&a, id)) ||
      !couplet_check_status(name, "contexts init", COUPLET_OK, couplet_aes_init_backend(&b, id)) ||
      !couplet_check_status(name, "contexts init", COUPLET_OK,
                            couplet_aes_init_backend(&soft_a, COUPLET_AES_BACKEND_SOFT)) ||
      !couplet_check_status(name, "contexts init", COUPLET_OK,
                            couplet_aes_init_backend(&soft_b, COUPLET_AES_BACKEND_SOFT)) ||
      !couplet_check_status(name, "contexts key", COUPLET_OK, couplet_aes_set_key(&a, key_a, 16)) ||
      !couplet_check_status(name, "contexts key", COUPLET_OK, couplet_aes_set_key(&b, key_b, len_b)) ||
      !couplet_check_status(name, "contexts key", COUPLET_OK, couplet_aes_set_key(&soft_a, key_a, 16)) ||
      !couplet_check_status(name, "contexts key", COUPLET_OK, couplet_aes_set_key(&soft_b, key_b, len_b))) {
    return false;
  }
  for (int turn = 0; turn < 4; turn++) {
    couplet_aes_ctx_t *ctx = turn % 2 ? &b : &a;
    couplet_aes_ctx_t *soft = turn % 2 ? &soft_b : &soft_a;
    if (!couplet_check_status(name, "contexts ecb", COUPLET_OK, couplet_aes_ecb_encrypt(ctx, msg, out, 32)) ||
        !couplet_check_status("soft", "contexts ecb", COUPLET_OK, couplet_aes_ecb_encrypt(soft, msg, expected, 32))) {
      return false;
    }
    if (memcmp(out, expected, 32) != 0) {
      couplet_check_fail(name, "contexts", "a context got another context's key");
      return false;
    }
  }
  return true;
}

static bool run_errors(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  couplet_aes_ctx_t ctx;
  uint8_t key[32] = {0}, buf[32] = {0}, iv[16] = {0};
  bool ok = couplet_check_status(name, "init", COUPLET_OK, couplet_aes_init_backend(&ctx, id));
  ok &= couplet_check_status(name, "crypt before set_key", COUPLET_ERR_STATE,
                             couplet_aes_ecb_encrypt(&ctx, buf, buf, 16));
  ok &= couplet_check_status(name, "key length 17", COUPLET_ERR_KEY_LEN, couplet_aes_set_key(&ctx, key, 17));
  ok &= couplet_check_status(name, "NULL key", COUPLET_ERR_NULL, couplet_aes_set_key(&ctx, NULL, 16));
  const size_t key_len = couplet_aes_backend_supports(id, COUPLET_AES_ECB, false, 32) == COUPLET_OK ? 32u : 16u;
  ok &= couplet_check_status(name, "set_key", COUPLET_OK, couplet_aes_set_key(&ctx, key, key_len));
  ok &= couplet_check_status(name, "ECB length 15", COUPLET_ERR_LEN, couplet_aes_ecb_encrypt(&ctx, buf, buf, 15));
  ok &= couplet_check_status(name, "CBC length 24", COUPLET_ERR_LEN, couplet_aes_cbc_encrypt(&ctx, iv, buf, buf, 24));
  ok &= couplet_check_status(name, "NULL output", COUPLET_ERR_NULL, couplet_aes_ecb_encrypt(&ctx, buf, NULL, 16));
  ok &= couplet_check_status(name, "NULL iv", COUPLET_ERR_NULL, couplet_aes_cbc_encrypt(&ctx, NULL, buf, buf, 16));
  ok &= couplet_check_status(name, "zeroize", COUPLET_OK, couplet_aes_zeroize(&ctx));
  ok &= couplet_check_status(name, "crypt after zeroize", COUPLET_ERR_STATE,
                             couplet_aes_ecb_encrypt(&ctx, buf, buf, 16));
  return ok;
}

// ---------------------------------------------------------------------------------------------
// Holding the accelerator (couplet/aes_held.h)

// An interrupt handler that uses the API while the accelerator is held: what it got.
static couplet_aes_ctx_t *irq_hw_ctx, *irq_soft_ctx;
static volatile couplet_status_t irq_hw_status, irq_soft_status;
static volatile uint32_t irq_taken;
static uint8_t irq_out[16] __attribute__((aligned(4)));
static uint8_t irq_soft_out[16] __attribute__((aligned(4)));

static void on_software_irq(uint32_t irq) {
  (void)irq;
  couplet_software_irq_clear();
  static const uint8_t block[16] __attribute__((aligned(4))) = {1, 2, 3};
  irq_hw_status = couplet_aes_ecb_encrypt(irq_hw_ctx, block, irq_out, 16);
  irq_soft_status = couplet_aes_ecb_encrypt(irq_soft_ctx, block, irq_soft_out, 16);
  irq_taken = irq_taken + 1u;
}

// Runs `msg` through a hold in `mode`, cut into calls of `piece` bytes (a multiple of 16), with
// buffers offset by `offset` bytes from word alignment, and compares output and the chaining
// value returned by release with the software backend's one-call result.
static bool held_matches(const char *name, couplet_aes_ctx_t *ctx, couplet_aes_ctx_t *soft,
                         couplet_aes_mode_t mode, bool decrypt, size_t len, size_t piece,
                         size_t offset) {
  static uint8_t in_buf[96 + 4] __attribute__((aligned(4)));
  static uint8_t out_buf[96 + 4] __attribute__((aligned(4)));
  uint8_t expected[96], iv[16], soft_iv[16];
  uint8_t *in = &in_buf[offset], *out = &out_buf[offset];
  couplet_check_fill(in, len);
  couplet_check_fill(iv, sizeof iv);
  memcpy(soft_iv, iv, sizeof iv);
  const uint8_t *hold_iv = mode == COUPLET_AES_ECB ? NULL : iv;
  if (!couplet_check_status("soft", "held reference", COUPLET_OK,
                            couplet_aes_crypt(soft, mode, decrypt, mode == COUPLET_AES_ECB ? NULL : soft_iv,
                                              in, expected, len))) {
    return false;
  }
  couplet_aes_held_t held;
  if (!couplet_check_status(name, "hold", COUPLET_OK, couplet_aes_hold(&held, ctx, mode, decrypt, hold_iv))) {
    return false;
  }
  bool ok = true;
  for (size_t done = 0; done < len; done += piece) {
    ok &= couplet_check_status(name, "held crypt", COUPLET_OK,
                               couplet_aes_held_crypt(&held, &in[done], &out[done], piece));
  }
  uint8_t iv_after[16] = {0};
  ok &= couplet_check_status(name, "release", COUPLET_OK, couplet_aes_release(&held, iv_after));
  if (ok && memcmp(out, expected, len) != 0) {
    couplet_check_fail(name, "held", "output differs from the software backend");
    ok = false;
  }
  if (ok && mode != COUPLET_AES_ECB && memcmp(iv_after, soft_iv, sizeof iv_after) != 0) {
    couplet_check_fail(name, "held", "chaining value differs from the software backend");
    ok = false;
  }
  return ok;
}

static bool run_held(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  couplet_aes_ctx_t ctx, other, soft;
  uint8_t key[32];
  couplet_check_fill(key, sizeof key);
  bool ok = couplet_check_status(name, "held init", COUPLET_OK, couplet_aes_init_backend(&ctx, id)) &&
            couplet_check_status(name, "held init", COUPLET_OK, couplet_aes_init_backend(&other, id)) &&
            couplet_check_status(name, "held init", COUPLET_OK,
                                 couplet_aes_init_backend(&soft, COUPLET_AES_BACKEND_SOFT));
  if (!ok) {
    return false;
  }
  // Every mode, key size and direction; whole messages and pieces; aligned and not.
  for (uint32_t k = 0; k < 3u && ok; k++) {
    const size_t key_len = 16u + 8u * k;
    if (couplet_aes_backend_supports(id, COUPLET_AES_ECB, false, key_len) != COUPLET_OK) {
      ok &= check_refused(name, "held key", COUPLET_ERR_UNSUPPORTED_KEY_SIZE, couplet_aes_set_key(&ctx, key, key_len),
                          NULL, 0);
      continue;
    }
    ok &= couplet_check_status(name, "held key", COUPLET_OK, couplet_aes_set_key(&ctx, key, key_len)) &&
          couplet_check_status("soft", "held key", COUPLET_OK, couplet_aes_set_key(&soft, key, key_len));
    for (uint32_t mode = 0; mode <= (uint32_t)COUPLET_AES_OFB && ok; mode++) {
      for (uint32_t decrypt = 0; decrypt < 2u && ok; decrypt++) {
        const couplet_status_t want =
            couplet_aes_backend_supports(id, (couplet_aes_mode_t)mode, decrypt != 0u, key_len);
        if (want != COUPLET_OK) {
          couplet_aes_held_t held;
          uint8_t iv[16] = {0};
          ok &= check_refused(name, "hold", want,
                              couplet_aes_hold(&held, &ctx, (couplet_aes_mode_t)mode, decrypt != 0u, iv), NULL, 0);
          continue;
        }
        ok &= held_matches(name, &ctx, &soft, (couplet_aes_mode_t)mode, decrypt != 0u, 96, 16, 0);
        ok &= held_matches(name, &ctx, &soft, (couplet_aes_mode_t)mode, decrypt != 0u, 96, 48, 0);
        ok &= held_matches(name, &ctx, &soft, (couplet_aes_mode_t)mode, decrypt != 0u, 64, 32, 1);
      }
    }
  }
  if (!ok) {
    return false;
  }

  // While held: other contexts of the accelerator and a second hold get BUSY and change nothing;
  // the held context cannot be re-keyed; the software backend goes on.
  static uint8_t block[16] __attribute__((aligned(4))), out[16] __attribute__((aligned(4)));
  couplet_check_fill(block, sizeof block);
  ok &= couplet_check_status(name, "other key", COUPLET_OK, couplet_aes_set_key(&other, key, 16));
  couplet_aes_held_t held, second;
  ok &= couplet_check_status(name, "hold", COUPLET_OK, couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL));
  const bool accel = id != COUPLET_AES_BACKEND_SOFT && id != COUPLET_AES_BACKEND_ZKN;
  const couplet_status_t busy = accel ? COUPLET_ERR_BUSY : COUPLET_OK;
  memset(out, 0xEE, sizeof out);
  ok &= couplet_check_status(name, "other context while held", busy, couplet_aes_ecb_encrypt(&other, block, out, 16));
  if (accel) {
    for (size_t i = 0; i < sizeof out; i++) {
      if (out[i] != 0xEEu) {
        couplet_check_fail(name, "other context while held", "a refused call wrote its output");
        ok = false;
        break;
      }
    }
  }
  ok &= couplet_check_status(name, "second hold", busy, couplet_aes_hold(&second, &other, COUPLET_AES_ECB, false, NULL));
  if (!accel && ok) {
    ok &= couplet_check_status(name, "second release", COUPLET_OK, couplet_aes_release(&second, NULL));
  }
  ok &= couplet_check_status(name, "set_key while held", busy, couplet_aes_set_key(&other, key, 16));
  ok &= couplet_check_status("soft", "software while held", COUPLET_OK, couplet_aes_ecb_encrypt(&soft, block, out, 16));

  // An interrupt handler using the API meanwhile.
  irq_hw_ctx = &other;
  irq_soft_ctx = &soft;
  irq_taken = 0u;
  irq_hw_status = COUPLET_ERR_HW;
  irq_soft_status = COUPLET_ERR_HW;
  ok &= couplet_check_status(name, "irq register", COUPLET_OK, couplet_irq_register(COUPLET_IRQ_SOFTWARE, on_software_irq));
  ok &= couplet_check_status(name, "irq enable", COUPLET_OK, couplet_irq_enable(COUPLET_IRQ_SOFTWARE));
  const bool was_enabled = couplet_irq_global_enable();
  couplet_software_irq_raise();
  for (uint32_t i = 0; i < 1000u && irq_taken == 0u; i++) {
    __asm__ volatile("nop");
  }
  couplet_irq_global_restore(was_enabled);
  ok &= couplet_check_status(name, "irq disable", COUPLET_OK, couplet_irq_disable(COUPLET_IRQ_SOFTWARE));
  if (irq_taken != 1u) {
    couplet_check_fail(name, "interrupt while held", "the handler did not run once");
    ok = false;
  }
  ok &= couplet_check_status(name, "interrupt handler, accelerator context", busy, irq_hw_status);
  ok &= couplet_check_status("soft", "interrupt handler, software context", COUPLET_OK, irq_soft_status);

  // The hold still works after all that, then ends; a released hold refuses.
  ok &= couplet_check_status(name, "held after refusals", COUPLET_OK, couplet_aes_held_crypt(&held, block, out, 16));
  ok &= couplet_check_status(name, "held length 15", COUPLET_ERR_LEN, couplet_aes_held_crypt(&held, block, out, 15));
  ok &= couplet_check_status(name, "held NULL output", COUPLET_ERR_NULL, couplet_aes_held_crypt(&held, block, NULL, 16));
  ok &= couplet_check_status(name, "release", COUPLET_OK, couplet_aes_release(&held, NULL));
  ok &= couplet_check_status(name, "release twice", COUPLET_ERR_STATE, couplet_aes_release(&held, NULL));
  ok &= couplet_check_status(name, "held after release", COUPLET_ERR_STATE, couplet_aes_held_crypt(&held, block, out, 16));
  ok &= couplet_check_status(name, "other context after release", COUPLET_OK, couplet_aes_ecb_encrypt(&other, block, out, 16));
  ok &= couplet_check_status(name, "hold NULL iv", COUPLET_ERR_NULL, couplet_aes_hold(&held, &ctx, COUPLET_AES_CBC, false, NULL));
  ok &= couplet_check_status(name, "hold mode 5", COUPLET_ERR_ARG, couplet_aes_hold(&held, &ctx, (couplet_aes_mode_t)5, false, block));

  // zeroize while held: the key leaves the accelerator and the hold ends.
  ok &= couplet_check_status(name, "hold", COUPLET_OK, couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL));
  ok &= couplet_check_status(name, "zeroize while held", COUPLET_OK, couplet_aes_zeroize(&ctx));
  ok &= couplet_check_status(name, "held after zeroize", COUPLET_ERR_STATE, couplet_aes_held_crypt(&held, block, out, 16));
  ok &= couplet_check_status(name, "release after zeroize", COUPLET_ERR_STATE, couplet_aes_release(&held, NULL));
  ok &= couplet_check_status(name, "crypt after zeroize", COUPLET_ERR_STATE, couplet_aes_ecb_encrypt(&ctx, block, out, 16));
  ok &= couplet_check_status(name, "hold after zeroize", COUPLET_ERR_STATE, couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL));
  ok &= couplet_check_status(name, "other context after zeroize", COUPLET_OK, couplet_aes_ecb_encrypt(&other, block, out, 16));

  // Re-initialising the held context wipes only the context: a hold of the accelerator goes on
  // until its release, which gives the accelerator back.
  if (accel) {
    ok &= couplet_check_status(name, "key again", COUPLET_OK, couplet_aes_set_key(&ctx, key, 16));
    ok &= couplet_check_status(name, "hold", COUPLET_OK, couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL));
    ok &= couplet_check_status(name, "init while held", COUPLET_OK, couplet_aes_init_backend(&ctx, id));
    static uint8_t odd[20] __attribute__((aligned(4)));  // &odd[1]: unaligned, the checked path
    ok &= couplet_check_status(name, "held unaligned after init", COUPLET_ERR_STATE,
                               couplet_aes_held_crypt(&held, &odd[1], out, 16));
    ok &= couplet_check_status(name, "release after init", COUPLET_OK, couplet_aes_release(&held, NULL));
    ok &= couplet_check_status(name, "other context after init", COUPLET_OK, couplet_aes_ecb_encrypt(&other, block, out, 16));
  }
  return ok;
}

int main(void) {
  printf("test_aes: %u CAVP vectors, %u random messages per backend\n", (unsigned)cavp_vector_count,
         (unsigned)RANDOM_MESSAGES);
  couplet_aes_ctx_t ctx;
  if (!couplet_check_status("-", "unknown backend", COUPLET_ERR_ARG,
                            couplet_aes_init_backend(&ctx, COUPLET_AES_BACKEND_COUNT))) {
    return 1;
  }
  for (uint32_t b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    couplet_aes_backend_id_t id = (couplet_aes_backend_id_t)b;
    if (!couplet_aes_backend_available(id)) {
      if (!couplet_check_status(couplet_aes_backend_name(id), "absent backend", COUPLET_ERR_UNSUPPORTED,
                                couplet_aes_init_backend(&ctx, id))) {
        return 1;
      }
      printf("backend %-8s absent in this SoC\n", couplet_aes_backend_name(id));
      continue;
    }
    uint32_t before = couplet_check_failures();
    refused = 0;
    uint32_t cavp = run_cavp(id);
    uint32_t random = run_random(id);
    bool contexts = run_contexts(id);
    bool errors = run_errors(id);
    bool held = run_held(id);
    printf("backend %-8s cavp %lu/%u random %lu/%u contexts %s errors %s held %s refused %lu\n",
           couplet_aes_backend_name(id), (unsigned long)cavp, (unsigned)cavp_vector_count,
           (unsigned long)random, (unsigned)RANDOM_MESSAGES, contexts ? "ok" : "FAIL",
           errors ? "ok" : "FAIL", held ? "ok" : "FAIL", (unsigned long)refused);
    if (couplet_check_failures() != before) {
      printf("backend %s: %lu failures\n", couplet_aes_backend_name(id),
             (unsigned long)(couplet_check_failures() - before));
    }
  }
  return couplet_check_failures() == 0u ? 0 : 1;
}
