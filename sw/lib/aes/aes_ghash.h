// GHASH (SP 800-38D, 6.4) in portable constant-time C, for the authenticated layer (aes_aead.c)
// on the backends whose engine has no GHASH mode. aes_ghash.c explains why it is constant time.

#ifndef COUPLET_AES_GHASH_H_
#define COUPLET_AES_GHASH_H_

#include <stddef.h>
#include <stdint.h>

// s = (s ^ X) * H in GF(2^128) for each of the `blocks` 16-byte blocks X at `in` (any alignment),
// with GCM's bit order (the first bit of a block is the coefficient of x^0). s and h are blocks
// as GCM writes them (s: the running hash, h: AES(0^128)).
void couplet_aes_ghash(uint8_t s[16], const uint8_t h[16], const uint8_t *in, size_t blocks);

#endif  // COUPLET_AES_GHASH_H_
