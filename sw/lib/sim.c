#include <couplet/sim.h>

#include <stdint.h>
#include <unistd.h>

#include <couplet/autogen/simctrl_regs.h>
#include <couplet/csr.h>
#include <couplet/mmio.h>
#include <couplet/soc_config.h>

_Noreturn void couplet_exit(int code) {
  // Console bytes were written before this store on the same in-order bus, so the
  // simulator has seen all of them when it sees the exit request.
  couplet_mmio_write32(COUPLET_SIMCTRL_BASE + SIMCTRL_EXIT_OFFSET, (uint32_t)code & 0xffu);
  // Only reached without a simulator (on an FPGA the register is ignored): stop doing
  // anything visible. With every interrupt masked, wfi sleeps for good; the loop covers
  // the wake-ups the spec allows for no reason.
  (void)couplet_csr_clear_mstatus(COUPLET_MSTATUS_MIE);
  couplet_csr_write_mie(0u);
  for (;;) {
    __asm__ volatile("wfi");
  }
}

// picolibc's exit() and abort() end here.
void _exit(int status) {
  couplet_exit(status);
}
