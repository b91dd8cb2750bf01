// What couplet's FreeRTOS glue gives an application (fw/rtos/apps/<app>/).
//
// An app defines app_main(): it creates its tasks (and queues, semaphores...) and returns;
// the firmware's main() then starts the scheduler. The app ends the program by calling exit()
// (or couplet_exit()) from a task: its argument becomes the simulator's exit code. Apps should
// use codes below 100 for their own failures; the glue reserves the ones below.

#ifndef COUPLET_RTOS_H_
#define COUPLET_RTOS_H_

#define COUPLET_RTOS_EXIT_SCHEDULER_RETURNED 110  // vTaskStartScheduler() came back: no heap for the idle task
#define COUPLET_RTOS_EXIT_ASSERT 111              // a configASSERT() failed
#define COUPLET_RTOS_EXIT_STACK_OVERFLOW 112      // a task overflowed its stack
#define COUPLET_RTOS_EXIT_MALLOC_FAILED 113       // pvPortMalloc() found no room in the heap
#define COUPLET_RTOS_EXIT_PANIC 114               // the Rust side panicked (src/main.rs)
// Unhandled exceptions and interrupts keep the SDK's codes (couplet/sim.h): 128 + exception
// code, 192 + interrupt number, 224 + NMI kind.

// Provided by the app: create the app's tasks and return.
void app_main(void);

// Called by main() before the scheduler starts: sends every trap to the FreeRTOS port.
void couplet_rtos_install_trap_vector(void);

#endif  // COUPLET_RTOS_H_
