// thread_metric: the Thread-Metric-equivalent RTOS benchmark suite (fw/rtos/lib/thread_metric,
// named in this folder's `libraries` file), run once. Plain FreeRTOS code: it runs unchanged on
// every kernel variant, and `couplet bench rtos` parses its output (docs/bench_rtos.md):
//   tm <test> count=<sum of the counters> ticks=<period> cycles=<mcycle over the period> tasks=<c1>,...
//   thread_metric done
// Any failed check prints "FAIL <what>" and ends the program with exit code 1.

#include <stdlib.h>

#include <couplet/console.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "task.h"
#include "tm_suite.h"

// How long each test runs, in ticks of 1 ms (50,000 cycles at 50 MHz): short for simulation.
#define PERIOD_TICKS 5

static void reporter_task(void *arg) {
  (void)arg;
  tm_suite_run(NULL, PERIOD_TICKS, NULL);
  couplet_puts("thread_metric done\n");
  exit(0);
}

void app_main(void) {
  tm_suite_init();
  if (xTaskCreate(reporter_task, "reporter", 2 * configMINIMAL_STACK_SIZE, NULL, TM_REPORTER_PRIORITY, NULL) !=
      pdPASS) {
    couplet_puts("FAIL xTaskCreate reporter\n");
    exit(1);
  }
}
