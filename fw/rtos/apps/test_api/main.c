// test_api: the FreeRTOS API beyond tasks, queues, semaphores and mutexes, through the plain
// FreeRTOS API, with the same results on every kernel variant: xTaskDelayUntil, software
// timers and xTimerPendFunctionCall (the timer service task), event groups, stream and message
// buffers, indexed task notifications and xTaskAbortDelay (of a delay and of waits on a queue,
// a semaphore and a mutex, which the hardware kernels serve from the accelerator), and static
// allocation of tasks, queues, semaphores and mutexes.
//
// On the hardware kernels the timer queue is the accelerator's (FreeRTOSConfig_app.h), which
// a "hw:" check confirms, so the timer checks go through it there.
//
// One controller task runs the checks; helpers at a higher priority wait on what a check
// exercises, so that each one runs the moment it is woken and the controller sees the result
// right after the call that woke it. Helpers record what they saw in globals, the controller
// alone prints: "ok <check>" or "FAIL <check>: <what was seen>", and the exit code is the number
// of failed checks. Ticks are counted from a tick boundary (after vTaskDelay(1)), and nothing is
// printed between that start and the measurement, so the counts are exact.
//
// Tasks: the idle and timer tasks, the controller and at most two helpers at a time, within the
// hardware kernels' thread table (8 nodes on the default SoC).

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "event_groups.h"
#include "message_buffer.h"
#include "queue.h"
#include "semphr.h"
#include "stream_buffer.h"
#include "task.h"
#include "timers.h"

#if COUPLET_RTOS_KERNEL_HW
#include "couplet_kernel_hw.h"
#endif

// Below the timer task (configTIMER_TASK_PRIORITY, the highest), so timer callbacks run at once.
#define CONTROLLER_PRIORITY (configMAX_PRIORITIES - 2)
#define HELPER_PRIORITY (configMAX_PRIORITIES - 1)
#define LOW_PRIORITY 1
#define HELPER_STACK (2 * configMINIMAL_STACK_SIZE)

// vTaskDelay(1): the next step starts right after a tick.
static TickType_t tick_start(void) {
  vTaskDelay(1);
  return xTaskGetTickCount();
}

static long ticks_since(TickType_t start) { return (long)(xTaskGetTickCount() - start); }

// Deletes a helper that has finished its part (blocked or suspended, never holding anything).
static void retire(TaskHandle_t task) {
  if (task != NULL) {
    vTaskDelete(task);
  }
}

// ----------------------------------------------------------------------------- delay until

static void test_delay_until(void) {
  TickType_t start = tick_start();
  TickType_t last = start;
  BaseType_t first = xTaskDelayUntil(&last, 4);
  long woke1 = ticks_since(start);
  vTaskDelay(2);  // work that takes part of the period does not shift the next wake-up
  BaseType_t second = xTaskDelayUntil(&last, 4);
  long woke2 = ticks_since(start);
  couplet_rtos_check(first == pdTRUE && second == pdTRUE && woke1 == 4 && woke2 == 8 && last - start == 8,
                     "delay until: wakes every 4 ticks exactly, whatever ran in between",
                     "returned %ld %ld, woke at %ld and %ld, last %ld", (long)first, (long)second, woke1, woke2,
                     (long)(last - start));

  vTaskDelay(6);  // overrun: the next wake time (start + 12) passes
  long before = ticks_since(start);
  BaseType_t late = xTaskDelayUntil(&last, 4);
  long after = ticks_since(start);
  couplet_rtos_check(late == pdFALSE && before == 14 && after == 14 && last - start == 12,
                     "delay until: a wake time already past returns pdFALSE at once",
                     "returned %ld at %ld (from %ld), last %ld", (long)late, after, before, (long)(last - start));

  vTaskDelayUntil(&last, 4);
  long woke3 = ticks_since(start);
  couplet_rtos_check(woke3 == 16, "delay until: vTaskDelayUntil keeps the period after an overrun",
                     "woke at %ld, expected 16", woke3);
}

// ----------------------------------------------------------------------------- timers

#define MAX_FIRES 8
static volatile unsigned fires;
static volatile uintptr_t fire_id[MAX_FIRES];
static volatile TickType_t fire_tick[MAX_FIRES];
static volatile TaskHandle_t fire_task;

static void timer_callback(TimerHandle_t timer) {
  unsigned n = fires;
  if (n < MAX_FIRES) {
    fire_id[n] = (uintptr_t)pvTimerGetTimerID(timer);
    fire_tick[n] = xTaskGetTickCount();
  }
  fire_task = xTaskGetCurrentTaskHandle();
  fires = n + 1;
}

static void fires_clear(void) { fires = 0; }

// "A2 O3 A4" from the callbacks recorded since `start`: timer id letter and tick.
static void fires_text(TickType_t start, char *text, size_t size) {
  size_t used = 0;
  text[0] = '\0';
  for (unsigned i = 0; i < fires && i < MAX_FIRES && used < size; i++) {
    int n = snprintf(text + used, size - used, "%s%c%ld", i ? " " : "", (char)fire_id[i],
                     (long)(fire_tick[i] - start));
    if (n < 0) {
      break;
    }
    used += (size_t)n;
  }
}

static volatile uint32_t pended_arg2;
static void *volatile pended_arg1;
static volatile TaskHandle_t pended_task;

static void pended_function(void *arg1, uint32_t arg2) {
  pended_arg1 = arg1;
  pended_arg2 = arg2;
  pended_task = xTaskGetCurrentTaskHandle();
}

#if COUPLET_RTOS_KERNEL_HW
// The timer queue (FreeRTOSConfig_app.h) fits the accelerator and took one of its queues at the
// scheduler's start: of as many queues that fit as it has, the last one is software.
static void test_timer_queue_is_hardware(void) {
  QueueHandle_t queues[COUPLET_RTOS_QUEUES];
  unsigned hardware = 0;
  for (unsigned i = 0; i < COUPLET_RTOS_QUEUES; i++) {
    queues[i] = xQueueCreate(2, 4 * sizeof(uint32_t));
    hardware += COUPLET_KERNEL_HW_KIND(uxQueueCoupletHw(queues[i])) == COUPLET_KERNEL_HW_QUEUE;
  }
  UBaseType_t last = uxQueueCoupletHw(queues[COUPLET_RTOS_QUEUES - 1]);
  couplet_rtos_check(hardware == COUPLET_RTOS_QUEUES - 1 && last == 0u,
                     "hw: the timer queue is one of the accelerator's queues",
                     "%u of %u new queues are hardware, the last %lx", hardware, (unsigned)COUPLET_RTOS_QUEUES,
                     (unsigned long)last);
  for (unsigned i = 0; i < COUPLET_RTOS_QUEUES; i++) {
    vQueueDelete(queues[i]);
  }
}
#endif

static void test_timers(void) {
#if COUPLET_RTOS_KERNEL_HW
  test_timer_queue_is_hardware();
#endif
  TaskHandle_t daemon = xTimerGetTimerDaemonTaskHandle();
  couplet_rtos_check(daemon != NULL && uxTaskPriorityGet(daemon) == configTIMER_TASK_PRIORITY &&
                         eTaskGetState(daemon) == eBlocked,
                     "timer: the timer service task exists, at its priority, waiting",
                     "handle %p, priority %lu, state %d", (void *)daemon,
                     daemon ? (unsigned long)uxTaskPriorityGet(daemon) : 0ul, daemon ? (int)eTaskGetState(daemon) : -1);

  TimerHandle_t one = xTimerCreate("one", 3, pdFALSE, (void *)(uintptr_t)'O', timer_callback);
  TimerHandle_t again = xTimerCreate("again", 2, pdTRUE, (void *)(uintptr_t)'A', timer_callback);
  char text[64];
  fires_clear();
  TickType_t start = tick_start();
  BaseType_t started = xTimerStart(one, 0) == pdPASS && xTimerStart(again, 0) == pdPASS;
  BaseType_t active = xTimerIsTimerActive(one) != pdFALSE && xTimerIsTimerActive(again) != pdFALSE;
  vTaskDelay(7);
  BaseType_t stopped = xTimerStop(again, 0);
  vTaskDelay(3);  // nothing more fires
  BaseType_t dormant = xTimerIsTimerActive(one) == pdFALSE && xTimerIsTimerActive(again) == pdFALSE;
  fires_text(start, text, sizeof text);
  couplet_rtos_check(started && active && stopped == pdPASS && dormant && strcmp(text, "A2 O3 A4 A6") == 0 &&
                         fire_task == daemon,
                     "timer: one-shot and auto-reload fire at their ticks, in the timer task, until stopped",
                     "fired \"%s\" (expected \"A2 O3 A4 A6\"), started %ld, active %ld, stopped %ld, dormant %ld, "
                     "in the daemon %d",
                     text, (long)started, (long)active, (long)stopped, (long)dormant, fire_task == daemon);

  // A reset restarts the period from the reset; a new period restarts the timer with it.
  fires_clear();
  start = tick_start();
  xTimerStart(one, 0);
  vTaskDelay(2);
  xTimerReset(one, 0);  // due at 2 + 3 = 5, not 3
  vTaskDelay(4);
  BaseType_t changed = xTimerChangePeriod(one, 5, 0);  // at 6: due at 11
  TickType_t period = xTimerGetPeriod(one);
  vTaskDelay(6);
  fires_text(start, text, sizeof text);
  couplet_rtos_check(changed == pdPASS && period == 5 && strcmp(text, "O5 O11") == 0 &&
                         strcmp(pcTimerGetName(one), "one") == 0,
                     "timer: xTimerReset and xTimerChangePeriod restart the period",
                     "fired \"%s\" (expected \"O5 O11\"), changed %ld, period %lu, name %s", text, (long)changed,
                     (unsigned long)period, pcTimerGetName(one));

  BaseType_t deleted = xTimerDelete(one, 0) == pdPASS && xTimerDelete(again, 0) == pdPASS;
  // The timer task outranks the caller: it runs the function before the call returns.
  static int cookie;
  pended_task = NULL;
  BaseType_t pended = xTimerPendFunctionCall(pended_function, &cookie, 0xC0FFEEu, 0);
  couplet_rtos_check(deleted && pended == pdPASS && pended_task == daemon && pended_arg1 == &cookie &&
                         pended_arg2 == 0xC0FFEEu,
                     "timer: xTimerPendFunctionCall runs the function in the timer task",
                     "deleted %ld, pended %ld, in the daemon %d, arguments %p %lx", (long)deleted, (long)pended,
                     pended_task == daemon, (void *)pended_arg1, (unsigned long)pended_arg2);
}

// ----------------------------------------------------------------------------- event groups

#define BIT_A (1u << 0)
#define BIT_B (1u << 1)
#define BIT_C (1u << 2)
#define BIT_D (1u << 3)
#define BIT_E (1u << 4)

static EventGroupHandle_t group;
static volatile EventBits_t waiter_bits;
static volatile int waiter_state;  // 0 not started, 1 waiting, 2 woken

// Waits for A and B together, clearing them on exit.
static void all_bits_task(void *arg) {
  (void)arg;
  waiter_state = 1;
  waiter_bits = xEventGroupWaitBits(group, BIT_A | BIT_B, pdTRUE, pdTRUE, portMAX_DELAY);
  waiter_state = 2;
  vTaskSuspend(NULL);
}

static volatile EventBits_t sync_bits[2];
static volatile unsigned synced;

static void sync_task(void *arg) {
  uintptr_t index = (uintptr_t)arg;
  sync_bits[index] = xEventGroupSync(group, index == 0 ? BIT_A : BIT_B, BIT_A | BIT_B | BIT_C, portMAX_DELAY);
  synced++;
  vTaskSuspend(NULL);
}

static void test_event_groups(void) {
  group = xEventGroupCreate();
  waiter_state = 0;
  TaskHandle_t waiter = couplet_rtos_spawn(all_bits_task, "allbits", HELPER_STACK, HELPER_PRIORITY, NULL);
  EventBits_t after_a = xEventGroupSetBits(group, BIT_A);
  int state_a = waiter_state;
  EventBits_t after_b = xEventGroupSetBits(group, BIT_B | BIT_E);
  int state_b = waiter_state;
  EventBits_t left = xEventGroupGetBits(group);
  couplet_rtos_check(after_a == BIT_A && state_a == 1 && state_b == 2 && (waiter_bits & (BIT_A | BIT_B)) == (BIT_A | BIT_B) &&
                         after_b == BIT_E && left == BIT_E,
                     "event group: a wait for all bits wakes at the last one and clears them",
                     "after A %lx (state %d), after B %lx (state %d), waiter got %lx, left %lx", (unsigned long)after_a,
                     state_a, (unsigned long)after_b, state_b, (unsigned long)waiter_bits, (unsigned long)left);
  retire(waiter);

  TickType_t start = tick_start();
  EventBits_t got = xEventGroupWaitBits(group, BIT_C | BIT_D, pdFALSE, pdFALSE, 3);
  long waited = ticks_since(start);
  EventBits_t cleared = xEventGroupClearBits(group, BIT_E);
  couplet_rtos_check(got == BIT_E && waited == 3 && cleared == BIT_E && xEventGroupGetBits(group) == 0,
                     "event group: a wait for any bit times out after its ticks with the bits there",
                     "got %lx after %ld ticks, cleared %lx", (unsigned long)got, waited, (unsigned long)cleared);

  // Rendezvous: two helpers (lower priority) set their bit and wait; the controller's bit
  // releases all three.
  synced = 0;
  TaskHandle_t s0 = couplet_rtos_spawn(sync_task, "sync0", HELPER_STACK, LOW_PRIORITY, (void *)0);
  TaskHandle_t s1 = couplet_rtos_spawn(sync_task, "sync1", HELPER_STACK, LOW_PRIORITY, (void *)1);
  vTaskDelay(1);  // both reach the sync
  unsigned synced_before = synced;
  EventBits_t mine = xEventGroupSync(group, BIT_C, BIT_A | BIT_B | BIT_C, 5);
  vTaskDelay(1);  // both leave it
  EventBits_t all = BIT_A | BIT_B | BIT_C;
  couplet_rtos_check(synced_before == 0 && synced == 2 && (mine & all) == all && (sync_bits[0] & all) == all &&
                         (sync_bits[1] & all) == all && xEventGroupGetBits(group) == 0,
                     "event group: xEventGroupSync releases all three tasks together and clears the bits",
                     "synced %u then %u, bits %lx %lx %lx, left %lx", synced_before, synced, (unsigned long)mine,
                     (unsigned long)sync_bits[0], (unsigned long)sync_bits[1], (unsigned long)xEventGroupGetBits(group));
  retire(s0);
  retire(s1);

  // From an ISR the bits are set by the timer task (xTimerPendFunctionCallFromISR).
  waiter_state = 0;
  waiter = couplet_rtos_spawn(all_bits_task, "allbits", HELPER_STACK, HELPER_PRIORITY, NULL);
  BaseType_t woken = pdFALSE;
  taskENTER_CRITICAL();
  BaseType_t posted = xEventGroupSetBitsFromISR(group, BIT_A | BIT_B, &woken);
  int state_inside = waiter_state;
  taskEXIT_CRITICAL();
  taskYIELD();
  couplet_rtos_check(posted == pdPASS && woken == pdTRUE && state_inside == 1 && waiter_state == 2 &&
                         xEventGroupGetBits(group) == 0,
                     "event group: bits set from an ISR wake the waiter through the timer task",
                     "posted %ld, woken %ld, state %d then %d, left %lx", (long)posted, (long)woken, state_inside,
                     waiter_state, (unsigned long)xEventGroupGetBits(group));
  retire(waiter);
  vEventGroupDelete(group);
}

// ----------------------------------------------------------------------------- stream buffers

static StreamBufferHandle_t stream;
static char received[24];
static volatile size_t received_len;
static volatile int receiver_state;

static void stream_receiver_task(void *arg) {
  (void)arg;
  receiver_state = 1;
  received_len = xStreamBufferReceive(stream, received, sizeof received, portMAX_DELAY);
  receiver_state = 2;
  vTaskSuspend(NULL);
}

static void test_stream_buffers(void) {
  stream = xStreamBufferCreate(16, 4);  // a blocked receiver wakes once 4 bytes are there
  receiver_state = 0;
  TaskHandle_t receiver = couplet_rtos_spawn(stream_receiver_task, "srecv", HELPER_STACK, HELPER_PRIORITY, NULL);
  size_t sent1 = xStreamBufferSend(stream, "abc", 3, 0);
  int state1 = receiver_state;
  size_t sent2 = xStreamBufferSend(stream, "de", 2, 0);
  int state2 = receiver_state;
  couplet_rtos_check(sent1 == 3 && sent2 == 2 && state1 == 1 && state2 == 2 && received_len == 5 &&
                         memcmp(received, "abcde", 5) == 0,
                     "stream buffer: a blocked receiver wakes at the trigger level with the bytes in order",
                     "sent %u %u, state %d then %d, received %u bytes \"%.*s\"", (unsigned)sent1, (unsigned)sent2,
                     state1, state2, (unsigned)received_len, (int)received_len, received);
  retire(receiver);

  // 16 bytes of room: a longer send with no wait stores what fits.
  char out[20];
  char in[20];
  for (unsigned i = 0; i < sizeof out; i++) {
    out[i] = (char)('A' + i);
  }
  size_t space = xStreamBufferSpacesAvailable(stream);
  size_t stored = xStreamBufferSend(stream, out, sizeof out, 0);
  BaseType_t full = xStreamBufferIsFull(stream);
  size_t first = xStreamBufferReceive(stream, in, 10, 0);
  size_t rest = xStreamBufferReceive(stream, in + 10, sizeof in - 10, 0);
  BaseType_t empty = xStreamBufferIsEmpty(stream);
  size_t none = xStreamBufferReceive(stream, in, sizeof in, 0);
  couplet_rtos_check(space == 16 && stored == 16 && full == pdTRUE && first == 10 && rest == 6 && empty == pdTRUE &&
                         none == 0 && memcmp(in, out, 16) == 0,
                     "stream buffer: a send stores what fits, receives take bytes in order, empty gives 0",
                     "space %u, stored %u, full %ld, received %u + %u then %u, empty %ld", (unsigned)space,
                     (unsigned)stored, (long)full, (unsigned)first, (unsigned)rest, (unsigned)none, (long)empty);

  BaseType_t woken = pdFALSE;
  taskENTER_CRITICAL();
  size_t isr_sent = xStreamBufferSendFromISR(stream, "xyz", 3, &woken);
  size_t isr_got = xStreamBufferReceiveFromISR(stream, in, sizeof in, &woken);
  taskEXIT_CRITICAL();
  xStreamBufferSend(stream, "q", 1, 0);
  BaseType_t reset = xStreamBufferReset(stream);
  couplet_rtos_check(isr_sent == 3 && isr_got == 3 && memcmp(in, "xyz", 3) == 0 && reset == pdPASS &&
                         xStreamBufferBytesAvailable(stream) == 0,
                     "stream buffer: send and receive from an ISR, and a reset empties it",
                     "sent %u, got %u, reset %ld, left %u", (unsigned)isr_sent, (unsigned)isr_got, (long)reset,
                     (unsigned)xStreamBufferBytesAvailable(stream));
  vStreamBufferDelete(stream);
}

// ----------------------------------------------------------------------------- message buffers

static MessageBufferHandle_t messages;

static void message_receiver_task(void *arg) {
  (void)arg;
  receiver_state = 1;
  received_len = xMessageBufferReceive(messages, received, sizeof received, portMAX_DELAY);
  receiver_state = 2;
  vTaskSuspend(NULL);
}

static void test_message_buffers(void) {
  messages = xMessageBufferCreate(32);
  // Each message costs its length word (configMESSAGE_BUFFER_LENGTH_TYPE, size_t) too.
  size_t sent1 = xMessageBufferSend(messages, "ab", 2, 0);
  size_t sent2 = xMessageBufferSend(messages, "cde", 3, 0);
  size_t space = xMessageBufferSpacesAvailable(messages);
  char small[2];
  char in[8];
  size_t first = xMessageBufferReceive(messages, in, sizeof in, 0);
  int first_ok = first == 2 && memcmp(in, "ab", 2) == 0;
  size_t too_small = xMessageBufferReceive(messages, small, sizeof small, 0);
  size_t second = xMessageBufferReceive(messages, in, sizeof in, 0);
  int second_ok = second == 3 && memcmp(in, "cde", 3) == 0;
  size_t none = xMessageBufferReceive(messages, in, sizeof in, 0);
  couplet_rtos_check(sent1 == 2 && sent2 == 3 && space == 32 - 2 * sizeof(size_t) - 5 && first_ok &&
                         too_small == 0 && second_ok && none == 0,
                     "message buffer: messages keep their bounds; one too long for the buffer stays",
                     "sent %u %u, space %u, received %u, %u (too small), %u, then %u", (unsigned)sent1,
                     (unsigned)sent2, (unsigned)space, (unsigned)first, (unsigned)too_small, (unsigned)second,
                     (unsigned)none);

  receiver_state = 0;
  received_len = 0;
  TaskHandle_t receiver = couplet_rtos_spawn(message_receiver_task, "mrecv", HELPER_STACK, HELPER_PRIORITY, NULL);
  int state_before = receiver_state;
  size_t sent = xMessageBufferSend(messages, "hello", 5, 0);
  couplet_rtos_check(state_before == 1 && sent == 5 && receiver_state == 2 && received_len == 5 &&
                         memcmp(received, "hello", 5) == 0 && xMessageBufferIsEmpty(messages) == pdTRUE,
                     "message buffer: a send wakes the blocked receiver with the whole message",
                     "state %d then %d, sent %u, received %u", state_before, receiver_state, (unsigned)sent,
                     (unsigned)received_len);
  retire(receiver);
  vMessageBufferDelete(messages);
}

// ----------------------------------------------------------------------------- notifications

#define INDEX_OTHER 1
#define INDEX_WAITED 2

static volatile uint32_t taken;

static void notified_task(void *arg) {
  (void)arg;
  receiver_state = 1;
  taken = ulTaskNotifyTakeIndexed(INDEX_WAITED, pdTRUE, portMAX_DELAY);
  receiver_state = 2;
  vTaskSuspend(NULL);
}

static void test_notifications(void) {
  receiver_state = 0;
  TaskHandle_t task = couplet_rtos_spawn(notified_task, "notified", HELPER_STACK, HELPER_PRIORITY, NULL);
  xTaskNotifyGiveIndexed(task, INDEX_OTHER);
  xTaskNotifyGive(task);  // index 0
  int state_other = receiver_state;
  eTaskState blocked = eTaskGetState(task);
  xTaskNotifyGiveIndexed(task, INDEX_WAITED);
  couplet_rtos_check(state_other == 1 && blocked == eBlocked && receiver_state == 2 && taken == 1,
                     "notify: a wait on one index ignores the others and wakes on its own",
                     "state %d (%d) after the other indexes, %d after its own, took %lu", state_other, (int)blocked,
                     receiver_state, (unsigned long)taken);
  // The gives to the other indexes are still pending there.
  uint32_t other = ulTaskNotifyValueClearIndexed(task, INDEX_OTHER, 0);
  BaseType_t pending0 = xTaskNotifyStateClearIndexed(task, 0);
  BaseType_t pending0_again = xTaskNotifyStateClearIndexed(task, 0);
  couplet_rtos_check(other == 1 && pending0 == pdTRUE && pending0_again == pdFALSE,
                     "notify: each index keeps its own value and state",
                     "other index %lu, index 0 pending %ld then %ld", (unsigned long)other, (long)pending0,
                     (long)pending0_again);
  retire(task);

  TaskHandle_t self = xTaskGetCurrentTaskHandle();
  BaseType_t set1 = xTaskNotifyIndexed(self, INDEX_OTHER, 5, eSetValueWithoutOverwrite);
  BaseType_t set1_again = xTaskNotifyIndexed(self, INDEX_OTHER, 6, eSetValueWithoutOverwrite);
  BaseType_t bits2 = xTaskNotifyIndexed(self, INDEX_WAITED, 0x100, eSetBits);
  xTaskNotifyIndexed(self, INDEX_WAITED, 0x001, eSetBits);
  uint32_t value2 = 0;
  BaseType_t got2 = xTaskNotifyWaitIndexed(INDEX_WAITED, 0, UINT32_MAX, &value2, 0);
  uint32_t value1 = 0;
  BaseType_t got1 = xTaskNotifyWaitIndexed(INDEX_OTHER, 0, 0, &value1, 0);
  uint32_t value0 = 0;
  BaseType_t got0 = xTaskNotifyWait(0, 0, &value0, 0);
  couplet_rtos_check(set1 == pdPASS && set1_again == pdFAIL && bits2 == pdPASS && got2 == pdTRUE && value2 == 0x101 &&
                         got1 == pdTRUE && value1 == 5 && got0 == pdFALSE,
                     "notify: set without overwrite fails while pending; bits accumulate per index",
                     "set %ld then %ld, index 2 %ld %lx, index 1 %ld %lu, index 0 %ld", (long)set1, (long)set1_again,
                     (long)got2, (unsigned long)value2, (long)got1, (unsigned long)value1, (long)got0);
}

// ----------------------------------------------------------------------------- abort delay

enum { WAIT_DELAY, WAIT_QUEUE, WAIT_SEMAPHORE, WAIT_MUTEX };
static volatile int wait_kind;
static volatile BaseType_t wait_result;
static volatile long wait_ticks;
static volatile unsigned waits_done;
static QueueHandle_t abort_queue;
static SemaphoreHandle_t abort_sem;
static SemaphoreHandle_t abort_mutex;  // held by the controller while the helper waits for it

// Waits as wait_kind says, records how it ended, suspends itself; the controller resumes it
// for the next kind.
static void aborted_task(void *arg) {
  (void)arg;
  for (;;) {
    TickType_t start = xTaskGetTickCount();
    TickType_t wake = start;
    uint32_t item = 0;
    switch (wait_kind) {
      case WAIT_DELAY:
        wait_result = xTaskDelayUntil(&wake, 50);  // pdTRUE: it did wait (aborted or not)
        break;
      case WAIT_QUEUE:
        wait_result = xQueueReceive(abort_queue, &item, portMAX_DELAY);
        break;
      case WAIT_SEMAPHORE:
        wait_result = xSemaphoreTake(abort_sem, portMAX_DELAY);
        break;
      case WAIT_MUTEX:
        wait_result = xSemaphoreTake(abort_mutex, portMAX_DELAY);
        break;
      default:
        wait_result = -1;
        break;
    }
    wait_ticks = (long)(xTaskGetTickCount() - start);
    waits_done++;
    vTaskSuspend(NULL);
  }
}

static void test_abort_delay(void) {
  // Fit the hardware kernels' accelerator (whole words, short): served by it there.
  abort_queue = xQueueCreate(2, sizeof(uint32_t));
  abort_sem = xSemaphoreCreateCounting(2, 0);
  abort_mutex = xSemaphoreCreateMutex();
  static const char *const kinds[] = {"a delay", "a queue receive", "a semaphore take", "a mutex take"};
  BaseType_t expected[] = {pdTRUE, errQUEUE_EMPTY, pdFALSE, pdFALSE};
  int all_ok = 1;
  char seen[160] = "";
  size_t used = 0;
  waits_done = 0;
  TaskHandle_t task = NULL;
  UBaseType_t inherited = 0;
  for (int kind = WAIT_DELAY; kind <= WAIT_MUTEX; kind++) {
    wait_kind = kind;
    TickType_t start = tick_start();
    if (kind == WAIT_MUTEX) {
      xSemaphoreTake(abort_mutex, 0);
    }
    if (task == NULL) {
      task = couplet_rtos_spawn(aborted_task, "aborted", HELPER_STACK, HELPER_PRIORITY, NULL);
    } else {
      vTaskResume(task);
    }
    eTaskState state = eTaskGetState(task);
    if (kind == WAIT_MUTEX) {
      inherited = uxTaskPriorityGet(NULL);
    }
    BaseType_t aborted = xTaskAbortDelay(task);
    // The mutex's holder runs at the waiter's priority until the waiter, running again, gives
    // the inherited priority back (FreeRTOS), so the two are equals here: let it run.
    taskYIELD();
    long at = ticks_since(start);
    int ok = state == eBlocked && aborted == pdPASS && waits_done == (unsigned)kind + 1 && wait_ticks == 0 && at == 0 &&
             wait_result == expected[kind] && eTaskGetState(task) == eSuspended;
    if (!ok && used < sizeof seen) {
      int n = snprintf(seen + used, sizeof seen - used, "[%s: state %d, abort %ld, done %u, result %ld, %ld ticks] ",
                       kinds[kind], (int)state, (long)aborted, waits_done, (long)wait_result, wait_ticks);
      used += n > 0 ? (size_t)n : 0;
    }
    all_ok = all_ok && ok;
  }
  couplet_rtos_check(all_ok, "abort delay: a delay and waits on a queue, a semaphore and a mutex end at once, failed",
                     "%s", seen);
  // The aborted waiter no longer raises the mutex's holder.
  UBaseType_t after_abort = uxTaskPriorityGet(NULL);
  BaseType_t released = xSemaphoreGive(abort_mutex);
  couplet_rtos_check(inherited == HELPER_PRIORITY && after_abort == CONTROLLER_PRIORITY && released == pdPASS,
                     "abort delay: the holder inherits while the waiter waits, not after the abort",
                     "holder at %lu while it waited, %lu after, give %ld", (unsigned long)inherited,
                     (unsigned long)after_abort, (long)released);

  // Nothing is lost to the aborted waiter: the queue and the semaphore keep what comes later.
  uint32_t item = 0x5a5a5a5a;
  BaseType_t sent = xQueueSend(abort_queue, &item, 0);
  BaseType_t gave = xSemaphoreGive(abort_sem);
  uint32_t got = 0;
  UBaseType_t queued = uxQueueMessagesWaiting(abort_queue);
  UBaseType_t count = uxSemaphoreGetCount(abort_sem);
  BaseType_t received = xQueueReceive(abort_queue, &got, 0);
  BaseType_t not_blocked = xTaskAbortDelay(task);  // suspended, not blocked
  couplet_rtos_check(sent == pdPASS && gave == pdPASS && queued == 1 && count == 1 && received == pdPASS &&
                         got == item && not_blocked == pdFAIL,
                     "abort delay: the objects keep a later send and give; a task not blocked is not aborted",
                     "sent %ld, gave %ld, queued %lu, count %lu, received %ld (%lx), abort %ld", (long)sent, (long)gave,
                     (unsigned long)queued, (unsigned long)count, (long)received, (unsigned long)got,
                     (long)not_blocked);
  retire(task);
  vQueueDelete(abort_queue);
  vSemaphoreDelete(abort_sem);
  vSemaphoreDelete(abort_mutex);
}

// ----------------------------------------------------------------------------- static allocation

static StaticTask_t static_tcb;
// The task only receives and gives: the smallest stack (its memory is .bss, outside the heap).
static StackType_t static_stack[configMINIMAL_STACK_SIZE];
static StaticQueue_t static_queue_buffer;
static uint8_t static_queue_storage[2 * 4 * sizeof(uint32_t)];
static StaticSemaphore_t static_counting_buffer, static_binary_buffer, static_mutex_buffer;
static QueueHandle_t static_queue;
static SemaphoreHandle_t static_counting, static_binary, static_mutex;
static volatile uint32_t static_got;

// Waits for an item on the static queue, then gives the static counting semaphore, for ever.
static void static_task(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t item[4];
    if (xQueueReceive(static_queue, item, portMAX_DELAY) == pdPASS) {
      static_got = item[0] + item[3];
      xSemaphoreGive(static_counting);
    }
  }
}

// Creates every kind of object in the app's own memory; NULL-free when all were made.
static int static_create(TaskHandle_t *task) {
  static_queue = xQueueCreateStatic(2, 4 * sizeof(uint32_t), static_queue_storage, &static_queue_buffer);
  static_counting = xSemaphoreCreateCountingStatic(3, 1, &static_counting_buffer);
  static_binary = xSemaphoreCreateBinaryStatic(&static_binary_buffer);
  static_mutex = xSemaphoreCreateMutexStatic(&static_mutex_buffer);
  // Above the controller: it runs at once and waits on the queue.
  *task = xTaskCreateStatic(static_task, "static", configMINIMAL_STACK_SIZE, NULL, HELPER_PRIORITY, static_stack, &static_tcb);
  return static_queue != NULL && static_counting != NULL && static_binary != NULL && static_mutex != NULL &&
         *task != NULL;
}

static void static_delete(TaskHandle_t task) {
  vTaskDelete(task);
  vQueueDelete(static_queue);
  vSemaphoreDelete(static_counting);
  vSemaphoreDelete(static_binary);
  vSemaphoreDelete(static_mutex);
}

// One round of use: a send wakes the task, which gives the counting semaphore back.
static int static_use(TaskHandle_t task, uint32_t base, char *seen, size_t size) {
  eTaskState waiting = eTaskGetState(task);
  static_got = 0;
  uint32_t item[4] = {base, base + 1, base + 2, base + 3};
  BaseType_t sent = xQueueSend(static_queue, item, 0);
  UBaseType_t count = uxSemaphoreGetCount(static_counting);
  BaseType_t took = xSemaphoreTake(static_counting, 0) && xSemaphoreTake(static_counting, 0);
  BaseType_t binary = xSemaphoreGive(static_binary) && xSemaphoreTake(static_binary, 0) &&
                      !xSemaphoreTake(static_binary, 0);
  BaseType_t locked = xSemaphoreTake(static_mutex, 0);
  TaskHandle_t holder = xSemaphoreGetMutexHolder(static_mutex);
  BaseType_t unlocked = xSemaphoreGive(static_mutex);
  int ok = waiting == eBlocked && sent == pdPASS && static_got == 2 * base + 3 && count == 2 && took && binary &&
           locked && holder == xTaskGetCurrentTaskHandle() && unlocked && eTaskGetState(task) == eBlocked;
  snprintf(seen, size, "state %d, sent %ld, got %lu, count %lu, took %ld, binary %ld, mutex %ld/%d/%ld", (int)waiting,
           (long)sent, (unsigned long)static_got, (unsigned long)count, (long)took, (long)binary, (long)locked,
           holder == xTaskGetCurrentTaskHandle(), (long)unlocked);
  return ok;
}

static void test_static_allocation(void) {
  UBaseType_t tasks_before = uxTaskGetNumberOfTasks();
  TaskHandle_t task = NULL;
  char seen[160] = "none created";
  int ok = static_create(&task) && static_use(task, 0x100, seen, sizeof seen);
  couplet_rtos_check(ok, "static: a task, a queue, semaphores and a mutex in the app's own memory work as the others",
                     "%s", seen);
#if COUPLET_RTOS_KERNEL_HW
  couplet_rtos_check(COUPLET_KERNEL_HW_IS(uxQueueCoupletHw(static_queue), COUPLET_KERNEL_HW_QUEUE) &&
                         COUPLET_KERNEL_HW_IS(uxQueueCoupletHw(static_counting), COUPLET_KERNEL_HW_SEM) &&
                         COUPLET_KERNEL_HW_IS(uxQueueCoupletHw(static_binary), COUPLET_KERNEL_HW_SEM) &&
                         COUPLET_KERNEL_HW_IS(uxQueueCoupletHw(static_mutex), COUPLET_KERNEL_HW_MUTEX),
                     "hw: the static queue, semaphores and mutex are the accelerator's", "%lx %lx %lx %lx",
                     (unsigned long)uxQueueCoupletHw(static_queue), (unsigned long)uxQueueCoupletHw(static_counting),
                     (unsigned long)uxQueueCoupletHw(static_binary), (unsigned long)uxQueueCoupletHw(static_mutex));
#endif
  // Deleted, then made again in the same memory: whatever they held (a thread node, the
  // accelerator's objects) came back, and they work the same.
  static_delete(task);
  UBaseType_t tasks_deleted = uxTaskGetNumberOfTasks();
  ok = static_create(&task) && static_use(task, 0x200, seen, sizeof seen);
  couplet_rtos_check(ok && tasks_deleted == tasks_before, "static: deleted and made again in the same memory, they work",
                     "%s; %lu tasks before, %lu after the deletion", seen, (unsigned long)tasks_before,
                     (unsigned long)tasks_deleted);
  static_delete(task);
}

// ----------------------------------------------------------------------------- controller

static void controller_task(void *arg) {
  (void)arg;
  printf("test_api: FreeRTOS %s, tick %u Hz, %u notification indexes\n", tskKERNEL_VERSION_NUMBER,
         (unsigned)configTICK_RATE_HZ, (unsigned)configTASK_NOTIFICATION_ARRAY_ENTRIES);
  test_delay_until();
  test_timers();
  test_event_groups();
  test_stream_buffers();
  test_message_buffers();
  test_notifications();
  test_abort_delay();
  test_static_allocation();
  printf("test_api: %d failed\n", couplet_rtos_failures());
  exit(couplet_rtos_exit_code());
}

void app_main(void) {
  couplet_rtos_spawn(controller_task, "control", 4 * configMINIMAL_STACK_SIZE, CONTROLLER_PRIORITY, NULL);
}
