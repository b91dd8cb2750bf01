// The API fuzzer's harness (tests/fuzz_host/api_fuzz.c), shared by its library parts
// (aes_api_fuzz.c, sha3_api_fuzz.c): the random source, exactly sized buffers, "nothing changed"
// snapshots, the expected-status check and the count of calls per kind and status.
//
// Every check failure ends the run at once with the seed, the iteration and the call, so that
// `api_fuzz SEED ITERATIONS` reproduces it; the sanitizers end it the same way (built with
// -fno-sanitize-recover=all).

#ifndef COUPLET_TESTS_API_FUZZ_H_
#define COUPLET_TESTS_API_FUZZ_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <couplet/status.h>

// The random source (xorshift64*: reproducible from the seed on every host).
uint64_t fuzz_random(void);
// Uniform in [0, n), n >= 1.
uint32_t fuzz_below(uint32_t n);
// True with probability percent/100.
bool fuzz_chance(uint32_t percent);
void fuzz_fill(uint8_t *p, size_t n);
// An index below count, mostly one for which wanted() is true (when there is one): so that the
// calls that need a context or handle in some state get one as often as not.
uint32_t fuzz_prefer(uint32_t count, bool (*wanted)(uint32_t index));

// Names the call about to be made (a string literal), for the failure message.
void fuzz_call(const char *name);
// Reports a failed check of the current call and exits with status 1.
__attribute__((noreturn, format(printf, 1, 2))) void fuzz_fail(const char *format, ...);

// A buffer of exactly `len` bytes on the heap, so that a read or write past its end lands in
// AddressSanitizer's redzone. `off` guard bytes come before it in the same block (to misalign it,
// and to see writes just before it). p is NULL when the buffer stands for a NULL argument.
typedef struct {
  uint8_t *base;
  uint8_t *p;
  size_t len;
  size_t off;
} fuzz_buf_t;

#define FUZZ_GUARD 0xA5u

// Random contents (else 0xEE), at a random offset of 0..7 bytes.
fuzz_buf_t fuzz_buf(size_t len, bool random_contents);
// The same, never misaligned.
fuzz_buf_t fuzz_buf_at(size_t len, size_t off, bool random_contents);
// A NULL argument: no block at all.
fuzz_buf_t fuzz_buf_null(void);
void fuzz_buf_free(fuzz_buf_t *b);

// A copy of `len` bytes at `what`, to check that a call left them alone.
typedef struct {
  const void *what;
  size_t len;
  uint8_t *copy;
} fuzz_snap_t;

fuzz_snap_t fuzz_snap(const void *what, size_t len);
// Fails naming `name` if the bytes changed (also frees the copy).
void fuzz_snap_check(fuzz_snap_t *snap, const char *name);
void fuzz_snap_free(fuzz_snap_t *snap);
// A buffer's guard bytes and contents as one snapshot.
fuzz_snap_t fuzz_snap_buf(const fuzz_buf_t *b);
// Fails unless the guard bytes before the buffer are intact.
void fuzz_check_guard(const fuzz_buf_t *b, const char *name);

// Checks the status of the current call of `kind` against the model's and counts it.
void fuzz_expect(const char *kind, couplet_status_t got, couplet_status_t want);
// Fails naming `name` unless n bytes at got equal those at want.
void fuzz_expect_bytes(const char *name, const uint8_t *got, const uint8_t *want, size_t n);

// The library parts: each runs one random step (one API call, checked) per call of its step
// function, and its finish function checks what is left at the end and frees everything.
void aes_fuzz_setup(void);
void aes_fuzz_step(void);
void aes_fuzz_finish(void);
void sha3_fuzz_setup(void);
void sha3_fuzz_step(void);
void sha3_fuzz_finish(void);

#endif  // COUPLET_TESTS_API_FUZZ_H_
