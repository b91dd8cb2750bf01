// Stand-ins for every hardware backend of the SHA-3 library, for host builds (FAKE_BACKENDS):
// each marks itself as using the accelerator and keeps the state "in the accelerator" (its own
// copy) from its first operation in a call until release, scribbling over ctx->state meanwhile,
// so that a front end that read or wrote ctx->state in a call, or forgot release, computes wrong
// hashes; it counts such protocol violations (fake.violations). Shared by the host test driver
// (tests/sha3_host/sha3_driver.c) and the API fuzzer (tests/fuzz_host/); it defines the backend
// tables and whole-hash functions, so include it in one file of a program only.
//
// Hooks for the includer: fake.probe_ctx (re-enter the API on that context from inside the next
// backend operation, as another thread would while this one holds the accelerator; the statuses
// go to fake.update/final/...), fake.fail_next (the next operation returns that status and does
// nothing) and the call counters.

#ifndef COUPLET_TESTS_SHA3_FAKE_BACKENDS_H_
#define COUPLET_TESTS_SHA3_FAKE_BACKENDS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <couplet/sha3.h>
#include <couplet/sha3_held.h>

#include "sha3_backend.h"

static struct {
  couplet_sha3_ctx_t *loaded;  // the context whose state is "in the accelerator"
  couplet_sha3_ctx_t accel;    // the accelerator's copy (only state, rate and state_tag are used)
  uint32_t before[COUPLET_SHA3_STATE_WORDS];  // ctx->state as the call found it
  uint32_t last_tag;
  couplet_sha3_ctx_t *probe_ctx;  // NULL: disarmed
  int fired, unchanged;
  couplet_status_t update, final, squeeze, oneshot, hold;
  int fail_next;  // -1: none
  unsigned absorb_calls, permute_calls, extract_calls, release_calls, loads, violations, part_calls, last_calls;
} fake = {.probe_ctx = NULL, .fail_next = -1};

#define SCRIBBLE 0xA5A5A5A5u

static void fake_probe(void) {
  if (fake.probe_ctx == NULL) return;
  couplet_sha3_ctx_t *other = fake.probe_ctx;
  fake.probe_ctx = NULL;
  fake.fired = 1;
  static couplet_sha3_ctx_t before;
  memcpy(&before, other, sizeof before);
  static uint8_t block[2 * COUPLET_SHA3_MAX_RATE], out[2 * COUPLET_SHA3_MAX_RATE];
  fake.update = couplet_sha3_update(other, block, sizeof block);
  fake.final = other->alg >= (uint32_t)COUPLET_SHAKE128 ? couplet_shake_final(other)
                                                        : couplet_sha3_final(other, out, sizeof out);
  fake.squeeze = couplet_shake_squeeze(other, out, sizeof out);
  fake.unchanged = memcmp(&before, other, sizeof before) == 0;
  // A one-shot call and a hold on an accelerator backend meet the same lock.
  memset(out, 0xEE, sizeof out);
  fake.oneshot = couplet_sha3_using(COUPLET_SHA3_BACKEND_TIGHT, COUPLET_SHA3_256, block, 10, out, 32);
  for (size_t i = 0; i < 32; ++i) {
    if (out[i] != 0xEE) fake.unchanged = 0;
  }
  couplet_sha3_held_t held = {0u, 0u};
  fake.hold = couplet_sha3_hold(&held, COUPLET_SHA3_BACKEND_MMIO);
  if (fake.hold == COUPLET_OK && couplet_sha3_release(&held) != COUPLET_OK) fake.unchanged = 0;
}

// The first operation of a call loads the state into the "accelerator" (the zero state for a
// fresh hash) and scribbles over ctx->state, which the front end must not use until release.
static couplet_status_t fake_op(couplet_sha3_ctx_t *ctx) {
  if (fake.loaded == NULL) {
    memcpy(fake.before, ctx->state, sizeof ctx->state);
    if (ctx->state_tag == 0u) {
      memset(fake.accel.state, 0, sizeof fake.accel.state);
    } else {
      memcpy(fake.accel.state, ctx->state, sizeof ctx->state);
    }
    fake.accel.state_tag = 1u;  // the soft operations below must not zero it again
    for (size_t i = 0; i < COUPLET_SHA3_STATE_WORDS; ++i) ctx->state[i] = SCRIBBLE;
    fake.loaded = ctx;
    fake.loads++;
  } else if (fake.loaded != ctx) {
    fake.violations++;  // two contexts in the accelerator at once: the lock failed
  }
  fake.accel.rate = ctx->rate;
  fake_probe();
  if (fake.fail_next >= 0) {
    couplet_status_t status = (couplet_status_t)fake.fail_next;
    fake.fail_next = -1;
    return status;
  }
  return COUPLET_OK;
}

static couplet_status_t fake_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks,
                                    size_t nblocks) {
  fake.absorb_calls++;
  if (nblocks == 0u) fake.violations++;
  couplet_status_t status = fake_op(ctx);
  return status != COUPLET_OK ? status : couplet_sha3_backend_soft.absorb(&fake.accel, blocks, nblocks);
}

static couplet_status_t fake_absorb_part(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n) {
  fake.part_calls++;
  if (n == 0u || n >= ctx->rate) fake.violations++;
  couplet_status_t status = fake_op(ctx);
  return status != COUPLET_OK ? status : couplet_sha3_backend_soft.absorb_part(&fake.accel, data, n);
}

static couplet_status_t fake_absorb_last(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad) {
  fake.last_calls++;
  if (n >= ctx->rate) fake.violations++;
  couplet_status_t status = fake_op(ctx);
  return status != COUPLET_OK ? status : couplet_sha3_backend_soft.absorb_last(&fake.accel, tail, n, pad);
}

static couplet_status_t fake_permute(couplet_sha3_ctx_t *ctx) {
  fake.permute_calls++;
  couplet_status_t status = fake_op(ctx);
  return status != COUPLET_OK ? status : couplet_sha3_backend_soft.permute(&fake.accel);
}

static couplet_status_t fake_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  fake.extract_calls++;
  if (len == 0u || len > ctx->rate) fake.violations++;
  couplet_status_t status = fake_op(ctx);
  return status != COUPLET_OK ? status : couplet_sha3_backend_soft.extract(&fake.accel, out, len);
}

// Keep: the state goes back to ctx->state with a new tag. Otherwise it is dropped, and ctx->state
// is what the call found (an accelerator never writes it then).
static couplet_status_t fake_release(couplet_sha3_ctx_t *ctx, bool keep) {
  fake.release_calls++;
  if (fake.loaded != ctx) {
    fake.violations++;  // release without an operation, or of another context
    return COUPLET_OK;
  }
  for (size_t i = 0; i < COUPLET_SHA3_STATE_WORDS; ++i) {
    if (ctx->state[i] != SCRIBBLE) fake.violations++;  // the front end wrote the state mid-call
  }
  if (keep) {
    memcpy(ctx->state, fake.accel.state, sizeof ctx->state);
    ctx->state_tag = ++fake.last_tag;
  } else {
    memcpy(ctx->state, fake.before, sizeof ctx->state);
  }
  memset(fake.accel.state, 0, sizeof fake.accel.state);
  fake.loaded = NULL;
  return COUPLET_OK;
}

#define FAKE(var, id_, name_)                                                                       \
  const couplet_sha3_backend_t var = {id_, name_, true, fake_absorb, fake_absorb_part, fake_absorb_last, \
                                      fake_permute, fake_extract, fake_release}
FAKE(couplet_sha3_backend_ise, COUPLET_SHA3_BACKEND_ISE, "ise");
FAKE(couplet_sha3_backend_tight, COUPLET_SHA3_BACKEND_TIGHT, "tight");
FAKE(couplet_sha3_backend_mem, COUPLET_SHA3_BACKEND_MEM, "mem");
FAKE(couplet_sha3_backend_mmio, COUPLET_SHA3_BACKEND_MMIO, "mmio");
FAKE(couplet_sha3_backend_dma, COUPLET_SHA3_BACKEND_DMA, "dma");

// The accelerator backends' whole-hash functions of sha3_held.h (the ise one is the front end's):
// the generic hash through the stand-in's operations
// (the caller holds the lock; with release_lock it is given back here, as the real ones do).
#define FAKE_HASH(name, backend)                                                                     \
  couplet_status_t name(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len, uint8_t *out, \
                        size_t out_len, bool release_lock) {                                        \
    couplet_status_t status = sha3_ops_hash(&backend, rate, pad, data, len, out, out_len);          \
    if (release_lock) sha3_lock_give();                                                              \
    return status;                                                                                   \
  }
FAKE_HASH(couplet_sha3_hash_tight, couplet_sha3_backend_tight)
FAKE_HASH(couplet_sha3_hash_mem, couplet_sha3_backend_mem)
FAKE_HASH(couplet_sha3_hash_mmio, couplet_sha3_backend_mmio)
FAKE_HASH(couplet_sha3_hash_dma, couplet_sha3_backend_dma)

#endif  // COUPLET_TESTS_SHA3_FAKE_BACKENDS_H_
