// AES-128/192/256 in the modes ECB, CBC, CTR, CFB-128 and OFB, with one API for every backend.
//
// The backend (portable constant-time software, or the AES accelerator in one of its
// couplings) is chosen when a context is initialised: couplet_aes_init() takes the default of
// this SoC configuration (`[aes] default_backend` in its config file), so application code
// stays the same whichever coupling the SoC has. couplet_aes_init_backend() picks one by name,
// for benchmarks and tests.
//
// Data: `in` and `out` may be the same buffer (in-place) but must not otherwise overlap. The
// modes with chaining state take a 16-byte `iv` that the call updates, so that consecutive
// calls continue one message: after CBC/CFB/OFB it holds the next chaining value, after CTR the
// next counter block (the counter is the whole 16-byte block, incremented as a big-endian
// integer, SP 800-38A B.1).
//
// Sharing: a context belongs to one thread at a time. The accelerator is shared by all
// contexts: every call that uses it takes the accelerator for the length of the call and
// returns COUPLET_ERR_BUSY at once if another thread holds it (retry or yield; nothing is
// changed). Each call reloads the context's key if another context used the accelerator in
// between, and writes the chaining value, so no state leaks from one context to another.

#ifndef COUPLET_AES_H_
#define COUPLET_AES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/autogen/aes_regs.h>
#include <couplet/status.h>

#define COUPLET_AES_BLOCK_BYTES 16u

typedef enum {
  COUPLET_AES_BACKEND_SOFT = 0,  // portable constant-time C: the fallback and the baseline
  COUPLET_AES_BACKEND_TIGHT = 1, // custom instructions with register operands
  COUPLET_AES_BACKEND_MEM = 2,   // coprocessor with memory access: one instruction per message
  COUPLET_AES_BACKEND_MMIO = 3,  // memory-mapped registers, polled
  COUPLET_AES_BACKEND_MMIO_IRQ = 4,  // memory-mapped registers, completion interrupt
  COUPLET_AES_BACKEND_DMA = 5,   // memory-mapped control + DMA, ping-pong buffers, interrupt
  COUPLET_AES_BACKEND_ZKN = 6,   // RISC-V scalar crypto aes32* instructions (Zkne/Zknd)
  COUPLET_AES_BACKEND_COUNT
} couplet_aes_backend_id_t;

// The accelerator's CTRL.mode values, which every backend takes.
typedef enum {
  COUPLET_AES_ECB = AES_MODE_ECB,
  COUPLET_AES_CBC = AES_MODE_CBC,
  COUPLET_AES_CTR = AES_MODE_CTR,
  COUPLET_AES_CFB = AES_MODE_CFB,  // CFB-128
  COUPLET_AES_OFB = AES_MODE_OFB,
} couplet_aes_mode_t;

struct couplet_aes_backend;

typedef struct {
  uint32_t round_keys[60];  // expanded key, for the backends that compute in software
  uint32_t key[8];          // the key in little-endian words (byte 4i+j is byte j of key[i]),
                            // kept so that the accelerator can be reloaded after a switch
  uint32_t key_len;         // bytes: 16, 24 or 32; 0 while no key is set
  uint32_t key_id;          // nonzero, unique per couplet_aes_set_key call: accelerator residency
  uint32_t ctrl;            // the accelerator's CTRL word for this key (key length), mode bits 0
  uint32_t backend_id;      // a couplet_aes_backend_id_t; with `backend`, marks an initialised context
  const struct couplet_aes_backend *backend;
} couplet_aes_ctx_t;

// Initialises `ctx` (no key yet) with this SoC's default backend.
couplet_status_t couplet_aes_init(couplet_aes_ctx_t *ctx) COUPLET_MUST_CHECK;
// Same with a given backend; COUPLET_ERR_UNSUPPORTED if this SoC does not have it.
couplet_status_t couplet_aes_init_backend(couplet_aes_ctx_t *ctx,
                                          couplet_aes_backend_id_t backend) COUPLET_MUST_CHECK;
// True when `backend` exists in this SoC configuration.
bool couplet_aes_backend_available(couplet_aes_backend_id_t backend);
// A short fixed name ("soft", "tight", ...); "unknown" outside the enum. Never NULL.
const char *couplet_aes_backend_name(couplet_aes_backend_id_t backend);

// What a backend refuses of what this API defines: the accelerator's engine may be built without
// the inverse cipher or some key sizes (`decrypt` and `key_sizes` of the SoC configuration,
// COUPLET_AES_ENGINE_* in couplet/soc_config.h). The backends that drive it then answer ECB and
// CBC decryption with COUPLET_ERR_UNSUPPORTED_MODE (CTR, CFB and OFB need only the forward
// cipher) and an absent key size with COUPLET_ERR_UNSUPPORTED_KEY_SIZE (from set_key), before
// touching the hardware; soft and zkn do everything. COUPLET_OK where the backend can, or
// COUPLET_ERR_ARG for an unknown backend or mode, or a key length that is not 16, 24 or 32.
couplet_status_t couplet_aes_backend_supports(couplet_aes_backend_id_t backend, couplet_aes_mode_t mode,
                                              bool decrypt, size_t key_len) COUPLET_MUST_CHECK;

// key_len is in bytes: 16, 24 or 32 (else COUPLET_ERR_KEY_LEN). Expands the key (in the
// accelerator for hardware backends; COUPLET_ERR_UNSUPPORTED_KEY_SIZE if its engine lacks it).
couplet_status_t couplet_aes_set_key(couplet_aes_ctx_t *ctx, const uint8_t *key,
                                     size_t key_len) COUPLET_MUST_CHECK;

// len must be a multiple of 16 (else COUPLET_ERR_LEN), except for CTR, which takes any length:
// a CTR call always starts at a block boundary and consumes ceil(len/16) counter values.
// len 0 is allowed and does nothing.
couplet_status_t couplet_aes_ecb_encrypt(couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out,
                                         size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ecb_decrypt(couplet_aes_ctx_t *ctx, const uint8_t *in, uint8_t *out,
                                         size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_cbc_encrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_cbc_decrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ctr_crypt(couplet_aes_ctx_t *ctx, uint8_t counter[16],
                                       const uint8_t *in, uint8_t *out,
                                       size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_cfb_encrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_cfb_decrypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                         uint8_t *out, size_t len) COUPLET_MUST_CHECK;
couplet_status_t couplet_aes_ofb_crypt(couplet_aes_ctx_t *ctx, uint8_t iv[16], const uint8_t *in,
                                       uint8_t *out, size_t len) COUPLET_MUST_CHECK;

// The generic form behind the calls above (iv may be NULL for ECB).
couplet_status_t couplet_aes_crypt(couplet_aes_ctx_t *ctx, couplet_aes_mode_t mode, bool decrypt,
                                   uint8_t iv[16], const uint8_t *in, uint8_t *out,
                                   size_t len) COUPLET_MUST_CHECK;

// Wipes the key from `ctx` and, if it is loaded in the accelerator, from the accelerator.
// The context keeps its backend and needs a new key before use.
couplet_status_t couplet_aes_zeroize(couplet_aes_ctx_t *ctx) COUPLET_MUST_CHECK;

#endif  // COUPLET_AES_H_
