// SHA-3 (SHA3-224/256/384/512) and the SHAKE128/256 extendable-output functions of FIPS 202,
// with one API for every backend.
//
// The backend (portable software, or the Keccak accelerator in one of its couplings) is chosen
// when a context is initialised: couplet_sha3_init() takes the default of this SoC
// configuration (COUPLET_SHA3_DEFAULT_BACKEND, else the software backend), so application code
// stays the same whichever coupling the SoC has. couplet_sha3_init_backend() picks one by id,
// for benchmarks and tests.
//
// Use: init, update any number of times with pieces of any length, then
//   - SHA3-*:  couplet_sha3_final() writes the digest; the context is finished and wiped.
//   - SHAKE*:  couplet_shake_final() ends the input, then couplet_shake_squeeze() any number of
//              times, with any lengths: consecutive squeezes continue one output stream.
// couplet_sha3() and couplet_shake() do all of it in one call.
//
// Errors (a couplet_status_t; on every one of these nothing is changed, neither the context nor
// the output buffer):
//   COUPLET_ERR_NULL    a required pointer is NULL (data/out may be NULL when the length is 0)
//   COUPLET_ERR_ARG     an algorithm outside couplet_sha3_alg_t or a backend id outside the
//                       enum; and the one-shot calls given an algorithm of the other family
//                       (couplet_sha3() with a SHAKE, couplet_shake() with a SHA3-*)
//   COUPLET_ERR_STATE   the context is not initialised; or the call does not fit the context:
//                       update/final after the input was ended, squeeze before
//                       couplet_shake_final(), couplet_sha3_final() on a SHAKE context, and
//                       couplet_shake_final()/couplet_shake_squeeze() on a SHA3-* context
//   COUPLET_ERR_LEN     couplet_sha3_final()/couplet_sha3() with digest_len < the digest size
//   COUPLET_ERR_UNSUPPORTED  init with a backend this SoC does not have
//   COUPLET_ERR_BUSY    the accelerator is held by another thread (hardware backends; retry)
// A failed init leaves the context uninitialised (every later call gets COUPLET_ERR_STATE), as
// couplet_aes_init does. A hardware backend can also fail inside a call (COUPLET_ERR_HW,
// COUPLET_ERR_TIMEOUT): the message is then lost, so the context is wiped and refuses further
// calls with COUPLET_ERR_STATE until it is initialised again.
//
// Sharing: a context belongs to one thread at a time. The accelerator is shared by all
// contexts: a call that needs it takes it for the length of the call (an update that only fills
// the context's block buffer does not) and returns COUPLET_ERR_BUSY at once if another thread
// holds it. The state is saved in the context at the end of every call that used the
// accelerator, so contexts can be used in turn (and copied between calls); the accelerator
// keeps the state of the context that used it last, so that context's next call does not load
// it again. couplet/sha3_held.h takes the accelerator for a run of one-call hashes.

#ifndef COUPLET_SHA3_H_
#define COUPLET_SHA3_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/status.h>

#define COUPLET_SHA3_STATE_WORDS 50u   // the 1600-bit Keccak state in 32-bit words
#define COUPLET_SHA3_MAX_RATE 168u     // bytes per block of SHAKE128, the largest rate
#define COUPLET_SHA3_MAX_DIGEST 64u    // SHA3-512

typedef enum {
  COUPLET_SHA3_224,
  COUPLET_SHA3_256,
  COUPLET_SHA3_384,
  COUPLET_SHA3_512,
  COUPLET_SHAKE128,
  COUPLET_SHAKE256,
} couplet_sha3_alg_t;

typedef enum {
  COUPLET_SHA3_BACKEND_SOFT = 0,   // portable C: the fallback and the baseline
  COUPLET_SHA3_BACKEND_ISE = 1,    // custom instructions for the Keccak round
  COUPLET_SHA3_BACKEND_TIGHT = 2,  // tightly coupled accelerator, register operands
  COUPLET_SHA3_BACKEND_MEM = 3,    // coprocessor with memory access
  COUPLET_SHA3_BACKEND_MMIO = 4,   // memory-mapped registers
  COUPLET_SHA3_BACKEND_DMA = 5,    // memory-mapped control + DMA
  COUPLET_SHA3_BACKEND_COUNT
} couplet_sha3_backend_id_t;

struct couplet_sha3_backend;

typedef struct {
  // The Keccak state in the accelerator's word order: word w holds bytes 4w..4w+3 of the FIPS
  // 202 state string, little-endian (so lane x+5y is words 2(x+5y) (low) and 2(x+5y)+1 (high)).
  // Meaningful only while state_tag is not 0 (a fresh hash's state is zero and not stored).
  uint32_t state[COUPLET_SHA3_STATE_WORDS];
  // Absorbing: bytes in_state..buf_len-1 of the block being collected, at their places in the
  // block (when there are any, buf[0..in_state) is zero). Squeezing: the current output block,
  // of which the first `squeezed` bytes were already returned.
  uint8_t buf[COUPLET_SHA3_MAX_RATE];
  uint32_t rate;        // block size in bytes: 200 - 2 * (security level / 8)
  uint32_t digest_len;  // output length of SHA3-*; 0 for SHAKE (the caller chooses)
  uint32_t alg;         // a couplet_sha3_alg_t
  uint32_t phase;       // absorbing, squeezing (SHAKE) or finished (private values in sha3.c)
  uint32_t buf_len;     // absorbing: bytes of the current block taken so far, always < rate
  uint32_t in_state;    // absorbing: how many of those (from the block's start) are in the state
  uint32_t squeezed;    // squeezing: bytes of buf already returned, <= rate
  // 0: the state is all zero and `state` holds nothing (a fresh hash). Otherwise `state` holds
  // it, and the tag names this version of it: the accelerator backends compare it with the
  // version they still hold (sw/lib/sha3/sha3_hw.h).
  uint32_t state_tag;
  uint32_t backend_id;  // a couplet_sha3_backend_id_t; with `backend`, marks an initialised context
  const struct couplet_sha3_backend *backend;
} couplet_sha3_ctx_t;

// Initialises `ctx` for `alg` with this SoC's default backend.
couplet_status_t couplet_sha3_init(couplet_sha3_ctx_t *ctx, couplet_sha3_alg_t alg) COUPLET_MUST_CHECK;
// Same with a given backend; COUPLET_ERR_UNSUPPORTED if this SoC does not have it.
couplet_status_t couplet_sha3_init_backend(couplet_sha3_ctx_t *ctx, couplet_sha3_alg_t alg,
                                           couplet_sha3_backend_id_t backend) COUPLET_MUST_CHECK;
// True when `backend` exists in this SoC configuration.
bool couplet_sha3_backend_available(couplet_sha3_backend_id_t backend);
// A short fixed name ("soft", "ise", ...); "unknown" outside the enum. Never NULL.
const char *couplet_sha3_backend_name(couplet_sha3_backend_id_t backend);
// The digest size in bytes of a SHA3-* algorithm (28, 32, 48, 64); 0 for SHAKE (no fixed
// size) and for values outside the enum.
size_t couplet_sha3_digest_size(couplet_sha3_alg_t alg);

// Absorbs `len` bytes (data may be NULL when len is 0). Any alignment.
couplet_status_t couplet_sha3_update(couplet_sha3_ctx_t *ctx, const uint8_t *data,
                                     size_t len) COUPLET_MUST_CHECK;
// SHA3-* only: writes exactly couplet_sha3_digest_size() bytes to `digest` (digest_len is the
// buffer's size, at least that), then wipes what the context held of the message (and the
// accelerator's copy); the context refuses further use.
couplet_status_t couplet_sha3_final(couplet_sha3_ctx_t *ctx, uint8_t *digest,
                                    size_t digest_len) COUPLET_MUST_CHECK;
// SHAKE only: ends the input; the context then squeezes.
couplet_status_t couplet_shake_final(couplet_sha3_ctx_t *ctx) COUPLET_MUST_CHECK;
// SHAKE only, after couplet_shake_final(): the next `len` bytes of the output stream (out may be
// NULL when len is 0).
couplet_status_t couplet_shake_squeeze(couplet_sha3_ctx_t *ctx, uint8_t *out,
                                       size_t len) COUPLET_MUST_CHECK;

// One call, default backend: SHA3-* of `data` into `digest` (digest_len >= the digest size,
// exactly the digest size is written).
couplet_status_t couplet_sha3(couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                              uint8_t *digest, size_t digest_len) COUPLET_MUST_CHECK;
// One call, default backend: the first out_len bytes of SHAKE128/256 of `data`.
couplet_status_t couplet_shake(couplet_sha3_alg_t alg, const uint8_t *data, size_t len,
                               uint8_t *out, size_t out_len) COUPLET_MUST_CHECK;
// The one-shot calls with a given backend (COUPLET_ERR_UNSUPPORTED if this SoC lacks it). On an
// accelerator they hash the whole message in one go from the zero state, without a context:
// the fast way for a message that is all there. Any output length (SHAKE squeezes as many
// blocks as it needs).
couplet_status_t couplet_sha3_using(couplet_sha3_backend_id_t backend, couplet_sha3_alg_t alg,
                                    const uint8_t *data, size_t len, uint8_t *digest,
                                    size_t digest_len) COUPLET_MUST_CHECK;
couplet_status_t couplet_shake_using(couplet_sha3_backend_id_t backend, couplet_sha3_alg_t alg,
                                     const uint8_t *data, size_t len, uint8_t *out,
                                     size_t out_len) COUPLET_MUST_CHECK;

#endif  // COUPLET_SHA3_H_
