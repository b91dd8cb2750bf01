// SHA-3 on the Keccak accelerator through custom instructions (CV-X-IF): the "tight" backend,
// and the custom-instruction side that the "mem" backend (sha3_mem.c) shares.
//
// Each instruction is `.insn r COUPLET_KECCAK_CUSTOM_OPCODE, op, index, rd, rs1, rs2`
// (docs/coupling.md): funct3 the operation (0 read, 1 write, 2 write two registers, 3 action),
// funct7 the register or action index, rd the accelerator's answer. The index is an encoding
// field, so every instruction has a constant index: the state transfers are unrolled, and
// the variable counts (rate, digest length) enter an unrolled sequence at the right place
// through a switch (a jump table).
//
// Per call (sha3_backend.h): the first operation writes ctx->state into STATE0..49 (25 WRITE2,
// which wait for nothing: the previous call's release left the accelerator idle) and CTRL; the
// blocks are XORed in two words per WRITE2 into STATE_XOR, then PERMUTE. Nothing ever polls: a
// state command issued while a permutation runs is held by the accelerator until the result is
// there, so the next block's first WRITE2 (or the digest's first READ) simply waits. An extract
// reads the words it needs into ctx->state, and release reads only the rest, then ZEROIZEs.
//
// Two contexts in turn: each call loads its own context's state and stores it back, so nothing
// of one context stays in the accelerator for the next (sha3_hw_call only lives within one call).

#include <couplet/soc_config.h>

#if (defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT) || \
    (defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM)

#include <couplet/wipe.h>

#include "sha3_hw.h"

#define SHA3_INLINE static inline __attribute__((always_inline))
#define SHA3_STR_(x) #x
#define SHA3_STR(x) SHA3_STR_(x)

enum { XIF_READ = 0u, XIF_WRITE = 1u, XIF_WRITE2 = 2u, XIF_ACTION = 3u };

// funct7 holds the index: every register the code below names must fit it.
_Static_assert(KECCAK_REG_STATE_XOR0 + KECCAK_STATE_XOR_COUNT - 1u < 128u, "index beyond funct7");
_Static_assert(KECCAK_REG_CMD < 128u && KECCAK_REG_STATE0 + KECCAK_STATE_COUNT <= KECCAK_REG_CTRL,
               "register map");
// The unrolled transfers below cover the largest rate (SHAKE128: 42 words, 21 pairs).
_Static_assert(COUPLET_SHA3_MAX_RATE == 168u, "the switches below stop at 21 pairs / 42 words");

// One custom instruction. op and index must fold to constants (always inlined, -O1 or more):
// the "i" constraints put them into the encoding. %z prints x0 for a constant 0 operand.
SHA3_INLINE uint32_t xif(const uint32_t op, const uint32_t index, uint32_t a, uint32_t b) {
  uint32_t rd;
  __asm__ volatile(".insn r " SHA3_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", %1, %2, %0, %z3, %z4"
                   : "=r"(rd)
                   : "i"(op), "i"(index), "rJ"(a), "rJ"(b)
                   : "memory");
  return rd;
}

// Out of line: once per call.
static __attribute__((noinline)) void xif_load(couplet_sha3_ctx_t *ctx) {
  const uint32_t *s = ctx->state;
#pragma GCC unroll 25
  for (uint32_t k = 0; k < COUPLET_SHA3_STATE_WORDS / 2u; ++k) {
    (void)xif(XIF_WRITE2, KECCAK_REG_STATE0 + 2u * k, s[2u * k], s[2u * k + 1u]);
  }
  // The rate is used by ABSORB only (mem); one instruction, so every call writes it.
  (void)xif(XIF_WRITE, KECCAK_REG_CTRL, sha3_hw_ctrl(ctx), 0u);
  sha3_hw_call.loaded = ctx;
  sha3_hw_call.synced = COUPLET_SHA3_STATE_WORDS;  // ctx->state is what the accelerator holds
  sha3_hw_call.permute_issued = false;
}

SHA3_INLINE void xif_begin(couplet_sha3_ctx_t *ctx) {
  if (sha3_hw_call.loaded != ctx) {
    xif_load(ctx);
  }
}

// XORs one block of `pairs` word pairs into STATE_XOR0.. (descending; the order is free).
#define XOR_PAIR(k)                                                              \
  (void)xif(XIF_WRITE2, KECCAK_REG_STATE_XOR0 + 2u * (k),                       \
            sha3_hw_load_as(p + 8u * (k), aligned), sha3_hw_load_as(p + 8u * (k) + 4u, aligned))

SHA3_INLINE void xif_xor_block(const uint8_t *p, uint32_t pairs, bool aligned) {
  switch (pairs) {
    case 21u:
      XOR_PAIR(20);
      __attribute__((fallthrough));
    case 20u:
      XOR_PAIR(19);
      __attribute__((fallthrough));
    case 19u:
      XOR_PAIR(18);
      __attribute__((fallthrough));
    case 18u:
      XOR_PAIR(17);
      __attribute__((fallthrough));
    case 17u:
      XOR_PAIR(16);
      __attribute__((fallthrough));
    case 16u:
      XOR_PAIR(15);
      __attribute__((fallthrough));
    case 15u:
      XOR_PAIR(14);
      __attribute__((fallthrough));
    case 14u:
      XOR_PAIR(13);
      __attribute__((fallthrough));
    case 13u:
      XOR_PAIR(12);
      __attribute__((fallthrough));
    case 12u:
      XOR_PAIR(11);
      __attribute__((fallthrough));
    case 11u:
      XOR_PAIR(10);
      __attribute__((fallthrough));
    case 10u:
      XOR_PAIR(9);
      __attribute__((fallthrough));
    case 9u:
      XOR_PAIR(8);
      __attribute__((fallthrough));
    case 8u:
      XOR_PAIR(7);
      __attribute__((fallthrough));
    case 7u:
      XOR_PAIR(6);
      __attribute__((fallthrough));
    case 6u:
      XOR_PAIR(5);
      __attribute__((fallthrough));
    case 5u:
      XOR_PAIR(4);
      __attribute__((fallthrough));
    case 4u:
      XOR_PAIR(3);
      __attribute__((fallthrough));
    case 3u:
      XOR_PAIR(2);
      __attribute__((fallthrough));
    case 2u:
      XOR_PAIR(1);
      __attribute__((fallthrough));
    default:
      XOR_PAIR(0);
  }
}

// A PERMUTE was refused: clear the sticky REFUSED bit it set (the mmio backends report any
// they find), and report it.
static __attribute__((noinline)) couplet_status_t xif_refused(void) {
  (void)xif(XIF_WRITE, KECCAK_REG_STATUS, KECCAK_STATUS_REFUSED, 0u);
  return COUPLET_ERR_BUSY;
}

SHA3_INLINE uint32_t xif_blocks_as(const uint8_t *blocks, size_t nblocks, uint32_t rate,
                                   bool aligned) {
  uint32_t busy = 0u;
  for (size_t n = 0; n < nblocks; ++n, blocks += rate) {
    xif_xor_block(blocks, rate / 8u, aligned);
    busy |= xif(XIF_ACTION, KECCAK_ACT_PERMUTE, 0u, 0u);
  }
  return busy;
}

couplet_status_t sha3_xif_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  xif_begin(ctx);
  uint32_t busy;
  if (sha3_word_aligned(blocks)) {
    busy = xif_blocks_as(blocks, nblocks, ctx->rate, true);
  } else {
    busy = xif_blocks_as(blocks, nblocks, ctx->rate, false);
  }
  sha3_hw_call.synced = 0u;
  sha3_hw_call.permute_issued = true;
  // PERMUTE answers 1 when the accelerator was busy and nothing started: the block is lost.
  return busy != 0u ? xif_refused() : COUPLET_OK;
}

couplet_status_t sha3_xif_permute(couplet_sha3_ctx_t *ctx) {
  xif_begin(ctx);
  uint32_t code = xif(XIF_ACTION, KECCAK_ACT_PERMUTE, 0u, 0u);
  sha3_hw_call.synced = 0u;
  sha3_hw_call.permute_issued = true;
  return code != KECCAK_RESULT_OK ? xif_refused() : COUPLET_OK;
}

#define READ_WORD(w) s[w] = xif(XIF_READ, KECCAK_REG_STATE0 + (w), 0u, 0u)

// Reads state words 0 .. n-1 (1 <= n <= 42) into s, the last first.
static void xif_read_first(uint32_t *s, uint32_t n) {
  switch (n) {
    case 42u:
      READ_WORD(41);
      __attribute__((fallthrough));
    case 41u:
      READ_WORD(40);
      __attribute__((fallthrough));
    case 40u:
      READ_WORD(39);
      __attribute__((fallthrough));
    case 39u:
      READ_WORD(38);
      __attribute__((fallthrough));
    case 38u:
      READ_WORD(37);
      __attribute__((fallthrough));
    case 37u:
      READ_WORD(36);
      __attribute__((fallthrough));
    case 36u:
      READ_WORD(35);
      __attribute__((fallthrough));
    case 35u:
      READ_WORD(34);
      __attribute__((fallthrough));
    case 34u:
      READ_WORD(33);
      __attribute__((fallthrough));
    case 33u:
      READ_WORD(32);
      __attribute__((fallthrough));
    case 32u:
      READ_WORD(31);
      __attribute__((fallthrough));
    case 31u:
      READ_WORD(30);
      __attribute__((fallthrough));
    case 30u:
      READ_WORD(29);
      __attribute__((fallthrough));
    case 29u:
      READ_WORD(28);
      __attribute__((fallthrough));
    case 28u:
      READ_WORD(27);
      __attribute__((fallthrough));
    case 27u:
      READ_WORD(26);
      __attribute__((fallthrough));
    case 26u:
      READ_WORD(25);
      __attribute__((fallthrough));
    case 25u:
      READ_WORD(24);
      __attribute__((fallthrough));
    case 24u:
      READ_WORD(23);
      __attribute__((fallthrough));
    case 23u:
      READ_WORD(22);
      __attribute__((fallthrough));
    case 22u:
      READ_WORD(21);
      __attribute__((fallthrough));
    case 21u:
      READ_WORD(20);
      __attribute__((fallthrough));
    case 20u:
      READ_WORD(19);
      __attribute__((fallthrough));
    case 19u:
      READ_WORD(18);
      __attribute__((fallthrough));
    case 18u:
      READ_WORD(17);
      __attribute__((fallthrough));
    case 17u:
      READ_WORD(16);
      __attribute__((fallthrough));
    case 16u:
      READ_WORD(15);
      __attribute__((fallthrough));
    case 15u:
      READ_WORD(14);
      __attribute__((fallthrough));
    case 14u:
      READ_WORD(13);
      __attribute__((fallthrough));
    case 13u:
      READ_WORD(12);
      __attribute__((fallthrough));
    case 12u:
      READ_WORD(11);
      __attribute__((fallthrough));
    case 11u:
      READ_WORD(10);
      __attribute__((fallthrough));
    case 10u:
      READ_WORD(9);
      __attribute__((fallthrough));
    case 9u:
      READ_WORD(8);
      __attribute__((fallthrough));
    case 8u:
      READ_WORD(7);
      __attribute__((fallthrough));
    case 7u:
      READ_WORD(6);
      __attribute__((fallthrough));
    case 6u:
      READ_WORD(5);
      __attribute__((fallthrough));
    case 5u:
      READ_WORD(4);
      __attribute__((fallthrough));
    case 4u:
      READ_WORD(3);
      __attribute__((fallthrough));
    case 3u:
      READ_WORD(2);
      __attribute__((fallthrough));
    case 2u:
      READ_WORD(1);
      __attribute__((fallthrough));
    default:
      READ_WORD(0);
  }
}

// Reads state words from .. 49 into s.
static void xif_read_rest(uint32_t *s, uint32_t from) {
  switch (from) {
    case 0u:
      READ_WORD(0);
      __attribute__((fallthrough));
    case 1u:
      READ_WORD(1);
      __attribute__((fallthrough));
    case 2u:
      READ_WORD(2);
      __attribute__((fallthrough));
    case 3u:
      READ_WORD(3);
      __attribute__((fallthrough));
    case 4u:
      READ_WORD(4);
      __attribute__((fallthrough));
    case 5u:
      READ_WORD(5);
      __attribute__((fallthrough));
    case 6u:
      READ_WORD(6);
      __attribute__((fallthrough));
    case 7u:
      READ_WORD(7);
      __attribute__((fallthrough));
    case 8u:
      READ_WORD(8);
      __attribute__((fallthrough));
    case 9u:
      READ_WORD(9);
      __attribute__((fallthrough));
    case 10u:
      READ_WORD(10);
      __attribute__((fallthrough));
    case 11u:
      READ_WORD(11);
      __attribute__((fallthrough));
    case 12u:
      READ_WORD(12);
      __attribute__((fallthrough));
    case 13u:
      READ_WORD(13);
      __attribute__((fallthrough));
    case 14u:
      READ_WORD(14);
      __attribute__((fallthrough));
    case 15u:
      READ_WORD(15);
      __attribute__((fallthrough));
    case 16u:
      READ_WORD(16);
      __attribute__((fallthrough));
    case 17u:
      READ_WORD(17);
      __attribute__((fallthrough));
    case 18u:
      READ_WORD(18);
      __attribute__((fallthrough));
    case 19u:
      READ_WORD(19);
      __attribute__((fallthrough));
    case 20u:
      READ_WORD(20);
      __attribute__((fallthrough));
    case 21u:
      READ_WORD(21);
      __attribute__((fallthrough));
    case 22u:
      READ_WORD(22);
      __attribute__((fallthrough));
    case 23u:
      READ_WORD(23);
      __attribute__((fallthrough));
    case 24u:
      READ_WORD(24);
      __attribute__((fallthrough));
    case 25u:
      READ_WORD(25);
      __attribute__((fallthrough));
    case 26u:
      READ_WORD(26);
      __attribute__((fallthrough));
    case 27u:
      READ_WORD(27);
      __attribute__((fallthrough));
    case 28u:
      READ_WORD(28);
      __attribute__((fallthrough));
    case 29u:
      READ_WORD(29);
      __attribute__((fallthrough));
    case 30u:
      READ_WORD(30);
      __attribute__((fallthrough));
    case 31u:
      READ_WORD(31);
      __attribute__((fallthrough));
    case 32u:
      READ_WORD(32);
      __attribute__((fallthrough));
    case 33u:
      READ_WORD(33);
      __attribute__((fallthrough));
    case 34u:
      READ_WORD(34);
      __attribute__((fallthrough));
    case 35u:
      READ_WORD(35);
      __attribute__((fallthrough));
    case 36u:
      READ_WORD(36);
      __attribute__((fallthrough));
    case 37u:
      READ_WORD(37);
      __attribute__((fallthrough));
    case 38u:
      READ_WORD(38);
      __attribute__((fallthrough));
    case 39u:
      READ_WORD(39);
      __attribute__((fallthrough));
    case 40u:
      READ_WORD(40);
      __attribute__((fallthrough));
    case 41u:
      READ_WORD(41);
      __attribute__((fallthrough));
    case 42u:
      READ_WORD(42);
      __attribute__((fallthrough));
    case 43u:
      READ_WORD(43);
      __attribute__((fallthrough));
    case 44u:
      READ_WORD(44);
      __attribute__((fallthrough));
    case 45u:
      READ_WORD(45);
      __attribute__((fallthrough));
    case 46u:
      READ_WORD(46);
      __attribute__((fallthrough));
    case 47u:
      READ_WORD(47);
      __attribute__((fallthrough));
    case 48u:
      READ_WORD(48);
      __attribute__((fallthrough));
    case 49u:
      READ_WORD(49);
      __attribute__((fallthrough));
    default:
      break;
  }
}

couplet_status_t sha3_xif_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len) {
  xif_begin(ctx);
  const uint32_t words = (uint32_t)(len + 3u) / 4u;
  if (sha3_hw_call.synced < words) {
    xif_read_first(ctx->state, words);  // the first read waits for a running permutation
    sha3_hw_call.synced = words;
    sha3_hw_call.permute_issued = false;
  }
  sha3_words_to_bytes(out, ctx->state, len);
  return COUPLET_OK;
}

couplet_status_t sha3_xif_release(couplet_sha3_ctx_t *ctx) {
  if (sha3_hw_call.loaded != ctx) {
    return COUPLET_OK;
  }
  xif_read_rest(ctx->state, sha3_hw_call.synced);
  // Nothing of the message stays in the accelerator (keyed modes keep their key in the state).
  (void)xif(XIF_ACTION, KECCAK_ACT_ZEROIZE, 0u, 0u);
  sha3_hw_call.loaded = NULL;
  sha3_hw_call.synced = 0u;
  sha3_hw_call.permute_issued = false;
  return COUPLET_OK;
}

// One ABSORB job of `len` bytes from the word-aligned `src`; the accelerator is idle or holds
// a finished permutation (a LEN write during one would be refused).
static couplet_status_t xif_job(const uint8_t *src, uint32_t len) {
  (void)xif(XIF_WRITE, KECCAK_REG_LEN, len, 0u);
  // The CPU's stores to `src` must reach memory before the accelerator's DMA reads it.
  __asm__ volatile("fence" ::: "memory");
  uint32_t code = xif(XIF_ACTION, KECCAK_ACT_ABSORB, (uint32_t)(uintptr_t)src, 0u);
  if (code != KECCAK_RESULT_OK) {
    // Busy, a bad length or a bus error: clear their sticky bits for the next user.
    (void)xif(XIF_WRITE, KECCAK_REG_STATUS,
              KECCAK_STATUS_REFUSED | KECCAK_STATUS_BAD_LEN | KECCAK_STATUS_JOB_ERROR, 0u);
  }
  return sha3_hw_result(code);
}

couplet_status_t sha3_xif_absorb_job(couplet_sha3_ctx_t *ctx, const uint8_t *src, uint32_t len) {
  xif_begin(ctx);
  if (sha3_hw_call.permute_issued) {
    // A LEN write during a permutation would be refused (silently: STATUS only); a STATE read
    // is held until the permutation is done.
    uint32_t *s = ctx->state;
    READ_WORD(0);
    sha3_hw_call.permute_issued = false;
  }
  sha3_hw_call.synced = 0u;
  return xif_job(src, len);
}

// The one-shot short cut (sha3_backend.h) of tight and mem: ZEROIZE, the whole blocks, the
// padded last block from a stack buffer, PERMUTE, the output words, ZEROIZE. The last block is
// built while the previous permutation runs, and the first output read waits for the last one,
// so nothing polls. With `jobs` (mem), runs of at least XIF_JOB_MIN_BLOCKS aligned blocks go by
// ABSORB.
couplet_status_t sha3_xif_hash(uint32_t rate, uint8_t pad, const uint8_t *data, size_t len, uint8_t *out,
                               size_t out_len, bool jobs) {
  (void)xif(XIF_ACTION, KECCAK_ACT_ZEROIZE, 0u, 0u);
  (void)xif(XIF_WRITE, KECCAK_REG_CTRL, rate / 4u, 0u);
  const size_t nblocks = len / rate;
  couplet_status_t status = COUPLET_OK;
  uint32_t busy = 0u;
  if (jobs && nblocks >= XIF_JOB_MIN_BLOCKS && sha3_word_aligned(data)) {
    const size_t per_job = KECCAK_MAX_JOB_BYTES / rate;
    for (size_t done = 0; done < nblocks && status == COUPLET_OK;) {
      const size_t n = nblocks - done < per_job ? nblocks - done : per_job;
      status = xif_job(data + done * rate, (uint32_t)(n * rate));
      done += n;
    }
  } else if (sha3_word_aligned(data)) {
    busy = xif_blocks_as(data, nblocks, rate, true);
  } else {
    busy = xif_blocks_as(data, nblocks, rate, false);
  }
  uint32_t blk[COUPLET_SHA3_MAX_RATE / 4u];
  sha3_hw_last_block(blk, rate, pad, data + nblocks * rate, len - nblocks * rate);
  xif_xor_block((const uint8_t *)blk, rate / 8u, true);
  busy |= xif(XIF_ACTION, KECCAK_ACT_PERMUTE, 0u, 0u);
  xif_read_first(blk, (uint32_t)(out_len + 3u) / 4u);
  (void)xif(XIF_ACTION, KECCAK_ACT_ZEROIZE, 0u, 0u);
  if (busy != 0u && status == COUPLET_OK) {
    status = xif_refused();
  }
  if (status == COUPLET_OK) {
    sha3_words_to_bytes(out, blk, out_len);
  }
  couplet_wipe_words(blk, rate / 4u);
  return status;
}

static couplet_status_t tight_hash(uint32_t rate, uint8_t pad, const uint8_t *data, size_t len, uint8_t *out,
                                   size_t out_len) {
  return sha3_xif_hash(rate, pad, data, len, out, out_len, false);
}

#if defined(COUPLET_SHA3_HAS_TIGHT) && COUPLET_SHA3_HAS_TIGHT
const couplet_sha3_backend_t couplet_sha3_backend_tight = {
    .id = COUPLET_SHA3_BACKEND_TIGHT,
    .name = "tight",
    .uses_accelerator = true,
    .absorb = sha3_xif_absorb,
    .permute = sha3_xif_permute,
    .extract = sha3_xif_extract,
    .release = sha3_xif_release,
    .hash = tight_hash,
};
#endif

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_tight_unused_t;
#endif
