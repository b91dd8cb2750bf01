/* test_api's own settings (fw/rtos/FreeRTOSConfig.h includes this file last).
 *
 * Its checks count ticks: shorter ticks make the same checks cost half the simulated time. A
 * tick is still 25,000 cycles on the default SoC, far more than any step a check times (the
 * controller never prints between a tick-aligned start and the measurement). */
#undef configTICK_RATE_HZ
#define configTICK_RATE_HZ 2000

/* A timer queue that fits the accelerator's queues (4 deep on the default SoC): on the hardware
 * kernels the accelerator serves it, and the timer task waits on it (queue_restricted.patch), so
 * every timer check below goes through it there. */
#undef configTIMER_QUEUE_LENGTH
#define configTIMER_QUEUE_LENGTH 4

/* The API the tree leaves off by default (FreeRTOS's defaults), which test_api checks. */
#undef configTASK_NOTIFICATION_ARRAY_ENTRIES
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 3
#undef INCLUDE_xTaskAbortDelay
#define INCLUDE_xTaskAbortDelay 1

/* Static allocation (test_static_allocation); the kernel provides the idle and timer tasks'
 * memory. */
#undef configSUPPORT_STATIC_ALLOCATION
#define configSUPPORT_STATIC_ALLOCATION 1
#define configKERNEL_PROVIDED_STATIC_MEMORY 1
