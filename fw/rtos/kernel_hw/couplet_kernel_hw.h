// FreeRTOS served by the RTOS accelerator: the calls the patched tasks.c makes (tasks.patch).
//
// FreeRTOS keeps all its lists (ready lists included, as a mirror: eTaskGetState, time slicing
// and the "should I yield" decisions still read them); the accelerator's thread manager is told
// every change of a task's readiness and priority, and its SCHEDULE picks the task to run.
// See fw/rtos/kernel_hw/README.md for every hook and why it is where it is.
//
// Only the patched tasks.c and couplet_kernel_hw.c include this header, after FreeRTOS.h. The
// calls are inline: with the tight coupling each is one custom instruction and a status check.
#ifndef COUPLET_KERNEL_HW_H_
#define COUPLET_KERNEL_HW_H_

#include <stdint.h>

#include <couplet/rtos_hw.h>
#include <couplet/soc_config.h>

#include "FreeRTOS.h"

// The accelerator must hold every FreeRTOS priority, in FreeRTOS's order.
#if configMAX_PRIORITIES > COUPLET_RTOS_PRIORITIES
#error "kernel_hw: configMAX_PRIORITIES exceeds the RTOS accelerator's priorities ([accelerator.rtos] priorities)"
#endif
#if !COUPLET_RTOS_PRIORITY_ASCENDING
#error "kernel_hw: FreeRTOS needs the RTOS accelerator's ascending priority order ([accelerator.rtos] priority_order)"
#endif
#if configNUMBER_OF_CORES != 1
#error "kernel_hw: one core only (the accelerator has one running thread)"
#endif
#if configSUPPORT_STATIC_ALLOCATION
#error "kernel_hw: static task creation is not hooked (tasks.patch covers prvCreateTask only)"
#endif

#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_MMIO
// Two stores and a load: an interrupt between them that uses the accelerator itself (the tick's
// prvAddTaskToReadyList) would overwrite ARG_A/ARG_B. Most hooks already run in a critical
// section, but prvCreateTask and prvAddCurrentTaskToDelayedList (scheduler suspended only) do
// not, so every call masks interrupts (restoring what was there: it also runs in trap handlers).
#define COUPLET_KERNEL_HW_CALL(action, a, b)                                                  \
  ({                                                                                          \
    uint32_t mstatus_;                                                                        \
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus_)::"memory");                    \
    uint32_t result_ = couplet_rtos_##action((a), (b));                                       \
    __asm__ volatile("csrs mstatus, %0" ::"r"(mstatus_ & 8u) : "memory");                    \
    result_;                                                                                  \
  })
#else
// One instruction: nothing can come between its operands and its result.
#define COUPLET_KERNEL_HW_CALL(action, a, b) couplet_rtos_##action((a), (b))
#endif

// Every status other than OK is a bug in the kernel's bookkeeping (or the glue): stop the run
// (configASSERT prints file:line and exits 111).
static inline void couplet_kernel_hw_ok(uint32_t result) { configASSERT(couplet_rtos_status(result) == COUPLET_RTOS_OK); }

// A new task's TCB gets a thread node, not yet READY (FreeRTOS makes it ready once it is in its
// ready list). Returns pdFALSE when the accelerator has no free node (TABLE_FULL).
BaseType_t couplet_kernel_hw_task_add(void *tcb, UBaseType_t priority, UBaseType_t *tid);

// The task entered its ready list.
static inline void couplet_kernel_hw_ready(UBaseType_t tid) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_state, tid, COUPLET_RTOS_READY));
}

// The task left its ready list: DELAYED (a delay or a wait on an event, which FreeRTOS times) or
// SUSPENDED (vTaskSuspend).
static inline void couplet_kernel_hw_not_ready(UBaseType_t tid, uint32_t state) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_state, tid, state));
}

// The task's uxPriority changed (vTaskPrioritySet, FreeRTOS's mutex priority inheritance).
static inline void couplet_kernel_hw_priority(UBaseType_t tid, UBaseType_t priority) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_prio, tid, priority));
}

// vTaskDelete: the node is freed at once (the TCB itself may be freed later by the idle task).
static inline void couplet_kernel_hw_remove(UBaseType_t tid) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_remove, tid, 0));
}

// taskSELECT_HIGHEST_PRIORITY_TASK: the accelerator's choice (round robin among equals included).
// The idle task is always ready, so "none" is a bug.
static inline void *couplet_kernel_hw_schedule(void) {
  void *tcb = (void *)(uintptr_t)COUPLET_KERNEL_HW_CALL(schedule, 0, 0);
  configASSERT(tcb != NULL);
  return tcb;
}

// ----------------------------------------------------------------------------- stage 2: sync
// Semaphores and queues served by the accelerator (queue.patch, tasks_sync.patch). A Queue_t's
// uxCoupletHw says what serves it: 0 FreeRTOS's software object, else the kind and the
// accelerator's object id.
#define COUPLET_KERNEL_HW_SEM 0x100u
#define COUPLET_KERNEL_HW_QUEUE 0x200u
#define COUPLET_KERNEL_HW_KIND(hw) ((hw) & 0xF00u)
#define COUPLET_KERNEL_HW_ID(hw) ((hw) & 0xFFu)

// For applications and tests (queue.patch): what serves the queue or semaphore (0: software).
UBaseType_t uxQueueCoupletHw(void *xQueue);

// tasks_sync.patch: the running task leaves its ready list for xTicksToWait (the accelerator is
// told DELAYED), without an event list; returns its TID. In a critical section.
UBaseType_t uxTaskCoupletBlock(TickType_t xTicksToWait);
// tasks_sync.patch: the task with this TCB, which the accelerator has just woken, leaves its
// delayed list for its ready list (the pending-ready list while the scheduler is suspended).
// pdTRUE if it outranks the running task. In a critical section or an interrupt handler.
BaseType_t xTaskCoupletWake(void *pvTCB);

// queue.patch: creation (the hardware word for the Queue_t, 0 = stay software) and deletion.
UBaseType_t couplet_kernel_hw_queue_create(UBaseType_t length, UBaseType_t item_size, uint8_t type);
UBaseType_t couplet_kernel_hw_sem_create(UBaseType_t initial, UBaseType_t max);
void couplet_kernel_hw_queue_delete(UBaseType_t hw);
// queue.patch: the operations on a hardware object, with FreeRTOS's return values.
BaseType_t couplet_kernel_hw_send(UBaseType_t hw, const void *item, TickType_t wait, BaseType_t position);
BaseType_t couplet_kernel_hw_send_from_isr(UBaseType_t hw, const void *item, BaseType_t *woken, BaseType_t position);
BaseType_t couplet_kernel_hw_receive(UBaseType_t hw, void *buffer, TickType_t wait);
BaseType_t couplet_kernel_hw_receive_from_isr(UBaseType_t hw, void *buffer, BaseType_t *woken);
UBaseType_t couplet_kernel_hw_count(UBaseType_t hw);

#endif  // COUPLET_KERNEL_HW_H_
