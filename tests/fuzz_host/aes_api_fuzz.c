// The AES part of the API fuzzer (api_fuzz.c): random calls of couplet/aes.h and
// couplet/aes_held.h on a few contexts and hold handles, against a model of their contract.
//
// The model keeps, per context, what the headers say it is (initialised or not, its backend, its
// key) and, per handle, the hold it has; each call's expected status follows the order of the
// checks in aes.c's check_crypt and the headers, which is the order the contract gives. Results
// of good calls are computed independently: the modes of SP 800-38A written here on single-block
// ECB of the software backend (itself checked against FIPS-197 below and against the NIST
// vectors in tests/test_aes_host.py), so that the front end's chaining, CTR tail and counter,
// and every backend's use of them, are compared with a second implementation.
//
// Left out, because the contract does not say what happens: hold() on a handle that is still
// holding the accelerator, and re-initialising a context held by an accelerator hold onto the
// software backend (the accelerator's held calls would then run on a software context).

#include <stdlib.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_held.h>
#include <couplet/soc_config.h>

#include "../aes_host/aes_fake_backends.h"
#include "api_fuzz.h"

#define SLOTS 4
#define HANDLES 2
#define MAX_BYTES (8u * COUPLET_AES_BLOCK_BYTES)
#define MODES 5u

typedef struct {
  couplet_aes_ctx_t *ctx;
  bool init;
  uint32_t backend;
  size_t key_len;  // 0: no key
  uint8_t key[32];
} slot_t;

typedef struct {
  couplet_aes_held_t *held;
  bool holding;  // the hold has not ended (an accelerator hold lasts until release or zeroize)
  bool accel;    // holds the accelerator
  int slot;
  couplet_aes_mode_t mode;
  bool decrypt;
  uint8_t iv[16];  // the chaining value reached
} hold_t;

static slot_t slots[SLOTS];
static hold_t holds[HANDLES];
static int accel_holder = -1;  // the hold that has the accelerator
static couplet_aes_ctx_t ref;   // the model's software context

static const char *const backend_names[COUPLET_AES_BACKEND_COUNT] = {"soft", "tight", "mem", "mmio",
                                                                      "mmio_irq", "dma", "zkn"};

// Every stand-in takes the accelerator lock; the software backend does not.
static bool uses_accel(uint32_t backend) {
  return backend != (uint32_t)COUPLET_AES_BACKEND_SOFT;
}

static bool bad_key_len(size_t n) {
  return n != 16u && n != 24u && n != 32u;
}

// What the SoC configuration (the stand-in soc_config.h of the build) has: its backends, and
// what its engine can do (aes.h, couplet_aes_backend_supports).
static bool present(uint32_t backend) {
  switch (backend) {
    case COUPLET_AES_BACKEND_SOFT:
      return true;
    case COUPLET_AES_BACKEND_TIGHT:
#if defined(COUPLET_AES_HAS_TIGHT) && COUPLET_AES_HAS_TIGHT
      return true;
#else
      return false;
#endif
    case COUPLET_AES_BACKEND_MEM:
#if defined(COUPLET_AES_HAS_MEM) && COUPLET_AES_HAS_MEM
      return true;
#else
      return false;
#endif
    case COUPLET_AES_BACKEND_MMIO:
    case COUPLET_AES_BACKEND_MMIO_IRQ:
#if defined(COUPLET_AES_HAS_MMIO) && COUPLET_AES_HAS_MMIO
      return true;
#else
      return false;
#endif
    case COUPLET_AES_BACKEND_DMA:
#if defined(COUPLET_AES_HAS_DMA) && COUPLET_AES_HAS_DMA
      return true;
#else
      return false;
#endif
    case COUPLET_AES_BACKEND_ZKN:
#if defined(COUPLET_AES_HAS_ZKN) && COUPLET_AES_HAS_ZKN
      return true;
#else
      return false;
#endif
    default:
      return false;
  }
}

#ifndef COUPLET_AES_DEFAULT_BACKEND
#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_SOFT
#endif
#ifdef COUPLET_AES_ENGINE_DECRYPT
#define ENGINE_DECRYPT COUPLET_AES_ENGINE_DECRYPT
#define ENGINE_KEY_SIZES COUPLET_AES_ENGINE_KEY_SIZES
#else
#define ENGINE_DECRYPT 1
#define ENGINE_KEY_SIZES 7u
#endif

// The engine's refusals, for a backend that drives it (every stand-in here).
static couplet_status_t engine_refuses(uint32_t backend, couplet_aes_mode_t mode, bool decrypt, size_t key_len) {
  if (!uses_accel(backend)) return COUPLET_OK;
  if (key_len != 0u && ((ENGINE_KEY_SIZES >> (AES_KEY_LEN_128 + (key_len - 16u) / 8u)) & 1u) == 0u) {
    return COUPLET_ERR_UNSUPPORTED_KEY_SIZE;
  }
  if (!ENGINE_DECRYPT && decrypt && (mode == COUPLET_AES_ECB || mode == COUPLET_AES_CBC)) {
    return COUPLET_ERR_UNSUPPORTED_MODE;
  }
  return COUPLET_OK;
}

// ------------------------------------------------------------------------------------- model

static void ref_key(const uint8_t *key, size_t key_len) {
  if (couplet_aes_init_backend(&ref, COUPLET_AES_BACKEND_SOFT) != COUPLET_OK ||
      couplet_aes_set_key(&ref, key, key_len) != COUPLET_OK) {
    fuzz_fail("the model's key set-up failed");
  }
}

static void ref_block(bool decrypt, const uint8_t in[16], uint8_t out[16]) {
  const couplet_status_t status =
      decrypt ? couplet_aes_ecb_decrypt(&ref, in, out, 16u) : couplet_aes_ecb_encrypt(&ref, in, out, 16u);
  if (status != COUPLET_OK) fuzz_fail("the model's block failed: %s", couplet_status_name(status));
}

static void xor_block(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = (uint8_t)(a[i] ^ b[i]);
}

// SP 800-38A on `len` bytes of `in` (whole blocks, except CTR), with the key of slot s; iv is
// updated as the header defines. in and out are the model's own buffers.
static void model_crypt(const slot_t *s, couplet_aes_mode_t mode, bool decrypt, uint8_t iv[16], const uint8_t *in,
                        uint8_t *out, size_t len) {
  ref_key(s->key, s->key_len);
  uint8_t ks[16];
  for (size_t done = 0; done < len; done += 16u) {
    const size_t n = len - done < 16u ? len - done : 16u;
    const uint8_t *p = in + done;
    uint8_t *q = out + done;
    switch (mode) {
      case COUPLET_AES_ECB:
        ref_block(decrypt, p, q);
        break;
      case COUPLET_AES_CBC:
        if (decrypt) {
          ref_block(true, p, ks);
          xor_block(q, ks, iv, 16u);
          memcpy(iv, p, 16u);
        } else {
          xor_block(ks, p, iv, 16u);
          ref_block(false, ks, q);
          memcpy(iv, q, 16u);
        }
        break;
      case COUPLET_AES_CTR:
        ref_block(false, iv, ks);
        xor_block(q, p, ks, n);
        for (int i = 15; i >= 0 && ++iv[i] == 0u; --i) {
        }
        break;
      case COUPLET_AES_CFB:
        ref_block(false, iv, ks);
        xor_block(q, p, ks, 16u);
        memcpy(iv, decrypt ? p : q, 16u);
        break;
      default:  // OFB
        ref_block(false, iv, iv);
        xor_block(q, p, iv, 16u);
        break;
    }
  }
}

// FIPS-197 Appendix C.1, so that the model's block stands on a published vector.
static void known_answer(void) {
  static const uint8_t key[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                  0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};
  static const uint8_t pt[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  static const uint8_t ct[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
  uint8_t out[16];
  fuzz_call("aes known answer");
  ref_key(key, sizeof key);
  ref_block(false, pt, out);
  fuzz_expect_bytes("FIPS-197 C.1 ciphertext", out, ct, 16u);
}

// ------------------------------------------------------------------------------ arguments

// A context (-1: NULL, now and then).
static int pick_slot(void) {
  return fuzz_chance(4u) ? -1 : (int)fuzz_below(SLOTS);
}

static bool keyed(uint32_t i) {
  return slots[i].init && slots[i].key_len != 0u;
}

// Mostly a context with a key, so that good calls are as common as refused ones.
static int pick_keyed_slot(void) {
  return fuzz_chance(4u) ? -1 : (int)fuzz_prefer(SLOTS, keyed);
}

static couplet_aes_ctx_t *slot_ctx(int i) {
  return i < 0 ? NULL : slots[i].ctx;
}

static couplet_aes_mode_t pick_mode(bool allow_bad) {
  if (allow_bad && fuzz_chance(10u)) {
    static const uint32_t bad[] = {5u, 6u, 7u, 8u, 0x80u, 0xFFFFu, 0x7FFFFFFFu};
    return (couplet_aes_mode_t)bad[fuzz_below(sizeof bad / sizeof bad[0])];
  }
  return (couplet_aes_mode_t)fuzz_below(MODES);
}

// Mostly whole blocks; now and then any length.
static size_t pick_len(void) {
  return fuzz_chance(25u) ? fuzz_below(MAX_BYTES + 1u) : 16u * fuzz_below(MAX_BYTES / 16u + 1u);
}

static hold_t *holds_of_slot(int i, bool accel) {
  for (int h = 0; h < HANDLES; ++h) {
    if (holds[h].holding && holds[h].slot == i && holds[h].accel == accel) return &holds[h];
  }
  return NULL;
}

// The context lost or changed its key: a software hold on it ends for good (aes_held.h).
static void key_lost(int i) {
  slots[i].key_len = 0u;
  for (int h = 0; h < HANDLES; ++h) {
    if (holds[h].holding && !holds[h].accel && holds[h].slot == i) holds[h].holding = false;
  }
}

// ------------------------------------------------------------------------------------ steps

static void step_init(void) {
  const int i = pick_slot();
  const bool held_by_accel = i >= 0 && holds_of_slot(i, true) != NULL;
  uint32_t backend;
  bool by_default = fuzz_chance(15u);
  if (fuzz_chance(10u)) {
    static const uint32_t bad[] = {COUPLET_AES_BACKEND_COUNT, 8u, 100u, 0xFFFFFFFFu};
    backend = bad[fuzz_below(sizeof bad / sizeof bad[0])];
    by_default = false;
  } else {
    // Under an accelerator hold, only onto an accelerator backend (see the top).
    backend = held_by_accel ? 1u + fuzz_below(COUPLET_AES_BACKEND_COUNT - 1u) : fuzz_below(COUPLET_AES_BACKEND_COUNT);
    if (by_default) backend = (uint32_t)COUPLET_AES_DEFAULT_BACKEND;
  }
  couplet_status_t want = i < 0                                           ? COUPLET_ERR_NULL
                          : backend >= (uint32_t)COUPLET_AES_BACKEND_COUNT ? COUPLET_ERR_ARG
                          : !present(backend)                             ? COUPLET_ERR_UNSUPPORTED
                                                                          : COUPLET_OK;
  fuzz_call(by_default ? "couplet_aes_init" : "couplet_aes_init_backend");
  const couplet_status_t got = by_default ? couplet_aes_init(slot_ctx(i))
                                          : couplet_aes_init_backend(slot_ctx(i), (couplet_aes_backend_id_t)backend);
  fuzz_expect("aes_init", got, want);
  if (i < 0) return;
  // Whatever the outcome the key is gone; after an error the context is uninitialised.
  key_lost(i);
  slots[i].init = want == COUPLET_OK;
  slots[i].backend = backend;
  if (want == COUPLET_OK && slots[i].ctx->backend_id != backend) fuzz_fail("initialised with another backend");
}

static void step_set_key(void) {
  const int i = pick_slot();
  static const size_t bad[] = {0u, 1u, 8u, 15u, 17u, 20u, 23u, 25u, 31u, 33u, 48u, 64u, SIZE_MAX, SIZE_MAX / 2u + 16u};
  const size_t key_len = fuzz_chance(15u) ? bad[fuzz_below(sizeof bad / sizeof bad[0])] : 16u + 8u * fuzz_below(3u);
  // A refused length must not be read: its buffer is at most 64 bytes.
  fuzz_buf_t key = fuzz_chance(4u) ? fuzz_buf_null() : fuzz_buf(key_len > 64u ? 64u : key_len, true);
  couplet_status_t want = COUPLET_OK;
  if (i < 0 || key.p == NULL) {
    want = COUPLET_ERR_NULL;
  } else if (!slots[i].init) {
    want = COUPLET_ERR_STATE;
  } else if (bad_key_len(key_len)) {
    want = COUPLET_ERR_KEY_LEN;
  } else if (engine_refuses(slots[i].backend, COUPLET_AES_ECB, false, key_len) != COUPLET_OK) {
    want = COUPLET_ERR_UNSUPPORTED_KEY_SIZE;
  } else if (uses_accel(slots[i].backend) && accel_holder >= 0) {
    want = COUPLET_ERR_BUSY;
  }
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_aes_ctx_t));
  fuzz_snap_t key_before = fuzz_snap_buf(&key);
  fuzz_call("couplet_aes_set_key");
  fuzz_expect("aes_set_key", couplet_aes_set_key(slot_ctx(i), key.p, key_len), want);
  fuzz_snap_check(&key_before, "the key");
  if (want != COUPLET_OK) {
    fuzz_snap_check(&ctx_before, "the context");
  } else {
    fuzz_snap_free(&ctx_before);
    key_lost(i);
    slots[i].key_len = key_len;
    memcpy(slots[i].key, key.p, key_len);
  }
  fuzz_buf_free(&key);
}

static void step_zeroize(void) {
  const int i = pick_slot();
  hold_t *accel_hold = i >= 0 ? holds_of_slot(i, true) : NULL;
  couplet_status_t want = COUPLET_OK;
  if (i < 0) {
    want = COUPLET_ERR_NULL;
  } else if (!slots[i].init) {
    want = COUPLET_ERR_STATE;
  } else if (uses_accel(slots[i].backend) && accel_holder >= 0 && accel_hold == NULL) {
    want = COUPLET_ERR_BUSY;  // another context's hold has the accelerator
  }
  fuzz_snap_t before = fuzz_snap(slot_ctx(i), sizeof(couplet_aes_ctx_t));
  fuzz_call("couplet_aes_zeroize");
  fuzz_expect("aes_zeroize", couplet_aes_zeroize(slot_ctx(i)), want);
  if (want != COUPLET_OK) {
    fuzz_snap_check(&before, "the context");
    return;
  }
  fuzz_snap_free(&before);
  for (size_t w = 0; w < 8u; ++w) {
    if (slots[i].ctx->key[w] != 0u) fuzz_fail("key word %zu not wiped", w);
  }
  for (size_t w = 0; w < 60u; ++w) {
    if (slots[i].ctx->round_keys[w] != 0u) fuzz_fail("round key word %zu not wiped", w);
  }
  key_lost(i);
  if (accel_hold != NULL && uses_accel(slots[i].backend)) {
    accel_hold->holding = false;  // zeroize of the held context ends the hold
    accel_holder = -1;
  }
}

// Calls the named function of (mode, decrypt) as an application would; ECB takes no iv.
static couplet_status_t call_named(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt, uint8_t *iv,
                                   const uint8_t *in, uint8_t *out, size_t len) {
  switch (mode) {
    case COUPLET_AES_ECB:
      return decrypt ? couplet_aes_ecb_decrypt(ctx, in, out, len) : couplet_aes_ecb_encrypt(ctx, in, out, len);
    case COUPLET_AES_CBC:
      return decrypt ? couplet_aes_cbc_decrypt(ctx, iv, in, out, len) : couplet_aes_cbc_encrypt(ctx, iv, in, out, len);
    case COUPLET_AES_CTR:
      return couplet_aes_ctr_crypt(ctx, iv, in, out, len);
    case COUPLET_AES_CFB:
      return decrypt ? couplet_aes_cfb_decrypt(ctx, iv, in, out, len) : couplet_aes_cfb_encrypt(ctx, iv, in, out, len);
    default:
      return couplet_aes_ofb_crypt(ctx, iv, in, out, len);
  }
}

static const char *const named_kinds[MODES] = {"aes_ecb", "aes_cbc", "aes_ctr", "aes_cfb", "aes_ofb"};

// Input (a fresh buffer, or the output buffer for an in-place call) and output of `len` bytes;
// either may stand for NULL now and then.
typedef struct {
  fuzz_buf_t in, out;
  bool inplace;
} data_args_t;

static data_args_t pick_data(size_t len) {
  data_args_t d;
  d.inplace = fuzz_chance(25u);
  d.out = fuzz_chance(3u) ? fuzz_buf_null() : fuzz_buf(len, d.inplace);
  d.in = d.inplace ? d.out : (fuzz_chance(3u) ? fuzz_buf_null() : fuzz_buf(len, true));
  return d;
}

static void free_data(data_args_t *d) {
  fuzz_buf_free(&d->out);
  if (!d->inplace) fuzz_buf_free(&d->in);
}

// After a good call that wrote `len` bytes: the output is the model's, the bytes before it and
// the input (unless in place) are as they were.
static void check_output(const data_args_t *d, fuzz_snap_t *in_before, const uint8_t *want, size_t len) {
  fuzz_check_guard(&d->out, "the output");
  fuzz_expect_bytes("the output", d->out.p, want, len);
  if (d->inplace) {
    fuzz_snap_free(in_before);
  } else {
    fuzz_snap_check(in_before, "the input");
  }
}

static void step_crypt(void) {
  const int i = pick_keyed_slot();
  const bool generic = fuzz_chance(40u);
  const couplet_aes_mode_t mode = pick_mode(generic);
  const bool decrypt = fuzz_chance(50u);
  const size_t len = pick_len();
  data_args_t d = pick_data(len);
  fuzz_buf_t iv = fuzz_chance(4u) ? fuzz_buf_null() : fuzz_buf(16u, true);
  const uint8_t *ivp = !generic && mode == COUPLET_AES_ECB ? NULL : iv.p;
  couplet_status_t want = COUPLET_OK;
  if (i < 0 || (mode != COUPLET_AES_ECB && ivp == NULL) || (len != 0u && (d.in.p == NULL || d.out.p == NULL))) {
    want = COUPLET_ERR_NULL;
  } else if (!slots[i].init || slots[i].key_len == 0u) {
    want = COUPLET_ERR_STATE;
  } else if (mode != COUPLET_AES_CTR && len % 16u != 0u) {
    want = COUPLET_ERR_LEN;
  } else if ((uint32_t)mode >= MODES) {
    want = COUPLET_ERR_ARG;
  } else if (engine_refuses(slots[i].backend, mode, decrypt, 0u) != COUPLET_OK) {
    want = COUPLET_ERR_UNSUPPORTED_MODE;
  } else if (len != 0u && uses_accel(slots[i].backend) && accel_holder >= 0) {
    want = COUPLET_ERR_BUSY;
  }
  // The model's result, on copies.
  uint8_t *want_out = malloc(len + 1u);
  uint8_t want_iv[16];
  if (iv.p != NULL) memcpy(want_iv, iv.p, 16u);
  if (want == COUPLET_OK && len != 0u) {
    uint8_t *msg = malloc(len);
    memcpy(msg, d.in.p, len);
    model_crypt(&slots[i], mode, decrypt && mode != COUPLET_AES_CTR && mode != COUPLET_AES_OFB, want_iv, msg,
                want_out, len);
    free(msg);
  }
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_aes_ctx_t));
  fuzz_snap_t out_before = fuzz_snap_buf(&d.out);
  fuzz_snap_t in_before = fuzz_snap_buf(&d.in);
  fuzz_snap_t iv_before = fuzz_snap_buf(&iv);
  couplet_status_t got;
  if (generic) {
    fuzz_call("couplet_aes_crypt");
    got = couplet_aes_crypt(slot_ctx(i), mode, decrypt, iv.p, d.in.p, d.out.p, len);
  } else {
    fuzz_call(named_kinds[mode]);
    got = call_named(slot_ctx(i), mode, decrypt, iv.p, d.in.p, d.out.p, len);
  }
  fuzz_expect(generic ? "aes_crypt" : named_kinds[mode], got, want);
  // A crypt call never changes its context.
  fuzz_snap_check(&ctx_before, "the context");
  if (want != COUPLET_OK || len == 0u) {
    fuzz_snap_check(&out_before, "the output");
    fuzz_snap_check(&in_before, "the input");
    fuzz_snap_check(&iv_before, "the iv");
  } else {
    fuzz_snap_free(&out_before);
    check_output(&d, &in_before, want_out, len);
    if (mode == COUPLET_AES_ECB) {
      fuzz_snap_check(&iv_before, "the iv (ECB)");
    } else {
      fuzz_snap_free(&iv_before);
      fuzz_check_guard(&iv, "the iv");
      fuzz_expect_bytes("the chaining value", iv.p, want_iv, 16u);
    }
  }
  free(want_out);
  free_data(&d);
  fuzz_buf_free(&iv);
}

// A hold's calls need its context keyed; an accelerator hold also that it still has the lock.
static bool hold_usable(const hold_t *h) {
  return h->holding && slots[h->slot].init && slots[h->slot].key_len != 0u;
}

static void step_hold(void) {
  const int hi = (int)fuzz_below(HANDLES);
  hold_t *h = &holds[hi];
  if (h->holding && h->accel) return;  // see the top
  const bool null_held = fuzz_chance(3u);
  const int i = pick_keyed_slot();
  const couplet_aes_mode_t mode = pick_mode(true);
  const bool decrypt = fuzz_chance(50u);
  fuzz_buf_t iv = fuzz_chance(5u) ? fuzz_buf_null() : fuzz_buf(16u, true);
  couplet_status_t want = COUPLET_OK;
  if (null_held || i < 0 || (mode != COUPLET_AES_ECB && iv.p == NULL)) {
    want = COUPLET_ERR_NULL;
  } else if (!slots[i].init || slots[i].key_len == 0u) {
    want = COUPLET_ERR_STATE;
  } else if ((uint32_t)mode >= MODES) {
    want = COUPLET_ERR_ARG;
  } else if (engine_refuses(slots[i].backend, mode, decrypt && mode != COUPLET_AES_CTR && mode != COUPLET_AES_OFB,
                            0u) != COUPLET_OK) {
    want = COUPLET_ERR_UNSUPPORTED_MODE;
  } else if (uses_accel(slots[i].backend) && accel_holder >= 0) {
    want = COUPLET_ERR_BUSY;
  }
  fuzz_snap_t held_before = fuzz_snap(h->held, sizeof *h->held);
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_aes_ctx_t));
  fuzz_snap_t iv_before = fuzz_snap_buf(&iv);
  fuzz_call("couplet_aes_hold");
  fuzz_expect("aes_hold", couplet_aes_hold(null_held ? NULL : h->held, slot_ctx(i), mode, decrypt, iv.p), want);
  fuzz_snap_check(&ctx_before, "the context");
  fuzz_snap_check(&iv_before, "the iv");
  if (want != COUPLET_OK) {
    fuzz_snap_check(&held_before, "the handle");
  } else {
    fuzz_snap_free(&held_before);
    h->holding = true;
    h->accel = uses_accel(slots[i].backend);
    h->slot = i;
    h->mode = mode;
    h->decrypt = decrypt && mode != COUPLET_AES_CTR && mode != COUPLET_AES_OFB;
    if (mode == COUPLET_AES_ECB) {
      memset(h->iv, 0, 16u);
    } else {
      memcpy(h->iv, iv.p, 16u);
    }
    if (h->accel) accel_holder = hi;
  }
  fuzz_buf_free(&iv);
}

static bool holding(uint32_t h) {
  return holds[h].holding;
}

// Mostly a handle that holds.
static hold_t *pick_hold(void) {
  return &holds[fuzz_prefer(HANDLES, holding)];
}

static void step_held_crypt(void) {
  hold_t *h = pick_hold();
  const bool null_held = fuzz_chance(3u);
  const size_t len = pick_len();
  data_args_t d = pick_data(len);
  couplet_status_t want = COUPLET_OK;
  if (null_held) {
    want = COUPLET_ERR_NULL;
  } else if (!hold_usable(h)) {
    want = COUPLET_ERR_STATE;
  } else if (len != 0u && (d.in.p == NULL || d.out.p == NULL)) {
    want = COUPLET_ERR_NULL;
  } else if (len % 16u != 0u) {
    want = COUPLET_ERR_LEN;
  }
  uint8_t *want_out = malloc(len + 1u);
  uint8_t want_iv[16];
  memcpy(want_iv, h->iv, 16u);
  if (want == COUPLET_OK && len != 0u) {
    uint8_t *msg = malloc(len);
    memcpy(msg, d.in.p, len);
    model_crypt(&slots[h->slot], h->mode, h->decrypt, want_iv, msg, want_out, len);
    free(msg);
  }
  fuzz_snap_t out_before = fuzz_snap_buf(&d.out);
  fuzz_snap_t in_before = fuzz_snap_buf(&d.in);
  fuzz_snap_t held_before = fuzz_snap(h->held, sizeof *h->held);
  fuzz_call("couplet_aes_held_crypt");
  fuzz_expect("aes_held_crypt", couplet_aes_held_crypt(null_held ? NULL : h->held, d.in.p, d.out.p, len), want);
  if (want != COUPLET_OK || len == 0u) {
    fuzz_snap_check(&out_before, "the output");
    fuzz_snap_check(&in_before, "the input");
    fuzz_snap_check(&held_before, "the handle");
  } else {
    fuzz_snap_free(&out_before);
    fuzz_snap_free(&held_before);
    check_output(&d, &in_before, want_out, len);
    memcpy(h->iv, want_iv, 16u);
  }
  free(want_out);
  free_data(&d);
}

static void release(hold_t *h, bool null_held, fuzz_buf_t *iv) {
  // An accelerator hold gives the accelerator back even after its context lost its key.
  const bool holding = h->holding && (h->accel || hold_usable(h));
  const couplet_status_t want = null_held ? COUPLET_ERR_NULL : !holding ? COUPLET_ERR_STATE : COUPLET_OK;
  fuzz_snap_t held_before = fuzz_snap(h->held, sizeof *h->held);
  fuzz_snap_t iv_before = fuzz_snap_buf(iv);
  fuzz_call("couplet_aes_release");
  fuzz_expect("aes_release", couplet_aes_release(null_held ? NULL : h->held, iv->p), want);
  if (want != COUPLET_OK) {
    fuzz_snap_check(&held_before, "the handle");
    fuzz_snap_check(&iv_before, "the iv");
    return;
  }
  fuzz_snap_free(&held_before);
  if (iv->p != NULL && h->mode != COUPLET_AES_ECB) {
    fuzz_snap_free(&iv_before);
    fuzz_check_guard(iv, "the iv");
    fuzz_expect_bytes("the released chaining value", iv->p, h->iv, 16u);
  } else {
    fuzz_snap_check(&iv_before, "the iv");
  }
  if (h->accel) accel_holder = -1;
  h->holding = false;
}

static void step_release(void) {
  fuzz_buf_t iv = fuzz_chance(30u) ? fuzz_buf_null() : fuzz_buf(16u, true);
  release(pick_hold(), fuzz_chance(3u), &iv);
  fuzz_buf_free(&iv);
}

static void step_query(void) {
  static const uint32_t ids[] = {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 0xFFFFFFFFu};
  const uint32_t id = ids[fuzz_below(sizeof ids / sizeof ids[0])];
  const couplet_aes_mode_t mode = pick_mode(true);
  const size_t key_len = fuzz_chance(20u) ? fuzz_below(40u) : 16u + 8u * fuzz_below(3u);
  const bool known = id < (uint32_t)COUPLET_AES_BACKEND_COUNT;
  fuzz_call("couplet_aes_backend_name");
  if (strcmp(couplet_aes_backend_name((couplet_aes_backend_id_t)id), known ? backend_names[id] : "unknown") != 0) {
    fuzz_fail("wrong name of backend %u", (unsigned)id);
  }
  fuzz_call("couplet_aes_backend_available");
  if (couplet_aes_backend_available((couplet_aes_backend_id_t)id) != present(id)) {
    fuzz_fail("availability of backend %u", (unsigned)id);
  }
  fuzz_call("couplet_aes_backend_supports");
  const bool decrypt = fuzz_chance(50u);
  couplet_status_t want = COUPLET_OK;
  if (!known || (uint32_t)mode >= MODES || bad_key_len(key_len)) {
    want = COUPLET_ERR_ARG;
  } else if (!present(id)) {
    want = COUPLET_ERR_UNSUPPORTED;
  } else {
    want = engine_refuses(id, mode, decrypt, key_len);
  }
  fuzz_expect("aes_backend_supports",
              couplet_aes_backend_supports((couplet_aes_backend_id_t)id, mode, decrypt, key_len), want);
}

// Found by this fuzzer: a hold of the software backend came back to life when its context, wiped
// or re-initialised (the hold ended), got a key again, and then ran on that key; after a
// re-initialisation onto an accelerator backend, whose set_key leaves round_keys zero on the
// SoC, it would have encrypted with an all-zero key schedule. Each way must now end the hold.
static void regression_soft_hold_revived(void) {
  static const uint8_t key[16] = {1, 2, 3};
  uint8_t block[16] = {0}, out[16];
  couplet_aes_ctx_t ctx;
  couplet_aes_held_t held;
  for (int way = 0; way < 3; ++way) {
    fuzz_call("regression: software hold after its key changed");
    if (couplet_aes_init_backend(&ctx, COUPLET_AES_BACKEND_SOFT) != COUPLET_OK ||
        couplet_aes_set_key(&ctx, key, sizeof key) != COUPLET_OK ||
        couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL) != COUPLET_OK) {
      fuzz_fail("set-up");
    }
    couplet_status_t status = COUPLET_OK;
    if (way == 0) {
      status = couplet_aes_zeroize(&ctx);
    } else if (way == 1) {
      status = couplet_aes_init_backend(&ctx, COUPLET_AES_BACKEND_MMIO);
    }
    if (status != COUPLET_OK || couplet_aes_set_key(&ctx, key, sizeof key) != COUPLET_OK) fuzz_fail("re-key");
    fuzz_expect("aes_regression", couplet_aes_held_crypt(&held, block, out, sizeof block), COUPLET_ERR_STATE);
    fuzz_expect("aes_regression", couplet_aes_release(&held, NULL), COUPLET_ERR_STATE);
    fuzz_expect("aes_regression", couplet_aes_zeroize(&ctx), COUPLET_OK);
  }
}

void aes_fuzz_setup(void) {
  known_answer();
  regression_soft_hold_revived();
  for (int i = 0; i < SLOTS; ++i) {
    // Garbage, as a context's memory is before init: every call must refuse it.
    slots[i].ctx = malloc(sizeof(couplet_aes_ctx_t));
    fuzz_fill((uint8_t *)slots[i].ctx, sizeof(couplet_aes_ctx_t));
  }
  for (int h = 0; h < HANDLES; ++h) {
    holds[h].held = calloc(1u, sizeof(couplet_aes_held_t));
  }
}

void aes_fuzz_step(void) {
  const uint32_t r = fuzz_below(100u);
  if (r < 10u) {
    step_init();
  } else if (r < 22u) {
    step_set_key();
  } else if (r < 26u) {
    step_zeroize();
  } else if (r < 66u) {
    step_crypt();
  } else if (r < 74u) {
    step_hold();
  } else if (r < 88u) {
    step_held_crypt();
  } else if (r < 95u) {
    step_release();
  } else {
    step_query();
  }
}

void aes_fuzz_finish(void) {
  fuzz_buf_t none = fuzz_buf_null();
  for (int h = 0; h < HANDLES; ++h) {
    if (holds[h].holding && (holds[h].accel || hold_usable(&holds[h]))) release(&holds[h], false, &none);
  }
  for (int i = 0; i < SLOTS; ++i) {
    if (slots[i].init) {
      fuzz_call("couplet_aes_zeroize");
      fuzz_expect("aes_zeroize", couplet_aes_zeroize(slots[i].ctx), COUPLET_OK);
    }
    free(slots[i].ctx);
  }
  for (int h = 0; h < HANDLES; ++h) free(holds[h].held);
  if (atomic_load(&couplet_aes_accel.lock) != 0u) fuzz_fail("the accelerator lock is still taken");
}
