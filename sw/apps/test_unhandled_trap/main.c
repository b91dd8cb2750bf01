// test_unhandled_trap: a trap with no registered handler ends the program instead of
// hanging it.
//
// Loads from an unmapped address with no handler. CV32E40X reports the bus error as a
// load bus fault NMI (see irq.h). Expected: the console shows
//
//   test_unhandled_trap: loading from 0x40000000 with no handler
//
//   couplet: unhandled NMI 1024 (NMI, load bus fault, imprecise: mepc is past the access): mcause=0x80000400 mepc=0x... mtval=0x... ra=0x...
//
// and the exit code is 224 (COUPLET_EXIT_UNHANDLED_NMI + 0). Reaching the end of main is
// a failure (exit code 1).

#include <stdint.h>
#include <stdio.h>

#include <couplet/mmio.h>

// Outside every region of the memory map: the bus answers an error.
#define UNMAPPED_ADDRESS 0x40000000u

int main(void) {
  printf("test_unhandled_trap: loading from 0x%08lx with no handler\n", (unsigned long)UNMAPPED_ADDRESS);
  uint32_t value = couplet_mmio_read32(UNMAPPED_ADDRESS);
  printf("test_unhandled_trap: FAIL the load returned 0x%08lx instead of trapping\n", (unsigned long)value);
  return 1;
}
