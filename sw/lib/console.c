#include <couplet/console.h>

#include <stdio.h>

#include <couplet/autogen/simctrl_regs.h>
#include <couplet/mmio.h>
#include <couplet/soc_config.h>

void couplet_putc(char c) {
  couplet_mmio_write32(COUPLET_SIMCTRL_BASE + SIMCTRL_CONSOLE_OFFSET, (uint8_t)c);
}

void couplet_puts(const char *s) {
  while (*s != '\0') {
    couplet_putc(*s++);
  }
}

void couplet_put_hex(uint32_t value) {
  static const char digits[] = "0123456789abcdef";
  couplet_puts("0x");
  for (int shift = 28; shift >= 0; shift -= 4) {
    couplet_putc(digits[(value >> shift) & 0xfu]);
  }
}

void couplet_put_dec(uint32_t value) {
  char text[10];  // 4294967295 has 10 digits
  int count = 0;
  do {
    text[count++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value != 0u);
  while (count > 0) {
    couplet_putc(text[--count]);
  }
}

// picolibc's tinystdio writes each character through the stream's put function; the
// console never fails, so every character is reported as written.
static int stdio_put(char c, FILE *stream) {
  (void)stream;
  couplet_putc(c);
  return (unsigned char)c;
}

// One write-only stream serves all three standard streams: reading stdin fails with EOF
// because the stream has no read flag.
static FILE console_stream = FDEV_SETUP_STREAM(stdio_put, NULL, NULL, _FDEV_SETUP_WRITE);

FILE *const stdin = &console_stream;
FILE *const stdout = &console_stream;
FILE *const stderr = &console_stream;
