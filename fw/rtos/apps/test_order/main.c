// test_order: the order in which FreeRTOS runs tasks of equal priority, which the hardware
// kernels must follow (tests/test_rtos_order.py compares every kernel's order with the software
// kernel's and with FreeRTOS's rules).
//
// FreeRTOS keeps one list per priority with an index at the task it picked last; a pick takes
// the task after the index, and a task made ready goes just before the index, so behind every
// other task of its priority. That makes three orders an application sees:
// - At the start the last-created task of the highest priority runs first (it became the
//   current task as it was created), then the tasks of that priority from the first-created on.
// - A task preempted by a higher one has had its turn: when the higher one stops, the next task
//   of the preempted one's priority runs, not the preempted one.
// - A task made ready while its priority's tasks were preempted comes after all of them.
//
// Scenario: workers a, b, c (one priority, created in that order) each record a turn and yield,
// TURNS times. In its turn PREEMPT_TURN, a creates "high" (a higher priority), which preempts a,
// records, creates worker d at the workers' priority, and deletes itself. The controller, below
// the workers, runs once every worker has ended and prints "order <who> <turn>" per event (an
// end is turn -1; high's event is turn 0).

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "task.h"

#define HIGH_PRIORITY 3
#define WORKER_PRIORITY 2
#define CTRL_PRIORITY 1
#define TASK_STACK (2 * configMINIMAL_STACK_SIZE)

#define WORKERS 4  // a, b, c and d
#define TURNS 5
#define PREEMPT_TURN 2
#define MAX_EVENTS 32

typedef struct {
  const char *who;
  int turn;
} event_t;

static event_t events[MAX_EVENTS];
static unsigned event_count;
static unsigned events_lost;
static unsigned workers_ended;

static void record(const char *who, int turn) {
  taskENTER_CRITICAL();
  if (event_count < MAX_EVENTS) {
    events[event_count] = (event_t){who, turn};
    event_count++;
  } else {
    events_lost++;
  }
  taskEXIT_CRITICAL();
}

static void worker_task(void *arg);

// Preempts the worker that created it; d, made ready here, must come after a, b and c.
static void high_task(void *arg) {
  (void)arg;
  record("high", 0);
  couplet_rtos_spawn(worker_task, "d", TASK_STACK, WORKER_PRIORITY, "d");
  vTaskDelete(NULL);
}

static void worker_task(void *arg) {
  const char *name = arg;
  for (int turn = 0; turn < TURNS; turn++) {
    record(name, turn);
    if (name[0] == 'a' && turn == PREEMPT_TURN) {
      couplet_rtos_spawn(high_task, "high", TASK_STACK, HIGH_PRIORITY, NULL);
    }
    taskYIELD();
  }
  record(name, -1);
  taskENTER_CRITICAL();
  workers_ended++;
  taskEXIT_CRITICAL();
  vTaskDelete(NULL);
}

// Runs only when no worker is ready: once, after the last one ended.
static void ctrl_task(void *arg) {
  (void)arg;
  for (unsigned i = 0; i < event_count; i++) {
    printf("order %s %d\n", events[i].who, events[i].turn);
  }
  couplet_rtos_check(events_lost == 0, "order: every event fit in the buffer", "%u events lost", events_lost);
  couplet_rtos_check(workers_ended == WORKERS, "order: every worker ended before the controller ran",
                     "%u of %u ended", workers_ended, WORKERS);
  printf("test_order: %u events\n", event_count);
  exit(couplet_rtos_exit_code());
}

void app_main(void) {
  // In this order: FreeRTOS's current task at the start is c, the last created of the highest
  // priority.
  couplet_rtos_spawn(worker_task, "a", TASK_STACK, WORKER_PRIORITY, "a");
  couplet_rtos_spawn(worker_task, "b", TASK_STACK, WORKER_PRIORITY, "b");
  couplet_rtos_spawn(worker_task, "c", TASK_STACK, WORKER_PRIORITY, "c");
  couplet_rtos_spawn(ctrl_task, "ctrl", 4 * configMINIMAL_STACK_SIZE, CTRL_PRIORITY, NULL);
}
