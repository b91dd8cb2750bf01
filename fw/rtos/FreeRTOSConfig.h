/* FreeRTOS configuration of couplet firmware, for every kernel variant (the hardware-kernel
 * variants hw-tight/hw-mmio use it unchanged: their glue, fw/rtos/kernel_hw/couplet_kernel_hw.h,
 * checks what they need from it, such as configMAX_PRIORITIES against the accelerator's).
 *
 * freertos-build passes part of the configuration as -D flags, so it is NOT set here:
 *   from build.rs:  configTOTAL_HEAP_SIZE (sized from the SoC's SRAM by couplet/tools/freertos.py),
 *                   configMINIMAL_STACK_SIZE (256 words), configMAX_PRIORITIES (8),
 *                   configUSE_PREEMPTION (1);
 *   from the freertos-next features in Cargo.toml (0 when the feature is off):
 *                   INCLUDE_vTaskSuspend, INCLUDE_vTaskDelete, INCLUDE_vTaskDelayUntil,
 *                   INCLUDE_uxTaskGetStackHighWaterMark, INCLUDE_HeapFreeSize,
 *                   configUSE_COUNTING_SEMAPHORES, configUSE_RECURSIVE_MUTEXES,
 *                   configUSE_TRACE_FACILITY.
 * Defining any of them again here would be a redefinition with a possibly different value.
 *
 * Only the C compiler reads this file (the RISC-V port's assembly does not include it), but it
 * is kept assembler-safe anyway: no types, no casts outside #ifndef __ASSEMBLER__.
 */

#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* Clock, CLINT and memory of the SoC configuration being built for. */
#include <couplet/soc_config.h>

/* The RISC-V port's configCPU_CLOCK_HZ is the rate mtime counts at, not the core clock. */
#define configCPU_CLOCK_HZ COUPLET_MTIME_HZ
/* 1 ms ticks: at 50 MHz a tick every 50,000 cycles, so a simulated tick costs little wall time. */
#define configTICK_RATE_HZ 1000
#define configMTIME_BASE_ADDRESS (COUPLET_CLINT_BASE + 0xBFF8)
#define configMTIMECMP_BASE_ADDRESS (COUPLET_CLINT_BASE + 0x4000)
/* No configISR_STACK_SIZE_WORDS: interrupts run on the start-up stack (the top
 * COUPLET_STACK_SIZE bytes of SRAM), which main() no longer needs once the scheduler runs; the
 * link defines __freertos_irq_stack_top = __stack_top. */

#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#define configIDLE_SHOULD_YIELD 1
#define configMAX_TASK_NAME_LEN 12
#define configUSE_TASK_NOTIFICATIONS 1
/* Indexed notifications (xTaskNotifyIndexed...): index 0 is the one the plain calls, stream and
 * message buffers use. One, as in FreeRTOS's own defaults: each more costs every TCB 5 bytes and
 * every vTaskSuspend a turn of its loop over the indexes (12 cycles on the sw kernel for 3). An
 * app that wants more sets it in its FreeRTOSConfig_app.h (docs/rtos-app.md). */
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 1
#define configUSE_MUTEXES 1
/* Off: the hardware kernels serve queues from the accelerator, which never notifies a queue set
 * (the check at the end of this file). */
#define configUSE_QUEUE_SETS 0
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_NEWLIB_REENTRANT 0
#define configENABLE_BACKWARD_COMPATIBILITY 0
#define configUSE_MINI_LIST_ITEM 1
#define configSTACK_DEPTH_TYPE uint32_t
#define configMESSAGE_BUFFER_LENGTH_TYPE size_t
#define configHEAP_CLEAR_MEMORY_ON_FREE 0
#define configUSE_CO_ROUTINES 0
#define configMAX_CO_ROUTINE_PRIORITIES 1

/* The kernel allocates every object from heap_4's array. An app may turn static allocation on
 * (FreeRTOSConfig_app.h: configSUPPORT_STATIC_ALLOCATION 1, and configKERNEL_PROVIDED_STATIC_MEMORY
 * 1 or its own vApplicationGet...TaskMemory); the hardware kernels serve it too. */
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configAPPLICATION_ALLOCATED_HEAP 0

/* Failures end the simulation with an exit code of their own (apps/common/couplet_rtos.h). */
#define configUSE_MALLOC_FAILED_HOOK 1
#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configUSE_DAEMON_TASK_STARTUP_HOOK 0

/* Software timers, xTimerPendFunctionCall and the event groups' FromISR calls: the timer
 * service task takes a thread node of the hardware kernels' accelerator (apps get
 * MaxThreads - 2 tasks there). Highest priority, so that a callback runs as soon as it is due.
 * The timer queue (items of 4 words) is longer than the accelerator's queues, so on the hardware
 * kernels it is FreeRTOS's software queue and the accelerator's few queues are all the app's;
 * an app that sets it to at most their depth has it served by the accelerator
 * (fw/rtos/kernel_hw/queue_restricted.patch). */
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY (configMAX_PRIORITIES - 1)
#define configTIMER_QUEUE_LENGTH 8
/* Callbacks may printf (about 1 KiB of stack). */
#define configTIMER_TASK_STACK_DEPTH (2 * configMINIMAL_STACK_SIZE)

#define configGENERATE_RUN_TIME_STATS 0
#define configUSE_STATS_FORMATTING_FUNCTIONS 0

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_xTaskGetIdleTaskHandle 0
#define INCLUDE_eTaskGetState 1
/* Off as in FreeRTOS's defaults: on, every timed wait checks for an abort (xTaskCheckForTimeOut,
 * and on the hw kernels the glue's mark, tasks_abort.patch). An app that calls xTaskAbortDelay
 * sets it in its FreeRTOSConfig_app.h. */
#define INCLUDE_xTaskAbortDelay 0
#define INCLUDE_xTaskGetHandle 0
#define INCLUDE_xTaskResumeFromISR 1
#define INCLUDE_xSemaphoreGetMutexHolder 1
/* With the timers, and off with them: an app that turns configUSE_TIMERS off needs nothing more
 * (timers.c refuses xTimerPendFunctionCall without them). Macros, read where used: after the
 * app's settings. */
#define INCLUDE_xTimerPendFunctionCall configUSE_TIMERS
#define INCLUDE_xTimerGetTimerDaemonTaskHandle configUSE_TIMERS

#ifndef __ASSEMBLER__
/* The RISC-V port does not declare (or define) it, but freertos-next's shim calls it:
 * apps/common/couplet_rtos.c defines it. `long` is the port's BaseType_t. */
long xPortIsInsideInterrupt(void);

/* A failed configASSERT prints where and ends the run (COUPLET_RTOS_EXIT_ASSERT). */
void couplet_rtos_assert_failed(const char *file, int line);
#define configASSERT(x)                              \
  do {                                               \
    if ((x) == 0) {                                  \
      couplet_rtos_assert_failed(__FILE__, __LINE__); \
    }                                                \
  } while (0)
#endif

/* An app's own settings (docs/rtos-app.md): a header FreeRTOSConfig_app.h in the app's folder,
 * which is on the include path, changes any setting above with #undef and #define. */
#if __has_include("FreeRTOSConfig_app.h")
#include "FreeRTOSConfig_app.h"
#endif

/* What the hardware kernels (fw/rtos/kernel_hw) cannot serve, whoever set it. */
#if COUPLET_RTOS_KERNEL_HW
#if configUSE_QUEUE_SETS
#error "kernel_hw: configUSE_QUEUE_SETS is not supported by the hw kernels (the accelerator's queues do not notify a queue set)"
#endif
#endif

#endif /* FREERTOS_CONFIG_H */
