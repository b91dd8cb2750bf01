// couplet_rtos_check.h: the check lines of FreeRTOS test and benchmark apps.

#include "couplet_rtos_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <couplet/console.h>

#define MAX_EXIT_CODE 99
#define EXIT_BENCH_FAILED 1
#define EXIT_NO_TASK 99

static int failures;

void couplet_rtos_check(bool ok, const char *name, const char *format, ...) {
  if (ok) {
    printf("ok %s\n", name);
    return;
  }
  failures++;
  printf("FAIL %s: ", name);
  va_list args;
  va_start(args, format);
  vprintf(format, args);
  va_end(args);
  printf("\n");
}

int couplet_rtos_failures(void) { return failures; }

int couplet_rtos_exit_code(void) { return failures > MAX_EXIT_CODE ? MAX_EXIT_CODE : failures; }

TaskHandle_t couplet_rtos_spawn(TaskFunction_t code, const char *name, uint32_t stack_words, UBaseType_t priority,
                                void *arg) {
  TaskHandle_t handle = NULL;
  if (xTaskCreate(code, name, stack_words, arg, priority, &handle) != pdPASS) {
    printf("FAIL could not create task %s\n", name);
    exit(EXIT_NO_TASK);
  }
  return handle;
}

_Noreturn void couplet_rtos_fail(const char *what) {
  couplet_puts("FAIL ");
  couplet_puts(what);
  couplet_putc('\n');
  exit(EXIT_BENCH_FAILED);
}
