// The interface between the AES front end (aes.c: argument checks, CTR tails, the accelerator
// lock) and the backends (aes_soft.c, and one file per accelerator coupling).

#ifndef COUPLET_AES_BACKEND_H_
#define COUPLET_AES_BACKEND_H_

#include <couplet/aes.h>
#include <couplet/aes_held.h>

typedef struct couplet_aes_backend {
  couplet_aes_backend_id_t id;
  const char *name;
  // True when the backend drives the (single, shared) AES accelerator: the front end then
  // holds the accelerator lock around every call into the backend.
  bool uses_accelerator;
  // Makes ctx->key (ctx->key_len bytes) ready for use: expands it in software, or loads and
  // expands it in the accelerator. Writes all of ctx->round_keys (zeros past the schedule) or
  // none of it, so that no part of an earlier, longer key stays behind.
  couplet_status_t (*set_key)(couplet_aes_ctx_t *ctx);
  // Processes `blocks` whole blocks (blocks >= 1) of `mode`, updating iv as the mode defines
  // (iv is NULL for ECB). Arguments are already checked.
  couplet_status_t (*crypt)(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                            uint8_t *iv, const uint8_t *in, uint8_t *out, size_t blocks);
  // Removes any copy of ctx's key the backend holds outside ctx (may be NULL).
  couplet_status_t (*zeroize)(couplet_aes_ctx_t *ctx);
} couplet_aes_backend_t;

// A backend's table, written in one place for every backend: `ID` names its id
// (COUPLET_AES_BACKEND_<ID>), then come its name and the fields above in their order.
#define AES_BACKEND_TABLE(ID, name_, uses_accelerator_, set_key_, crypt_, zeroize_)          \
  {.id = COUPLET_AES_BACKEND_##ID, .name = (name_), .uses_accelerator = (uses_accelerator_), \
   .set_key = (set_key_), .crypt = (crypt_), .zeroize = (zeroize_)}

// One per backend; a hardware backend is linked only when the SoC configuration has it.
extern const couplet_aes_backend_t couplet_aes_backend_soft;
extern const couplet_aes_backend_t couplet_aes_backend_tight;
extern const couplet_aes_backend_t couplet_aes_backend_mem;
extern const couplet_aes_backend_t couplet_aes_backend_mmio;
extern const couplet_aes_backend_t couplet_aes_backend_mmio_irq;
extern const couplet_aes_backend_t couplet_aes_backend_dma;
extern const couplet_aes_backend_t couplet_aes_backend_zkn;

#endif  // COUPLET_AES_BACKEND_H_
