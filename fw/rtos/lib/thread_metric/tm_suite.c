// The Thread-Metric-equivalent suite (tm_suite.h), written for couplet from the suite's public
// description (docs/bench_rtos.md describes every test). Plain FreeRTOS code: it runs unchanged on
// every kernel variant. Apps fw/rtos/apps/thread_metric and facv_echo use it (their `libraries`
// file names this folder).
//
// The calling task (the reporter, at TM_REPORTER_PRIORITY) runs the tests one after the other.
// For each test it creates the test's tasks (and queue or semaphore), lets them run once to warm
// up, waits for a tick, reads the counters and sleeps for the period: the test's tasks have the
// processor for exactly that period (minus the tick interrupts and whatever the app runs above
// them). It then reads the counters again (a test's count is the difference), deletes the tasks
// and prints:
//   tm <test> count=<sum of the counters> ticks=<period> cycles=<mcycle over the period> tasks=<c1>,...
// with " scenario=<tag>" appended when a tag is given. Any failed check prints "FAIL <what>" and
// ends the program with exit code 1.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/console.h>
#include <couplet/counters.h>
#include <couplet/csr.h>
#include <couplet/timer.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "tm_interrupt.h"
#include "tm_suite.h"

// The tests' tasks use priorities BASE_PRIORITY .. BASE_PRIORITY + 4 (tm_suite.h).
#define BASE_PRIORITY TM_TEST_PRIORITY_MIN
#define TASK_STACK configMINIMAL_STACK_SIZE
#define MAX_TASKS 5

#define MESSAGE_WORDS 4
#define QUEUE_DEPTH 4
#define ALLOC_BYTES 128
#define WORK_WORDS 32


static TaskHandle_t tasks[MAX_TASKS];
static unsigned task_count;
static volatile uint32_t counters[MAX_TASKS];
static QueueHandle_t queue;
static SemaphoreHandle_t semaphore;

static TaskHandle_t spawn(TaskFunction_t code, UBaseType_t priority, uintptr_t index) {
  TaskHandle_t handle = NULL;
  couplet_rtos_expect(task_count < MAX_TASKS, "too many tasks");
  if (xTaskCreate(code, "tm", TASK_STACK, (void *)index, priority, &handle) != pdPASS) {
    couplet_rtos_fail("xTaskCreate");
  }
  tasks[task_count++] = handle;
  return handle;
}

// ----------------------------------------------------------------------------- basic processing

// One task does a fixed piece of arithmetic on a small array per iteration; no kernel call.
static volatile uint32_t work[WORK_WORDS];

static void basic_task(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t acc = 0;
    for (unsigned i = 0; i < WORK_WORDS; i++) {
      acc = (acc ^ work[i]) * 3u + i;
      work[i] = acc;
    }
    for (unsigned i = 0; i < WORK_WORDS; i++) {
      work[i] = work[i] >> 1;
    }
    counters[0]++;
  }
}

static void setup_basic(void) {
  for (unsigned i = 0; i < WORK_WORDS; i++) {
    work[i] = i;
  }
  spawn(basic_task, BASE_PRIORITY, 0);
}

// ----------------------------------------------------------------------------- cooperative scheduling

// Five tasks of one priority: count, then taskYIELD() to the next in round robin.
static void cooperative_task(void *arg) {
  uintptr_t me = (uintptr_t)arg;
  for (;;) {
    counters[me]++;
    taskYIELD();
  }
}

static void setup_cooperative(void) {
  for (uintptr_t i = 0; i < MAX_TASKS; i++) {
    spawn(cooperative_task, BASE_PRIORITY, i);
  }
}

// ----------------------------------------------------------------------------- preemptive scheduling

// Five tasks of rising priority. The lowest resumes the next one up, which preempts it at once and
// resumes the next, up to the highest; each counts and suspends itself on the way back down, so
// the lowest counts last and starts the next round. A round is 4 resumes and 4 self-suspends,
// each with a context switch.
static void preemptive_task(void *arg) {
  uintptr_t me = (uintptr_t)arg;
  for (;;) {
    if (me + 1 < MAX_TASKS) {
      vTaskResume(tasks[me + 1]);
    }
    counters[me]++;
    if (me != 0) {
      vTaskSuspend(NULL);
    }
  }
}

static void setup_preemptive(void) {
  for (uintptr_t i = 0; i < MAX_TASKS; i++) {
    spawn(preemptive_task, BASE_PRIORITY + i, i);
  }
  // Only the lowest starts ready; the others wait to be resumed. None has run yet (the reporter
  // has the highest priority), so each is suspended before its first instruction.
  for (unsigned i = 1; i < MAX_TASKS; i++) {
    vTaskSuspend(tasks[i]);
  }
}

// ----------------------------------------------------------------------------- interrupt processing

// The software interrupt's handler (tm_interrupt.S calls it, on the interrupt stack) runs one of
// two actions, chosen by the test.
static volatile uint32_t interrupts_taken;
static void (*volatile interrupt_action)(BaseType_t *woken);

void tm_software_interrupt(void) {
  couplet_software_irq_clear();
  interrupts_taken++;
  BaseType_t woken = pdFALSE;
  if (interrupt_action != NULL) {
    interrupt_action(&woken);
  }
  portYIELD_FROM_ISR(woken);
}

static void give_from_isr(BaseType_t *woken) {
  xSemaphoreGiveFromISR(semaphore, woken);
}

// One task raises the software interrupt (CLINT msip), whose handler gives a semaphore; the task
// takes it and counts.
static void interrupt_task(void *arg) {
  (void)arg;
  for (;;) {
    couplet_software_irq_raise();
    if (xSemaphoreTake(semaphore, portMAX_DELAY) == pdTRUE) {
      counters[0]++;
    }
  }
}

static void setup_interrupt(void) {
  semaphore = xSemaphoreCreateBinary();
  couplet_rtos_expect(semaphore != NULL, "xSemaphoreCreateBinary");
  interrupt_action = give_from_isr;
  spawn(interrupt_task, BASE_PRIORITY, 0);
}

// ----------------------------------------------------------------------------- interrupt preemption

static void resume_from_isr(BaseType_t *woken) {
  *woken = xTaskResumeFromISR(tasks[1]);
}

// A low task raises the software interrupt; the handler resumes a higher task, which preempts the
// low one as the interrupt returns, counts and suspends itself; then the low one counts.
static void preempted_task(void *arg) {
  (void)arg;
  for (;;) {
    couplet_software_irq_raise();
    counters[0]++;
  }
}

static void preempting_task(void *arg) {
  (void)arg;
  for (;;) {
    counters[1]++;
    vTaskSuspend(NULL);
  }
}

static void setup_interrupt_preemption(void) {
  spawn(preempted_task, BASE_PRIORITY, 0);
  spawn(preempting_task, BASE_PRIORITY + 1, 1);
  vTaskSuspend(tasks[1]);
  interrupt_action = resume_from_isr;
}

// ----------------------------------------------------------------------------- message processing

// One task sends a 4-word message to a queue and receives it back, checking it.
static void message_task(void *arg) {
  (void)arg;
  uint32_t out[MESSAGE_WORDS];
  uint32_t in[MESSAGE_WORDS];
  for (;;) {
    uint32_t n = counters[0];
    for (unsigned i = 0; i < MESSAGE_WORDS; i++) {
      out[i] = n + i;
    }
    couplet_rtos_expect(xQueueSend(queue, out, 0) == pdTRUE, "message processing: send failed");
    couplet_rtos_expect(xQueueReceive(queue, in, 0) == pdTRUE, "message processing: receive failed");
    couplet_rtos_expect(in[0] == n && in[MESSAGE_WORDS - 1] == n + MESSAGE_WORDS - 1, "message processing: wrong message");
    counters[0]++;
  }
}

static void setup_message(void) {
  queue = xQueueCreate(QUEUE_DEPTH, MESSAGE_WORDS * sizeof(uint32_t));
  couplet_rtos_expect(queue != NULL, "xQueueCreate");
  spawn(message_task, BASE_PRIORITY, 0);
}

// ----------------------------------------------------------------------------- synchronization

// One task takes a semaphore (available) and gives it back.
static void synchronization_task(void *arg) {
  (void)arg;
  for (;;) {
    couplet_rtos_expect(xSemaphoreTake(semaphore, 0) == pdTRUE, "synchronization: take failed");
    couplet_rtos_expect(xSemaphoreGive(semaphore) == pdTRUE, "synchronization: give failed");
    counters[0]++;
  }
}

static void setup_synchronization(void) {
  semaphore = xSemaphoreCreateBinary();
  couplet_rtos_expect(semaphore != NULL, "xSemaphoreCreateBinary");
  couplet_rtos_expect(xSemaphoreGive(semaphore) == pdTRUE, "synchronization: first give failed");
  spawn(synchronization_task, BASE_PRIORITY, 0);
}

// ----------------------------------------------------------------------------- memory allocation

// One task allocates 128 bytes from the kernel's heap and frees them.
static void memory_task(void *arg) {
  (void)arg;
  for (;;) {
    uint8_t *block = pvPortMalloc(ALLOC_BYTES);
    couplet_rtos_expect(block != NULL, "memory allocation: pvPortMalloc failed");
    block[0] = (uint8_t)counters[0];
    vPortFree(block);
    counters[0]++;
  }
}

static void setup_memory(void) {
  spawn(memory_task, BASE_PRIORITY, 0);
}

// ----------------------------------------------------------------------------- reporter

typedef struct {
  const char *name;
  void (*setup)(void);
} test_t;

static const test_t tests[] = {
    {"basic", setup_basic},
    {"cooperative", setup_cooperative},
    {"preemptive", setup_preemptive},
    {"interrupt", setup_interrupt},
    {"interrupt-preemption", setup_interrupt_preemption},
    {"message", setup_message},
    {"synchronization", setup_synchronization},
    {"memory", setup_memory},
};

static void run_test(const test_t *test, const char *scenario, unsigned period_ticks, tm_hook_t hook) {
  task_count = 0;
  interrupt_action = NULL;
  for (unsigned i = 0; i < MAX_TASKS; i++) {
    counters[i] = 0;  // no task runs yet: the last test's are deleted, this one's not created
  }
  test->setup();
  // The tasks run (and warm up) until the next tick; the period starts at that tick.
  vTaskDelay(1);
  if (hook != NULL) {
    hook(test->name, true);
  }
  // Counted from here on as a difference, never by zeroing: the tick that woke this task may
  // have preempted a task between the load and the store of its counter++, and a zero written
  // now would be overwritten by that store (the last test's count plus the warm-up's).
  uint32_t begin[MAX_TASKS];
  for (unsigned i = 0; i < MAX_TASKS; i++) {
    begin[i] = counters[i];
  }
  interrupts_taken = 0;
  uint64_t start = couplet_cycles();
  vTaskDelay(period_ticks);
  uint32_t snapshot[MAX_TASKS];
  for (unsigned i = 0; i < MAX_TASKS; i++) {
    snapshot[i] = counters[i] - begin[i];
  }
  uint64_t cycles = couplet_cycles() - start;
  if (hook != NULL) {
    hook(test->name, false);
  }
  // The interrupt tests count only what their interrupt handler let happen.
  couplet_rtos_expect(interrupt_action == NULL || interrupts_taken > 0, "the software interrupt was never taken");
  // No interrupt may reach a task or semaphore that is about to go.
  interrupt_action = NULL;
  couplet_software_irq_clear();
  // The tasks stop here: deleted by the reporter, which none of them can preempt.
  for (unsigned i = 0; i < task_count; i++) {
    vTaskDelete(tasks[i]);
  }
  if (queue != NULL) {
    vQueueDelete(queue);
    queue = NULL;
  }
  if (semaphore != NULL) {
    vSemaphoreDelete(semaphore);
    semaphore = NULL;
  }
  uint32_t total = 0;
  for (unsigned i = 0; i < task_count; i++) {
    total += snapshot[i];
  }
  couplet_puts("tm ");
  couplet_puts(test->name);
  couplet_puts(" count=");
  couplet_put_dec(total);
  couplet_puts(" ticks=");
  couplet_put_dec(period_ticks);
  couplet_puts(" cycles=");
  couplet_put_dec((uint32_t)cycles);
  couplet_puts(" tasks=");
  for (unsigned i = 0; i < task_count; i++) {
    if (i != 0) {
      couplet_putc(',');
    }
    couplet_put_dec(snapshot[i]);
  }
  if (scenario != NULL) {
    couplet_puts(" scenario=");
    couplet_puts(scenario);
  }
  couplet_putc('\n');
}

void tm_suite_init(void) {
  tm_install_interrupt_vector();
}

void tm_suite_run(const char *scenario, unsigned period_ticks, tm_hook_t hook) {
  couplet_rtos_expect(period_ticks > 0, "tm_suite_run: period_ticks is 0");
  for (unsigned i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    run_test(&tests[i], scenario, period_ticks, hook);
  }
}
