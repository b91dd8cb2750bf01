// AES backends on memory-mapped registers: "mmio" polls, "mmio_irq" waits for the accelerator's
// completion interrupt (polling mip, see couplet_irq_wait), where a driver under an RTOS would block.
//
// Both move every word with a load or store (FAC-V's MMIO coupling); the registers are those
// of hw/ip/aes/README.md at COUPLET_AES_BASE.

#include <couplet/soc_config.h>

#if COUPLET_AES_HAS_MMIO

#include <couplet/csr.h>
#include <couplet/mmio.h>

#include "aes_hw.h"

static inline void reg_write(uint32_t index, uint32_t value) {
  couplet_aes_reg_write(index, value);
}

static inline uint32_t reg_read(uint32_t index) {
  return couplet_aes_reg_read(index);
}

couplet_status_t aes_mmio_refused(uint32_t status) {
  reg_write(AES_STATUS_INDEX, status & AES_STATUS_STICKY);
  return aes_hw_refusal(status);
}

// Reads STATUS and reports a refusal recorded since the last check (clearing it).
static inline couplet_status_t mmio_check_status(void) {
  const uint32_t status = reg_read(AES_STATUS_INDEX);
  return (status & AES_STATUS_REFUSALS) == 0u ? COUPLET_OK : aes_mmio_refused(status);
}

static __attribute__((noinline)) couplet_status_t mmio_load_key(couplet_aes_ctx_t *ctx) {
  for (uint32_t i = 0; i < ctx->key_len / 4u; i++) {
    reg_write(AES_KEY0_INDEX + i, ctx->key[i]);
  }
  reg_write(AES_CTRL_INDEX, aes_hw_ctrl(ctx, COUPLET_AES_ECB, false));
  reg_write(AES_CMD_INDEX, AES_CMD_EXPAND_MASK);
  for (uint32_t i = 0; i < AES_POLL_LIMIT; i++) {
    uint32_t status = reg_read(AES_STATUS_INDEX);
    if (status & AES_STATUS_KEY_READY_MASK) {
      couplet_aes_accel.resident_key = ctx->key_id;
      return COUPLET_OK;
    }
    if (status & (AES_STATUS_REFUSED_BUSY_MASK | AES_STATUS_REFUSED_NO_KEY_MASK)) {
      return mmio_check_status();
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

couplet_status_t aes_mmio_set_key(couplet_aes_ctx_t *ctx) {
  return mmio_load_key(ctx);
}

couplet_status_t aes_mmio_zeroize(couplet_aes_ctx_t *ctx) {
  if (couplet_aes_accel.resident_key != ctx->key_id) {
    return COUPLET_OK;
  }
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  reg_write(AES_CMD_INDEX, AES_CMD_ZEROIZE_MASK);
  return mmio_check_status();
}

// Blocks through the register window, any alignment (the common call, aligned, is
// couplet_aes_mmio_block). A DOUT read while the block is in flight is answered when it is
// done, so polling is only the bus wait itself. Always inlined: with a constant `aligned` a
// loop has no per-word alignment test (see couplet_load_le32_as).
static inline __attribute__((always_inline)) void write_block(const uint8_t *in, bool aligned) {
  reg_write(AES_DIN0_INDEX, couplet_load_le32_as(in, aligned));
  reg_write(AES_DIN0_INDEX + 1u, couplet_load_le32_as(in + 4, aligned));
  reg_write(AES_DIN0_INDEX + 2u, couplet_load_le32_as(in + 8, aligned));
  reg_write(AES_DIN0_INDEX + 3u, couplet_load_le32_as(in + 12, aligned));  // starts the block
}

static inline __attribute__((always_inline)) void read_block(uint8_t *out, bool aligned) {
  couplet_store_le32_as(out, reg_read(AES_DOUT0_INDEX), aligned);
  couplet_store_le32_as(out + 4, reg_read(AES_DOUT0_INDEX + 1u), aligned);
  couplet_store_le32_as(out + 8, reg_read(AES_DOUT0_INDEX + 2u), aligned);
  couplet_store_le32_as(out + 12, reg_read(AES_DOUT0_INDEX + 3u), aligned);
}

// GHASH's S and H (modes GCM and GHASH): they follow the counter in `iv` (aes_hw.h).
static void mmio_write_ghash(const uint8_t *s, const uint8_t *h) {
  for (uint32_t i = 0; i < 4u; i++) {
    reg_write(AES_GHASH_H0_INDEX + i, aes_hw_load(h + 4u * i));
    reg_write(AES_GHASH_S0_INDEX + i, aes_hw_load(s + 4u * i));
  }
}

static void mmio_read_ghash(uint8_t *s) {
  for (uint32_t i = 0; i < 4u; i++) {
    aes_hw_store(s + 4u * i, reg_read(AES_GHASH_S0_INDEX + i));
  }
}

// CTRL and the chaining value, with ctx's key already loaded.
static inline __attribute__((always_inline)) void mmio_setup(const couplet_aes_ctx_t *ctx,
                                                             couplet_aes_mode_t mode, bool decrypt,
                                                             const uint8_t *iv,
                                                             uint32_t ctrl_extra) {
  reg_write(AES_CTRL_INDEX, aes_hw_ctrl(ctx, mode, decrypt) | ctrl_extra);
  if (iv != NULL) {
    for (uint32_t i = 0; i < 4u; i++) {
      reg_write(AES_IV0_INDEX + i, aes_hw_load(iv + 4u * i));
    }
  }
}

static inline __attribute__((always_inline)) couplet_status_t mmio_finish(uint8_t *iv) {
  if (iv != NULL) {
    for (uint32_t i = 0; i < 4u; i++) {
      aes_hw_store(iv + 4u * i, reg_read(AES_IV0_INDEX + i));
    }
  }
  return mmio_check_status();
}

couplet_status_t aes_mmio_begin(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                const uint8_t *iv, uint32_t ctrl_extra) {
  if (couplet_aes_accel.resident_key != ctx->key_id) {
    couplet_status_t status = mmio_load_key(ctx);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  mmio_setup(ctx, mode, decrypt, iv, ctrl_extra);
  if (aes_hw_ghash_state(mode)) {
    mmio_write_ghash(iv + 16, iv + 32);
  }
  return COUPLET_OK;
}

couplet_status_t aes_mmio_end(couplet_aes_mode_t mode, uint8_t *iv) {
  if (aes_hw_ghash_state(mode)) {
    mmio_read_ghash(iv + 16);
  }
  return mmio_finish(iv);
}

// Polled. Aligned buffers take the common sequence (aes.c runs the same one inline when the
// key is resident); others are assembled byte by byte.
static couplet_status_t mmio_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (couplet_aes_accel.resident_key != ctx->key_id) {
    couplet_status_t status = mmio_load_key(ctx);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  if (aes_hw_both_aligned(in, out) && (iv == NULL || aes_hw_is_aligned(iv)) && out != NULL &&
      !aes_hw_ghash_state(mode)) {
    aes_mmio_blocks(aes_hw_ctrl(ctx, mode, decrypt), iv, in, out, blocks * 16u);
    return mmio_check_status();
  }
  // Unaligned buffers, and the authenticated layer's modes: without `out` (CBC_MAC, GHASH) one
  // DOUT word is read per block, whose answer waits for the block.
  (void)aes_mmio_begin(ctx, mode, decrypt, iv, 0u);  // the key is resident: cannot fail
  for (size_t b = 0; b < blocks; b++, in += 16) {
    write_block(in, false);
    if (out == NULL) {
      (void)reg_read(AES_DOUT0_INDEX);
      continue;
    }
    read_block(out, false);
    out += 16;
  }
  return aes_mmio_end(mode, iv);
}

// Waits for the completion interrupt of every block before reading it; the per-word alignment
// test stays in the loop here, next to an interrupt wait it does not matter.
static couplet_status_t mmio_irq_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                       bool decrypt, uint8_t *iv, const uint8_t *in, uint8_t *out,
                                       size_t blocks) {
  // GHASH blocks never enter the cipher, so they raise no completion interrupt: polled.
  if ((uint32_t)mode == AES_MODE_GHASH) {
    return mmio_crypt(ctx, mode, decrypt, iv, in, out, blocks);
  }
  // The common calls leave STATUS.done of their last block set: cleared here, before the
  // interrupt is enabled, so that the first wait is for this call's block.
  reg_write(AES_STATUS_INDEX, AES_STATUS_DONE_MASK);
  couplet_status_t status = aes_mmio_begin(ctx, mode, decrypt, iv, AES_CTRL_IRQ_ENABLE_MASK);
  if (status != COUPLET_OK) {
    return status;
  }
  const bool aligned = aes_hw_both_aligned(in, out);
  const uint32_t mstatus = couplet_irq_wait_claim(COUPLET_IRQ_AES);
  for (size_t b = 0; b < blocks && status == COUPLET_OK; b++, in += 16) {
    write_block(in, aligned);
    status = couplet_irq_wait(COUPLET_IRQ_AES);
    reg_write(AES_STATUS_INDEX, AES_STATUS_DONE_MASK);
    if (out != NULL) {
      read_block(out, aligned);
      out += 16;
    }
  }
  reg_write(AES_CTRL_INDEX, aes_hw_ctrl(ctx, mode, decrypt));
  couplet_irq_wait_release(COUPLET_IRQ_AES, mstatus);
  couplet_status_t end = aes_mmio_end(mode, iv);
  return status != COUPLET_OK ? status : end;
}

const couplet_aes_backend_t couplet_aes_backend_mmio =
    AES_BACKEND_TABLE(MMIO, "mmio", true, aes_mmio_set_key, mmio_crypt, aes_mmio_zeroize, AES_HW_AEAD_MODES);

const couplet_aes_backend_t couplet_aes_backend_mmio_irq =
    AES_BACKEND_TABLE(MMIO_IRQ, "mmio_irq", true, aes_mmio_set_key, mmio_irq_crypt, aes_mmio_zeroize,
                      AES_HW_AEAD_MODES);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_mmio_unused_t;
#endif
