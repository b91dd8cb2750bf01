/* test_order's own settings (fw/rtos/FreeRTOSConfig.h includes this file last).
 *
 * No timer task: it would be the highest task at the start and run first, and the order among
 * the workers at the start is what the app checks. No time slicing: a tick switches tasks only
 * when a higher one becomes ready, so the order of the turns depends on the calls alone, not on
 * where the ticks fall (which differs between kernels that run at different speeds). */
#undef configUSE_TIMERS
#define configUSE_TIMERS 0
#undef configUSE_TIME_SLICING
#define configUSE_TIME_SLICING 0
