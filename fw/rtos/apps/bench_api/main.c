// bench_api: latency of the FreeRTOS API in cycles (ChamelIoT Figs. 5-8 shape), plain FreeRTOS
// code that runs unchanged on every kernel variant (couplet bench rtos, docs/bench_rtos.md).
//
// A sample is the mcycle (and minstret) difference between two stamps, minus the cost of an
// empty measurement (the two stamps back to back, calibrated at start-up):
//   stamp_begin(): tick count, then mcycle, then minstret (couplet/counters.h)
//   ... the API call under test (and, for some measures, the switch to another task) ...
//   stamp_end():   minstret, then mcycle, then the tick count
// Both stamps are out-of-line functions, so every sample brackets the same instructions around
// the call whether it ends in the task that began it or in another one. When the measured
// operation wakes or switches to another task, stamp_end() runs in that task as the first thing
// after the call it was blocked or preempted in returns: the sample is "until that task runs".
//
// Interrupts stay on (the tick included). A tick landing inside a sample is real jitter and
// stays in the data; the tick count read around the sample flags it (ticks=, one digit per
// sample) so that the report can show the statistics with and without those samples.
//
// Output, one line per measure after its samples are taken (the controller alone prints):
//   bench_api samples=<N> overhead_cycles=<C> overhead_instret=<I>
//   api <group>/<measure> cycles=<c1>,...,<cN> instret=<i1>,...,<iN> ticks=<0|1 x N>
//   bench_api done
// Any failed check prints "FAIL <what>" and ends the program with exit code 1.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/console.h>
#include <couplet/counters.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

// Samples per measure (the Python side reads N from the first line).
#define SAMPLES 20

// The controller runs the measures; helpers run below (LOW, MID) or above it (HIGH).
#define CTRL_PRIORITY 5
#define HIGH_PRIORITY 6
#define MID_PRIORITY 4
#define LOW_PRIORITY 3
#define HELPER_STACK configMINIMAL_STACK_SIZE
// A generous bound for a helper to finish: a hang is a failure, not a timeout of the run.
#define WAIT_TICKS 50

// Queue measures: message sizes in words, and a depth the RTOS accelerator's queues have.
#define QUEUE_DEPTH 4
#define MAX_WORDS 16
static const unsigned queue_words[] = {1, 2, 4, 8, 16};


// ----------------------------------------------------------------------------- samples

typedef struct {
  TickType_t tick;
  uint64_t cycles;
  uint64_t instret;
} stamp_t;

typedef struct {
  const char *name;
  unsigned count;
  uint32_t cycles[SAMPLES];
  uint32_t instret[SAMPLES];
  char ticks[SAMPLES + 1];
} measure_t;

static uint32_t overhead_cycles;
static uint32_t overhead_instret;
static TaskHandle_t controller;

__attribute__((noinline)) static void stamp_begin(stamp_t *s) {
  s->tick = xTaskGetTickCount();
  s->cycles = couplet_cycles();
  s->instret = couplet_instret();
}

// Ends the sample begun at `begin` and stores it in `m` (beyond SAMPLES, it is dropped).
__attribute__((noinline)) static void stamp_end(measure_t *m, const stamp_t *begin) {
  uint64_t instret = couplet_instret();
  uint64_t cycles = couplet_cycles();
  TickType_t tick = xTaskGetTickCount();
  if (m->count >= SAMPLES) {
    return;
  }
  uint32_t dc = (uint32_t)(cycles - begin->cycles);
  uint32_t di = (uint32_t)(instret - begin->instret);
  // Below the empty measurement's cost would mean the calibration is wrong: never clip silently.
  couplet_rtos_expect(dc >= overhead_cycles && di >= overhead_instret, "a sample below the empty measurement");
  m->cycles[m->count] = dc - overhead_cycles;
  m->instret[m->count] = di - overhead_instret;
  m->ticks[m->count] = tick != begin->tick ? '1' : '0';
  m->count++;
  m->ticks[m->count] = '\0';
}

static void put_list(const char *key, const uint32_t *values, unsigned n) {
  couplet_putc(' ');
  couplet_puts(key);
  couplet_putc('=');
  for (unsigned i = 0; i < n; i++) {
    if (i != 0) {
      couplet_putc(',');
    }
    couplet_put_dec(values[i]);
  }
}

static void report(const measure_t *m) {
  couplet_rtos_expect(m->count == SAMPLES, m->name);
  couplet_puts("api ");
  couplet_puts(m->name);
  put_list("cycles", m->cycles, m->count);
  put_list("instret", m->instret, m->count);
  couplet_puts(" ticks=");
  couplet_puts(m->ticks);
  couplet_putc('\n');
}

static void measure_init(measure_t *m, const char *name) {
  memset(m, 0, sizeof *m);
  m->name = name;
}

static TaskHandle_t spawn(TaskFunction_t code, const char *name, UBaseType_t priority, void *arg) {
  TaskHandle_t handle = NULL;
  if (xTaskCreate(code, name, HELPER_STACK, arg, priority, &handle) != pdPASS) {
    couplet_rtos_fail("xTaskCreate");
  }
  return handle;
}

// Helpers end by telling the controller and blocking for good; the controller deletes them
// (a task deleted by another is freed at once, with no need for the idle task).
static void helper_done(void) {
  xTaskNotifyGive(controller);
  for (;;) {
    vTaskSuspend(NULL);
  }
}

static void wait_helper(const char *what) {
  couplet_rtos_expect(ulTaskNotifyTake(pdTRUE, WAIT_TICKS) != 0, what);
}

// The empty measurement: the two stamps back to back. The smallest of SAMPLES tries is the cost
// subtracted from every sample (a tick can only make one longer).
static void calibrate(void) {
  uint32_t best_cycles = UINT32_MAX;
  uint32_t best_instret = UINT32_MAX;
  measure_t m;
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_t s;
    measure_init(&m, "empty");
    stamp_begin(&s);
    stamp_end(&m, &s);
    if (m.cycles[0] < best_cycles) {
      best_cycles = m.cycles[0];
    }
    if (m.instret[0] < best_instret) {
      best_instret = m.instret[0];
    }
  }
  overhead_cycles = best_cycles;
  overhead_instret = best_instret;
  couplet_puts("bench_api samples=");
  couplet_put_dec(SAMPLES);
  couplet_puts(" overhead_cycles=");
  couplet_put_dec(overhead_cycles);
  couplet_puts(" overhead_instret=");
  couplet_put_dec(overhead_instret);
  couplet_putc('\n');
}

// Shared by the task that begins a sample and the one that ends it.
static stamp_t span_a;
static stamp_t span_b;
static measure_t m1;
static measure_t m2;
static measure_t m3;
static measure_t m4;

// ----------------------------------------------------------------------------- schedule

// schedule/yield: two tasks of equal priority call taskYIELD() in turn. Each sample runs from
// just before one task's taskYIELD() (the ecall, the port's trap entry, vTaskSwitchContext, the
// context restore and mret) to the other task's first instruction after its own taskYIELD().
static volatile int yield_done;

static void yield_task(void *arg) {
  (void)arg;
  for (;;) {
    stamp_begin(&span_a);
    taskYIELD();
    // The other task ran since our taskYIELD() and began the sample that ends here.
    if (yield_done) {
      break;
    }
    stamp_end(&m1, &span_a);
    if (m1.count >= SAMPLES) {
      yield_done = 1;
      break;
    }
  }
  helper_done();
}

static void measure_yield(void) {
  measure_init(&m1, "schedule/yield");
  yield_done = 0;
  // Start right after a tick: the samples (a few hundred cycles each) are then unlikely to meet
  // one, and a time slice cannot end inside the ping-pong.
  vTaskDelay(1);
  TaskHandle_t a = spawn(yield_task, "yield_a", MID_PRIORITY, NULL);
  TaskHandle_t b = spawn(yield_task, "yield_b", MID_PRIORITY, NULL);
  wait_helper("schedule/yield: first task did not finish");
  wait_helper("schedule/yield: second task did not finish");
  vTaskDelete(a);
  vTaskDelete(b);
  report(&m1);
}

// A task that never runs while the controller measures: it is of lower priority.
static void idle_helper(void *arg) {
  (void)arg;
  helper_done();
}

// schedule/suspend, schedule/resume: vTaskSuspend / vTaskResume of a ready task of lower
// priority (no switch: the controller keeps running).
static void measure_suspend_resume_other(void) {
  measure_init(&m1, "schedule/suspend");
  measure_init(&m2, "schedule/resume");
  TaskHandle_t victim = spawn(idle_helper, "victim", LOW_PRIORITY, NULL);
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_t s;
    stamp_begin(&s);
    vTaskSuspend(victim);
    stamp_end(&m1, &s);
    couplet_rtos_expect(eTaskGetState(victim) == eSuspended, "schedule/suspend: the task is not suspended");
    stamp_begin(&s);
    vTaskResume(victim);
    stamp_end(&m2, &s);
    couplet_rtos_expect(eTaskGetState(victim) == eReady, "schedule/resume: the task is not ready");
  }
  vTaskDelete(victim);
  report(&m1);
  report(&m2);
}

// schedule/resume-switch: vTaskResume of a suspended task of higher priority, until it runs
// (its vTaskSuspend(NULL) returns). schedule/suspend-self: that task's vTaskSuspend(NULL), until
// the controller runs again (its vTaskResume returns).
static void self_suspending_task(void *arg) {
  (void)arg;
  for (;;) {
    stamp_begin(&span_b);
    vTaskSuspend(NULL);
    stamp_end(&m1, &span_a);
  }
}

static void measure_resume_switch(void) {
  measure_init(&m1, "schedule/resume-switch");
  measure_init(&m2, "schedule/suspend-self");
  // Runs at once (higher priority) and suspends itself before xTaskCreate returns.
  TaskHandle_t high = spawn(self_suspending_task, "selfsusp", HIGH_PRIORITY, NULL);
  couplet_rtos_expect(eTaskGetState(high) == eSuspended, "schedule/resume-switch: the task did not suspend itself");
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_begin(&span_a);
    vTaskResume(high);
    stamp_end(&m2, &span_b);
  }
  vTaskDelete(high);
  report(&m1);
  report(&m2);
}

// ----------------------------------------------------------------------------- mutex

static SemaphoreHandle_t mutex;

// mutex/lock, mutex/unlock: take a free mutex (timeout 0) and give it back, nobody waiting.
// mutex/unlock-fail: give a mutex nobody holds (it fails: already free).
static void measure_mutex_free(void) {
  measure_init(&m1, "mutex/lock");
  measure_init(&m2, "mutex/unlock");
  measure_init(&m3, "mutex/unlock-fail");
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_t s;
    stamp_begin(&s);
    BaseType_t took = xSemaphoreTake(mutex, 0);
    stamp_end(&m1, &s);
    couplet_rtos_expect(took == pdTRUE, "mutex/lock failed on a free mutex");
    stamp_begin(&s);
    BaseType_t gave = xSemaphoreGive(mutex);
    stamp_end(&m2, &s);
    couplet_rtos_expect(gave == pdTRUE, "mutex/unlock failed");
    stamp_begin(&s);
    gave = xSemaphoreGive(mutex);
    stamp_end(&m3, &s);
    couplet_rtos_expect(gave == pdFALSE, "mutex/unlock-fail: giving a free mutex succeeded");
  }
  report(&m1);
  report(&m2);
  report(&m3);
}

// Takes the mutex and keeps it until told to give it back.
static void holder_task(void *arg) {
  (void)arg;
  couplet_rtos_expect(xSemaphoreTake(mutex, 0) == pdTRUE, "mutex/lock-fail: the holder could not take the mutex");
  ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
  xSemaphoreGive(mutex);
  helper_done();
}

// mutex/lock-fail: take (timeout 0) a mutex held by another task.
static void measure_mutex_held(void) {
  measure_init(&m1, "mutex/lock-fail");
  TaskHandle_t holder = spawn(holder_task, "holder", HIGH_PRIORITY, NULL);
  couplet_rtos_expect(xSemaphoreGetMutexHolder(mutex) == holder, "mutex/lock-fail: the mutex is not held");
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_t s;
    stamp_begin(&s);
    BaseType_t took = xSemaphoreTake(mutex, 0);
    stamp_end(&m1, &s);
    couplet_rtos_expect(took == pdFALSE, "mutex/lock-fail: took a held mutex");
  }
  xTaskNotifyGive(holder);  // it runs at once (higher priority), gives the mutex back
  wait_helper("mutex/lock-fail: the holder did not finish");
  vTaskDelete(holder);
  report(&m1);
}

// mutex/lock-pi: the controller takes a mutex a lower-priority task holds: it blocks, the
// holder inherits its priority and runs (sample ends there). mutex/unlock-handover: the holder
// gives the mutex to the waiting controller, until the controller runs with it.
static volatile UBaseType_t inherited[SAMPLES];

static void low_holder_task(void *arg) {
  (void)arg;
  for (unsigned i = 0; i < SAMPLES; i++) {
    couplet_rtos_expect(xSemaphoreTake(mutex, 0) == pdTRUE, "mutex/lock-pi: the holder could not take the mutex");
    xTaskNotifyGive(controller);  // the controller preempts us here
    stamp_end(&m1, &span_a);
    inherited[i] = uxTaskPriorityGet(NULL);
    stamp_begin(&span_b);
    xSemaphoreGive(mutex);  // the waiting controller preempts us here
  }
  helper_done();
}

static void measure_mutex_inheritance(void) {
  measure_init(&m1, "mutex/lock-pi");
  measure_init(&m2, "mutex/unlock-handover");
  TaskHandle_t low = spawn(low_holder_task, "lowhold", LOW_PRIORITY, NULL);
  for (unsigned i = 0; i < SAMPLES; i++) {
    wait_helper("mutex/lock-pi: the holder did not take the mutex");
    stamp_begin(&span_a);
    BaseType_t took = xSemaphoreTake(mutex, portMAX_DELAY);
    stamp_end(&m2, &span_b);
    couplet_rtos_expect(took == pdTRUE, "mutex/unlock-handover: the controller did not get the mutex");
    couplet_rtos_expect(inherited[i] == CTRL_PRIORITY, "mutex/lock-pi: the holder did not inherit the waiter's priority");
    couplet_rtos_expect(uxTaskPriorityGet(low) == LOW_PRIORITY, "mutex/unlock-handover: the holder kept the inherited priority");
    xSemaphoreGive(mutex);
  }
  wait_helper("mutex/lock-pi: the holder did not finish");
  vTaskDelete(low);
  report(&m1);
  report(&m2);
}

// ----------------------------------------------------------------------------- semaphore

static SemaphoreHandle_t semaphore;

// semaphore/give: give with nobody waiting; semaphore/take: take with a count available;
// semaphore/take-fail: take (timeout 0) at count 0.
static void measure_semaphore_alone(void) {
  measure_init(&m1, "semaphore/give");
  measure_init(&m2, "semaphore/take");
  measure_init(&m3, "semaphore/take-fail");
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_t s;
    stamp_begin(&s);
    BaseType_t gave = xSemaphoreGive(semaphore);
    stamp_end(&m1, &s);
    couplet_rtos_expect(gave == pdTRUE && uxSemaphoreGetCount(semaphore) == 1, "semaphore/give");
    stamp_begin(&s);
    BaseType_t took = xSemaphoreTake(semaphore, 0);
    stamp_end(&m2, &s);
    couplet_rtos_expect(took == pdTRUE && uxSemaphoreGetCount(semaphore) == 0, "semaphore/take");
    stamp_begin(&s);
    took = xSemaphoreTake(semaphore, 0);
    stamp_end(&m3, &s);
    couplet_rtos_expect(took == pdFALSE, "semaphore/take-fail: took from an empty semaphore");
  }
  report(&m1);
  report(&m2);
  report(&m3);
}

// Waits on the semaphore for ever; each take that returns ends a semaphore/give-wake sample.
static void semaphore_waiter_task(void *arg) {
  (void)arg;
  for (;;) {
    couplet_rtos_expect(xSemaphoreTake(semaphore, portMAX_DELAY) == pdTRUE, "semaphore/give-wake: take failed");
    stamp_end(&m1, &span_a);
  }
}

// semaphore/give-wake: give while a higher-priority task waits, until that task runs.
static void measure_semaphore_wake(void) {
  measure_init(&m1, "semaphore/give-wake");
  TaskHandle_t waiter = spawn(semaphore_waiter_task, "semwait", HIGH_PRIORITY, NULL);
  couplet_rtos_expect(eTaskGetState(waiter) == eBlocked, "semaphore/give-wake: the waiter is not blocked");
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_begin(&span_a);
    xSemaphoreGive(semaphore);
  }
  couplet_rtos_expect(uxSemaphoreGetCount(semaphore) == 0, "semaphore/give-wake: a give was not taken");
  vTaskDelete(waiter);
  report(&m1);
}

// ----------------------------------------------------------------------------- queue

static QueueHandle_t queue;
static unsigned words;
static uint32_t message[MAX_WORDS];
static uint32_t helper_buffer[MAX_WORDS];
static volatile unsigned bad_messages;

static void fill_message(unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    message[i] = (n << 24) ^ ((i + 1u) * 0x9E3779B9u);
  }
}

static int message_ok(const uint32_t *buffer) {
  return memcmp(buffer, message, words * sizeof(uint32_t)) == 0;
}

// "queue/<op>-<n>w", kept for the measure's lifetime (its line is printed after the samples).
static const char *queue_name(char *buffer, size_t size, const char *op, unsigned n) {
  snprintf(buffer, size, "queue/%s-%uw", op, n);
  return buffer;
}

// Receives for ever; each receive that returns ends a queue/send-wake sample.
static void receiver_task(void *arg) {
  (void)arg;
  for (;;) {
    memset(helper_buffer, 0xAA, sizeof helper_buffer);
    couplet_rtos_expect(xQueueReceive(queue, helper_buffer, portMAX_DELAY) == pdTRUE, "queue/send-wake: receive failed");
    stamp_end(&m3, &span_a);
    if (!message_ok(helper_buffer)) {
      bad_messages++;
    }
  }
}

// Sends for ever into a full queue; each send that returns ends a queue/receive-wake sample.
static void sender_task(void *arg) {
  (void)arg;
  for (;;) {
    couplet_rtos_expect(xQueueSend(queue, message, portMAX_DELAY) == pdTRUE, "queue/receive-wake: send failed");
    stamp_end(&m4, &span_a);
  }
}

// queue/send-Nw, queue/receive-Nw: send into an empty queue and receive from it again, nobody
// waiting. queue/send-wake-Nw: send while a higher-priority task waits to receive, until it
// runs with the message. queue/receive-wake-Nw: receive from a full queue while a
// higher-priority task waits to send, until its send returns.
static void measure_queue(unsigned n) {
  uint32_t buffer[MAX_WORDS];
  words = n;
  fill_message(n);
  bad_messages = 0;
  queue = xQueueCreate(QUEUE_DEPTH, n * sizeof(uint32_t));
  couplet_rtos_expect(queue != NULL, "xQueueCreate");
  static char names[4][24];
  measure_init(&m1, queue_name(names[0], sizeof names[0], "send", n));
  measure_init(&m2, queue_name(names[1], sizeof names[1], "receive", n));
  measure_init(&m3, queue_name(names[2], sizeof names[2], "send-wake", n));
  measure_init(&m4, queue_name(names[3], sizeof names[3], "receive-wake", n));

  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_t s;
    stamp_begin(&s);
    BaseType_t sent = xQueueSend(queue, message, 0);
    stamp_end(&m1, &s);
    couplet_rtos_expect(sent == pdTRUE, "queue/send failed on an empty queue");
    memset(buffer, 0xAA, sizeof buffer);
    stamp_begin(&s);
    BaseType_t got = xQueueReceive(queue, buffer, 0);
    stamp_end(&m2, &s);
    couplet_rtos_expect(got == pdTRUE && message_ok(buffer), "queue/receive: wrong or no message");
  }

  TaskHandle_t receiver = spawn(receiver_task, "qrecv", HIGH_PRIORITY, NULL);
  for (unsigned i = 0; i < SAMPLES; i++) {
    stamp_begin(&span_a);
    xQueueSend(queue, message, 0);
  }
  couplet_rtos_expect(uxQueueMessagesWaiting(queue) == 0, "queue/send-wake: a message was not received");
  vTaskDelete(receiver);

  for (unsigned i = 0; i < QUEUE_DEPTH; i++) {
    couplet_rtos_expect(xQueueSend(queue, message, 0) == pdTRUE, "queue: could not fill the queue");
  }
  TaskHandle_t sender = spawn(sender_task, "qsend", HIGH_PRIORITY, NULL);
  couplet_rtos_expect(eTaskGetState(sender) == eBlocked, "queue/receive-wake: the sender is not blocked");
  for (unsigned i = 0; i < SAMPLES; i++) {
    memset(buffer, 0xAA, sizeof buffer);
    stamp_begin(&span_a);
    BaseType_t got = xQueueReceive(queue, buffer, 0);
    couplet_rtos_expect(got == pdTRUE && message_ok(buffer), "queue/receive-wake: wrong or no message");
  }
  couplet_rtos_expect(uxQueueMessagesWaiting(queue) == QUEUE_DEPTH, "queue/receive-wake: the sender did not refill the queue");
  vTaskDelete(sender);
  couplet_rtos_expect(bad_messages == 0, "queue/send-wake: the receiver got a wrong message");
  vQueueDelete(queue);
  report(&m1);
  report(&m2);
  report(&m3);
  report(&m4);
}

// ----------------------------------------------------------------------------- controller

static void controller_task(void *arg) {
  (void)arg;
  calibrate();
  measure_yield();
  measure_suspend_resume_other();
  measure_resume_switch();

  mutex = xSemaphoreCreateMutex();
  couplet_rtos_expect(mutex != NULL, "xSemaphoreCreateMutex");
  measure_mutex_free();
  measure_mutex_held();
  measure_mutex_inheritance();
  vSemaphoreDelete(mutex);

  semaphore = xSemaphoreCreateCounting(QUEUE_DEPTH, 0);
  couplet_rtos_expect(semaphore != NULL, "xSemaphoreCreateCounting");
  measure_semaphore_alone();
  measure_semaphore_wake();
  vSemaphoreDelete(semaphore);

  for (unsigned k = 0; k < sizeof queue_words / sizeof queue_words[0]; k++) {
    measure_queue(queue_words[k]);
  }
  couplet_puts("bench_api done\n");
  exit(0);
}

void app_main(void) {
  if (xTaskCreate(controller_task, "bench", 2 * configMINIMAL_STACK_SIZE, NULL, CTRL_PRIORITY, &controller) !=
      pdPASS) {
    couplet_rtos_fail("xTaskCreate controller");
  }
}
