/* The trap vector of FreeRTOS firmware (mtvec direct mode).
 *
 * The port's freertos_risc_v_trap_handler could be mtvec itself (it is 256-byte aligned), but
 * CV32E40X sends NMIs (data bus errors) to mtvec + 0x3c, which would land in the middle of the
 * port's register saving. So mtvec points here instead: traps jump to the port, NMIs to the
 * SDK's trap entry, which reports them and ends the program (exit code 224 + kind). The cost is
 * one jump per trap.
 */

#include <couplet/trap_frame.h>

    .section .text.couplet_rtos_trap_vector, "ax", @progbits
    /* The NMI slot must stay at exactly +0x3c. */
    .option norelax
    /* CV32E40X keeps only mtvec[31:7]. */
    .balign 128
    .globl couplet_rtos_trap_vector
    .type couplet_rtos_trap_vector, @function
couplet_rtos_trap_vector:
    j       freertos_risc_v_trap_handler
    .org    couplet_rtos_trap_vector + COUPLET_TRAP_NMI_OFFSET
    j       couplet_trap_entry
    .size couplet_rtos_trap_vector, . - couplet_rtos_trap_vector
