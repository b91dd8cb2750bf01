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

// An `iv` that is not word-aligned (rare): the state of aes_mmio_write_state / _read_state,
// each word assembled byte by byte, in loops: here size matters more than speed.
static __attribute__((noinline)) void write_state_unaligned(couplet_aes_mode_t mode, const uint8_t *iv) {
  if (aes_hw_chaining(mode)) {
    for (uint32_t i = 0; i < 4u; i++) {
      reg_write(AES_IV0_INDEX + i, couplet_load_le32_as(iv + 4u * i, false));
    }
  }
  if (aes_hw_ghash_state(mode)) {
#pragma GCC unroll 1
    for (uint32_t i = 0; i < 4u; i++) {
      reg_write(AES_GHASH_H0_INDEX + i, couplet_load_le32_as(iv + 32u + 4u * i, false));
      reg_write(AES_GHASH_S0_INDEX + i, couplet_load_le32_as(iv + 16u + 4u * i, false));
    }
  }
}

static __attribute__((noinline)) void read_state_unaligned(couplet_aes_mode_t mode, uint8_t *iv) {
  if (aes_hw_ghash_state(mode)) {
    for (uint32_t i = 0; i < 4u; i++) {
      couplet_store_le32_as(iv + 16u + 4u * i, reg_read(AES_GHASH_S0_INDEX + i), false);
    }
    aes_hw_ghash_read_back(iv);
  }
  if (aes_hw_chaining(mode)) {
    for (uint32_t i = 0; i < 4u; i++) {
      couplet_store_le32_as(iv + 4u * i, reg_read(AES_IV0_INDEX + i), false);
    }
  }
}

static couplet_status_t begin_after_key_load(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                             const uint8_t *iv, uint32_t ctrl_extra);

couplet_status_t aes_mmio_begin(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                const uint8_t *iv, uint32_t ctrl_extra) {
  // The reload is out of line, so that the common call (key resident) is a leaf that saves no
  // register.
  if (__builtin_expect(couplet_aes_accel.resident_key != ctx->key_id, 0)) {
    return begin_after_key_load(ctx, mode, decrypt, iv, ctrl_extra);
  }
  reg_write(AES_CTRL_INDEX, aes_hw_ctrl(ctx, mode, decrypt) | ctrl_extra);
  if (iv == NULL) {
    return COUPLET_OK;
  }
  if (__builtin_expect(aes_hw_is_aligned(iv), 1)) {
    aes_mmio_write_state(mode, iv, true);
  } else {
    write_state_unaligned(mode, iv);
  }
  return COUPLET_OK;
}

// Loads ctx's key, then begins: the key is resident then, so aes_mmio_begin does not come back.
static __attribute__((noinline)) couplet_status_t begin_after_key_load(couplet_aes_ctx_t *ctx,
                                                                       couplet_aes_mode_t mode, bool decrypt,
                                                                       const uint8_t *iv, uint32_t ctrl_extra) {
  const couplet_status_t status = mmio_load_key(ctx);
  if (status != COUPLET_OK) {
    return status;
  }
  return aes_mmio_begin(ctx, mode, decrypt, iv, ctrl_extra);
}

couplet_status_t aes_mmio_end(couplet_aes_mode_t mode, uint8_t *iv) {
  if (iv != NULL) {
    if (__builtin_expect(aes_hw_is_aligned(iv), 1)) {
      aes_mmio_read_state(mode, iv, true);
    } else {
      read_state_unaligned(mode, iv);
    }
  }
  return mmio_check_status();
}

// The blocks of a polled call (blocks >= 1). Without `out` (CBC_MAC, GHASH) one DOUT word is
// read per block, whose answer waits for the block. The test for `out` is made once, not per
// block.
static inline __attribute__((always_inline)) void mmio_run(const uint8_t *in, uint8_t *out, size_t blocks,
                                                           bool aligned) {
  const uint8_t *const end = in + 16u * blocks;
  if (out == NULL) {
    do {
      write_block(in, aligned);
      in += 16;
      (void)reg_read(AES_DOUT0_INDEX);
    } while (in != end);
    return;
  }
  do {
    write_block(in, aligned);
    in += 16;
    read_block(out, aligned);
    out += 16;
  } while (in != end);
}

// A key to load: loaded, then the call again (it comes back here only for a buffer that is not
// word-aligned). Such a buffer: through aes_mmio_begin / aes_mmio_end, the blocks byte by byte
// (as before the common call took the authenticated modes in line).
static __attribute__((noinline)) couplet_status_t mmio_crypt_slow(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                                                  bool decrypt, uint8_t *iv, const uint8_t *in,
                                                                  uint8_t *out, size_t blocks) {
  if (couplet_aes_accel.resident_key != ctx->key_id) {
    const couplet_status_t status = mmio_load_key(ctx);
    if (status != COUPLET_OK) {
      return status;
    }
    return aes_mmio_crypt(ctx, mode, decrypt, iv, in, out, blocks);
  }
  (void)aes_mmio_begin(ctx, mode, decrypt, iv, 0u);  // the key is resident: cannot fail
  mmio_run(in, out, blocks, false);
  return aes_mmio_end(mode, iv);
}

// Polled. The common call (key resident, buffers and state word-aligned; aes.c runs the five
// modes' one inline) is a leaf: CTRL, the state, the blocks and the state back in line, so that
// it saves no register and calls nothing. The rest is out of line (mmio_crypt_slow).
AES_HW_ALIGN_LOOPS couplet_status_t aes_mmio_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                                   uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (__builtin_expect(couplet_aes_accel.resident_key != ctx->key_id ||
                           !aes_hw_both_aligned(in, out) || !aes_hw_is_aligned(iv), 0)) {
    return mmio_crypt_slow(ctx, mode, decrypt, iv, in, out, blocks);
  }
  reg_write(AES_CTRL_INDEX, aes_hw_ctrl(ctx, mode, decrypt));
  if (iv != NULL) {
    aes_mmio_write_state(mode, iv, true);
  }
  mmio_run(in, out, blocks, true);
  if (iv != NULL) {
    aes_mmio_read_state(mode, iv, true);
  }
  return mmio_check_status();
}

// Waits for the completion interrupt of every block before reading it; the per-word alignment
// test stays in the loop here, next to an interrupt wait it does not matter.
static AES_HW_ALIGN_LOOPS couplet_status_t mmio_irq_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                                          bool decrypt, uint8_t *iv, const uint8_t *in,
                                                          uint8_t *out, size_t blocks) {
  // GHASH blocks never enter the cipher, so they raise no completion interrupt: polled.
  if ((uint32_t)mode == AES_MODE_GHASH) {
    return aes_mmio_crypt(ctx, mode, decrypt, iv, in, out, blocks);
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
    AES_BACKEND_TABLE(MMIO, "mmio", true, aes_mmio_set_key, aes_mmio_crypt, aes_mmio_zeroize, AES_HW_AEAD_MODES);

const couplet_aes_backend_t couplet_aes_backend_mmio_irq =
    AES_BACKEND_TABLE(MMIO_IRQ, "mmio_irq", true, aes_mmio_set_key, mmio_irq_crypt, aes_mmio_zeroize,
                      AES_HW_AEAD_MODES);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_mmio_unused_t;
#endif
