// SHA-3 on the Keccak accelerator through custom instructions (CV-X-IF): the "tight" backend,
// and the custom-instruction side that the "mem" backend (sha3_mem.c) shares.
//
// Each instruction is `.insn r COUPLET_KECCAK_CUSTOM_OPCODE, op, index, rd, rs1, rs2`
// (docs/coupling.md): funct3 the operation (0 read, 1 write, 2 write two registers, 3 action),
// funct7 the register or action index, rd the accelerator's answer. The index is an encoding
// field, so every instruction has a constant index: the transfers are unrolled, and a variable
// count enters an unrolled sequence at the right place: the word pairs of an aligned buffer by
// a computed jump into a run of equal steps (xif_xor_chain), the output words and single pairs
// through a switch (one jump table).
//
// A block is rate/8 WRITE2 into STATE_XOR (two message words each, loaded straight from the
// caller's buffer) and a PERMUTE. The end of a message is not built in a buffer: its whole word
// pairs go like a block's, then one WRITE2 carries the pair that holds the last message bytes,
// the domain byte and (when it is the block's last pair) pad10*1's final bit; otherwise one
// more WRITE2 carries that bit. Output words are READ straight into the caller's buffer.
// Nothing ever polls: a state command issued while a permutation runs is held by the
// accelerator until the result is there, so the next block's first WRITE2 (or the first READ)
// simply waits. PERMUTE's answer (1: refused, because a DMA stream outside this library is
// mid-block) is ORed up and checked once at the end: the only status a call needs.
//
// The whole hash (couplet_sha3_hash_tight, the one-shot and held calls) starts and ends with a
// ZEROIZE. The context operations keep the state resident between calls (sha3_hw.h): the first
// operation of a call loads ctx->state (25 WRITE2 into STATE) unless the accelerator still holds
// it, or ZEROIZEs for a fresh hash; release stores it back (50 READ) or ZEROIZEs.

#include <couplet/soc_config.h>

#if (defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT) || \
    (defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM)

#include "sha3_xif.h"

// Out of line for the general paths; the whole hash's inline path has its own copy (a call
// would cost it the saving of its return address).
static __attribute__((noinline)) uint32_t xif_write_pair(uint32_t k, uint32_t a, uint32_t b) {
  return xif_write_pair_inline(k, a, b);
}

// The general transfers, out of line: any alignment and count (blocks of a long message,
// unaligned buffers, the context operations). The whole hash of a short aligned message
// (xif_hash) has its own inline copy of the aligned chains.

// The asm chain out of line, for the general path and the context operations.
static __attribute__((noinline)) void xif_chain(const uint8_t *p, uint32_t k, uint32_t lo, uint32_t hi) {
  xif_xor_chain(p, k, lo, hi);
}

// XORs the word pairs pairs-1 .. 0 (0..21) at p into STATE_XOR: an aligned buffer by the asm
// chain, an unaligned one pair by pair (words assembled from bytes, each pair's WRITE2 through
// the jump table of xif_write_pair: the byte loads cost more than the jump).
static __attribute__((noinline)) uint32_t xif_pairs(const uint8_t *p, uint32_t pairs) {
  if (pairs > 21u) {
    return XIF_BAD_COUNT;
  }
  if (sha3_word_aligned(p)) {
    if (pairs != 0u) {
      const uint32_t top = pairs - 1u;
      xif_chain(p, top, couplet_load_le32_as(p + 8u * top, true), couplet_load_le32_as(p + 8u * top + 4u, true));
    }
    return 0u;
  }
  uint32_t err = 0u;
  for (uint32_t k = 0; k < pairs; ++k, p += 8) {
    err |= xif_write_pair(k, couplet_load_le32_as(p, false), couplet_load_le32_as(p + 4, false));
  }
  return err;
}

// State word k (0..41).
#define READ_WORD_CASE(k)   \
  case (k) - 1u:            \
    *v = XIF_RD((k) - 1u);  \
    return 0u;

static __attribute__((noinline)) uint32_t xif_read_word(uint32_t k, uint32_t *v) {
  switch (k) {
    SHA3_DOWN_42(READ_WORD_CASE)
    default:
      *v = 0u;
      return XIF_BAD_COUNT;
  }
}

// The first `len` (0..rate) bytes of the state into out (any alignment): whole words into an
// aligned buffer by the READ chain, into an unaligned one word by word (a READ through a jump
// table each: an unaligned buffer costs four byte stores a word anyway), a last partial word
// (SHAKE only; every SHA3-* digest is whole words) by bytes.
static __attribute__((noinline)) uint32_t xif_output(uint8_t *out, size_t len) {
  const uint32_t words = (uint32_t)len / 4u;
  uint32_t err = 0u;
  if (sha3_word_aligned(out)) {
    SHA3_READ_GOTO(ra, XIF_R1, words, out, true, bad)
    SHA3_READ_CHAIN(ra, XIF_R2, out, true)
  } else {
    for (uint32_t w = 0; w < words; ++w) {
      uint32_t v;
      err |= xif_read_word(w, &v);
      couplet_store_le32_as(out + 4u * w, v, false);
    }
  }
  if (len % 4u != 0u) {
    uint32_t v;
    err |= xif_read_word(words, &v);
    for (size_t i = 4u * words; i < len; ++i, v >>= 8) {
      out[i] = (uint8_t)v;
    }
  }
  return err;
bad:
  return XIF_BAD_COUNT;
}

// `nblocks` whole blocks at p, each rate/8 WRITE2 and a PERMUTE; the answers ORed.
static uint32_t xif_blocks(const uint8_t *p, size_t nblocks, uint32_t rate) {
  uint32_t acc = 0u;
  for (size_t n = 0; n < nblocks; ++n, p += rate) {
    acc |= xif_pairs(p, rate / 8u);
    acc |= xif_permute();
  }
  return acc;
}

// The end of a message (or of the part of a block an update leaves): its `n` (< rate) bytes at
// tail (none when tail is NULL: they are in the state already) and, with last_bit (the end of
// the input), the domain byte `pad` at n and pad10*1's final bit. No PERMUTE.
static uint32_t xif_tail(const uint8_t *tail, size_t n, uint32_t pad, uint32_t rate, bool last_bit) {
  const uint32_t q = (uint32_t)n >> 3;
  const bool bit_here = last_bit && sha3_hw_pad_pair_is_last(n, rate);
  // The pair of the last bytes, unless there is nothing to put in it (a part of a block that
  // ends on a pair boundary).
  const bool last_pair = last_bit || (n & 7u) != 0u;
  const bool aligned = sha3_word_aligned(tail);
  uint32_t err = 0u;
  if (q > 20u) {
    return XIF_BAD_COUNT;  // the chains end at pair 20 (n < rate <= 168)
  }
  if (tail != NULL && aligned && last_pair) {
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(tail, n, true, pad, bit_here);
    xif_chain(tail, q, pair.lo, pair.hi);  // that pair, then the whole pairs before it
  } else {
    if (tail != NULL) {
      err = xif_pairs(tail, q);
    }
    if (last_pair) {
      const sha3_hw_pair_t pair = sha3_hw_pad_pair(tail, n, aligned, pad, bit_here);
      err |= xif_write_pair(q, pair.lo, pair.hi);
    }
  }
  if (last_bit && !bit_here) {
    err |= xif_write_pair(rate / 8u - 1u, 0u, SHA3_PAD_LAST_BIT);
  }
  return err;
}

// Turns the ORed answers into a status. A refused PERMUTE set the sticky REFUSED bit: clear it
// for the next user (the mmio backends report any they find).
static __attribute__((noinline)) couplet_status_t xif_failed(uint32_t acc) {
  (void)xif(XIF_WRITE, KECCAK_STATUS_INDEX, KECCAK_STATUS_REFUSED_BUSY_MASK, 0u);
  return (acc & XIF_BAD_COUNT) ? COUPLET_ERR_HW : COUPLET_ERR_BUSY;
}

SHA3_INLINE couplet_status_t xif_status(uint32_t acc) {
  return acc != 0u ? xif_failed(acc) : COUPLET_OK;
}

// The end of a whole hash: ZEROIZE, then the lock given back if the caller asked for it (after
// the status is known, so that the flag is not kept across a call: on the hot path every
// register is taken).
static __attribute__((noinline)) couplet_status_t xif_hash_failed(uint32_t acc, uint32_t flags) {
  xif_zeroize();
  const couplet_status_t status = xif_failed(acc);
  if (flags & SHA3_XIF_RELEASE_LOCK) {
    sha3_lock_give();
  }
  return status;
}

// (The one-shot calls' release is the fall-through: they have a cycle goal, the held calls
// pay the taken branch instead.)
SHA3_INLINE couplet_status_t xif_hash_end(uint32_t acc, uint32_t flags) {
  if (UNLIKELY_HW(acc != 0u)) {
    return xif_hash_failed(acc, flags);
  }
  xif_zeroize();
  if (__builtin_expect((flags & SHA3_XIF_RELEASE_LOCK) != 0u, 1)) {
    sha3_lock_give();
  }
  return COUPLET_OK;
}

// ABSORB jobs over nblocks whole blocks from the word-aligned src: LEN is a multiple of the
// rate, at most 1 MiB per job (CTRL holds the rate; the accelerator runs no permutation).
static couplet_status_t xif_jobs(const uint8_t *src, size_t nblocks, uint32_t rate) {
  const size_t per_job = KECCAK_MAX_JOB_BYTES / rate;
  while (nblocks != 0u) {
    const size_t n = nblocks < per_job ? nblocks : per_job;
    const uint32_t len = (uint32_t)(n * rate);
    (void)xif(XIF_WRITE, KECCAK_LEN_INDEX, len, 0u);
    const uint32_t code = xif_absorb_action(src);
    if (code != KECCAK_RESULT_OK) {
      // Busy, a bad length or a bus error: clear their sticky bits for the next user.
      (void)xif(XIF_WRITE, KECCAK_STATUS_INDEX, KECCAK_STATUS_ERRORS, 0u);
      return sha3_hw_result(code);
    }
    src += len;
    nblocks -= n;
  }
  return COUPLET_OK;
}

// The whole hash, any message and output: the blocks (by ABSORB jobs with SHA3_XIF_JOBS when
// there are enough of them), the end and its padding, PERMUTE, the output (more blocks: PERMUTE
// and READ again), ZEROIZE and (SHA3_XIF_RELEASE_LOCK) the lock given back. The caller
// ZEROIZEd before.
static __attribute__((noinline)) couplet_status_t xif_hash_general(uint32_t rate, uint32_t pad, const uint8_t *data,
                                                                   size_t len, uint8_t *out, size_t out_len,
                                                                   uint32_t flags) {
  if (rate == 0u || rate > COUPLET_SHA3_MAX_RATE || rate % 8u != 0u) {
    // Not a rate of FIPS 202 (the front end never passes one).
    if (flags & SHA3_XIF_RELEASE_LOCK) {
      sha3_lock_give();
    }
    return COUPLET_ERR_ARG;
  }
  const size_t nblocks = sha3_hw_blocks(len, rate);
  // (No arithmetic on a NULL data: with no whole block the tail is data itself.)
  const uint8_t *tail = nblocks != 0u ? data + nblocks * rate : data;
  uint32_t acc = 0u;
  couplet_status_t status = COUPLET_OK;
  if ((flags & SHA3_XIF_JOBS) && nblocks >= XIF_JOB_MIN_BLOCKS && sha3_word_aligned(data)) {
    // The ABSORB's rate.
    (void)xif(XIF_WRITE, KECCAK_CTRL_INDEX, (rate / 4u) << KECCAK_CTRL_RATE_SHIFT, 0u);
    status = xif_jobs(data, nblocks, rate);
  } else {
    acc = xif_blocks(data, nblocks, rate);
  }
  if (status == COUPLET_OK) {
    // Not after a failed job: the message is lost anyway, and its tail may lie where the job
    // found no memory (a bus error), where the core's loads would raise an NMI.
    acc |= xif_tail(tail, len - nblocks * rate, pad, rate, true);
    acc |= xif_permute();
  }
  // The output only when everything before went right; the first READ waits for the PERMUTE.
  for (size_t left = out_len; acc == 0u && status == COUPLET_OK;) {
    const size_t take = left < rate ? left : rate;
    acc |= xif_output(out, take);
    left -= take;
    if (left == 0u) {
      break;
    }
    out += take;
    acc |= xif_permute();
  }
  if (status != COUPLET_OK) {
    xif_zeroize();
    if (flags & SHA3_XIF_RELEASE_LOCK) {
      sha3_lock_give();
    }
    return status;
  }
  return xif_hash_end(acc, flags);
}

// The whole hash from the zero state (couplet_sha3_hash_tight / _mem): ZEROIZE, the message,
// the output, ZEROIZE. A short message from an aligned buffer with an output of at most one
// block of whole words into an aligned buffer (every SHA3-* digest of a message under two
// blocks) goes the inline way: at most one whole block, then the end of the message, whose
// last pair (last bytes, domain byte, and pad10*1's final bit when it ends the block) is one
// WRITE2 that enters the chain of the whole pairs before it, PERMUTE, the output READ straight
// into the caller's buffer. Everything else goes the general way.
SHA3_INLINE couplet_status_t xif_hash(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len, uint8_t *out,
                                      size_t out_len, uint32_t flags) {
  xif_zeroize();
  sha3_hw_forget();
  // (A rate beyond the largest goes the general way, which refuses it: the counts below then
  // fit their tables.)
  if (UNLIKELY_HW(len >= 2u * (size_t)rate || out_len > rate || rate > COUPLET_SHA3_MAX_RATE ||
                  (((uintptr_t)data | (uintptr_t)out | out_len) & 3u) != 0u)) {
    return xif_hash_general(rate, pad, data, len, out, out_len, flags);
  }
  const uint32_t pairs = rate >> 3;
  uint32_t acc = 0u;
  const uint8_t *p = data;
  if (len >= rate) {
    const uint32_t top = pairs - 1u;
    xif_xor_chain(p, top, couplet_load_le32_as(p + 8u * top, true), couplet_load_le32_as(p + 8u * top + 4u, true));
    acc = xif_permute();
    p += rate;
    len -= rate;
  }
  {
    // Computed while the permutation runs: the pair of the last bytes and the padding, and
    // with it the pairs before it.
    const uint32_t q = (uint32_t)len >> 3;
    const bool bit_here = q == pairs - 1u;
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(p, len, true, pad, bit_here);
    xif_xor_chain(p, q, pair.lo, pair.hi);
    if (!bit_here) {
      acc |= xif_write_pair_inline(pairs - 1u, 0u, SHA3_PAD_LAST_BIT);
    }
  }
  acc |= xif_permute();
  if (acc == 0u) {
    // The first READ waits for the PERMUTE.
    SHA3_READ_GOTO(fo, XIF_R1, out_len >> 2, out, true, bad)
    SHA3_READ_CHAIN(fo, XIF_R2, out, true)
  }
  return xif_hash_end(acc, flags);
bad:
  return xif_hash_failed(XIF_BAD_COUNT, flags);
}

// The context operations.

static __attribute__((noinline)) void xif_load(couplet_sha3_ctx_t *ctx) {
  if (ctx->state_tag == 0u) {
    xif_zeroize();  // a fresh hash: the zero state
  } else {
    // Two pairs at a time, their four loads first (no WRITE2 waits for a load).
    const uint32_t *s = ctx->state;
#pragma GCC unroll 12
    for (uint32_t k = 0; k < 24u; k += 2u) {
      xif_write2x2(KECCAK_STATE_INDEX + 2u * k, s[2u * k], s[2u * k + 1u], KECCAK_STATE_INDEX + 2u * k + 2u,
                   s[2u * k + 2u], s[2u * k + 3u]);
    }
    xif_x0(XIF_WRITE2, KECCAK_STATE_INDEX + 48u, s[48], s[49]);
  }
  sha3_hw_now_resident(ctx);
}

void sha3_xif_begin(couplet_sha3_ctx_t *ctx) {
  if (!sha3_hw_is_resident(ctx)) {
    xif_load(ctx);
  }
}

couplet_status_t sha3_xif_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  sha3_xif_begin(ctx);
  const uint32_t rate = ctx->rate;
  uint32_t acc = 0u;
  if (sha3_word_aligned(blocks) && rate <= COUPLET_SHA3_MAX_RATE) {
    // The asm chain inline (the incremental calls' hot path): each block its top pair and the
    // pairs below it.
    const uint32_t top = rate / 8u - 1u;
    for (size_t n = 0; n < nblocks; ++n, blocks += rate) {
      xif_xor_chain(blocks, top, couplet_load_le32_as(blocks + 8u * top, true),
                    couplet_load_le32_as(blocks + 8u * top + 4u, true));
      acc |= xif_permute();
    }
  } else {
    acc = xif_blocks(blocks, nblocks, rate);
  }
  sha3_hw.permute_issued = true;
  return xif_status(acc);
}

couplet_status_t sha3_xif_absorb_part(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n) {
  sha3_xif_begin(ctx);
  if (sha3_word_aligned(data) && n < ctx->rate && ctx->rate <= COUPLET_SHA3_MAX_RATE) {
    xif_xor_part(data, n);  // the asm chain inline
    return COUPLET_OK;
  }
  return xif_status(xif_tail(data, n, 0u, ctx->rate, false));
}

couplet_status_t sha3_xif_absorb_last(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad) {
  sha3_xif_begin(ctx);
  uint32_t acc;
  const uint32_t rate = ctx->rate;
  if (sha3_word_aligned(tail) && n < rate && rate <= COUPLET_SHA3_MAX_RATE) {
    // As the whole hash's end: the last pair with the padding, then the whole pairs before it
    // (none when they are in the state already: tail NULL).
    const uint32_t q = (uint32_t)n >> 3;
    const bool bit_here = q == rate / 8u - 1u;
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(tail, n, true, pad, bit_here);
    if (tail != NULL) {
      xif_xor_chain(tail, q, pair.lo, pair.hi);
      acc = 0u;
    } else {
      acc = xif_write_pair_inline(q, pair.lo, pair.hi);
    }
    if (!bit_here) {
      acc |= xif_write_pair_inline(rate / 8u - 1u, 0u, SHA3_PAD_LAST_BIT);
    }
  } else {
    acc = xif_tail(tail, n, pad, rate, true);
  }
  acc |= xif_permute();
  sha3_hw.permute_issued = true;
  return xif_status(acc);
}

couplet_status_t sha3_xif_absorb_jobs(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  sha3_xif_begin(ctx);
  if (sha3_hw.permute_issued) {
    // CTRL and LEN writes are refused while a permutation runs; a STATE read is held until it
    // is done.
    (void)xif(XIF_READ, KECCAK_STATE_INDEX, 0u, 0u);
    sha3_hw.permute_issued = false;
  }
  // The rate ABSORB counts words by.
  (void)xif(XIF_WRITE, KECCAK_CTRL_INDEX, (ctx->rate / 4u) << KECCAK_CTRL_RATE_SHIFT, 0u);
  return xif_jobs(blocks, nblocks, ctx->rate);
}

couplet_status_t sha3_xif_permute(couplet_sha3_ctx_t *ctx) {
  sha3_xif_begin(ctx);
  const uint32_t acc = xif_permute();
  sha3_hw.permute_issued = true;
  return xif_status(acc);
}

couplet_status_t sha3_xif_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  sha3_xif_begin(ctx);
  const uint32_t acc = xif_output(out, len);
  sha3_hw.permute_issued = false;  // the first READ waited for it
  return xif_status(acc);
}

couplet_status_t sha3_xif_release(couplet_sha3_ctx_t *ctx, bool keep) {
  if (sha3_hw.resident != ctx) {
    return COUPLET_OK;
  }
  if (keep) {
    // The state goes on: store it for the next call (which may find it still here).
    xif_store_state(ctx->state);
    sha3_hw_stored(ctx);
    sha3_hw.permute_issued = false;
  } else {
    // Finished or failed: nothing of the message stays in the accelerator.
    xif_zeroize();
    sha3_hw_forget();
  }
  return COUPLET_OK;
}

#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM
// The mem backend's whole hash (sha3_mem.c has its context operations): its own copy of the
// inline path, as the default backend of the default SoC is spared a jump.
couplet_status_t couplet_sha3_hash_mem(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                       uint8_t *out, size_t out_len, bool release_lock) {
  return xif_hash(rate, pad, data, len, out, out_len, SHA3_XIF_JOBS | (uint32_t)release_lock);
}
#endif

#if defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT
couplet_status_t couplet_sha3_hash_tight(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                         uint8_t *out, size_t out_len, bool release_lock) {
  return xif_hash(rate, pad, data, len, out, out_len, (uint32_t)release_lock);
}

const couplet_sha3_backend_t couplet_sha3_backend_tight =
    SHA3_HW_BACKEND_TABLE(TIGHT, "tight", sha3_xif_absorb, sha3_xif);
#endif

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_tight_unused_t;
#endif
