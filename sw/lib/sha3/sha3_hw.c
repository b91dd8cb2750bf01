// State shared by the Keccak accelerator's SHA-3 backends (sha3_hw.h).

#include <couplet/soc_config.h>

#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT

#include "sha3_hw.h"

sha3_hw_call_t sha3_hw_call;

void sha3_hw_last_block(uint32_t *blk, uint32_t rate, uint8_t pad, const uint8_t *tail, size_t n) {
  const size_t full = n / 4u;
  if (sha3_word_aligned(tail)) {
    for (size_t w = 0; w < full; ++w) {
      blk[w] = sha3_hw_load_as(tail + 4u * w, true);
    }
  } else {
    for (size_t w = 0; w < full; ++w) {
      blk[w] = sha3_hw_load_as(tail + 4u * w, false);
    }
  }
  uint32_t last = (uint32_t)pad << (8u * (n % 4u));
  for (size_t i = 4u * full; i < n; ++i) {
    last |= (uint32_t)tail[i] << (8u * (i % 4u));
  }
  blk[full] = last;
  // Volatile, so that GCC does not turn the loop into a call of picolibc's byte-wise memset.
  volatile uint32_t *v = blk;
  for (size_t w = full + 1u; w < rate / 4u; ++w) {
    v[w] = 0u;
  }
  blk[rate / 4u - 1u] |= 0x80000000u;  // may be the word of the domain byte (n = rate - 1)
}

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_hw_unused_t;
#endif
