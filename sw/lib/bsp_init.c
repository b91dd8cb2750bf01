#include <couplet/bsp.h>

#include <couplet/csr.h>
#include <couplet/timer.h>

void couplet_bsp_init(void) {
  // Reset already leaves these quiet; doing it again makes a restart without a reset (a
  // debugger reloading the program) start from the same state.
  couplet_csr_write_mie(0u);
  couplet_timer_disable();
  couplet_software_irq_clear();
}
