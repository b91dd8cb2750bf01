// AES backend "dma": the key, mode and chaining value go through the accelerator's registers
// (aes_mmio.c), the data through the DMA engine's descriptor slots in chunks that alternate
// between the two (ping, pong: ../dma_slots.h), and the CPU waits for the DMA's completion
// interrupt.

#include <couplet/soc_config.h>

#if COUPLET_AES_HAS_DMA

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

static couplet_status_t dma_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (!aes_hw_is_aligned(in) || !aes_hw_is_aligned(out)) {
    // The DMA engine moves words: other buffers take the register path.
    return couplet_aes_backend_mmio.crypt(ctx, mode, decrypt, iv, in, out, blocks);
  }
  couplet_status_t status = aes_mmio_begin(ctx, mode, decrypt, iv, 0u);
  if (status != COUPLET_OK) {
    return status;
  }
  status = dma_slots_run(COUPLET_DMA_BASE, COUPLET_IRQ_DMA, DMA_WAIT_LIMIT, DMA_CHUNK_BYTES, in, out, true,
                         blocks * 16u);
  couplet_status_t end = aes_mmio_end(iv);
  return status != COUPLET_OK ? status : end;
}

const couplet_aes_backend_t couplet_aes_backend_dma =
    AES_BACKEND_TABLE(DMA, "dma", true, aes_mmio_set_key, dma_crypt, aes_mmio_zeroize);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_dma_unused_t;
#endif
