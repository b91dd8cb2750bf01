/* The trap vector of couplet firmware (mtvec direct mode).
 *
 * Every interrupt and exception enters at couplet_trap_vector; CV32E40X sends its NMIs
 * (bus errors on loads and stores) to couplet_trap_vector + 0x3c instead. Both jump to the
 * same code, which saves the registers a C function may clobber, plus the trap CSRs, in a
 * couplet_trap_frame_t on the current stack and lets couplet_trap_dispatch() decide
 * (mcause tells the three kinds apart). The callee-saved registers need no saving: the C
 * code preserves them itself. mepc and mstatus are reloaded from the frame, so a handler
 * can change where execution resumes.
 */

#include <couplet/trap_frame.h>

    .section .text.couplet_trap_vector, "ax", @progbits
    /* The NMI slot must stay at exactly +0x3c: keep the linker from shrinking anything in
     * this file. */
    .option norelax

    /* CV32E40X keeps only mtvec[31:7]. */
    .balign 128
    .globl couplet_trap_vector
    .type couplet_trap_vector, @function
couplet_trap_vector:
    j       couplet_trap_entry
    .org    couplet_trap_vector + COUPLET_TRAP_NMI_OFFSET
    j       couplet_trap_entry
    .size couplet_trap_vector, . - couplet_trap_vector

    .globl couplet_trap_entry
    .type couplet_trap_entry, @function
couplet_trap_entry:
    addi    sp, sp, -COUPLET_TRAP_FRAME_SIZE
    sw      ra, COUPLET_TRAP_FRAME_RA(sp)
    sw      t0, COUPLET_TRAP_FRAME_T0(sp)
    sw      t1, COUPLET_TRAP_FRAME_T1(sp)
    sw      t2, COUPLET_TRAP_FRAME_T2(sp)
    sw      a0, COUPLET_TRAP_FRAME_A0(sp)
    sw      a1, COUPLET_TRAP_FRAME_A1(sp)
    sw      a2, COUPLET_TRAP_FRAME_A2(sp)
    sw      a3, COUPLET_TRAP_FRAME_A3(sp)
    sw      a4, COUPLET_TRAP_FRAME_A4(sp)
    sw      a5, COUPLET_TRAP_FRAME_A5(sp)
    sw      a6, COUPLET_TRAP_FRAME_A6(sp)
    sw      a7, COUPLET_TRAP_FRAME_A7(sp)
    sw      t3, COUPLET_TRAP_FRAME_T3(sp)
    sw      t4, COUPLET_TRAP_FRAME_T4(sp)
    sw      t5, COUPLET_TRAP_FRAME_T5(sp)
    sw      t6, COUPLET_TRAP_FRAME_T6(sp)
    csrr    t0, mepc
    sw      t0, COUPLET_TRAP_FRAME_MEPC(sp)
    csrr    t0, mcause
    sw      t0, COUPLET_TRAP_FRAME_MCAUSE(sp)
    csrr    t0, mtval
    sw      t0, COUPLET_TRAP_FRAME_MTVAL(sp)
    csrr    t0, mstatus
    sw      t0, COUPLET_TRAP_FRAME_MSTATUS(sp)

    mv      a0, sp
    call    couplet_trap_dispatch

    lw      t0, COUPLET_TRAP_FRAME_MEPC(sp)
    csrw    mepc, t0
    lw      t0, COUPLET_TRAP_FRAME_MSTATUS(sp)
    csrw    mstatus, t0
    lw      ra, COUPLET_TRAP_FRAME_RA(sp)
    lw      t0, COUPLET_TRAP_FRAME_T0(sp)
    lw      t1, COUPLET_TRAP_FRAME_T1(sp)
    lw      t2, COUPLET_TRAP_FRAME_T2(sp)
    lw      a0, COUPLET_TRAP_FRAME_A0(sp)
    lw      a1, COUPLET_TRAP_FRAME_A1(sp)
    lw      a2, COUPLET_TRAP_FRAME_A2(sp)
    lw      a3, COUPLET_TRAP_FRAME_A3(sp)
    lw      a4, COUPLET_TRAP_FRAME_A4(sp)
    lw      a5, COUPLET_TRAP_FRAME_A5(sp)
    lw      a6, COUPLET_TRAP_FRAME_A6(sp)
    lw      a7, COUPLET_TRAP_FRAME_A7(sp)
    lw      t3, COUPLET_TRAP_FRAME_T3(sp)
    lw      t4, COUPLET_TRAP_FRAME_T4(sp)
    lw      t5, COUPLET_TRAP_FRAME_T5(sp)
    lw      t6, COUPLET_TRAP_FRAME_T6(sp)
    addi    sp, sp, COUPLET_TRAP_FRAME_SIZE
    mret
    .size couplet_trap_entry, . - couplet_trap_entry
