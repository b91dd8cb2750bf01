// 64-bit cycle and retired-instruction counts (mcycle/minstret), for measuring code.
//
// crt0 clears mcountinhibit, so both count from start-up. To time a piece of code, read
// both before and after and subtract: the reads themselves cost a few cycles and
// instructions, which the SDK does not try to subtract.

#ifndef COUPLET_COUNTERS_H_
#define COUPLET_COUNTERS_H_

#include <stdint.h>

// Clock cycles since reset (mcycle). Consistent even when the low word wraps during the read.
uint64_t couplet_cycles(void);

// Instructions retired since reset (minstret), read the same way.
uint64_t couplet_instret(void);

#endif  // COUPLET_COUNTERS_H_
