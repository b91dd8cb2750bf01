// CPU workloads shared by the demo and bench_sim apps: CRC-32 and a 32x32 integer matrix
// multiply, written plainly (no tricks the compiler could fold away: the inputs are built
// at run time and every result is checked).
//
// Header-only because apps are built one folder at a time: bench_sim includes it from here.

#ifndef COUPLET_APPS_WORKLOADS_H_
#define COUPLET_APPS_WORKLOADS_H_

#include <stddef.h>
#include <stdint.h>

// ------------------------------------------------------------------------------- CRC-32

// IEEE 802.3 CRC-32 (zlib.crc32), reflected, polynomial 0xEDB88320, one table lookup per byte.
typedef struct {
  uint32_t table[256];
} crc32_table_t;

static inline void crc32_table_init(crc32_table_t *t) {
  for (uint32_t i = 0; i < 256u; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1u) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    t->table[i] = crc;
  }
}

// Continues a CRC: start with crc32_update(t, 0, ...) and feed the result back in to
// extend it, like zlib.crc32(data, crc).
static inline uint32_t crc32_update(const crc32_table_t *t, uint32_t crc, const uint8_t *data, size_t length) {
  crc = ~crc;
  for (size_t i = 0; i < length; ++i) {
    crc = t->table[(crc ^ data[i]) & 0xffu] ^ (crc >> 8);
  }
  return ~crc;
}

#define CRC_BUFFER_BYTES 4096u

// The test pattern: byte i = ((i * 131 + 7) ^ (i >> 8)) & 0xff.
static inline void crc_pattern_fill(uint8_t *buffer, size_t length) {
  for (size_t i = 0; i < length; ++i) {
    buffer[i] = (uint8_t)((i * 131u + 7u) ^ (i >> 8));
  }
}

// ------------------------------------------------------------------------- matrix multiply

#define MATRIX_N 32u

typedef struct {
  int32_t m[MATRIX_N][MATRIX_N];
} matrix_t;

// a[i][j] = (7i + 3j) mod 23 - 11,  b[i][j] = (5i + 11j) mod 19 - 9.
static inline void matrix_fill_inputs(matrix_t *a, matrix_t *b) {
  for (uint32_t i = 0; i < MATRIX_N; ++i) {
    for (uint32_t j = 0; j < MATRIX_N; ++j) {
      a->m[i][j] = (int32_t)((7u * i + 3u * j) % 23u) - 11;
      b->m[i][j] = (int32_t)((5u * i + 11u * j) % 19u) - 9;
    }
  }
}

static inline void matrix_multiply(const matrix_t *a, const matrix_t *b, matrix_t *c) {
  for (uint32_t i = 0; i < MATRIX_N; ++i) {
    for (uint32_t j = 0; j < MATRIX_N; ++j) {
      int32_t sum = 0;
      for (uint32_t k = 0; k < MATRIX_N; ++k) {
        sum += a->m[i][k] * b->m[k][j];
      }
      c->m[i][j] = sum;
    }
  }
}

// Position-weighted sum of all elements, mod 2^32: sum of c[i][j] * (32i + j + 1).
static inline uint32_t matrix_checksum(const matrix_t *c) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < MATRIX_N; ++i) {
    for (uint32_t j = 0; j < MATRIX_N; ++j) {
      sum += (uint32_t)c->m[i][j] * (MATRIX_N * i + j + 1u);
    }
  }
  return sum;
}

// Next round's left operand from a product, kept small: ((c >> 4) & 63) - 32
// (arithmetic shift of the two's complement value).
static inline void matrix_fold(const matrix_t *c, matrix_t *a) {
  for (uint32_t i = 0; i < MATRIX_N; ++i) {
    for (uint32_t j = 0; j < MATRIX_N; ++j) {
      a->m[i][j] = (int32_t)(((uint32_t)(c->m[i][j] >> 4)) & 63u) - 32;
    }
  }
}

#endif  // COUPLET_APPS_WORKLOADS_H_
