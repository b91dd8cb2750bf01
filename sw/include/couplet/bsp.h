// Entry points the start-up assembly (sw/bsp/*.S) calls in the library. Apps do not call
// these; they are declared here so that their definitions are checked against one prototype.

#ifndef COUPLET_BSP_H_
#define COUPLET_BSP_H_

#include <couplet/irq.h>

// Called by crt0 before the C constructors: puts the interrupt sources in a known quiet
// state (mie clear, timer compare at maximum, msip clear), whatever ran before.
void couplet_bsp_init(void);

// Called by trap_entry.S with the saved frame, for every interrupt and exception.
void couplet_trap_dispatch(couplet_trap_frame_t *frame);

#endif  // COUPLET_BSP_H_
