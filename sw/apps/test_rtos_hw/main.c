// The RTOS accelerator in the SoC, without an OS: every kind of service through each coupling
// (custom instructions and memory-mapped registers), including a message copied by the
// accelerator's memory port into a waiting receiver's buffer. The cocotb lockstep test
// (hw/ip/rtos/test) covers the accelerator's behaviour in depth; this checks the SoC wiring,
// the kernel-offload layer (couplet/rtos_hw.h) and the memory port on the real bus.
#include <stdio.h>

#include "checks.h"
#include "couplet/soc_config.h"

int main(void) {
  int failures = 0;
#if COUPLET_RTOS_HAS_TIGHT
  int tight = rtos_checks_tight();
  printf("backend tight %s\n", tight == 0 ? "ok" : "FAIL");
  failures += tight;
#endif
#if COUPLET_RTOS_HAS_MMIO
  int mmio = rtos_checks_mmio();
  printf("backend mmio %s\n", mmio == 0 ? "ok" : "FAIL");
  failures += mmio;
#endif
  return failures != 0;
}
