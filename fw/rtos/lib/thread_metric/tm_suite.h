// The Thread-Metric-equivalent suite as a library of fw/rtos/lib/: eight tests (basic,
// cooperative, preemptive, interrupt, interrupt-preemption, message, synchronization, memory),
// each counting loop iterations of its tasks over a fixed number of ticks. docs/bench_rtos.md
// says what every test does; an app uses the suite by naming `thread_metric` in its `libraries`
// file (docs/rtos.md).
//
// Priorities: the tests' tasks use TM_TEST_PRIORITY_MIN .. TM_TEST_PRIORITY_MAX; the task that
// calls tm_suite_run() must be at TM_REPORTER_PRIORITY (above them all), so that it can create,
// time and delete them. Priorities between TM_TEST_PRIORITY_MAX and TM_REPORTER_PRIORITY are the
// app's, for background work that should take the processor from the tests.
//
// The suite takes the machine software interrupt (CLINT msip) through its own vectored trap
// table (tm_interrupt.h): the app must not install another trap vector.

#ifndef TM_SUITE_H_
#define TM_SUITE_H_

#include <stdbool.h>

#include "FreeRTOS.h"

#define TM_TEST_PRIORITY_MIN 1
#define TM_TEST_PRIORITY_MAX (TM_TEST_PRIORITY_MIN + 4)
#define TM_REPORTER_PRIORITY (configMAX_PRIORITIES - 1)

// Called by the reporter around each test's timed period: with starting = true once the test's
// tasks are warmed up, just before the period starts, and with starting = false just after it
// ended (before the test's tasks are deleted). It runs in the reporter task: it must not block
// for long.
typedef void (*tm_hook_t)(const char *test, bool starting);

// Installs the suite's trap vector and enables the software interrupt. Call from app_main(),
// before the scheduler starts.
void tm_suite_init(void);

// Runs the eight tests once, each for `period_ticks` ticks, and prints one line per test:
//   tm <test> count=<N> ticks=<period> cycles=<mcycle over the period> tasks=<c1>,...[ scenario=<tag>]
// (the suffix only when `scenario` is not NULL). `hook` may be NULL. A failed check prints
// "FAIL <what>" and ends the program with exit code 1.
void tm_suite_run(const char *scenario, unsigned period_ticks, tm_hook_t hook);

#endif  // TM_SUITE_H_
