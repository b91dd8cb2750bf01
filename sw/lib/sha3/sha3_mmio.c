// SHA-3 on the Keccak accelerator's memory-mapped registers: the "mmio" backend, and the
// register-window side that the "dma" backend (sha3_dma.c) shares.
//
// Every word moves with a load or store to COUPLET_KECCAK_BASE + 4 * index (hw/ip/keccak/README.md;
// each costs 2 cycles on the SoC's bus). A block is rate/4 stores into STATE_XOR (unrolled, each
// word loaded straight from the caller's buffer) and a store of CMD.PERMUTE; the end of a message
// is its whole words, one pair of stores with the last message bytes and the domain byte, and
// pad10*1's final bit (in that pair's second word, or one more store). Output words are loaded
// straight into the caller's buffer. Nothing polls: a STATE or STATE_XOR access during a
// permutation is held on the bus until the result is there. A refused command (CMD.PERMUTE
// while a DMA stream outside this library is mid-block) shows only in STATUS, which every call
// reads once, after its last PERMUTE of the input: REFUSED is COUPLET_ERR_BUSY, a bad length or
// a DMA bus error COUPLET_ERR_HW, and those bits are cleared for the next user (DONE is left).
//
// The whole hash starts and ends with CMD.ZEROIZE. The context operations keep the state resident
// between calls (sha3_hw.h): the first operation of a call stores ctx->state into STATE0..49
// unless the accelerator still holds it (or ZEROIZEs for a fresh hash); release loads it back or
// ZEROIZEs.

#include <couplet/soc_config.h>

#if (defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO) || \
    (defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA)

#include "sha3_mmio.h"

// The first `len` (0..rate) bytes of the state into out (any alignment): whole words into an
// aligned buffer by the read chain, into an unaligned one by a loop (loads take any address; a
// byte store per byte costs more than the loop), a last partial word (SHAKE) by bytes.
static __attribute__((noinline)) uint32_t mmio_output(uint8_t *out, size_t len) {
  const uint32_t words = (uint32_t)len / 4u;
  if (words > KECCAK_STATE_COUNT) {
    return MMIO_BAD_COUNT;
  }
  if (sha3_word_aligned(out)) {
    SHA3_READ_GOTO(ra, MMIO_R1, words, out, true, bad)
    SHA3_READ_CHAIN(ra, MMIO_R2, out, true)
  } else {
    for (uint32_t w = 0; w < words; ++w) {
      couplet_store_le32_as(out + 4u * w, reg_read(KECCAK_STATE_INDEX + w), false);
    }
  }
  if (len % 4u != 0u) {
    uint32_t v = reg_read(KECCAK_STATE_INDEX + words);
    for (size_t i = 4u * words; i < len; ++i, v >>= 8) {
      out[i] = (uint8_t)v;
    }
  }
  sha3_hw.permute_issued = false;  // the first load waited for it
  return 0u;
bad:
  return MMIO_BAD_COUNT;
}

// XORs the word pairs pairs-1 .. 0 (0..21) at p into STATE_XOR: an aligned buffer by the asm
// chain, an unaligned one (words assembled from bytes) by a loop (stores take any address).
static __attribute__((noinline)) uint32_t mmio_pairs(const uint8_t *p, uint32_t pairs) {
  if (pairs > 21u) {
    return MMIO_BAD_COUNT;
  }
  if (sha3_word_aligned(p)) {
    if (pairs != 0u) {
      const uint32_t top = pairs - 1u;
      mmio_xor_chain(p, top, couplet_load_le32_as(p + 8u * top, true), couplet_load_le32_as(p + 8u * top + 4u, true));
    }
    return 0u;
  }
  for (uint32_t w = 0; w < 2u * pairs; ++w) {
    reg_write(KECCAK_STATE_XOR_INDEX + w, couplet_load_le32_as(p + 4u * w, false));
  }
  return 0u;
}

// `nblocks` whole blocks at p, each its word pairs and a CMD.PERMUTE.
SHA3_INLINE uint32_t mmio_blocks(const uint8_t *p, size_t nblocks, uint32_t rate) {
  uint32_t err = 0u;
  for (size_t n = 0; n < nblocks; ++n, p += rate) {
    err |= mmio_pairs(p, rate / 8u);
    mmio_permute();
  }
  return err;
}

// The end of a message (or of the part of a block an update leaves): its `n` (< rate) bytes at
// tail (none when tail is NULL), and with last_bit the domain byte `pad` at n and pad10*1's final
// bit. The pair of the last bytes by its word address (stores take any address). No PERMUTE.
SHA3_INLINE uint32_t mmio_tail(const uint8_t *tail, size_t n, uint32_t pad, uint32_t rate, bool last_bit) {
  const uint32_t q = (uint32_t)n >> 3;
  const bool bit_here = last_bit && sha3_hw_pad_pair_is_last(n, rate);
  const bool last_pair = last_bit || (n & 7u) != 0u;
  const bool aligned = sha3_word_aligned(tail);
  uint32_t err = 0u;
  if (q > 20u) {
    return MMIO_BAD_COUNT;
  }
  if (tail != NULL && aligned && last_pair) {
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(tail, n, true, pad, bit_here);
    mmio_xor_chain(tail, q, pair.lo, pair.hi);  // that pair, then the whole pairs before it
  } else {
    if (tail != NULL) {
      err = mmio_pairs(tail, q);
    }
    if (last_pair) {
      const sha3_hw_pair_t pair = sha3_hw_pad_pair(tail, n, aligned, pad, bit_here);
      reg_write(KECCAK_STATE_XOR_INDEX + 2u * q, pair.lo);
      reg_write(KECCAK_STATE_XOR_INDEX + 2u * q + 1u, pair.hi);
    }
  }
  if (last_bit && !bit_here) {
    reg_write(KECCAK_STATE_XOR_INDEX + rate / 4u - 1u, SHA3_PAD_LAST_BIT);
  }
  return err;
}

// Reads STATUS; an error bit (a refused command, a bad length, a DMA bus error) is cleared for
// the next user and reported. DONE is left as it is.
static couplet_status_t mmio_take_status(void) {
  const uint32_t status = reg_read(KECCAK_STATUS_INDEX);
  if ((status & KECCAK_STATUS_ERRORS) == 0u) {
    return COUPLET_OK;
  }
  reg_write(KECCAK_STATUS_INDEX, status & KECCAK_STATUS_ERRORS);
  return sha3_hw_refusal(status);
}

SHA3_INLINE couplet_status_t mmio_status(uint32_t err) {
  const couplet_status_t status = mmio_take_status();
  return err != 0u ? COUPLET_ERR_HW : status;
}

// The whole hash (couplet_sha3_hash_mmio and the dma backend's).

void sha3_mmio_hash_begin(void) {
  mmio_zeroize();
  sha3_hw_forget();
}

void sha3_mmio_hash_blocks(uint32_t rate, const uint8_t *data, size_t nblocks) {
  // A count error cannot happen here (the rate is one of FIPS 202's); the tail's check covers
  // the same switch.
  (void)mmio_blocks(data, nblocks, rate);
}

// The end of a whole hash: ZEROIZE, the lock given back if the caller asked for it.
static couplet_status_t mmio_hash_done(couplet_status_t status, bool release_lock) {
  mmio_zeroize();
  if (release_lock) {
    sha3_lock_give();
  }
  return status;
}

couplet_status_t sha3_mmio_hash_end(uint32_t rate, uint32_t pad, const uint8_t *tail, size_t n, uint8_t *out,
                                    size_t out_len, bool release_lock) {
  uint32_t err = mmio_tail(tail, n, pad, rate, true);
  mmio_permute();
  // Refused commands show only in STATUS: read it (answered at once, during the permutation)
  // before any output is written.
  couplet_status_t status = mmio_status(err);
  if (status == COUPLET_OK) {
    for (size_t left = out_len;;) {
      const size_t take = left < rate ? left : rate;
      err |= mmio_output(out, take);
      left -= take;
      if (left == 0u) {
        break;
      }
      out += take;
      mmio_permute();
    }
    if (out_len > rate) {
      status = mmio_status(err);  // the squeezing PERMUTEs
    }
  }
  return mmio_hash_done(status, release_lock);
}

// Any message and output, the general way.
static __attribute__((noinline)) couplet_status_t mmio_hash_general(uint32_t rate, uint32_t pad, const uint8_t *data,
                                                                    size_t len, uint8_t *out, size_t out_len,
                                                                    bool release_lock, sha3_mmio_runs_t runs) {
  if (rate == 0u || rate > COUPLET_SHA3_MAX_RATE || rate % 8u != 0u) {
    // Not a rate of FIPS 202 (the front end never passes one).
    return mmio_hash_done(COUPLET_ERR_ARG, release_lock);
  }
  const size_t nblocks = sha3_hw_blocks(len, rate);
  if (runs != NULL && nblocks >= SHA3_DMA_MIN_BLOCKS && sha3_word_aligned(data)) {
    const couplet_status_t status = runs(rate, data, nblocks);
    if (status != COUPLET_OK) {
      return mmio_hash_done(status, release_lock);
    }
  } else {
    sha3_mmio_hash_blocks(rate, data, nblocks);
  }
  // (No arithmetic on a NULL data: with no whole block the tail is data itself.)
  const uint8_t *tail = nblocks != 0u ? data + nblocks * rate : data;
  return sha3_mmio_hash_end(rate, pad, tail, len - nblocks * rate, out, out_len, release_lock);
}

// A refusal or bus error that STATUS showed after the last PERMUTE: clear it, no output.
static __attribute__((noinline)) couplet_status_t mmio_hash_failed(uint32_t status, bool release_lock) {
  reg_write(KECCAK_STATUS_INDEX, status & KECCAK_STATUS_ERRORS);
  return mmio_hash_done(sha3_hw_refusal(status), release_lock);
}

// The whole hash from the zero state: ZEROIZE, the message, the output, ZEROIZE. A short
// message from an aligned buffer with an output of at most one block of whole words into an
// aligned buffer (every SHA3-* digest of a message under two blocks) goes the inline way, as in
// xif_hash (sha3_tight.c): at most one whole block, the end of the message (its last pair with the
// padding, then the whole pairs before it), CMD.PERMUTE, STATUS, the output loaded straight
// into the caller's buffer.
couplet_status_t sha3_mmio_hash(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len, uint8_t *out,
                                size_t out_len, bool release_lock, sha3_mmio_runs_t runs) {
  mmio_zeroize();
  sha3_hw_forget();
  if (__builtin_expect(len >= 2u * (size_t)rate || out_len > rate || rate > COUPLET_SHA3_MAX_RATE ||
                           (((uintptr_t)data | (uintptr_t)out | out_len) & 3u) != 0u,
                       0)) {
    return mmio_hash_general(rate, pad, data, len, out, out_len, release_lock, runs);
  }
  const uint32_t pairs = rate >> 3;
  const uint8_t *p = data;
  if (len >= rate) {
    const uint32_t top = pairs - 1u;
    mmio_xor_chain(p, top, couplet_load_le32_as(p + 8u * top, true), couplet_load_le32_as(p + 8u * top + 4u, true));
    reg_write(KECCAK_CMD_INDEX, KECCAK_CMD_PERMUTE_MASK);
    p += rate;
    len -= rate;
  }
  {
    // Computed while the permutation runs.
    const uint32_t q = (uint32_t)len >> 3;
    const bool bit_here = q == pairs - 1u;
    const sha3_hw_pair_t pair = sha3_hw_pad_pair(p, len, true, pad, bit_here);
    mmio_xor_chain(p, q, pair.lo, pair.hi);
    if (!bit_here) {
      reg_write(KECCAK_STATE_XOR_INDEX + 2u * pairs - 1u, SHA3_PAD_LAST_BIT);
    }
  }
  reg_write(KECCAK_CMD_INDEX, KECCAK_CMD_PERMUTE_MASK);
  // Refused commands show only in STATUS (answered at once, during the permutation).
  const uint32_t status = reg_read(KECCAK_STATUS_INDEX);
  if (__builtin_expect((status & KECCAK_STATUS_ERRORS) != 0u, 0)) {
    return mmio_hash_failed(status, release_lock);
  }
  // The first load waits for the permutation.
  SHA3_READ_GOTO(fo, MMIO_R1, out_len >> 2, out, true, bad)
  SHA3_READ_CHAIN(fo, MMIO_R2, out, true)
  return mmio_hash_done(COUPLET_OK, release_lock);
bad:
  return mmio_hash_done(COUPLET_ERR_HW, release_lock);
}

// The context operations.

static __attribute__((noinline)) void mmio_load(couplet_sha3_ctx_t *ctx) {
  if (ctx->state_tag == 0u) {
    mmio_zeroize();  // a fresh hash: the zero state
  } else {
    const uint32_t *s = ctx->state;
#pragma GCC unroll 50
    for (uint32_t w = 0; w < COUPLET_SHA3_STATE_WORDS; ++w) {
      reg_write(KECCAK_STATE_INDEX + w, s[w]);
    }
  }
  sha3_hw_now_resident(ctx);
}

void sha3_mmio_begin(couplet_sha3_ctx_t *ctx) {
  if (!sha3_hw_is_resident(ctx)) {
    mmio_load(ctx);
  }
}

couplet_status_t sha3_mmio_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  sha3_mmio_begin(ctx);
  const uint32_t err = mmio_blocks(blocks, nblocks, ctx->rate);
  return err != 0u ? COUPLET_ERR_HW : COUPLET_OK;  // a refused PERMUTE: release reads STATUS
}

couplet_status_t sha3_mmio_absorb_part(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n) {
  sha3_mmio_begin(ctx);
  const uint32_t err = mmio_tail(data, n, 0u, ctx->rate, false);
  return err != 0u ? COUPLET_ERR_HW : COUPLET_OK;
}

couplet_status_t sha3_mmio_absorb_last(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad) {
  sha3_mmio_begin(ctx);
  const uint32_t err = mmio_tail(tail, n, pad, ctx->rate, true);
  mmio_permute();
  // A refused PERMUTE would give a wrong output: check before the output is read.
  return err != 0u ? COUPLET_ERR_HW : mmio_take_status();
}

couplet_status_t sha3_mmio_permute(couplet_sha3_ctx_t *ctx) {
  sha3_mmio_begin(ctx);
  mmio_permute();
  return mmio_take_status();
}

couplet_status_t sha3_mmio_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  sha3_mmio_begin(ctx);
  const uint32_t err = mmio_output(out, len);
  return err != 0u ? COUPLET_ERR_HW : COUPLET_OK;
}

couplet_status_t sha3_mmio_release(couplet_sha3_ctx_t *ctx, bool keep) {
  if (sha3_hw.resident != ctx) {
    return COUPLET_OK;
  }
  couplet_status_t status = mmio_take_status();
  if (keep && status == COUPLET_OK) {
    // The state goes on: store it for the next call (which may find it still here).
    mmio_store_state(ctx->state);
    sha3_hw_stored(ctx);
    sha3_hw.permute_issued = false;
  } else {
    // Finished or failed: nothing of the message stays in the accelerator.
    mmio_zeroize();
    sha3_hw_forget();
  }
  return status;
}

#if defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO
couplet_status_t couplet_sha3_hash_mmio(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                        uint8_t *out, size_t out_len, bool release_lock) {
  return sha3_mmio_hash(rate, pad, data, len, out, out_len, release_lock, NULL);
}

const couplet_sha3_backend_t couplet_sha3_backend_mmio =
    SHA3_HW_BACKEND_TABLE(MMIO, "mmio", sha3_mmio_absorb, sha3_mmio);
#endif

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_mmio_unused_t;
#endif
