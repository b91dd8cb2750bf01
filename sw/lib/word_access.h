// Little-endian word access to a caller's byte buffer, for the accelerator drivers (AES, SHA-3)
// and the authenticated layer (aes_aead.c).
// With `aligned` true (the caller has checked) it is one lw or sw (memcpy from a pointer the
// compiler knows is aligned); otherwise four bytes. Loops take `aligned` as a constant (callers
// always inlined), so the check is made once per call, not once per word.

#ifndef COUPLET_WORD_ACCESS_H_
#define COUPLET_WORD_ACCESS_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) uint32_t couplet_load_le32_as(const uint8_t *p, bool aligned) {
  if (aligned) {
    uint32_t w;
    memcpy(&w, __builtin_assume_aligned(p, 4), 4);
    return w;
  }
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline __attribute__((always_inline)) void couplet_store_le32_as(uint8_t *p, uint32_t w, bool aligned) {
  if (aligned) {
    memcpy(__builtin_assume_aligned(p, 4), &w, 4);
    return;
  }
  p[0] = (uint8_t)w;
  p[1] = (uint8_t)(w >> 8);
  p[2] = (uint8_t)(w >> 16);
  p[3] = (uint8_t)(w >> 24);
}

// A word at any address, whatever its alignment (a nonce or associated data that a caller
// placed anywhere, a block's tail). On RISC-V one lw or sw: CV32E40X splits a misaligned access
// into two aligned bus accesses in hardware (the SoC configures no PMA region, so all of memory
// allows it), a cycle more than an aligned one, against about ten for four byte accesses.
// Elsewhere (the host tests) four bytes.
typedef struct {
  uint8_t b[4];
} couplet_bytes4_t;

static inline __attribute__((always_inline)) uint32_t couplet_load_le32_any(const uint8_t *p) {
#if defined(__riscv)
  uint32_t w;
  __asm__("lw %0, %1" : "=r"(w) : "m"(*(const couplet_bytes4_t *)(const void *)p));
  return w;
#else
  return couplet_load_le32_as(p, false);
#endif
}

static inline __attribute__((always_inline)) void couplet_store_le32_any(uint8_t *p, uint32_t w) {
#if defined(__riscv)
  __asm__("sw %1, %0" : "=m"(*(couplet_bytes4_t *)(void *)p) : "r"(w));
#else
  couplet_store_le32_as(p, w, false);
#endif
}

// w with its bytes reversed (a big-endian word's value from its little-endian load, and back):
// halves swapped, then the bytes within them, 8 instructions. Written out: RV32IMAC has no
// byte-reverse instruction, and without Zbb __builtin_bswap32 is a libgcc call.
static inline uint32_t couplet_bswap32(uint32_t w) {
  w = w << 16 | w >> 16;
  return (w & 0x00ff00ffu) << 8 | (w >> 8 & 0x00ff00ffu);
}

#endif  // COUPLET_WORD_ACCESS_H_
