// The DMA engine's two descriptor slots as the accelerator drivers (AES, SHA-3) program them:
// slot k's registers and STATUS bits are slot 0's, k strides further (hw/ip/dma/data/dma.toml).

#ifndef COUPLET_DMA_SLOTS_H_
#define COUPLET_DMA_SLOTS_H_

#include <couplet/autogen/dma_regs.h>

enum {
  DMA_SLOT_STRIDE = DMA_SLOT1_SRC_OFFSET - DMA_SLOT0_SRC_OFFSET,
  DMA_STATUS_STRIDE = DMA_STATUS_SLOT1_DONE_SHIFT - DMA_STATUS_SLOT0_DONE_SHIFT,
  // Slot 0's bits that end a job: its sticky ones.
  DMA_STATUS_DONE = DMA_STATUS_SLOT0_DONE_MASK,
  DMA_STATUS_FAILED = DMA_STATUS_SLOT0_ERR_MASK | DMA_STATUS_SLOT0_REFUSED_MASK,
  DMA_STATUS_STICKY = DMA_STATUS_DONE | DMA_STATUS_FAILED,
  DMA_IRQ_ENABLE_BOTH = DMA_IRQ_ENABLE_SLOT0_MASK | DMA_IRQ_ENABLE_SLOT1_MASK,
};

#endif  // COUPLET_DMA_SLOTS_H_
