// FreeRTOS served by the RTOS accelerator: the calls the patched tasks.c makes (tasks.patch).
//
// The accelerator's thread manager keeps the ready state alone (FreeRTOS keeps no ready lists:
// a ready task is in none of its lists); it is told every change of a task's readiness and
// priority, and its SCHEDULE picks the task to run. FreeRTOS keeps its delayed, suspended and
// event lists.
// See fw/rtos/kernel_hw/README.md for every hook and why it is where it is.
//
// The patched tasks.c and queue.c and the glue (couplet_kernel_hw*.c) include this header, after
// FreeRTOS.h. The calls are inline: with the tight coupling each is one custom instruction and a status check.
// always_inline: at -Os GCC otherwise keeps one out-of-line copy per file and calls it (a call,
// a return and the spills around it for a two-instruction check, on every scheduler path).
#ifndef COUPLET_KERNEL_HW_H_
#define COUPLET_KERNEL_HW_H_

#include <stdint.h>

#include <couplet/csr.h>
#include <couplet/rtos_hw.h>
#include <couplet/soc_config.h>

#include "FreeRTOS.h"
#include "task.h"
#include "queue.h"  // the fast paths below: queueSEND_TO_BACK, errQUEUE_FULL

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
// The ready state is the accelerator's alone (a ready task is in no FreeRTOS list): what walks
// FreeRTOS's ready lists would miss every ready task.
#if configUSE_TRACE_FACILITY
#error "kernel_hw: configUSE_TRACE_FACILITY (uxTaskGetSystemState) walks FreeRTOS's ready lists, which the hw kernels do not keep"
#endif
#if INCLUDE_xTaskGetHandle
#error "kernel_hw: INCLUDE_xTaskGetHandle walks FreeRTOS's ready lists, which the hw kernels do not keep"
#endif
#if configUSE_TICKLESS_IDLE
#error "kernel_hw: configUSE_TICKLESS_IDLE reads FreeRTOS's ready priorities, which the hw kernels do not keep"
#endif

// Interrupts off for a few instructions; unmask restores the previous state. Cheaper than
// taskENTER_CRITICAL's nesting counter, which nothing in between reads. Also right where
// interrupts are already off (a critical section, a handler): then both are no-ops in effect.
static inline __attribute__((always_inline)) uint32_t couplet_kernel_hw_mask(void) {
  return couplet_csr_clear_mstatus(COUPLET_MSTATUS_MIE);
}
static inline __attribute__((always_inline)) void couplet_kernel_hw_unmask(uint32_t mstatus) {
  (void)couplet_csr_set_mstatus(mstatus & COUPLET_MSTATUS_MIE);
}

#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_MMIO
// Two stores and a load: an interrupt between them that uses the accelerator itself (the tick's
// prvAddTaskToReadyList) would overwrite ARG_A/ARG_B. Most hooks already run in a critical
// section, but prvCreateTask and prvAddCurrentTaskToDelayedList (scheduler suspended only) do
// not, so every call masks interrupts (restoring what was there: it also runs in trap handlers).
#define COUPLET_KERNEL_HW_CALL(action, a, b)                                                  \
  ({                                                                                          \
    uint32_t mstatus_ = couplet_kernel_hw_mask();                                             \
    uint32_t result_ = couplet_rtos_##action((a), (b));                                       \
    couplet_kernel_hw_unmask(mstatus_);                                                       \
    result_;                                                                                  \
  })
#else
// One instruction: nothing can come between its operands and its result.
#define COUPLET_KERNEL_HW_CALL(action, a, b) couplet_rtos_##action((a), (b))
#endif

// Every status other than OK is a bug in the kernel's bookkeeping (or the glue): the run stops
// with the accelerator's answer and the address of the failing call (`addr2line -e APP.elf`
// names the hook), exit code 111 as for a configASSERT. Not configASSERT itself: its file:line
// would name this header for every hook, and its two arguments, hoisted out of the loops the
// hooks sit in, took callee-saved registers (xTaskResumeAll saved three more on every call).
void couplet_kernel_hw_failed(uint32_t result) __attribute__((noreturn, noinline, cold));
static inline __attribute__((always_inline)) void couplet_kernel_hw_ok(uint32_t result) {
  if (__builtin_expect(couplet_rtos_status(result) != COUPLET_RTOS_OK, 0)) {
    couplet_kernel_hw_failed(result);
  }
}

// A new task's TCB gets a thread node, not yet READY (FreeRTOS makes it ready once it is in its
// ready list). Returns pdFALSE when the accelerator has no free node (TABLE_FULL).
BaseType_t couplet_kernel_hw_task_add(void *tcb, UBaseType_t priority, UBaseType_t *tid);

// vTaskStartScheduler, interrupts off: priority inheritance and the wake-up of waiters become
// FreeRTOS's, and FreeRTOS's first task (`first`, its pxCurrentTCB) the accelerator's running
// thread. Returns the task to run (couplet_kernel_hw.c).
void *couplet_kernel_hw_start(void *first);

// The task entered its ready list.
static inline __attribute__((always_inline)) void couplet_kernel_hw_ready(UBaseType_t tid) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_state, tid, COUPLET_RTOS_READY));
}

// The task left its ready list: DELAYED (a delay or a wait on an event, which FreeRTOS times) or
// SUSPENDED (vTaskSuspend).
static inline __attribute__((always_inline)) void couplet_kernel_hw_not_ready(UBaseType_t tid, uint32_t state) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_state, tid, state));
}

// Per TID, whether the task runs at an inherited priority (uxPriority != uxBasePriority: its give
// of the last mutex it holds must go through xTaskPriorityDisinherit), and how many tasks do: while
// none does, a give needs no more than the unlock (the mutex fast path). Kept by the priority hook.
extern uint8_t couplet_kernel_hw_raised[COUPLET_RTOS_MAX_THREADS];
extern uint32_t couplet_kernel_hw_raised_tasks;

// The task's uxPriority (or uxBasePriority) changed: by FreeRTOS's priority inheritance
// (xTaskPriorityInherit, xTaskPriorityDisinherit, vTaskPriorityDisinheritAfterTimeout) or by
// vTaskPrioritySet. The accelerator's priority is the effective one. In a critical section.
static inline __attribute__((always_inline)) void couplet_kernel_hw_priority(UBaseType_t tid, UBaseType_t priority,
                                                                             UBaseType_t base_priority) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_prio, tid, priority));
  uint8_t raised = (uint8_t)(priority != base_priority);
  couplet_kernel_hw_raised_tasks += (uint32_t)raised - couplet_kernel_hw_raised[tid];
  couplet_kernel_hw_raised[tid] = raised;
}

// vTaskDelete: the node is freed at once (the TCB itself may be freed later by the idle task),
// unless the task holds one of the accelerator's mutexes (FreeRTOS allows deleting it; the mutex
// stays held): couplet_kernel_hw_sync.c keeps such a node until its mutexes are deleted.
void couplet_kernel_hw_remove(UBaseType_t tid);

// taskSELECT_HIGHEST_PRIORITY_TASK: the accelerator's choice (round robin among equals included).
// The idle task is always ready, so "none" is a bug.
static inline __attribute__((always_inline)) void *couplet_kernel_hw_schedule(void) {
  void *tcb = (void *)(uintptr_t)COUPLET_KERNEL_HW_CALL(schedule, 0, 0);
  configASSERT(tcb != NULL);
  return tcb;
}

// ----------------------------------------------------------------------------- stage 2: sync
// Semaphores and queues served by the accelerator (queue.patch, tasks_sync.patch). A Queue_t's
// uxCoupletHw says what serves it: 0 FreeRTOS's software object, else the kind and the
// accelerator's object id. One bit per kind, so that the fast paths test a kind with one
// instruction (andi; the mask fits its immediate).
#define COUPLET_KERNEL_HW_SEM 0x100u
#define COUPLET_KERNEL_HW_QUEUE 0x200u
#define COUPLET_KERNEL_HW_MUTEX 0x400u
// couplet_kernel_hw_queue_create's answer for a mutex when the accelerator has none left: the
// creation fails (FreeRTOS's mutexes cannot be a fallback, see couplet_kernel_hw_sync.c).
#define COUPLET_KERNEL_HW_REFUSED ((UBaseType_t)0xFFFFu)
#define COUPLET_KERNEL_HW_KIND(hw) ((hw) & 0x700u)
#define COUPLET_KERNEL_HW_IS(hw, kind) (((hw) & (kind)) != 0u)
#define COUPLET_KERNEL_HW_ID(hw) ((hw) & 0xFFu)
// A queue's item size in words, in the same word (the Queue_t's uxItemSize / 4): the fast paths
// copy that many without a load from a table of their own.
#define COUPLET_KERNEL_HW_WORDS_SHIFT 16u
#define COUPLET_KERNEL_HW_WORDS(hw) ((hw) >> COUPLET_KERNEL_HW_WORDS_SHIFT)

// For applications and tests (queue.patch): what serves the queue or semaphore (0: software).
UBaseType_t uxQueueCoupletHw(void *xQueue);

// tasks_sync.patch: the running task leaves its ready list for xTicksToWait (the accelerator is
// told DELAYED), without an event list; returns its TID. In a critical section.
UBaseType_t uxTaskCoupletBlock(TickType_t xTicksToWait);
// tasks_sync.patch: the task's uxMutexesHeld becomes `held` (the accelerator's mutexes it owns,
// counted by the glue), before FreeRTOS's inheritance code reads it. In a critical section.
void vTaskCoupletSetMutexesHeld(void *pvTCB, UBaseType_t uxHeld);
// tasks_abort.patch: xTaskAbortDelay takes the task with this TID out of its wait (a wait on one
// of the accelerator's objects then fails at once, as FreeRTOS's own waits do).
void couplet_kernel_hw_aborted(UBaseType_t tid);
// queue_restricted.patch: vQueueWaitForMessageRestricted on a hardware queue (the timer queue
// when it fits): wait up to `wait` ticks for a message, leaving it in the queue.
void couplet_kernel_hw_wait_restricted(UBaseType_t hw, TickType_t wait);
// The TCB of each thread node (couplet_kernel_hw.c records it at creation).
extern void *couplet_kernel_hw_tcb[COUPLET_RTOS_MAX_THREADS];
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
// A peek (xQueuePeek, xQueuePeekFromISR) is a receive that leaves the message (or count) there.
BaseType_t couplet_kernel_hw_receive(UBaseType_t hw, void *buffer, TickType_t wait, BaseType_t peek);
BaseType_t couplet_kernel_hw_receive_from_isr(UBaseType_t hw, void *buffer, BaseType_t *woken, BaseType_t peek);
UBaseType_t couplet_kernel_hw_count(UBaseType_t hw);
// xQueueReset of a hardware object: emptied; one sender that waited for room is woken.
BaseType_t couplet_kernel_hw_reset(UBaseType_t hw);
// queue.patch: take and give of a mutex (xQueueSemaphoreTake, xQueueGenericSend); `holder` is
// the Queue_t's xMutexHolder, which they keep equal to the accelerator's owner (so that
// xSemaphoreGetMutexHolder and the recursive mutexes work unchanged).
BaseType_t couplet_kernel_hw_mutex_lock(UBaseType_t hw, TickType_t wait, void **holder);
BaseType_t couplet_kernel_hw_mutex_unlock(UBaseType_t hw, void **holder);

// ----------------------------------------------------------------------------- fast paths
// queue.patch's wrappers xQueueGenericSend, xQueueGiveFromISR, xQueueReceive and
// xQueueSemaphoreTake call these before FreeRTOS's function (renamed), so without its asserts
// and prologue: the common case (the object has what is asked, or a call that may not wait
// fails) is a few instructions around one action.
// Everything else (a caller that may wait, a copy in flight, a software object, send to front or
// overwrite, an unaligned or NULL item) answers COUPLET_KERNEL_HW_SLOW, with nothing changed in the
// accelerator (a refused action changes nothing), and FreeRTOS's function runs: its asserts and the
// out-of-line glue above, which starts over in a critical section. A fast path is only taken where
// FreeRTOS's asserts it skips hold (the wrappers check xQueue != NULL; a hardware semaphore's item
// size is 0; a queue's item is non-NULL here; SEND_TO_BACK only).
#define COUPLET_KERNEL_HW_SLOW ((BaseType_t)-1)

// An action of a fast path answered OK and woke a task (tid): a receive woke a sender that
// waited for room, a give or send a taker or receiver, an unlock a locker (each tries again when
// it runs). Make it ready in FreeRTOS (in a critical section), yield if it outranks the caller,
// then restore the interrupt state the fast path masked (`mstatus`) and answer pdPASS. Called
// with interrupts still masked since the action, so no interrupt comes between the action and
// this follow-up. Task level. The fast paths return its answer (COUPLET_KERNEL_HW_PASS), so that
// their common path makes no call and needs no stack frame: GCC saves ra on the follow-up's path
// alone.
BaseType_t couplet_kernel_hw_woke(uint32_t result, uint32_t mstatus);

// Returns the answer of a follow-up above, which is always pdPASS: said to the compiler, so
// that the wrappers' test for COUPLET_KERNEL_HW_SLOW folds away on that path (else the
// wrapper's arguments would have to live across the call, in saved registers).
#define COUPLET_KERNEL_HW_PASS(call)         \
  do {                                       \
    BaseType_t pass_ = (call);               \
    if (pass_ != pdPASS) {                   \
      __builtin_unreachable();               \
    }                                        \
    return pass_;                            \
  } while (0)

// The same from an interrupt handler (xQueueGiveFromISR): the woken task is made ready, and
// *higher_woken set (if not NULL) when it outranks the running task.
void couplet_kernel_hw_woke_from_isr(uint32_t result, BaseType_t *higher_woken);

// The running task's TID (CURRENT).
static inline __attribute__((always_inline)) uint32_t couplet_kernel_hw_current(void) {
  return couplet_rtos_tid(couplet_rtos_current(0, 0));
}

// A take of a hardware semaphore (xQueueSemaphoreTake; xQueueReceive of one).
static inline __attribute__((always_inline)) BaseType_t couplet_kernel_hw_sem_take_fast(UBaseType_t hw, TickType_t wait) {
#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_MMIO
  // Two stores and a load: an interrupt that uses the accelerator in between would overwrite
  // ARG_A/ARG_B.
  uint32_t mstatus = couplet_kernel_hw_mask();
  uint32_t result = couplet_rtos_sem_take(COUPLET_KERNEL_HW_ID(hw), 0);
  couplet_kernel_hw_unmask(mstatus);
#else
  // No critical section: a non-blocking SEM_TAKE is one instruction, done atomically by the
  // accelerator, and it has no follow-up. OK took one count and woke nobody (no one waits to
  // give a semaphore: a give never waits, so tid is none); UNAVAILABLE changed nothing. An
  // interrupt right after it (a give from a handler, the tick readying a task) finds the
  // accelerator and FreeRTOS's lists consistent, as if it had come before or after the call;
  // a preemption there only delays the return of the answer, which is in a register. The only
  // follow-ups (blocking: DELAYED + the blocking call) are the slow path's, in its critical
  // section.
  uint32_t result = couplet_rtos_sem_take(COUPLET_KERNEL_HW_ID(hw), 0);
#endif
  uint32_t status = couplet_rtos_status(result);
  if (status == COUPLET_RTOS_OK) {
    return pdPASS;
  }
  if (status == COUPLET_RTOS_UNAVAILABLE && wait == 0) {
    return pdFAIL;
  }
  return COUPLET_KERNEL_HW_SLOW;
}

// A take of a free mutex (MUTEX_LOCK, no wait), or a take that may not wait of a held one.
// Masked in both couplings: the lock and xMutexHolder belong together.
static inline __attribute__((always_inline)) BaseType_t couplet_kernel_hw_lock_fast(UBaseType_t hw, TickType_t wait,
                                                                                    void **holder) {
  uint32_t mstatus = couplet_kernel_hw_mask();
  uint32_t result = couplet_rtos_mutex_lock(COUPLET_KERNEL_HW_ID(hw), 0);
  uint32_t status = couplet_rtos_status(result);
  if (status == COUPLET_RTOS_OK) {
    // The owner is the accelerator's running thread (CURRENT): no call to tasks.c, which would
    // give the wrapper (a leaf for semaphores) a stack frame. (FreeRTOS's uxMutexesHeld is not
    // counted here: the accelerator knows what each task owns, and the glue counts it when
    // FreeRTOS's inheritance code needs it.)
    *holder = couplet_kernel_hw_tcb[couplet_kernel_hw_current()];
    couplet_kernel_hw_unmask(mstatus);
    return pdPASS;
  }
  couplet_kernel_hw_unmask(mstatus);
  // UNAVAILABLE: held by another; BAD_ARG: by the caller. Both change nothing.
  if (wait == 0 && (status == COUPLET_RTOS_UNAVAILABLE || status == COUPLET_RTOS_BAD_ARG)) {
    return pdFAIL;
  }
  return COUPLET_KERNEL_HW_SLOW;
}

// A take (xQueueSemaphoreTake) of a hardware semaphore or mutex; `holder` is the Queue_t's
// xMutexHolder (only a mutex uses it).
static inline __attribute__((always_inline)) BaseType_t couplet_kernel_hw_take_fast(UBaseType_t hw, TickType_t wait,
                                                                                    void **holder) {
  if (COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_SEM)) {
    return couplet_kernel_hw_sem_take_fast(hw, wait);
  }
  if (COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_MUTEX)) {
    return couplet_kernel_hw_lock_fast(hw, wait, holder);
  }
  return COUPLET_KERNEL_HW_SLOW;
}

// A receive (xQueueReceive) from a hardware queue into a word-aligned buffer, or a take.
static inline __attribute__((always_inline)) BaseType_t couplet_kernel_hw_receive_fast(UBaseType_t hw, void *buffer,
                                                                                       TickType_t wait) {
  // A queue first: the common case (a semaphore is taken through xQueueSemaphoreTake).
  if (!COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_QUEUE)) {
    if (COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_SEM)) {
      return couplet_kernel_hw_sem_take_fast(hw, wait);
    }
    return COUPLET_KERNEL_HW_SLOW;  // software (0), or a mutex, which is not received (asserts)
  }
  if (buffer == NULL || ((uintptr_t)buffer & 3u) != 0u) {
    return COUPLET_KERNEL_HW_SLOW;
  }
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  // Masked in both couplings: QUEUE_RECV and the read of MSG belong together (a send from a
  // handler in between would overwrite MSG), and a woken sender must be made ready in FreeRTOS
  // before any interrupt's SCHEDULE could pick it (couplet_kernel_hw_woke).
  uint32_t mstatus = couplet_kernel_hw_mask();
  uint32_t result = couplet_rtos_queue_recv(id, 0);
  uint32_t status = couplet_rtos_status(result);
  if (status == COUPLET_RTOS_OK) {
    couplet_rtos_msg_get(buffer, COUPLET_KERNEL_HW_WORDS(hw));
    if (couplet_rtos_names_tid(result)) {
      COUPLET_KERNEL_HW_PASS(couplet_kernel_hw_woke(result, mstatus));  // a sender that waited for room
    }
    couplet_kernel_hw_unmask(mstatus);
    return pdPASS;
  }
  couplet_kernel_hw_unmask(mstatus);
  if (status == COUPLET_RTOS_QUEUE_EMPTY && wait == 0) {
    return errQUEUE_EMPTY;
  }
  return COUPLET_KERNEL_HW_SLOW;  // BUSY (a copy in flight), or the caller may wait
}

// A give / send to the back (xQueueGenericSend) of a hardware semaphore, or of a hardware queue
// from a word-aligned item, or the give of a mutex (MUTEX_UNLOCK). One follow-up call for all
// three (couplet_kernel_hw_woke), so that only its path needs a stack frame.
// A mutex's give is not fast while some task runs at an inherited priority: the giver may be
// one, and then FreeRTOS's xTaskPriorityDisinherit must lower it first (before the waiter is
// woken, as FreeRTOS orders them), so the slow path does both. (Checked with interrupts masked:
// a preemption between the check and the unlock could let another task wait on this mutex and
// raise the giver.)
static inline __attribute__((always_inline)) BaseType_t couplet_kernel_hw_send_fast(UBaseType_t hw, const void *item,
                                                                                    TickType_t wait,
                                                                                    BaseType_t position, void **holder) {
  if (hw == 0u || position != queueSEND_TO_BACK) {
    return COUPLET_KERNEL_HW_SLOW;
  }
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  uint32_t result;
  uint32_t mstatus;
  // Masked in both couplings: a give or send may wake a waiter, which must be made ready in
  // FreeRTOS (couplet_kernel_hw_woke) before any interrupt's SCHEDULE could pick it or the tick
  // could time it out in FreeRTOS's lists after the accelerator woke it; and MSG + QUEUE_SEND
  // belong together. A queue first (a send has the most to do besides).
  if (COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_QUEUE)) {
    if (item == NULL || ((uintptr_t)item & 3u) != 0u) {
      return COUPLET_KERNEL_HW_SLOW;
    }
    mstatus = couplet_kernel_hw_mask();
    couplet_rtos_msg_put(item, COUPLET_KERNEL_HW_WORDS(hw));
    result = couplet_rtos_queue_send(id, 0);
  } else if (COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_SEM)) {
    mstatus = couplet_kernel_hw_mask();
    result = couplet_rtos_sem_give(id, 0);
  } else {  // a mutex
    mstatus = couplet_kernel_hw_mask();
    if (couplet_kernel_hw_raised_tasks != 0u) {
      couplet_kernel_hw_unmask(mstatus);
      return COUPLET_KERNEL_HW_SLOW;
    }
    result = couplet_rtos_mutex_unlock(id, 0);
    if (couplet_rtos_status(result) != COUPLET_RTOS_OK) {
      couplet_kernel_hw_unmask(mstatus);
      // NOT_OWNER: not held, or held by another task (FreeRTOS asserts there): the give fails.
      return couplet_rtos_status(result) == COUPLET_RTOS_NOT_OWNER ? errQUEUE_FULL : COUPLET_KERNEL_HW_SLOW;
    }
    *holder = NULL;  // a waiter woken by the unlock becomes the holder when it locks it
    if (!couplet_rtos_names_tid(result)) {
      // Its own end: joining the one below cost the give jumps back and forth.
      couplet_kernel_hw_unmask(mstatus);
      return pdPASS;
    }
  }
  uint32_t status = couplet_rtos_status(result);
  if (status == COUPLET_RTOS_OK) {
    if (couplet_rtos_names_tid(result)) {
      // A waiting taker, receiver or locker.
      COUPLET_KERNEL_HW_PASS(couplet_kernel_hw_woke(result, mstatus));
    }
    couplet_kernel_hw_unmask(mstatus);
    return pdPASS;
  }
  couplet_kernel_hw_unmask(mstatus);
  // A semaphore at its maximum (BAD_ARG): a give never waits. A full queue and a caller that
  // may not wait.
  if ((status == COUPLET_RTOS_BAD_ARG && COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_SEM)) ||
      (status == COUPLET_RTOS_QUEUE_FULL && wait == 0)) {
    return errQUEUE_FULL;
  }
  return COUPLET_KERNEL_HW_SLOW;  // BUSY (a copy in flight), or the caller may wait
}

// A give of a hardware semaphore from an interrupt handler (xQueueGiveFromISR). Masked like a
// task's give (a handler runs with interrupts off already, so that costs nothing; it covers a
// caller that runs with them on all the same).
static inline __attribute__((always_inline)) BaseType_t couplet_kernel_hw_give_from_isr_fast(UBaseType_t hw,
                                                                                             BaseType_t *higher_woken) {
  if (!COUPLET_KERNEL_HW_IS(hw, COUPLET_KERNEL_HW_SEM)) {
    return COUPLET_KERNEL_HW_SLOW;
  }
  uint32_t mstatus = couplet_kernel_hw_mask();
  uint32_t result = couplet_rtos_sem_give(COUPLET_KERNEL_HW_ID(hw), 0);
  uint32_t status = couplet_rtos_status(result);
  if (status == COUPLET_RTOS_OK) {
    if (couplet_rtos_names_tid(result)) {
      couplet_kernel_hw_woke_from_isr(result, higher_woken);
    }
    couplet_kernel_hw_unmask(mstatus);
    return pdPASS;
  }
  couplet_kernel_hw_unmask(mstatus);
  return status == COUPLET_RTOS_BAD_ARG ? errQUEUE_FULL : COUPLET_KERNEL_HW_SLOW;  // at its maximum
}

#endif  // COUPLET_KERNEL_HW_H_
