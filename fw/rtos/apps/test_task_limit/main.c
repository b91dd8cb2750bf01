// test_task_limit: creates tasks until xTaskCreate fails, and checks that failing is clean.
//
// Plain FreeRTOS API. On the software kernel the limit is the heap (the app stops at
// MAX_WORKERS first, the malloc-failed hook would end the run otherwise); on the hardware
// kernel (fw/rtos/kernel_hw) it is the RTOS accelerator's thread table, which the idle and timer
// tasks share, so a failure must come back as errCOULD_NOT_ALLOCATE_REQUIRED_MEMORY with nothing
// created or leaked and every task made before still running.
//
// The controller (higher priority) makes the tasks and prints one line per check, "ok <check>"
// or "FAIL <check>: <what it saw>"; workers share one lower priority and take turns with
// taskYIELD, each counting its own runs. The exit code is the number of failed checks.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "task.h"

#define MAX_WORKERS 16
#define WORKER_PRIORITY 1
#define CONTROLLER_PRIORITY 2
#define WORKER_STACK configMINIMAL_STACK_SIZE

// "FAIL <name>: <detail> <a>, <b>": what was seen.
#define check(ok, name, detail, a, b) couplet_rtos_check((ok), (name), "%s %ld, %ld", (detail), (long)(a), (long)(b))

static volatile uint32_t runs[MAX_WORKERS + 1];  // one counter per worker (+1: the replacement)
static TaskHandle_t workers[MAX_WORKERS + 1];

static void worker_task(void *arg) {
  volatile uint32_t *counter = &runs[(uintptr_t)arg];
  for (;;) {
    (*counter)++;
    taskYIELD();
  }
}

static BaseType_t make_worker(unsigned index) {
  return xTaskCreate(worker_task, "worker", WORKER_STACK, (void *)(uintptr_t)index, WORKER_PRIORITY,
                     &workers[index]);
}

// True when every worker in [0, count) except `skip` counted since `before`, and `skip` did not.
static int all_ran_since(const uint32_t *before, unsigned count, unsigned skip, unsigned *which) {
  for (unsigned i = 0; i < count; i++) {
    int ran = runs[i] != before[i];
    if (ran != (i != skip)) {
      *which = i;
      return 0;
    }
  }
  return 1;
}

static int workers_run(unsigned count, unsigned skip, unsigned *which) {
  uint32_t before[MAX_WORKERS + 1];
  for (unsigned i = 0; i < count; i++) {
    before[i] = runs[i];
  }
  vTaskDelay(2);
  return all_ran_since(before, count, skip, which);
}

static void controller_task(void *arg) {
  (void)arg;
  printf("test_task_limit: FreeRTOS %s\n", tskKERNEL_VERSION_NUMBER);
  unsigned made = 0;
  BaseType_t result = pdPASS;
  size_t heap_before_failure = 0;
  while (made < MAX_WORKERS) {
    heap_before_failure = xPortGetFreeHeapSize();
    result = make_worker(made);
    if (result != pdPASS) {
      break;
    }
    made++;
  }
  int limited = result != pdPASS;
  // The controller is a task the app made too.
  printf("test_task_limit: made %u tasks (the controller and %u workers), %s\n", made + 1, made,
         limited ? "then xTaskCreate failed" : "no failure within the cap");
  if (limited) {
    check(result == errCOULD_NOT_ALLOCATE_REQUIRED_MEMORY, "limit: xTaskCreate fails with errCOULD_NOT_ALLOCATE",
          "result, expected", (long)result, (long)errCOULD_NOT_ALLOCATE_REQUIRED_MEMORY);
    check(xPortGetFreeHeapSize() == heap_before_failure, "limit: the failed xTaskCreate freed what it took",
          "free heap, before", (long)xPortGetFreeHeapSize(), (long)heap_before_failure);
    check(workers[made] == NULL, "limit: the failed xTaskCreate returned no handle", "handle", (long)(uintptr_t)workers[made], 0);
  }
  unsigned which = 0;
  check(made > 0 && workers_run(made, MAX_WORKERS + 1, &which), "limit: every task made still runs",
        "worker, of", (long)which, (long)made);

  // A deleted task's place is free again: one more can be made, and only one.
  vTaskDelete(workers[0]);
  result = make_worker(made);
  check(result == pdPASS, "limit: deleting one lets one more be created", "result", (long)result, 0);
  if (limited) {
    BaseType_t again = make_worker(made + 1 <= MAX_WORKERS ? made + 1 : MAX_WORKERS);
    check(again == errCOULD_NOT_ALLOCATE_REQUIRED_MEMORY, "limit: and then the next one fails again", "result",
          (long)again, 0);
  }
  check(result == pdPASS && workers_run(made + 1, 0, &which), "limit: the new task runs, the deleted one does not",
        "worker, of", (long)which, (long)made + 1);
  printf("test_task_limit: %d failed\n", couplet_rtos_failures());
  exit(couplet_rtos_exit_code());
}

void app_main(void) {
  couplet_rtos_spawn(controller_task, "control", 4 * configMINIMAL_STACK_SIZE, CONTROLLER_PRIORITY, NULL);
}
