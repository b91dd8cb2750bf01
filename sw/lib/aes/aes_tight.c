// AES backends on custom instructions (CV-X-IF): "tight" moves every word through registers,
// "mem" passes addresses and lets the accelerator's DMA engine move the data.
//
// Each instruction is `.insn r OPCODE, op, index, rd, rs1, rs2` (docs/coupling.md): funct3 is
// the operation (0 read, 1 write, 2 write two registers, 3 action) and funct7 the register or
// action index; rd gets the accelerator's answer.

#include <couplet/soc_config.h>

#if COUPLET_AES_HAS_TIGHT

#include "aes_hw.h"

#define AES_STR_(x) #x
#define AES_STR(x) AES_STR_(x)

// One function per (operation, index) pair, because the encoding fields must be constants.
#define AES_XIF(name, op, index)                                                   \
  static inline uint32_t name(uint32_t a, uint32_t b) {                            \
    uint32_t result;                                                               \
    __asm__ volatile(".insn r " AES_STR(COUPLET_AES_CUSTOM_OPCODE) ", " #op ", " #index \
                     ", %0, %1, %2"                                                \
                     : "=r"(result)                                                \
                     : "r"(a), "r"(b)                                              \
                     : "memory");                                                  \
    return result;                                                                 \
  }

AES_XIF(xif_write2_key0, 2, 0x00)
AES_XIF(xif_write2_key2, 2, 0x02)
AES_XIF(xif_write2_key4, 2, 0x04)
AES_XIF(xif_write2_key6, 2, 0x06)
AES_XIF(xif_write2_iv0, 2, 0x08)
AES_XIF(xif_write2_iv2, 2, 0x0A)
AES_XIF(xif_write2_din0, 2, 0x0C)
AES_XIF(xif_write2_din2, 2, 0x0E)  // DIN3 is written last: starts the block
AES_XIF(xif_read_iv0, 0, 0x08)
AES_XIF(xif_read_iv1, 0, 0x09)
AES_XIF(xif_read_iv2, 0, 0x0A)
AES_XIF(xif_read_iv3, 0, 0x0B)
AES_XIF(xif_read_dout0, 0, 0x10)  // answered when the block is done
AES_XIF(xif_read_dout1, 0, 0x11)
AES_XIF(xif_read_dout2, 0, 0x12)
AES_XIF(xif_read_dout3, 0, 0x13)
AES_XIF(xif_write_ctrl, 1, 0x14)
AES_XIF(xif_read_status, 0, 0x15)
AES_XIF(xif_write_status, 1, 0x15)
AES_XIF(xif_write_len, 1, 0x16)
AES_XIF(xif_expand, 3, 0x01)
AES_XIF(xif_zeroize_action, 3, 0x02)
AES_XIF(xif_mem, 3, 0x03)

// The encodings above spell the indexes as literals; they must be the register map's.
_Static_assert(AES_REG_KEY0 == 0x00 && AES_REG_IV0 == 0x08 && AES_REG_DIN0 == 0x0C, "AES indexes");
_Static_assert(AES_REG_DOUT0 == 0x10 && AES_REG_CTRL == 0x14 && AES_REG_STATUS == 0x15, "AES indexes");
_Static_assert(AES_REG_LEN == 0x16, "AES indexes");

// Reads STATUS, clears its sticky bits, and reports a refusal recorded since the last check.
static couplet_status_t xif_check_status(void) {
  uint32_t status = xif_read_status(0, 0);
  if (status & AES_STATUS_STICKY) {
    (void)xif_write_status(status & AES_STATUS_STICKY, 0);
  }
  return aes_hw_refusal(status);
}

// Out of line: the common call finds its key resident and should not pay for this path.
static __attribute__((noinline)) couplet_status_t xif_load_key(couplet_aes_ctx_t *ctx) {
  const uint32_t *k = ctx->key;
  (void)xif_write2_key0(k[0], k[1]);
  (void)xif_write2_key2(k[2], k[3]);
  if (ctx->key_len > 16u) {
    (void)xif_write2_key4(k[4], k[5]);
  }
  if (ctx->key_len > 24u) {
    (void)xif_write2_key6(k[6], k[7]);
  }
  (void)xif_write_ctrl(aes_hw_ctrl(ctx, COUPLET_AES_ECB, false), 0);
  // The accelerator takes no further command until the expansion is done (at most 10 cycles),
  // so the next instruction simply waits: no polling for KEY_READY.
  couplet_status_t status = aes_hw_result(xif_expand(0, 0));
  if (status == COUPLET_OK) {
    couplet_aes_hw_resident_key = ctx->key_id;
  }
  return status;
}

static void xif_write_iv(const uint8_t *iv) {
  (void)xif_write2_iv0(aes_hw_load(iv), aes_hw_load(iv + 4));
  (void)xif_write2_iv2(aes_hw_load(iv + 8), aes_hw_load(iv + 12));
}

static void xif_read_iv(uint8_t *iv) {
  aes_hw_store(iv, xif_read_iv0(0, 0));
  aes_hw_store(iv + 4, xif_read_iv1(0, 0));
  aes_hw_store(iv + 8, xif_read_iv2(0, 0));
  aes_hw_store(iv + 12, xif_read_iv3(0, 0));
}

// Always inlined with a constant `aligned`, so that each caller gets a loop without per-word
// alignment checks.
static inline __attribute__((always_inline)) void tight_blocks_as(const uint8_t *in, uint8_t *out,
                                                                  size_t blocks, bool aligned) {
  for (size_t b = 0; b < blocks; b++, in += 16, out += 16) {
    (void)xif_write2_din0(aes_hw_load_as(in, aligned), aes_hw_load_as(in + 4, aligned));
    (void)xif_write2_din2(aes_hw_load_as(in + 8, aligned), aes_hw_load_as(in + 12, aligned));
    aes_hw_store_as(out, xif_read_dout0(0, 0), aligned);
    aes_hw_store_as(out + 4, xif_read_dout1(0, 0), aligned);
    aes_hw_store_as(out + 8, xif_read_dout2(0, 0), aligned);
    aes_hw_store_as(out + 12, xif_read_dout3(0, 0), aligned);
  }
}

static inline __attribute__((always_inline)) couplet_status_t tight_blocks(const uint8_t *in,
                                                                           uint8_t *out,
                                                                           size_t blocks) {
  if (aes_hw_both_aligned(in, out)) {
    tight_blocks_as(in, out, blocks, true);
  } else {
    tight_blocks_as(in, out, blocks, false);
  }
  return COUPLET_OK;
}

static couplet_status_t tight_set_key(couplet_aes_ctx_t *ctx) {
  return xif_load_key(ctx);
}

static couplet_status_t xif_zeroize(couplet_aes_ctx_t *ctx) {
  if (couplet_aes_hw_resident_key != ctx->key_id) {
    return COUPLET_OK;
  }
  couplet_aes_hw_resident_key = 0;
  return aes_hw_result(xif_zeroize_action(0, 0));
}

#if COUPLET_AES_HAS_MEM
// The accelerator fetches and stores the data itself; buffers must be word-aligned for its
// DMA engine, and a message longer than one job is cut into jobs.
static inline __attribute__((always_inline)) couplet_status_t mem_blocks(const uint8_t *in,
                                                                         uint8_t *out,
                                                                         size_t blocks) {
  size_t remaining = blocks * 16u;
  while (remaining > 0u) {
    uint32_t len = remaining > AES_MAX_JOB_BYTES ? AES_MAX_JOB_BYTES : (uint32_t)remaining;
    (void)xif_write_len(len, 0);
    // Stores to `in` must reach memory before the accelerator reads it.
    __asm__ volatile("fence" ::: "memory");
    couplet_status_t status = aes_hw_result(xif_mem((uint32_t)(uintptr_t)in, (uint32_t)(uintptr_t)out));
    if (status != COUPLET_OK) {
      return status;
    }
    in += len;
    out += len;
    remaining -= len;
  }
  return COUPLET_OK;
}
#endif

// The call with ctx's key already in the accelerator. Always inlined with a constant use_mem,
// so that tight_crypt and mem_crypt are each one leaf function on their common path: a call
// in it would make the compiler save every argument first.
static inline __attribute__((always_inline)) couplet_status_t xif_crypt_resident(
    couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt, uint8_t *iv, const uint8_t *in,
    uint8_t *out, size_t blocks, bool use_mem) {
  couplet_status_t status;
  (void)xif_write_ctrl(aes_hw_ctrl(ctx, mode, decrypt), 0);
  if (iv != NULL) {
    xif_write_iv(iv);
  }
  // Unaligned buffers cannot go to the DMA engine: they take the register path.
#if COUPLET_AES_HAS_MEM
  if (use_mem && aes_hw_both_aligned(in, out)) {
    status = mem_blocks(in, out, blocks);
  } else {
    status = tight_blocks(in, out, blocks);
  }
#else
  (void)use_mem;
  status = tight_blocks(in, out, blocks);
#endif
  if (iv != NULL) {
    xif_read_iv(iv);
  }
  couplet_status_t refusal = xif_check_status();
  return status != COUPLET_OK ? status : refusal;
}

// Another context's key (or none) is loaded: load ctx's, then do the call.
static __attribute__((noinline)) couplet_status_t xif_crypt_reload(
    couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt, uint8_t *iv, const uint8_t *in,
    uint8_t *out, size_t blocks, bool use_mem) {
  couplet_status_t status = xif_load_key(ctx);
  if (status != COUPLET_OK) {
    return status;
  }
  return use_mem ? xif_crypt_resident(ctx, mode, decrypt, iv, in, out, blocks, true)
                 : xif_crypt_resident(ctx, mode, decrypt, iv, in, out, blocks, false);
}

static couplet_status_t tight_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                    uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (couplet_aes_hw_resident_key != ctx->key_id) {
    return xif_crypt_reload(ctx, mode, decrypt, iv, in, out, blocks, false);
  }
  return xif_crypt_resident(ctx, mode, decrypt, iv, in, out, blocks, false);
}

#if COUPLET_AES_HAS_MEM
static couplet_status_t mem_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks) {
  if (couplet_aes_hw_resident_key != ctx->key_id) {
    return xif_crypt_reload(ctx, mode, decrypt, iv, in, out, blocks, true);
  }
  return xif_crypt_resident(ctx, mode, decrypt, iv, in, out, blocks, true);
}
#endif

const couplet_aes_backend_t couplet_aes_backend_tight = {
    .id = COUPLET_AES_BACKEND_TIGHT,
    .name = "tight",
    .uses_accelerator = true,
    .set_key = tight_set_key,
    .crypt = tight_crypt,
    .zeroize = xif_zeroize,
};

#if COUPLET_AES_HAS_MEM
const couplet_aes_backend_t couplet_aes_backend_mem = {
    .id = COUPLET_AES_BACKEND_MEM,
    .name = "mem",
    .uses_accelerator = true,
    .set_key = tight_set_key,
    .crypt = mem_crypt,
    .zeroize = xif_zeroize,
};
#endif

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_tight_unused_t;
#endif
