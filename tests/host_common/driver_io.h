// Command-line parsing shared by the host test drivers (tests/aes_host, tests/sha3_host): each
// reads one command per line from stdin and answers on stdout, bytes as hex. Include once, after
// defining DRIVER_NAME (the name in error messages) and MAX_BYTES (the longest byte string).

#ifndef COUPLET_TESTS_DRIVER_IO_H_
#define COUPLET_TESTS_DRIVER_IO_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A malformed command is a bug in the Python side of the test: stop loudly.
static void fail_usage(const char *line) {
  fprintf(stderr, DRIVER_NAME ": bad command: %.200s\n", line);
  exit(2);
}

// An index below `count`, or -1 for "-" (a NULL pointer).
static int parse_index(const char *text, int count, const char *line) {
  if (text == NULL) fail_usage(line);
  if (strcmp(text, "-") == 0) return -1;
  int index = atoi(text);
  if (index < 0 || index >= count) fail_usage(line);
  return index;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses hex into buf; returns the byte count, or -1 for "-" ("=" is the empty string).
static long parse_hex(const char *text, uint8_t *buf, size_t cap, const char *line) {
  if (text == NULL) fail_usage(line);
  if (strcmp(text, "-") == 0) return -1;
  if (strcmp(text, "=") == 0) return 0;
  size_t n = strlen(text);
  if (n % 2u != 0u || n / 2u > cap) fail_usage(line);
  for (size_t i = 0; i < n / 2u; ++i) {
    int hi = hex_value(text[2u * i]), lo = hex_value(text[2u * i + 1u]);
    if (hi < 0 || lo < 0) fail_usage(line);
    buf[i] = (uint8_t)(hi * 16 + lo);
  }
  return (long)(n / 2u);
}

static void print_hex(const uint8_t *buf, size_t n) {
  if (n == 0u) {
    fputs("=", stdout);  // empty, distinct from "-"
  }
  for (size_t i = 0; i < n; ++i) {
    printf("%02x", buf[i]);
  }
}

// The command being answered (the hex of up to MAX_BYTES bytes and a few other words), and the
// copy of it that strtok cuts up.
static char command_line[2 * MAX_BYTES + 512];
static char command_copy[sizeof command_line];

// Reads the next non-empty line of stdin into command_line, without its line end, and into
// command_copy; returns its first word, NULL at the end of the input.
static const char *next_command(void) {
  while (fgets(command_line, (int)sizeof command_line, stdin) != NULL) {
    size_t n = strlen(command_line);
    while (n > 0u && (command_line[n - 1u] == '\n' || command_line[n - 1u] == '\r')) command_line[--n] = '\0';
    if (n == 0u) continue;
    memcpy(command_copy, command_line, n + 1u);
    return strtok(command_copy, " ");
  }
  return NULL;
}

#endif  // COUPLET_TESTS_DRIVER_IO_H_
