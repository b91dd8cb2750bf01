// Holding the AES accelerator: for an application that sends many short messages with one key
// (a packet stream, a table of records), take the accelerator once with the key loaded and the
// mode set, pass each message with a few inline instructions, then give it back.
//
//   couplet_aes_held_t held;
//   if (couplet_aes_hold(&held, &ctx, COUPLET_AES_ECB, false, NULL) == COUPLET_OK) {
//     for (each packet) status = couplet_aes_held_crypt(&held, in, out, 16);
//     status = couplet_aes_release(&held, NULL);   // reports a refusal the hardware recorded
//   }
//
// What it gives, against couplet/aes.h: per message, only the coupling's own instructions plus
// a check that the caller holds the accelerator and of its arguments (the key residency check,
// the lock, CTRL and the chaining value are paid once, in hold and release).
//
// What it gives up, while held:
//   - every other call that needs the accelerator, from another thread or an interrupt handler
//     (couplet/aes.h or a second hold, on any context of an accelerator backend) gets
//     COUPLET_ERR_BUSY at once and changes nothing; contexts of the software backends go on;
//   - the chaining value lives in the accelerator (hardware backends) or in `held` (the others)
//     and comes back only at release: consecutive held calls continue one message of `mode`;
//   - with the tight and mmio couplings a block refused by the hardware is reported by
//     couplet_aes_release, not by the call (a refusal needs broken hardware: the key is resident
//     and no one else may start a block); a mem job reports its failure itself.
//   - couplet_aes_zeroize on the held context wipes the key everywhere and ends the hold; the
//     context's other calls (couplet_aes_set_key, the couplet/aes.h calls) get COUPLET_ERR_BUSY.
//     couplet_aes_init on the held context does not touch the accelerator: the inline calls
//     go on with the key that hold loaded, the others get COUPLET_ERR_STATE, and release gives
//     the accelerator back as usual.
// Every backend works held, the software one too, so application code stays the same on a SoC
// without the accelerator (the backend is the context's, couplet_aes_init()).
// A hold of a software backend (soft, zkn) takes nothing shared; it ends when its context's key
// does (couplet_aes_zeroize, couplet_aes_init, or another couplet_aes_set_key): its calls and
// release then get COUPLET_ERR_STATE, also once the context has a key again.

#ifndef COUPLET_AES_HELD_H_
#define COUPLET_AES_HELD_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/aes.h>
#include <couplet/aes_coupling.h>
#include <couplet/status.h>

// How a hold's calls are served; a held_t's `path`. Zero means "not holding", so that a zeroed
// or released held_t takes the checked path and gets COUPLET_ERR_STATE there. The inline call
// tests this one word, which hold sets and release (or zeroize of the held context) clears:
// one load tells it both that the hold is live and which coupling's instructions to use.
typedef enum {
  COUPLET_AES_HELD_NONE = 0,     // not holding
  COUPLET_AES_HELD_CHECKED = 1,  // holding; every call goes through held_crypt_checked
  COUPLET_AES_HELD_TIGHT = 2,    // holding the accelerator; blocks through its instructions
  COUPLET_AES_HELD_MEM = 3,      // holding the accelerator; one job through its memory port
  COUPLET_AES_HELD_MMIO = 4,     // holding the accelerator; blocks through its registers
} couplet_aes_held_path_t;

typedef struct {
  couplet_aes_ctx_t *ctx;  // the context whose key is loaded
  uint32_t backend_id;     // ctx's backend, a couplet_aes_backend_id_t
  uint32_t mode;           // a couplet_aes_mode_t
  uint32_t decrypt;        // 1 to decrypt (ECB, CBC, CFB)
  uint32_t iv[4];          // the chaining value of the backends that keep it in software
  uint32_t path;           // a couplet_aes_held_path_t: NONE before hold and after release
  uint32_t key_id;         // ctx's key_id at hold: a software hold ends when the context's key changes
} couplet_aes_held_t;

// The one AES accelerator's state, which the front end keeps (sw/lib/aes/aes.c) and the
// backends share: not for applications to touch.
// resident_key when no context's key is in the accelerator: a key_id no context ever has (a
// context without a key has key_id 0, so "none" must differ from that too).
#define COUPLET_AES_NO_RESIDENT_KEY 0xFFFFFFFFu

typedef struct {
  atomic_uint lock;            // 1 while a call or a hold has the accelerator
  uint32_t resident_key;       // key_id of the context whose key is in it, or NO_RESIDENT_KEY
  couplet_aes_held_t *holder;  // the hold in progress, NULL when none is
  // Within a session of the authenticated layer: the address of the GCM state {ctr, s, h}
  // whose S and H the engine holds, 0 when none is known (sw/lib/aes/aes_backend.h). An
  // integer, so that it may outlive the state it names.
  uintptr_t ghash_state;
} couplet_aes_accel_t;
extern couplet_aes_accel_t couplet_aes_accel;

// Takes the accelerator (for a hardware backend), loads ctx's key if it is not already there,
// and sets `mode`, the direction (ignored for CTR and OFB) and the chaining value `iv` (16 bytes,
// NULL for ECB). Errors: COUPLET_ERR_NULL (held or ctx NULL, iv NULL for a chaining mode),
// COUPLET_ERR_STATE (ctx not initialised or without a key), COUPLET_ERR_ARG (mode outside the
// enum), COUPLET_ERR_BUSY (another call or hold has the accelerator); nothing is held then.
couplet_status_t couplet_aes_hold(couplet_aes_held_t *held, couplet_aes_ctx_t *ctx,
                                  couplet_aes_mode_t mode, bool decrypt,
                                  const uint8_t iv[16]) COUPLET_MUST_CHECK;

// Ends the hold: writes the chaining value to `iv` (16 bytes; NULL when not wanted) and gives
// the accelerator back. Returns COUPLET_ERR_STATE if `held` is not holding, or the error of a
// block the hardware refused while held.
couplet_status_t couplet_aes_release(couplet_aes_held_t *held, uint8_t iv[16]) COUPLET_MUST_CHECK;

// Every held call that is not the inline common one (another backend, unaligned buffers, an
// error to report): out of line, with all the checks.
couplet_status_t couplet_aes_held_crypt_checked(couplet_aes_held_t *held, const uint8_t *in,
                                                uint8_t *out, size_t len) COUPLET_MUST_CHECK;

// A mem job's failure code as a status (the job is lost; the accelerator's state is no longer
// trusted, so the next call reloads the key).
couplet_status_t couplet_aes_held_job_failed(uint32_t code) COUPLET_MUST_CHECK;

// Encrypts or decrypts `len` bytes (a multiple of 16, else COUPLET_ERR_LEN; 0 does nothing)
// in the held mode, continuing the chaining value. Errors as couplet_aes_crypt, and
// COUPLET_ERR_STATE when `held` is not holding. Inline: with the tight, mem and mmio couplings
// and word-aligned buffers it is the coupling's own instructions plus a few.
static inline __attribute__((always_inline)) couplet_status_t couplet_aes_held_crypt(
    couplet_aes_held_t *held, const uint8_t *in, uint8_t *out, size_t len) {
#if defined(__riscv) && ((defined(COUPLET_AES_CUSTOM_OPCODE) && COUPLET_AES_HAS_TIGHT) || \
                          (defined(COUPLET_AES_BASE) && COUPLET_AES_HAS_MMIO))
  const uintptr_t odd = ((((uintptr_t)in | (uintptr_t)out) << 2) | len) & (COUPLET_AES_BLOCK_BYTES - 1u);
  const uint32_t path = held != NULL ? held->path : (uint32_t)COUPLET_AES_HELD_NONE;
  if (__builtin_expect(odd == 0u && len != 0u && in != NULL && out != NULL, 1)) {
    const couplet_aes_word_t *src = (const couplet_aes_word_t *)(const void *)in;
    couplet_aes_word_t *dst = (couplet_aes_word_t *)(void *)out;
    const couplet_aes_word_t *end = src + len / 4u;
#if defined(COUPLET_AES_CUSTOM_OPCODE) && COUPLET_AES_HAS_TIGHT
    if (__builtin_expect(path == COUPLET_AES_HELD_TIGHT, 1)) {
      do {
        couplet_aes_tight_block(src, dst);
        src += 4;
        dst += 4;
      } while (src != end);
      return COUPLET_OK;
    }
#endif
#if defined(COUPLET_AES_BASE) && COUPLET_AES_HAS_MMIO
    if (path == COUPLET_AES_HELD_MMIO) {
      do {
        couplet_aes_mmio_block(src, dst);
        src += 4;
        dst += 4;
      } while (src != end);
      return COUPLET_OK;
    }
#endif
#if defined(COUPLET_AES_CUSTOM_OPCODE) && COUPLET_AES_HAS_TIGHT && COUPLET_AES_HAS_MEM
    if (path == COUPLET_AES_HELD_MEM && len <= AES_MAX_JOB_BYTES) {
      const uint32_t code = couplet_aes_mem_job(in, out, (uint32_t)len);
      return __builtin_expect(code == 0u, 1) ? COUPLET_OK : couplet_aes_held_job_failed(code);
    }
#endif
  }
#endif
  return couplet_aes_held_crypt_checked(held, in, out, len);
}

#endif  // COUPLET_AES_HELD_H_
