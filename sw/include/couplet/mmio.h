// Volatile accessors for memory-mapped registers: the only place the SDK turns an address
// into a pointer, so every device access is a single load or store of the stated width.

#ifndef COUPLET_MMIO_H_
#define COUPLET_MMIO_H_

#include <stdint.h>

static inline uint32_t couplet_mmio_read32(uintptr_t addr) {
  return *(const volatile uint32_t *)addr;
}

static inline void couplet_mmio_write32(uintptr_t addr, uint32_t value) {
  *(volatile uint32_t *)addr = value;
}

static inline uint8_t couplet_mmio_read8(uintptr_t addr) {
  return *(const volatile uint8_t *)addr;
}

static inline void couplet_mmio_write8(uintptr_t addr, uint8_t value) {
  *(volatile uint8_t *)addr = value;
}

#endif  // COUPLET_MMIO_H_
