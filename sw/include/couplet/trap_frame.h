// Layout of the trap frame that sw/bsp/trap_entry.S builds on the stack.
//
// Plain numbers only, so the assembler can include this file too. irq.h declares the
// matching C struct and checks every offset against these at compile time.

#ifndef COUPLET_TRAP_FRAME_H_
#define COUPLET_TRAP_FRAME_H_

#define COUPLET_TRAP_FRAME_RA 0
#define COUPLET_TRAP_FRAME_T0 4
#define COUPLET_TRAP_FRAME_T1 8
#define COUPLET_TRAP_FRAME_T2 12
#define COUPLET_TRAP_FRAME_A0 16
#define COUPLET_TRAP_FRAME_A1 20
#define COUPLET_TRAP_FRAME_A2 24
#define COUPLET_TRAP_FRAME_A3 28
#define COUPLET_TRAP_FRAME_A4 32
#define COUPLET_TRAP_FRAME_A5 36
#define COUPLET_TRAP_FRAME_A6 40
#define COUPLET_TRAP_FRAME_A7 44
#define COUPLET_TRAP_FRAME_T3 48
#define COUPLET_TRAP_FRAME_T4 52
#define COUPLET_TRAP_FRAME_T5 56
#define COUPLET_TRAP_FRAME_T6 60
#define COUPLET_TRAP_FRAME_MEPC 64
#define COUPLET_TRAP_FRAME_MCAUSE 68
#define COUPLET_TRAP_FRAME_MTVAL 72
#define COUPLET_TRAP_FRAME_MSTATUS 76
// A multiple of 16: the psABI wants sp 16-byte aligned when the C dispatcher is called.
#define COUPLET_TRAP_FRAME_SIZE 80

// CV32E40X sends NMIs (data bus errors) to mtvec base + this offset, whatever the mode.
#define COUPLET_TRAP_NMI_OFFSET 0x3c

#endif  // COUPLET_TRAP_FRAME_H_
