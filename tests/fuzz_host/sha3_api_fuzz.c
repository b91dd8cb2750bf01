// The SHA-3 part of the API fuzzer (api_fuzz.c): random calls of couplet/sha3.h and
// couplet/sha3_held.h on a few contexts and hold handles, against a model of their contract
// (the error list at the top of each header, in its order).
//
// The model keeps, per context, its phase, backend, algorithm, the message absorbed so far and
// the output squeezed so far; the expected digest or output of a good call is the software
// backend's one-shot hash of that whole message (checked against FIPS 202 vectors below and
// hashlib in tests/test_sha3_host.py), a different path through the front end than the pieces of
// the context calls. The stand-ins' protocol checks (sha3_fake_backends.h) must count no
// violation, and now and then a stand-in fails an operation (COUPLET_ERR_HW, _TIMEOUT): the call
// must return that error and the context then refuse everything until it is initialised again.
//
// Left out, because the contract does not say what happens: hold() on a handle that is still
// holding the accelerator, with a software backend (it would forget the accelerator's hold).

#include <stdlib.h>
#include <string.h>

#include <couplet/sha3.h>
#include <couplet/sha3_held.h>

#include "api_fuzz.h"
#include "../sha3_host/sha3_fake_backends.h"

#define SLOTS 4
#define HANDLES 2
#define ALGS 6u
#define MAX_MESSAGE 2048u
#define MAX_OUTPUT 1024u

enum { UNINIT, ABSORBING, SQUEEZING, FINISHED };

typedef struct {
  couplet_sha3_ctx_t *ctx;
  int phase;
  uint32_t backend;
  couplet_sha3_alg_t alg;
  uint8_t msg[MAX_MESSAGE];
  size_t msg_len;
  size_t squeezed;  // output bytes returned so far
} slot_t;

typedef struct {
  couplet_sha3_held_t *held;
  bool holding;
  uint32_t backend;
} hold_t;

static slot_t slots[SLOTS];
static hold_t holds[HANDLES];
static bool accel_held;

static const uint32_t rates[ALGS] = {144u, 136u, 104u, 72u, 168u, 136u};
static const size_t digests[ALGS] = {28u, 32u, 48u, 64u, 0u, 0u};

static bool is_shake(uint32_t alg) {
  return alg == (uint32_t)COUPLET_SHAKE128 || alg == (uint32_t)COUPLET_SHAKE256;
}

// Context calls take the accelerator lock for every stand-in (ise's too); the one-shot and held
// calls decide by id: from TIGHT on.
static bool ctx_uses_accel(uint32_t backend) {
  return backend != (uint32_t)COUPLET_SHA3_BACKEND_SOFT;
}

static bool id_uses_accel(uint32_t backend) {
  return backend >= (uint32_t)COUPLET_SHA3_BACKEND_TIGHT;
}

// The backends of the SoC configuration (the stand-in soc_config.h of the build).
static bool present(uint32_t backend) {
  static const bool has[COUPLET_SHA3_BACKEND_COUNT] = {
      [COUPLET_SHA3_BACKEND_SOFT] = true,
#if defined(COUPLET_SHA3_HAS_ISE) && COUPLET_SHA3_HAS_ISE
      [COUPLET_SHA3_BACKEND_ISE] = true,
#endif
#if defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT
      [COUPLET_SHA3_BACKEND_TIGHT] = true,
#endif
#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM
      [COUPLET_SHA3_BACKEND_MEM] = true,
#endif
#if defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO
      [COUPLET_SHA3_BACKEND_MMIO] = true,
#endif
#if defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA
      [COUPLET_SHA3_BACKEND_DMA] = true,
#endif
  };
  return backend < (uint32_t)COUPLET_SHA3_BACKEND_COUNT && has[backend];
}

// ------------------------------------------------------------------------------------- model

// The first n bytes of alg's output for `msg`, by the software backend's one-shot call.
static void model_hash(couplet_sha3_alg_t alg, const uint8_t *msg, size_t len, uint8_t *out, size_t n) {
  const couplet_status_t status = is_shake(alg)
                                      ? couplet_shake_using(COUPLET_SHA3_BACKEND_SOFT, alg, msg, len, out, n)
                                      : couplet_sha3_using(COUPLET_SHA3_BACKEND_SOFT, alg, msg, len, out, n);
  if (status != COUPLET_OK) fuzz_fail("the model's hash failed: %s", couplet_status_name(status));
}

// FIPS 202 examples (NIST's SHA3-256 "abc" and SHAKE128 of the empty message).
static void known_answer(void) {
  static const uint8_t abc[32] = {0x3a, 0x98, 0x5d, 0xa7, 0x4f, 0xe2, 0x25, 0xb2, 0x04, 0x5c, 0x17,
                                  0x2d, 0x6b, 0xd3, 0x90, 0xbd, 0x85, 0x5f, 0x08, 0x6e, 0x3e, 0x9d,
                                  0x52, 0x5b, 0x46, 0xbf, 0xe2, 0x45, 0x11, 0x43, 0x15, 0x32};
  static const uint8_t shake[32] = {0x7f, 0x9c, 0x2b, 0xa4, 0xe8, 0x8f, 0x82, 0x7d, 0x61, 0x60, 0x45,
                                    0x50, 0x76, 0x05, 0x85, 0x3e, 0xd7, 0x3b, 0x80, 0x93, 0xf6, 0xef,
                                    0xbc, 0x88, 0xeb, 0x1a, 0x6e, 0xac, 0xfa, 0x66, 0xef, 0x26};
  uint8_t out[32];
  fuzz_call("sha3 known answer");
  model_hash(COUPLET_SHA3_256, (const uint8_t *)"abc", 3u, out, 32u);
  fuzz_expect_bytes("SHA3-256(\"abc\")", out, abc, 32u);
  model_hash(COUPLET_SHAKE128, NULL, 0u, out, 32u);
  fuzz_expect_bytes("SHAKE128(\"\")", out, shake, 32u);
}

// ------------------------------------------------------------------------------ arguments

static int pick_slot(void) {
  return fuzz_chance(4u) ? -1 : (int)fuzz_below(SLOTS);
}

static bool absorbing(uint32_t i) {
  return slots[i].phase == ABSORBING;
}

static bool squeezing(uint32_t i) {
  return slots[i].phase == SQUEEZING;
}

static bool holding(uint32_t h) {
  return holds[h].holding;
}

// Mostly a context in the phase that `wanted` asks for, or a handle that holds, so that good
// calls are as common as refused ones.
static int pick_slot_where(bool (*wanted)(uint32_t)) {
  return fuzz_chance(4u) ? -1 : (int)fuzz_prefer(SLOTS, wanted);
}

static hold_t *pick_hold(void) {
  return &holds[fuzz_prefer(HANDLES, holding)];
}

static couplet_sha3_ctx_t *slot_ctx(int i) {
  return i < 0 ? NULL : slots[i].ctx;
}

static uint32_t pick_alg(void) {
  if (fuzz_chance(5u)) {
    static const uint32_t bad[] = {ALGS, 7u, 8u, 100u, 0xFFFFFFFFu};
    return bad[fuzz_below(sizeof bad / sizeof bad[0])];
  }
  return fuzz_below(ALGS);
}

static uint32_t pick_backend(void) {
  if (fuzz_chance(5u)) {
    static const uint32_t bad[] = {COUPLET_SHA3_BACKEND_COUNT, 7u, 8u, 0xFFFFFFFFu};
    return bad[fuzz_below(sizeof bad / sizeof bad[0])];
  }
  return fuzz_below(COUPLET_SHA3_BACKEND_COUNT);
}

// A data length around the rate (0, short, a block exactly, a few blocks).
static size_t pick_len(uint32_t rate) {
  switch (fuzz_below(4u)) {
    case 0:
      return fuzz_below(8u);
    case 1:
      return fuzz_below(rate + 1u);
    case 2:
      return rate * fuzz_below(3u) + (fuzz_chance(50u) ? 0u : rate - 1u);
    default:
      return fuzz_below(3u * rate + 8u);
  }
}

// A data buffer of len bytes, or NULL now and then.
static fuzz_buf_t pick_data(size_t len) {
  return fuzz_chance(4u) ? fuzz_buf_null() : fuzz_buf(len, true);
}

// Bytes of the current output block already returned (sha3.h's ctx->squeezed).
static size_t squeezed_in_block(const slot_t *s) {
  const size_t rate = rates[s->alg];
  return s->squeezed == 0u ? 0u : (s->squeezed - 1u) % rate + 1u;
}

// Now and then, a stand-in fails the first operation of a call that will reach it.
static couplet_status_t maybe_fail(const slot_t *s, couplet_status_t want) {
  if (want != COUPLET_OK || s->backend == (uint32_t)COUPLET_SHA3_BACKEND_SOFT || !fuzz_chance(4u)) return want;
  fake.fail_next = fuzz_chance(50u) ? COUPLET_ERR_HW : COUPLET_ERR_TIMEOUT;
  return (couplet_status_t)fake.fail_next;
}

// After every call: the stand-ins saw the backend protocol kept, and no failure is left armed.
static void after_call(void) {
  fake.fail_next = -1;
  if (fake.violations != 0u) fuzz_fail("the front end broke the backend protocol (%u violations)", fake.violations);
}

// ------------------------------------------------------------------------------------ steps

static void step_init(void) {
  const int i = pick_slot();
  const uint32_t alg = pick_alg();
  const bool by_default = fuzz_chance(15u);
  const uint32_t backend = by_default ? (uint32_t)COUPLET_SHA3_DEFAULT_BACKEND : pick_backend();
  const bool bad = alg >= ALGS || backend >= (uint32_t)COUPLET_SHA3_BACKEND_COUNT;
  const couplet_status_t want = i < 0               ? COUPLET_ERR_NULL
                                : bad               ? COUPLET_ERR_ARG
                                : !present(backend) ? COUPLET_ERR_UNSUPPORTED
                                                    : COUPLET_OK;
  fuzz_call(by_default ? "couplet_sha3_init" : "couplet_sha3_init_backend");
  const couplet_status_t got =
      by_default ? couplet_sha3_init(slot_ctx(i), (couplet_sha3_alg_t)alg)
                 : couplet_sha3_init_backend(slot_ctx(i), (couplet_sha3_alg_t)alg, (couplet_sha3_backend_id_t)backend);
  fuzz_expect("sha3_init", got, want);
  after_call();
  if (i < 0) return;
  slot_t *s = &slots[i];
  s->phase = want == COUPLET_OK ? ABSORBING : UNINIT;
  s->alg = (couplet_sha3_alg_t)alg;
  s->backend = backend;
  s->msg_len = 0u;
  s->squeezed = 0u;
}

static void step_update(void) {
  const int i = pick_slot_where(absorbing);
  slot_t *s = i < 0 ? NULL : &slots[i];
  const bool in_absorbing = s != NULL && s->phase == ABSORBING;
  size_t len = pick_len(in_absorbing ? rates[s->alg] : 136u);
  if (in_absorbing && s->msg_len + len > MAX_MESSAGE) len = MAX_MESSAGE - s->msg_len;
  fuzz_buf_t data = pick_data(len);
  couplet_status_t want = COUPLET_OK;
  if (s == NULL || (len != 0u && data.p == NULL)) {
    want = COUPLET_ERR_NULL;
  } else if (!in_absorbing) {
    want = COUPLET_ERR_STATE;
  } else if (len >= rates[s->alg] - s->msg_len % rates[s->alg]) {
    // It reaches the backend: the accelerator's, for a stand-in.
    want = ctx_uses_accel(s->backend) && accel_held ? COUPLET_ERR_BUSY : maybe_fail(s, COUPLET_OK);
  }
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_sha3_ctx_t));
  fuzz_snap_t data_before = fuzz_snap_buf(&data);
  fuzz_call("couplet_sha3_update");
  fuzz_expect("sha3_update", couplet_sha3_update(slot_ctx(i), data.p, len), want);
  after_call();
  fuzz_snap_check(&data_before, "the data");
  if (want == COUPLET_OK) {
    fuzz_snap_free(&ctx_before);
    if (len != 0u) memcpy(s->msg + s->msg_len, data.p, len);
    s->msg_len += len;
  } else if (want == COUPLET_ERR_HW || want == COUPLET_ERR_TIMEOUT) {
    fuzz_snap_free(&ctx_before);
    s->phase = FINISHED;  // the message is lost
  } else {
    fuzz_snap_check(&ctx_before, "the context");
  }
  fuzz_buf_free(&data);
}

static void step_final(void) {
  const int i = pick_slot_where(absorbing);
  slot_t *s = i < 0 ? NULL : &slots[i];
  const size_t size = s != NULL && s->alg < ALGS ? digests[s->alg] : 32u;
  // Mostly long enough, exactly or with room to spare (which must stay untouched).
  const size_t digest_len =
      fuzz_chance(20u) ? fuzz_below((uint32_t)size + 1u) : size + (fuzz_chance(50u) ? 0u : fuzz_below(9u));
  fuzz_buf_t digest = fuzz_chance(4u) ? fuzz_buf_null() : fuzz_buf(digest_len, false);
  couplet_status_t want = COUPLET_OK;
  if (s == NULL || digest.p == NULL) {
    want = COUPLET_ERR_NULL;
  } else if (s->phase != ABSORBING || is_shake(s->alg)) {
    want = COUPLET_ERR_STATE;
  } else if (digest_len < size) {
    want = COUPLET_ERR_LEN;
  } else if (ctx_uses_accel(s->backend) && accel_held) {
    want = COUPLET_ERR_BUSY;
  } else {
    want = maybe_fail(s, COUPLET_OK);
  }
  uint8_t model[COUPLET_SHA3_MAX_DIGEST];
  if (want == COUPLET_OK) model_hash(s->alg, s->msg, s->msg_len, model, size);
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_sha3_ctx_t));
  fuzz_snap_t digest_before = fuzz_snap_buf(&digest);
  fuzz_call("couplet_sha3_final");
  fuzz_expect("sha3_final", couplet_sha3_final(slot_ctx(i), digest.p, digest_len), want);
  after_call();
  if (want == COUPLET_OK) {
    fuzz_snap_free(&ctx_before);
    fuzz_snap_free(&digest_before);
    fuzz_check_guard(&digest, "the digest");
    fuzz_expect_bytes("the digest", digest.p, model, size);
    for (size_t b = size; b < digest_len; ++b) {
      if (digest.p[b] != 0xEEu) fuzz_fail("wrote byte %zu past the digest", b);
    }
    s->phase = FINISHED;
  } else if (want == COUPLET_ERR_HW || want == COUPLET_ERR_TIMEOUT) {
    fuzz_snap_free(&ctx_before);
    fuzz_snap_free(&digest_before);
    s->phase = FINISHED;
  } else {
    fuzz_snap_check(&ctx_before, "the context");
    fuzz_snap_check(&digest_before, "the digest buffer");
  }
  fuzz_buf_free(&digest);
}

static void step_shake_final(void) {
  const int i = pick_slot_where(absorbing);
  slot_t *s = i < 0 ? NULL : &slots[i];
  couplet_status_t want = COUPLET_OK;
  if (s == NULL) {
    want = COUPLET_ERR_NULL;
  } else if (s->phase != ABSORBING || !is_shake(s->alg)) {
    want = COUPLET_ERR_STATE;
  } else if (ctx_uses_accel(s->backend) && accel_held) {
    want = COUPLET_ERR_BUSY;
  } else {
    want = maybe_fail(s, COUPLET_OK);
  }
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_sha3_ctx_t));
  fuzz_call("couplet_shake_final");
  fuzz_expect("shake_final", couplet_shake_final(slot_ctx(i)), want);
  after_call();
  if (want == COUPLET_OK) {
    fuzz_snap_free(&ctx_before);
    s->phase = SQUEEZING;
    s->squeezed = 0u;
  } else if (want == COUPLET_ERR_HW || want == COUPLET_ERR_TIMEOUT) {
    fuzz_snap_free(&ctx_before);
    s->phase = FINISHED;
  } else {
    fuzz_snap_check(&ctx_before, "the context");
  }
}

static void step_squeeze(void) {
  const int i = pick_slot_where(squeezing);
  slot_t *s = i < 0 ? NULL : &slots[i];
  const bool in_squeezing = s != NULL && s->phase == SQUEEZING;
  size_t len = pick_len(in_squeezing ? rates[s->alg] : 136u);
  if (in_squeezing && s->squeezed + len > MAX_OUTPUT) len = s->squeezed < MAX_OUTPUT ? MAX_OUTPUT - s->squeezed : 0u;
  fuzz_buf_t out = fuzz_chance(4u) ? fuzz_buf_null() : fuzz_buf(len, false);
  couplet_status_t want = COUPLET_OK;
  if (s == NULL || (len != 0u && out.p == NULL)) {
    want = COUPLET_ERR_NULL;
  } else if (!in_squeezing) {
    want = COUPLET_ERR_STATE;
  } else if (len > rates[s->alg] - squeezed_in_block(s)) {
    want = ctx_uses_accel(s->backend) && accel_held ? COUPLET_ERR_BUSY : maybe_fail(s, COUPLET_OK);
  }
  uint8_t *model = NULL;
  if (want == COUPLET_OK) {
    model = malloc(s->squeezed + len + 1u);
    model_hash(s->alg, s->msg, s->msg_len, model, s->squeezed + len);
  }
  fuzz_snap_t ctx_before = fuzz_snap(slot_ctx(i), sizeof(couplet_sha3_ctx_t));
  fuzz_snap_t out_before = fuzz_snap_buf(&out);
  fuzz_call("couplet_shake_squeeze");
  fuzz_expect("shake_squeeze", couplet_shake_squeeze(slot_ctx(i), out.p, len), want);
  after_call();
  if (want == COUPLET_OK) {
    fuzz_snap_free(&ctx_before);
    fuzz_snap_free(&out_before);
    fuzz_check_guard(&out, "the output");
    fuzz_expect_bytes("the output", out.p, model + s->squeezed, len);
    s->squeezed += len;
  } else if (want == COUPLET_ERR_HW || want == COUPLET_ERR_TIMEOUT) {
    fuzz_snap_free(&ctx_before);
    fuzz_snap_free(&out_before);
    s->phase = FINISHED;
  } else {
    fuzz_snap_check(&ctx_before, "the context");
    fuzz_snap_check(&out_before, "the output");
  }
  free(model);
  fuzz_buf_free(&out);
}

// The one-shot calls (default backend or a given one) and the held calls, which share their
// arguments: a message, an algorithm and an output of out_len bytes.
typedef enum { ONE_SHOT, USING, HELD } way_t;

static void step_hash(way_t way) {
  const bool shake = fuzz_chance(50u);
  uint32_t alg = pick_alg();
  if (alg < ALGS && fuzz_chance(85u)) {
    alg = shake ? (uint32_t)COUPLET_SHAKE128 + fuzz_below(2u) : fuzz_below(4u);  // mostly the right family
  }
  const uint32_t backend = way == USING ? pick_backend() : (uint32_t)COUPLET_SHA3_DEFAULT_BACKEND;
  hold_t *h = pick_hold();
  const bool null_held = way == HELD && fuzz_chance(3u);
  const size_t size = alg < ALGS ? digests[alg] : 32u;
  const size_t len = pick_len(alg < ALGS ? rates[alg] : 136u);
  const size_t out_len = shake ? fuzz_below(2u * 168u + 2u)
                               : (fuzz_chance(15u) ? fuzz_below((uint32_t)size + 1u) : size + fuzz_below(4u));
  fuzz_buf_t data = pick_data(len);
  fuzz_buf_t out = (!shake || out_len != 0u) && fuzz_chance(4u) ? fuzz_buf_null() : fuzz_buf(out_len, false);
  const bool family_ok = alg < ALGS && is_shake(alg) == shake;
  couplet_status_t want = COUPLET_OK;
  if (null_held || (len != 0u && data.p == NULL) || ((!shake || out_len != 0u) && out.p == NULL)) {
    want = COUPLET_ERR_NULL;
  } else if (!family_ok) {
    want = COUPLET_ERR_ARG;
  } else if (way == HELD && !h->holding) {
    want = COUPLET_ERR_STATE;
  } else if (!shake && out_len < size) {
    want = COUPLET_ERR_LEN;
  } else if (way != HELD && backend >= (uint32_t)COUPLET_SHA3_BACKEND_COUNT) {
    want = COUPLET_ERR_ARG;
  } else if (way != HELD && !present(backend)) {
    want = COUPLET_ERR_UNSUPPORTED;
  } else if (way != HELD && id_uses_accel(backend) && accel_held) {
    want = COUPLET_ERR_BUSY;
  }
  const size_t n = shake ? out_len : size;
  uint8_t *model = malloc(n + 1u);
  if (want == COUPLET_OK) model_hash((couplet_sha3_alg_t)alg, data.p, len, model, n);
  fuzz_snap_t out_before = fuzz_snap_buf(&out);
  fuzz_snap_t data_before = fuzz_snap_buf(&data);
  fuzz_snap_t held_before = fuzz_snap(h->held, sizeof *h->held);
  const couplet_sha3_alg_t a = (couplet_sha3_alg_t)alg;
  const couplet_sha3_backend_id_t b = (couplet_sha3_backend_id_t)backend;
  const couplet_sha3_held_t *held = null_held ? NULL : h->held;
  couplet_status_t got;
  const char *kind;
  if (way == ONE_SHOT) {
    kind = shake ? "shake" : "sha3";
    fuzz_call(shake ? "couplet_shake" : "couplet_sha3");
    got = shake ? couplet_shake(a, data.p, len, out.p, out_len) : couplet_sha3(a, data.p, len, out.p, out_len);
  } else if (way == USING) {
    kind = shake ? "shake_using" : "sha3_using";
    fuzz_call(shake ? "couplet_shake_using" : "couplet_sha3_using");
    got = shake ? couplet_shake_using(b, a, data.p, len, out.p, out_len)
                : couplet_sha3_using(b, a, data.p, len, out.p, out_len);
  } else {
    kind = shake ? "shake_held" : "sha3_held";
    fuzz_call(shake ? "couplet_shake_held" : "couplet_sha3_held");
    got = shake ? couplet_shake_held(held, a, data.p, len, out.p, out_len)
                : couplet_sha3_held(held, a, data.p, len, out.p, out_len);
  }
  fuzz_expect(kind, got, want);
  after_call();
  fuzz_snap_check(&data_before, "the data");
  fuzz_snap_check(&held_before, "the handle");
  if (want == COUPLET_OK) {
    fuzz_snap_free(&out_before);
    fuzz_check_guard(&out, "the output");
    fuzz_expect_bytes("the output", out.p, model, n);
    for (size_t i = n; i < out_len; ++i) {
      if (out.p[i] != 0xEEu) fuzz_fail("wrote byte %zu past the digest", i);
    }
  } else {
    fuzz_snap_check(&out_before, "the output");
  }
  free(model);
  fuzz_buf_free(&data);
  fuzz_buf_free(&out);
}

static void step_hold(void) {
  const int hi = (int)fuzz_below(HANDLES);
  hold_t *h = &holds[hi];
  const uint32_t backend = pick_backend();
  const bool null_held = fuzz_chance(3u);
  if (h->holding && id_uses_accel(h->backend) && !id_uses_accel(backend)) return;  // see the top
  couplet_status_t want = COUPLET_OK;
  if (null_held) {
    want = COUPLET_ERR_NULL;
  } else if (backend >= (uint32_t)COUPLET_SHA3_BACKEND_COUNT) {
    want = COUPLET_ERR_ARG;
  } else if (!present(backend)) {
    want = COUPLET_ERR_UNSUPPORTED;
  } else if (id_uses_accel(backend) && accel_held) {
    want = COUPLET_ERR_BUSY;
  }
  fuzz_snap_t held_before = fuzz_snap(h->held, sizeof *h->held);
  fuzz_call("couplet_sha3_hold");
  fuzz_expect("sha3_hold", couplet_sha3_hold(null_held ? NULL : h->held, (couplet_sha3_backend_id_t)backend), want);
  after_call();
  if (want != COUPLET_OK) {
    fuzz_snap_check(&held_before, "the handle");
    return;
  }
  fuzz_snap_free(&held_before);
  h->holding = true;
  h->backend = backend;
  if (id_uses_accel(backend)) accel_held = true;
}

static void release(hold_t *h, bool null_held) {
  const couplet_status_t want = null_held ? COUPLET_ERR_NULL : !h->holding ? COUPLET_ERR_STATE : COUPLET_OK;
  fuzz_snap_t held_before = fuzz_snap(h->held, sizeof *h->held);
  fuzz_call("couplet_sha3_release");
  fuzz_expect("sha3_release", couplet_sha3_release(null_held ? NULL : h->held), want);
  after_call();
  if (want != COUPLET_OK) {
    fuzz_snap_check(&held_before, "the handle");
    return;
  }
  fuzz_snap_free(&held_before);
  h->holding = false;
  if (id_uses_accel(h->backend)) accel_held = false;
}

static void step_query(void) {
  static const char *const names[COUPLET_SHA3_BACKEND_COUNT] = {"soft", "ise", "tight", "mem", "mmio", "dma"};
  const uint32_t id = pick_backend(), alg = pick_alg();
  const bool known = id < (uint32_t)COUPLET_SHA3_BACKEND_COUNT;
  fuzz_call("couplet_sha3_backend_name");
  if (strcmp(couplet_sha3_backend_name((couplet_sha3_backend_id_t)id), known ? names[id] : "unknown") != 0) {
    fuzz_fail("wrong name of backend %u", (unsigned)id);
  }
  fuzz_call("couplet_sha3_backend_available");
  if (couplet_sha3_backend_available((couplet_sha3_backend_id_t)id) != present(id)) {
    fuzz_fail("availability of backend %u", (unsigned)id);
  }
  fuzz_call("couplet_sha3_digest_size");
  if (couplet_sha3_digest_size((couplet_sha3_alg_t)alg) != (alg < ALGS ? digests[alg] : 0u)) {
    fuzz_fail("digest size of algorithm %u", (unsigned)alg);
  }
}

void sha3_fuzz_setup(void) {
  known_answer();
  for (int i = 0; i < SLOTS; ++i) {
    slots[i].ctx = malloc(sizeof(couplet_sha3_ctx_t));
    fuzz_fill((uint8_t *)slots[i].ctx, sizeof(couplet_sha3_ctx_t));  // garbage: refused
  }
  for (int h = 0; h < HANDLES; ++h) {
    holds[h].held = calloc(1u, sizeof(couplet_sha3_held_t));
  }
}

void sha3_fuzz_step(void) {
  const uint32_t r = fuzz_below(100u);
  if (r < 12u) {
    step_init();
  } else if (r < 37u) {
    step_update();
  } else if (r < 45u) {
    step_final();
  } else if (r < 50u) {
    step_shake_final();
  } else if (r < 62u) {
    step_squeeze();
  } else if (r < 69u) {
    step_hash(ONE_SHOT);
  } else if (r < 77u) {
    step_hash(USING);
  } else if (r < 87u) {
    step_hash(HELD);
  } else if (r < 91u) {
    step_hold();
  } else if (r < 97u) {
    release(pick_hold(), fuzz_chance(3u));
  } else {
    step_query();
  }
}

void sha3_fuzz_finish(void) {
  for (int h = 0; h < HANDLES; ++h) {
    if (holds[h].holding) release(&holds[h], false);
    free(holds[h].held);
  }
  for (int i = 0; i < SLOTS; ++i) free(slots[i].ctx);
  if (atomic_load(&sha3_accel_lock) != 0u) fuzz_fail("the accelerator lock is still taken");
}
