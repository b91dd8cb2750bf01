// FreeRTOS served by the RTOS accelerator, stage 2: semaphores and queues are the accelerator's
// objects (queue.patch calls these; tasks_sync.patch gives the two task-list operations they
// need). fw/rtos/kernel_hw/README.md explains the design.
//
// Every sequence of accelerator calls that belongs together (staging buffer + QUEUE_SEND,
// QUEUE_RECV + staging buffer, "block" = DELAYED + the blocking call) runs in one critical
// section, so an interrupt handler's own use of the accelerator (a give from an ISR, the tick
// readying a task) cannot come between.
//
// The accelerator follows FreeRTOS's rule for a give, send or unlock that finds a waiter
// (HANDOFF 0, couplet_kernel_hw_start): the count, the message or the unlocked mutex stays in the
// object and the best waiter is only woken; it takes it when it runs, unless a task that runs
// before it took it first, and then it waits again for the rest of its time. So every wait below
// ends the same way, woken or timed out: one more attempt.

#include <string.h>

#include "couplet_kernel_hw.h"

#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"

#define SEM_MAX_COUNT 0xFFFFu  // SEM_ALLOC's counters are 16 bits

// Set by xTaskAbortDelay (tasks_abort.patch) for TID t, which it takes out of its wait; cleared
// when t starts a wait on one of the accelerator's objects (block), so that the abort of a plain
// delay does not end a later wait. Read by may_wait. Only with INCLUDE_xTaskAbortDelay.
#if INCLUDE_xTaskAbortDelay
static volatile uint8_t aborted[COUPLET_RTOS_MAX_THREADS];

void couplet_kernel_hw_aborted(UBaseType_t tid) { aborted[tid] = 1; }
#endif

// A result that named a TID to wake: make that task ready in FreeRTOS too. pdTRUE if it
// outranks the running task (the caller then yields, or reports it to the ISR's caller).
static BaseType_t wake(uint32_t result) {
  uint32_t tid = couplet_rtos_tid(result);
  if (tid == COUPLET_RTOS_NONE) {
    return pdFALSE;
  }
  void *tcb = (void *)(uintptr_t)COUPLET_KERNEL_HW_CALL(thread_tcb, tid, 0);
  configASSERT(tcb != NULL);
  return xTaskCoupletWake(tcb);
}

UBaseType_t couplet_kernel_hw_queue_create(UBaseType_t length, UBaseType_t item_size, uint8_t type) {
  uint32_t result;
  UBaseType_t kind;
  if (type == queueQUEUE_TYPE_MUTEX || type == queueQUEUE_TYPE_RECURSIVE_MUTEX) {
    // Every mutex is the accelerator's, or there is none (see "mutexes" below).
    result = COUPLET_KERNEL_HW_CALL(mutex_alloc, 0, 0);
    if (couplet_rtos_status(result) == COUPLET_RTOS_TABLE_FULL) {
      return COUPLET_KERNEL_HW_REFUSED;
    }
    couplet_kernel_hw_ok(result);
    return COUPLET_KERNEL_HW_MUTEX | couplet_rtos_tid(result);
  }
  if (item_size == 0u) {
    // Binary semaphores (and size-0 queues, which FreeRTOS treats alike). Counting semaphores
    // are made by couplet_kernel_hw_sem_create once their initial count is known.
    if ((type != queueQUEUE_TYPE_BINARY_SEMAPHORE && type != queueQUEUE_TYPE_BASE) || length > SEM_MAX_COUNT) {
      return 0u;
    }
    result = COUPLET_KERNEL_HW_CALL(sem_alloc, 0u, length);
    kind = COUPLET_KERNEL_HW_SEM;
  } else {
    if (type != queueQUEUE_TYPE_BASE || (item_size % 4u) != 0u || item_size / 4u > COUPLET_RTOS_MESSAGE_WORDS ||
        length > COUPLET_RTOS_QUEUE_DEPTH) {
      return 0u;  // does not fit: FreeRTOS's queue serves it
    }
    result = COUPLET_KERNEL_HW_CALL(queue_alloc, item_size / 4u, length);
    kind = COUPLET_KERNEL_HW_QUEUE;
  }
  if (couplet_rtos_status(result) == COUPLET_RTOS_TABLE_FULL) {
    return 0u;  // every object in use: software
  }
  couplet_kernel_hw_ok(result);
  uint32_t id = couplet_rtos_tid(result);
  if (kind == COUPLET_KERNEL_HW_QUEUE) {
    return kind | id | ((item_size / 4u) << COUPLET_KERNEL_HW_WORDS_SHIFT);
  }
  return kind | id;
}

UBaseType_t couplet_kernel_hw_sem_create(UBaseType_t initial, UBaseType_t max) {
  if (max > SEM_MAX_COUNT) {
    return 0u;
  }
  uint32_t result = COUPLET_KERNEL_HW_CALL(sem_alloc, initial, max);
  if (couplet_rtos_status(result) == COUPLET_RTOS_TABLE_FULL) {
    return 0u;
  }
  couplet_kernel_hw_ok(result);
  return COUPLET_KERNEL_HW_SEM | couplet_rtos_tid(result);
}

static void mutex_deleted(uint32_t owner);

void couplet_kernel_hw_queue_delete(UBaseType_t hw) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  // BUSY (a task still waits on it) is a bug in the app, as in FreeRTOS. A held mutex may be
  // deleted.
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM) {
    couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(sem_free, id, 0));
  } else if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_MUTEX) {
    taskENTER_CRITICAL();
    uint32_t owner = couplet_rtos_tid(COUPLET_KERNEL_HW_CALL(mutex_info, id, 0));
    couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(mutex_free, id, 0));
    mutex_deleted(owner);
    taskEXIT_CRITICAL();
  } else {
    couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(queue_free, id, 0));
  }
}

UBaseType_t couplet_kernel_hw_count(UBaseType_t hw) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_MUTEX) {
    // A mutex counts 1 when free, as FreeRTOS's does.
    uint32_t info = COUPLET_KERNEL_HW_CALL(mutex_info, id, 0);
    couplet_kernel_hw_ok(info);
    return couplet_rtos_tid(info) == COUPLET_RTOS_NONE ? 1u : 0u;
  }
  uint32_t result = COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM ? COUPLET_KERNEL_HW_CALL(sem_info, id, 0)
                                                                         : COUPLET_KERNEL_HW_CALL(queue_info, id, 0);
  couplet_kernel_hw_ok(result);
  return couplet_rtos_value(result);
}

BaseType_t couplet_kernel_hw_woke(uint32_t result, uint32_t mstatus) {
  taskENTER_CRITICAL();
  BaseType_t yield = wake(result);
  taskEXIT_CRITICAL();
  if (yield) {
    portYIELD_WITHIN_API();
  }
  couplet_kernel_hw_unmask(mstatus);
  return pdPASS;
}

void couplet_kernel_hw_woke_from_isr(uint32_t result, BaseType_t *higher_woken) {
  UBaseType_t saved = taskENTER_CRITICAL_FROM_ISR();
  BaseType_t yield = wake(result);
  taskEXIT_CRITICAL_FROM_ISR(saved);
  if (yield && higher_woken != NULL) {
    *higher_woken = pdTRUE;
  }
}

// ----------------------------------------------------------------------------- one attempt

// One attempt of a give / send (`flags`: COUPLET_RTOS_BLOCK, COUPLET_RTOS_QUEUE_FRONT): the
// staging buffer and QUEUE_SEND (after waiting out a message copy in flight, BUSY). Interrupts
// off (critical section or handler).
static uint32_t try_send(UBaseType_t hw, const void *item, uint32_t flags) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM) {
    return COUPLET_KERNEL_HW_CALL(sem_give, id, 0);  // never blocks: BAD_ARG at max
  }
  uint32_t words = COUPLET_KERNEL_HW_WORDS(hw);
  uint32_t aligned[COUPLET_RTOS_MESSAGE_WORDS];
  const uint32_t *src = item;
  if (((uintptr_t)item & 3u) != 0u) {
    memcpy(aligned, item, 4u * words);
    src = aligned;
  }
  for (;;) {
    couplet_rtos_msg_put(src, words);
    uint32_t result = COUPLET_KERNEL_HW_CALL(queue_send, id, flags);
    if (couplet_rtos_status(result) != COUPLET_RTOS_BUSY) {
      return result;
    }
    configASSERT(couplet_rtos_copy_wait());
  }
}

// One attempt of a take / receive / peek (`flags`: COUPLET_RTOS_BLOCK, COUPLET_RTOS_QUEUE_PEEK); a
// stored message is copied out of MSG into `buffer`. A blocking one names no buffer for the copy
// engine: with HANDOFF 0 a send stores the message and wakes the receiver, which receives it.
static uint32_t try_receive(UBaseType_t hw, void *buffer, uint32_t flags) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM) {
    if ((flags & (COUPLET_RTOS_QUEUE_PEEK | COUPLET_RTOS_BLOCK)) == COUPLET_RTOS_QUEUE_PEEK) {
      // A peek at a semaphore (xQueuePeek allows it): is there a count? Nothing is taken. A
      // blocking peek comes only after this one failed, in the same critical section: its
      // SEM_TAKE finds no count and waits.
      uint32_t info = COUPLET_KERNEL_HW_CALL(sem_info, id, 0);
      couplet_kernel_hw_ok(info);
      uint32_t status = couplet_rtos_value(info) != 0u ? COUPLET_RTOS_OK : COUPLET_RTOS_UNAVAILABLE;
      return (COUPLET_RTOS_NONE << RTOS_CALL_TID_SHIFT) | (status << RTOS_CALL_STATUS_SHIFT);  // names no thread
    }
    return COUPLET_KERNEL_HW_CALL(sem_take, id, flags & COUPLET_RTOS_BLOCK);
  }
  for (;;) {
    uint32_t result = COUPLET_KERNEL_HW_CALL(queue_recv, id, flags);
    if (couplet_rtos_status(result) == COUPLET_RTOS_BUSY) {
      configASSERT(couplet_rtos_copy_wait());
      continue;
    }
    if (couplet_rtos_status(result) == COUPLET_RTOS_OK && !couplet_rtos_blocked(result)) {
      uint32_t words = COUPLET_KERNEL_HW_WORDS(hw);
      if (((uintptr_t)buffer & 3u) == 0u) {
        couplet_rtos_msg_get(buffer, words);
      } else {
        uint32_t aligned[COUPLET_RTOS_MESSAGE_WORDS];
        couplet_rtos_msg_get(aligned, words);
        memcpy(buffer, aligned, 4u * words);
      }
    }
    return result;
  }
}

// The caller cannot have what it asked for now and may wait: it leaves its ready list for
// `wait` ticks (DELAYED), then the blocking call makes it WAITING on the object. Indefinitely
// is the longest delay (FreeRTOS's suspended list would make eTaskGetState say eSuspended):
// the loops below wait again when it ends. In the caller's critical section; returns its TID.
static UBaseType_t block(TickType_t wait) {
  UBaseType_t tid = uxTaskCoupletBlock(wait);
#if INCLUDE_xTaskAbortDelay
  aborted[tid] = 0;
#endif
  return tid;
}

static void check_blocked(uint32_t result) {
  couplet_kernel_hw_ok(result);
  configASSERT(couplet_rtos_blocked(result));
}

// A call's wait: FreeRTOS's xTimeOut and xTicksToWait (`left`), whether the first attempt has
// failed yet (`started`), and the caller's TID once it has waited.
typedef struct {
  TimeOut_t timeout;
  TickType_t left;
  BaseType_t started;
  UBaseType_t tid;
} wait_t;

// After a failed attempt: may the caller wait (again)? FreeRTOS's order: the attempt first, the
// time after, so that a woken task that finds what it waited for pays nothing for the time. No
// if it may not wait at all, if its time is up, or if its wait was aborted (xTaskAbortDelay:
// FreeRTOS's own mark of an abort, ucDelayAborted, is only set for a task on an event list). In
// the caller's critical section.
static BaseType_t may_wait(wait_t *w) {
  if (w->left == 0) {
    return pdFALSE;
  }
  if (!w->started) {
    vTaskSetTimeOutState(&w->timeout);
    w->started = pdTRUE;
    return pdTRUE;
  }
#if INCLUDE_xTaskAbortDelay
  if (aborted[w->tid] != 0u) {
    return pdFALSE;
  }
#endif
  return xTaskCheckForTimeOut(&w->timeout, &w->left) == pdFALSE;  // sets left to what remains
}

// ----------------------------------------------------------------------------- task API

// xQueueOverwrite (a queue of length 1): drop what it holds; a sender that waited for room is
// woken to send again. Interrupts off. pdTRUE if the woken task outranks the running one.
static BaseType_t drop_for_overwrite(UBaseType_t hw) {
  uint32_t dropped = COUPLET_KERNEL_HW_CALL(queue_recv, COUPLET_KERNEL_HW_ID(hw), 0);
  return couplet_rtos_status(dropped) == COUPLET_RTOS_OK ? wake(dropped) : pdFALSE;
}

// QUEUE_SEND's flags for FreeRTOS's copy position (an overwrite is a send to the back of an emptied
// queue of length 1).
static uint32_t send_flags(BaseType_t position) {
  return position == queueSEND_TO_FRONT ? COUPLET_RTOS_QUEUE_FRONT : 0u;
}

BaseType_t couplet_kernel_hw_send(UBaseType_t hw, const void *item, TickType_t wait, BaseType_t position) {
  wait_t w = {.left = wait};
  for (;;) {
    BaseType_t yield = pdFALSE;
    taskENTER_CRITICAL();
    if (position == queueOVERWRITE) {
      yield |= drop_for_overwrite(hw);
    }
    uint32_t result = try_send(hw, item, send_flags(position));
    uint32_t status = couplet_rtos_status(result);
    if (status == COUPLET_RTOS_OK) {
      yield |= wake(result);  // a taker or receiver
      taskEXIT_CRITICAL();
      if (yield) {
        portYIELD_WITHIN_API();
      }
      return pdPASS;
    }
    // QUEUE_FULL, or BAD_ARG of a semaphore at its maximum (a give never waits in hardware).
    configASSERT(status == COUPLET_RTOS_QUEUE_FULL || (status == COUPLET_RTOS_BAD_ARG &&
                                                       COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM));
    if (status != COUPLET_RTOS_QUEUE_FULL || !may_wait(&w)) {
      taskEXIT_CRITICAL();
      return errQUEUE_FULL;
    }
    w.tid = block(w.left);
    check_blocked(try_send(hw, item, send_flags(position) | COUPLET_RTOS_BLOCK));
    taskEXIT_CRITICAL();
    portYIELD_WITHIN_API();
    // Woken (a receive made room), or the time ran out (the tick's THREAD_SET_STATE READY took
    // it off the waiters), or only the longest delay did: one more attempt.
  }
}

// Is a receiver waiting on queue `id`? (QUEUE_INFO counts senders and receivers together.)
static BaseType_t receiver_waits(uint32_t id) {
  for (uint32_t tid = 0; tid < COUPLET_RTOS_MAX_THREADS; tid++) {
    uint32_t info = COUPLET_KERNEL_HW_CALL(thread_info, tid, 0);
    if (couplet_rtos_status(info) == COUPLET_RTOS_OK && couplet_rtos_info_state(info) == COUPLET_RTOS_WAITING &&
        couplet_rtos_info_wait_kind(info) == RTOS_WAIT_KIND_QUEUE_RECV && couplet_rtos_info_wait_id(info) == id) {
      return pdTRUE;
    }
  }
  return pdFALSE;
}

// xQueuePeek leaves the message (or the count) in the object, and wakes the best task still
// waiting to receive it, if any. The accelerator wakes a waiter on a send or give: the message
// is received and sent back to the front (the count taken and given back), which changes nothing
// else and wakes that task. (Were senders waiting too, on a queue full again, the receive would
// wake one of them, which finds it full and waits again.) In a critical section; pdTRUE if the
// woken task outranks the running one.
static BaseType_t wake_after_peek(UBaseType_t hw) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  uint32_t result;
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM) {
    uint32_t info = COUPLET_KERNEL_HW_CALL(sem_info, id, 0);
    couplet_kernel_hw_ok(info);
    if (couplet_rtos_tid(info) == 0u) {  // SEM_INFO's tid: how many wait
      return pdFALSE;
    }
    couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(sem_take, id, 0));
    result = COUPLET_KERNEL_HW_CALL(sem_give, id, 0);
  } else {
    uint32_t info = COUPLET_KERNEL_HW_CALL(queue_info, id, 0);
    couplet_kernel_hw_ok(info);
    if (couplet_rtos_tid(info) == 0u || !receiver_waits(id)) {
      return pdFALSE;
    }
    uint32_t taken = COUPLET_KERNEL_HW_CALL(queue_recv, id, 0);
    couplet_kernel_hw_ok(taken);
    BaseType_t yield = wake(taken);
    result = COUPLET_KERNEL_HW_CALL(queue_send, id, COUPLET_RTOS_QUEUE_FRONT);
    couplet_kernel_hw_ok(result);
    return yield | wake(result);
  }
  couplet_kernel_hw_ok(result);
  return wake(result);
}

BaseType_t couplet_kernel_hw_receive(UBaseType_t hw, void *buffer, TickType_t wait, BaseType_t peek) {
  // A mutex is taken by xSemaphoreTake (couplet_kernel_hw_mutex_lock), not received or peeked.
  configASSERT(COUPLET_KERNEL_HW_KIND(hw) != COUPLET_KERNEL_HW_MUTEX);
  wait_t w = {.left = wait};
  BaseType_t is_queue = COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_QUEUE;
  // A peek that finds the queue empty waits as a receiver: the send that wakes it stores the
  // message, which the peek then copies and leaves there.
  uint32_t flags = peek ? COUPLET_RTOS_QUEUE_PEEK : 0u;
  for (;;) {
    taskENTER_CRITICAL();
    uint32_t result = try_receive(hw, buffer, flags);
    uint32_t status = couplet_rtos_status(result);
    if (status == COUPLET_RTOS_OK) {
      // After a peek, a receiver still waiting; after a receive, a sender that waited for room.
      BaseType_t yield = peek ? wake_after_peek(hw) : wake(result);
      taskEXIT_CRITICAL();
      if (yield) {
        portYIELD_WITHIN_API();
      }
      return pdPASS;
    }
    configASSERT(status == COUPLET_RTOS_UNAVAILABLE || status == COUPLET_RTOS_QUEUE_EMPTY);
    if (!may_wait(&w)) {
      taskEXIT_CRITICAL();
      return is_queue ? errQUEUE_EMPTY : pdFAIL;
    }
    w.tid = block(w.left);
    check_blocked(try_receive(hw, buffer, flags | COUPLET_RTOS_BLOCK));
    taskEXIT_CRITICAL();
    portYIELD_WITHIN_API();
    // Woken (a give or send left the count or message in the object, which a task that ran
    // first may have taken), or timed out (the tick's THREAD_SET_STATE READY took it off the
    // object's waiters; a portMAX_DELAY wait never times out: the longest delay ended, it waits
    // again). One more attempt: first the fast path's (a woken task mostly finds what it waited
    // for), which answers COUPLET_KERNEL_HW_SLOW, having changed nothing, if it is not there.
    if (!peek && couplet_kernel_hw_receive_fast(hw, buffer, portMAX_DELAY) == pdPASS) {
      return pdPASS;
    }
  }
}

// ----------------------------------------------------------------------------- ISR API

BaseType_t couplet_kernel_hw_send_from_isr(UBaseType_t hw, const void *item, BaseType_t *higher_woken,
                                           BaseType_t position) {
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_MUTEX) {
    // No mutex from an interrupt: FreeRTOS asserts that it is not held; a free one is "full".
    return errQUEUE_FULL;
  }
  BaseType_t yield = pdFALSE;
  UBaseType_t saved = taskENTER_CRITICAL_FROM_ISR();
  if (position == queueOVERWRITE) {
    yield |= drop_for_overwrite(hw);
  }
  uint32_t result = try_send(hw, item, send_flags(position));
  BaseType_t ret = errQUEUE_FULL;
  if (couplet_rtos_status(result) == COUPLET_RTOS_OK) {
    yield |= wake(result);
    ret = pdPASS;
  }
  taskEXIT_CRITICAL_FROM_ISR(saved);
  if (yield && higher_woken != NULL) {
    *higher_woken = pdTRUE;
  }
  return ret;
}

BaseType_t couplet_kernel_hw_receive_from_isr(UBaseType_t hw, void *buffer, BaseType_t *higher_woken, BaseType_t peek) {
  configASSERT(COUPLET_KERNEL_HW_KIND(hw) != COUPLET_KERNEL_HW_MUTEX);  // no mutex from an interrupt
  UBaseType_t saved = taskENTER_CRITICAL_FROM_ISR();
  uint32_t result = try_receive(hw, buffer, peek ? COUPLET_RTOS_QUEUE_PEEK : 0u);
  BaseType_t ret = pdFAIL;
  BaseType_t yield = pdFALSE;
  if (couplet_rtos_status(result) == COUPLET_RTOS_OK) {
    yield = wake(result);
    ret = pdPASS;
  }
  taskEXIT_CRITICAL_FROM_ISR(saved);
  if (yield && higher_woken != NULL) {
    *higher_woken = pdTRUE;
  }
  return ret;
}

// ----------------------------------------------------------------------------- reset

BaseType_t couplet_kernel_hw_reset(UBaseType_t hw) {
  configASSERT(COUPLET_KERNEL_HW_KIND(hw) != COUPLET_KERNEL_HW_MUTEX);  // a mutex is not reset
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  BaseType_t yield = pdFALSE;
  taskENTER_CRITICAL();
  if (COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_SEM) {
    // The accelerator has no semaphore reset: take the count away, one at a time (at most
    // SEM_MAX_COUNT). Nobody waits to give, so nobody is woken, as in FreeRTOS.
    uint32_t info = COUPLET_KERNEL_HW_CALL(sem_info, id, 0);
    couplet_kernel_hw_ok(info);
    for (uint32_t count = couplet_rtos_value(info); count > 0u; count--) {
      couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(sem_take, id, 0));
    }
  } else {
    // The stored messages are dropped; one sender that waited for room sends again (FreeRTOS
    // unblocks one too); receivers keep waiting.
    uint32_t result = COUPLET_KERNEL_HW_CALL(queue_reset, id, 0);
    couplet_kernel_hw_ok(result);
    yield = wake(result);
  }
  taskEXIT_CRITICAL();
  if (yield) {
    portYIELD_WITHIN_API();
  }
  return pdPASS;
}

// ----------------------------------------------------------------------------- mutexes
// FreeRTOS's mutexes are the accelerator's (MUTEX_*: the lock, its owner, its waiters, the wake-up
// of the best waiter, which locks it when it runs), with FreeRTOS's own priority inheritance: the accelerator's is
// off (couplet_kernel_hw_start), and this glue calls FreeRTOS's inheritance functions where
// queue.c calls them, so every priority is the one FreeRTOS decides, by its rules
// (xTaskPriorityInherit raises the holder only, not the holders it waits for in turn;
// xTaskPriorityDisinherit restores the base priority only once the task holds no mutex;
// vTaskPriorityDisinheritAfterTimeout lowers a holder whose waiter gave up, only when that is the
// one mutex it holds). Their hooks (tasks.patch) tell the accelerator each new uxPriority.
// xMutexHolder is kept as FreeRTOS keeps it (for xSemaphoreGetMutexHolder and the recursive
// mutexes). FreeRTOS's count of mutexes held (uxMutexesHeld) is not kept on every lock and unlock
// (that would cost the fast paths a call or a count): the accelerator knows which mutexes a task
// owns, so the glue counts them (MUTEX_INFO of each) and sets uxMutexesHeld just before
// FreeRTOS's inheritance code reads it, which happens only while the task runs at an inherited
// priority. A mutex has no software fallback: FreeRTOS's software give would read a count that
// leaves out the accelerator's mutexes.

uint8_t couplet_kernel_hw_raised[COUPLET_RTOS_MAX_THREADS];
uint32_t couplet_kernel_hw_raised_tasks;

// Mutexes deleted while TID t held them. FreeRTOS never takes such a mutex off its holder's count
// (uxMutexesHeld: vQueueDelete does not look at it), so a holder at an inherited priority keeps
// it after giving back all its other mutexes; the glue counts them too, for the same result.
// Cleared when the task's node is removed.
static uint8_t held_when_deleted[COUPLET_RTOS_MAX_THREADS];

// FreeRTOS's uxMutexesHeld of TID tid: the accelerator's mutexes it owns, and those deleted while
// it held them; *owns_mutex says whether mutex `mutex` is one it owns. In a critical section.
static UBaseType_t mutexes_held(uint32_t tid, uint32_t mutex, BaseType_t *owns_mutex) {
  UBaseType_t held = held_when_deleted[tid];
  *owns_mutex = pdFALSE;
  for (uint32_t id = 0; id < COUPLET_RTOS_MUTEXES; id++) {
    uint32_t info = COUPLET_KERNEL_HW_CALL(mutex_info, id, 0);
    if (couplet_rtos_status(info) == COUPLET_RTOS_OK && couplet_rtos_tid(info) == tid) {
      held++;
      *owns_mutex |= id == mutex;
    }
  }
  return held;
}

// Nodes of deleted tasks that still hold mutexes (FreeRTOS lets a holder be deleted; its mutexes
// stay held, and the accelerator keeps an owner's node): SUSPENDED until the last of its
// mutexes is deleted (couplet_kernel_hw_queue_delete), then freed.
static uint8_t deleted_holder[COUPLET_RTOS_MAX_THREADS];

void couplet_kernel_hw_remove(UBaseType_t tid) {
  couplet_kernel_hw_raised_tasks -= couplet_kernel_hw_raised[tid];
  couplet_kernel_hw_raised[tid] = 0;
  held_when_deleted[tid] = 0;
  uint32_t result = COUPLET_KERNEL_HW_CALL(thread_remove, tid, 0);
  if (couplet_rtos_status(result) == COUPLET_RTOS_BUSY) {  // it owns a mutex
    couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_state, tid, COUPLET_RTOS_SUSPENDED));
    deleted_holder[tid] = 1;
    return;
  }
  couplet_kernel_hw_ok(result);
}

// A mutex owned by `owner` (a TID, or NONE) was deleted: a live holder counts it on
// (held_when_deleted); a deleted holder's node goes once it owns nothing (THREAD_REMOVE answers
// BUSY while it still does).
static void mutex_deleted(uint32_t owner) {
  if (owner == COUPLET_RTOS_NONE) {
    return;
  }
  if (!deleted_holder[owner]) {
    if (held_when_deleted[owner] < UINT8_MAX) {
      held_when_deleted[owner]++;
    }
    return;
  }
  uint32_t result = COUPLET_KERNEL_HW_CALL(thread_remove, owner, 0);
  if (couplet_rtos_status(result) != COUPLET_RTOS_BUSY) {
    couplet_kernel_hw_ok(result);
    deleted_holder[owner] = 0;
  }
}

// FreeRTOS's prvGetDisinheritPriorityAfterTimeout for the accelerator's waiters: the highest
// priority of the tasks still waiting on mutex `id` (the one that gave up has left them), or
// the idle priority. THREAD_INFO of every node: only after a timed-out wait that had raised the
// holder.
static UBaseType_t highest_waiting(uint32_t id) {
  UBaseType_t highest = tskIDLE_PRIORITY;
  for (uint32_t tid = 0; tid < COUPLET_RTOS_MAX_THREADS; tid++) {
    uint32_t info = COUPLET_KERNEL_HW_CALL(thread_info, tid, 0);
    if (couplet_rtos_status(info) == COUPLET_RTOS_OK && couplet_rtos_info_state(info) == COUPLET_RTOS_WAITING &&
        couplet_rtos_info_wait_kind(info) == RTOS_WAIT_KIND_MUTEX && couplet_rtos_info_wait_id(info) == id &&
        couplet_rtos_info_eprio(info) > highest) {
      highest = couplet_rtos_info_eprio(info);  // the task's uxPriority
    }
  }
  return highest;
}

BaseType_t couplet_kernel_hw_mutex_lock(UBaseType_t hw, TickType_t wait, void **holder) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  wait_t w = {.left = wait};
  BaseType_t inherited = pdFALSE;
  for (;;) {
    taskENTER_CRITICAL();
    uint32_t result = COUPLET_KERNEL_HW_CALL(mutex_lock, id, 0);
    uint32_t status = couplet_rtos_status(result);
    if (status == COUPLET_RTOS_OK) {
      *holder = couplet_kernel_hw_tcb[couplet_kernel_hw_current()];
      taskEXIT_CRITICAL();
      return pdPASS;
    }
    // UNAVAILABLE: another task holds it. BAD_ARG: the caller does (a second take of a
    // non-recursive mutex, which in FreeRTOS waits out its time and fails).
    configASSERT(status == COUPLET_RTOS_UNAVAILABLE || status == COUPLET_RTOS_BAD_ARG);
    if (!may_wait(&w)) {
      if (inherited) {
        // It gave up after raising the holder: as xQueueSemaphoreTake, the holder comes back down
        // to the highest priority still waiting (if this is the one mutex it holds).
        uint32_t owner = couplet_rtos_tid(COUPLET_KERNEL_HW_CALL(mutex_info, id, 0));
        BaseType_t owns;
        if (owner != COUPLET_RTOS_NONE) {
          vTaskCoupletSetMutexesHeld(*holder, mutexes_held(owner, id, &owns));
          vTaskPriorityDisinheritAfterTimeout(*holder, highest_waiting(id));
        }
      }
      taskEXIT_CRITICAL();
      return pdFAIL;
    }
    // Before the caller leaves its ready list, as xQueueSemaphoreTake does.
    inherited = xTaskPriorityInherit(*holder);
    w.tid = block(w.left);
    if (status == COUPLET_RTOS_UNAVAILABLE) {
      check_blocked(COUPLET_KERNEL_HW_CALL(mutex_lock, id, COUPLET_RTOS_BLOCK));
    }
    taskEXIT_CRITICAL();
    portYIELD_WITHIN_API();
    // Woken by the unlock (the mutex is free, unless a task that ran first locked it), or timed
    // out (or suspended and resumed: the READY / SUSPENDED hook took it off the waiters). One
    // more attempt: first the fast path's, as a receive's.
    if (couplet_kernel_hw_lock_fast(hw, portMAX_DELAY, holder) == pdPASS) {
      return pdPASS;
    }
  }
}

BaseType_t couplet_kernel_hw_mutex_unlock(UBaseType_t hw, void **holder) {
  uint32_t id = COUPLET_KERNEL_HW_ID(hw);
  BaseType_t yield = pdFALSE;
  taskENTER_CRITICAL();
  uint32_t tid = couplet_kernel_hw_current();
  // FreeRTOS's order: a giver at an inherited priority is lowered first (back to its base once it
  // holds no mutex), then the waiter is woken. Without an inherited priority the give is the
  // unlock alone.
  if (couplet_kernel_hw_raised[tid]) {
    BaseType_t owns;
    UBaseType_t held = mutexes_held(tid, id, &owns);
    if (!owns) {
      taskEXIT_CRITICAL();
      return errQUEUE_FULL;  // not its mutex: as the unlock's NOT_OWNER below
    }
    vTaskCoupletSetMutexesHeld(*holder, held);
    yield = xTaskPriorityDisinherit(*holder);
  }
  uint32_t result = COUPLET_KERNEL_HW_CALL(mutex_unlock, id, 0);
  if (couplet_rtos_status(result) == COUPLET_RTOS_NOT_OWNER) {
    // Not held, or held by another task (FreeRTOS asserts there): the give fails.
    taskEXIT_CRITICAL();
    return errQUEUE_FULL;
  }
  couplet_kernel_hw_ok(result);
  *holder = NULL;
  yield |= wake(result);  // the best waiter, which locks it when it runs
  taskEXIT_CRITICAL();
  if (yield) {
    portYIELD_WITHIN_API();
  }
  return pdPASS;
}

// ----------------------------------------------------------------------------- restricted wait

// vQueueWaitForMessageRestricted (queue_restricted.patch): the timer task waits for a message
// without taking it, then receives it without waiting (timers.c). On an empty queue the caller
// waits as a peeker: the send that wakes it leaves the message in the queue. Called with the
// scheduler suspended, not in a critical section; the caller yields once it resumes the
// scheduler, and a timeout needs nothing more (the READY hook took the task off the waiters).
void couplet_kernel_hw_wait_restricted(UBaseType_t hw, TickType_t wait) {
  configASSERT(COUPLET_KERNEL_HW_KIND(hw) == COUPLET_KERNEL_HW_QUEUE);
  taskENTER_CRITICAL();
  if (couplet_kernel_hw_count(hw) == 0u) {
    (void)block(wait);
    check_blocked(try_receive(hw, NULL, COUPLET_RTOS_QUEUE_PEEK | COUPLET_RTOS_BLOCK));
  }
  taskEXIT_CRITICAL();
}
