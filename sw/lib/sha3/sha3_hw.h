// What the Keccak accelerator's SHA-3 backends share (tight, mem, mmio, dma): the register map
// and actions of hw/ip/keccak/README.md, status decoding, word access to byte buffers, the
// shape of the padded last block, and which context's state the accelerator holds.
//
// Residency. A context's state lives in ctx->state between API calls (sha3_backend.h), and a
// call on an accelerator backend works on the accelerator's copy. Release at the end of a call
// that goes on (update, shake_final, squeeze) stores the state to ctx->state, gives it a new
// tag (ctx->state_tag) and leaves it in the accelerator: `sha3_hw.resident` and `sha3_hw.tag`
// remember whose state and which version it holds, so the next call on the same context skips
// the load (50 words). Any other use of the accelerator overwrites it (a load of another
// context's state, or a ZEROIZE) and updates or clears the record; the evicted context lost
// nothing, as its own last call stored the state. The library only ever writes the context of
// the current call: another thread's context may be gone by then. Matching needs both the
// context's address and the tag, which is new at every store, so neither a stale copy of a
// context nor a new context at a reused address is taken for the resident one. A finished or
// failed hash zeroizes the accelerator and clears the record. The record is only read or
// written with the accelerator lock held (sha3.c), so one record serves every backend.
//
// Between calls the accelerator therefore holds zero, or the resident context's state (what
// that context's memory holds too); nothing of a finished hash.

#ifndef COUPLET_SHA3_HW_H_
#define COUPLET_SHA3_HW_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <couplet/autogen/keccak_regs.h>
#include <couplet/csr.h>
#include <couplet/irq_wait.h>
#include <couplet/sha3_held.h>

#include "../word_access.h"
#include "sha3_backend.h"

_Static_assert(KECCAK_STATE_COUNT == COUPLET_SHA3_STATE_WORDS, "the state is 50 words");
_Static_assert(KECCAK_STATE_XOR_COUNT == COUPLET_SHA3_STATE_WORDS, "STATE_XOR covers the state");

// The sticky STATUS bits a call must report; DONE is left as it is (nothing here uses the done
// interrupt, and clearing it would cost a store per call).
#define KECCAK_STATUS_ERRORS \
  (KECCAK_STATUS_REFUSED_BUSY_MASK | KECCAK_STATUS_JOB_ERROR_MASK | KECCAK_STATUS_BAD_LEN_MASK)

// Every rate is a whole number of word pairs (lanes), so blocks go as WRITE2 pairs or pairs of
// stores, and pad10*1's last bit is in the high word of the block's last pair.
_Static_assert(COUPLET_SHA3_MAX_RATE % 8u == 0u, "rates are whole lanes");

#define SHA3_HW_INLINE static inline __attribute__((always_inline))

// Descending case lists for the fallthrough switches of the unrolled transfers (k = the count
// the switch is entered with).
#define SHA3_DOWN_21(M) \
  M(21) M(20) M(19) M(18) M(17) M(16) M(15) M(14) M(13) M(12) M(11) M(10) M(9) M(8) M(7) M(6) M(5) M(4) M(3) M(2) M(1)
#define SHA3_DOWN_42(M) \
  M(42) M(41) M(40) M(39) M(38) M(37) M(36) M(35) M(34) M(33) M(32) M(31) M(30) M(29) M(28) M(27) M(26) M(25) \
  M(24) M(23) M(22) SHA3_DOWN_21(M)

// Turns the error bits of STATUS into a status code: a refused command (PERMUTE while busy,
// CTRL/LEN while busy) is BUSY; a job's bus error or a bad length is HW.
SHA3_HW_INLINE couplet_status_t sha3_hw_refusal(uint32_t status) {
  if (status & (KECCAK_STATUS_JOB_ERROR_MASK | KECCAK_STATUS_BAD_LEN_MASK)) {
    return COUPLET_ERR_HW;
  }
  if (status & KECCAK_STATUS_REFUSED_BUSY_MASK) {
    return COUPLET_ERR_BUSY;
  }
  return COUPLET_OK;
}

// The answer of PERMUTE or ABSORB as a status code. A bad length cannot come from the
// front end's arguments (it checks them), so it is the hardware's error, not COUPLET_ERR_LEN.
SHA3_HW_INLINE couplet_status_t sha3_hw_result(uint32_t code) {
  switch (code) {
    case KECCAK_RESULT_OK:
      return COUPLET_OK;
    case KECCAK_RESULT_BUSY:
      return COUPLET_ERR_BUSY;
    default:
      return COUPLET_ERR_HW;
  }
}

// The first `k` (0..3) bytes at p, low bytes first: the message's last, partial word, by byte
// (and halfword) loads so that nothing past the message is read.
SHA3_HW_INLINE uint32_t sha3_hw_partial(const uint8_t *p, uint32_t k, bool aligned) {
  uint32_t v = 0u;
  if (k >= 2u) {
    if (aligned) {
      uint16_t h;
      memcpy(&h, __builtin_assume_aligned(p, 2), 2);
      v = h;
    } else {
      v = (uint32_t)p[0] | (uint32_t)p[1] << 8;
    }
    if (k == 3u) {
      v |= (uint32_t)p[2] << 16;
    }
  } else if (k == 1u) {
    v = p[0];
  }
  return v;
}

// The two state words of the block's pair n / 8 (the pair that holds byte n) that the end of a
// message changes: its message bytes 8(n/8)..n-1 from `tail` (none when tail is NULL), the byte
// `pad` at n (0: none, for a block that goes on later), and with `last_bit` pad10*1's final bit
// when that pair ends the block (sha3_hw_pad_pair_is_last). Word loads only for whole words of
// an aligned tail; the partial word by bytes, so nothing past the message is read.
typedef struct {
  uint32_t lo, hi;
} sha3_hw_pair_t;

SHA3_HW_INLINE sha3_hw_pair_t sha3_hw_pad_pair(const uint8_t *tail, size_t n, bool aligned, uint32_t pad,
                                               bool last_bit) {
  const uint32_t r = (uint32_t)n & 7u;  // message bytes in the pair
  // The domain byte at its place in the low word; moved to the high one below when r >= 4.
  sha3_hw_pair_t pair = {pad << (8u * ((uint32_t)n & 3u)), 0u};
  if (r != 0u) {
    const uint8_t *t = tail != NULL ? tail + (n - r) : NULL;
    if (r >= 4u) {
      pair.hi = pair.lo | (t != NULL ? sha3_hw_partial(t + 4, r - 4u, aligned) : 0u);
      pair.lo = t != NULL ? couplet_load_le32_as(t, aligned) : 0u;
    } else if (t != NULL) {
      pair.lo |= sha3_hw_partial(t, r, aligned);
    }
  }
  if (last_bit) {
    pair.hi |= SHA3_PAD_LAST_BIT;
  }
  return pair;
}

// Whether the pair holding byte n is the block's last (then it carries pad10*1's final bit).
SHA3_HW_INLINE bool sha3_hw_pad_pair_is_last(size_t n, uint32_t rate) {
  return (n >> 3) == rate / 8u - 1u;
}

// Word w of the output `out` (aligned: al), and SHA3_READ_CHAIN's R2 for a coupling whose
// READ2(index0, &v0, index1, &v1) reads two state words in one statement: words k and k-1 read,
// then both stored.
#define SHA3_ST(out, w, v, al) couplet_store_le32_as((out) + 4u * (w), v, al)
#define SHA3_R2(READ2, out, k, al)                                              \
  do {                                                                          \
    uint32_t v1_, v0_;                                                          \
    READ2(KECCAK_STATE_INDEX + (k), &v1_, KECCAK_STATE_INDEX + (k) - 1u, &v0_); \
    SHA3_ST(out, k, v1_, al);                                                   \
    SHA3_ST(out, (k) - 1u, v0_, al);                                            \
  } while (0)

// Reads state words k-1 .. 0 straight into out when entered at label L##k, k even: R2(out, w,
// al) reads words w and w-1 and then stores both, so that no store waits for its read (a
// custom instruction's result, or a load, used by the next instruction stalls CV32E40X one
// cycle). Placed where nothing falls into it (after a switch whose every case jumps), it falls
// out at its end.
#define SHA3_READ_CHAIN(L, R2, out, al) \
  L##42 : __attribute__((unused)) R2(out, 41u, al); \
  L##40 : __attribute__((unused)) R2(out, 39u, al); \
  L##38 : __attribute__((unused)) R2(out, 37u, al); \
  L##36 : __attribute__((unused)) R2(out, 35u, al); \
  L##34 : __attribute__((unused)) R2(out, 33u, al); \
  L##32 : __attribute__((unused)) R2(out, 31u, al); \
  L##30 : __attribute__((unused)) R2(out, 29u, al); \
  L##28 : __attribute__((unused)) R2(out, 27u, al); \
  L##26 : __attribute__((unused)) R2(out, 25u, al); \
  L##24 : __attribute__((unused)) R2(out, 23u, al); \
  L##22 : __attribute__((unused)) R2(out, 21u, al); \
  L##20 : __attribute__((unused)) R2(out, 19u, al); \
  L##18 : __attribute__((unused)) R2(out, 17u, al); \
  L##16 : __attribute__((unused)) R2(out, 15u, al); \
  L##14 : __attribute__((unused)) R2(out, 13u, al); \
  L##12 : __attribute__((unused)) R2(out, 11u, al); \
  L##10 : __attribute__((unused)) R2(out, 9u, al); \
  L##8 : __attribute__((unused)) R2(out, 7u, al); \
  L##6 : __attribute__((unused)) R2(out, 5u, al); \
  L##4 : __attribute__((unused)) R2(out, 3u, al); \
  L##2 : __attribute__((unused)) R2(out, 1u, al); \
  L##0 : __attribute__((unused));

// The `n` (< rate) bytes at the word-aligned `data` XORed into the start of the state by
// CHAIN(p, k, lo, hi) (xif_xor_chain or mmio_xor_chain: (lo, hi) into state pair k, and the
// pairs k-1 .. 0 from p), without a permutation (an update's part that does not fill a block):
// the pair of the last bytes, if the part ends inside one, and the whole pairs before it.
#define SHA3_XOR_PART(CHAIN, data, n)                                          \
  do {                                                                         \
    const uint32_t q_ = (uint32_t)(n) >> 3;                                    \
    if (((n) & 7u) != 0u) {                                                    \
      const sha3_hw_pair_t pair_ = sha3_hw_pad_pair(data, n, true, 0u, false); \
      CHAIN(data, q_, pair_.lo, pair_.hi);                                     \
    } else if (q_ != 0u) {                                                     \
      CHAIN(data, q_ - 1u, couplet_load_le32_as((data) + 8u * q_ - 8u, true),  \
            couplet_load_le32_as((data) + 8u * q_ - 4u, true));                \
    }                                                                          \
  } while (0)

// The 50 state words into `s` (an update's state kept for the next call) by
// READ2(index0, &v0, index1, &v1) (xif_read2 or mmio_read2): two reads, then their two stores,
// so that no store waits for its read.
#define SHA3_STORE_STATE(READ2, s)                                                         \
  do {                                                                                     \
    _Pragma("GCC unroll 25")                                                               \
    for (uint32_t w_ = 0; w_ < COUPLET_SHA3_STATE_WORDS; w_ += 2u) {                       \
      READ2(KECCAK_STATE_INDEX + w_, &(s)[w_], KECCAK_STATE_INDEX + w_ + 1u, &(s)[w_ + 1u]); \
    }                                                                                      \
  } while (0)

// Enters SHA3_READ_CHAIN L for n (0..42) words (an odd count reads its top word first with R1;
// the index masked to the table, the counts beyond 42 go to `bad`).
#define SHA3_READ_GOTO(L, R1, n, out, al, bad) \
  switch ((n) & 63u) { \
    case 0: goto L##0; \
    case 2: goto L##2; \
    case 4: goto L##4; \
    case 6: goto L##6; \
    case 8: goto L##8; \
    case 10: goto L##10; \
    case 12: goto L##12; \
    case 14: goto L##14; \
    case 16: goto L##16; \
    case 18: goto L##18; \
    case 20: goto L##20; \
    case 22: goto L##22; \
    case 24: goto L##24; \
    case 26: goto L##26; \
    case 28: goto L##28; \
    case 30: goto L##30; \
    case 32: goto L##32; \
    case 34: goto L##34; \
    case 36: goto L##36; \
    case 38: goto L##38; \
    case 40: goto L##40; \
    case 42: goto L##42; \
    case 1: R1(out, 0u, al); goto L##0; \
    case 3: R1(out, 2u, al); goto L##2; \
    case 5: R1(out, 4u, al); goto L##4; \
    case 7: R1(out, 6u, al); goto L##6; \
    case 9: R1(out, 8u, al); goto L##8; \
    case 11: R1(out, 10u, al); goto L##10; \
    case 13: R1(out, 12u, al); goto L##12; \
    case 15: R1(out, 14u, al); goto L##14; \
    case 17: R1(out, 16u, al); goto L##16; \
    case 19: R1(out, 18u, al); goto L##18; \
    case 21: R1(out, 20u, al); goto L##20; \
    case 23: R1(out, 22u, al); goto L##22; \
    case 25: R1(out, 24u, al); goto L##24; \
    case 27: R1(out, 26u, al); goto L##26; \
    case 29: R1(out, 28u, al); goto L##28; \
    case 31: R1(out, 30u, al); goto L##30; \
    case 33: R1(out, 32u, al); goto L##32; \
    case 35: R1(out, 34u, al); goto L##34; \
    case 37: R1(out, 36u, al); goto L##36; \
    case 39: R1(out, 38u, al); goto L##38; \
    case 41: R1(out, 40u, al); goto L##40; \
    case 43: case 44: case 45: case 46: case 47: case 48: case 49: case 50: case 51: case 52: \
    case 53: case 54: case 55: case 56: case 57: case 58: case 59: case 60: case 61: case 62: \
    case 63: \
      goto bad; \
  }

// Whole blocks in `len` bytes: `len / rate` without a division for the short messages this
// library is tuned for (CV32E40X divides in up to 35 cycles).
SHA3_HW_INLINE size_t sha3_hw_blocks(size_t len, uint32_t rate) {
  if (len < 2u * (size_t)rate) {
    return len >= rate ? 1u : 0u;
  }
  return len / rate;
}

// The residency record (see the top of this file).
typedef struct {
  const couplet_sha3_ctx_t *resident;  // whose state the accelerator holds; NULL: none (zero)
  uint32_t tag;                        // which version of it (the context's state_tag)
  uint32_t last_tag;                   // the last tag given out
  bool permute_issued;                 // a PERMUTE may still run (mem: LEN is refused then)
} sha3_hw_t;

extern sha3_hw_t sha3_hw;

// Whether the accelerator holds ctx's state as ctx->state has it (or, within a call, the state
// this call is working on).
SHA3_HW_INLINE bool sha3_hw_is_resident(const couplet_sha3_ctx_t *ctx) {
  return sha3_hw.resident == ctx && sha3_hw.tag == ctx->state_tag;
}

// Records that the accelerator now holds ctx's state (loaded, or zeroized for a fresh one).
SHA3_HW_INLINE void sha3_hw_now_resident(const couplet_sha3_ctx_t *ctx) {
  sha3_hw.resident = ctx;
  sha3_hw.tag = ctx->state_tag;
  sha3_hw.permute_issued = false;
}

// After a store of the state to ctx->state: a new version, still in the accelerator.
SHA3_HW_INLINE void sha3_hw_stored(couplet_sha3_ctx_t *ctx) {
  uint32_t tag = sha3_hw.last_tag + 1u;
  if (tag == 0u) {
    tag = 1u;  // 0 means a fresh hash
  }
  sha3_hw.last_tag = tag;
  sha3_hw.tag = tag;
  ctx->state_tag = tag;
}

// After a ZEROIZE: nobody's state is there.
SHA3_HW_INLINE void sha3_hw_forget(void) {
  sha3_hw.resident = NULL;
}

// What each coupling's side (sha3_tight.c, sha3_mmio.c) has, under its prefix: the context
// operations of couplet_sha3_backend_t, which the coupling's two backends share but for absorb,
// and begin, which loads ctx's state into the accelerator unless it is there.
#define SHA3_HW_OPS_DECLARE(prefix)                                                                            \
  couplet_status_t prefix##_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks);            \
  couplet_status_t prefix##_absorb_part(couplet_sha3_ctx_t *ctx, const uint8_t *data, size_t n);               \
  couplet_status_t prefix##_absorb_last(couplet_sha3_ctx_t *ctx, const uint8_t *tail, size_t n, uint32_t pad); \
  couplet_status_t prefix##_permute(couplet_sha3_ctx_t *ctx);                                                  \
  couplet_status_t prefix##_extract(couplet_sha3_ctx_t *ctx, uint8_t *out, size_t len);                        \
  couplet_status_t prefix##_release(couplet_sha3_ctx_t *ctx, bool keep);                                       \
  void prefix##_begin(couplet_sha3_ctx_t *ctx)
// The table of a backend of that coupling: its own absorb, the rest the coupling's.
#define SHA3_HW_BACKEND_TABLE(ID, name_, absorb_, prefix)                                                    \
  SHA3_BACKEND_TABLE(ID, name_, true, absorb_, prefix##_absorb_part, prefix##_absorb_last, prefix##_permute, \
                     prefix##_extract, prefix##_release)

// The custom-instruction side (sha3_tight.c), shared by the tight and mem backends: the
// context operations and the whole hash; SHA3_XIF_JOBS sends runs of at least
// XIF_JOB_MIN_BLOCKS aligned whole blocks by ABSORB (mem). Below that, WRITE2 is as fast: an ABSORB spends about
// 20 cycles checking LEN before its DMA job starts (hw/ip/keccak/README.md; measured: one
// 104-byte block 76 cycles by ABSORB, 64 by WRITE2, two blocks 126 and 128).
#define XIF_JOB_MIN_BLOCKS 3u
SHA3_HW_OPS_DECLARE(sha3_xif);
// The whole hash's flags (one word rather than two bools: the hot path has no register to spare).
#define SHA3_XIF_RELEASE_LOCK 1u   // give the accelerator lock back at the end (= release_lock)
#define SHA3_XIF_JOBS 2u           // runs of whole blocks by ABSORB jobs (mem)

// The context operation absorb by ABSORB jobs over `nblocks` whole blocks from the word-aligned
// `blocks` (mem).
couplet_status_t sha3_xif_absorb_jobs(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks);

// The register-window side (sha3_mmio.c), shared by the mmio and dma backends.
SHA3_HW_OPS_DECLARE(sha3_mmio);
// The whole hash through the register window, in three steps so that the dma backend can send
// the whole blocks its own way: ZEROIZE; `nblocks` whole blocks by stores; the padded last
// block of the `n` bytes at `tail`, the output, ZEROIZE, the STATUS check and (release_lock) the
// lock given back.
void sha3_mmio_hash_begin(void);
// The whole hash through the register window (couplet_sha3_hash_mmio and _dma). `runs`, when not
// NULL, absorbs runs of at least SHA3_DMA_MIN_BLOCKS whole blocks from a word-aligned buffer its
// own way (the dma backend's descriptors; an error leaves the accelerator zeroized); shorter
// runs go by stores.
#define SHA3_DMA_MIN_BLOCKS 2u
typedef couplet_status_t (*sha3_mmio_runs_t)(uint32_t rate, const uint8_t *data, size_t nblocks);
couplet_status_t sha3_mmio_hash(uint32_t rate, uint32_t pad, const uint8_t *data, size_t len, uint8_t *out,
                                size_t out_len, bool release_lock, sha3_mmio_runs_t runs);
void sha3_mmio_hash_blocks(uint32_t rate, const uint8_t *data, size_t nblocks);
couplet_status_t sha3_mmio_hash_end(uint32_t rate, uint32_t pad, const uint8_t *tail, size_t n, uint8_t *out,
                                    size_t out_len, bool release_lock);

#endif  // COUPLET_SHA3_HW_H_
