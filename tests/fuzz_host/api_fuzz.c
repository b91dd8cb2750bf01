// Fuzzer of the AES and SHA-3 C APIs on the host (tests/test_api_fuzz.py, `couplet fuzz`).
//
//   api_fuzz SEED ITERATIONS
//
// Each iteration makes one random call (random and bad arguments, contexts in any state) on the
// AES or SHA-3 API, with every backend of the FAKE_BACKENDS stand-ins and the software one, and
// checks it against a model of the contract in the public headers: the named error for every
// bad argument, nothing changed by a refused call (context, output, chaining value, handle), and
// the output of a good call equal to an independent computation (aes_api_fuzz.c,
// sha3_api_fuzz.c). Built with AddressSanitizer and UndefinedBehaviorSanitizer, no recovery:
// every buffer is a heap block of exactly its size, so an access past it is a finding.
//
// The first failure prints "api_fuzz: FAIL seed=S iteration=I call=NAME: what" and exits 1. A
// run that ends prints one line:
//   api_fuzz: summary seed=S iterations=N KIND=STATUS:COUNT,STATUS:COUNT ...
// with the calls made of each kind by the status they returned (OK, ERR_NULL, ...).
// API_FUZZ_TRACE=1 in the environment lists every call on stderr.

#include "api_fuzz.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;
static uint64_t seed;
static uint64_t iteration;
static const char *current_call = "setup";

uint64_t fuzz_random(void) {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1Dull;
}

uint32_t fuzz_below(uint32_t n) {
  return (uint32_t)((fuzz_random() >> 32) % n);
}

bool fuzz_chance(uint32_t percent) {
  return fuzz_below(100u) < percent;
}

uint32_t fuzz_prefer(uint32_t count, bool (*wanted)(uint32_t index)) {
  const uint32_t start = fuzz_below(count);
  for (uint32_t k = 0; k < count && fuzz_chance(75u); ++k) {
    if (wanted((start + k) % count)) return (start + k) % count;
  }
  return fuzz_below(count);
}

void fuzz_fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    p[i] = (uint8_t)(fuzz_random() >> 56);
  }
}

// API_FUZZ_TRACE=1 in the environment lists every call, to see what led to a failure.
static bool trace;

void fuzz_call(const char *name) {
  current_call = name;
  if (trace) fprintf(stderr, "%" PRIu64 " %s\n", iteration, name);
}

void fuzz_fail(const char *format, ...) {
  fprintf(stderr, "api_fuzz: FAIL seed=%" PRIu64 " iteration=%" PRIu64 " call=%s: ", seed, iteration, current_call);
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  exit(1);
}

static void *checked_malloc(size_t n) {
  void *p = malloc(n == 0u ? 1u : n);
  if (p == NULL) {
    fprintf(stderr, "api_fuzz: out of memory\n");
    exit(2);
  }
  return p;
}

fuzz_buf_t fuzz_buf_at(size_t len, size_t off, bool random_contents) {
  fuzz_buf_t b;
  // malloc(off + len) exactly: with len 0 and no offset, ASan still gives a block whose every
  // byte is a redzone.
  b.base = malloc(off + len);
  if (b.base == NULL && off + len != 0u) {
    fprintf(stderr, "api_fuzz: out of memory\n");
    exit(2);
  }
  b.p = b.base + off;
  b.len = len;
  b.off = off;
  memset(b.base, FUZZ_GUARD, off);
  if (random_contents) {
    fuzz_fill(b.p, len);
  } else {
    memset(b.p, 0xEE, len);
  }
  return b;
}

fuzz_buf_t fuzz_buf(size_t len, bool random_contents) {
  return fuzz_buf_at(len, fuzz_chance(50u) ? 0u : fuzz_below(8u), random_contents);
}

fuzz_buf_t fuzz_buf_null(void) {
  fuzz_buf_t b = {NULL, NULL, 0u, 0u};
  return b;
}

void fuzz_buf_free(fuzz_buf_t *b) {
  free(b->base);
  b->base = NULL;
  b->p = NULL;
}

fuzz_snap_t fuzz_snap(const void *what, size_t len) {
  fuzz_snap_t s = {what, len, checked_malloc(len)};
  if (what != NULL) {
    memcpy(s.copy, what, len);
  }
  return s;
}

fuzz_snap_t fuzz_snap_buf(const fuzz_buf_t *b) {
  return fuzz_snap(b->base, b->base == NULL ? 0u : b->off + b->len);
}

void fuzz_snap_free(fuzz_snap_t *snap) {
  free(snap->copy);
  snap->copy = NULL;
}

void fuzz_snap_check(fuzz_snap_t *snap, const char *name) {
  if (snap->what != NULL && memcmp(snap->copy, snap->what, snap->len) != 0) {
    size_t i = 0;
    while (((const uint8_t *)snap->what)[i] == snap->copy[i]) ++i;
    fuzz_fail("%s changed at byte %zu of %zu", name, i, snap->len);
  }
  fuzz_snap_free(snap);
}

void fuzz_check_guard(const fuzz_buf_t *b, const char *name) {
  for (size_t i = 0; i < b->off; ++i) {
    if (b->base[i] != FUZZ_GUARD) fuzz_fail("%s: written %zu bytes before its start", name, b->off - i);
  }
}

// Calls per kind and status, for the summary.
#define MAX_KINDS 64
static struct {
  const char *kind;
  uint64_t by_status[COUPLET_STATUS_COUNT];
} counts[MAX_KINDS];
static size_t kinds;

void fuzz_expect(const char *kind, couplet_status_t got, couplet_status_t want) {
  if (got != want) {
    fuzz_fail("returned %s, the contract says %s", couplet_status_name(got), couplet_status_name(want));
  }
  size_t k = 0;
  while (k < kinds && strcmp(counts[k].kind, kind) != 0) ++k;
  if (k == kinds) {
    if (kinds == MAX_KINDS) fuzz_fail("more than %d kinds of call", MAX_KINDS);
    counts[kinds++].kind = kind;
  }
  counts[k].by_status[(unsigned)got < (unsigned)COUPLET_STATUS_COUNT ? got : 0]++;
}

void fuzz_expect_bytes(const char *name, const uint8_t *got, const uint8_t *want, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (got[i] != want[i]) fuzz_fail("%s differs from the model at byte %zu of %zu", name, i, n);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: api_fuzz SEED ITERATIONS\n");
    return 2;
  }
  seed = strtoull(argv[1], NULL, 0);
  const uint64_t iterations = strtoull(argv[2], NULL, 0);
  state = seed * 0x9E3779B97F4A7C15ull + 1u;  // never 0, which xorshift keeps
  trace = getenv("API_FUZZ_TRACE") != NULL;
  aes_fuzz_setup();
  sha3_fuzz_setup();
  for (iteration = 0; iteration < iterations; ++iteration) {
    if (fuzz_chance(50u)) {
      aes_fuzz_step();
    } else {
      sha3_fuzz_step();
    }
  }
  current_call = "finish";
  aes_fuzz_finish();
  sha3_fuzz_finish();
  printf("api_fuzz: summary seed=%" PRIu64 " iterations=%" PRIu64, seed, iterations);
  for (size_t k = 0; k < kinds; ++k) {
    printf(" %s=", counts[k].kind);
    const char *sep = "";
    for (int s = 0; s < (int)COUPLET_STATUS_COUNT; ++s) {
      if (counts[k].by_status[s] != 0u) {
        // "COUPLET_ERR_NULL" -> "ERR_NULL"
        printf("%s%s:%" PRIu64, sep, couplet_status_name((couplet_status_t)s) + 8, counts[k].by_status[s]);
        sep = ",";
      }
    }
  }
  putchar('\n');
  return 0;
}
