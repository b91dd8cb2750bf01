// test_runaway: NEVER ENDS, ON PURPOSE.
//
// Prints "spinning" and then loops forever, so that the simulator's --max-cycles limit has
// something to stop. Expected: console "spinning\n", then the simulator reports a timeout
// after --max-cycles cycles. Do not use it as an example of anything else.

#include <stdio.h>

int main(void) {
  printf("spinning\n");
  for (;;) {
    // An empty asm keeps the loop a real loop at any optimisation level.
    __asm__ volatile("");
  }
}
