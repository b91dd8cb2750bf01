// The DMA engine's two descriptor slots as the accelerator drivers (AES, SHA-3) program them:
// slot k's registers and STATUS bits are slot 0's, k strides further (hw/ip/dma/data/dma.toml).
//
// A message is cut into chunks that alternate between the two slots (ping, pong): while the
// engine works on one chunk, the CPU takes the completion of the other and re-arms its slot
// with the next chunk, so the engine never waits for the CPU between chunks. The CPU waits for
// the engine's completion interrupt (polled in mip with global interrupts off,
// couplet_irq_wait), each wait bounded, so that a lost interrupt ends in COUPLET_ERR_TIMEOUT
// rather than a hang.
//
// dma_slots_run is always inlined, so that each driver's constants (its engine, its interrupt,
// whether results come back) fold into it; its steps are plain inline functions, which GCC
// inlines as it did the drivers' own copies of them (forced, they came out with other
// registers and more saved ones).

#ifndef COUPLET_DMA_SLOTS_H_
#define COUPLET_DMA_SLOTS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/autogen/dma_regs.h>
#include <couplet/irq_wait.h>
#include <couplet/mmio.h>
#include <couplet/status.h>

enum {
  DMA_SLOT_STRIDE = DMA_SLOT1_SRC_OFFSET - DMA_SLOT0_SRC_OFFSET,
  DMA_STATUS_STRIDE = DMA_STATUS_SLOT1_DONE_SHIFT - DMA_STATUS_SLOT0_DONE_SHIFT,
  // Slot 0's bits that end a job: its sticky ones.
  DMA_STATUS_DONE = DMA_STATUS_SLOT0_DONE_MASK,
  DMA_STATUS_FAILED = DMA_STATUS_SLOT0_ERR_MASK | DMA_STATUS_SLOT0_REFUSED_MASK,
  DMA_STATUS_STICKY = DMA_STATUS_DONE | DMA_STATUS_FAILED,
  DMA_IRQ_ENABLE_BOTH = DMA_IRQ_ENABLE_SLOT0_MASK | DMA_IRQ_ENABLE_SLOT1_MASK,
};

// Arms slot `slot` of the engine at `base` with `len` bytes from `src`: with `to_dst`, their
// results go to `dst`; without, they feed the accelerator's input stream alone (DST and OUT_LEN
// 0: it produces no words).
static inline void dma_slots_arm(uintptr_t base, uint32_t slot, const uint8_t *src, uint8_t *dst, bool to_dst,
                                 uint32_t len) {
  const uint32_t regs = slot * DMA_SLOT_STRIDE;
  couplet_mmio_write32(base + (regs + DMA_SLOT0_SRC_OFFSET), (uint32_t)(uintptr_t)src);
  couplet_mmio_write32(base + (regs + DMA_SLOT0_DST_OFFSET), to_dst ? (uint32_t)(uintptr_t)dst : 0u);
  couplet_mmio_write32(base + (regs + DMA_SLOT0_LEN_OFFSET), len);
  if (!to_dst) {
    couplet_mmio_write32(base + (regs + DMA_SLOT0_OUT_LEN_OFFSET), 0u);  // after LEN, which also sets OUT_LEN
  }
  couplet_mmio_write32(base + DMA_CTRL_OFFSET, DMA_CTRL_GO0_MASK << slot);
}

// Waits (at most `wait_limit` interrupt waits on `irq`) for slot `slot` to end, and
// acknowledges it.
static inline couplet_status_t dma_slots_wait(uintptr_t base, uint32_t irq, uint32_t wait_limit, uint32_t slot) {
  const uint32_t shift = DMA_STATUS_STRIDE * slot;
  for (uint32_t i = 0; i < wait_limit; i++) {
    const uint32_t s = couplet_mmio_read32(base + DMA_STATUS_OFFSET);
    if (s & (DMA_STATUS_DONE << shift)) {
      couplet_mmio_write32(base + DMA_STATUS_OFFSET, s & (DMA_STATUS_STICKY << shift));
      return (s & (DMA_STATUS_FAILED << shift)) ? COUPLET_ERR_HW : COUPLET_OK;
    }
    const couplet_status_t status = couplet_irq_wait(irq);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

// Moves `len` bytes (a word multiple) from `src` (to `dst` with `to_dst`, as dma_slots_arm)
// in chunks of at most `chunk_max` bytes through both slots of the engine at `base`, whose
// completion interrupt is `irq`, and returns the first failure.
static inline __attribute__((always_inline)) couplet_status_t dma_slots_run(uintptr_t base, uint32_t irq,
                                                                             uint32_t wait_limit, uint32_t chunk_max,
                                                                             const uint8_t *src, uint8_t *dst,
                                                                             bool to_dst, size_t len) {
  size_t remaining = len;
  uint32_t slot = 0u, in_flight = 0u;
  couplet_status_t status = COUPLET_OK;
  const uint32_t mstatus = couplet_irq_wait_claim(irq);
  couplet_mmio_write32(base + DMA_IRQ_ENABLE_OFFSET, DMA_IRQ_ENABLE_BOTH);
  __asm__ volatile("fence" ::: "memory");  // the engine must see the CPU's stores to `src`
  while (status == COUPLET_OK && (remaining > 0u || in_flight > 0u)) {
    // Keep both slots busy: arm the next chunk before waiting for the oldest one.
    if (remaining > 0u && in_flight < 2u) {
      const uint32_t n = remaining > chunk_max ? chunk_max : (uint32_t)remaining;
      dma_slots_arm(base, (slot + in_flight) % 2u, src, dst, to_dst, n);
      src += n;
      if (to_dst) {
        dst += n;
      }
      remaining -= n;
      in_flight++;
      continue;
    }
    status = dma_slots_wait(base, irq, wait_limit, slot);
    slot ^= 1u;
    in_flight--;
  }
  if (status != COUPLET_OK) {
    // Stop whatever still runs or is armed (it would go on reading or writing the caller's
    // buffers after the call), and forget its status.
    couplet_mmio_write32(base + DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
    couplet_mmio_write32(base + DMA_STATUS_OFFSET, DMA_STATUS_STICKY | DMA_STATUS_STICKY << DMA_STATUS_STRIDE);
  }
  couplet_mmio_write32(base + DMA_IRQ_ENABLE_OFFSET, 0u);
  couplet_irq_wait_release(irq, mstatus);
  return status;
}

#endif  // COUPLET_DMA_SLOTS_H_
