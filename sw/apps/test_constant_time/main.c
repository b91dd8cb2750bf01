// test_constant_time: every AES and SHA-3 backend of this SoC takes the same cycles and retires
// the same instructions whatever the key and the data (issue 21, "constant time, checked").
//
// For each backend (the hardware ones too: their software parts load, reload, keep and wipe the
// key) and each operation, the same call (same lengths, mode, key size, alignment, chaining
// value) runs once per input:
//   0 all-zero key and data        1 all-ones key and data        2 random-looking key and data
//   3 input 2 with one key bit flipped                            4 input 2 with one data bit flipped
// (SHA-3 has no key: 3 and 4 flip one message bit, in the first block and in the last, partial,
// one). Each call sits alone in a bench.h window (mcycle zeroed, then read, with minstret around
// it) and the app prints one line per (suite, backend, measure):
//
//   ct <suite>/<backend>/<measure> cycles=<c0>,..,<c4> instret=<i0>,..,<i4> warmup=<c>/<i> equal|differ
//
// (warmup: the cycles and instructions of the warm-up run below, not compared.)
// A library measure that differs prints a FAIL line (couplet/check.h). Two control measures show
// that the method sees what it should: control/app/leaky_compare, an early-exit comparison of a
// secret key with a reference, must differ, and control/app/ct_compare, the same comparison
// without a branch on the data, must be equal. Every call whose output the inputs should change
// must give five different outputs: so the inputs did reach the code being timed. Exits 0 when
// all of that holds.
//
// Same state for every input: the calls of one backend and key size run as a sequence (init,
// set_key, each mode, ...; init, update, final, ...) that leaves the accelerator, its resident
// key or state, the contexts and the DMA/interrupt set-up as it found them, and the sequence runs
// once with input 0 before the five measured runs. On the default SoC that warm-up's counts equal
// the measured ones for every call (each sequence starts with set_key or a fresh hash, so nothing
// another backend left in the accelerator is used, and CV32E40X has no caches): it stays as a
// guard, and its counts are printed. Nothing can be hoisted out of or sunk into a window: every
// timed call is an external function of the SDK archive (no LTO), or the library's inline held
// call, and the CSR accesses that open and close the window are volatile asm with a memory
// clobber.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_held.h>
#include <couplet/bench.h>
#include <couplet/check.h>
#include <couplet/console.h>
#include <couplet/sha3.h>
#include <couplet/sha3_held.h>

#define APP "test_constant_time"
#define INPUTS 5u
#define AES_BYTES 48u    // three blocks: the software backend's pair and its odd block
#define SHA3_BYTES 200u  // a whole block and a partial one for every rate (72..168)
#define SHAKE_OUT 200u   // squeezes across a block boundary
#define MAX_OUT 200u

// Per input: the timed counts and a fold of the call's output.
typedef struct {
  uint32_t cycles[INPUTS];
  uint32_t instret[INPUTS];
  uint32_t check[INPUTS];
  uint32_t warm_cycles, warm_instret;  // the warm-up run's, printed for the record only
} measure_t;

static uint8_t aes_key[INPUTS][32] __attribute__((aligned(4)));
static uint8_t aes_data[INPUTS][AES_BYTES] __attribute__((aligned(4)));
static uint8_t sha3_msg[INPUTS][SHA3_BYTES] __attribute__((aligned(4)));
static uint8_t out[MAX_OUT + 1u] __attribute__((aligned(4)));
// The same data one byte past a word boundary: the byte-assembling paths. Rows of a multiple of
// four bytes, so that every input is misaligned alike (alignment is public and changes the path).
static uint8_t aes_data_odd[INPUTS][AES_BYTES + 4u] __attribute__((aligned(4)));
static uint8_t sha3_msg_odd[INPUTS][SHA3_BYTES + 4u] __attribute__((aligned(4)));
// Another context's key (public: the same for every input), loaded between two calls of the
// measured context so that its next call loads its key again.
static const uint8_t other_key[32] __attribute__((aligned(4))) = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4};
static uint8_t chain[COUPLET_AES_BLOCK_BYTES] __attribute__((aligned(4)));
// Public: the same for every input. The counter's low bytes are not all-ones, so no input's
// increment carries further than another's (the counter is public, and zkn's increment stops at
// the first byte without carry).
static const uint8_t public_iv[COUPLET_AES_BLOCK_BYTES] __attribute__((aligned(4))) = {
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0x10};

static uint32_t measures_run;
static uint32_t measures_equal;

static void make_inputs(void) {
  couplet_check_seed(COUPLET_CHECK_SEED);
  memset(aes_key[0], 0x00, sizeof aes_key[0]);
  memset(aes_key[1], 0xff, sizeof aes_key[1]);
  couplet_check_fill(aes_key[2], sizeof aes_key[2]);
  memcpy(aes_key[3], aes_key[2], sizeof aes_key[2]);
  memcpy(aes_key[4], aes_key[2], sizeof aes_key[2]);
  aes_key[3][5] ^= 0x08u;  // in the first 16 bytes, so every key size sees it
  memset(aes_data[0], 0x00, sizeof aes_data[0]);
  memset(aes_data[1], 0xff, sizeof aes_data[1]);
  couplet_check_fill(aes_data[2], sizeof aes_data[2]);
  memcpy(aes_data[3], aes_data[2], sizeof aes_data[2]);
  memcpy(aes_data[4], aes_data[2], sizeof aes_data[2]);
  aes_data[4][AES_BYTES - 3u] ^= 0x40u;
  memset(sha3_msg[0], 0x00, sizeof sha3_msg[0]);
  memset(sha3_msg[1], 0xff, sizeof sha3_msg[1]);
  couplet_check_fill(sha3_msg[2], sizeof sha3_msg[2]);
  memcpy(sha3_msg[3], sha3_msg[2], sizeof sha3_msg[2]);
  memcpy(sha3_msg[4], sha3_msg[2], sizeof sha3_msg[2]);
  sha3_msg[3][7] ^= 0x01u;
  sha3_msg[4][SHA3_BYTES - 1u] ^= 0x80u;
  for (uint32_t i = 0; i < INPUTS; i++) {
    memcpy(&aes_data_odd[i][1], aes_data[i], AES_BYTES);
    memcpy(&sha3_msg_odd[i][1], sha3_msg[i], SHA3_BYTES);
  }
}

// One timed call: `call` alone between the window's CSR accesses; its status is checked after.
#define TIMED(m, input, check_len, call, backend, what)                         \
  do {                                                                          \
    couplet_bench_sample_t start_;                                              \
    couplet_bench_start(&start_);                                               \
    const couplet_status_t status_ = (call);                                    \
    const couplet_bench_sample_t end_ = couplet_bench_end();                    \
    record((m), (input), start_, end_, (check_len));                            \
    couplet_check_status((backend), (what), COUPLET_OK, status_);               \
  } while (0)

// Input -1 is the warm-up: kept apart from the compared counts.
static void record(measure_t *m, int input, couplet_bench_sample_t start, couplet_bench_sample_t end,
                   size_t check_len) {
  if (input < 0) {
    m->warm_cycles = end.cycles - start.cycles;
    m->warm_instret = end.instret - start.instret;
    return;
  }
  m->cycles[input] = end.cycles - start.cycles;
  m->instret[input] = end.instret - start.instret;
  m->check[input] = check_len == 0u ? 0u : couplet_bench_fnv1a(out, check_len);
}

static bool all_same(const uint32_t v[INPUTS]) {
  for (uint32_t i = 1; i < INPUTS; i++) {
    if (v[i] != v[0]) {
      return false;
    }
  }
  return true;
}

static bool all_distinct(const uint32_t v[INPUTS]) {
  for (uint32_t i = 0; i < INPUTS; i++) {
    for (uint32_t j = i + 1u; j < INPUTS; j++) {
      if (v[i] == v[j]) {
        return false;
      }
    }
  }
  return true;
}

static void put_list(const uint32_t v[INPUTS]) {
  for (uint32_t i = 0; i < INPUTS; i++) {
    if (i != 0u) {
      couplet_putc(',');
    }
    couplet_put_dec(v[i]);
  }
}

// Prints the measure's line. A library measure must be equal; `expect_equal` false is the
// leaky control, which must differ. With `has_output`, the five outputs must differ too.
static void report(const char *suite, const char *backend, const char *measure, const measure_t *m,
                   bool has_output, bool expect_equal) {
  const bool equal = all_same(m->cycles) && all_same(m->instret);
  // The console's own writers: printf's formatting of 260 such lines cost more cycles than all
  // the measured calls together.
  couplet_puts("ct ");
  couplet_puts(suite);
  couplet_putc('/');
  couplet_puts(backend);
  couplet_putc('/');
  couplet_puts(measure);
  couplet_puts(" cycles=");
  put_list(m->cycles);
  couplet_puts(" instret=");
  put_list(m->instret);
  couplet_puts(" warmup=");
  couplet_put_dec(m->warm_cycles);
  couplet_putc('/');
  couplet_put_dec(m->warm_instret);
  couplet_puts(equal ? " equal\n" : " differ\n");
  measures_run++;
  measures_equal += equal ? 1u : 0u;
  const bool distinct = !has_output || all_distinct(m->check);
  if (equal != expect_equal || !distinct) {
    char what[64];
    snprintf(what, sizeof what, "%s/%s", suite, measure);
    if (equal != expect_equal) {
      couplet_check_fail(backend, what,
                         expect_equal ? "time depends on the key or data" : "the control did not differ");
    }
    if (!distinct) {
      couplet_check_fail(backend, what, "two inputs gave the same output: the inputs did not reach the call");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// AES

enum {
  AES_SET_KEY,
  AES_ECB_ENC,
  AES_ECB_DEC,
  AES_CBC_ENC,
  AES_CBC_DEC,
  AES_CTR,
  AES_CFB_ENC,
  AES_CFB_DEC,
  AES_OFB,
  AES_ECB_ODD,     // ECB encryption from and to odd addresses
  AES_HELD_CBC,    // CBC decryption through a hold (couplet/aes_held.h)
  AES_RELOAD,      // ECB encryption after another context's key: the key is loaded again
  AES_ZEROIZE,
  AES_OPS
};

static const char *const aes_op_names[AES_OPS] = {
    "set_key", "ecb_encrypt", "ecb_decrypt", "cbc_encrypt", "cbc_decrypt",
    "ctr", "cfb_encrypt", "cfb_decrypt", "ofb", "ecb_encrypt_odd", "held_cbc_decrypt",
    "ecb_encrypt_reload", "zeroize"};

static measure_t aes_measures[AES_OPS];

static void reset_chain(void) {
  memcpy(chain, public_iv, sizeof chain);
}

// The whole sequence for one input (or the warm-up, -1, which uses input 0).
static void aes_sequence(couplet_aes_backend_id_t id, size_t key_len, int input) {
  const char *name = couplet_aes_backend_name(id);
  const uint32_t k = input < 0 ? 0u : (uint32_t)input;
  const uint8_t *data = aes_data[k];
  measure_t *m = aes_measures;
  couplet_aes_ctx_t ctx;
  if (!couplet_check_status(name, "init", COUPLET_OK, couplet_aes_init_backend(&ctx, id))) {
    return;
  }
  TIMED(&m[AES_SET_KEY], input, 0u, couplet_aes_set_key(&ctx, aes_key[k], key_len), name, "set_key");
  TIMED(&m[AES_ECB_ENC], input, AES_BYTES, couplet_aes_ecb_encrypt(&ctx, data, out, AES_BYTES), name, "ecb_encrypt");
  TIMED(&m[AES_ECB_DEC], input, AES_BYTES, couplet_aes_ecb_decrypt(&ctx, data, out, AES_BYTES), name, "ecb_decrypt");
  reset_chain();
  TIMED(&m[AES_CBC_ENC], input, AES_BYTES, couplet_aes_cbc_encrypt(&ctx, chain, data, out, AES_BYTES), name,
        "cbc_encrypt");
  reset_chain();
  TIMED(&m[AES_CBC_DEC], input, AES_BYTES, couplet_aes_cbc_decrypt(&ctx, chain, data, out, AES_BYTES), name,
        "cbc_decrypt");
  reset_chain();
  TIMED(&m[AES_CTR], input, AES_BYTES, couplet_aes_ctr_crypt(&ctx, chain, data, out, AES_BYTES), name, "ctr");
  reset_chain();
  TIMED(&m[AES_CFB_ENC], input, AES_BYTES, couplet_aes_cfb_encrypt(&ctx, chain, data, out, AES_BYTES), name,
        "cfb_encrypt");
  reset_chain();
  TIMED(&m[AES_CFB_DEC], input, AES_BYTES, couplet_aes_cfb_decrypt(&ctx, chain, data, out, AES_BYTES), name,
        "cfb_decrypt");
  reset_chain();
  TIMED(&m[AES_OFB], input, AES_BYTES, couplet_aes_ofb_crypt(&ctx, chain, data, out, AES_BYTES), name, "ofb");
  TIMED(&m[AES_ECB_ODD], input, AES_BYTES + 1u,
        couplet_aes_ecb_encrypt(&ctx, &aes_data_odd[k][1], &out[1], AES_BYTES), name, "ecb_encrypt_odd");
  couplet_aes_held_t held;
  if (couplet_check_status(name, "hold", COUPLET_OK, couplet_aes_hold(&held, &ctx, COUPLET_AES_CBC, true, public_iv))) {
    TIMED(&m[AES_HELD_CBC], input, AES_BYTES, couplet_aes_held_crypt(&held, data, out, AES_BYTES), name,
          "held_cbc_decrypt");
    (void)couplet_check_status(name, "release", COUPLET_OK, couplet_aes_release(&held, NULL));
  }
  couplet_aes_ctx_t other;
  if (couplet_check_status(name, "other init", COUPLET_OK, couplet_aes_init_backend(&other, id)) &&
      couplet_check_status(name, "other set_key", COUPLET_OK, couplet_aes_set_key(&other, other_key, key_len))) {
    TIMED(&m[AES_RELOAD], input, AES_BYTES, couplet_aes_ecb_encrypt(&ctx, data, out, AES_BYTES), name,
          "ecb_encrypt_reload");
  }
  TIMED(&m[AES_ZEROIZE], input, 0u, couplet_aes_zeroize(&ctx), name, "zeroize");
  (void)couplet_check_status(name, "other zeroize", COUPLET_OK, couplet_aes_zeroize(&other));
}

static void check_aes(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  for (size_t key_len = 16u; key_len <= 32u; key_len += 8u) {
    if (couplet_aes_backend_supports(id, COUPLET_AES_ECB, true, key_len) != COUPLET_OK) {
      printf("aes %s: %u-bit keys or decryption refused by this engine\n", name, (unsigned)(key_len * 8u));
      continue;
    }
    for (int input = -1; input < (int)INPUTS; input++) {
      aes_sequence(id, key_len, input);
    }
    for (uint32_t op = 0; op < AES_OPS; op++) {
      char measure[32];
      const size_t n = strlen(aes_op_names[op]);
      memcpy(measure, aes_op_names[op], n);
      memcpy(measure + n, key_len == 16u ? "/128" : key_len == 24u ? "/192" : "/256", 5u);
      report("aes", name, measure, &aes_measures[op], op != AES_SET_KEY && op != AES_ZEROIZE, true);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// SHA-3

enum {
  SHA3_UPDATE,    // SHA3-256: a block and a partial one absorbed
  SHA3_FINAL,     // SHA3-256: the padding, the last permutation, the digest, the wipe
  SHAKE_UPDATE,   // SHAKE128: the same message
  SHAKE_FINAL,    // SHAKE128: the padding and the permutation into the first output block
  SHAKE_SQUEEZE,  // SHAKE128: SHAKE_OUT bytes, across a block boundary
  SHA3_ONE_SHOT,  // couplet_sha3_using (SHA3-256): the accelerators' whole-message path
  SHAKE_ONE_SHOT, // couplet_shake_using (SHAKE256, SHAKE_OUT bytes)
  SHA3_HELD,      // couplet_sha3_held (SHA3-512) with the backend held
  SHA3_ODD,       // couplet_sha3_using (SHA3-256) from and to odd addresses
  SHA3_OPS
};

static const char *const sha3_op_names[SHA3_OPS] = {
    "sha3_256_update", "sha3_256_final", "shake128_update", "shake128_final",
    "shake128_squeeze", "sha3_256_one_shot", "shake256_one_shot", "sha3_512_held", "sha3_256_one_shot_odd"};

static measure_t sha3_measures[SHA3_OPS];

static void sha3_sequence(couplet_sha3_backend_id_t id, int input) {
  const char *name = couplet_sha3_backend_name(id);
  const uint8_t *msg = sha3_msg[input < 0 ? 0 : input];
  measure_t *m = sha3_measures;
  couplet_sha3_ctx_t ctx;
  if (couplet_check_status(name, "init sha3-256", COUPLET_OK, couplet_sha3_init_backend(&ctx, COUPLET_SHA3_256, id))) {
    TIMED(&m[SHA3_UPDATE], input, 0u, couplet_sha3_update(&ctx, msg, SHA3_BYTES), name, "sha3-256 update");
    TIMED(&m[SHA3_FINAL], input, 32u, couplet_sha3_final(&ctx, out, 32u), name, "sha3-256 final");
  }
  if (couplet_check_status(name, "init shake128", COUPLET_OK, couplet_sha3_init_backend(&ctx, COUPLET_SHAKE128, id))) {
    TIMED(&m[SHAKE_UPDATE], input, 0u, couplet_sha3_update(&ctx, msg, SHA3_BYTES), name, "shake128 update");
    TIMED(&m[SHAKE_FINAL], input, 0u, couplet_shake_final(&ctx), name, "shake128 final");
    TIMED(&m[SHAKE_SQUEEZE], input, SHAKE_OUT, couplet_shake_squeeze(&ctx, out, SHAKE_OUT), name, "shake128 squeeze");
  }
  TIMED(&m[SHA3_ONE_SHOT], input, 32u, couplet_sha3_using(id, COUPLET_SHA3_256, msg, SHA3_BYTES, out, 32u), name,
        "sha3-256 one-shot");
  TIMED(&m[SHAKE_ONE_SHOT], input, SHAKE_OUT,
        couplet_shake_using(id, COUPLET_SHAKE256, msg, SHA3_BYTES, out, SHAKE_OUT), name, "shake256 one-shot");
  couplet_sha3_held_t held;
  if (couplet_check_status(name, "hold", COUPLET_OK, couplet_sha3_hold(&held, id))) {
    TIMED(&m[SHA3_HELD], input, 64u, couplet_sha3_held(&held, COUPLET_SHA3_512, msg, SHA3_BYTES, out, 64u), name,
          "sha3-512 held");
    (void)couplet_check_status(name, "release", COUPLET_OK, couplet_sha3_release(&held));
  }
  TIMED(&m[SHA3_ODD], input, 33u, couplet_sha3_using(id, COUPLET_SHA3_256, &sha3_msg_odd[input < 0 ? 0 : input][1],
                                                     SHA3_BYTES, &out[1], 32u),
        name, "sha3-256 one-shot odd");
}

static void check_sha3(couplet_sha3_backend_id_t id) {
  const char *name = couplet_sha3_backend_name(id);
  for (int input = -1; input < (int)INPUTS; input++) {
    sha3_sequence(id, input);
  }
  for (uint32_t op = 0; op < SHA3_OPS; op++) {
    const bool has_output = op != SHA3_UPDATE && op != SHAKE_UPDATE && op != SHAKE_FINAL;
    report("sha3", name, sha3_op_names[op], &sha3_measures[op], has_output, true);
  }
}

// ---------------------------------------------------------------------------------------------
// The controls: the same windows around code whose time is known to depend on the data, and
// around its constant-time form.

// Compares like memcmp == 0 and returns at the first differing byte: its time tells how many
// leading bytes of a secret match the reference (the classic MAC-check leak).
static __attribute__((noinline)) bool leaky_compare(const uint8_t *secret, const uint8_t *reference, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (secret[i] != reference[i]) {
      return false;
    }
  }
  return true;
}

// The same answer from every byte, with no branch on them.
static __attribute__((noinline)) bool ct_compare(const uint8_t *secret, const uint8_t *reference, size_t n) {
  uint32_t diff = 0u;
  for (size_t i = 0; i < n; i++) {
    diff |= (uint32_t)(secret[i] ^ reference[i]);
  }
  return diff == 0u;
}

// Where the controls' answers go, so that their calls are not dropped.
static volatile bool control_sink;

// A control's window: as TIMED, but the answer is stored after the window instead of checked.
#define TIMED_CONTROL(m, input, call)                        \
  do {                                                       \
    couplet_bench_sample_t start_;                           \
    couplet_bench_start(&start_);                            \
    const bool answer_ = (call);                             \
    const couplet_bench_sample_t end_ = couplet_bench_end(); \
    record((m), (input), start_, end_, 0u);                  \
    control_sink = answer_;                                  \
  } while (0)

static void check_controls(void) {
  measure_t leaky, ct;
  for (int input = -1; input < (int)INPUTS; input++) {
    const uint8_t *secret = aes_key[input < 0 ? 0 : input];
    TIMED_CONTROL(&leaky, input, leaky_compare(secret, aes_key[2], 32u));
    TIMED_CONTROL(&ct, input, ct_compare(secret, aes_key[2], 32u));
  }
  report("control", "app", "leaky_compare", &leaky, false, false);
  report("control", "app", "ct_compare", &ct, false, true);
}

int main(void) {
  make_inputs();
  printf(APP ": %u inputs per measure, AES %u bytes, SHA-3 %u bytes\n", (unsigned)INPUTS, (unsigned)AES_BYTES,
         (unsigned)SHA3_BYTES);
  check_controls();
  for (uint32_t id = 0; id < (uint32_t)COUPLET_AES_BACKEND_COUNT; id++) {
    if (!couplet_aes_backend_available((couplet_aes_backend_id_t)id)) {
      printf("aes backend %s absent in this SoC\n", couplet_aes_backend_name((couplet_aes_backend_id_t)id));
      continue;
    }
    check_aes((couplet_aes_backend_id_t)id);
  }
  for (uint32_t id = 0; id < (uint32_t)COUPLET_SHA3_BACKEND_COUNT; id++) {
    if (!couplet_sha3_backend_available((couplet_sha3_backend_id_t)id)) {
      printf("sha3 backend %s absent in this SoC\n", couplet_sha3_backend_name((couplet_sha3_backend_id_t)id));
      continue;
    }
    check_sha3((couplet_sha3_backend_id_t)id);
  }
  const uint32_t failures = couplet_check_failures();
  printf(APP ": %lu measures, %lu equal, %lu failed\n", (unsigned long)measures_run, (unsigned long)measures_equal,
         (unsigned long)failures);
  return failures == 0u ? 0 : 1;
}
