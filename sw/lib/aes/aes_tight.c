// AES backends on custom instructions (CV-X-IF): "tight" moves every word through registers,
// "mem" passes addresses and lets the accelerator's DMA engine move the data.
//
// The instruction sequences are couplet/aes_coupling.h's; the common call (key resident,
// aligned buffers) runs inline in the front end (aes.c) and in the held API, so these functions
// serve the rest: another context's key to load first, unaligned buffers, mem jobs longer than
// the accelerator takes at once.

#include <couplet/soc_config.h>

#if COUPLET_AES_HAS_TIGHT

#include "aes_hw.h"

// The failure paths are out of line and cold: the calls that succeed run straight through.
__attribute__((noinline, cold)) couplet_status_t aes_xif_refused(uint32_t status) {
  (void)couplet_aes_xif_write_status(status & AES_STATUS_STICKY, 0);
  return aes_hw_refusal(status);
}

__attribute__((noinline, cold)) couplet_status_t aes_xif_job_failed(uint32_t code) {
  const uint32_t status = couplet_aes_xif_read_status(0, 0);
  (void)couplet_aes_xif_write_status(status & AES_STATUS_STICKY, 0);
  return aes_hw_result(code);
}

// Reads STATUS and reports a refusal recorded since the last check (clearing it).
static couplet_status_t xif_check_status(void) {
  const uint32_t status = couplet_aes_xif_read_status(0, 0);
  return (status & AES_STATUS_REFUSALS) == 0u ? COUPLET_OK : aes_xif_refused(status);
}

static couplet_status_t tight_set_key(couplet_aes_ctx_t *ctx) {
  return aes_xif_load_key(ctx);
}

static void xif_write_iv(const uint8_t *iv) {
  (void)couplet_aes_xif_write2_iv0(aes_hw_load(iv), aes_hw_load(iv + 4));
  (void)couplet_aes_xif_write2_iv2(aes_hw_load(iv + 8), aes_hw_load(iv + 12));
}

static void xif_read_iv(uint8_t *iv) {
  aes_hw_store(iv, couplet_aes_xif_read_iv0(0, 0));
  aes_hw_store(iv + 4, couplet_aes_xif_read_iv1(0, 0));
  aes_hw_store(iv + 8, couplet_aes_xif_read_iv2(0, 0));
  aes_hw_store(iv + 12, couplet_aes_xif_read_iv3(0, 0));
}

// Blocks through registers, any alignment: bytes assembled into words. Without `out` (the modes
// CBC_MAC and GHASH) one DOUT word is read per block: its answer waits for the block, so the
// next block's DIN writes are not refused while this one is in flight.
static void tight_blocks_bytes(const uint8_t *in, uint8_t *out, size_t blocks) {
  for (size_t b = 0; b < blocks; b++, in += 16) {
    (void)couplet_aes_xif_write2_din0(couplet_load_le32_as(in, false), couplet_load_le32_as(in + 4, false));
    (void)couplet_aes_xif_write2_din2(couplet_load_le32_as(in + 8, false), couplet_load_le32_as(in + 12, false));
    if (out == NULL) {
      (void)couplet_aes_xif_read_dout0(0, 0);
      continue;
    }
    couplet_store_le32_as(out, couplet_aes_xif_read_dout0(0, 0), false);
    couplet_store_le32_as(out + 4, couplet_aes_xif_read_dout1(0, 0), false);
    couplet_store_le32_as(out + 8, couplet_aes_xif_read_dout2(0, 0), false);
    couplet_store_le32_as(out + 12, couplet_aes_xif_read_dout3(0, 0), false);
    out += 16;
  }
}

// GHASH's S and H (modes GCM and GHASH; aes_hw.h): they follow the counter in `iv`.
#if COUPLET_AES_ENGINE_GHASH_BITS > 0
static void xif_write_ghash(const uint8_t *s, const uint8_t *h) {
  (void)couplet_aes_xif_write2_ghash_h0(aes_hw_load(h), aes_hw_load(h + 4));
  (void)couplet_aes_xif_write2_ghash_h2(aes_hw_load(h + 8), aes_hw_load(h + 12));
  (void)couplet_aes_xif_write2_ghash_s0(aes_hw_load(s), aes_hw_load(s + 4));
  (void)couplet_aes_xif_write2_ghash_s2(aes_hw_load(s + 8), aes_hw_load(s + 12));
}

// S back into the state `iv` (it follows the counter).
static void xif_read_ghash(uint8_t *iv) {
  uint8_t *s = iv + 16;
  aes_hw_store(s, couplet_aes_xif_read_ghash_s0(0, 0));
  aes_hw_store(s + 4, couplet_aes_xif_read_ghash_s1(0, 0));
  aes_hw_store(s + 8, couplet_aes_xif_read_ghash_s2(0, 0));
  aes_hw_store(s + 12, couplet_aes_xif_read_ghash_s3(0, 0));
  aes_hw_ghash_read_back(iv);
}
#else
static void xif_write_ghash(const uint8_t *s, const uint8_t *h) {
  (void)s;
  (void)h;
}

static void xif_read_ghash(uint8_t *iv) {
  (void)iv;
}
#endif

static couplet_status_t xif_zeroize(couplet_aes_ctx_t *ctx) {
  if (couplet_aes_accel.resident_key != ctx->key_id) {
    return COUPLET_OK;
  }
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  return aes_hw_result(couplet_aes_xif_zeroize(0, 0));
}

// Any call: loads ctx's key if another is resident; aligned buffers take the common sequence
// (a mem job of at most AES_MAX_JOB_BYTES at a time), others the byte-assembling register path.
// Word-aligned, so that the jump into it and the branches in it do not depend on where the
// linker puts it (aes_hw.h, AES_HW_ALIGN_LOOPS): unrelated code moved it to a halfword and the
// 802.15.4 frame on mem took 13 cycles more, a cycle a taken branch to a 32-bit instruction.
static __attribute__((aligned(4))) couplet_status_t xif_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                                             bool decrypt, uint8_t *iv, const uint8_t *in,
                                                             uint8_t *out, size_t blocks, bool use_mem) {
  if (couplet_aes_accel.resident_key != ctx->key_id) {
    couplet_status_t status = aes_xif_load_key(ctx);
    if (status != COUPLET_OK) {
      return status;
    }
  }
  const uint32_t ctrl = aes_hw_ctrl(ctx, mode, decrypt);
  const bool ghash_state = aes_hw_ghash_state(mode);
  if (ghash_state && !aes_hw_ghash_kept(iv)) {
    xif_write_ghash(iv + 16, iv + 32);
  }
  couplet_status_t status = COUPLET_OK;
  if (aes_hw_both_aligned(in, out) && (iv == NULL || aes_hw_is_aligned(iv)) &&
      (out != NULL || use_mem)) {
    size_t remaining = blocks * 16u;
#if COUPLET_AES_HAS_MEM
    if (use_mem) {
      // A job of a mode without output writes nothing (the engine gives the DMA out_len 0).
      do {
        const size_t len = remaining > AES_MAX_JOB_BYTES ? AES_MAX_JOB_BYTES : remaining;
        const uint32_t code = aes_xif_job(ctrl, iv, in, out, len);
        if (__builtin_expect(code != AES_RESULT_OK, 0)) {
          status = aes_xif_job_failed(code);
          break;
        }
        in += len;
        if (out != NULL) {
          out += len;
        }
        remaining -= len;
      } while (remaining > 0u);
    } else
#endif
    {
      (void)use_mem;
      aes_xif_blocks(ctrl, iv, in, out, remaining);
      status = xif_check_status();
    }
    if (ghash_state && status == COUPLET_OK) {
      xif_read_ghash(iv);
    }
    return status;
  }
  // Unaligned buffers cannot go to the DMA engine: they take the register path.
  (void)couplet_aes_xif_write_ctrl(ctrl, 0);
  if (iv != NULL) {
    xif_write_iv(iv);
  }
  tight_blocks_bytes(in, out, blocks);
  if (iv != NULL) {
    xif_read_iv(iv);
  }
  if (ghash_state) {
    xif_read_ghash(iv);
  }
  return xif_check_status();
}

static couplet_status_t tight_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                    uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  return xif_crypt(ctx, mode, decrypt, iv, in, out, blocks, false);
}

const couplet_aes_backend_t couplet_aes_backend_tight =
    AES_BACKEND_TABLE(TIGHT, "tight", true, tight_set_key, tight_crypt, xif_zeroize, AES_HW_AEAD_MODES);

#if COUPLET_AES_HAS_MEM
static couplet_status_t mem_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  return xif_crypt(ctx, mode, decrypt, iv, in, out, blocks, true);
}

const couplet_aes_backend_t couplet_aes_backend_mem =
    AES_BACKEND_TABLE(MEM, "mem", true, tight_set_key, mem_crypt, xif_zeroize, AES_HW_AEAD_MODES);
#endif

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_tight_unused_t;
#endif
