// What the AES accelerator's backends share: the register map (hw/ip/aes/README.md), the
// CTRL word, which context's key is loaded, and word access to byte buffers.
//
// All hardware backends drive the same accelerator instance, so "which key is loaded" is one
// variable for all of them; the front end's lock serialises every use.

#ifndef COUPLET_AES_HW_H_
#define COUPLET_AES_HW_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <couplet/autogen/aes_regs.h>
#include <couplet/csr.h>
#include <couplet/irq_wait.h>

#include "aes_backend.h"

// Register indexes (the command port's `index`), from the generated register map
// (hw/ip/aes/data/aes.toml): byte offset = 4 * index when memory-mapped.
enum {
  AES_REG_KEY0 = AES_KEY0_OFFSET / 4u,
  AES_REG_IV0 = AES_IV0_OFFSET / 4u,
  AES_REG_DIN0 = AES_DIN0_OFFSET / 4u,
  AES_REG_DOUT0 = AES_DOUT0_OFFSET / 4u,
  AES_REG_CTRL = AES_CTRL_OFFSET / 4u,
  AES_REG_STATUS = AES_STATUS_OFFSET / 4u,
  AES_REG_LEN = AES_LEN_OFFSET / 4u,
  AES_REG_CMD = AES_CMD_OFFSET / 4u,
};

// Actions (AccelOpExec index) and CMD register bits.
enum { AES_ACT_START = 0, AES_ACT_EXPAND = 1, AES_ACT_ZEROIZE = 2, AES_ACT_MEM = 3 };
enum { AES_CMD_START = 1u << 0, AES_CMD_EXPAND = 1u << 1, AES_CMD_ZEROIZE = 1u << 2 };

// Action status codes.
enum { AES_RESULT_OK = 0, AES_RESULT_BUSY = 1, AES_RESULT_NO_KEY = 2, AES_RESULT_BAD_LEN = 3,
       AES_RESULT_BUS_ERROR = 4 };

enum {
  AES_STATUS_BUSY = 1u << 0,
  AES_STATUS_KEY_READY = 1u << 1,
  AES_STATUS_DOUT_VALID = 1u << 2,
  AES_STATUS_REFUSED_BUSY = 1u << 3,
  AES_STATUS_REFUSED_NO_KEY = 1u << 4,
  AES_STATUS_DONE = 1u << 5,
  AES_STATUS_JOB_ERROR = 1u << 6,
  AES_STATUS_BAD_LEN = 1u << 7,
  AES_STATUS_STICKY = AES_STATUS_REFUSED_BUSY | AES_STATUS_REFUSED_NO_KEY | AES_STATUS_DONE |
                      AES_STATUS_JOB_ERROR | AES_STATUS_BAD_LEN,
};

#define AES_CTRL_IRQ_ENABLE (1u << 6)
// Longest memory job the accelerator takes (LEN register).
#define AES_MAX_JOB_BYTES (1u << 20)
// Polls of STATUS before a wait is declared failed: key expansion takes at most 10 cycles,
// so this bound is only reached when the hardware is broken.
#define AES_POLL_LIMIT 1000u

static inline uint32_t aes_hw_ctrl(const couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                   bool decrypt) {
  uint32_t key_len_code = (ctx->key_len - 16u) / 8u;  // 16, 24, 32 bytes -> 0, 1, 2
  return (uint32_t)mode | (decrypt ? 1u << 3 : 0u) | (key_len_code << 4);
}

// The key_id of the context whose key is in the accelerator; 0 when none is.
extern uint32_t couplet_aes_hw_resident_key;

static inline bool aes_hw_is_aligned(const void *p) {
  return ((uintptr_t)p & 3u) == 0u;
}

static inline bool aes_hw_both_aligned(const void *a, const void *b) {
  return (((uintptr_t)a | (uintptr_t)b) & 3u) == 0u;
}

// Little-endian word access to byte buffers. With `aligned` true (the caller has checked) it is
// one lw or sw (memcpy from a pointer the compiler knows is aligned); otherwise four bytes.
// Block loops take `aligned` as a constant so that the check is made once per call, not once
// per word.
static inline uint32_t aes_hw_load_as(const uint8_t *p, bool aligned) {
  if (aligned) {
    uint32_t w;
    memcpy(&w, __builtin_assume_aligned(p, 4), 4);
    return w;
  }
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void aes_hw_store_as(uint8_t *p, uint32_t w, bool aligned) {
  if (aligned) {
    memcpy(__builtin_assume_aligned(p, 4), &w, 4);
    return;
  }
  p[0] = (uint8_t)w;
  p[1] = (uint8_t)(w >> 8);
  p[2] = (uint8_t)(w >> 16);
  p[3] = (uint8_t)(w >> 24);
}

// The same for a pointer whose alignment is not known yet (chaining values).
static inline uint32_t aes_hw_load(const uint8_t *p) {
  return aes_hw_load_as(p, aes_hw_is_aligned(p));
}

static inline void aes_hw_store(uint8_t *p, uint32_t w) {
  aes_hw_store_as(p, w, aes_hw_is_aligned(p));
}

// Turns the sticky refusal bits of STATUS into a status code.
static inline couplet_status_t aes_hw_refusal(uint32_t status) {
  if (status & AES_STATUS_REFUSED_NO_KEY) {
    return COUPLET_ERR_STATE;
  }
  if (status & AES_STATUS_REFUSED_BUSY) {
    return COUPLET_ERR_BUSY;
  }
  if (status & (AES_STATUS_JOB_ERROR | AES_STATUS_BAD_LEN)) {
    return COUPLET_ERR_HW;
  }
  return COUPLET_OK;
}

static inline couplet_status_t aes_hw_result(uint32_t code) {
  switch (code) {
    case AES_RESULT_OK:
      return COUPLET_OK;
    case AES_RESULT_BUSY:
      return COUPLET_ERR_BUSY;
    case AES_RESULT_NO_KEY:
      return COUPLET_ERR_STATE;
    case AES_RESULT_BAD_LEN:
      return COUPLET_ERR_LEN;
    default:
      return COUPLET_ERR_HW;
  }
}

// The register-window side shared by the mmio, mmio_irq and dma backends (aes_mmio.c):
// begin loads the key if another context's is resident, writes CTRL (| ctrl_extra) and the
// chaining value; end reads the chaining value back and reports refusals.
couplet_status_t aes_mmio_begin(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                const uint8_t *iv, uint32_t ctrl_extra);
couplet_status_t aes_mmio_end(uint8_t *iv);
couplet_status_t aes_mmio_set_key(couplet_aes_ctx_t *ctx);
couplet_status_t aes_mmio_zeroize(couplet_aes_ctx_t *ctx);

#endif  // COUPLET_AES_HW_H_
