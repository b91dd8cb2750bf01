// The instruction sequences of the AES accelerator's couplings, one block or one job at a time:
// what the driver (sw/lib/aes) and the held API's inline calls (couplet/aes_held.h) both run.
// Not an API of its own: applications use couplet/aes.h or couplet/aes_held.h.
//
// Each sequence is exactly the custom instructions or bus accesses its coupling needs, with the
// caller's data in aligned words, and checks nothing: the caller holds the accelerator, has the
// key loaded and CTRL written, and has checked its arguments. Registers, actions and timing are
// those of hw/ip/aes/README.md.

#ifndef COUPLET_AES_COUPLING_H_
#define COUPLET_AES_COUPLING_H_

#include <stdint.h>

#include <couplet/autogen/aes_regs.h>
#include <couplet/mmio.h>
#include <couplet/soc_config.h>

// The sticky STATUS bits that make a call fail; DONE is sticky too but only says a block finished.
#define AES_STATUS_REFUSALS                                                              \
  (AES_STATUS_REFUSED_BUSY_MASK | AES_STATUS_REFUSED_NO_KEY_MASK | AES_STATUS_JOB_ERROR_MASK | \
   AES_STATUS_BAD_LEN_MASK)
#define AES_STATUS_STICKY (AES_STATUS_REFUSALS | AES_STATUS_DONE_MASK)

// The CTRL word of a key length: 16, 24, 32 bytes are the codes AES_KEY_LEN_128, _192, _256.
_Static_assert(AES_KEY_LEN_192 == AES_KEY_LEN_128 + 1u && AES_KEY_LEN_256 == AES_KEY_LEN_128 + 2u,
               "a key length code per 8 bytes");
static inline uint32_t couplet_aes_ctrl_key_len(uint32_t key_len) {
  return (AES_KEY_LEN_128 + (key_len - 16u) / 8u) << AES_CTRL_KEY_LEN_SHIFT;
}

// Word access to the caller's byte buffers, which the common calls take word-aligned: may_alias
// makes reading bytes as words well defined (GCC).
typedef uint32_t __attribute__((may_alias)) couplet_aes_word_t;

// Four words into out[0..3], read by READ(0) .. READ(3) (a READ or a load of a 4-word
// register): each stored one read later, so that no store waits for its read.
#define COUPLET_AES_READ4(out, READ) \
  do {                               \
    const uint32_t r0_ = READ(0);    \
    const uint32_t r1_ = READ(1);    \
    (out)[0] = r0_;                  \
    const uint32_t r2_ = READ(2);    \
    (out)[1] = r1_;                  \
    const uint32_t r3_ = READ(3);    \
    (out)[2] = r2_;                  \
    (out)[3] = r3_;                  \
  } while (0)

// Each section needs the generated configuration of a SoC that has the coupling (host builds
// of the front end have neither).
#if defined(COUPLET_AES_CUSTOM_OPCODE) && defined(COUPLET_AES_HAS_TIGHT) && COUPLET_AES_HAS_TIGHT

#define COUPLET_AES_STR_(x) #x
#define COUPLET_AES_STR(x) COUPLET_AES_STR_(x)

// `.insn r OPCODE, op, index, rd, rs1, rs2` (docs/coupling.md): funct3 is the operation (0 read,
// 1 write, 2 write two registers, 3 action), funct7 the register or action index (an "i"
// operand, so the generated names serve), rd the answer. One function per (operation, index)
// because the encoding fields are constants.
// Register moves have no memory clobber, so the compiler may schedule the caller's loads and
// stores around them; actions that make the accelerator touch memory have one. An operand that
// is 0 is x0 ("rJ", %z), so that no register is set to zero for it.
#define COUPLET_AES_XIF_(name, op, index, clobbers)                                 \
  static inline uint32_t name(uint32_t a, uint32_t b) {                             \
    uint32_t result;                                                                \
    __asm__ volatile(".insn r " COUPLET_AES_STR(COUPLET_AES_CUSTOM_OPCODE) ", " #op \
                     ", %3, %0, %z1, %z2"                                           \
                     : "=r"(result)                                                 \
                     : "rJ"(a), "rJ"(b), "i"(index) clobbers);                      \
    return result;                                                                  \
  }
#define COUPLET_AES_XIF_REG(name, op, index) COUPLET_AES_XIF_(name, op, index, )
#define COUPLET_AES_XIF_MEM(name, op, index) COUPLET_AES_XIF_(name, op, index, : "memory")

COUPLET_AES_XIF_REG(couplet_aes_xif_write2_key0, 2, AES_KEY0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_key2, 2, AES_KEY0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_key4, 2, AES_KEY0_INDEX + 4)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_key6, 2, AES_KEY0_INDEX + 6)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_iv0, 2, AES_IV0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_iv2, 2, AES_IV0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_din0, 2, AES_DIN0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_din2, 2, AES_DIN0_INDEX + 2)  // DIN3 is written last: starts the block
COUPLET_AES_XIF_REG(couplet_aes_xif_read_iv0, 0, AES_IV0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_iv1, 0, AES_IV0_INDEX + 1)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_iv2, 0, AES_IV0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_iv3, 0, AES_IV0_INDEX + 3)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_dout0, 0, AES_DOUT0_INDEX)  // answered when the block is done
COUPLET_AES_XIF_REG(couplet_aes_xif_read_dout1, 0, AES_DOUT0_INDEX + 1)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_dout2, 0, AES_DOUT0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_dout3, 0, AES_DOUT0_INDEX + 3)
// The GHASH registers (an engine built with ghash_bits): H is write-only, S read and written.
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_ghash_h0, 2, AES_GHASH_H0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_ghash_h2, 2, AES_GHASH_H0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_ghash_s0, 2, AES_GHASH_S0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write2_ghash_s2, 2, AES_GHASH_S0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_ghash_s0, 0, AES_GHASH_S0_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_ghash_s1, 0, AES_GHASH_S0_INDEX + 1)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_ghash_s2, 0, AES_GHASH_S0_INDEX + 2)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_ghash_s3, 0, AES_GHASH_S0_INDEX + 3)
COUPLET_AES_XIF_REG(couplet_aes_xif_write_ctrl, 1, AES_CTRL_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_read_status, 0, AES_STATUS_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write_status, 1, AES_STATUS_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_write_len, 1, AES_LEN_INDEX)
COUPLET_AES_XIF_REG(couplet_aes_xif_expand, 3, AES_ACTION_EXPAND)
COUPLET_AES_XIF_MEM(couplet_aes_xif_zeroize, 3, AES_ACTION_ZEROIZE)
COUPLET_AES_XIF_MEM(couplet_aes_xif_mem, 3, AES_ACTION_MEM)

#define COUPLET_AES_XIF_READ_DOUT(k) couplet_aes_xif_read_dout##k(0, 0)
#define COUPLET_AES_XIF_READ_IV(k) couplet_aes_xif_read_iv##k(0, 0)

// One block through registers: 2 WRITE2 in (the second starts the block), 4 READ out (the first
// waits for the engine). The four loads come first (the empty asm makes the words registers
// there: left alone, the compiler loads each pair just before its WRITE2, which then waits on
// the second load) and every READ's answer is stored one instruction later, so that no
// instruction waits on the one before it.
static inline __attribute__((always_inline)) void couplet_aes_tight_block(const couplet_aes_word_t *in,
                                                                          couplet_aes_word_t *out) {
  uint32_t w0 = in[0], w1 = in[1], w2 = in[2], w3 = in[3];
  __asm__("" : "+r"(w0), "+r"(w1), "+r"(w2), "+r"(w3));
  (void)couplet_aes_xif_write2_din0(w0, w1);
  (void)couplet_aes_xif_write2_din2(w2, w3);
  COUPLET_AES_READ4(out, COUPLET_AES_XIF_READ_DOUT);
}

// The chaining value in and out (two WRITE2, four READ).
static inline __attribute__((always_inline)) void couplet_aes_tight_write_iv(const couplet_aes_word_t *iv) {
  (void)couplet_aes_xif_write2_iv0(iv[0], iv[1]);
  (void)couplet_aes_xif_write2_iv2(iv[2], iv[3]);
}

static inline __attribute__((always_inline)) void couplet_aes_tight_read_iv(couplet_aes_word_t *iv) {
  COUPLET_AES_READ4(iv, COUPLET_AES_XIF_READ_IV);
}

#if defined(COUPLET_AES_HAS_MEM) && COUPLET_AES_HAS_MEM
// One job through the accelerator's own DMA: LEN, then MEM with the two addresses; the answer
// (a status code, 0 = done) comes when the last block is written. The fence makes the caller's
// stores to `in` reach memory before the accelerator reads it. len: a multiple of 16, at most
// the accelerator's longest job (AES_MAX_JOB_BYTES).
static inline __attribute__((always_inline)) uint32_t couplet_aes_mem_job(const void *in, void *out,
                                                                        uint32_t len) {
  (void)couplet_aes_xif_write_len(len, 0);
  __asm__ volatile("fence" ::: "memory");
  return couplet_aes_xif_mem((uint32_t)(uintptr_t)in, (uint32_t)(uintptr_t)out);
}
#endif

#endif  // COUPLET_AES_HAS_TIGHT

#if defined(COUPLET_AES_BASE) && defined(COUPLET_AES_HAS_MMIO) && COUPLET_AES_HAS_MMIO

static inline void couplet_aes_reg_write(uint32_t index, uint32_t value) {
  couplet_mmio_write32(COUPLET_AES_BASE + 4u * index, value);
}

static inline uint32_t couplet_aes_reg_read(uint32_t index) {
  return couplet_mmio_read32(COUPLET_AES_BASE + 4u * index);
}

// One block through the register window: four stores in (DIN3 starts the block), four loads
// out (a DOUT read during the block is answered when it is done, so there is no polling).
static inline __attribute__((always_inline)) void couplet_aes_mmio_block(const couplet_aes_word_t *in,
                                                                         couplet_aes_word_t *out) {
  const uint32_t w0 = in[0], w1 = in[1], w2 = in[2], w3 = in[3];
  couplet_aes_reg_write(AES_DIN0_INDEX, w0);
  couplet_aes_reg_write(AES_DIN0_INDEX + 1u, w1);
  couplet_aes_reg_write(AES_DIN0_INDEX + 2u, w2);
  couplet_aes_reg_write(AES_DIN0_INDEX + 3u, w3);
#define COUPLET_AES_MMIO_READ_DOUT(k) couplet_aes_reg_read(AES_DOUT0_INDEX + (k))
  COUPLET_AES_READ4(out, COUPLET_AES_MMIO_READ_DOUT);
#undef COUPLET_AES_MMIO_READ_DOUT
}

static inline __attribute__((always_inline)) void couplet_aes_mmio_write_iv(const couplet_aes_word_t *iv) {
  for (uint32_t i = 0; i < 4u; i++) {
    couplet_aes_reg_write(AES_IV0_INDEX + i, iv[i]);
  }
}

static inline __attribute__((always_inline)) void couplet_aes_mmio_read_iv(couplet_aes_word_t *iv) {
  for (uint32_t i = 0; i < 4u; i++) {
    iv[i] = couplet_aes_reg_read(AES_IV0_INDEX + i);
  }
}

#endif  // COUPLET_AES_HAS_MMIO

#endif  // COUPLET_AES_COUPLING_H_
