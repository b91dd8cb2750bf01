// test_printf: console output through couplet_puts and picolibc's printf.
//
// The test compares the console output byte for byte, so everything printed here is
// fixed. Expected console text (exit code 0):
//
//   test_printf: console and printf
//   hello from couplet
//   printf: -42 42 beef couplet Z
//   widths: [   42] [42   ] [00042] [  -7]
//   hex: 0xdeadbeef DEADBEEF 0x0000002a
//   64-bit: 1234567890123 -9223372036854775808 ffffffffffffffff
//   strings: [abc] [  abc] [abc  ] [ab]
//   char and percent: A 100%
//   puts adds a newline
//   raw console: 0x12345678 4294967295
//   snprintf: "n=17" returned 4
//   test_printf: PASS
//
// If snprintf produces something else, the line after "raw console" reads
// "snprintf: FAIL ..." and the exit code is 1.

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/console.h>

int main(void) {
  couplet_puts("test_printf: console and printf\n");
  printf("hello from couplet\n");
  printf("printf: %d %u %x %s %c\n", -42, 42u, 0xbeefu, "couplet", 'Z');
  printf("widths: [%5d] [%-5d] [%05d] [%4d]\n", 42, 42, 42, -7);
  printf("hex: %#x %X 0x%08x\n", 0xdeadbeefu, 0xdeadbeefu, 42u);
  printf("64-bit: %" PRIu64 " %" PRId64 " %" PRIx64 "\n", UINT64_C(1234567890123), INT64_MIN, UINT64_MAX);
  printf("strings: [%s] [%5s] [%-5s] [%.2s]\n", "abc", "abc", "abc", "abc");
  printf("char and percent: %c 100%%\n", 'A');
  puts("puts adds a newline");
  couplet_puts("raw console: ");
  couplet_put_hex(0x12345678u);
  couplet_putc(' ');
  couplet_put_dec(UINT32_MAX);
  couplet_putc('\n');

  char buffer[16];
  int written = snprintf(buffer, sizeof buffer, "n=%d", 17);
  if (written != 4 || strcmp(buffer, "n=17") != 0) {
    printf("snprintf: FAIL expected \"n=17\" returned 4, got \"%s\" returned %d\n", buffer, written);
    return 1;
  }
  printf("snprintf: \"%s\" returned %d\n", buffer, written);

  printf("test_printf: PASS\n");
  return 0;
}
