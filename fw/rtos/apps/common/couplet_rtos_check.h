// Checks for FreeRTOS apps (fw/rtos/apps/): one place for the lines tests/ parse.
//
// Test apps run every check and report each: "ok <name>", or "FAIL <name>: <what was seen>",
// and end with exit(couplet_rtos_exit_code()). Benchmark apps stop at the first failed check
// instead: "FAIL <what>" and exit code 1, so no figure is reported from a broken run.

#ifndef COUPLET_RTOS_CHECK_H_
#define COUPLET_RTOS_CHECK_H_

#include <stdbool.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"

// Prints the check's line; on failure `format` and the arguments say what was seen, and the
// failure is counted.
void couplet_rtos_check(bool ok, const char *name, const char *format, ...) __attribute__((format(printf, 3, 4)));
// Failed checks so far.
int couplet_rtos_failures(void);
// The exit code of a test app: the number of failed checks, at most 99 (codes from 100 up are the
// glue's, couplet_rtos.h).
int couplet_rtos_exit_code(void);

// Creates a task or ends the run ("FAIL could not create task <name>", exit code 99): a test
// needs every task it asks for. Returns its handle.
TaskHandle_t couplet_rtos_spawn(TaskFunction_t code, const char *name, uint32_t stack_words, UBaseType_t priority,
                                void *arg);

// A benchmark's check: "FAIL <what>" on the raw console (safe from any task) and exit(1).
_Noreturn void couplet_rtos_fail(const char *what);
static inline void couplet_rtos_expect(bool ok, const char *what) {
  if (!ok) {
    couplet_rtos_fail(what);
  }
}

#endif  // COUPLET_RTOS_CHECK_H_
