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

static couplet_status_t dma_blocks(uint32_t rate, const uint8_t *src, size_t nblocks) {
  return dma_slots_run(COUPLET_KECCAK_DMA_BASE, COUPLET_IRQ_KECCAK_DMA, DMA_WAIT_LIMIT,
                       (uint32_t)(DMA_CHUNK_BYTES / rate * rate), src, NULL, false, nblocks * rate);
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
