// What the Keccak accelerator's SHA-3 backends share (tight, mem, mmio, dma): the register map
// and actions of hw/ip/keccak/README.md, status decoding, word access to byte buffers, the
// bounded interrupt wait, and the per-call bookkeeping of where the state is.
//
// The state's home between API calls is ctx->state (sha3_backend.h). A hardware backend copies
// it into the accelerator's STATE registers at its first operation of a call and back in
// release, then zeroizes the accelerator (keyed modes such as KMAC keep the key in the state).
// The front end's lock gives one call at a time the accelerator, so the bookkeeping below is
// one variable for every backend.

#ifndef COUPLET_SHA3_HW_H_
#define COUPLET_SHA3_HW_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <couplet/autogen/keccak_regs.h>
#include <couplet/csr.h>
#include <couplet/irq_wait.h>

#include "sha3_backend.h"

// Register indexes (the command port's `index`; byte offset 4 * index when memory-mapped),
// from the generated register map (hw/ip/keccak/data/keccak.toml).
enum {
  KECCAK_REG_STATE0 = KECCAK_STATE_OFFSET / 4u,
  KECCAK_REG_CTRL = KECCAK_CTRL_OFFSET / 4u,
  KECCAK_REG_STATUS = KECCAK_STATUS_OFFSET / 4u,
  KECCAK_REG_LEN = KECCAK_LEN_OFFSET / 4u,
  KECCAK_REG_CMD = KECCAK_CMD_OFFSET / 4u,
  KECCAK_REG_STATE_XOR0 = KECCAK_STATE_XOR_OFFSET / 4u,
};
_Static_assert(KECCAK_STATE_COUNT == COUPLET_SHA3_STATE_WORDS, "the state is 50 words");
_Static_assert(KECCAK_STATE_XOR_COUNT == COUPLET_SHA3_STATE_WORDS, "STATE_XOR covers the state");

// Actions (AccelOpExec index) and their answers.
enum { KECCAK_ACT_PERMUTE = 0, KECCAK_ACT_ZEROIZE = 1, KECCAK_ACT_ABSORB = 2 };
enum { KECCAK_RESULT_OK = 0, KECCAK_RESULT_BUSY = 1, KECCAK_RESULT_BAD_LEN = 3,
       KECCAK_RESULT_BUS_ERROR = 4 };

// CMD bits, CTRL fields, STATUS bits.
enum { KECCAK_CMD_PERMUTE = 1u << 0, KECCAK_CMD_ZEROIZE = 1u << 1 };
#define KECCAK_CTRL_IRQ_ENABLE (1u << 6)
enum {
  KECCAK_STATUS_BUSY = 1u << 0,
  KECCAK_STATUS_DONE = 1u << 1,
  KECCAK_STATUS_REFUSED = 1u << 2,
  KECCAK_STATUS_JOB_ERROR = 1u << 3,
  KECCAK_STATUS_BAD_LEN = 1u << 4,
  KECCAK_STATUS_STICKY =
      KECCAK_STATUS_DONE | KECCAK_STATUS_REFUSED | KECCAK_STATUS_JOB_ERROR | KECCAK_STATUS_BAD_LEN,
};
// Longest ABSORB job (LEN register).
#define KECCAK_MAX_JOB_BYTES (1u << 20)

// CTRL for ctx: the rate in 32-bit words, no interrupt.
static inline uint32_t sha3_hw_ctrl(const couplet_sha3_ctx_t *ctx) {
  return ctx->rate / 4u;
}

// The longest run of whole blocks one ABSORB job (or DMA chunk of `limit` bytes) may take: a
// multiple of the rate, so a job always ends on a block boundary.
static inline size_t sha3_hw_job_blocks(const couplet_sha3_ctx_t *ctx, uint32_t limit) {
  return limit / ctx->rate;
}

// Turns the sticky error bits of STATUS into a status code: a refused command (PERMUTE while
// busy, CTRL/LEN while busy) is BUSY; a job's bus error or a bad length is HW.
static inline couplet_status_t sha3_hw_refusal(uint32_t status) {
  if (status & (KECCAK_STATUS_JOB_ERROR | KECCAK_STATUS_BAD_LEN)) {
    return COUPLET_ERR_HW;
  }
  if (status & KECCAK_STATUS_REFUSED) {
    return COUPLET_ERR_BUSY;
  }
  return COUPLET_OK;
}

// The answer of PERMUTE or ABSORB as a status code. A bad length cannot come from the
// front end's arguments (it checks them), so it is the hardware's error, not COUPLET_ERR_LEN.
static inline couplet_status_t sha3_hw_result(uint32_t code) {
  switch (code) {
    case KECCAK_RESULT_OK:
      return COUPLET_OK;
    case KECCAK_RESULT_BUSY:
      return COUPLET_ERR_BUSY;
    default:
      return COUPLET_ERR_HW;
  }
}

// A little-endian word from a byte buffer. With `aligned` true (sha3_word_aligned, checked by the
// caller) one lw; otherwise four bytes. Block loops take `aligned` as a constant (always-inlined
// callers), so the check is made once per call, not once per word.
static inline uint32_t sha3_hw_load_as(const uint8_t *p, bool aligned) {
  if (aligned) {
    uint32_t w;
    memcpy(&w, __builtin_assume_aligned(p, 4), 4);
    return w;
  }
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// The padded last block of a one-shot hash as rate/4 little-endian words: the `n` (< rate)
// bytes at `tail` (any alignment), the domain byte `pad`, zeros, and pad10*1's final bit.
void sha3_hw_last_block(uint32_t *blk, uint32_t rate, uint8_t pad, const uint8_t *tail, size_t n);

// Per-call bookkeeping, one for all backends (the front end's lock serialises the calls):
//  - `loaded`: ctx->state is in the accelerator (set at the first operation of a call,
//    cleared by release);
//  - `synced`: how many leading words of ctx->state already equal the accelerator's state (an
//    extract read them and nothing changed the state since), so release reads only the rest;
//  - `permute_issued`: a PERMUTE may still be running, so a CTRL or LEN write would be refused
//    (the mem backend waits with a STATE read first).
typedef struct {
  const couplet_sha3_ctx_t *loaded;
  uint32_t synced;
  bool permute_issued;
} sha3_hw_call_t;

extern sha3_hw_call_t sha3_hw_call;

// The custom-instruction side (sha3_tight.c), shared by the tight and mem backends.
couplet_status_t sha3_xif_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks);
couplet_status_t sha3_xif_permute(couplet_sha3_ctx_t *ctx);
couplet_status_t sha3_xif_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len);
couplet_status_t sha3_xif_release(couplet_sha3_ctx_t *ctx);
// The one-shot hash through custom instructions (sha3_backend.h's `hash`); `jobs` sends runs of
// at least XIF_JOB_MIN_BLOCKS whole blocks by ABSORB (mem). Below that, WRITE2 is faster: an
// ABSORB spends about 20 cycles checking LEN before its DMA job starts (hw/ip/keccak/README.md).
#define XIF_JOB_MIN_BLOCKS 2u
couplet_status_t sha3_xif_hash(uint32_t rate, uint8_t pad, const uint8_t *data, size_t len, uint8_t *out,
                               size_t out_len, bool jobs);
// Starts an ABSORB job of `len` bytes (a multiple of the rate, <= KECCAK_MAX_JOB_BYTES) from the
// word-aligned `src`, with ctx's state loaded; returns its answer as a status code.
couplet_status_t sha3_xif_absorb_job(couplet_sha3_ctx_t *ctx, const uint8_t *src, uint32_t len);

// The register-window side (sha3_mmio.c), shared by the mmio and dma backends.
couplet_status_t sha3_mmio_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks);
couplet_status_t sha3_mmio_permute(couplet_sha3_ctx_t *ctx);
couplet_status_t sha3_mmio_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len);
couplet_status_t sha3_mmio_release(couplet_sha3_ctx_t *ctx);
// Loads ctx's state into the accelerator and writes CTRL, unless this call already did.
void sha3_mmio_begin(couplet_sha3_ctx_t *ctx);
// The one-shot hash through the register window, in three steps so that the dma backend can
// send the whole blocks its own way: ZEROIZE and CTRL; `nblocks` whole blocks; the padded
// last block of the `n` bytes at `tail`, the output, ZEROIZE and the STATUS check.
void sha3_mmio_hash_begin(uint32_t rate);
void sha3_mmio_hash_blocks(uint32_t rate, const uint8_t *data, size_t nblocks);
couplet_status_t sha3_mmio_hash_end(uint32_t rate, uint8_t pad, const uint8_t *tail, size_t n,
                                    uint8_t *out, size_t out_len);

#endif  // COUPLET_SHA3_HW_H_
