// test_trace: an ordinary mixed FreeRTOS application whose event trace must be the same on
// every kernel variant (tests/test_rtos_trace.py compares the hardware kernels' traces with the
// software kernel's). It uses everyday calls only: a mutex held across a delay while a higher
// task waits for it (priority inheritance), a counting semaphore given by a periodic task, a
// queue read with timeouts, task notifications, vTaskSuspend/vTaskResume of another task and an
// auto-reload software timer.
//
// Every application task has a priority of its own: the order among equal priorities has an
// app of its own (test_order); here, which of several tasks of different priorities runs first
// at a tick is what must agree.
//
// Events go to a buffer in RAM while the scenario runs (ticks counted from its start); printing
// takes thousands of cycles and would shift what happens within a tick, so the controller
// prints the trace only once every task has finished: "trace <tick> <who> <what> <value>".
//
// Tasks: the idle and timer tasks and four of the app's, within the hardware kernels' thread
// table; one mutex, one semaphore, one queue (one-word items, 4 deep: the accelerator's on the
// hardware kernels; the timer queue keeps FreeRTOS's default length, so it stays software).

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "timers.h"

// Below the timer task (configMAX_PRIORITIES - 1), so timer callbacks run at their tick first.
#define CTRL_PRIORITY 6
#define HIGH_PRIORITY 5
#define PERIOD_PRIORITY 4
#define WORKER_PRIORITY 3
#define LOW_PRIORITY 2
#define TASK_STACK (2 * configMINIMAL_STACK_SIZE)

// The tasks stop at their first step at or after END; the controller gives up at DEADLINE.
#define END 30
#define DEADLINE 50
#define PERIOD 4
#define QUEUE_WAIT 3
#define SEM_WAIT 6
#define NOTIFY_WAIT 6
#define TIMER_PERIOD 7
#define TIMER_FIRES 4

#define DONE_HIGH (1u << 0)
#define DONE_PERIOD (1u << 1)
#define DONE_WORKER (1u << 2)
#define DONE_LOW (1u << 3)
#define DONE_ALL (DONE_HIGH | DONE_PERIOD | DONE_WORKER | DONE_LOW)

#define MAX_EVENTS 96

typedef struct {
  TickType_t tick;
  const char *who;
  const char *what;
  long value;
} event_t;

static event_t events[MAX_EVENTS];
static unsigned event_count;
static unsigned events_lost;
static TickType_t start;

static SemaphoreHandle_t lock;
static SemaphoreHandle_t given;
static QueueHandle_t mail;
static TaskHandle_t ctrl_task_handle;
static TaskHandle_t low_handle;
static TaskHandle_t worker_handle;

// Called from tasks and from the timer callback: a tick may preempt an append.
static void record(const char *who, const char *what, long value) {
  taskENTER_CRITICAL();
  if (event_count < MAX_EVENTS) {
    events[event_count] = (event_t){xTaskGetTickCount() - start, who, what, value};
    event_count++;
  } else {
    events_lost++;
  }
  taskEXIT_CRITICAL();
}

static bool ended(void) { return xTaskGetTickCount() - start >= END; }

static void finish(uint32_t bit) {
  xTaskNotify(ctrl_task_handle, bit, eSetBits);
  vTaskSuspend(NULL);
}

static void on_timer(TimerHandle_t timer) {
  static unsigned fires;
  fires++;
  record("timer", "fire", (long)fires);
  uint32_t item = (uint32_t)(xTaskGetTickCount() - start);
  xQueueSend(mail, &item, 0);
  if (fires == TIMER_FIRES) {
    xTimerStop(timer, 0);  // the timer task's own queue: it must not wait
  }
}

static void high_task(void *arg) {
  (void)arg;
  record("high", "start", (long)uxTaskPriorityGet(NULL));
  vTaskDelay(2);  // low takes the mutex first
  record("high", "mutex-wait", (long)uxTaskPriorityGet(low_handle));
  xSemaphoreTake(lock, portMAX_DELAY);
  record("high", "mutex-take", (long)uxTaskPriorityGet(NULL));
  xSemaphoreGive(lock);
  record("high", "mutex-give", (long)uxTaskPriorityGet(NULL));
  while (!ended()) {
    uint32_t item = 0;
    if (xQueueReceive(mail, &item, QUEUE_WAIT) == pdPASS) {
      record("high", "q-recv", (long)item);
    } else {
      record("high", "q-timeout", 0);
    }
  }
  finish(DONE_HIGH);
}

static void period_task(void *arg) {
  (void)arg;
  record("period", "start", (long)uxTaskPriorityGet(NULL));
  TickType_t wake = xTaskGetTickCount();
  long gives = 0;
  for (;;) {
    xTaskDelayUntil(&wake, PERIOD);
    if (ended()) {
      break;
    }
    // The give's number, not the count after it: until the woken worker runs, FreeRTOS's count
    // still holds the give while the accelerator has handed it to the worker already (1 on sw,
    // 0 on hw), a difference this trace leaves out (tests/test_rtos_trace.py's docstring).
    if (xSemaphoreGive(given) == pdPASS) {
      gives++;
    }
    record("period", "give", gives);
  }
  finish(DONE_PERIOD);
}

static void worker_task(void *arg) {
  (void)arg;
  record("worker", "start", (long)uxTaskPriorityGet(NULL));
  for (;;) {
    bool took = xSemaphoreTake(given, SEM_WAIT) == pdPASS;
    record("worker", took ? "sem-take" : "sem-timeout", (long)uxSemaphoreGetCount(given));
    if (ended()) {
      break;
    }
  }
  finish(DONE_WORKER);
}

static void low_task(void *arg) {
  (void)arg;
  record("low", "start", (long)uxTaskPriorityGet(NULL));
  xSemaphoreTake(lock, portMAX_DELAY);
  record("low", "mutex-take", (long)uxTaskPriorityGet(NULL));
  vTaskDelay(5);  // high waits for the mutex meanwhile and lends its priority
  record("low", "holding", (long)uxTaskPriorityGet(NULL));
  xSemaphoreGive(lock);
  record("low", "mutex-give", (long)uxTaskPriorityGet(NULL));
  while (!ended()) {
    record("low", "notified", (long)ulTaskNotifyTake(pdTRUE, NOTIFY_WAIT));
  }
  finish(DONE_LOW);
}

// Delays the controller until `offset` ticks after the start.
static void at(TickType_t *wake, TickType_t offset) { xTaskDelayUntil(wake, offset - (*wake - start)); }

static void ctrl_task(void *arg) {
  (void)arg;
  vTaskDelay(1);  // start on a tick boundary, so every step has the whole tick
  start = xTaskGetTickCount();
  TickType_t wake = start;
  lock = xSemaphoreCreateMutex();
  given = xSemaphoreCreateCounting(10, 0);
  mail = xQueueCreate(4, sizeof(uint32_t));
  TimerHandle_t timer = xTimerCreate("beat", TIMER_PERIOD, pdTRUE, NULL, on_timer);
  if (lock == NULL || given == NULL || mail == NULL || timer == NULL) {
    printf("FAIL test_trace: could not create the mutex, semaphore, queue or timer\n");
    exit(98);
  }
  // Created from the highest application task: none runs before the controller first waits.
  couplet_rtos_spawn(high_task, "high", TASK_STACK, HIGH_PRIORITY, NULL);
  couplet_rtos_spawn(period_task, "period", TASK_STACK, PERIOD_PRIORITY, NULL);
  worker_handle = couplet_rtos_spawn(worker_task, "worker", TASK_STACK, WORKER_PRIORITY, NULL);
  low_handle = couplet_rtos_spawn(low_task, "low", TASK_STACK, LOW_PRIORITY, NULL);
  xTimerStart(timer, 0);
  record("ctrl", "start", (long)uxTaskPriorityGet(NULL));

  at(&wake, 10);  // the worker waits for the semaphore: the gives pile up meanwhile
  vTaskSuspend(worker_handle);
  record("ctrl", "suspend", (long)eTaskGetState(worker_handle));
  at(&wake, 15);
  xTaskNotifyGive(low_handle);
  xTaskNotifyGive(low_handle);
  record("ctrl", "notify", 2);
  at(&wake, 19);
  long sent = 0;
  for (uint32_t item = 100; item < 102; item++) {
    sent += xQueueSend(mail, &item, 0) == pdPASS;
  }
  record("ctrl", "send", sent);
  at(&wake, 22);
  vTaskResume(worker_handle);
  record("ctrl", "resume", (long)eTaskGetState(worker_handle));

  uint32_t done = 0;
  while (done != DONE_ALL && xTaskGetTickCount() - start < DEADLINE) {
    uint32_t bits = 0;
    if (xTaskNotifyWait(0, UINT32_MAX, &bits, DEADLINE - (xTaskGetTickCount() - start)) == pdPASS) {
      done |= bits;
      record("ctrl", "done", (long)bits);
    }
  }

  unsigned count = event_count;
  for (unsigned i = 0; i < count; i++) {
    printf("trace %lu %s %s %ld\n", (unsigned long)events[i].tick, events[i].who, events[i].what, events[i].value);
  }
  couplet_rtos_check(events_lost == 0, "trace: every event fit in the buffer", "%u events lost", events_lost);
  couplet_rtos_check(done == DONE_ALL, "trace: every task finished before the deadline", "done bits %lx",
                     (unsigned long)done);
  printf("test_trace: %u events\n", count);
  exit(couplet_rtos_exit_code());
}

void app_main(void) {
  ctrl_task_handle = couplet_rtos_spawn(ctrl_task, "ctrl", 4 * configMINIMAL_STACK_SIZE, CTRL_PRIORITY, NULL);
}
