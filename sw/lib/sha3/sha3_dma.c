// SHA-3 on the Keccak accelerator through its own DMA engine: the "dma" backend.
//
// The state, the end of the message, PERMUTE for squeezing and the output go through the
// register window (sha3_mmio.c); runs of whole blocks from a word-aligned buffer go through the descriptor
// slots of the Keccak tile's DMA engine (COUPLET_KECCAK_DMA_BASE, the register map of
// hw/ip/dma), whose input stream feeds the accelerator: its words absorb exactly like an
// ABSORB job, a permutation after every `rate` words (CTRL holds the rate). OUT_LEN is 0 (the
// accelerator produces no words). Blocks from an unaligned buffer, and runs shorter than
// DMA_MIN_BLOCKS, take the mmio path: a descriptor costs its set-up and an interrupt wait,
// more than storing one block's words.
//
// Waiting: the CPU waits for the DMA's completion interrupt (COUPLET_IRQ_KECCAK_DMA, polled in
// mip with global interrupts off, couplet_irq_wait), each wait bounded, so a lost interrupt
// ends in COUPLET_ERR_TIMEOUT rather than a hang. DONE means every word was handed to the
// accelerator; its last permutation may still run, and the next STATE access waits for it. A
// long message is cut into chunks that alternate between the two slots (ping, pong), the next
// one armed while the other runs, so the engine does not wait for the CPU between chunks.
//
// Errors: a bus error or a timeout aborts the engine (CTRL.ABORT, which also resets the
// accelerator's partly absorbed block through its abort input) and returns COUPLET_ERR_HW or
// COUPLET_ERR_TIMEOUT; the front end then wipes the context.

#include <couplet/soc_config.h>

#if defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA

#include <couplet/mmio.h>

#include "../dma_slots.h"
#include "sha3_hw.h"

// Longest chunk of one descriptor (a multiple of the rate is taken below it): a 4 KiB message
// goes in one descriptor; longer ones alternate between the slots.
#define DMA_CHUNK_BYTES 0x10000u
// Shorter runs go by register stores (see above); measured on the default SoC, see docs/sha3.md.
#define DMA_MIN_BLOCKS SHA3_DMA_MIN_BLOCKS
// Interrupt waits per chunk before it is declared lost (each bounded by couplet_irq_wait; the
// loop only repeats when the interrupt came from the other slot).
#define DMA_WAIT_LIMIT 16u

static inline void dma_write(uint32_t offset, uint32_t value) {
  couplet_mmio_write32(COUPLET_KECCAK_DMA_BASE + offset, value);
}

static inline uint32_t dma_read(uint32_t offset) {
  return couplet_mmio_read32(COUPLET_KECCAK_DMA_BASE + offset);
}

static void dma_arm(uint32_t slot, const uint8_t *src, uint32_t len) {
  const uint32_t base = slot * DMA_SLOT_STRIDE;
  dma_write(base + DMA_SLOT0_SRC_OFFSET, (uint32_t)(uintptr_t)src);
  dma_write(base + DMA_SLOT0_DST_OFFSET, 0u);
  dma_write(base + DMA_SLOT0_LEN_OFFSET, len);
  dma_write(base + DMA_SLOT0_OUT_LEN_OFFSET, 0u);  // after LEN, which also sets OUT_LEN
  dma_write(DMA_CTRL_OFFSET, DMA_CTRL_GO0_MASK << slot);
}

// Waits for slot `slot` to end and acknowledges it.
static couplet_status_t dma_wait(uint32_t slot) {
  const uint32_t shift = DMA_STATUS_STRIDE * slot;
  for (uint32_t i = 0; i < DMA_WAIT_LIMIT; i++) {
    const uint32_t s = dma_read(DMA_STATUS_OFFSET);
    if (s & (DMA_STATUS_DONE << shift)) {
      dma_write(DMA_STATUS_OFFSET, s & (DMA_STATUS_STICKY << shift));
      return (s & (DMA_STATUS_FAILED << shift)) ? COUPLET_ERR_HW : COUPLET_OK;
    }
    couplet_status_t status = couplet_irq_wait(COUPLET_IRQ_KECCAK_DMA);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

static couplet_status_t dma_blocks(uint32_t rate, const uint8_t *src, size_t nblocks) {
  const uint32_t chunk_max = (uint32_t)(DMA_CHUNK_BYTES / rate * rate);
  size_t remaining = nblocks * rate;
  uint32_t slot = 0u, in_flight = 0u;
  couplet_status_t status = COUPLET_OK;
  const uint32_t mstatus = couplet_irq_wait_claim(COUPLET_IRQ_KECCAK_DMA);
  dma_write(DMA_IRQ_ENABLE_OFFSET, DMA_IRQ_ENABLE_BOTH);
  __asm__ volatile("fence" ::: "memory");  // the engine must see the CPU's stores to `src`
  while (status == COUPLET_OK && (remaining > 0u || in_flight > 0u)) {
    // Keep both slots busy: arm the next chunk before waiting for the oldest one.
    if (remaining > 0u && in_flight < 2u) {
      const uint32_t len = remaining > chunk_max ? chunk_max : (uint32_t)remaining;
      dma_arm((slot + in_flight) % 2u, src, len);
      src += len;
      remaining -= len;
      in_flight++;
      continue;
    }
    status = dma_wait(slot);
    slot ^= 1u;
    in_flight--;
  }
  if (status != COUPLET_OK) {
    // Stop whatever still runs or is armed, and forget its status.
    dma_write(DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
    dma_write(DMA_STATUS_OFFSET, DMA_STATUS_STICKY | DMA_STATUS_STICKY << DMA_STATUS_STRIDE);
  }
  dma_write(DMA_IRQ_ENABLE_OFFSET, 0u);
  couplet_irq_wait_release(COUPLET_IRQ_KECCAK_DMA, mstatus);
  return status;
}

static couplet_status_t dma_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  if (nblocks < DMA_MIN_BLOCKS || !sha3_word_aligned(blocks)) {
    return sha3_mmio_absorb(ctx, blocks, nblocks);
  }
  sha3_mmio_begin(ctx);
  if (sha3_hw.permute_issued) {
    // A CTRL write during a permutation would be refused; a STATE load is held until it is done.
    (void)couplet_mmio_read32(COUPLET_KECCAK_BASE + 4u * KECCAK_STATE_INDEX);
    sha3_hw.permute_issued = false;
  }
  // The stream's rate.
  couplet_mmio_write32(COUPLET_KECCAK_BASE + 4u * KECCAK_CTRL_INDEX, (ctx->rate / 4u) << KECCAK_CTRL_RATE_SHIFT);
  return dma_blocks(ctx->rate, blocks, nblocks);
}

// The whole hash (couplet_sha3_hash_dma, the one-shot and held calls): the mmio one, with runs
// of whole blocks by DMA.
// The whole hash's runs of whole blocks (sha3_mmio_hash): CTRL (the rate the stream counts words
// by; the accelerator was just zeroized, so no permutation runs), the descriptors, and after an
// error a ZEROIZE of what was absorbed.
static couplet_status_t dma_runs(uint32_t rate, const uint8_t *data, size_t nblocks) {
  couplet_mmio_write32(COUPLET_KECCAK_BASE + 4u * KECCAK_CTRL_INDEX, (rate / 4u) << KECCAK_CTRL_RATE_SHIFT);
  const couplet_status_t status = dma_blocks(rate, data, nblocks);
  if (status != COUPLET_OK) {
    sha3_mmio_hash_begin();
  }
  return status;
}

couplet_status_t couplet_sha3_hash_dma(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len,
                                       uint8_t *out, size_t out_len, bool release_lock) {
  return sha3_mmio_hash(rate, pad, data, len, out, out_len, release_lock, dma_runs);
}

const couplet_sha3_backend_t couplet_sha3_backend_dma =
    SHA3_HW_BACKEND_TABLE(DMA, "dma", dma_absorb, sha3_mmio);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_dma_unused_t;
#endif
