// AES backends on memory-mapped registers: "mmio" polls, "mmio_irq" waits for the accelerator's
// completion interrupt (polling mip, see aes_hw_wait_irq), where a driver under an RTOS would block.
//
// Both move every word with a load or store (FAC-V's MMIO coupling); the registers are those
// of hw/ip/aes/README.md at COUPLET_AES_BASE.

#include <couplet/soc_config.h>

#if COUPLET_AES_HAS_MMIO

#include <couplet/csr.h>
#include <couplet/irq.h>
#include <couplet/mmio.h>

#include "aes_hw.h"

static inline void reg_write(uint32_t index, uint32_t value) {
  couplet_mmio_write32(COUPLET_AES_BASE + 4u * index, value);
}

static inline uint32_t reg_read(uint32_t index) {
  return couplet_mmio_read32(COUPLET_AES_BASE + 4u * index);
}

static couplet_status_t mmio_check_status(void) {
  uint32_t status = reg_read(AES_REG_STATUS);
  if (status & AES_STATUS_STICKY) {
    reg_write(AES_REG_STATUS, status & AES_STATUS_STICKY);
  }
  return aes_hw_refusal(status);
}

static couplet_status_t mmio_load_key(couplet_aes_ctx_t *ctx) {
  for (uint32_t i = 0; i < ctx->key_len / 4u; i++) {
    reg_write(AES_REG_KEY0 + i, aes_hw_load(ctx->key + 4u * i));
  }
  reg_write(AES_REG_CTRL, aes_hw_ctrl(ctx, COUPLET_AES_ECB, false));
  reg_write(AES_REG_CMD, AES_CMD_EXPAND);
  for (uint32_t i = 0; i < AES_POLL_LIMIT; i++) {
    uint32_t status = reg_read(AES_REG_STATUS);
    if (status & AES_STATUS_KEY_READY) {
      couplet_aes_hw_resident_key = ctx->key_id;
      return COUPLET_OK;
    }
    if (status & (AES_STATUS_REFUSED_BUSY | AES_STATUS_REFUSED_NO_KEY)) {
      return mmio_check_status();
    }
  }
  return COUPLET_ERR_TIMEOUT;
}

couplet_status_t aes_mmio_set_key(couplet_aes_ctx_t *ctx) {
  return mmio_load_key(ctx);
}

couplet_status_t aes_mmio_zeroize(couplet_aes_ctx_t *ctx) {
  if (couplet_aes_hw_resident_key != ctx->key_id) {
    return COUPLET_OK;
  }
  couplet_aes_hw_resident_key = 0;
  reg_write(AES_REG_CMD, AES_CMD_ZEROIZE);
  return mmio_check_status();
}

static void write_block(const uint8_t *in) {
  reg_write(AES_REG_DIN0, aes_hw_load(in));
  reg_write(AES_REG_DIN0 + 1u, aes_hw_load(in + 4));
  reg_write(AES_REG_DIN0 + 2u, aes_hw_load(in + 8));
  reg_write(AES_REG_DIN0 + 3u, aes_hw_load(in + 12));  // starts the block
}

// A DOUT read while the block is in flight is answered when it is done, so polling is only
// the bus wait itself.
static void read_block(uint8_t *out) {
  aes_hw_store(out, reg_read(AES_REG_DOUT0));
  aes_hw_store(out + 4, reg_read(AES_REG_DOUT0 + 1u));
  aes_hw_store(out + 8, reg_read(AES_REG_DOUT0 + 2u));
  aes_hw_store(out + 12, reg_read(AES_REG_DOUT0 + 3u));
}

couplet_status_t aes_mmio_begin(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                const uint8_t *iv, uint32_t ctrl_extra) {
  if (couplet_aes_hw_resident_key != ctx->key_id) {
    couplet_status_t status = mmio_load_key(ctx);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  reg_write(AES_REG_CTRL, aes_hw_ctrl(ctx, mode, decrypt) | ctrl_extra);
  if (iv != NULL) {
    for (uint32_t i = 0; i < 4u; i++) {
      reg_write(AES_REG_IV0 + i, aes_hw_load(iv + 4u * i));
    }
  }
  return COUPLET_OK;
}

couplet_status_t aes_mmio_end(uint8_t *iv) {
  if (iv != NULL) {
    for (uint32_t i = 0; i < 4u; i++) {
      aes_hw_store(iv + 4u * i, reg_read(AES_REG_IV0 + i));
    }
  }
  return mmio_check_status();
}

static couplet_status_t mmio_crypt_common(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                          bool decrypt, uint8_t *iv, const uint8_t *in,
                                          uint8_t *out, size_t blocks, bool use_irq) {
  couplet_status_t status =
      aes_mmio_begin(ctx, mode, decrypt, iv, use_irq ? AES_CTRL_IRQ_ENABLE : 0u);
  if (status != COUPLET_OK) {
    return status;
  }
  bool was_enabled = false;
  if (use_irq) {
    was_enabled = couplet_irq_global_disable();
    status = couplet_irq_enable(COUPLET_IRQ_AES);
  }
  for (size_t b = 0; b < blocks && status == COUPLET_OK; b++, in += 16, out += 16) {
    write_block(in);
    if (use_irq) {
      status = aes_hw_wait_irq(COUPLET_IRQ_AES);
      reg_write(AES_REG_STATUS, AES_STATUS_DONE);
    }
    read_block(out);
  }
  if (use_irq) {
    couplet_status_t disabled = couplet_irq_disable(COUPLET_IRQ_AES);
    reg_write(AES_REG_CTRL, aes_hw_ctrl(ctx, mode, decrypt));
    couplet_irq_global_restore(was_enabled);
    status = status != COUPLET_OK ? status : disabled;
  }
  couplet_status_t end = aes_mmio_end(iv);
  return status != COUPLET_OK ? status : end;
}

static couplet_status_t mmio_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  return mmio_crypt_common(ctx, mode, decrypt, iv, in, out, blocks, false);
}

static couplet_status_t mmio_irq_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                       bool decrypt, uint8_t *iv, const uint8_t *in, uint8_t *out,
                                       size_t blocks) {
  return mmio_crypt_common(ctx, mode, decrypt, iv, in, out, blocks, true);
}

const couplet_aes_backend_t couplet_aes_backend_mmio = {
    .id = COUPLET_AES_BACKEND_MMIO,
    .name = "mmio",
    .uses_accelerator = true,
    .set_key = aes_mmio_set_key,
    .crypt = mmio_crypt,
    .zeroize = aes_mmio_zeroize,
};

const couplet_aes_backend_t couplet_aes_backend_mmio_irq = {
    .id = COUPLET_AES_BACKEND_MMIO_IRQ,
    .name = "mmio_irq",
    .uses_accelerator = true,
    .set_key = aes_mmio_set_key,
    .crypt = mmio_irq_crypt,
    .zeroize = aes_mmio_zeroize,
};

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_mmio_unused_t;
#endif
