// test_exit_code: main's return value must become the simulator's exit code.
//
// Expected: console "test_exit_code: returning 42\n", exit code 42.

#include <stdio.h>

int main(void) {
  printf("test_exit_code: returning 42\n");
  return 42;
}
