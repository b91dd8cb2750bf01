// test_sha3: every SHA-3 backend of this SoC against NIST vectors and against the software
// backend.
//
// For each available backend (software first: it is the reference of the random tests):
//  - the CAVP sample in cavp_vectors.c (every algorithm; messages of 0, 3, rate - 1, rate and
//    more bytes, multi-block LongMsg records, SHAKE outputs shorter and longer than the rate);
//  - random messages of random length and alignment, absorbed in random pieces, SHAKE output
//    squeezed in random pieces across rate blocks, against the software backend's one-shot
//    output (computed once per message, before the backends run);
//  - two contexts of the backend used in turn (each must continue its own message);
//  - the error codes of misuse (NULL, squeeze before final, update after final, final of the
//    wrong family), and the lock: a timer interrupt that lands in the middle of an update and
//    calls the same backend on another context gets COUPLET_ERR_BUSY from a backend that drives
//    the accelerator and changes nothing, while the software and ise backends (no lock) serve
//    it, and the interrupted update's result is right in every case;
//  - the held calls (couplet/sha3_held.h): the CAVP sample through a hold of the backend (odd
//    addresses too), their error codes, and while it is held: a second hold, a context of the
//    backend and the one-shot calls get COUPLET_ERR_BUSY on an accelerator and change nothing
//    (the software backend works), and so does an interrupt handler, between held calls (a
//    software interrupt) and in the middle of one (a timer interrupt; the held hash stays
//    right); after the release the handle is refused and everything else works again.
// Prints a line per backend and one per failure, and the cycles of a one-shot SHA3-256 of 100
// bytes (one block) and, for the accelerator, of 4 KiB; exits 0 when everything passed.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/check.h>
#include <couplet/counters.h>
#include <couplet/irq.h>
#include <couplet/sha3.h>
#include <couplet/sha3_held.h>
#include <couplet/sim.h>
#include <couplet/timer.h>

#include "cavp_vectors.h"

#define RANDOM_CASES 12u
#define SOFT_RANDOM_CASES 3u  // the soft backend is checked exhaustively on the host
#define MAX_RANDOM_MSG (3u * COUPLET_SHA3_MAX_RATE)
#define MAX_RANDOM_OUT (2u * COUPLET_SHA3_MAX_RATE + 20u)
#define CAVP_MAX_OUT 256u
#define BIG_LEN 4096u

static bool is_shake(couplet_sha3_alg_t alg) {
  return alg == COUPLET_SHAKE128 || alg == COUPLET_SHAKE256;
}

static size_t rate_of(couplet_sha3_alg_t alg) {
  static const uint8_t rates[] = {144u, 136u, 104u, 72u, 168u, 136u};
  return rates[alg];
}

// Ends a hash: the digest, or out_len bytes of SHAKE output in one squeeze.
static couplet_status_t finish(couplet_sha3_ctx_t *ctx, couplet_sha3_alg_t alg, uint8_t *out,
                               size_t out_len) {
  if (!is_shake(alg)) {
    return couplet_sha3_final(ctx, out, out_len);
  }
  couplet_status_t status = couplet_shake_final(ctx);
  return status != COUPLET_OK ? status : couplet_shake_squeeze(ctx, out, out_len);
}

static couplet_status_t hash_once(couplet_sha3_backend_id_t id, couplet_sha3_alg_t alg,
                                  const uint8_t *msg, size_t len, uint8_t *out, size_t out_len) {
  couplet_sha3_ctx_t ctx;
  couplet_status_t status = couplet_sha3_init_backend(&ctx, alg, id);
  if (status == COUPLET_OK) {
    status = couplet_sha3_update(&ctx, msg, len);
  }
  return status != COUPLET_OK ? status : finish(&ctx, alg, out, out_len);
}

static uint32_t run_cavp(couplet_sha3_backend_id_t id) {
  const char *name = couplet_sha3_backend_name(id);
  uint32_t passed = 0;
  for (size_t i = 0; i < cavp_vector_count; i++) {
    const sha3_test_vector_t *v = &cavp_vectors[i];
    uint8_t out[CAVP_MAX_OUT];
    if (!couplet_check_status(name, v->source, COUPLET_OK,
                              hash_once(id, (couplet_sha3_alg_t)v->alg, v->msg, v->msg_len, out, v->out_len))) {
      continue;
    }
    if (memcmp(out, v->out, v->out_len) != 0) {
      couplet_check_fail(name, v->source, "wrong output");
      continue;
    }
    passed++;
  }
  return passed;
}

static couplet_status_t one_shot(couplet_sha3_backend_id_t id, couplet_sha3_alg_t alg, const uint8_t *msg,
                                 size_t len, uint8_t *out, size_t out_len) {
  return is_shake(alg) ? couplet_shake_using(id, alg, msg, len, out, out_len)
                       : couplet_sha3_using(id, alg, msg, len, out, out_len);
}

// The one-shot calls with this backend (its `hash` short cut where it has one): CAVP vectors
// from their own buffer and from a copy at an odd address, into an odd output address. Every
// `stride`-th vector: the software backends (no short cut) run the incremental code again.
static uint8_t one_shot_msg[1024u + 1u];
static uint32_t one_shot_tried;
static uint32_t run_one_shot(couplet_sha3_backend_id_t id, uint32_t stride) {
  const char *name = couplet_sha3_backend_name(id);
  uint32_t passed = 0;
  one_shot_tried = 0;
  for (size_t i = 0; i < cavp_vector_count; i += stride) {
    one_shot_tried++;
    const sha3_test_vector_t *v = &cavp_vectors[i];
    uint8_t out[CAVP_MAX_OUT + 1u];
    bool ok = v->msg_len < sizeof one_shot_msg;
    if (!ok) {
      couplet_check_fail(name, v->source, "message longer than the one-shot test's buffer");
    }
    if (ok && v->msg_len != 0u) {
      memcpy(one_shot_msg + 1, v->msg, v->msg_len);
    }
    for (uint32_t odd = 0; ok && odd < 2u; odd++) {
      const uint8_t *msg = odd ? one_shot_msg + 1 : v->msg;
      memset(out, 0, sizeof out);
      ok = couplet_check_status(name, v->source, COUPLET_OK,
                                one_shot(id, (couplet_sha3_alg_t)v->alg, msg, v->msg_len, out + odd, v->out_len));
      if (ok && memcmp(out + odd, v->out, v->out_len) != 0) {
        couplet_check_fail(name, v->source, odd ? "one-shot: wrong output (odd addresses)" : "one-shot: wrong output");
        ok = false;
      }
    }
    passed += ok ? 1u : 0u;
  }
  // Errors of the one-shot calls leave the output untouched.
  uint8_t digest[32] = {0};
  const uint8_t zeros[32] = {0};
  bool ok = couplet_check_status(name, "one-shot NULL data", COUPLET_ERR_NULL,
                                 couplet_sha3_using(id, COUPLET_SHA3_256, NULL, 1u, digest, sizeof digest));
  ok &= couplet_check_status(name, "one-shot short digest", COUPLET_ERR_LEN,
                             couplet_sha3_using(id, COUPLET_SHA3_256, zeros, 3u, digest, 31u));
  ok &= couplet_check_status(name, "one-shot SHAKE through sha3", COUPLET_ERR_ARG,
                             couplet_sha3_using(id, COUPLET_SHAKE128, zeros, 3u, digest, sizeof digest));
  ok &= couplet_check_status(name, "one-shot unknown backend", COUPLET_ERR_ARG,
                             couplet_sha3_using(COUPLET_SHA3_BACKEND_COUNT, COUPLET_SHA3_256, zeros, 3u, digest,
                                                sizeof digest));
  if (!ok || memcmp(digest, zeros, sizeof digest) != 0) {
    couplet_check_fail(name, "one-shot errors", "wrong status or output written");
    passed = 0;
  }
  return passed;
}

// A random case: its parameters and message come from a seed of its own, so every backend
// sees the same case; the reference output is the software backend's, in one piece.
typedef struct {
  couplet_sha3_alg_t alg;
  size_t len, offset, out_len;
} random_case_t;

static uint8_t random_msg_buf[MAX_RANDOM_MSG + 4u];
static uint8_t expected[RANDOM_CASES][MAX_RANDOM_OUT];

static random_case_t random_case(uint32_t i) {
  random_case_t c;
  couplet_check_seed(0x9E3779B9u * (i + 1u));
  c.alg = (couplet_sha3_alg_t)(i % 6u);
  const size_t rate = rate_of(c.alg);
  // Lengths around the block boundaries more often than elsewhere.
  switch (couplet_check_rand() % 4u) {
    case 0:
      c.len = rate * (couplet_check_rand() % 3u) + couplet_check_rand() % 3u;
      break;
    case 1:
      c.len = rate * (1u + couplet_check_rand() % 2u) - 1u - couplet_check_rand() % 2u;
      break;
    default:
      c.len = couplet_check_rand() % (MAX_RANDOM_MSG + 1u);
  }
  c.offset = couplet_check_rand() % 4u;
  c.out_len = is_shake(c.alg) ? couplet_check_rand() % (MAX_RANDOM_OUT + 1u) : couplet_sha3_digest_size(c.alg);
  couplet_check_fill(random_msg_buf + c.offset, c.len);
  return c;
}

static void random_references(void) {
  for (uint32_t i = 0; i < RANDOM_CASES; i++) {
    random_case_t c = random_case(i);
    if (!couplet_check_status("soft", "random reference", COUPLET_OK,
                              hash_once(COUPLET_SHA3_BACKEND_SOFT, c.alg, random_msg_buf + c.offset, c.len,
                                        expected[i], c.out_len))) {
      memset(expected[i], 0, MAX_RANDOM_OUT);
    }
  }
}

// A piece length for splitting `left` bytes: small, around the rate, or random.
static size_t piece(size_t left, size_t rate) {
  size_t n;
  switch (couplet_check_rand() % 6u) {
    case 0:
      n = couplet_check_rand() % 8u;
      break;
    case 1:
      n = rate - 1u + couplet_check_rand() % 3u;
      break;
    case 2:
      n = left;
      break;
    default:
      n = couplet_check_rand() % (2u * rate);
  }
  return n < left ? n : left;
}

static uint32_t run_random(couplet_sha3_backend_id_t id, uint32_t cases) {
  const char *name = couplet_sha3_backend_name(id);
  uint32_t passed = 0;
  for (uint32_t i = 0; i < cases; i++) {
    random_case_t c = random_case(i);
    const size_t rate = rate_of(c.alg);
    const uint8_t *msg = random_msg_buf + c.offset;
    char what[64];
    snprintf(what, sizeof what, "random #%lu alg %u len %u out %u", (unsigned long)i, (unsigned)c.alg,
             (unsigned)c.len, (unsigned)c.out_len);
    couplet_sha3_ctx_t ctx;
    couplet_status_t status = couplet_sha3_init_backend(&ctx, c.alg, id);
    for (size_t done = 0; status == COUPLET_OK && done < c.len;) {
      size_t n = piece(c.len - done, rate);
      status = couplet_sha3_update(&ctx, msg + done, n);
      done += n;
    }
    static uint8_t out_buf[MAX_RANDOM_OUT + 4u];
    uint8_t *out = out_buf + couplet_check_rand() % 4u;
    if (status == COUPLET_OK && !is_shake(c.alg)) {
      status = couplet_sha3_final(&ctx, out, c.out_len);
    } else if (status == COUPLET_OK) {
      status = couplet_shake_final(&ctx);
      for (size_t done = 0; status == COUPLET_OK && done < c.out_len;) {
        size_t n = piece(c.out_len - done, rate);
        status = couplet_shake_squeeze(&ctx, out + done, n);
        done += n;
      }
    }
    if (!couplet_check_status(name, what, COUPLET_OK, status)) {
      continue;
    }
    if (memcmp(out, expected[i], c.out_len) != 0) {
      couplet_check_fail(name, what, "output differs from the software backend");
      continue;
    }
    passed++;
  }
  return passed;
}

// Two contexts of one backend in turn, each continuing its own message.
static bool run_contexts(couplet_sha3_backend_id_t id) {
  const char *name = couplet_sha3_backend_name(id);
  static uint8_t msg_a[400], msg_b[400];
  uint8_t out_a[32], out_b[300];
  static uint8_t ref_a[32], ref_b[300];  // the software backend's, computed once
  static bool have_refs;
  couplet_check_seed(0x1234567u);
  couplet_check_fill(msg_a, sizeof msg_a);
  couplet_check_fill(msg_b, sizeof msg_b);
  couplet_sha3_ctx_t a, b;
  if (!couplet_check_status(name, "contexts init", COUPLET_OK, couplet_sha3_init_backend(&a, COUPLET_SHA3_256, id)) ||
      !couplet_check_status(name, "contexts init", COUPLET_OK, couplet_sha3_init_backend(&b, COUPLET_SHAKE128, id))) {
    return false;
  }
  static const uint16_t cuts[] = {0u, 5u, 140u, 141u, 290u, 400u};
  for (size_t k = 0; k + 1u < sizeof cuts / sizeof cuts[0]; k++) {
    size_t n = cuts[k + 1u] - cuts[k];
    if (!couplet_check_status(name, "contexts update a", COUPLET_OK, couplet_sha3_update(&a, msg_a + cuts[k], n)) ||
        !couplet_check_status(name, "contexts update b", COUPLET_OK, couplet_sha3_update(&b, msg_b + cuts[k], n))) {
      return false;
    }
  }
  // b squeezes across a block boundary in two pieces while a finishes in between.
  if (!couplet_check_status(name, "contexts final b", COUPLET_OK, couplet_shake_final(&b)) ||
      !couplet_check_status(name, "contexts squeeze b", COUPLET_OK, couplet_shake_squeeze(&b, out_b, 100)) ||
      !couplet_check_status(name, "contexts final a", COUPLET_OK, couplet_sha3_final(&a, out_a, sizeof out_a)) ||
      !couplet_check_status(name, "contexts squeeze b", COUPLET_OK, couplet_shake_squeeze(&b, out_b + 100, 200))) {
    return false;
  }
  if (!have_refs &&
      (!couplet_check_status("soft", "contexts reference", COUPLET_OK,
                             hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, msg_a, sizeof msg_a, ref_a, 32)) ||
       !couplet_check_status("soft", "contexts reference", COUPLET_OK,
                             hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHAKE128, msg_b, sizeof msg_b, ref_b,
                                       300)))) {
    return false;
  }
  have_refs = true;
  if (memcmp(out_a, ref_a, 32) != 0 || memcmp(out_b, ref_b, 300) != 0) {
    couplet_check_fail(name, "contexts", "a context did not continue its own message");
    return false;
  }
  return true;
}

// The lock: an interrupt in the middle of an update calls the backend on another context.
static uint8_t big_buf[BIG_LEN + 4u];
static couplet_sha3_ctx_t irq_ctx;
static volatile bool main_in_call;
static volatile uint32_t irq_calls;
static volatile bool irq_during_call;
static volatile couplet_status_t irq_status;

// What an interrupt handler does with the API while the code it interrupted holds the
// accelerator (run_held): a one-shot hash on the held backend (BUSY on an accelerator, and its
// output untouched), one on the software backend (served), and a hold (BUSY on an accelerator).
static volatile bool irq_for_held;
static couplet_sha3_backend_id_t irq_backend;
static volatile couplet_status_t irq_using_status, irq_soft_status, irq_hold_status;
static volatile bool irq_output_untouched;
static uint8_t irq_soft_digest[32];

static void irq_use_held_backend(void) {
  uint8_t out[32];
  memset(out, 0xEE, sizeof out);
  irq_using_status = couplet_sha3_using(irq_backend, COUPLET_SHA3_256, big_buf, 200u, out, sizeof out);
  bool untouched = true;
  for (size_t i = 0; i < sizeof out; i++) {
    untouched = untouched && out[i] == 0xEEu;
  }
  irq_output_untouched = untouched;
  irq_soft_status = couplet_sha3_using(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, big_buf, 200u, irq_soft_digest,
                                       sizeof irq_soft_digest);
  couplet_sha3_held_t other = {0u, 0u};
  irq_hold_status = couplet_sha3_hold(&other, irq_backend);
  if (irq_hold_status == COUPLET_OK && couplet_sha3_release(&other) != COUPLET_OK) {
    irq_hold_status = COUPLET_ERR_HW;  // reported as a wrong status by the checker
  }
}

static void on_timer(uint32_t irq) {
  (void)irq;
  couplet_timer_disable();
  irq_during_call = main_in_call;
  if (irq_for_held) {
    irq_use_held_backend();
  } else {
    irq_status = couplet_sha3_update(&irq_ctx, big_buf, 200u);  // a whole block: needs the backend
  }
  irq_calls = irq_calls + 1u;
}

static void on_software_irq(uint32_t irq) {
  (void)irq;
  couplet_software_irq_clear();
  irq_use_held_backend();
  irq_calls = irq_calls + 1u;
}

static bool run_lock(couplet_sha3_backend_id_t id, bool locks) {
  const char *name = couplet_sha3_backend_name(id);
  // Unaligned: every hardware backend then moves the words itself (no single long
  // instruction or DMA wait with interrupts off), so the interrupt lands inside the call.
  const uint8_t *msg = big_buf + 1;
  const size_t len = 1024u;
  uint8_t digest[32], irq_digest[32], irq_ref[32];
  static uint8_t ref[32];  // the software backend's, computed once
  static bool have_ref;
  couplet_sha3_ctx_t ctx;
  bool ok = couplet_check_status(name, "lock init", COUPLET_OK, couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id));
  ok = ok && couplet_check_status(name, "lock init", COUPLET_OK,
                                  couplet_sha3_init_backend(&irq_ctx, COUPLET_SHA3_256, id));
  // How long the update takes, to aim the interrupt at its middle.
  uint64_t t0 = couplet_cycles();
  ok = ok && couplet_check_status(name, "lock timing", COUPLET_OK, couplet_sha3_update(&ctx, msg, len));
  uint64_t duration = couplet_cycles() - t0;
  ok = ok && couplet_check_status(name, "lock re-init", COUPLET_OK,
                                  couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id));
  if (!ok) {
    return false;
  }
  irq_calls = 0u;
  couplet_timer_set_compare(couplet_timer_now() + duration / 2u);
  bool was_enabled = couplet_irq_global_enable();
  main_in_call = true;
  couplet_status_t status = couplet_sha3_update(&ctx, msg, len);
  main_in_call = false;
  couplet_irq_global_restore(was_enabled);
  couplet_timer_disable();
  ok = couplet_check_status(name, "update interrupted", COUPLET_OK, status) &&
       couplet_check_status(name, "final", COUPLET_OK, couplet_sha3_final(&ctx, digest, sizeof digest)) &&
       (have_ref ||
        couplet_check_status("soft", "lock reference", COUPLET_OK,
                             hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, msg, len, ref, sizeof ref)));
  have_ref = have_ref || ok;
  if (ok && memcmp(digest, ref, 32) != 0) {
    couplet_check_fail(name, "lock", "the interrupted update went wrong");
    ok = false;
  }
  if (irq_calls != 1u || !irq_during_call) {
    couplet_check_fail(name, "lock", "the interrupt did not land inside the update");
    return false;
  }
  ok &= couplet_check_status(name, "update from the interrupt", locks ? COUPLET_ERR_BUSY : COUPLET_OK, irq_status);
  // Refused: irq_ctx is unchanged (empty); served: it holds the block. Either way it goes on.
  const size_t irq_len = locks ? 0u : 200u;
  ok = ok &&
       couplet_check_status(name, "irq context final", COUPLET_OK, couplet_sha3_final(&irq_ctx, irq_digest, 32)) &&
       couplet_check_status("soft", "irq reference", COUPLET_OK,
                            hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, big_buf, irq_len, irq_ref, 32));
  if (ok && memcmp(irq_digest, irq_ref, 32) != 0) {
    couplet_check_fail(name, "lock", "the interrupt's context went wrong");
    ok = false;
  }
  return ok;
}

static bool run_errors(couplet_sha3_backend_id_t id, bool locks) {
  const char *name = couplet_sha3_backend_name(id);
  couplet_sha3_ctx_t ctx;
  uint8_t buf[200] = {0}, out[64];
  bool ok = couplet_check_status(name, "NULL context", COUPLET_ERR_NULL,
                                 couplet_sha3_init_backend(NULL, COUPLET_SHA3_256, id));
  ok &= couplet_check_status(name, "init", COUPLET_OK, couplet_sha3_init_backend(&ctx, COUPLET_SHAKE256, id));
  ok &= couplet_check_status(name, "NULL data", COUPLET_ERR_NULL, couplet_sha3_update(&ctx, NULL, 5));
  ok &= couplet_check_status(name, "update", COUPLET_OK, couplet_sha3_update(&ctx, buf, sizeof buf));
  ok &= couplet_check_status(name, "squeeze before final", COUPLET_ERR_STATE, couplet_shake_squeeze(&ctx, out, 8));
  ok &= couplet_check_status(name, "sha3_final on SHAKE", COUPLET_ERR_STATE, couplet_sha3_final(&ctx, out, 64));
  ok &= couplet_check_status(name, "shake_final", COUPLET_OK, couplet_shake_final(&ctx));
  ok &= couplet_check_status(name, "update after final", COUPLET_ERR_STATE, couplet_sha3_update(&ctx, buf, 1));
  ok &= couplet_check_status(name, "NULL output", COUPLET_ERR_NULL, couplet_shake_squeeze(&ctx, NULL, 8));
  ok &= couplet_check_status(name, "squeeze", COUPLET_OK, couplet_shake_squeeze(&ctx, out, 64));
  ok &= couplet_check_status(name, "init", COUPLET_OK, couplet_sha3_init_backend(&ctx, COUPLET_SHA3_512, id));
  ok &= couplet_check_status(name, "short digest buffer", COUPLET_ERR_LEN, couplet_sha3_final(&ctx, out, 63));
  ok &= couplet_check_status(name, "final", COUPLET_OK, couplet_sha3_final(&ctx, out, 64));
  ok &= couplet_check_status(name, "final twice", COUPLET_ERR_STATE, couplet_sha3_final(&ctx, out, 64));
  return ok && run_lock(id, locks);
}

// The held calls (couplet/sha3_held.h).

static bool all_untouched(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != 0xEEu) {
      return false;
    }
  }
  return true;
}

// Every error of the held calls, in the contract's order, each leaving the output untouched.
static bool held_errors(couplet_sha3_backend_id_t id, const couplet_sha3_held_t *held) {
  const char *name = couplet_sha3_backend_name(id);
  const couplet_sha3_held_t never = {(uint32_t)id, 0u};
  uint8_t out[64];
  memset(out, 0xEE, sizeof out);
  bool ok = couplet_check_status(name, "held NULL handle", COUPLET_ERR_NULL,
                                 couplet_sha3_held(NULL, COUPLET_SHA3_256, big_buf, 10u, out, 32u));
  ok &= couplet_check_status(name, "held NULL data", COUPLET_ERR_NULL,
                             couplet_sha3_held(held, COUPLET_SHA3_256, NULL, 1u, out, 32u));
  ok &= couplet_check_status(name, "held NULL digest", COUPLET_ERR_NULL,
                             couplet_sha3_held(held, COUPLET_SHA3_256, big_buf, 10u, NULL, 32u));
  ok &= couplet_check_status(name, "held SHAKE", COUPLET_ERR_ARG,
                             couplet_sha3_held(held, COUPLET_SHAKE128, big_buf, 10u, out, 32u));
  ok &= couplet_check_status(name, "held bad algorithm", COUPLET_ERR_ARG,
                             couplet_sha3_held(held, (couplet_sha3_alg_t)6, big_buf, 10u, out, 32u));
  ok &= couplet_check_status(name, "shake held SHA3", COUPLET_ERR_ARG,
                             couplet_shake_held(held, COUPLET_SHA3_256, big_buf, 10u, out, 32u));
  ok &= couplet_check_status(name, "shake held NULL output", COUPLET_ERR_NULL,
                             couplet_shake_held(held, COUPLET_SHAKE256, big_buf, 10u, NULL, 32u));
  ok &= couplet_check_status(name, "held not held", COUPLET_ERR_STATE,
                             couplet_sha3_held(&never, COUPLET_SHA3_256, big_buf, 10u, out, 32u));
  ok &= couplet_check_status(name, "held short digest", COUPLET_ERR_LEN,
                             couplet_sha3_held(held, COUPLET_SHA3_512, big_buf, 10u, out, 63u));
  if (!all_untouched(out, sizeof out)) {
    couplet_check_fail(name, "held errors", "output written");
    ok = false;
  }
  return ok;
}

// Checks what an interrupt handler got from the API while `id` was held (irq_use_held_backend).
static bool held_irq_results(const char *name, const char *what, bool locks) {
  static uint8_t soft_ref[32];
  static bool have_ref;
  bool ok = have_ref || couplet_check_status("soft", "held irq reference", COUPLET_OK,
                                             hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, big_buf, 200u,
                                                       soft_ref, sizeof soft_ref));
  have_ref = have_ref || ok;
  ok &= couplet_check_status(name, what, locks ? COUPLET_ERR_BUSY : COUPLET_OK, irq_using_status);
  ok &= couplet_check_status(name, what, COUPLET_OK, irq_soft_status);
  ok &= couplet_check_status(name, what, locks ? COUPLET_ERR_BUSY : COUPLET_OK, irq_hold_status);
  if (locks && !irq_output_untouched) {
    couplet_check_fail(name, what, "a refused call wrote its output");
    ok = false;
  }
  if (memcmp(irq_soft_digest, soft_ref, sizeof soft_ref) != 0) {
    couplet_check_fail(name, what, "the software backend's hash went wrong");
    ok = false;
  }
  return ok;
}

// While `held` holds the accelerator: a second hold, a context of the held backend, the one-shot
// calls all get BUSY (on an accelerator) and change nothing; the software backend works; an
// interrupt handler sees the same, between held calls and in the middle of one, and the held
// hash it interrupted is right.
static bool held_lock(couplet_sha3_backend_id_t id, const couplet_sha3_held_t *held, bool locks) {
  const char *name = couplet_sha3_backend_name(id);
  const couplet_status_t busy = locks ? COUPLET_ERR_BUSY : COUPLET_OK;
  couplet_sha3_held_t second = {0u, 0u};
  bool ok = couplet_check_status(name, "second hold", busy, couplet_sha3_hold(&second, id));
  if (!locks) {
    ok &= couplet_check_status(name, "second hold release", COUPLET_OK, couplet_sha3_release(&second));
  }
  // A context of the held backend.
  static couplet_sha3_ctx_t ctx, before;
  uint8_t out[32];
  ok &= couplet_check_status(name, "held: init", COUPLET_OK, couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id));
  ok &= couplet_check_status(name, "held: short update", COUPLET_OK, couplet_sha3_update(&ctx, big_buf, 5u));
  memcpy(&before, &ctx, sizeof ctx);
  const couplet_status_t update = couplet_sha3_update(&ctx, big_buf + 5, 200u);
  ok &= couplet_check_status(name, "held: update", busy, update);
  if (locks && memcmp(&before, &ctx, sizeof ctx) != 0) {
    couplet_check_fail(name, "held: update", "the refused update changed the context");
    ok = false;
  }
  memset(out, 0xEE, sizeof out);
  const couplet_status_t final = couplet_sha3_final(&ctx, out, sizeof out);
  ok &= couplet_check_status(name, "held: final", busy, final);
  if (locks && (memcmp(&before, &ctx, sizeof ctx) != 0 || !all_untouched(out, sizeof out))) {
    couplet_check_fail(name, "held: final", "the refused final changed the context or wrote its output");
    ok = false;
  }
  memset(out, 0xEE, sizeof out);
  const couplet_status_t using = couplet_sha3_using(id, COUPLET_SHA3_256, big_buf, 10u, out, sizeof out);
  ok &= couplet_check_status(name, "held: one-shot", busy, using);
  if (locks && !all_untouched(out, sizeof out)) {
    couplet_check_fail(name, "held: one-shot", "the refused call wrote its output");
    ok = false;
  }
  if (locks) {
    // After the release (run_held) the context goes on with its own message.
    ok &= couplet_check_status(name, "held: init again", COUPLET_OK,
                               couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id));
  }
  // An interrupt handler between held calls (the software interrupt, taken at once).
  irq_backend = id;
  irq_calls = 0u;
  bool was_enabled = couplet_irq_global_enable();
  couplet_software_irq_raise();
  couplet_delay_cycles(200u);
  couplet_irq_global_restore(was_enabled);
  if (irq_calls != 1u) {
    couplet_check_fail(name, "held: software interrupt", "not taken once");
    ok = false;
  }
  ok &= held_irq_results(name, "held: software interrupt", locks);
  // A timer interrupt in the middle of a held hash (1 KiB from an odd address: the core moves
  // every word, interrupts on).
  static uint8_t ref[32];
  static bool have_ref;
  uint8_t digest[32];
  const uint8_t *msg = big_buf + 1;
  const size_t len = 1024u;
  uint64_t t0 = couplet_cycles();
  ok &= couplet_check_status(name, "held: timing", COUPLET_OK,
                             couplet_sha3_held(held, COUPLET_SHA3_256, msg, len, digest, sizeof digest));
  uint64_t duration = couplet_cycles() - t0;
  ok &= have_ref || couplet_check_status("soft", "held reference", COUPLET_OK,
                                         hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, msg, len, ref,
                                                   sizeof ref));
  have_ref = have_ref || ok;
  irq_for_held = true;
  irq_calls = 0u;
  couplet_timer_set_compare(couplet_timer_now() + duration / 2u);
  was_enabled = couplet_irq_global_enable();
  main_in_call = true;
  const couplet_status_t status = couplet_sha3_held(held, COUPLET_SHA3_256, msg, len, digest, sizeof digest);
  main_in_call = false;
  couplet_irq_global_restore(was_enabled);
  couplet_timer_disable();
  irq_for_held = false;
  ok &= couplet_check_status(name, "held: interrupted hash", COUPLET_OK, status);
  if (irq_calls != 1u || !irq_during_call) {
    couplet_check_fail(name, "held: timer interrupt", "did not land inside the held hash");
    ok = false;
  }
  ok &= held_irq_results(name, "held: timer interrupt", locks);
  if (memcmp(digest, ref, sizeof ref) != 0) {
    couplet_check_fail(name, "held: interrupted hash", "wrong digest");
    ok = false;
  }
  return ok;
}

// The held calls with this backend: the CAVP sample (from its own buffer and from an odd
// address, into an odd output address; every `stride`-th vector), the errors, the lock while
// held, and the release (after which the handle is refused and everything else works again).
static uint32_t held_tried;
static uint32_t run_held(couplet_sha3_backend_id_t id, bool locks, uint32_t stride) {
  const char *name = couplet_sha3_backend_name(id);
  couplet_sha3_held_t held = {0u, 0u};
  held_tried = 0;
  if (!couplet_check_status(name, "hold", COUPLET_OK, couplet_sha3_hold(&held, id))) {
    return 0;
  }
  uint32_t passed = 0;
  for (size_t i = 0; i < cavp_vector_count; i += stride) {
    held_tried++;
    const sha3_test_vector_t *v = &cavp_vectors[i];
    const couplet_sha3_alg_t alg = (couplet_sha3_alg_t)v->alg;
    uint8_t out[CAVP_MAX_OUT + 1u];
    bool ok = v->msg_len < sizeof one_shot_msg;
    if (ok && v->msg_len != 0u) {
      memcpy(one_shot_msg + 1, v->msg, v->msg_len);
    }
    for (uint32_t odd = 0; ok && odd < 2u; odd++) {
      const uint8_t *msg = odd ? one_shot_msg + 1 : v->msg;
      memset(out, 0, sizeof out);
      const couplet_status_t status = is_shake(alg) ? couplet_shake_held(&held, alg, msg, v->msg_len, out + odd,
                                                                          v->out_len)
                                                    : couplet_sha3_held(&held, alg, msg, v->msg_len, out + odd,
                                                                        v->out_len);
      ok = couplet_check_status(name, v->source, COUPLET_OK, status);
      if (ok && memcmp(out + odd, v->out, v->out_len) != 0) {
        couplet_check_fail(name, v->source, odd ? "held: wrong output (odd addresses)" : "held: wrong output");
        ok = false;
      }
    }
    passed += ok ? 1u : 0u;
  }
  bool ok = held_errors(id, &held) && held_lock(id, &held, locks);
  const couplet_sha3_held_t copy = held;
  ok &= couplet_check_status(name, "release", COUPLET_OK, couplet_sha3_release(&held));
  ok &= couplet_check_status(name, "release twice", COUPLET_ERR_STATE, couplet_sha3_release(&held));
  uint8_t out[32];
  memset(out, 0xEE, sizeof out);
  ok &= couplet_check_status(name, "held after release", COUPLET_ERR_STATE,
                             couplet_sha3_held(&held, COUPLET_SHA3_256, big_buf, 10u, out, sizeof out));
  if (locks) {
    // (A software hold holds nothing shared, so nothing can tell its copy from the original.)
    ok &= couplet_check_status(name, "copy after release", COUPLET_ERR_STATE,
                               couplet_sha3_held(&copy, COUPLET_SHA3_256, big_buf, 10u, out, sizeof out));
  }
  if (!all_untouched(out, sizeof out)) {
    couplet_check_fail(name, "after release", "a refused held call wrote its output");
    ok = false;
  }
  // Released: the calls that were refused go through again.
  uint8_t digest[32], ref[32];
  ok &= couplet_check_status(name, "after release", COUPLET_OK,
                             hash_once(id, COUPLET_SHA3_256, big_buf, 300u, digest, sizeof digest)) &&
        couplet_check_status("soft", "after release", COUPLET_OK,
                             hash_once(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, big_buf, 300u, ref, sizeof ref));
  if (ok && memcmp(digest, ref, sizeof ref) != 0) {
    couplet_check_fail(name, "after release", "wrong digest");
    ok = false;
  }
  return ok ? passed : 0u;
}

// Cycles of a one-shot SHA3-256 with this backend (aligned buffer), for the record.
// The 4 KiB figure only for the accelerator (software: ~115 and ~80 cycles per byte, too long
// to simulate here every time).
static void report_cycles(couplet_sha3_backend_id_t id, bool accelerator) {
  uint8_t digest[32];
  static const uint16_t lengths[] = {100u, BIG_LEN};
  for (size_t k = 0; k < (accelerator ? 2u : 1u); k++) {
    couplet_sha3_ctx_t ctx;
    uint64_t t0 = couplet_cycles();
    couplet_status_t status = couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id);
    if (status == COUPLET_OK) {
      status = couplet_sha3_update(&ctx, big_buf, lengths[k]);
    }
    if (status == COUPLET_OK) {
      status = couplet_sha3_final(&ctx, digest, sizeof digest);
    }
    uint64_t cycles = couplet_cycles() - t0;
    if (couplet_check_status(couplet_sha3_backend_name(id), "timing", COUPLET_OK, status)) {
      printf("cycles %-6s sha3-256 len %u: %lu\n", couplet_sha3_backend_name(id), (unsigned)lengths[k],
             (unsigned long)cycles);
    }
  }
}

int main(void) {
  printf("test_sha3: %u CAVP vectors, %u random messages per backend\n", (unsigned)cavp_vector_count,
         (unsigned)RANDOM_CASES);
  couplet_sha3_ctx_t ctx;
  if (!couplet_check_status("-", "unknown backend", COUPLET_ERR_ARG,
                            couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, COUPLET_SHA3_BACKEND_COUNT)) ||
      !couplet_check_status("-", "register timer handler", COUPLET_OK,
                            couplet_irq_register(COUPLET_IRQ_TIMER, on_timer)) ||
      !couplet_check_status("-", "enable timer interrupt", COUPLET_OK, couplet_irq_enable(COUPLET_IRQ_TIMER)) ||
      !couplet_check_status("-", "register software interrupt handler", COUPLET_OK,
                            couplet_irq_register(COUPLET_IRQ_SOFTWARE, on_software_irq)) ||
      !couplet_check_status("-", "enable software interrupt", COUPLET_OK,
                            couplet_irq_enable(COUPLET_IRQ_SOFTWARE))) {
    return 1;
  }
  couplet_timer_disable();
  couplet_check_seed(0xC0FFEEu);
  couplet_check_fill(big_buf, sizeof big_buf);
  random_references();
  for (uint32_t b = 0; b < COUPLET_SHA3_BACKEND_COUNT; b++) {
    couplet_sha3_backend_id_t id = (couplet_sha3_backend_id_t)b;
    if (!couplet_sha3_backend_available(id)) {
      if (!couplet_check_status(couplet_sha3_backend_name(id), "absent backend", COUPLET_ERR_UNSUPPORTED,
                                couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id))) {
        return 1;
      }
      printf("backend %-6s absent in this SoC\n", couplet_sha3_backend_name(id));
      continue;
    }
    const bool soft = id == COUPLET_SHA3_BACKEND_SOFT;
    const bool locks = !soft && id != COUPLET_SHA3_BACKEND_ISE;
    const uint32_t cases = soft ? SOFT_RANDOM_CASES : RANDOM_CASES;
    uint32_t before = couplet_check_failures();
    uint32_t cavp = run_cavp(id);
    uint32_t oneshot = run_one_shot(id, locks ? 1u : 4u);
    uint32_t random = run_random(id, cases);
    bool contexts = run_contexts(id);
    bool errors = run_errors(id, locks);
    uint32_t held = run_held(id, locks, locks ? 1u : 4u);
    report_cycles(id, locks);
    printf("backend %-6s cavp %lu/%u oneshot %lu/%u held %lu/%u random %lu/%lu contexts %s errors %s\n",
           couplet_sha3_backend_name(id), (unsigned long)cavp, (unsigned)cavp_vector_count,
           (unsigned long)oneshot, (unsigned)one_shot_tried, (unsigned long)held, (unsigned)held_tried,
           (unsigned long)random, (unsigned long)cases, contexts ? "ok" : "FAIL", errors ? "ok" : "FAIL");
    if (couplet_check_failures() != before) {
      printf("backend %s: %lu failures\n", couplet_sha3_backend_name(id),
             (unsigned long)(couplet_check_failures() - before));
    }
  }
  return couplet_check_failures() == 0u ? 0 : 1;
}
