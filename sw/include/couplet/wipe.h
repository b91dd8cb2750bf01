// Zeroing of secrets (keys, key schedules, message blocks, stack work areas) that the compiler
// must not remove: a buffer wiped just before it goes out of scope, or before its context is
// freed, is never read again, so plain stores (or memset) would be dropped as dead.

#ifndef COUPLET_WIPE_H_
#define COUPLET_WIPE_H_

#include <stddef.h>
#include <stdint.h>

// Zeroes the n words at p with volatile stores, then a compiler barrier, so that no later
// optimisation moves or merges them away. The stores and their number depend only on n, never
// on the data. Four stores per iteration: the AES and SHA-3 backends wipe on every call.
static inline void couplet_wipe_words(uint32_t *p, size_t n) {
  volatile uint32_t *v = p;
  for (size_t quads = n / 4u; quads != 0u; --quads, v += 4) {
    v[0] = 0u;
    v[1] = 0u;
    v[2] = 0u;
    v[3] = 0u;
  }
  for (size_t i = 0; i < n % 4u; ++i) {
    v[i] = 0u;
  }
  __asm__ volatile("" ::: "memory");
}

#endif  // COUPLET_WIPE_H_
