// SHA-3 on the Keccak accelerator as a coprocessor with memory access: the "mem" backend.
//
// Runs of whole blocks go to the accelerator by address: one ABSORB action (custom instruction,
// op 3 index 2, rs1 = the blocks) hands its DMA engine a job of nblocks * rate bytes, and the
// instruction's answer comes when the job and its last permutation are done, so the next
// instruction sees the final state without polling. LEN is a multiple of the rate, hence of
// 4 * (rate in words) as ABSORB requires; a message longer than the 1 MiB an ABSORB takes is
// cut into jobs of whole blocks. Runs shorter than XIF_JOB_MIN_BLOCKS go by WRITE2 (an ABSORB
// spends about 20 cycles checking LEN first), and so does everything else: the end of the
// message and its padding, the state, PERMUTE for squeezing, the output. That is the tight
// backend's custom-instruction code (sha3_tight.c).
//
// The whole hash (couplet_sha3_hash_mem) is in sha3_tight.c, beside the inline path it shares.
//
// Unaligned blocks: the DMA engine reads whole words from word-aligned addresses, so a caller's
// unaligned buffer takes the WRITE2 path rather than a copy through an aligned bounce buffer:
// both move each byte through the core once, the WRITE2 path without the extra buffer (and
// without leaving message bytes in it).
//
// Answers: 1 (a stream block partly absorbed: someone else's DMA is feeding the accelerator)
// is COUPLET_ERR_BUSY; 3 (bad length or rate) and 4 (bus error) are COUPLET_ERR_HW, with their
// sticky STATUS bits cleared. The front end then wipes the context (the message is lost).

#include <couplet/soc_config.h>

#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM

#include "sha3_hw.h"

static couplet_status_t mem_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  if (nblocks < XIF_JOB_MIN_BLOCKS || !sha3_word_aligned(blocks)) {
    return sha3_xif_absorb(ctx, blocks, nblocks);
  }
  return sha3_xif_absorb_jobs(ctx, blocks, nblocks);
}

const couplet_sha3_backend_t couplet_sha3_backend_mem =
    SHA3_HW_BACKEND_TABLE(MEM, "mem", mem_absorb, sha3_xif);

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_mem_unused_t;
#endif
