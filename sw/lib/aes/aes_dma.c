// AES backend "dma": the key, mode and chaining value go through the accelerator's registers
// (aes_mmio.c), the data through the DMA engine's descriptor slots, and the CPU waits for
// the DMA's completion interrupt (couplet_irq_wait).
//
// A message is cut into chunks that alternate between the two slots (ping, pong): while the
// engine works on one chunk, the CPU takes the completion of the other and re-arms its slot
// with the next chunk, so the engine never waits for the CPU between chunks.

#include <couplet/soc_config.h>

#if COUPLET_AES_HAS_DMA

#include <couplet/mmio.h>

#include "../dma_slots.h"
#include "aes_hw.h"

// Chunk of one descriptor; the DMA takes any word-multiple length. Each chunk boundary costs
// the engine about 27 cycles (the next slot starts once the previous one has written its last
// word), so chunks are as long as possible while a 4 KiB message still goes through both
// slots: measured for CTR over 4 KiB with the UNROLLED engine, 1 KiB chunks take 2,604
// cycles, 2 KiB 2,554, one 4 KiB descriptor 2,525.
#define DMA_CHUNK_BYTES 2048u
// Waits before a chunk is declared lost: each is bounded by couplet_irq_wait, and a pending
// interrupt of the other slot ends a wait at once.
#define DMA_WAIT_LIMIT 100000u

static inline void dma_write(uint32_t offset, uint32_t value) {
  couplet_mmio_write32(COUPLET_DMA_BASE + offset, value);
}

static inline uint32_t dma_read(uint32_t offset) {
  return couplet_mmio_read32(COUPLET_DMA_BASE + offset);
}

// Without `out` (the modes CBC_MAC and GHASH, which produce nothing) the slot writes nothing.
static void dma_arm(uint32_t slot, const uint8_t *in, uint8_t *out, uint32_t len) {
  uint32_t base = slot * DMA_SLOT_STRIDE;
  dma_write(base + DMA_SLOT0_SRC_OFFSET, (uint32_t)(uintptr_t)in);
  dma_write(base + DMA_SLOT0_DST_OFFSET, (uint32_t)(uintptr_t)out);
  dma_write(base + DMA_SLOT0_LEN_OFFSET, len);
  if (out == NULL) {
    dma_write(base + DMA_SLOT0_OUT_LEN_OFFSET, 0u);
  }
  dma_write(DMA_CTRL_OFFSET, DMA_CTRL_GO0_MASK << slot);
}

// A slot of a mode without output is done when its last word is read, before the engine has
// used it: the MAC (IV) or S is complete once the accelerator is idle. Bounded: at most the
// blocks still in the engine.
static couplet_status_t aes_wait_idle(void) {
  for (uint32_t i = 0; i < AES_POLL_LIMIT; i++) {
    if ((couplet_mmio_read32(COUPLET_AES_BASE + AES_STATUS_OFFSET) & AES_STATUS_BUSY_MASK) == 0u) {
      return COUPLET_OK;
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

// Waits for slot `slot` to finish and acknowledges it.
static couplet_status_t dma_wait(uint32_t slot) {
  uint32_t done = DMA_STATUS_DONE << (DMA_STATUS_STRIDE * slot);
  couplet_status_t status = COUPLET_ERR_TIMEOUT;
  for (uint32_t i = 0; i < DMA_WAIT_LIMIT; i++) {
    uint32_t s = dma_read(DMA_STATUS_OFFSET);
    if (s & done) {
      uint32_t sticky = DMA_STATUS_STICKY << (DMA_STATUS_STRIDE * slot);
      dma_write(DMA_STATUS_OFFSET, s & sticky);
      return (s & (DMA_STATUS_FAILED << (DMA_STATUS_STRIDE * slot))) ? COUPLET_ERR_HW : COUPLET_OK;
    }
    status = couplet_irq_wait(COUPLET_IRQ_DMA);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  return status;
}

static couplet_status_t dma_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (!aes_hw_both_aligned(in, out)) {
    // The DMA engine moves words: other buffers take the register path.
    return couplet_aes_backend_mmio.crypt(ctx, mode, decrypt, iv, in, out, blocks);
  }
  couplet_status_t status = aes_mmio_begin(ctx, mode, decrypt, iv, 0u);
  if (status != COUPLET_OK) {
    return status;
  }
  const uint8_t *const out_start = out;
  const uint32_t mstatus = couplet_irq_wait_claim(COUPLET_IRQ_DMA);
  dma_write(DMA_IRQ_ENABLE_OFFSET, DMA_IRQ_ENABLE_BOTH);
  __asm__ volatile("fence" ::: "memory");  // the engine must see the CPU's stores to `in`
  size_t remaining = blocks * 16u;
  uint32_t slot = 0, in_flight = 0;
  status = COUPLET_OK;
  while (status == COUPLET_OK && (remaining > 0u || in_flight > 0u)) {
    // Keep both slots busy: arm the next chunk before waiting for the oldest one.
    if (remaining > 0u && in_flight < 2u) {
      uint32_t len = remaining > DMA_CHUNK_BYTES ? DMA_CHUNK_BYTES : (uint32_t)remaining;
      dma_arm((slot + in_flight) % 2u, in, out, len);
      in += len;
      if (out != NULL) {
        out += len;
      }
      remaining -= len;
      in_flight++;
      continue;
    }
    status = dma_wait(slot);
    slot ^= 1u;
    in_flight--;
  }
  if (status != COUPLET_OK) {
    // Stop what still runs or is armed (the other slot after a bus error, the waited one after
    // a timeout): its words would land in `out` after the call returned, and its DONE would end
    // the next call's wait for that slot at once. The abort also drops the accelerator's partly
    // received block (job_abort).
    dma_write(DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
    dma_write(DMA_STATUS_OFFSET, DMA_STATUS_STICKY | DMA_STATUS_STICKY << DMA_STATUS_STRIDE);
  }
  dma_write(DMA_IRQ_ENABLE_OFFSET, 0u);
  couplet_irq_wait_release(COUPLET_IRQ_DMA, mstatus);
  if (status == COUPLET_OK && out_start == NULL) {
    status = aes_wait_idle();
  }
  couplet_status_t end = aes_mmio_end(mode, iv);
  return status != COUPLET_OK ? status : end;
}

const couplet_aes_backend_t couplet_aes_backend_dma =
    AES_BACKEND_TABLE(DMA, "dma", true, aes_mmio_set_key, dma_crypt, aes_mmio_zeroize, AES_HW_AEAD_MODES);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_dma_unused_t;
#endif
