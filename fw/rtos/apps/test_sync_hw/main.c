// test_sync_hw: semaphores and queues through the plain FreeRTOS API, as the hardware kernel
// (fw/rtos/kernel_hw, stage 2) serves them with the RTOS accelerator's objects.
//
// The behaviour checks run on every kernel variant and must pass alike: more objects than the
// accelerator has, items too large for it, timeouts that expire (the object stays usable, a
// later give is not lost to the task that gave up), a higher-priority waiter woken by a give or
// a send runs at once, a blocked receiver gets a 16-word message intact (into an aligned and an
// unaligned buffer), a blocked sender is woken by a receive and its message arrives; sends to the
// front, peeks (blocked too, beside a receiver) and resets keep FreeRTOS's order and wake-ups; a
// lower waiter woken by a give, send or unlock takes the count, item or mutex only when it runs.
// On the hardware kernel, checks named "hw: ..." also ask the kernel what serves each object
// (uxQueueCoupletHw): the first objects that fit are the accelerator's, the next one (or one that
// does not fit) is software, and deleting a hardware object frees it for the next creation.
//
// One controller task runs the checks; it prints "ok <check>" or "FAIL <check>: <detail>", and
// exits with the number of failed checks.

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#if COUPLET_RTOS_KERNEL_HW
#include "couplet_kernel_hw.h"
#define HW_OBJECTS 1
#else
#define HW_OBJECTS 0
#endif

#define CONTROLLER_PRIORITY (configMAX_PRIORITIES - 2)
#define HIGH_PRIORITY (configMAX_PRIORITIES - 1)
#define WORKER_STACK (2 * configMINIMAL_STACK_SIZE)
// One more than the accelerator's objects of each kind in the default SoC (4): the last one
// must fall back to software. The software kernel just makes 5 of each.
#define OBJECTS 5
#define HW_SEMS 4
#define HW_QUEUES 4
#define BIG_WORDS 16  // the accelerator's largest message


#if HW_OBJECTS
static int served_by(void *object, unsigned kind) { return COUPLET_KERNEL_HW_KIND(uxQueueCoupletHw(object)) == kind; }
static int is_software(void *object) { return uxQueueCoupletHw(object) == 0u; }
#endif

static uint32_t pattern(uint32_t seed, unsigned i) { return 0x9e3779b9u * (seed + 1u) ^ (i * 0x01010101u); }

// ----------------------------------------------------------------------------- many objects

static void test_semaphores(void) {
  SemaphoreHandle_t sems[OBJECTS];
  int works = 0;
  for (unsigned i = 0; i < OBJECTS; i++) {
    sems[i] = xSemaphoreCreateCounting(2 + i, 1);
  }
  for (unsigned i = 0; i < OBJECTS; i++) {
    // Initial 1, max 2 + i: one take, then gives up to the max, then a give too many fails.
    int ok = sems[i] != NULL && xSemaphoreTake(sems[i], 0) == pdTRUE && xSemaphoreTake(sems[i], 0) == pdFALSE;
    for (unsigned g = 0; g < 2 + i; g++) {
      ok = ok && xSemaphoreGive(sems[i]) == pdTRUE;
    }
    ok = ok && xSemaphoreGive(sems[i]) == pdFALSE && uxSemaphoreGetCount(sems[i]) == 2 + i;
    works += ok;
  }
  couplet_rtos_check(works == OBJECTS, "semaphore: 5 counting semaphores count, each to its own maximum", "%d of %d work", works,
        OBJECTS);
  SemaphoreHandle_t binary = xSemaphoreCreateBinary();
  int binary_ok = binary != NULL && xSemaphoreTake(binary, 0) == pdFALSE && xSemaphoreGive(binary) == pdTRUE &&
                  xSemaphoreGive(binary) == pdFALSE && xSemaphoreTake(binary, 0) == pdTRUE;
  couplet_rtos_check(binary_ok, "semaphore: a binary semaphore starts empty and holds one give", "it does not");
#if HW_OBJECTS
  int hw = 0;
  for (unsigned i = 0; i < HW_SEMS; i++) {
    hw += served_by(sems[i], COUPLET_KERNEL_HW_SEM);
  }
  couplet_rtos_check(hw == HW_SEMS && is_software(sems[HW_SEMS]) && is_software(binary),
        "hw: the first 4 semaphores are the accelerator's, the next ones software", "%d hardware, 5th %lx, binary %lx",
        hw, (unsigned long)uxQueueCoupletHw(sems[HW_SEMS]), (unsigned long)uxQueueCoupletHw(binary));
#endif
  // Deleting a hardware semaphore frees its object: the next binary semaphore gets it.
  vSemaphoreDelete(binary);
  vSemaphoreDelete(sems[1]);
  binary = xSemaphoreCreateBinary();
  binary_ok = binary != NULL && xSemaphoreTake(binary, 0) == pdFALSE && xSemaphoreGive(binary) == pdTRUE &&
              xSemaphoreTake(binary, 0) == pdTRUE;
  couplet_rtos_check(binary_ok, "semaphore: a semaphore made after a delete works", "it does not");
#if HW_OBJECTS
  couplet_rtos_check(served_by(binary, COUPLET_KERNEL_HW_SEM), "hw: deleting a hardware semaphore frees it for the next one",
        "the new one is %lx", (unsigned long)uxQueueCoupletHw(binary));
#endif
  vSemaphoreDelete(binary);
  for (unsigned i = 0; i < OBJECTS; i++) {
    if (i != 1) {
      vSemaphoreDelete(sems[i]);
    }
  }
}

typedef struct {
  uint32_t w[4];
} msg4_t;

static int queue_round_trip(QueueHandle_t q, unsigned length, uint32_t seed) {
  int ok = q != NULL;
  for (unsigned i = 0; ok && i < length; i++) {
    msg4_t m = {{pattern(seed, i), i, seed, ~i}};
    ok = xQueueSend(q, &m, 0) == pdTRUE;
  }
  msg4_t extra = {{0}};
  ok = ok && xQueueSend(q, &extra, 0) == errQUEUE_FULL && uxQueueMessagesWaiting(q) == length &&
       uxQueueSpacesAvailable(q) == 0;
  for (unsigned i = 0; ok && i < length; i++) {
    msg4_t m;
    ok = xQueueReceive(q, &m, 0) == pdTRUE && m.w[0] == pattern(seed, i) && m.w[1] == i && m.w[2] == seed &&
         m.w[3] == ~i;
  }
  msg4_t m;
  return ok && xQueueReceive(q, &m, 0) == errQUEUE_EMPTY && uxQueueMessagesWaiting(q) == 0;
}

static void test_queues(void) {
  QueueHandle_t queues[OBJECTS];
  int works = 0;
  for (unsigned i = 0; i < OBJECTS; i++) {
    queues[i] = xQueueCreate(1 + (i % 4), sizeof(msg4_t));
  }
  for (unsigned i = 0; i < OBJECTS; i++) {
    works += queue_round_trip(queues[i], 1 + (i % 4), i);
  }
  couplet_rtos_check(works == OBJECTS, "queue: 5 queues hold their messages in order, full and empty fail", "%d of %d work", works,
        OBJECTS);

  // Too large for the accelerator: 17 words, 6 bytes (not whole words), 5 deep. Software.
  typedef struct {
    uint32_t w[BIG_WORDS + 1];
  } msg17_t;
  QueueHandle_t deep = NULL;
  QueueHandle_t odd = NULL;
  QueueHandle_t big = NULL;
  // Free one hardware queue first, so that only the size can make these software.
  vQueueDelete(queues[0]);
  big = xQueueCreate(2, sizeof(msg17_t));
  odd = xQueueCreate(2, 6);
  deep = xQueueCreate(5, sizeof(msg4_t));
  msg17_t b = {{0}};
  for (unsigned i = 0; i <= BIG_WORDS; i++) {
    b.w[i] = pattern(17, i);
  }
  msg17_t got = {{0}};
  int big_ok = big != NULL && xQueueSend(big, &b, 0) == pdTRUE && xQueueReceive(big, &got, 0) == pdTRUE &&
               memcmp(&b, &got, sizeof b) == 0;
  char six[6] = "abcde";
  char six_got[6] = "";
  int odd_ok = odd != NULL && xQueueSend(odd, six, 0) == pdTRUE && xQueueReceive(odd, six_got, 0) == pdTRUE &&
               memcmp(six, six_got, 6) == 0;
  int deep_ok = queue_round_trip(deep, 5, 99);
  couplet_rtos_check(big_ok && odd_ok && deep_ok, "queue: queues of 17-word, 6-byte and 5-deep items work",
        "17 words %d, 6 bytes %d, 5 deep %d", big_ok, odd_ok, deep_ok);
#if HW_OBJECTS
  int hw = 0;
  for (unsigned i = 1; i < HW_QUEUES; i++) {
    hw += served_by(queues[i], COUPLET_KERNEL_HW_QUEUE);
  }
  couplet_rtos_check(hw == HW_QUEUES - 1 && is_software(queues[HW_QUEUES]) && is_software(big) && is_software(odd) &&
            is_software(deep),
        "hw: the first 4 queues are the accelerator's; the 5th and those that do not fit are software",
        "%d hardware, 5th %lx, big %lx, odd %lx, deep %lx", hw, (unsigned long)uxQueueCoupletHw(queues[HW_QUEUES]),
        (unsigned long)uxQueueCoupletHw(big), (unsigned long)uxQueueCoupletHw(odd),
        (unsigned long)uxQueueCoupletHw(deep));
#endif
  // The queue freed above is free for the next one that fits.
  queues[0] = xQueueCreate(3, sizeof(msg4_t));
  couplet_rtos_check(queue_round_trip(queues[0], 3, 42), "queue: a queue made after a delete works", "it does not");
#if HW_OBJECTS
  couplet_rtos_check(served_by(queues[0], COUPLET_KERNEL_HW_QUEUE), "hw: deleting a hardware queue frees it for the next one",
        "the new one is %lx", (unsigned long)uxQueueCoupletHw(queues[0]));
#endif
  vQueueDelete(big);
  vQueueDelete(odd);
  vQueueDelete(deep);
  for (unsigned i = 0; i < OBJECTS; i++) {
    vQueueDelete(queues[i]);
  }
}

// ----------------------------------------------------------------------------- timeouts

static void test_timeouts(void) {
  SemaphoreHandle_t sem = xSemaphoreCreateCounting(3, 0);
  vTaskDelay(1);  // start on a tick boundary
  TickType_t before = xTaskGetTickCount();
  BaseType_t took = xSemaphoreTake(sem, 3);
  TickType_t waited = xTaskGetTickCount() - before;
  couplet_rtos_check(took == pdFALSE && waited == 3, "timeout: a take on an empty semaphore fails after its 3 ticks",
        "result %ld after %lu ticks", (long)took, (unsigned long)waited);
  // The give after the timeout is not handed to the task that gave up: it counts.
  BaseType_t gave = xSemaphoreGive(sem);
  couplet_rtos_check(gave == pdTRUE && uxSemaphoreGetCount(sem) == 1 && xSemaphoreTake(sem, 0) == pdTRUE &&
            uxSemaphoreGetCount(sem) == 0,
        "timeout: the semaphore counts a later give and can be taken", "give %ld, count %lu", (long)gave,
        (unsigned long)uxSemaphoreGetCount(sem));
  vSemaphoreDelete(sem);

  QueueHandle_t q = xQueueCreate(1, sizeof(msg4_t));
  msg4_t m = {{1, 2, 3, 4}};
  msg4_t got = {{0}};
  vTaskDelay(1);
  before = xTaskGetTickCount();
  BaseType_t received = xQueueReceive(q, &got, 2);
  waited = xTaskGetTickCount() - before;
  couplet_rtos_check(received == errQUEUE_EMPTY && waited == 2, "timeout: a receive on an empty queue fails after its 2 ticks",
        "result %ld after %lu ticks", (long)received, (unsigned long)waited);
  BaseType_t sent = xQueueSend(q, &m, 0);
  before = xTaskGetTickCount();
  BaseType_t sent_again = xQueueSend(q, &m, 2);
  waited = xTaskGetTickCount() - before;
  couplet_rtos_check(sent == pdTRUE && sent_again == errQUEUE_FULL && waited >= 2,
        "timeout: a send to a full queue fails after its ticks", "first %ld, second %ld after %lu ticks", (long)sent,
        (long)sent_again, (unsigned long)waited);
  received = xQueueReceive(q, &got, 0);
  couplet_rtos_check(received == pdTRUE && memcmp(&got, &m, sizeof m) == 0 && uxQueueMessagesWaiting(q) == 0,
        "timeout: the queue still holds exactly the message sent", "result %ld, word 0 %lu, waiting %lu",
        (long)received, (unsigned long)got.w[0], (unsigned long)uxQueueMessagesWaiting(q));
  vQueueDelete(q);
}

// ----------------------------------------------------------------------------- wake-ups

static SemaphoreHandle_t wake_sem;
static volatile int waiter_state;  // 0 not started, 1 waiting, 2 took it

static void sem_waiter_task(void *arg) {
  (void)arg;
  waiter_state = 1;
  if (xSemaphoreTake(wake_sem, portMAX_DELAY) == pdTRUE) {
    waiter_state = 2;
  }
  vTaskDelete(NULL);
}

static void test_give_wakes_higher(void) {
  wake_sem = xSemaphoreCreateBinary();
  waiter_state = 0;
  // Runs at once and blocks.
  TaskHandle_t waiter = couplet_rtos_spawn(sem_waiter_task, "waiter", WORKER_STACK, HIGH_PRIORITY, NULL);
  couplet_rtos_check(waiter_state == 1 && eTaskGetState(waiter) == eBlocked, "wake: a higher-priority taker blocks on empty",
        "state %d, task state %ld", waiter_state, (long)eTaskGetState(waiter));
  xSemaphoreGive(wake_sem);
  // No delay: the waiter outranks us, so it ran inside the give.
  int state = waiter_state;
  couplet_rtos_check(state == 2 && uxSemaphoreGetCount(wake_sem) == 0, "wake: a give runs the higher-priority waiter at once",
        "state %d, count %lu", state, (unsigned long)uxSemaphoreGetCount(wake_sem));
  vTaskDelay(1);  // the waiter's deletion is finished by the idle task
  vSemaphoreDelete(wake_sem);
}

// Waiters of equal priority are served first come, first served (FreeRTOS's event lists), not
// by creation order: task 1 is created first but waits a tick before it takes.
static volatile int wake_order;  // a digit per task woken, in order

static void ordered_waiter_task(void *arg) {
  int id = (int)(uintptr_t)arg;
  if (id == 1) {
    vTaskDelay(1);
  }
  if (xSemaphoreTake(wake_sem, portMAX_DELAY) == pdTRUE) {
    wake_order = wake_order * 10 + id;
  }
  vTaskDelete(NULL);
}

static void test_wake_order(void) {
  wake_sem = xSemaphoreCreateBinary();
  wake_order = 0;
  couplet_rtos_spawn(ordered_waiter_task, "first", WORKER_STACK, HIGH_PRIORITY, (void *)1);
  couplet_rtos_spawn(ordered_waiter_task, "second", WORKER_STACK, HIGH_PRIORITY, (void *)2);
  vTaskDelay(2);  // 2 waits now, then 1
  xSemaphoreGive(wake_sem);
  int after_one = wake_order;
  xSemaphoreGive(wake_sem);
  couplet_rtos_check(after_one == 2 && wake_order == 21, "wake: equal-priority waiters are woken first come, first served",
                     "woken %d after one give, %d after two", after_one, wake_order);
  vTaskDelay(1);
  vSemaphoreDelete(wake_sem);
}

typedef struct {
  uint32_t w[BIG_WORDS];
} msg16_t;

static QueueHandle_t big_queue;
static msg16_t big_received;
static uint8_t unaligned_space[sizeof(msg16_t) + 4];
static volatile int receiver_state;

static void receiver_task(void *arg) {
  (void)arg;
  receiver_state = 1;
  if (xQueueReceive(big_queue, &big_received, portMAX_DELAY) == pdTRUE) {
    receiver_state = 2;
  }
  // Then into a buffer that is not word aligned.
  if (xQueueReceive(big_queue, &unaligned_space[1], portMAX_DELAY) == pdTRUE) {
    receiver_state = 3;
  }
  vTaskDelete(NULL);
}

static void test_big_message(void) {
  big_queue = xQueueCreate(2, sizeof(msg16_t));
  receiver_state = 0;
  memset(&big_received, 0, sizeof big_received);
  memset(unaligned_space, 0, sizeof unaligned_space);
  couplet_rtos_spawn(receiver_task, "receiver", WORKER_STACK, HIGH_PRIORITY, NULL);
  msg16_t m;
  for (unsigned i = 0; i < BIG_WORDS; i++) {
    m.w[i] = pattern(16, i);
  }
  int blocked = receiver_state == 1;
  xQueueSend(big_queue, &m, 0);
  int state = receiver_state;
  couplet_rtos_check(blocked && state == 2 && memcmp(&big_received, &m, sizeof m) == 0,
        "wake: a blocked receiver gets a 16-word message intact, at once", "blocked %d, state %d, word 15 %lx", blocked,
        state, (unsigned long)big_received.w[15]);
  for (unsigned i = 0; i < BIG_WORDS; i++) {
    m.w[i] = pattern(61, i);
  }
  xQueueSend(big_queue, &m, 0);
  state = receiver_state;
  couplet_rtos_check(state == 3 && memcmp(&unaligned_space[1], &m, sizeof m) == 0 && unaligned_space[0] == 0 &&
            unaligned_space[sizeof m + 1] == 0,
        "wake: and into an unaligned buffer, nothing around it touched", "state %d", state);
  vTaskDelay(1);
  vQueueDelete(big_queue);
}

static QueueHandle_t full_queue;
static volatile int sender_state;

static void sender_task(void *arg) {
  (void)arg;
  msg4_t m = {{0x5e4d, 2, 3, 4}};
  sender_state = 1;
  if (xQueueSend(full_queue, &m, portMAX_DELAY) == pdTRUE) {
    sender_state = 2;
  }
  vTaskDelete(NULL);
}

static void test_sender_woken(void) {
  full_queue = xQueueCreate(1, sizeof(msg4_t));
  msg4_t first = {{0xf1, 0, 0, 0}};
  xQueueSend(full_queue, &first, 0);
  sender_state = 0;
  couplet_rtos_spawn(sender_task, "sender", WORKER_STACK, HIGH_PRIORITY, NULL);
  int blocked = sender_state == 1;
  msg4_t got = {{0}};
  BaseType_t received = xQueueReceive(full_queue, &got, 0);
  // The receive made room: the sender ran at once and its message is in the queue.
  int state = sender_state;
  msg4_t second = {{0}};
  BaseType_t received_second = xQueueReceive(full_queue, &second, 0);
  couplet_rtos_check(blocked && received == pdTRUE && got.w[0] == 0xf1 && state == 2 && received_second == pdTRUE &&
            second.w[0] == 0x5e4d,
        "wake: a receive wakes a blocked sender, whose message arrives", "blocked %d, state %d, got %lx then %lx",
        blocked, state, (unsigned long)got.w[0], (unsigned long)second.w[0]);
  vTaskDelay(1);
  vQueueDelete(full_queue);
}

// ----------------------------------------------------------------------------- peek, front, reset

static msg4_t msg4(uint32_t first) {
  msg4_t m = {{first, ~first, first * 3u, 0x4d4d}};
  return m;
}

static int same(const msg4_t *a, const msg4_t *b) { return memcmp(a, b, sizeof *a) == 0; }

static QueueHandle_t peek_queue;
static msg4_t peeked;
static msg4_t received_after_peek;
static volatile int peeker_state;
static volatile int late_receiver_state;

static void peeker_task(void *arg) {
  (void)arg;
  peeker_state = 1;
  if (xQueuePeek(peek_queue, &peeked, portMAX_DELAY) == pdTRUE) {
    peeker_state = 2;
  }
  vTaskDelete(NULL);
}

static void late_receiver_task(void *arg) {
  (void)arg;
  late_receiver_state = 1;
  if (xQueueReceive(peek_queue, &received_after_peek, portMAX_DELAY) == pdTRUE) {
    late_receiver_state = 2;
  }
  vTaskDelete(NULL);
}

static QueueHandle_t front_queue;
static volatile int front_sender_state;

static void front_sender_task(void *arg) {
  (void)arg;
  msg4_t m = msg4(0xf0);
  front_sender_state = 1;
  if (xQueueSendToFront(front_queue, &m, portMAX_DELAY) == pdTRUE) {
    front_sender_state = 2;
  }
  vTaskDelete(NULL);
}

static void test_peek_front_reset(void) {
  // Order: A and B to the back, C to the front; a peek sees C and leaves it.
  QueueHandle_t q = xQueueCreate(3, sizeof(msg4_t));
  msg4_t a = msg4(0xa), b = msg4(0xb), c = msg4(0xc), got = msg4(0), got2 = msg4(0), got3 = msg4(0);
  msg4_t isr_peek = msg4(0);
  int ok = xQueueSend(q, &a, 0) == pdTRUE && xQueueSend(q, &b, 0) == pdTRUE && xQueueSendToFront(q, &c, 0) == pdTRUE;
  ok = ok && xQueuePeek(q, &got, 0) == pdTRUE && same(&got, &c) && uxQueueMessagesWaiting(q) == 3;
  ok = ok && xQueueSendToFront(q, &a, 0) == errQUEUE_FULL;
  ok = ok && xQueueReceive(q, &got, 0) == pdTRUE && same(&got, &c);
  taskENTER_CRITICAL();
  BaseType_t peeked_isr = xQueuePeekFromISR(q, &isr_peek);
  taskEXIT_CRITICAL();
  ok = ok && peeked_isr == pdTRUE && same(&isr_peek, &a) && uxQueueMessagesWaiting(q) == 2;
  ok = ok && xQueueReceive(q, &got2, 0) == pdTRUE && same(&got2, &a) && xQueueReceive(q, &got3, 0) == pdTRUE &&
       same(&got3, &b) && xQueuePeek(q, &got, 0) == errQUEUE_EMPTY;
  couplet_rtos_check(ok, "order: send to front, peek and peek from an ISR keep FreeRTOS's order",
                     "got %lx %lx %lx, isr peek %lx", (unsigned long)got.w[0], (unsigned long)got2.w[0],
                     (unsigned long)got3.w[0], (unsigned long)isr_peek.w[0]);
#if HW_OBJECTS
  int q_hw = served_by(q, COUPLET_KERNEL_HW_QUEUE);
#endif
  vQueueDelete(q);

  // xQueueOverwrite on a queue of length 1 replaces its message (and fills an empty one).
  QueueHandle_t one = xQueueCreate(1, sizeof(msg4_t));
  ok = one != NULL && xQueueOverwrite(one, &a) == pdPASS && xQueueOverwrite(one, &b) == pdPASS &&
       uxQueueMessagesWaiting(one) == 1 && xQueueReceive(one, &got, 0) == pdTRUE && same(&got, &b) &&
       xQueueReceive(one, &got2, 0) == errQUEUE_EMPTY;
  couplet_rtos_check(ok, "overwrite: xQueueOverwrite replaces the message of a queue of length 1", "got %lx",
                     (unsigned long)got.w[0]);
#if HW_OBJECTS
  int one_hw = served_by(one, COUPLET_KERNEL_HW_QUEUE);
#endif
  vQueueDelete(one);

  // A blocked peek sees a message, which stays in the queue; with a receiver waiting too, the
  // peeker sees it and the receiver gets it.
  peek_queue = xQueueCreate(2, sizeof(msg4_t));
  peeker_state = 0;
  couplet_rtos_spawn(peeker_task, "peeker", WORKER_STACK, HIGH_PRIORITY, NULL);
  int blocked = peeker_state == 1;
  msg4_t m = msg4(0x9ee);
  xQueueSend(peek_queue, &m, 0);
  int state = peeker_state;
  UBaseType_t waiting = uxQueueMessagesWaiting(peek_queue);
  ok = xQueueReceive(peek_queue, &got, 0) == pdTRUE && same(&got, &m);
  couplet_rtos_check(blocked && state == 2 && same(&peeked, &m) && waiting == 1 && ok,
                     "peek: a blocked peek runs at once with the message, which stays in the queue",
                     "blocked %d, state %d, peeked %lx, %lu waiting", blocked, state, (unsigned long)peeked.w[0],
                     (unsigned long)waiting);
  vTaskDelay(1);
  peeker_state = 0;
  late_receiver_state = 0;
  memset(&peeked, 0, sizeof peeked);
  couplet_rtos_spawn(peeker_task, "peeker", WORKER_STACK, HIGH_PRIORITY, NULL);
  couplet_rtos_spawn(late_receiver_task, "receiver", WORKER_STACK, CONTROLLER_PRIORITY, NULL);
  vTaskDelay(1);  // the receiver (our priority) runs and blocks
  blocked = peeker_state == 1 && late_receiver_state == 1;
  m = msg4(0x9ef);
  xQueueSend(peek_queue, &m, 0);
  vTaskDelay(1);  // the receiver runs
  couplet_rtos_check(blocked && peeker_state == 2 && late_receiver_state == 2 && same(&peeked, &m) &&
                         same(&received_after_peek, &m) && uxQueueMessagesWaiting(peek_queue) == 0,
                     "peek: with a peeker and a receiver waiting, both get the message, once",
                     "blocked %d, states %d %d, peeked %lx, received %lx, %lu waiting", blocked, peeker_state,
                     late_receiver_state, (unsigned long)peeked.w[0], (unsigned long)received_after_peek.w[0],
                     (unsigned long)uxQueueMessagesWaiting(peek_queue));
#if HW_OBJECTS
  int peek_hw = served_by(peek_queue, COUPLET_KERNEL_HW_QUEUE);
#endif
  vQueueDelete(peek_queue);

  // A blocked send to the front goes ahead of the message already queued.
  front_queue = xQueueCreate(2, sizeof(msg4_t));
  xQueueSend(front_queue, &a, 0);
  xQueueSend(front_queue, &b, 0);
  front_sender_state = 0;
  couplet_rtos_spawn(front_sender_task, "front", WORKER_STACK, HIGH_PRIORITY, NULL);
  blocked = front_sender_state == 1;
  msg4_t f = msg4(0xf0);
  ok = xQueueReceive(front_queue, &got, 0) == pdTRUE && same(&got, &a);
  state = front_sender_state;
  ok = ok && xQueueReceive(front_queue, &got2, 0) == pdTRUE && same(&got2, &f) &&
       xQueueReceive(front_queue, &got3, 0) == pdTRUE && same(&got3, &b);
  couplet_rtos_check(blocked && state == 2 && ok, "front: a blocked send to the front is woken and goes ahead",
                     "blocked %d, state %d, got %lx %lx %lx", blocked, state, (unsigned long)got.w[0],
                     (unsigned long)got2.w[0], (unsigned long)got3.w[0]);
  vTaskDelay(1);

  // xQueueReset empties a full queue and wakes the sender blocked on it, whose message is then
  // the only one.
  full_queue = front_queue;
  xQueueSend(full_queue, &a, 0);
  xQueueSend(full_queue, &b, 0);
  sender_state = 0;
  couplet_rtos_spawn(sender_task, "sender", WORKER_STACK, HIGH_PRIORITY, NULL);
  blocked = sender_state == 1;
  BaseType_t reset = xQueueReset(full_queue);
  state = sender_state;
  waiting = uxQueueMessagesWaiting(full_queue);
  ok = xQueueReceive(full_queue, &got, 0) == pdTRUE && got.w[0] == 0x5e4d && xQueueReceive(full_queue, &got2, 0) == errQUEUE_EMPTY;
  couplet_rtos_check(blocked && reset == pdPASS && state == 2 && waiting == 1 && ok,
                     "reset: xQueueReset empties the queue and wakes the blocked sender",
                     "blocked %d, reset %ld, state %d, %lu waiting, got %lx", blocked, (long)reset, state,
                     (unsigned long)waiting, (unsigned long)got.w[0]);
  vTaskDelay(1);
#if HW_OBJECTS
  int front_hw = served_by(front_queue, COUPLET_KERNEL_HW_QUEUE);
#endif
  vQueueDelete(front_queue);

  // A peek at a semaphore leaves its count; a reset takes it all.
  SemaphoreHandle_t sem = xSemaphoreCreateCounting(5, 3);
  BaseType_t sem_peek = xQueuePeek((QueueHandle_t)sem, NULL, 0);
  UBaseType_t after_peek = uxSemaphoreGetCount(sem);
  xQueueReset((QueueHandle_t)sem);
  UBaseType_t after_reset = uxSemaphoreGetCount(sem);
  BaseType_t empty_peek = xQueuePeek((QueueHandle_t)sem, NULL, 0);
  couplet_rtos_check(sem_peek == pdTRUE && after_peek == 3 && after_reset == 0 && empty_peek == pdFALSE,
                     "semaphore: a peek leaves the count, a reset takes it all", "peek %ld, count %lu then %lu, peek %ld",
                     (long)sem_peek, (unsigned long)after_peek, (unsigned long)after_reset, (long)empty_peek);
#if HW_OBJECTS
  couplet_rtos_check(q_hw && one_hw && peek_hw && front_hw && served_by(sem, COUPLET_KERNEL_HW_SEM),
                     "hw: the queues and the semaphore that peek, overwrite, send to the front and reset are the accelerator's",
                     "queues %d %d %d %d, semaphore %lx", q_hw, one_hw, peek_hw, front_hw, (unsigned long)uxQueueCoupletHw(sem));
#endif
  vSemaphoreDelete(sem);
}

// ----------------------------------------------------------------------------- mutexes

#define MUTEX_LOW 1
#define MUTEX_MID 3

static SemaphoreHandle_t mutex_a;  // held by the low task
static SemaphoreHandle_t mutex_b;  // held by the middle task, which waits for mutex_a
static SemaphoreHandle_t go;       // the controller lets the low task give mutex_a back
static volatile int mutex_steps;   // a digit per step, in order: see the tasks
static volatile BaseType_t high_took;

static void note(int digit) { mutex_steps = mutex_steps * 10 + digit; }

static void mutex_low_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(mutex_a, 0) == pdTRUE) {
    note(1);
    xSemaphoreTake(go, portMAX_DELAY);
    note(2);
    xSemaphoreGive(mutex_a);
  }
  vTaskDelete(NULL);
}

static void mutex_mid_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(mutex_b, 0) == pdTRUE && xSemaphoreTake(mutex_a, portMAX_DELAY) == pdTRUE) {
    note(3);
    xSemaphoreGive(mutex_a);
    xSemaphoreGive(mutex_b);
  }
  vTaskDelete(NULL);
}

// Takes mutex_b with the wait given as its argument (ticks).
static void mutex_high_task(void *arg) {
  high_took = xSemaphoreTake(mutex_b, (TickType_t)(uintptr_t)arg);
  if (high_took == pdTRUE) {
    note(4);
    xSemaphoreGive(mutex_b);
  }
  vTaskDelete(NULL);
}

static void test_mutexes(void) {
  mutex_a = xSemaphoreCreateMutex();
  mutex_b = xSemaphoreCreateMutex();
  go = xSemaphoreCreateBinary();
  mutex_steps = 0;
  // A chain: low holds a; middle holds b and waits for a; high waits for b. The waits raise the
  // owners: middle to high's priority, low to middle's only (FreeRTOS's inheritance stops at the
  // first owner: high's wait raises middle, not the low task middle waits for).
  TaskHandle_t low = couplet_rtos_spawn(mutex_low_task, "m_low", WORKER_STACK, MUTEX_LOW, NULL);
  vTaskDelay(1);  // low runs, takes a, waits for go
  TaskHandle_t mid = couplet_rtos_spawn(mutex_mid_task, "m_mid", WORKER_STACK, MUTEX_MID, NULL);
  vTaskDelay(1);  // middle runs, takes b, waits for a
  UBaseType_t low_by_mid = uxTaskPriorityGet(low);
  couplet_rtos_spawn(mutex_high_task, "m_high", WORKER_STACK, HIGH_PRIORITY, (void *)(uintptr_t)portMAX_DELAY);
  UBaseType_t mid_by_high = uxTaskPriorityGet(mid);
  UBaseType_t low_by_chain = uxTaskPriorityGet(low);
  int holders = xSemaphoreGetMutexHolder(mutex_a) == low && xSemaphoreGetMutexHolder(mutex_b) == mid &&
                uxSemaphoreGetCount(mutex_a) == 0;
  couplet_rtos_check(low_by_mid == MUTEX_MID && mid_by_high == HIGH_PRIORITY && low_by_chain == MUTEX_MID && holders,
                     "mutex: waiters raise their mutexes' holders, not along a chain",
                     "low %lu then %lu, middle %lu, holders %d", (unsigned long)low_by_mid, (unsigned long)low_by_chain,
                     (unsigned long)mid_by_high, holders);
#if HW_OBJECTS
  couplet_rtos_check(served_by(mutex_a, COUPLET_KERNEL_HW_MUTEX) && served_by(mutex_b, COUPLET_KERNEL_HW_MUTEX),
                     "hw: the mutexes are the accelerator's", "mutexes %lx %lx",
                     (unsigned long)uxQueueCoupletHw(mutex_a), (unsigned long)uxQueueCoupletHw(mutex_b));
#endif
  // Let go: low gives a to middle, which gives a and b, b goes to high.
  xSemaphoreGive(go);
  vTaskDelay(2);
  couplet_rtos_check(mutex_steps == 1234 && high_took == pdTRUE && uxSemaphoreGetCount(mutex_a) == 1 &&
                         uxSemaphoreGetCount(mutex_b) == 1 && xSemaphoreGetMutexHolder(mutex_a) == NULL,
                     "mutex: the chain unwinds in order and both mutexes are free", "steps %d, high %ld",
                     mutex_steps, (long)high_took);

  // A wait that times out gives the holder's priority back; a base priority set meanwhile stays.
  mutex_steps = 0;
  low = couplet_rtos_spawn(mutex_mid_task, "m_mid", WORKER_STACK, MUTEX_LOW, NULL);  // holds b, waits for a
  xSemaphoreTake(mutex_a, 0);  // the controller holds a
  vTaskDelay(1);
  couplet_rtos_spawn(mutex_high_task, "m_high", WORKER_STACK, HIGH_PRIORITY, (void *)(uintptr_t)2);
  UBaseType_t raised = uxTaskPriorityGet(low);
  vTaskPrioritySet(low, MUTEX_MID);
  UBaseType_t after_set = uxTaskPriorityGet(low);
  vTaskDelay(3);  // high's 2 ticks run out
  UBaseType_t after_timeout = uxTaskPriorityGet(low);
  BaseType_t timed_out = high_took;
  xSemaphoreGive(mutex_a);
  vTaskDelay(1);
  couplet_rtos_check(raised == HIGH_PRIORITY && after_set == HIGH_PRIORITY && after_timeout == MUTEX_MID &&
                         timed_out == pdFALSE && mutex_steps == 3,
                     "mutex: a timed-out waiter gives the holder's priority back, to its new base",
                     "raised %lu, after set %lu, after timeout %lu, high %ld, steps %d", (unsigned long)raised,
                     (unsigned long)after_set, (unsigned long)after_timeout, (long)timed_out, mutex_steps);

  // Recursive: held twice, free after two gives.
  SemaphoreHandle_t rec = xSemaphoreCreateRecursiveMutex();
  int rec_ok = rec != NULL && xSemaphoreTakeRecursive(rec, 0) == pdTRUE && xSemaphoreTakeRecursive(rec, 0) == pdTRUE &&
               xSemaphoreGetMutexHolder(rec) == xTaskGetCurrentTaskHandle() && xSemaphoreGiveRecursive(rec) == pdTRUE &&
               uxSemaphoreGetCount(rec) == 0 && xSemaphoreGiveRecursive(rec) == pdTRUE && uxSemaphoreGetCount(rec) == 1 &&
               xSemaphoreGetMutexHolder(rec) == NULL && xSemaphoreGiveRecursive(rec) == pdFAIL;
  couplet_rtos_check(rec_ok, "mutex: a recursive mutex is free after as many gives as takes", "it is not");
#if HW_OBJECTS
  // The default SoC has 4: with a, b and rec, one more can be made, then none.
  SemaphoreHandle_t fourth = xSemaphoreCreateMutex();
  SemaphoreHandle_t fifth = xSemaphoreCreateMutex();
  vSemaphoreDelete(rec);
  rec = xSemaphoreCreateMutex();
  couplet_rtos_check(fourth != NULL && fifth == NULL && rec != NULL && served_by(rec, COUPLET_KERNEL_HW_MUTEX),
                     "hw: a 5th mutex is refused (NULL) and a deleted one frees its place",
                     "fourth %d, fifth %d, again %d", fourth != NULL, fifth != NULL, rec != NULL);
  vSemaphoreDelete(fourth);
#endif
  vSemaphoreDelete(rec);
  vSemaphoreDelete(go);
  vSemaphoreDelete(mutex_a);
  vSemaphoreDelete(mutex_b);
}

// ----------------------------------------------------------------------------- two mutexes held
// FreeRTOS's rule for a task that holds several mutexes (uxMutexesHeld): an inherited priority
// stays until the task has given back every mutex it holds, whichever it gives first, and a
// waiter that times out lowers it only when it is the one mutex the holder holds. (The checks of
// FreeRTOS's own GenQTest demo, written here.)

static SemaphoreHandle_t two_waited;  // the high task waits for this one
static SemaphoreHandle_t two_other;   // the low task holds it too, nobody waits for it
static volatile UBaseType_t two_after_first, two_after_second;

// Takes both mutexes, waits for `go`, gives them back: the waited one first if arg is non-zero.
static void two_low_task(void *arg) {
  int waited_first = arg != NULL;
  if (xSemaphoreTake(two_waited, 0) == pdTRUE && xSemaphoreTake(two_other, 0) == pdTRUE) {
    note(1);
    xSemaphoreTake(go, portMAX_DELAY);
    xSemaphoreGive(waited_first ? two_waited : two_other);
    two_after_first = uxTaskPriorityGet(NULL);
    note(2);
    xSemaphoreGive(waited_first ? two_other : two_waited);
    two_after_second = uxTaskPriorityGet(NULL);
    note(3);
  }
  vTaskDelete(NULL);
}

static void two_high_task(void *arg) {
  high_took = xSemaphoreTake(two_waited, (TickType_t)(uintptr_t)arg);
  if (high_took == pdTRUE) {
    note(4);
    xSemaphoreGive(two_waited);
  }
  vTaskDelete(NULL);
}

// One run: low takes both, high waits for the one (forever), low gives them back in the order
// asked. Returns low's priority once high waits.
static UBaseType_t two_mutex_run(int waited_first) {
  mutex_steps = 0;
  two_after_first = two_after_second = 0;
  TaskHandle_t low = couplet_rtos_spawn(two_low_task, "two_low", WORKER_STACK, MUTEX_LOW,
                                        waited_first ? (void *)1 : NULL);
  vTaskDelay(1);  // low takes both and waits for go
  couplet_rtos_spawn(two_high_task, "two_high", WORKER_STACK, HIGH_PRIORITY, (void *)(uintptr_t)portMAX_DELAY);
  UBaseType_t raised = uxTaskPriorityGet(low);
  xSemaphoreGive(go);  // low (raised above the controller) runs at once
  vTaskDelay(2);
  return raised;
}

static void test_two_mutexes(void) {
  two_waited = xSemaphoreCreateMutex();
  two_other = xSemaphoreCreateMutex();
  go = xSemaphoreCreateBinary();

  // The other one first: low still holds the waited one, keeps high's priority; the waited one
  // goes to high, which runs at once (it outranks low, back at its base).
  UBaseType_t raised = two_mutex_run(0);
  couplet_rtos_check(raised == HIGH_PRIORITY && two_after_first == HIGH_PRIORITY && two_after_second == MUTEX_LOW &&
                         mutex_steps == 1243 && high_took == pdTRUE,
                     "mutex: two held, the other given first: the inherited priority stays until both are given",
                     "raised %lu, after the first give %lu, after the second %lu, steps %d", (unsigned long)raised,
                     (unsigned long)two_after_first, (unsigned long)two_after_second, mutex_steps);

  // The waited one first: it goes to high, but low still holds the other, so it keeps high's
  // priority and runs on (high does not outrank it) until it gives that one too: high runs
  // inside that second give.
  raised = two_mutex_run(1);
  couplet_rtos_check(raised == HIGH_PRIORITY && two_after_first == HIGH_PRIORITY && two_after_second == MUTEX_LOW &&
                         mutex_steps == 1243 && high_took == pdTRUE,
                     "mutex: two held, the waited one given first: the priority stays until the last give",
                     "raised %lu, after the first give %lu, after the second %lu, steps %d", (unsigned long)raised,
                     (unsigned long)two_after_first, (unsigned long)two_after_second, mutex_steps);

  // A waiter that times out while the holder holds two mutexes leaves it raised; with one, it
  // brings it back down (the earlier test: "a timed-out waiter gives the holder's priority back").
  mutex_steps = 0;
  TaskHandle_t low = couplet_rtos_spawn(two_low_task, "two_low", WORKER_STACK, MUTEX_LOW, NULL);
  vTaskDelay(1);
  couplet_rtos_spawn(two_high_task, "two_high", WORKER_STACK, HIGH_PRIORITY, (void *)(uintptr_t)2);
  UBaseType_t before = uxTaskPriorityGet(low);
  vTaskDelay(3);  // high's 2 ticks run out
  UBaseType_t after_timeout = uxTaskPriorityGet(low);
  xSemaphoreGive(go);
  vTaskDelay(2);
  couplet_rtos_check(before == HIGH_PRIORITY && after_timeout == HIGH_PRIORITY && high_took == pdFALSE &&
                         two_after_second == MUTEX_LOW && mutex_steps == 123,
                     "mutex: a timed-out waiter leaves the priority of a holder of two mutexes",
                     "before %lu, after the timeout %lu, high %ld, at the end %lu, steps %d", (unsigned long)before,
                     (unsigned long)after_timeout, (long)high_took, (unsigned long)two_after_second, mutex_steps);

  vSemaphoreDelete(go);
  vSemaphoreDelete(two_waited);
  vSemaphoreDelete(two_other);
}

// ----------------------------------------------------------------------------- deleting
// FreeRTOS lets a task that holds a mutex be deleted (the mutex stays held: a take fails, the
// mutex can still be deleted), and a held mutex be deleted.

static void holder_task(void *arg) {
  xSemaphoreTake((SemaphoreHandle_t)arg, 0);
  vTaskSuspend(NULL);
}

#if HW_OBJECTS
// Valid thread nodes in the accelerator (CURRENT's value).
static uint32_t hw_threads(void) { return couplet_rtos_value(COUPLET_KERNEL_HW_CALL(current, 0, 0)); }
#endif

static void test_deleting(void) {
  SemaphoreHandle_t m = xSemaphoreCreateMutex();
#if HW_OBJECTS
  uint32_t threads_before = hw_threads();
#endif
  TaskHandle_t holder = couplet_rtos_spawn(holder_task, "holder", WORKER_STACK, CONTROLLER_PRIORITY + 1, m);
  int held = xSemaphoreGetMutexHolder(m) == holder;
  vTaskDelete(holder);
  vTaskDelay(1);  // the idle task frees its memory
  BaseType_t took = xSemaphoreTake(m, 0);
  vSemaphoreDelete(m);
  SemaphoreHandle_t again = xSemaphoreCreateMutex();
  int again_ok = again != NULL && xSemaphoreTake(again, 0) == pdTRUE && xSemaphoreGive(again) == pdTRUE;
#if HW_OBJECTS
  uint32_t threads_after = hw_threads();
#else
  uint32_t threads_before = 0, threads_after = 0;
#endif
  couplet_rtos_check(held && took == pdFALSE && again_ok && threads_after == threads_before,
                     "delete: a task that holds a mutex can be deleted, the mutex stays held, then can be deleted",
                     "held %d, took %ld, again %d, threads %lu then %lu", held, (long)took, again_ok,
                     (unsigned long)threads_before, (unsigned long)threads_after);

  // The holder deletes the mutex it holds; the next one works.
  BaseType_t took_own = xSemaphoreTake(again, 0);
  vSemaphoreDelete(again);
  SemaphoreHandle_t third = xSemaphoreCreateMutex();
  int third_ok = third != NULL && xSemaphoreTake(third, 0) == pdTRUE && xSemaphoreGive(third) == pdTRUE;
  couplet_rtos_check(took_own == pdTRUE && third_ok, "delete: a held mutex can be deleted, and the next one works",
                     "took %ld, next %d", (long)took_own, third_ok);
  vSemaphoreDelete(third);
}

// A task that deletes a mutex it holds: FreeRTOS does not take that mutex off the task's count of
// mutexes held (uxMutexesHeld), so a task at an inherited priority keeps it after giving back its
// other mutex. The low task holds two mutexes, a higher task waits for the first, and the low
// task deletes the second and gives the first back.
static SemaphoreHandle_t kept_first;
static SemaphoreHandle_t kept_second;
static SemaphoreHandle_t kept_go;
static volatile UBaseType_t kept_priority[2];  // the low task's priority before and after its give

static void kept_low_task(void *arg) {
  (void)arg;
  xSemaphoreTake(kept_first, 0);
  xSemaphoreTake(kept_second, 0);
  xSemaphoreTake(kept_go, portMAX_DELAY);  // meanwhile the higher task waits for kept_first
  kept_priority[0] = uxTaskPriorityGet(NULL);
  vSemaphoreDelete(kept_second);
  xSemaphoreGive(kept_first);
  kept_priority[1] = uxTaskPriorityGet(NULL);
  vTaskSuspend(NULL);
}

static void kept_high_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(kept_first, portMAX_DELAY) == pdTRUE) {
    xSemaphoreGive(kept_first);
  }
  vTaskSuspend(NULL);
}

static void test_deleted_held_mutex_still_counts(void) {
  kept_first = xSemaphoreCreateMutex();
  kept_second = xSemaphoreCreateMutex();
  kept_go = xSemaphoreCreateBinary();
  kept_priority[0] = kept_priority[1] = 0;
  TaskHandle_t low = couplet_rtos_spawn(kept_low_task, "low", WORKER_STACK, MUTEX_LOW, NULL);
  vTaskDelay(1);  // low takes both mutexes and waits for kept_go
  TaskHandle_t high = couplet_rtos_spawn(kept_high_task, "high", WORKER_STACK, MUTEX_MID, NULL);
  vTaskDelay(1);  // high waits for kept_first: low inherits its priority
  xSemaphoreGive(kept_go);
  vTaskDelay(1);  // low deletes kept_second, gives kept_first back; high takes it and gives it back
  couplet_rtos_check(kept_priority[0] == MUTEX_MID && kept_priority[1] == MUTEX_MID,
                     "delete: a task that deleted a mutex it held keeps an inherited priority after its other give",
                     "priority %lu before the give, %lu after", (unsigned long)kept_priority[0],
                     (unsigned long)kept_priority[1]);
  vTaskDelete(low);
  vTaskDelete(high);
  vTaskDelay(1);
  vSemaphoreDelete(kept_first);
  vSemaphoreDelete(kept_go);
}

// ----------------------------------------------------------------------------- woken, then taken

// FreeRTOS's rule for a give, send or unlock that finds a waiter: the count, the message or the
// free mutex stays in the object and the waiter is only woken, to take it when it runs. A task
// that runs before it may take it first; the waiter then waits again. Here each waiter has the
// lowest priority, so the controller, which gives, sends or unlocks, runs on and takes it back.
#define LATE_PRIORITY 1

static SemaphoreHandle_t late_sem;
static QueueHandle_t late_queue;
static SemaphoreHandle_t late_mutex;
static volatile uint32_t late_got;  // what the low waiter took: 1 (the count, the mutex) or the item

static void late_taker_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(late_sem, portMAX_DELAY) == pdTRUE) {
    late_got = 1;
  }
  vTaskDelete(NULL);
}

static void low_receiver_task(void *arg) {
  (void)arg;
  uint32_t item = 0;
  if (xQueueReceive(late_queue, &item, portMAX_DELAY) == pdTRUE) {
    late_got = item;
  }
  vTaskDelete(NULL);
}

static void late_locker_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(late_mutex, portMAX_DELAY) == pdTRUE) {
    late_got = 1;
    xSemaphoreGive(late_mutex);
  }
  vTaskDelete(NULL);
}

static void test_woken_takes_when_it_runs(void) {
  // A semaphore: the give counts; the controller takes the count back; the waiter waits on.
  late_sem = xSemaphoreCreateBinary();
  late_got = 0;
  TaskHandle_t taker = couplet_rtos_spawn(late_taker_task, "taker", WORKER_STACK, LATE_PRIORITY, NULL);
  vTaskDelay(1);  // the taker runs and blocks
  BaseType_t gave = xSemaphoreGive(late_sem);
  UBaseType_t count = uxSemaphoreGetCount(late_sem);
  BaseType_t took = xSemaphoreTake(late_sem, 0);
  vTaskDelay(1);  // the taker runs, finds nothing and waits again
  eTaskState waits = eTaskGetState(taker);
  uint32_t before = late_got;
  xSemaphoreGive(late_sem);
  vTaskDelay(1);
  couplet_rtos_check(gave == pdTRUE && count == 1 && took == pdTRUE && waits == eBlocked && before == 0 && late_got == 1,
                     "woken: a give to a lower waiter counts; a task that runs first takes it; the waiter waits on",
                     "gave %ld, count %lu, took %ld, state %ld, got %lu then %lu", (long)gave, (unsigned long)count,
                     (long)took, (long)waits, (unsigned long)before, (unsigned long)late_got);
  vSemaphoreDelete(late_sem);

  // A queue: the sent item is stored; the controller receives the oldest, the waiter the next.
  late_queue = xQueueCreate(2, sizeof(uint32_t));
  late_got = 0;
  couplet_rtos_spawn(low_receiver_task, "receiver", WORKER_STACK, LATE_PRIORITY, NULL);
  vTaskDelay(1);
  uint32_t first = 11, second = 22, mine = 0;
  xQueueSend(late_queue, &first, 0);
  UBaseType_t stored = uxQueueMessagesWaiting(late_queue);
  xQueueSend(late_queue, &second, 0);
  UBaseType_t stored2 = uxQueueMessagesWaiting(late_queue);
  BaseType_t received = xQueueReceive(late_queue, &mine, 0);
  vTaskDelay(1);
  couplet_rtos_check(stored == 1 && stored2 == 2 && received == pdTRUE && mine == first && late_got == second,
                     "woken: a send to a lower receiver stores the item; a task that runs first receives the oldest",
                     "stored %lu then %lu, received %ld: %lu, the receiver %lu", (unsigned long)stored,
                     (unsigned long)stored2, (long)received, (unsigned long)mine, (unsigned long)late_got);
  vQueueDelete(late_queue);

  // A mutex: the unlock frees it; the controller locks it again first; the waiter waits on.
  late_mutex = xSemaphoreCreateMutex();
  late_got = 0;
  xSemaphoreTake(late_mutex, 0);
  TaskHandle_t locker = couplet_rtos_spawn(late_locker_task, "locker", WORKER_STACK, LATE_PRIORITY, NULL);
  vTaskDelay(1);  // the locker runs and waits for the mutex
  xSemaphoreGive(late_mutex);
  TaskHandle_t holder = xSemaphoreGetMutexHolder(late_mutex);
  BaseType_t relocked = xSemaphoreTake(late_mutex, 0);
  vTaskDelay(1);  // the locker runs, finds it held and waits again
  eTaskState locker_waits = eTaskGetState(locker);
  uint32_t locked_before = late_got;
  xSemaphoreGive(late_mutex);
  vTaskDelay(1);
  couplet_rtos_check(holder == NULL && relocked == pdTRUE && locker_waits == eBlocked && locked_before == 0 &&
                         late_got == 1,
                     "woken: an unlock with a lower waiter frees the mutex; a task that runs first locks it again",
                     "holder %p, relocked %ld, state %ld, got %lu then %lu", (void *)holder, (long)relocked,
                     (long)locker_waits, (unsigned long)locked_before, (unsigned long)late_got);
  vSemaphoreDelete(late_mutex);
}

// ----------------------------------------------------------------------------- ISR forms

// The FromISR calls, made with interrupts masked from the controller (as a handler would run):
// a give that wakes a higher-priority waiter reports it and the waiter runs at the next yield.
static void test_from_isr(void) {
  wake_sem = xSemaphoreCreateBinary();
  waiter_state = 0;
  couplet_rtos_spawn(sem_waiter_task, "waiter", WORKER_STACK, HIGH_PRIORITY, NULL);
  BaseType_t woken = pdFALSE;
  taskENTER_CRITICAL();
  BaseType_t gave = xSemaphoreGiveFromISR(wake_sem, &woken);
  int state_inside = waiter_state;
  taskEXIT_CRITICAL();
  taskYIELD();
  int state_after = waiter_state;
  couplet_rtos_check(gave == pdTRUE && woken == pdTRUE && state_inside == 1 && state_after == 2,
        "isr: a give from an ISR wakes the higher waiter, which runs at the yield", "gave %ld, woken %ld, state %d then %d",
        (long)gave, (long)woken, state_inside, state_after);
  vTaskDelay(1);
  vSemaphoreDelete(wake_sem);

  QueueHandle_t q = xQueueCreate(2, sizeof(msg4_t));
  msg4_t m = {{7, 8, 9, 10}};
  msg4_t got = {{0}};
  woken = pdFALSE;
  taskENTER_CRITICAL();
  BaseType_t sent = xQueueSendFromISR(q, &m, &woken);
  BaseType_t sent2 = xQueueSendFromISR(q, &m, &woken);
  BaseType_t sent3 = xQueueSendFromISR(q, &m, &woken);
  BaseType_t full = xQueueIsQueueFullFromISR(q);
  UBaseType_t waiting = uxQueueMessagesWaitingFromISR(q);
  BaseType_t received = xQueueReceiveFromISR(q, &got, &woken);
  BaseType_t received2 = xQueueReceiveFromISR(q, &got, &woken);
  BaseType_t received3 = xQueueReceiveFromISR(q, &got, &woken);
  BaseType_t empty = xQueueIsQueueEmptyFromISR(q);
  taskEXIT_CRITICAL();
  couplet_rtos_check(sent == pdTRUE && sent2 == pdTRUE && sent3 == errQUEUE_FULL && full == pdTRUE && waiting == 2 &&
            received == pdTRUE && received2 == pdTRUE && received3 == pdFAIL && empty == pdTRUE && woken == pdFALSE &&
            memcmp(&got, &m, sizeof m) == 0,
        "isr: queue send and receive from an ISR, full and empty", "sent %ld %ld %ld, full %ld, waiting %lu, got %ld %ld %ld",
        (long)sent, (long)sent2, (long)sent3, (long)full, (unsigned long)waiting, (long)received, (long)received2,
        (long)received3);
  vQueueDelete(q);
}

// ----------------------------------------------------------------------------- controller

static void controller_task(void *arg) {
  (void)arg;
  printf("test_sync_hw: FreeRTOS %s, %s objects\n", tskKERNEL_VERSION_NUMBER, HW_OBJECTS ? "hardware" : "software");
  test_semaphores();
  test_queues();
  test_timeouts();
  test_give_wakes_higher();
  test_wake_order();
  test_big_message();
  test_sender_woken();
  test_peek_front_reset();
  test_mutexes();
  test_two_mutexes();
  test_deleting();
  test_deleted_held_mutex_still_counts();
  test_woken_takes_when_it_runs();
  test_from_isr();
  printf("test_sync_hw: %d failed\n", couplet_rtos_failures());
  exit(couplet_rtos_exit_code());
}

void app_main(void) {
  couplet_rtos_spawn(controller_task, "control", 4 * configMINIMAL_STACK_SIZE, CONTROLLER_PRIORITY, NULL);
}
