// Little-endian word access to a caller's byte buffer, for the accelerator drivers (AES, SHA-3).
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

#endif  // COUPLET_WORD_ACCESS_H_
