// SHA-3 for many short messages in a row: take the accelerator once, hash each message with one
// call that does little more than the coupling's own instructions, let it go.
//
//   couplet_sha3_held_t held;
//   if (couplet_sha3_hold(&held, COUPLET_SHA3_BACKEND_MEM) != COUPLET_OK) { /* BUSY: retry later */ }
//   for (...) {
//     if (couplet_sha3_held(&held, COUPLET_SHA3_256, rec, rec_len, digest, sizeof digest) != COUPLET_OK) ...
//   }
//   if (couplet_sha3_release(&held) != COUPLET_OK) ...
//
// couplet_sha3_hold() takes the accelerator for the calling thread (COUPLET_ERR_BUSY at once if
// another thread holds it, never a wait) and returns a handle naming the backend. While it is
// held, every other call that needs the accelerator, from another thread, an interrupt handler or
// this thread's own couplet_sha3_* calls, gets COUPLET_ERR_BUSY and changes nothing, and a second
// hold gets COUPLET_ERR_BUSY too; the software backends (soft, ise) keep working for everyone.
// couplet_sha3_release() gives it back. Holding a software backend takes nothing (they have no
// shared state), so code written for the held calls runs unchanged on a SoC without the
// accelerator, with COUPLET_SHA3_DEFAULT_BACKEND.
//
// What holding gives up: the accelerator serves nobody else until the release, so hold it for a
// batch of messages, not across waits. What it gives: each held call checks its arguments, finds
// the backend by a switch on the handle's backend id (the default backend first) and calls the
// backend's whole-hash function directly; with a constant algorithm and digest size (the usual
// case) the checks of those fold away at compile time. Like the one-shot calls of sha3.h, each
// hash runs from the zero state and leaves nothing of its message in the accelerator.
//
// A handle belongs to the thread that took it; an interrupt handler must not use a handle that
// the code it interrupted holds (it uses the sha3.h calls, which get COUPLET_ERR_BUSY).
//
// Errors, checked in this order; on each nothing is changed (neither the handle nor the output):
//   COUPLET_ERR_NULL    a required pointer is NULL (data/out may be NULL when the length is 0)
//   COUPLET_ERR_ARG     hold: a backend id outside the enum; held calls: an algorithm outside
//                       the enum or of the other family
//   COUPLET_ERR_STATE   held calls and release: the handle is not held (never held, or
//                       released; for an accelerator backend also a copy of a released one: a
//                       software hold holds nothing shared, so its copies stay usable)
//   COUPLET_ERR_LEN     couplet_sha3_held() with digest_len < the digest size
//   COUPLET_ERR_UNSUPPORTED  hold: a backend this SoC does not have
//   COUPLET_ERR_BUSY    hold: another thread holds the accelerator
// A held call can also fail in the hardware (COUPLET_ERR_HW, COUPLET_ERR_TIMEOUT, or
// COUPLET_ERR_BUSY when a PERMUTE was refused by a DMA stream outside this library): that
// message's output is not written and the accelerator is zeroized; the handle stays held.

#ifndef COUPLET_SHA3_HELD_H_
#define COUPLET_SHA3_HELD_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/sha3.h>
#include <couplet/soc_config.h>

#ifndef COUPLET_SHA3_DEFAULT_BACKEND
#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_SOFT
#endif

typedef struct {
  uint32_t backend;  // a couplet_sha3_backend_id_t
  uint32_t token;    // this hold's number while held; 0 once released
} couplet_sha3_held_t;

// Takes `backend` for the calling thread: for an accelerator backend the accelerator itself.
couplet_status_t couplet_sha3_hold(couplet_sha3_held_t *held,
                                   couplet_sha3_backend_id_t backend) COUPLET_MUST_CHECK;
// Gives it back; the handle is then refused by the held calls.
couplet_status_t couplet_sha3_release(couplet_sha3_held_t *held) COUPLET_MUST_CHECK;

// Internal to this header and the library: the whole hash of each backend (the caller holds
// the accelerator; with release_lock the hash gives the library's lock back when it is done,
// for the one-shot calls), the number of the current hold of the accelerator (0 when none), and
// the token of every software hold.
couplet_status_t couplet_sha3_hash_soft(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                        uint8_t *out, size_t out_len, bool release_lock);
couplet_status_t couplet_sha3_hash_ise(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                       uint8_t *out, size_t out_len, bool release_lock);
couplet_status_t couplet_sha3_hash_tight(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                         uint8_t *out, size_t out_len, bool release_lock);
couplet_status_t couplet_sha3_hash_mem(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                       uint8_t *out, size_t out_len, bool release_lock);
couplet_status_t couplet_sha3_hash_mmio(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                        uint8_t *out, size_t out_len, bool release_lock);
couplet_status_t couplet_sha3_hash_dma(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                       uint8_t *out, size_t out_len, bool release_lock);
extern atomic_uint couplet_sha3_holder_token;
#define COUPLET_SHA3_SOFT_HOLD_TOKEN 0x50F7u

#define COUPLET_SHA3_PAD_SHA3 0x06u   // domain bits 01 and the first 1 of pad10*1 (FIPS 202 6.1)
#define COUPLET_SHA3_PAD_SHAKE 0x1Fu  // domain bits 1111 and the first 1 (FIPS 202 6.2)
#define COUPLET_SHA3_UNLIKELY_(x) __builtin_expect(!!(x), 0)

// Calls backend `id`'s whole hash. Always inlined: with a constant id the switch folds into one
// direct call. Backends this SoC lacks, and ids outside the enum, fall to the erroring default.
static inline __attribute__((always_inline)) couplet_status_t couplet_sha3_hash_switch_(
    uint32_t id, uint32_t rate, uint32_t pad, const uint8_t *data, size_t len, uint8_t *out, size_t out_len,
    bool release_lock) {
  switch (id) {
    case COUPLET_SHA3_BACKEND_SOFT:
      return couplet_sha3_hash_soft(rate, pad, data, len, out, out_len, release_lock);
#if defined(COUPLET_SHA3_HAS_ISE) && COUPLET_SHA3_HAS_ISE
    case COUPLET_SHA3_BACKEND_ISE:
      return couplet_sha3_hash_ise(rate, pad, data, len, out, out_len, release_lock);
#endif
#if defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT
    case COUPLET_SHA3_BACKEND_TIGHT:
      return couplet_sha3_hash_tight(rate, pad, data, len, out, out_len, release_lock);
#endif
#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM
    case COUPLET_SHA3_BACKEND_MEM:
      return couplet_sha3_hash_mem(rate, pad, data, len, out, out_len, release_lock);
#endif
#if defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO
    case COUPLET_SHA3_BACKEND_MMIO:
      return couplet_sha3_hash_mmio(rate, pad, data, len, out, out_len, release_lock);
#endif
#if defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA
    case COUPLET_SHA3_BACKEND_DMA:
      return couplet_sha3_hash_dma(rate, pad, data, len, out, out_len, release_lock);
#endif
    default:
      return COUPLET_ERR_STATE;  // not a backend of this SoC: a corrupted handle
  }
}

// The default backend first: one compare, then a direct call; the others through the switch.
static inline __attribute__((always_inline)) couplet_status_t couplet_sha3_hash_dispatch_(
    uint32_t id, uint32_t rate, uint32_t pad, const uint8_t *data, size_t len, uint8_t *out, size_t out_len) {
  if (__builtin_expect(id == (uint32_t)COUPLET_SHA3_DEFAULT_BACKEND, 1)) {
    return couplet_sha3_hash_switch_((uint32_t)COUPLET_SHA3_DEFAULT_BACKEND, rate, pad, data, len, out, out_len,
                                     false);
  }
  return couplet_sha3_hash_switch_(id, rate, pad, data, len, out, out_len, false);
}

// Whether `held` is held: the accelerator's current hold, or a hold of a software backend.
static inline __attribute__((always_inline)) int couplet_sha3_held_valid_(const couplet_sha3_held_t *held) {
  const uint32_t token = held->token;
  // Relaxed: only the holder's own writes matter to it; another thread merely fails the test.
  return token != 0u && (token == atomic_load_explicit(&couplet_sha3_holder_token, memory_order_relaxed) ||
                         (token == COUPLET_SHA3_SOFT_HOLD_TOKEN &&
                          held->backend < (uint32_t)COUPLET_SHA3_BACKEND_TIGHT));
}

// SHA3-* of `data` into `digest` (digest_len >= the digest size; exactly the digest size is
// written), through the held backend.
static inline couplet_status_t couplet_sha3_held(const couplet_sha3_held_t *held, couplet_sha3_alg_t alg,
                                                 const uint8_t *data, size_t len, uint8_t *digest,
                                                 size_t digest_len) COUPLET_MUST_CHECK;
static inline couplet_status_t couplet_sha3_held(const couplet_sha3_held_t *held, couplet_sha3_alg_t alg,
                                                 const uint8_t *data, size_t len, uint8_t *digest,
                                                 size_t digest_len) {
  if (COUPLET_SHA3_UNLIKELY_(held == NULL || digest == NULL || (len != 0u && data == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (COUPLET_SHA3_UNLIKELY_((uint32_t)alg > (uint32_t)COUPLET_SHA3_512)) {
    return COUPLET_ERR_ARG;
  }
  if (COUPLET_SHA3_UNLIKELY_(!couplet_sha3_held_valid_(held))) {
    return COUPLET_ERR_STATE;
  }
  // 28, 32, 48, 64 bytes; the rate is 200 - 2 * the digest size (FIPS 202 section 6.1).
  const uint32_t size = (uint32_t)alg < 2u ? 28u + 4u * (uint32_t)alg : 16u + 16u * (uint32_t)alg;
  if (COUPLET_SHA3_UNLIKELY_(digest_len < size)) {
    return COUPLET_ERR_LEN;
  }
  return couplet_sha3_hash_dispatch_(held->backend, 200u - 2u * size, COUPLET_SHA3_PAD_SHA3, data, len, digest,
                                     size);
}

// The first out_len bytes of SHAKE128/256 of `data`, through the held backend.
static inline couplet_status_t couplet_shake_held(const couplet_sha3_held_t *held, couplet_sha3_alg_t alg,
                                                  const uint8_t *data, size_t len, uint8_t *out,
                                                  size_t out_len) COUPLET_MUST_CHECK;
static inline couplet_status_t couplet_shake_held(const couplet_sha3_held_t *held, couplet_sha3_alg_t alg,
                                                  const uint8_t *data, size_t len, uint8_t *out,
                                                  size_t out_len) {
  if (COUPLET_SHA3_UNLIKELY_(held == NULL || (out_len != 0u && out == NULL) || (len != 0u && data == NULL))) {
    return COUPLET_ERR_NULL;
  }
  if (COUPLET_SHA3_UNLIKELY_(alg != COUPLET_SHAKE128 && alg != COUPLET_SHAKE256)) {
    return COUPLET_ERR_ARG;
  }
  if (COUPLET_SHA3_UNLIKELY_(!couplet_sha3_held_valid_(held))) {
    return COUPLET_ERR_STATE;
  }
  return couplet_sha3_hash_dispatch_(held->backend, alg == COUPLET_SHAKE128 ? 168u : 136u, COUPLET_SHA3_PAD_SHAKE,
                                     data, len, out, out_len);
}

#endif  // COUPLET_SHA3_HELD_H_
