// SHA-3 on the Keccak accelerator's memory-mapped registers: the "mmio" backend, and the
// register-window side that the "dma" backend (sha3_dma.c) shares.
//
// Every word moves with a load or store to COUPLET_KECCAK_BASE + 4 * index (hw/ip/keccak/README.md).
// Per call (sha3_backend.h): the first operation stores ctx->state into STATE0..49 and the rate
// into CTRL; a block is rate/4 stores into STATE_XOR and a store of CMD.PERMUTE. Nothing polls:
// a STATE or STATE_XOR access during a permutation is held on the bus until the result is
// there, so the next block's first store (or the digest's first load) simply waits. An extract
// loads the words it needs into ctx->state, release loads only the rest, zeroizes, and reads
// STATUS once: a refused command (CMD.PERMUTE while busy, CTRL while busy) is COUPLET_ERR_BUSY,
// a bad length or a DMA bus error COUPLET_ERR_HW. The sticky bits are cleared for the next user.

#include <couplet/soc_config.h>

#if (defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO) || \
    (defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA)

#include <couplet/mmio.h>
#include <couplet/wipe.h>

#include "sha3_hw.h"

#define SHA3_INLINE static inline __attribute__((always_inline))

SHA3_INLINE void reg_write(uint32_t index, uint32_t value) {
  couplet_mmio_write32(COUPLET_KECCAK_BASE + 4u * index, value);
}

SHA3_INLINE uint32_t reg_read(uint32_t index) {
  return couplet_mmio_read32(COUPLET_KECCAK_BASE + 4u * index);
}

static __attribute__((noinline)) void mmio_load(couplet_sha3_ctx_t *ctx) {
  const uint32_t *s = ctx->state;
  for (uint32_t w = 0; w < COUPLET_SHA3_STATE_WORDS; w += 2u) {
    reg_write(KECCAK_REG_STATE0 + w, s[w]);
    reg_write(KECCAK_REG_STATE0 + w + 1u, s[w + 1u]);
  }
  reg_write(KECCAK_REG_CTRL, sha3_hw_ctrl(ctx));
  sha3_hw_call.loaded = ctx;
  sha3_hw_call.synced = COUPLET_SHA3_STATE_WORDS;  // ctx->state is what the accelerator holds
}

void sha3_mmio_begin(couplet_sha3_ctx_t *ctx) {
  if (sha3_hw_call.loaded != ctx) {
    mmio_load(ctx);
  }
}

// Always inlined with a constant `aligned`: no alignment test per word.
SHA3_INLINE void mmio_blocks_as(const uint8_t *p, size_t nblocks, uint32_t rate, bool aligned) {
  for (size_t n = 0; n < nblocks; ++n) {
    for (uint32_t w = 0; w < rate / 4u; w += 2u, p += 8) {
      reg_write(KECCAK_REG_STATE_XOR0 + w, sha3_hw_load_as(p, aligned));
      reg_write(KECCAK_REG_STATE_XOR0 + w + 1u, sha3_hw_load_as(p + 4, aligned));
    }
    reg_write(KECCAK_REG_CMD, KECCAK_CMD_PERMUTE);
  }
}

couplet_status_t sha3_mmio_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  sha3_mmio_begin(ctx);
  if (sha3_word_aligned(blocks)) {
    mmio_blocks_as(blocks, nblocks, ctx->rate, true);
  } else {
    mmio_blocks_as(blocks, nblocks, ctx->rate, false);
  }
  sha3_hw_call.synced = 0u;
  return COUPLET_OK;  // a refused PERMUTE shows in STATUS, read by release
}

couplet_status_t sha3_mmio_permute(couplet_sha3_ctx_t *ctx) {
  sha3_mmio_begin(ctx);
  reg_write(KECCAK_REG_CMD, KECCAK_CMD_PERMUTE);
  sha3_hw_call.synced = 0u;
  return COUPLET_OK;
}

couplet_status_t sha3_mmio_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  sha3_mmio_begin(ctx);
  const uint32_t words = (uint32_t)(len + 3u) / 4u;
  uint32_t *s = ctx->state;
  for (uint32_t w = sha3_hw_call.synced; w < words; ++w) {
    s[w] = reg_read(KECCAK_REG_STATE0 + w);  // the first load waits for a running permutation
  }
  if (sha3_hw_call.synced < words) {
    sha3_hw_call.synced = words;
  }
  sha3_words_to_bytes(out, s, len);
  return COUPLET_OK;
}

// Reads STATUS, clears its sticky bits for the next user, and reports a refusal on the way.
static couplet_status_t mmio_take_status(void) {
  const uint32_t status = reg_read(KECCAK_REG_STATUS);
  reg_write(KECCAK_REG_STATUS, status & KECCAK_STATUS_STICKY);
  return sha3_hw_refusal(status);
}

couplet_status_t sha3_mmio_release(couplet_sha3_ctx_t *ctx) {
  if (sha3_hw_call.loaded != ctx) {
    return COUPLET_OK;
  }
  uint32_t *s = ctx->state;
  for (uint32_t w = sha3_hw_call.synced; w < COUPLET_SHA3_STATE_WORDS; ++w) {
    s[w] = reg_read(KECCAK_REG_STATE0 + w);
  }
  // Nothing of the message stays in the accelerator (keyed modes keep their key in the state).
  reg_write(KECCAK_REG_CMD, KECCAK_CMD_ZEROIZE);
  sha3_hw_call.loaded = NULL;
  sha3_hw_call.synced = 0u;
  return mmio_take_status();
}

void sha3_mmio_hash_begin(uint32_t rate) {
  reg_write(KECCAK_REG_CMD, KECCAK_CMD_ZEROIZE);
  reg_write(KECCAK_REG_CTRL, rate / 4u);
}

void sha3_mmio_hash_blocks(uint32_t rate, const uint8_t *data, size_t nblocks) {
  if (sha3_word_aligned(data)) {
    mmio_blocks_as(data, nblocks, rate, true);
  } else {
    mmio_blocks_as(data, nblocks, rate, false);
  }
}

couplet_status_t sha3_mmio_hash_end(uint32_t rate, uint8_t pad, const uint8_t *tail, size_t n,
                                    uint8_t *out, size_t out_len) {
  uint32_t blk[COUPLET_SHA3_MAX_RATE / 4u];
  sha3_hw_last_block(blk, rate, pad, tail, n);
  // Zero words XOR nothing: only the message words, the domain byte's word and the last word.
  const uint32_t used = (uint32_t)n / 4u + 1u, last = rate / 4u - 1u;
  for (uint32_t w = 0; w < used; ++w) {
    reg_write(KECCAK_REG_STATE_XOR0 + w, blk[w]);
  }
  if (used <= last) {
    reg_write(KECCAK_REG_STATE_XOR0 + last, blk[last]);
  }
  reg_write(KECCAK_REG_CMD, KECCAK_CMD_PERMUTE);
  const uint32_t words = (uint32_t)(out_len + 3u) / 4u;
  for (uint32_t w = 0; w < words; ++w) {
    blk[w] = reg_read(KECCAK_REG_STATE0 + w);  // the first load waits for the permutation
  }
  reg_write(KECCAK_REG_CMD, KECCAK_CMD_ZEROIZE);
  const couplet_status_t status = mmio_take_status();
  if (status == COUPLET_OK) {
    sha3_words_to_bytes(out, blk, out_len);
  }
  couplet_wipe_words(blk, rate / 4u);
  return status;
}

#if defined(COUPLET_SHA3_HAS_MMIO) && COUPLET_SHA3_HAS_MMIO
// The one-shot short cut (sha3_backend.h): ZEROIZE, every block by register stores, the last
// one's zero words skipped, the output words, ZEROIZE.
static couplet_status_t mmio_hash(uint32_t rate, uint8_t pad, const uint8_t *data, size_t len, uint8_t *out,
                                  size_t out_len) {
  const size_t nblocks = len / rate;
  sha3_mmio_hash_begin(rate);
  sha3_mmio_hash_blocks(rate, data, nblocks);
  return sha3_mmio_hash_end(rate, pad, data + nblocks * rate, len - nblocks * rate, out, out_len);
}

const couplet_sha3_backend_t couplet_sha3_backend_mmio = {
    .id = COUPLET_SHA3_BACKEND_MMIO,
    .name = "mmio",
    .uses_accelerator = true,
    .absorb = sha3_mmio_absorb,
    .permute = sha3_mmio_permute,
    .extract = sha3_mmio_extract,
    .release = sha3_mmio_release,
    .hash = mmio_hash,
};
#endif

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_mmio_unused_t;
#endif
