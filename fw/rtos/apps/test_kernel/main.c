// test_kernel: checks the FreeRTOS kernel's scheduling and IPC on the SoC, using only the
// public FreeRTOS API.
//
// One controller task at the highest priority runs the checks one after the other. It creates
// lower-priority worker tasks and lets them run by blocking itself (vTaskDelay or a task
// notification with a timeout), so the order things happen in is fixed by the kernel's rules,
// not by chance. Workers only record what they saw in global variables; the controller alone
// prints. Each check prints one line, "ok <name>" or "FAIL <name>: <detail>", and the program
// ends with the number of failed checks as its exit code (0: all passed).
//
// Waits are short (one or a few ticks of 1 ms = 50,000 cycles at 50 MHz) so that the whole
// run stays around a million simulated cycles.

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

#define CONTROLLER_PRIORITY (configMAX_PRIORITIES - 1)
#define WORKER_STACK (2 * configMINIMAL_STACK_SIZE)
// Long enough for any worker here to finish; a hang shows up as a failed check instead.
#define WAIT_TICKS 5

static TaskHandle_t controller;

// ----------------------------------------------------------------------------- event log

// Workers append one letter per event; the controller compares the string.
static char event_log[32];
static volatile unsigned event_count;

static void log_event(char event) {
  taskENTER_CRITICAL();
  if (event_count < sizeof event_log - 1) {
    event_log[event_count++] = event;
    event_log[event_count] = '\0';
  }
  taskEXIT_CRITICAL();
}

static void log_clear(void) {
  event_count = 0;
  event_log[0] = '\0';
}

static void log_check(const char *name, const char *expected) {
  couplet_rtos_check(strcmp(event_log, expected) == 0, name, "events \"%s\", expected \"%s\"", event_log, expected);
}

// Tells the controller a worker is done; the controller counts these.
static void worker_done(void) {
  xTaskNotifyGive(controller);
}

// Waits for `count` worker_done() calls; false on a timeout.
static int wait_workers(unsigned count) {
  unsigned got = 0;
  while (got < count) {
    uint32_t n = ulTaskNotifyTake(pdFALSE, WAIT_TICKS);
    if (n == 0) {
      return 0;
    }
    got++;
  }
  return 1;
}

// ----------------------------------------------------------------------------- priorities

// Logs its letter (the task argument) and ends.
static void letter_task(void *arg) {
  log_event((char)(uintptr_t)arg);
  worker_done();
  vTaskDelete(NULL);
}

static void test_priorities(void) {
  log_clear();
  // Created low first: only the priorities can put 'H' before 'L'.
  couplet_rtos_spawn(letter_task, "low", WORKER_STACK, 1, (void *)(uintptr_t)'L');
  couplet_rtos_spawn(letter_task, "mid", WORKER_STACK, 2, (void *)(uintptr_t)'M');
  couplet_rtos_spawn(letter_task, "high", WORKER_STACK, 3, (void *)(uintptr_t)'H');
  // Neither may run while the higher-priority controller is ready.
  couplet_rtos_check(event_count == 0, "priority: lower tasks wait while a higher one runs", "%u events logged", event_count);
  couplet_rtos_check(wait_workers(3), "priority: all tasks ran", "timed out");
  log_check("priority: higher priority runs first", "HML");
}

// ----------------------------------------------------------------------------- round robin

#define YIELD_ROUNDS 3

static void yielding_task(void *arg) {
  for (int i = 0; i < YIELD_ROUNDS; i++) {
    log_event((char)(uintptr_t)arg);
    taskYIELD();
  }
  worker_done();
  vTaskDelete(NULL);
}

static void test_round_robin(void) {
  log_clear();
  // Start right after a tick so that no time slice ends inside the test: the alternation
  // seen is taskYIELD's alone.
  vTaskDelay(1);
  couplet_rtos_spawn(yielding_task, "rr_a", WORKER_STACK, 2, (void *)(uintptr_t)'a');
  couplet_rtos_spawn(yielding_task, "rr_b", WORKER_STACK, 2, (void *)(uintptr_t)'b');
  couplet_rtos_check(wait_workers(2), "round robin: both tasks finished", "timed out");
  // Which of the two starts is the ready list's business; that they alternate is taskYIELD's.
  const char *expected = event_log[0] == 'b' ? "bababa" : "ababab";
  log_check("round robin: taskYIELD alternates equal priorities", expected);
}

// ----------------------------------------------------------------------------- suspend/resume

static volatile unsigned self_runs;
static volatile unsigned spin_count;

// Counts one run, then suspends itself until resumed.
static void self_suspending_task(void *arg) {
  (void)arg;
  for (;;) {
    self_runs++;
    vTaskSuspend(NULL);
  }
}

// Counts as long as it is allowed to run: once per tick.
static void counting_task(void *arg) {
  (void)arg;
  for (;;) {
    spin_count++;
    vTaskDelay(1);
  }
}

static void test_suspend_resume(void) {
  TaskHandle_t self = couplet_rtos_spawn(self_suspending_task, "selfsusp", WORKER_STACK, 2, NULL);
  vTaskDelay(1);
  couplet_rtos_check(self_runs == 1 && eTaskGetState(self) == eSuspended, "suspend: vTaskSuspend(NULL) suspends the caller",
        "runs %ld, state %ld", (long)self_runs, (long)eTaskGetState(self));
  vTaskDelay(1);
  couplet_rtos_check(self_runs == 1, "suspend: a suspended task does not run", "runs %u", self_runs);
  vTaskResume(self);
  couplet_rtos_check(eTaskGetState(self) == eReady, "resume: vTaskResume makes it ready", "state %d", (int)eTaskGetState(self));
  vTaskDelay(1);
  couplet_rtos_check(self_runs == 2, "resume: a resumed task runs again", "runs %u", self_runs);
  vTaskDelete(self);

  TaskHandle_t other = couplet_rtos_spawn(counting_task, "counter", WORKER_STACK, 2, NULL);
  vTaskDelay(1);
  unsigned before = spin_count;
  vTaskSuspend(other);
  couplet_rtos_check(before >= 1 && eTaskGetState(other) == eSuspended, "suspend: vTaskSuspend of another task",
        "count %ld, state %ld", (long)before, (long)eTaskGetState(other));
  vTaskDelay(2);
  couplet_rtos_check(spin_count == before, "suspend: the other task stops running", "count %ld, was %ld", (long)spin_count,
        (long)before);
  vTaskResume(other);
  vTaskDelay(2);
  couplet_rtos_check(spin_count > before, "resume: the other task runs again", "count %ld, was %ld", (long)spin_count, (long)before);
  vTaskDelete(other);
}

// ----------------------------------------------------------------------------- mutex

#define LOW_PRIORITY 1
#define HIGH_PRIORITY 4

static SemaphoreHandle_t mutex;
static volatile UBaseType_t low_priority_after_give;
static volatile int high_got_mutex;

// Takes the mutex, waits for the controller's go, gives it back.
static void mutex_low_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(mutex, 0) == pdTRUE) {
    log_event('t');
  }
  ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
  xSemaphoreGive(mutex);  // the waiting high task preempts us here
  log_event('g');
  low_priority_after_give = uxTaskPriorityGet(NULL);
  worker_done();
  vTaskDelete(NULL);
}

static void mutex_high_task(void *arg) {
  (void)arg;
  log_event('w');
  if (xSemaphoreTake(mutex, portMAX_DELAY) == pdTRUE) {
    high_got_mutex = 1;
    log_event('H');
    xSemaphoreGive(mutex);
  }
  worker_done();
  vTaskDelete(NULL);
}

static void test_mutex(void) {
  log_clear();
  mutex = xSemaphoreCreateMutex();
  TaskHandle_t low = couplet_rtos_spawn(mutex_low_task, "mtx_low", WORKER_STACK, LOW_PRIORITY, NULL);
  vTaskDelay(1);
  couplet_rtos_check(xSemaphoreGetMutexHolder(mutex) == low, "mutex: the low task holds it", "holder %lx, low %lx",
        (long)(uintptr_t)xSemaphoreGetMutexHolder(mutex), (long)(uintptr_t)low);
  couplet_rtos_check(xSemaphoreTake(mutex, 0) == pdFALSE, "mutex: take with timeout 0 fails while held", "it succeeded");
  couplet_rtos_check(uxTaskPriorityGet(low) == LOW_PRIORITY, "mutex: holder at its own priority before contention",
        "priority %ld, expected %ld", (long)uxTaskPriorityGet(low), (long)LOW_PRIORITY);

  TaskHandle_t high = couplet_rtos_spawn(mutex_high_task, "mtx_high", WORKER_STACK, HIGH_PRIORITY, NULL);
  vTaskDelay(1);
  couplet_rtos_check(eTaskGetState(high) == eBlocked && !high_got_mutex, "mutex: contender blocks", "state %ld, got %ld",
        (long)eTaskGetState(high), (long)high_got_mutex);
  couplet_rtos_check(uxTaskPriorityGet(low) == HIGH_PRIORITY, "mutex: priority inheritance raises the holder",
        "priority %ld, expected %ld", (long)uxTaskPriorityGet(low), (long)HIGH_PRIORITY);

  xTaskNotifyGive(low);
  couplet_rtos_check(wait_workers(2), "mutex: both tasks finished", "timed out");
  couplet_rtos_check(high_got_mutex, "mutex: the contender gets it after the give", "it never did");
  couplet_rtos_check(low_priority_after_give == LOW_PRIORITY, "mutex: holder priority returns after the give",
        "priority %ld, expected %ld", (long)low_priority_after_give, (long)LOW_PRIORITY);
  // Taken, contender waits, the give hands over at once (H before the low task's 'g').
  log_check("mutex: handover order", "twHg");
  vSemaphoreDelete(mutex);
}

// ----------------------------------------------------------------------------- counting semaphore

#define SEM_MAX 3

static SemaphoreHandle_t counting;
static volatile int sem_woken;

static void sem_waiter_task(void *arg) {
  (void)arg;
  if (xSemaphoreTake(counting, portMAX_DELAY) == pdTRUE) {
    sem_woken = 1;
  }
  worker_done();
  vTaskDelete(NULL);
}

static void test_counting_semaphore(void) {
  counting = xSemaphoreCreateCounting(SEM_MAX, 0);
  couplet_rtos_check(xSemaphoreTake(counting, 0) == pdFALSE, "semaphore: take with timeout 0 on empty fails", "it succeeded");
  int gives = 0;
  while (gives < SEM_MAX + 2 && xSemaphoreGive(counting) == pdTRUE) {
    gives++;
  }
  couplet_rtos_check(gives == SEM_MAX && uxSemaphoreGetCount(counting) == SEM_MAX, "semaphore: gives count up to the maximum",
        "%ld gives, count %ld", (long)gives, (long)uxSemaphoreGetCount(counting));
  int takes = 0;
  while (takes < SEM_MAX + 2 && xSemaphoreTake(counting, 0) == pdTRUE) {
    takes++;
  }
  couplet_rtos_check(takes == SEM_MAX && uxSemaphoreGetCount(counting) == 0, "semaphore: takes count down to empty",
        "%ld takes, count %ld", (long)takes, (long)uxSemaphoreGetCount(counting));

  TaskHandle_t waiter = couplet_rtos_spawn(sem_waiter_task, "sem_wait", WORKER_STACK, 2, NULL);
  vTaskDelay(1);
  couplet_rtos_check(eTaskGetState(waiter) == eBlocked && !sem_woken, "semaphore: taker blocks on empty", "state %ld, woken %ld",
        (long)eTaskGetState(waiter), (long)sem_woken);
  xSemaphoreGive(counting);
  couplet_rtos_check(wait_workers(1) && sem_woken, "semaphore: a give wakes the waiting task", "woken %d", sem_woken);
  couplet_rtos_check(uxSemaphoreGetCount(counting) == 0, "semaphore: the woken task consumed the give", "count %ld",
        (long)uxSemaphoreGetCount(counting));
  vSemaphoreDelete(counting);
}

// ----------------------------------------------------------------------------- queue

#define QUEUE_LENGTH 4

typedef struct {
  uint32_t sequence;
  uint32_t pattern;
  char text[8];
} message_t;

static QueueHandle_t queue;
static message_t received;
static volatile int receiver_got;

static message_t make_message(uint32_t sequence) {
  message_t m;
  m.sequence = sequence;
  m.pattern = 0x9e3779b9u * (sequence + 1u);
  snprintf(m.text, sizeof m.text, "m%03x", (unsigned)(sequence & 0xfffu));
  return m;
}

static int same_message(const message_t *a, const message_t *b) {
  return a->sequence == b->sequence && a->pattern == b->pattern && strcmp(a->text, b->text) == 0;
}

static void receiver_task(void *arg) {
  (void)arg;
  if (xQueueReceive(queue, &received, portMAX_DELAY) == pdTRUE) {
    receiver_got = 1;
  }
  worker_done();
  vTaskDelete(NULL);
}

static void test_queue(void) {
  queue = xQueueCreate(QUEUE_LENGTH, sizeof(message_t));
  int sent = 0;
  for (uint32_t i = 0; i < QUEUE_LENGTH + 2; i++) {
    message_t m = make_message(i);
    if (xQueueSend(queue, &m, 0) != pdTRUE) {
      break;
    }
    sent++;
  }
  couplet_rtos_check(sent == QUEUE_LENGTH && uxQueueMessagesWaiting(queue) == QUEUE_LENGTH,
        "queue: send with timeout 0 fails when full", "%ld sent, %ld waiting", (long)sent,
        (long)uxQueueMessagesWaiting(queue));

  int intact = 0;
  int got = 0;
  message_t m;
  while (got < QUEUE_LENGTH + 2 && xQueueReceive(queue, &m, 0) == pdTRUE) {
    message_t expected = make_message((uint32_t)got);
    intact += same_message(&m, &expected);
    got++;
  }
  couplet_rtos_check(got == QUEUE_LENGTH, "queue: receive with timeout 0 fails when empty", "%d received, expected %d", got,
        QUEUE_LENGTH);
  couplet_rtos_check(intact == QUEUE_LENGTH, "queue: messages arrive intact and in order", "%ld of %ld intact", (long)intact,
        (long)got);

  TaskHandle_t receiver = couplet_rtos_spawn(receiver_task, "receiver", WORKER_STACK, 2, NULL);
  vTaskDelay(1);
  couplet_rtos_check(eTaskGetState(receiver) == eBlocked && !receiver_got, "queue: receiver blocks on empty", "state %ld, got %ld",
        (long)eTaskGetState(receiver), (long)receiver_got);
  message_t sent_message = make_message(0xc0ffeeu);
  xQueueSend(queue, &sent_message, 0);
  int woke = wait_workers(1);
  couplet_rtos_check(woke && receiver_got && same_message(&received, &sent_message),
        "queue: a send wakes the receiver with the data", "woken %d, sequence %lx", receiver_got,
        (unsigned long)received.sequence);
  vQueueDelete(queue);
}

// ----------------------------------------------------------------------------- delay

#define DELAY_TICKS 3

static void test_delay(void) {
  vTaskDelay(1);  // start on a tick boundary
  TickType_t before = xTaskGetTickCount();
  vTaskDelay(DELAY_TICKS);
  TickType_t elapsed = xTaskGetTickCount() - before;
  couplet_rtos_check(elapsed == DELAY_TICKS, "delay: vTaskDelay(3) lets exactly 3 ticks pass", "%lu ticks, expected %d",
        (unsigned long)elapsed, DELAY_TICKS);
}

// ----------------------------------------------------------------------------- controller

static void controller_task(void *arg) {
  (void)arg;
  printf("test_kernel: FreeRTOS %s, %d priorities, tick %d Hz\n", tskKERNEL_VERSION_NUMBER, configMAX_PRIORITIES,
         (int)configTICK_RATE_HZ);
  test_priorities();
  test_round_robin();
  test_suspend_resume();
  test_mutex();
  test_counting_semaphore();
  test_queue();
  test_delay();
  printf("test_kernel: %d failed, %lu ticks\n", couplet_rtos_failures(), (unsigned long)xTaskGetTickCount());
  exit(couplet_rtos_exit_code());
}

void app_main(void) {
  controller = couplet_rtos_spawn(controller_task, "control", 4 * configMINIMAL_STACK_SIZE, CONTROLLER_PRIORITY, NULL);
}
