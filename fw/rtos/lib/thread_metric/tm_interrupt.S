/* The Thread-Metric suite's vectored trap table (mtvec mode 1) and software-interrupt entry: see
 * tm_interrupt.h.
 *
 * In vectored mode CV32E40X enters exceptions at the base, interrupt n at base + 4n, and NMIs
 * at base + 0x3c (slot 15, which no interrupt uses). Each slot is one 4-byte jump, so the table
 * is assembled without relaxation or compressed instructions.
 */

#include <couplet/trap_frame.h>

#include "portContext.h"

    .section .text.tm_trap_table, "ax", @progbits
    .option push
    .option norelax
    .option norvc
    /* CV32E40X keeps only mtvec[31:7]. */
    .balign 128
    .globl tm_trap_table
    .type tm_trap_table, @function
tm_trap_table:
    /* 0: exceptions (ecall is taskYIELD), 1-2: not wired. */
    .rept 3
    j       freertos_risc_v_trap_handler
    .endr
    /* 3: the machine software interrupt (CLINT msip). */
    j       tm_software_irq_entry
    /* 4-14: the timer (7, the tick) and the rest go to the port as with the common vector. */
    .rept 11
    j       freertos_risc_v_trap_handler
    .endr
    /* Fails to assemble (.org cannot move back) if the slots above grew. */
    .org    tm_trap_table + COUPLET_TRAP_NMI_OFFSET
    /* 15: NMIs (bus errors): the SDK reports them and ends the run. */
    j       couplet_trap_entry
    /* 16-31: the accelerators' interrupts, not enabled here: unhandled, as elsewhere. */
    .rept 16
    j       freertos_risc_v_trap_handler
    .endr
    .size tm_trap_table, . - tm_trap_table
    .option pop

/* The port's own interrupt path (freertos_risc_v_interrupt_handler in portASM.S) with our
 * handler: save the task's context, switch to the interrupt stack, call, then restore the
 * context of pxCurrentTCB, which portYIELD_FROM_ISR() may have changed. */
    .section .text.tm_software_irq_entry, "ax", @progbits
    .balign 4
    .type tm_software_irq_entry, @function
tm_software_irq_entry:
    portcontextSAVE_INTERRUPT_CONTEXT
    call    tm_software_interrupt
    portcontextRESTORE_CONTEXT
    .size tm_software_irq_entry, . - tm_software_irq_entry
