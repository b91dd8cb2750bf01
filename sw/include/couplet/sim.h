// Ending the program: the simulation-control exit register.
//
// In simulation the write ends the run and bits [7:0] of `code` become the simulator's
// process exit code. Returning from main() does the same (crt0 calls couplet_exit), and so
// do exit() and _exit() from <stdlib.h>/<unistd.h>; exit() also runs atexit handlers.

#ifndef COUPLET_SIM_H_
#define COUPLET_SIM_H_

// Exit codes the SDK itself uses; apps should stay below 128 for their own failures.
#define COUPLET_EXIT_UNHANDLED_EXCEPTION 128  // + exception code (0..63)
#define COUPLET_EXIT_UNHANDLED_INTERRUPT 192  // + interrupt number (0..31)
#define COUPLET_EXIT_UNHANDLED_NMI 224        // + 0 load bus fault, + 1 store bus fault

// Ends the program with exit code `code & 0xff`. Never returns: should the write not stop
// the machine (no simulator attached), the core waits in wfi with interrupts masked.
_Noreturn void couplet_exit(int code);

#endif  // COUPLET_SIM_H_
