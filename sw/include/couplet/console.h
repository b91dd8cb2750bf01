// Console output through the simulation-control block (one byte per store, never blocks).
//
// printf, puts and friends from <stdio.h> also work: console.c provides picolibc's
// stdin/stdout/stderr on top of couplet_putc. stdin has no input: reads return EOF.
// Use the couplet_put* functions inside trap handlers; they do not touch stdio state.

#ifndef COUPLET_CONSOLE_H_
#define COUPLET_CONSOLE_H_

#include <stdint.h>

// Writes one byte.
void couplet_putc(char c);

// Writes `s` as is. Unlike puts(), no newline is added.
void couplet_puts(const char *s);

// Writes `value` as "0x" and 8 lower-case hex digits.
void couplet_put_hex(uint32_t value);

// Writes `value` in decimal.
void couplet_put_dec(uint32_t value);

#endif  // COUPLET_CONSOLE_H_
