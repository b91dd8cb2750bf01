#include <couplet/selftest.h>

#include <couplet/console.h>

static void put_hex64(uint64_t value) {
  couplet_put_hex((uint32_t)(value >> 32));
  couplet_putc('_');
  // Without a second "0x": 0x00000001_00000000 reads as one number.
  uint32_t low = (uint32_t)value;
  for (int shift = 28; shift >= 0; shift -= 4) {
    couplet_putc("0123456789abcdef"[(low >> shift) & 0xfu]);
  }
}

static void put_ok(const char *what) {
  couplet_puts("  ok   ");
  couplet_puts(what);
}

static void put_fail(const char *what) {
  couplet_puts("  FAIL ");
  couplet_puts(what);
}

static void put_hex32(uint64_t value) {
  couplet_put_hex((uint32_t)value);
}

// An equality check's line: "ok WHAT = GOT" or "FAIL WHAT: expected E, got G", values by `put`.
static bool expect_equal(const char *what, uint64_t expected, uint64_t got, void (*put)(uint64_t)) {
  if (expected == got) {
    put_ok(what);
    couplet_puts(" = ");
    put(got);
    couplet_putc('\n');
    return true;
  }
  put_fail(what);
  couplet_puts(": expected ");
  put(expected);
  couplet_puts(", got ");
  put(got);
  couplet_putc('\n');
  return false;
}

bool couplet_expect_u32(const char *what, uint32_t expected, uint32_t got) {
  return expect_equal(what, expected, got, put_hex32);
}

bool couplet_expect_u64(const char *what, uint64_t expected, uint64_t got) {
  return expect_equal(what, expected, got, put_hex64);
}

static void put_u64_dec(uint64_t value) {
  char text[20];  // 18446744073709551615 has 20 digits
  int count = 0;
  do {
    text[count++] = (char)('0' + (int)(value % 10u));
    value /= 10u;
  } while (value != 0u);
  while (count > 0) {
    couplet_putc(text[--count]);
  }
}

bool couplet_expect_range_u64(const char *what, uint64_t low, uint64_t high, uint64_t got) {
  bool pass = low <= got && got <= high;
  if (pass) {
    put_ok(what);
    couplet_puts(" = ");
  } else {
    put_fail(what);
    couplet_puts(": expected ");
    put_u64_dec(low);
    couplet_puts("..");
    put_u64_dec(high);
    couplet_puts(", got ");
  }
  put_u64_dec(got);
  if (pass) {
    couplet_puts(" (in ");
    put_u64_dec(low);
    couplet_puts("..");
    put_u64_dec(high);
    couplet_putc(')');
  }
  couplet_putc('\n');
  return pass;
}

bool couplet_expect_true(const char *what, bool condition) {
  if (condition) {
    put_ok(what);
  } else {
    put_fail(what);
    couplet_puts(": expected true, got false");
  }
  couplet_putc('\n');
  return condition;
}

bool couplet_expect_status(const char *what, couplet_status_t expected, couplet_status_t got) {
  if (expected == got) {
    put_ok(what);
    couplet_puts(" -> ");
    couplet_puts(couplet_status_name(got));
    couplet_putc('\n');
    return true;
  }
  put_fail(what);
  couplet_puts(": expected ");
  couplet_puts(couplet_status_name(expected));
  couplet_puts(", got ");
  couplet_puts(couplet_status_name(got));
  couplet_putc('\n');
  return false;
}

bool couplet_expect_ok(const char *what, couplet_status_t status) {
  return couplet_expect_status(what, COUPLET_OK, status);
}
