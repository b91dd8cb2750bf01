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

#include <couplet/aes_coupling.h>
#include <couplet/csr.h>
#include <couplet/irq_wait.h>

#include "../word_access.h"
#include "aes_backend.h"

// For the register-window drivers' functions with a loop per block or per poll. CV32E40X takes
// a cycle more for a taken branch to a 32-bit instruction that is not word-aligned (its
// prefetcher fetches words), and where a loop lands depends on where the linker puts the
// function and on its relaxation (a call of 2 or 4 bytes): the same mmio_irq code took 17,423 or
// 17,937 cycles for CTR over 4 KiB in `couplet bench aes` as unrelated code moved it, 2 cycles a
// block. GCC's align-loops word-aligns the loops' heads of these functions alone (the SDK's
// flags stay as they are); the code is otherwise the same, and the figures no longer depend on
// the layout.
#define AES_HW_ALIGN_LOOPS __attribute__((optimize("align-loops=4")))

// Polls of STATUS before a wait is declared failed: key expansion takes at most 10 cycles,
// so this bound is only reached when the hardware is broken.
#define AES_POLL_LIMIT 1000u

static inline uint32_t aes_hw_ctrl(const couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                   bool decrypt) {
  return ctx->ctrl | (uint32_t)mode | (decrypt ? AES_CTRL_DECRYPT_MASK : 0u);  // ctrl: the key length's bits
}


// The authenticated layer's modes the engine runs (aes_backend.h's aead_modes): CBC_MAC always,
// GCM and GHASH with the multiplier (`ghash_bits`).
#if defined(COUPLET_AES_ENGINE_GHASH_BITS) && COUPLET_AES_ENGINE_GHASH_BITS > 0
#define AES_HW_AEAD_MODES ((1u << AES_MODE_CBC_MAC) | (1u << AES_MODE_GCM) | (1u << AES_MODE_GHASH))
#else
#define AES_HW_AEAD_MODES (1u << AES_MODE_CBC_MAC)
#endif

// The modes whose state goes beyond IV: GHASH's S and H follow the counter in `iv`.
static inline bool aes_hw_ghash_state(couplet_aes_mode_t mode) {
  return (AES_HW_AEAD_MODES & (1u << AES_MODE_GCM)) != 0u &&
         ((uint32_t)mode == AES_MODE_GCM || (uint32_t)mode == AES_MODE_GHASH);
}

// True when the engine holds `iv`'s S and H already (a GCM or GHASH call on `iv` came right
// before in the session; aes_backend.h): a GCM or GHASH call need not write them.
static inline bool aes_hw_ghash_kept(const uint8_t *iv) {
  return couplet_aes_accel.ghash_state == (uintptr_t)iv;
}

// After S is read back into `iv`: the engine holds `iv`'s S and H (aes_backend.h).
static inline void aes_hw_ghash_read_back(const uint8_t *iv) {
  couplet_aes_accel.ghash_state = (uintptr_t)iv;
}

// The modes whose `iv` starts with a chaining value the engine uses and updates: all but GHASH,
// which leaves the counter unchanged (hw/ip/aes/README.md), so a driver neither writes nor
// reads it back.
static inline bool aes_hw_chaining(couplet_aes_mode_t mode) {
  return (AES_HW_AEAD_MODES & (1u << AES_MODE_GHASH)) == 0u || (uint32_t)mode != AES_MODE_GHASH;
}

static inline bool aes_hw_is_aligned(const void *p) {
  return ((uintptr_t)p & 3u) == 0u;
}

static inline bool aes_hw_both_aligned(const void *a, const void *b) {
  return (((uintptr_t)a | (uintptr_t)b) & 3u) == 0u;
}

// Word access (word_access.h) to a pointer whose alignment is not known yet (chaining values).
static inline uint32_t aes_hw_load(const uint8_t *p) {
  return couplet_load_le32_as(p, aes_hw_is_aligned(p));
}

static inline void aes_hw_store(uint8_t *p, uint32_t w) {
  couplet_store_le32_as(p, w, aes_hw_is_aligned(p));
}

// Turns the sticky refusal bits of STATUS into a status code.
static inline couplet_status_t aes_hw_refusal(uint32_t status) {
  if (status & AES_STATUS_REFUSED_NO_KEY_MASK) {
    return COUPLET_ERR_STATE;
  }
  if (status & AES_STATUS_REFUSED_BUSY_MASK) {
    return COUPLET_ERR_BUSY;
  }
  if (status & (AES_STATUS_JOB_ERROR_MASK | AES_STATUS_BAD_LEN_MASK)) {
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

// For a call that found a refusal in the STATUS word it read (or a MEM job's failure code):
// clear the sticky bits and return the status code.
couplet_status_t aes_xif_refused(uint32_t status);
couplet_status_t aes_xif_job_failed(uint32_t code);
couplet_status_t aes_mmio_refused(uint32_t status);

#if defined(COUPLET_AES_HAS_TIGHT) && COUPLET_AES_HAS_TIGHT
// Loads ctx's key (ctx->key, ctx->key_len) into the accelerator and expands it: WRITE2 per two
// key words, CTRL with the key length, EXPAND. The accelerator takes no command during the
// expansion (at most 10 cycles), so the next instruction simply waits: no polling.
static inline __attribute__((always_inline)) couplet_status_t aes_xif_load_key(couplet_aes_ctx_t *ctx) {
  const uint32_t *k = ctx->key;
  (void)couplet_aes_xif_write2_key0(k[0], k[1]);
  (void)couplet_aes_xif_write2_key2(k[2], k[3]);
  if (ctx->key_len > 16u) {
    (void)couplet_aes_xif_write2_key4(k[4], k[5]);
  }
  if (ctx->key_len > 24u) {
    (void)couplet_aes_xif_write2_key6(k[6], k[7]);
  }
  (void)couplet_aes_xif_write_ctrl(ctx->ctrl, 0);
  const uint32_t code = couplet_aes_xif_expand(0, 0);
  if (__builtin_expect(code != AES_RESULT_OK, 0)) {
    return aes_hw_result(code);
  }
  couplet_aes_accel.resident_key = ctx->key_id;
  return COUPLET_OK;
}
#endif

// The common calls, with the key resident (aes.c explains why they read no STATUS): CTRL, the
// chaining value (iv NULL for ECB), the blocks of word-aligned buffers (len a nonzero multiple
// of 16), the chaining value back.
#if defined(COUPLET_AES_HAS_TIGHT) && COUPLET_AES_HAS_TIGHT
// CTRL and the chaining value, before the blocks or the job.
static inline __attribute__((always_inline)) void aes_xif_begin(uint32_t ctrl, const uint8_t *iv) {
  (void)couplet_aes_xif_write_ctrl(ctrl, 0);
  if (iv != NULL) {
    couplet_aes_tight_write_iv((const couplet_aes_word_t *)(const void *)iv);
  }
}

// The chaining value back, after them.
static inline __attribute__((always_inline)) void aes_xif_end(uint8_t *iv) {
  if (iv != NULL) {
    couplet_aes_tight_read_iv((couplet_aes_word_t *)(void *)iv);
  }
}

static inline __attribute__((always_inline)) void aes_xif_blocks(uint32_t ctrl, uint8_t *iv,
                                                                 const uint8_t *in, uint8_t *out,
                                                                 size_t len) {
  aes_xif_begin(ctrl, iv);
  const couplet_aes_word_t *src = (const couplet_aes_word_t *)(const void *)in;
  couplet_aes_word_t *dst = (couplet_aes_word_t *)(void *)out;
  couplet_aes_tight_block(src, dst);
  if (__builtin_expect(len > COUPLET_AES_BLOCK_BYTES, 0)) {  // one block sets no loop up
    const couplet_aes_word_t *end = src + len / 4u;
    do {
      src += 4;
      dst += 4;
      couplet_aes_tight_block(src, dst);
    } while (src + 4 != end);
  }
  aes_xif_end(iv);
}

#if defined(COUPLET_AES_HAS_MEM) && COUPLET_AES_HAS_MEM
// One MEM job (len at most AES_MAX_JOB_BYTES); returns its answer, AES_RESULT_OK when it ran.
static inline __attribute__((always_inline)) uint32_t aes_xif_job(uint32_t ctrl, uint8_t *iv,
                                                                  const uint8_t *in, uint8_t *out,
                                                                  size_t len) {
  aes_xif_begin(ctrl, iv);
  const uint32_t code = couplet_aes_mem_job(in, out, (uint32_t)len);
  aes_xif_end(iv);
  return code;
}
#endif
#endif

#if defined(COUPLET_AES_HAS_MMIO) && COUPLET_AES_HAS_MMIO
static inline __attribute__((always_inline)) void aes_mmio_blocks(uint32_t ctrl, uint8_t *iv,
                                                                  const uint8_t *in, uint8_t *out,
                                                                  size_t len) {
  couplet_aes_reg_write(AES_CTRL_INDEX, ctrl);
  if (iv != NULL) {
    couplet_aes_mmio_write_iv((const couplet_aes_word_t *)(const void *)iv);
  }
  const couplet_aes_word_t *src = (const couplet_aes_word_t *)(const void *)in;
  couplet_aes_word_t *dst = (couplet_aes_word_t *)(void *)out;
  const couplet_aes_word_t *end = src + len / 4u;
  do {
    couplet_aes_mmio_block(src, dst);
    src += 4;
    dst += 4;
  } while (src != end);
  if (iv != NULL) {
    couplet_aes_mmio_read_iv((couplet_aes_word_t *)(void *)iv);
  }
}

// The state of a call in the register window: the chaining value, and GHASH's S and H in the
// modes that have them (they follow the counter in `iv`). GHASH neither uses nor changes the
// counter, so it is neither written nor read back; S and H are not written when the engine holds
// them already (aes_hw_ghash_kept: 8 register writes fewer). Always inlined with a constant
// `aligned`: a word-aligned `iv` (the common case: the GCM context's state, a caller's block)
// costs one alignment test per call and then straight-line lw / sw, where a loop testing each
// word took about 12 cycles a word (measured: 156 cycles to write a GCM state of 48 bytes).
static inline __attribute__((always_inline)) void aes_mmio_write_state(couplet_aes_mode_t mode,
                                                                       const uint8_t *iv, bool aligned) {
  if (aes_hw_chaining(mode)) {
    couplet_aes_reg_write(AES_IV0_INDEX, couplet_load_le32_as(iv, aligned));
    couplet_aes_reg_write(AES_IV0_INDEX + 1u, couplet_load_le32_as(iv + 4, aligned));
    couplet_aes_reg_write(AES_IV0_INDEX + 2u, couplet_load_le32_as(iv + 8, aligned));
    couplet_aes_reg_write(AES_IV0_INDEX + 3u, couplet_load_le32_as(iv + 12, aligned));
  }
  if (aes_hw_ghash_state(mode) && !aes_hw_ghash_kept(iv)) {
    const uint8_t *s = iv + 16, *h = iv + 32;
    couplet_aes_reg_write(AES_GHASH_H0_INDEX, couplet_load_le32_as(h, aligned));
    couplet_aes_reg_write(AES_GHASH_H0_INDEX + 1u, couplet_load_le32_as(h + 4, aligned));
    couplet_aes_reg_write(AES_GHASH_H0_INDEX + 2u, couplet_load_le32_as(h + 8, aligned));
    couplet_aes_reg_write(AES_GHASH_H0_INDEX + 3u, couplet_load_le32_as(h + 12, aligned));
    couplet_aes_reg_write(AES_GHASH_S0_INDEX, couplet_load_le32_as(s, aligned));
    couplet_aes_reg_write(AES_GHASH_S0_INDEX + 1u, couplet_load_le32_as(s + 4, aligned));
    couplet_aes_reg_write(AES_GHASH_S0_INDEX + 2u, couplet_load_le32_as(s + 8, aligned));
    couplet_aes_reg_write(AES_GHASH_S0_INDEX + 3u, couplet_load_le32_as(s + 12, aligned));
  }
}

// S before the chaining value: a read of S waits for the multiplier's last block.
static inline __attribute__((always_inline)) void aes_mmio_read_state(couplet_aes_mode_t mode, uint8_t *iv,
                                                                      bool aligned) {
  if (aes_hw_ghash_state(mode)) {
    uint8_t *s = iv + 16;
    couplet_store_le32_as(s, couplet_aes_reg_read(AES_GHASH_S0_INDEX), aligned);
    couplet_store_le32_as(s + 4, couplet_aes_reg_read(AES_GHASH_S0_INDEX + 1u), aligned);
    couplet_store_le32_as(s + 8, couplet_aes_reg_read(AES_GHASH_S0_INDEX + 2u), aligned);
    couplet_store_le32_as(s + 12, couplet_aes_reg_read(AES_GHASH_S0_INDEX + 3u), aligned);
    aes_hw_ghash_read_back(iv);
  }
  if (aes_hw_chaining(mode)) {
    couplet_store_le32_as(iv, couplet_aes_reg_read(AES_IV0_INDEX), aligned);
    couplet_store_le32_as(iv + 4, couplet_aes_reg_read(AES_IV0_INDEX + 1u), aligned);
    couplet_store_le32_as(iv + 8, couplet_aes_reg_read(AES_IV0_INDEX + 2u), aligned);
    couplet_store_le32_as(iv + 12, couplet_aes_reg_read(AES_IV0_INDEX + 3u), aligned);
  }
}
#endif

// The register-window side shared by the mmio, mmio_irq and dma backends (aes_mmio.c):
// begin loads the key if another context's is resident, writes CTRL (| ctrl_extra) and the
// chaining value (and GHASH's S and H in the modes that have them); end reads them back and
// reports refusals.
couplet_status_t aes_mmio_begin(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                const uint8_t *iv, uint32_t ctrl_extra);
couplet_status_t aes_mmio_end(couplet_aes_mode_t mode, uint8_t *iv);
// The mmio backend's crypt (polled, through the registers); dma's for what it does not move.
couplet_status_t aes_mmio_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks);
couplet_status_t aes_mmio_set_key(couplet_aes_ctx_t *ctx);
couplet_status_t aes_mmio_zeroize(couplet_aes_ctx_t *ctx);

#endif  // COUPLET_AES_HW_H_
