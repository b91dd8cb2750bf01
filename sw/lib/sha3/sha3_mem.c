// SHA-3 on the Keccak accelerator as a coprocessor with memory access: the "mem" backend.
//
// Whole blocks go to the accelerator by address: one ABSORB action (custom instruction, op 3
// index 2, rs1 = the blocks) hands its DMA engine a job of nblocks * rate bytes, and the
// instruction's answer comes when the job and its last permutation are done, so the next
// instruction sees the final state without polling. LEN is a multiple of the rate, hence of
// 4 * (rate in words) as ABSORB requires; a message longer than the 1 MiB an ABSORB takes is
// cut into jobs of whole blocks. Everything else (loading and storing the state, PERMUTE for
// squeezing, the digest) is the tight backend's custom-instruction code (sha3_tight.c).
//
// Unaligned blocks: the DMA engine reads whole words from word-aligned addresses, so a caller's
// unaligned buffer takes the tight path (WRITE2 of words assembled from bytes) rather than a
// copy through an aligned bounce buffer: both move each byte through the core once, the tight
// path without the extra buffer (and without leaving message bytes in it). The block buffer
// of the context (the padded last block, and pieces collected across updates) is always
// word-aligned, so it always goes by ABSORB.
//
// Answers: 1 (a stream block partly absorbed: someone else's DMA is feeding the accelerator)
// is COUPLET_ERR_BUSY; 3 (bad length or rate) and 4 (bus error) are COUPLET_ERR_HW, with their
// sticky STATUS bits cleared. The front end then wipes the context (the message is lost).

#include <couplet/soc_config.h>

#if defined(COUPLET_SHA3_HAS_MEM) && COUPLET_SHA3_HAS_MEM

#include "sha3_hw.h"

static couplet_status_t mem_absorb(couplet_sha3_ctx_t *ctx, const uint8_t *blocks, size_t nblocks) {
  if (!sha3_word_aligned(blocks)) {
    return sha3_xif_absorb(ctx, blocks, nblocks);
  }
  const size_t per_job = sha3_hw_job_blocks(ctx, KECCAK_MAX_JOB_BYTES);
  while (nblocks != 0u) {
    const size_t n = nblocks < per_job ? nblocks : per_job;
    const uint32_t len = (uint32_t)(n * ctx->rate);
    couplet_status_t status = sha3_xif_absorb_job(ctx, blocks, len);
    if (status != COUPLET_OK) {
      return status;
    }
    blocks += len;
    nblocks -= n;
  }
  return COUPLET_OK;
}

static couplet_status_t mem_hash(uint32_t rate, uint8_t pad, const uint8_t *data, size_t len, uint8_t *out,
                                 size_t out_len) {
  return sha3_xif_hash(rate, pad, data, len, out, out_len, true);
}

const couplet_sha3_backend_t couplet_sha3_backend_mem = {
    .id = COUPLET_SHA3_BACKEND_MEM,
    .name = "mem",
    .uses_accelerator = true,
    .absorb = mem_absorb,
    .permute = sha3_xif_permute,
    .extract = sha3_xif_extract,
    .release = sha3_xif_release,
    .hash = mem_hash,
};

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_mem_unused_t;
#endif
