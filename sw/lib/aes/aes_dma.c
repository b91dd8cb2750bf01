// AES backend "dma": the key, mode and chaining value go through the accelerator's registers
// (aes_mmio.c), the data through the DMA engine's descriptor slots.
//
// A long message is cut into chunks that alternate between the two slots (ping, pong): while
// the engine works on one chunk, the CPU takes the completion of the other and re-arms its slot
// with the next chunk, so the engine never waits for the CPU between chunks; the CPU waits for
// the DMA's completion interrupt (couplet_irq_wait), where an RTOS would block. A short message
// (DMA_POLL_BLOCKS) takes one slot and the CPU polls the DMA's STATUS; a single block
// (DMA_REGISTER_BLOCKS) goes through the registers like the mmio backend's.

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
// Messages of at most this many blocks take one slot and the CPU polls the DMA's STATUS
// instead of waiting for its interrupt. Polling saves the interrupt's claim, enable, disable and
// release and a second STATUS read: 35-45 cycles a call (measured on the default SoC, 1-6
// blocks of ECB, CBC_MAC, GHASH and GCM). Such a job ends within about 300 cycles (16 blocks
// of GCM: 455 cycles for the whole call, 16 cycles a block for the multiplier), less than an
// RTOS would spend blocking on the interrupt and waking (two context switches; a yield costs
// 167-231 cycles in `couplet bench rtos`), so it would not block for it either.
#define DMA_POLL_BLOCKS 16u
// Reads of STATUS before a polled job is declared lost: far more than a job of DMA_POLL_BLOCKS
// takes (about 2,000 cycles with the slowest multiplier, ghash_bits = 1).
#define DMA_POLL_LIMIT 100000u
// Messages of at most this many blocks go through the registers (aes_mmio_crypt): the DMA's
// set-up (fence, four descriptor stores, STATUS polls and its acknowledgement) costs more than
// the 8 bus accesses of one block. Measured per call on the default SoC (ROLLED, ghash_bits = 8),
// DMA against registers, with the DMA path as lean as it is here:
//   1 block:  ECB 126 / 108, CBC_MAC 166 / 130, GHASH 181 / 157, GCM 217 / 213;
//   2 blocks: ECB 134 / 152, CBC_MAC 174 / 157, GHASH 190 / 192, GCM 234 / 270.
// From 2 blocks on the DMA is as fast or faster in every mode but CBC_MAC (which waits for the
// engine after the DMA's last read; registers are faster up to 2 blocks, the DMA from 3).
#define DMA_REGISTER_BLOCKS 1u

static inline void dma_write(uint32_t offset, uint32_t value) {
  couplet_mmio_write32(COUPLET_DMA_BASE + offset, value);
}

static inline uint32_t dma_read(uint32_t offset) {
  return couplet_mmio_read32(COUPLET_DMA_BASE + offset);
}

// Without `out` (the modes CBC_MAC and GHASH, which produce nothing) the slot writes nothing.
static inline __attribute__((always_inline)) void dma_arm(uint32_t slot, const uint8_t *in, uint8_t *out,
                                                          uint32_t len) {
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
static inline __attribute__((always_inline)) couplet_status_t aes_wait_idle(void) {
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

// A message through both slots, chunk by chunk, waiting for the DMA's completion interrupt
// (where an RTOS would block).
static couplet_status_t dma_stream(const uint8_t *in, uint8_t *out, size_t remaining) {
  const uint32_t mstatus = couplet_irq_wait_claim(COUPLET_IRQ_DMA);
  dma_write(DMA_IRQ_ENABLE_OFFSET, DMA_IRQ_ENABLE_BOTH);
  __asm__ volatile("fence" ::: "memory");  // the engine must see the CPU's stores to `in`
  uint32_t slot = 0, in_flight = 0;
  couplet_status_t status = COUPLET_OK;
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
  dma_write(DMA_IRQ_ENABLE_OFFSET, 0u);
  couplet_irq_wait_release(COUPLET_IRQ_DMA, mstatus);
  return status;
}

// A short message in slot 0, polling the DMA's STATUS (bounded) instead of waiting for its
// interrupt (DMA_POLL_BLOCKS says why).
static inline __attribute__((always_inline)) couplet_status_t dma_poll(const uint8_t *in, uint8_t *out,
                                                                       uint32_t len) {
  __asm__ volatile("fence" ::: "memory");  // the engine must see the CPU's stores to `in`
  dma_arm(0u, in, out, len);
  for (uint32_t i = 0; i < DMA_POLL_LIMIT; i++) {
    const uint32_t s = dma_read(DMA_STATUS_OFFSET);
    if (s & DMA_STATUS_DONE) {
      dma_write(DMA_STATUS_OFFSET, s & DMA_STATUS_STICKY);
      return (s & DMA_STATUS_FAILED) ? COUPLET_ERR_HW : COUPLET_OK;
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

// After a job that failed or was lost: stop what still runs or is armed (the other slot after a
// bus error, the waited one after a timeout): its words would land in `out` after the call
// returned, and its DONE would end the next call's wait for that slot at once. The abort also
// drops the accelerator's partly received block (job_abort). The state is read back and
// STATUS's refusals cleared as after any call; the job's failure is what the call reports.
static __attribute__((noinline)) couplet_status_t dma_failed(couplet_aes_mode_t mode, uint8_t *iv,
                                                             couplet_status_t status) {
  dma_write(DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
  dma_write(DMA_STATUS_OFFSET, DMA_STATUS_STICKY | DMA_STATUS_STICKY << DMA_STATUS_STRIDE);
  (void)aes_mmio_end(mode, iv);
  return status;
}

// Any call the DMA moves: a key to load, a state not word-aligned, a long message.
static __attribute__((noinline)) AES_HW_ALIGN_LOOPS couplet_status_t dma_crypt_any(
    couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt, uint8_t *iv, const uint8_t *in, uint8_t *out,
    size_t blocks) {
  couplet_status_t status = aes_mmio_begin(ctx, mode, decrypt, iv, 0u);
  if (status != COUPLET_OK) {
    return status;
  }
  status = blocks <= DMA_POLL_BLOCKS ? dma_poll(in, out, (uint32_t)blocks * 16u)
                                     : dma_stream(in, out, blocks * 16u);
  if (status != COUPLET_OK) {
    return dma_failed(mode, iv, status);
  }
  if (out == NULL) {
    status = aes_wait_idle();
  }
  const couplet_status_t end = aes_mmio_end(mode, iv);
  return status != COUPLET_OK ? status : end;
}

// The end of a call that met a timeout or a refusal: the refusal cleared, the first failure
// reported (aes_mmio_end's order).
static __attribute__((noinline)) couplet_status_t dma_end_failed(couplet_status_t status, uint32_t flags) {
  const couplet_status_t refused = (flags & AES_STATUS_REFUSALS) != 0u ? aes_mmio_refused(flags) : COUPLET_OK;
  return status != COUPLET_OK ? status : refused;
}

static AES_HW_ALIGN_LOOPS couplet_status_t dma_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                                     uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (!aes_hw_both_aligned(in, out) || blocks <= DMA_REGISTER_BLOCKS) {
    // The DMA engine moves words: other buffers take the register path; so do the shortest
    // messages (DMA_REGISTER_BLOCKS).
    return aes_mmio_crypt(ctx, mode, decrypt, iv, in, out, blocks);
  }
  if (__builtin_expect(blocks > DMA_POLL_BLOCKS || couplet_aes_accel.resident_key != ctx->key_id ||
                           !aes_hw_is_aligned(iv), 0)) {
    return dma_crypt_any(ctx, mode, decrypt, iv, in, out, blocks);
  }
  // The common short call, in line (dma_crypt_any's with the key resident and the state
  // word-aligned), so that it saves no register and calls nothing but on a failure.
  couplet_aes_reg_write(AES_CTRL_INDEX, aes_hw_ctrl(ctx, mode, decrypt));
  if (iv != NULL) {
    aes_mmio_write_state(mode, iv, true);
  }
  couplet_status_t status = dma_poll(in, out, (uint32_t)blocks * 16u);
  if (__builtin_expect(status != COUPLET_OK, 0)) {
    return dma_failed(mode, iv, status);
  }
  if (out == NULL) {
    status = aes_wait_idle();
  }
  if (iv != NULL) {
    aes_mmio_read_state(mode, iv, true);
  }
  const uint32_t flags = couplet_aes_reg_read(AES_STATUS_INDEX);
  if (__builtin_expect(status != COUPLET_OK || (flags & AES_STATUS_REFUSALS) != 0u, 0)) {
    return dma_end_failed(status, flags);
  }
  return COUPLET_OK;
}

const couplet_aes_backend_t couplet_aes_backend_dma =
    AES_BACKEND_TABLE(DMA, "dma", true, aes_mmio_set_key, dma_crypt, aes_mmio_zeroize, AES_HW_AEAD_MODES);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_dma_unused_t;
#endif
