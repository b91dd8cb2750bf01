// The Thread-Metric suite's software interrupt (CLINT msip) inside the FreeRTOS RISC-V port.
//
// The port sends every interrupt but the timer to freertos_risc_v_application_interrupt_handler,
// which apps/common/ already defines (it reports the interrupt as unhandled and ends the run), so
// an app cannot take msip through it. tm_interrupt.S instead installs a vectored trap table
// (mtvec mode 1): the software interrupt's slot saves the task's context with the port's own
// macros (portContext.h), calls tm_software_interrupt() on the interrupt stack and restores the
// context of whichever task is current then; every other slot jumps to the port's trap handler
// exactly as apps/common's direct vector does (one jump), so the tick and taskYIELD() cost the
// same as in the other apps.

#ifndef TM_INTERRUPT_H_
#define TM_INTERRUPT_H_

// Points mtvec at the vectored table and enables the software interrupt (mie.MSIE). Call from
// app_main(), after main() installed the common vector and before the scheduler starts.
void tm_install_interrupt_vector(void);

// Provided by tm_suite.c: runs for each software interrupt, with interrupts off, on the interrupt
// stack. It must clear msip; it may call the FreeRTOS ...FromISR API and portYIELD_FROM_ISR().
void tm_software_interrupt(void);

#endif  // TM_INTERRUPT_H_
