// couplet's glue around the FreeRTOS RISC-V port: the trap vector, the hooks the kernel calls
// on failure, and the pieces the port leaves to the application.
//
// Every failure ends the simulation with an exit code (couplet_rtos.h) after a line on the
// console, so a broken kernel or app never hangs until --max-cycles. The messages use the
// console's raw functions, which need no heap and little stack: printf may be what failed.

#include "couplet_rtos.h"

#include <stdint.h>

#include <couplet/console.h>
#include <couplet/csr.h>
#include <couplet/sim.h>

#include "FreeRTOS.h"
#include "task.h"

extern char couplet_rtos_trap_vector[];

void couplet_rtos_install_trap_vector(void) {
  couplet_csr_write_mtvec((uint32_t)(uintptr_t)couplet_rtos_trap_vector);
}

static _Noreturn void fail(const char *what, const char *detail, int code) {
  couplet_puts("\ncouplet-rtos: ");
  couplet_puts(what);
  if (detail != NULL) {
    couplet_puts(": ");
    couplet_puts(detail);
  }
  couplet_putc('\n');
  couplet_exit(code);
}

void couplet_rtos_assert_failed(const char *file, int line) {
  taskDISABLE_INTERRUPTS();
  couplet_puts("\ncouplet-rtos: configASSERT failed at ");
  couplet_puts(file);
  couplet_putc(':');
  couplet_put_dec((uint32_t)line);
  couplet_putc('\n');
  couplet_exit(COUPLET_RTOS_EXIT_ASSERT);
}

void vApplicationStackOverflowHook(TaskHandle_t task, char *name) {
  (void)task;
  fail("stack overflow in task", name, COUPLET_RTOS_EXIT_STACK_OVERFLOW);
}

void vApplicationMallocFailedHook(void) {
  fail("pvPortMalloc failed: configTOTAL_HEAP_SIZE is too small", NULL, COUPLET_RTOS_EXIT_MALLOC_FAILED);
}

// The port's own versions (weak, in portASM.S) spin forever; a simulation should end instead.
// The port calls these with mcause in a0, on the interrupt stack, with interrupts disabled.
void freertos_risc_v_application_exception_handler(uint32_t mcause);
void freertos_risc_v_application_interrupt_handler(uint32_t mcause);

void freertos_risc_v_application_exception_handler(uint32_t mcause) {
  uint32_t code = mcause & COUPLET_MCAUSE_CODE_MASK;
  couplet_puts("\ncouplet-rtos: unhandled exception ");
  couplet_put_dec(code);
  couplet_puts(": mepc=");
  couplet_put_hex(couplet_csr_read_mepc());
  couplet_puts(" mtval=");
  couplet_put_hex(couplet_csr_read_mtval());
  couplet_putc('\n');
  couplet_exit(COUPLET_EXIT_UNHANDLED_EXCEPTION + (int)(code & 0x3fu));
}

void freertos_risc_v_application_interrupt_handler(uint32_t mcause) {
  uint32_t code = mcause & COUPLET_MCAUSE_CODE_MASK;
  couplet_puts("\ncouplet-rtos: unhandled interrupt ");
  couplet_put_dec(code);
  couplet_putc('\n');
  couplet_exit(COUPLET_EXIT_UNHANDLED_INTERRUPT + (int)(code & 0x1fu));
}

// freertos-next's shim (compiled into the kernel library) calls this; the RISC-V port does not
// define it (FreeRTOSConfig.h declares it). The port moves sp to the interrupt stack (the start-up stack, see
// FreeRTOSConfig.h) on every trap, and tasks run on stacks from the heap: once the scheduler
// runs, sp inside the start-up stack means a trap handler is running. Before that, main() runs
// there and is not an interrupt.
extern char __stack_bottom[];
extern char __stack_top[];

BaseType_t xPortIsInsideInterrupt(void) {
  uintptr_t sp;
  __asm__ volatile("mv %0, sp" : "=r"(sp));
  if (xTaskGetSchedulerState() == taskSCHEDULER_NOT_STARTED) {
    return pdFALSE;
  }
  return (sp > (uintptr_t)__stack_bottom && sp <= (uintptr_t)__stack_top) ? pdTRUE : pdFALSE;
}
