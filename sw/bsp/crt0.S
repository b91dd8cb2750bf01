/* Start-up for couplet firmware: runs from the boot address with nothing initialised.
 *
 * The simulator (or a loader) has already placed every loadable segment in SRAM, so
 * there is no .data copy: only .tbss and .bss need zeroing. Returning from main() ends
 * the program with main's return value as the exit code.
 */

    .section .text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    /* The linker would otherwise relax this very load into a gp-relative one, using gp
     * before it is set. */
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
    /* picolibc keeps errno and other state thread-local, addressed from tp. */
    la      tp, __tls_base

    /* Zero .tbss and .bss, which the linker script places back to back, 8-byte aligned. */
    la      t0, __tbss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:
    /* Traps before this point go to the reset value of mtvec. The vector is 128-byte
     * aligned, so its low bits select direct mode. */
    la      t0, couplet_trap_vector
    csrw    mtvec, t0
    /* The core resets with mcycle and minstret inhibited. */
    csrw    mcountinhibit, zero

    call    couplet_bsp_init

    /* C/C++ constructors; s0/s1 survive the calls. */
    la      s0, __init_array_start
    la      s1, __init_array_end
3:  bgeu    s0, s1, 4f
    lw      t0, 0(s0)
    jalr    t0
    addi    s0, s0, 4
    j       3b
4:
    li      a0, 0               /* argc */
    li      a1, 0               /* argv */
    call    main
    /* a0 holds main's return value. */
    call    couplet_exit
    .size _start, . - _start
