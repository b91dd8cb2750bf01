// AES backend "zkn" on the RISC-V scalar-crypto instructions aes32esi/aes32esmi (Zkne) and
// aes32dsi/aes32dsmi (Zknd), RISC-V Cryptography Extensions Vol. I v1.0.1, sections 3.3-3.6,
// which this SoC executes in couplet_aes_zkn behind the CV-X-IF (hw/ip/aes/doc/zkn.md).
//
//   aes32XXi rd, rs1, rs2, bs:  rd = rs1 ^ rol32(f(byte bs of rs2), 8*bs)
//
// with f the S-box (esi), the S-box and the MixColumns column (esmi), or their inverses (dsi,
// dsmi). The instructions are stateless, so this backend needs no accelerator lock: the round
// keys live in ctx->round_keys and every round is 16 instructions on four state words.
//
// State layout: column c of the AES state is word c, row r its byte r (bits 8r+7:8r), which is
// what a little-endian load of block bytes 4c..4c+3 gives.
//
// Decryption uses the equivalent inverse cipher (FIPS-197 5.3.5), whose middle round keys are
// InvMixColumns of the encryption ones. The context has room for one schedule only, so each
// decrypting call (ECB or CBC) derives those keys once on its stack (8 aes32 per word, about
// 1000 instructions per call for AES-128; wiped before returning) and reuses them for all its
// blocks. A second 60-word schedule in the context would remove that cost.

#include <couplet/soc_config.h>

#if defined(COUPLET_AES_HAS_ZKN) && COUPLET_AES_HAS_ZKN

#include <stdint.h>

#include <couplet/wipe.h>

#include "aes_backend.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "aes_zkn.c loads AES columns with little-endian word accesses"
#endif

// The instruction with fixed funct7 = {bs[1:0], funct5}: esi 10001, esmi 10011, dsi 10101,
// dsmi 10111 (the Zkn encodings: R-type, opcode OP = 0x33, funct3 = 000). `.insn` assembles it
// with the SDK's -march=rv32imac_zicsr_zifencei, which does not name Zkne/Zknd. Not volatile:
// the result depends only on the operands, so the compiler may move or drop it like an ALU op.
#ifndef COUPLET_AES_ZKN_HOST_MODEL
#define ZKN_INSN(name, funct7)                                                          \
  static inline uint32_t name(uint32_t rs1, uint32_t rs2) {                             \
    uint32_t rd;                                                                        \
    __asm__(".insn r 0x33, 0, " #funct7 ", %0, %1, %2" : "=r"(rd) : "r"(rs1), "r"(rs2)); \
    return rd;                                                                          \
  }
#else
// ---- Test model only (tests/test_aes_zkn_host.py builds this file for the host): the
// instruction is a call to a C model of aes32* that the test links in.
uint32_t couplet_aes_zkn_model(uint32_t rs1, uint32_t rs2, uint32_t funct7);
#define ZKN_INSN(name, funct7)                                \
  static inline uint32_t name(uint32_t rs1, uint32_t rs2) {   \
    return couplet_aes_zkn_model(rs1, rs2, funct7);           \
  }
#endif

ZKN_INSN(esi0, 0x11)
ZKN_INSN(esi1, 0x31)
ZKN_INSN(esi2, 0x51)
ZKN_INSN(esi3, 0x71)
ZKN_INSN(esmi0, 0x13)
ZKN_INSN(esmi1, 0x33)
ZKN_INSN(esmi2, 0x53)
ZKN_INSN(esmi3, 0x73)
ZKN_INSN(dsi0, 0x15)
ZKN_INSN(dsi1, 0x35)
ZKN_INSN(dsi2, 0x55)
ZKN_INSN(dsi3, 0x75)
ZKN_INSN(dsmi0, 0x17)
ZKN_INSN(dsmi1, 0x37)
ZKN_INSN(dsmi2, 0x57)
ZKN_INSN(dsmi3, 0x77)

// acc ^ SubWord(w).
static inline uint32_t sub_word(uint32_t acc, uint32_t w) {
  return esi3(esi2(esi1(esi0(acc, w), w), w), w);
}

// InvMixColumns(w): the S-box of esi is undone by the inverse S-box inside dsmi.
static inline uint32_t inv_mix_column(uint32_t w) {
  uint32_t s = sub_word(0, w);
  return dsmi3(dsmi2(dsmi1(dsmi0(0, s), s), s), s);
}

// One round from (s0..s3) into (t0..t3) with round key rk. The operations are written by byte
// position, four independent ones at a time, so that an instruction rarely waits for the result
// of the one before it. Encryption (ShiftRows) takes row r of new column c from old column
// c + r, decryption (InvShiftRows) from column c - r.
#define ZKN_ENC_ROUND(OP0, OP1, OP2, OP3, rk, s0, s1, s2, s3, t0, t1, t2, t3) \
  do {                                                                        \
    t0 = OP0((rk)[0], s0);                                                    \
    t1 = OP0((rk)[1], s1);                                                    \
    t2 = OP0((rk)[2], s2);                                                    \
    t3 = OP0((rk)[3], s3);                                                    \
    t0 = OP1(t0, s1);                                                         \
    t1 = OP1(t1, s2);                                                         \
    t2 = OP1(t2, s3);                                                         \
    t3 = OP1(t3, s0);                                                         \
    t0 = OP2(t0, s2);                                                         \
    t1 = OP2(t1, s3);                                                         \
    t2 = OP2(t2, s0);                                                         \
    t3 = OP2(t3, s1);                                                         \
    t0 = OP3(t0, s3);                                                         \
    t1 = OP3(t1, s0);                                                         \
    t2 = OP3(t2, s1);                                                         \
    t3 = OP3(t3, s2);                                                         \
  } while (0)

#define ZKN_DEC_ROUND(OP0, OP1, OP2, OP3, rk, s0, s1, s2, s3, t0, t1, t2, t3) \
  do {                                                                        \
    t0 = OP0((rk)[0], s0);                                                    \
    t1 = OP0((rk)[1], s1);                                                    \
    t2 = OP0((rk)[2], s2);                                                    \
    t3 = OP0((rk)[3], s3);                                                    \
    t0 = OP1(t0, s3);                                                         \
    t1 = OP1(t1, s0);                                                         \
    t2 = OP1(t2, s1);                                                         \
    t3 = OP1(t3, s2);                                                         \
    t0 = OP2(t0, s2);                                                         \
    t1 = OP2(t1, s3);                                                         \
    t2 = OP2(t2, s0);                                                         \
    t3 = OP2(t3, s1);                                                         \
    t0 = OP3(t0, s1);                                                         \
    t1 = OP3(t1, s2);                                                         \
    t2 = OP3(t2, s3);                                                         \
    t3 = OP3(t3, s0);                                                         \
  } while (0)

// Encrypts b in place with the Nr + 1 round keys rk (Nr = 10, 12 or 14).
static void encrypt_block(const uint32_t *rk, uint32_t nr, uint32_t b[4]) {
  uint32_t s0 = b[0] ^ rk[0], s1 = b[1] ^ rk[1], s2 = b[2] ^ rk[2], s3 = b[3] ^ rk[3];
  uint32_t t0, t1, t2, t3;
  const uint32_t *stop = rk + 4u * (nr - 1u);  // key of the last middle round
  rk += 4;
  // Middle rounds in pairs (Nr - 1 is odd), so the state never needs copying between rounds.
  while (rk != stop) {
    ZKN_ENC_ROUND(esmi0, esmi1, esmi2, esmi3, rk, s0, s1, s2, s3, t0, t1, t2, t3);
    ZKN_ENC_ROUND(esmi0, esmi1, esmi2, esmi3, rk + 4, t0, t1, t2, t3, s0, s1, s2, s3);
    rk += 8;
  }
  ZKN_ENC_ROUND(esmi0, esmi1, esmi2, esmi3, rk, s0, s1, s2, s3, t0, t1, t2, t3);
  ZKN_ENC_ROUND(esi0, esi1, esi2, esi3, rk + 4, t0, t1, t2, t3, s0, s1, s2, s3);
  b[0] = s0;
  b[1] = s1;
  b[2] = s2;
  b[3] = s3;
}

// Decrypts b in place with the schedule of derive_decryption_keys (same shape as encryption).
static void decrypt_block(const uint32_t *dk, uint32_t nr, uint32_t b[4]) {
  uint32_t s0 = b[0] ^ dk[0], s1 = b[1] ^ dk[1], s2 = b[2] ^ dk[2], s3 = b[3] ^ dk[3];
  uint32_t t0, t1, t2, t3;
  const uint32_t *stop = dk + 4u * (nr - 1u);
  dk += 4;
  while (dk != stop) {
    ZKN_DEC_ROUND(dsmi0, dsmi1, dsmi2, dsmi3, dk, s0, s1, s2, s3, t0, t1, t2, t3);
    ZKN_DEC_ROUND(dsmi0, dsmi1, dsmi2, dsmi3, dk + 4, t0, t1, t2, t3, s0, s1, s2, s3);
    dk += 8;
  }
  ZKN_DEC_ROUND(dsmi0, dsmi1, dsmi2, dsmi3, dk, s0, s1, s2, s3, t0, t1, t2, t3);
  ZKN_DEC_ROUND(dsi0, dsi1, dsi2, dsi3, dk + 4, t0, t1, t2, t3, s0, s1, s2, s3);
  b[0] = s0;
  b[1] = s1;
  b[2] = s2;
  b[3] = s3;
}

// The equivalent inverse cipher's schedule, in the order decryption uses it: round key Nr,
// InvMixColumns of round keys Nr-1 .. 1, round key 0.
static void derive_decryption_keys(const uint32_t *rk, uint32_t nr, uint32_t *dk) {
  const uint32_t *src = rk + 4u * nr;
  for (uint32_t i = 0; i < 4u; ++i) {
    dk[i] = src[i];
    dk[4u * nr + i] = rk[i];
  }
  for (uint32_t round = 1; round < nr; ++round) {
    src -= 4;
    for (uint32_t i = 0; i < 4u; ++i) {
      dk[4u * round + i] = inv_mix_column(src[i]);
    }
  }
}

// Word access to caller buffers: lw/sw when aligned, bytes otherwise (a misaligned lw costs
// two bus accesses on this core and traps on others). may_alias makes word access to byte
// buffers legal C.
typedef uint32_t __attribute__((may_alias)) aliased_word_t;

static inline void load_block(uint32_t w[4], const uint8_t *p) {
  if (((uintptr_t)p & 3u) == 0u) {
    const aliased_word_t *q = (const aliased_word_t *)(const void *)p;
    w[0] = q[0];
    w[1] = q[1];
    w[2] = q[2];
    w[3] = q[3];
  } else {
    for (uint32_t i = 0; i < 4u; ++i, p += 4) {
      w[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
  }
}

static inline void store_block(uint8_t *p, const uint32_t w[4]) {
  if (((uintptr_t)p & 3u) == 0u) {
    aliased_word_t *q = (aliased_word_t *)(void *)p;
    q[0] = w[0];
    q[1] = w[1];
    q[2] = w[2];
    q[3] = w[3];
  } else {
    for (uint32_t i = 0; i < 4u; ++i, p += 4) {
      p[0] = (uint8_t)w[i];
      p[1] = (uint8_t)(w[i] >> 8);
      p[2] = (uint8_t)(w[i] >> 16);
      p[3] = (uint8_t)(w[i] >> 24);
    }
  }
}

static inline void xor_block(uint32_t x[4], const uint32_t y[4]) {
  x[0] ^= y[0];
  x[1] ^= y[1];
  x[2] ^= y[2];
  x[3] ^= y[3];
}

static inline void copy_block(uint32_t x[4], const uint32_t y[4]) {
  x[0] = y[0];
  x[1] = y[1];
  x[2] = y[2];
  x[3] = y[3];
}

// FIPS-197 5.2 with SubWord from aes32esi; RotWord is a rotation right by 8 in this layout.
// Fills the 4 * (Nr + 1) words of the schedule.
static void zkn_expand(couplet_aes_ctx_t *ctx) {
  const uint32_t nk = ctx->key_len / 4u;
  uint32_t *w = ctx->round_keys;
  for (uint32_t i = 0; i < nk; ++i) {
    w[i] = ctx->key[i];
  }
  // w[i] = w[i - Nk] ^ f(w[i - 1]), walking `from` = &w[i - Nk] and `to` = &w[i] together.
  const uint32_t *from = w;
  uint32_t *to = w + nk;
  const uint32_t *const end = w + 4u * (nk + 7u);  // 4 * (Nr + 1) words
  uint32_t temp = to[-1];
  uint32_t rcon = 1;
  for (;;) {
    temp = sub_word(*from++ ^ rcon, temp >> 8 | temp << 24);  // SubWord(RotWord(temp)) ^ Rcon
    *to++ = temp;
    rcon = (rcon << 1) ^ ((rcon >> 7) * 0x11Bu);
    for (uint32_t j = 1; j < nk; ++j) {
      if (to == end) {
        return;
      }
      temp = (nk == 8u && j == 4u) ? sub_word(*from++, temp) : *from++ ^ temp;
      *to++ = temp;
    }
    if (to == end) {
      return;
    }
  }
}

static couplet_status_t zkn_set_key(couplet_aes_ctx_t *ctx) {
  if (ctx->key_len != 16u && ctx->key_len != 24u && ctx->key_len != 32u) {
    return COUPLET_ERR_KEY_LEN;
  }
  zkn_expand(ctx);
  const size_t words = sizeof ctx->round_keys / sizeof ctx->round_keys[0];
  for (size_t i = 4u * (ctx->key_len / 4u + 7u); i < words; ++i) {
    ctx->round_keys[i] = 0u;  // what an earlier, longer key left
  }
  return COUPLET_OK;
}

// Increments a 16-byte big-endian counter (SP 800-38A B.1). The counter is not secret, so
// stopping at the first byte without carry leaks nothing.
static inline void increment_counter(uint8_t ctr[16]) {
  for (uint32_t i = 16; i-- > 0u;) {
    if (++ctr[i] != 0u) {
      break;
    }
  }
}

// ECB and CBC decryption: the only uses of the inverse cipher. Word-aligned (zkn_crypt).
static __attribute__((aligned(4))) void decrypt_blocks(const uint32_t *rk, uint32_t nr, bool cbc, uint8_t *iv,
                                                       const uint8_t *in, uint8_t *out, size_t blocks) {
  uint32_t dk[60], x[4], y[4], chain[4];
  derive_decryption_keys(rk, nr, dk);
  if (cbc) {
    load_block(chain, iv);
  }
  for (; blocks > 0u; --blocks, in += 16, out += 16) {
    load_block(x, in);
    copy_block(y, x);  // the next chaining value, before an in-place store overwrites it
    decrypt_block(dk, nr, x);
    if (cbc) {
      xor_block(x, chain);
      copy_block(chain, y);
    }
    store_block(out, x);
  }
  if (cbc) {
    store_block(iv, chain);
  }
  couplet_wipe_words(dk, 4u * (nr + 1u));
}

// Every mode runs the forward cipher except ECB/CBC decryption: one loop with a single call of
// encrypt_block, which the compiler then inlines (once), keeping the state in registers.
// Word-aligned, so that its branches to 32-bit instructions do not cost a cycle more or not as
// unrelated code moves it (CV32E40X fetches words): on a halfword the 802.15.4 frame took about
// 60 cycles more.
static __attribute__((aligned(4))) couplet_status_t zkn_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode,
                                                             bool decrypt, uint8_t *iv, const uint8_t *in,
                                                             uint8_t *out, size_t blocks) {
  const uint32_t *rk = ctx->round_keys;
  const uint32_t nr = ctx->key_len / 4u + 6u;
  const bool cbc = mode == COUPLET_AES_CBC;

  if (mode != COUPLET_AES_ECB && mode != COUPLET_AES_CBC && mode != COUPLET_AES_CTR &&
      mode != COUPLET_AES_CFB && mode != COUPLET_AES_OFB) {
    return COUPLET_ERR_ARG;
  }
  if (decrypt && (mode == COUPLET_AES_ECB || cbc)) {
    decrypt_blocks(rk, nr, cbc, iv, in, out, blocks);
    return COUPLET_OK;
  }

  // CBC, CFB, OFB: the chaining value; CTR: the counter block.
  union {
    uint32_t w[4];
    uint8_t b[16];
  } chain;
  uint32_t x[4], y[4];
  if (mode != COUPLET_AES_ECB) {
    load_block(chain.w, iv);
  }
  for (; blocks > 0u; --blocks, in += 16, out += 16) {
    if (mode == COUPLET_AES_ECB || cbc) {
      load_block(x, in);
      if (cbc) {
        xor_block(x, chain.w);
      }
    } else {
      copy_block(x, chain.w);
      if (mode == COUPLET_AES_CTR) {
        increment_counter(chain.b);
      }
    }
    encrypt_block(rk, nr, x);
    if (mode == COUPLET_AES_ECB || cbc) {
      store_block(out, x);
      if (cbc) {
        copy_block(chain.w, x);
      }
    } else {
      // x is the keystream. OFB chains it, CFB the ciphertext.
      load_block(y, in);
      if (mode == COUPLET_AES_OFB) {
        copy_block(chain.w, x);
      }
      xor_block(x, y);
      store_block(out, x);
      if (mode == COUPLET_AES_CFB) {
        copy_block(chain.w, decrypt ? y : x);
      }
    }
  }
  if (mode != COUPLET_AES_ECB) {
    store_block(iv, chain.w);
  }
  return COUPLET_OK;
}

// Uses no accelerator: stateless instructions, nothing to lock or reload. No zeroize: no key
// copy outside ctx; decryption keys are wiped by every call.
const couplet_aes_backend_t couplet_aes_backend_zkn =
    AES_BACKEND_TABLE(ZKN, "zkn", false, zkn_set_key, zkn_crypt, NULL, 0u);

#else

// ISO C wants at least one declaration in a translation unit.
typedef int couplet_aes_zkn_unused_t;

#endif  // COUPLET_AES_HAS_ZKN
