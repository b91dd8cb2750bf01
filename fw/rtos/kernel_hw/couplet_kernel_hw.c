// FreeRTOS served by the RTOS accelerator: the glue the patched tasks.c calls that is not inline
// (couplet_kernel_hw.h has the rest; fw/rtos/kernel_hw/README.md explains the design).

#include "couplet_kernel_hw.h"

#include <couplet/console.h>
#include <couplet/sim.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"

void *couplet_kernel_hw_tcb[COUPLET_RTOS_MAX_THREADS];

void couplet_kernel_hw_failed(uint32_t result) {
  taskDISABLE_INTERRUPTS();
  couplet_puts("\ncouplet-rtos: the RTOS accelerator answered ");
  couplet_put_hex(result);
  couplet_puts(" (status ");
  couplet_put_dec(couplet_rtos_status(result));
  couplet_puts(") to the call before ");
  couplet_put_hex((uint32_t)(uintptr_t)__builtin_return_address(0));
  couplet_putc('\n');
  couplet_exit(COUPLET_RTOS_EXIT_ASSERT);
}

BaseType_t couplet_kernel_hw_task_add(void *tcb, UBaseType_t priority, UBaseType_t *tid) {
  // prvInitialiseNewTask clamps the priority the same way (after asserting on it).
  if (priority >= (UBaseType_t)configMAX_PRIORITIES) {
    priority = (UBaseType_t)configMAX_PRIORITIES - 1u;
  }
  // Not READY yet (no COUPLET_RTOS_ADD_READY): the task is not in FreeRTOS's ready list until
  // prvAddNewTaskToReadyList, and its stack is not even initialised; a SCHEDULE in between (an
  // interrupt: prvCreateTask runs with interrupts on) must not pick it.
  uint32_t result = COUPLET_KERNEL_HW_CALL(thread_add, (uint32_t)(uintptr_t)tcb, priority);
  if (couplet_rtos_status(result) == COUPLET_RTOS_TABLE_FULL) {
    return pdFALSE;
  }
  couplet_kernel_hw_ok(result);
  *tid = couplet_rtos_tid(result);
  couplet_kernel_hw_tcb[*tid] = tcb;
  return pdTRUE;
}

void *couplet_kernel_hw_start(void *first) {
  // FreeRTOS's rules of inheritance, not the accelerator's (a task keeps an inherited priority
  // until it has given back every mutex it holds; no chains): the accelerator's is turned off
  // (MUTEX_INHERIT 0), so every eprio is the uxPriority FreeRTOS sets (couplet_hwPRIORITY). No
  // mutex can be locked yet (a lock needs a running task).
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(mutex_inherit, 0, 0));
  // FreeRTOS's rule for a give, send or unlock that finds a waiter: the waiter is only woken and
  // takes the count, message or mutex when it runs (HANDOFF 0; couplet_kernel_hw_sync.c). No
  // task waits yet.
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(handoff, 0, 0));
  // FreeRTOS starts with the last-created task of the highest priority, and its list index, still
  // at the list's start, then gives the turn to the tasks of that priority from the first-created
  // on. The accelerator's queue holds them in creation order: SCHEDULE picks the head, then each
  // next one, rotating the queue, until it reaches FreeRTOS's choice, which leaves the others in
  // order behind it. A choice SCHEDULE never makes (not the highest ready task) cannot run on
  // the accelerator: its own goes first then, so that both agree on the running task.
  void *tcb = NULL;
  for (uint32_t i = 0; i < COUPLET_RTOS_MAX_THREADS && tcb != first; i++) {
    tcb = couplet_kernel_hw_schedule();
  }
  return tcb;
}
