// Host test driver for the SHA-3 front end and the software backend (tests/test_sha3_host.py).
//
// Reads one command per line on stdin and answers each with one line on stdout, so that one
// process runs thousands of vectors. Byte strings are hex, "=" is the empty string and "-"
// stands for a NULL pointer. Output buffers are filled with 0xEE before each call and printed
// whole after it (OUT below), so that a test sees what a call wrote and what it left alone.
//
//   init C ALG B|d            couplet_sha3_init_backend(ctx C, ALG, B), or couplet_sha3_init with d
//   fill C BYTE               fill ctx C with BYTE (an uninitialised or zeroed context)
//   poke C FIELD VALUE        set buf_len, squeezed, rate, phase or alg of ctx C (corruption)
//   snap C                    the bytes of ctx C, for "nothing changed" checks
//   update C|- HEX|- [len=N] [off=N]        couplet_sha3_update: "STATUS"
//   final C|- N [null] [off=N]              couplet_sha3_final into an N-byte buffer: "STATUS OUT"
//   sfinal C|-                              couplet_shake_final: "STATUS"
//   squeeze C|- N [null] [off=N]            couplet_shake_squeeze of N bytes: "STATUS OUT"
//   sha3 ALG HEX|- N [null] [len=N] [off=N] couplet_sha3 into an N-byte buffer: "STATUS OUT"
//   shake ALG HEX|- N [null] [len=N] [off=N]  couplet_shake of N bytes: "STATUS OUT"
//   extract C N [off=N]       the software backend's extract of N bytes of ctx C's state,
//                             called directly (the front end only asks for whole words)
//   size ALG                  couplet_sha3_digest_size
//   which C                   the id of ctx C's backend, -1 for none
//   name B / avail B          couplet_sha3_backend_name / couplet_sha3_backend_available
//   hold H B                  couplet_sha3_hold(handle H, backend B): "STATUS"
//   release H|-               couplet_sha3_release(handle H): "STATUS"
//   hcopy H1 H2               handle H2 = handle H1 (a copy kept past a release)
//   held H|- ALG HEX|- N [null] [len=N] [off=N]   couplet_sha3_held: "STATUS OUT"
//   sheld H|- ALG HEX|- N [null] [len=N] [off=N]  couplet_shake_held: "STATUS OUT"
//   mct ALG SEED              the SHA3VS Monte Carlo test of SHA3-*: the 100 checkpoint digests
//   xmct ALG MSG MINBITS MAXBITS   the SHA3VS Monte Carlo test of SHAKE: the 100 checkpoints
// `len=` passes a length other than the data's (with a NULL pointer), `off=` misaligns the
// input (sha3/shake/update) or output (final/squeeze) buffer by 0..7 bytes, `null` passes NULL
// for the output buffer.
//
// Built with FAKE_BACKENDS, it also provides every hardware backend as a stand-in that marks
// itself as using the accelerator and keeps the state "in the accelerator" (its own copy) from
// its first operation in a call until release, scribbling over ctx->state meanwhile, so that a
// front end that read or wrote ctx->state in a call, or forgot release, computes wrong hashes;
// it also counts protocol violations (sha3_fake_backends.h). Extra commands:
//   probe C                   on the next backend operation, re-enter the API on ctx C (as
//                             another thread would while this one holds the accelerator)
//   probed                    "FIRED UPDATE FINAL SQUEEZE UNCHANGED ONESHOT HOLD": the statuses the
//                             re-entry got (also a one-shot call on tight and a hold of mmio) and
//                             whether ctx C and the one-shot's output were left unchanged
//   fail S                    the next backend operation returns status S and does nothing
//   counts                    "ABSORB PERMUTE EXTRACT RELEASE LOADS VIOLATIONS PART LAST"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/sha3.h>
#include <couplet/sha3_held.h>

#include "sha3_backend.h"

#define DRIVER_NAME "sha3_driver"
#define MAX_BYTES 40000
#include "../host_common/driver_io.h"

#define CONTEXTS 8
#define PAD 8

static couplet_sha3_ctx_t ctxs[CONTEXTS];
#define HANDLES 4
static couplet_sha3_held_t handles[HANDLES];

static couplet_sha3_ctx_t *parse_ctx(const char *text, const char *line) {
  const int index = parse_index(text, CONTEXTS, line);
  return index < 0 ? NULL : &ctxs[index];
}

static long parse_long(const char *text, const char *line) {
  if (text == NULL) fail_usage(line);
  char *end;
  long v = strtol(text, &end, 0);
  if (*end != '\0') fail_usage(line);
  return v;
}

#ifdef FAKE_BACKENDS
#include "sha3_fake_backends.h"
#endif

// The options after the fixed arguments of a command.
typedef struct {
  long len;  // -1: the data's own length
  size_t off;
  bool null;
} options_t;

static options_t parse_options(const char *line) {
  options_t o = {-1, 0u, false};
  for (const char *opt = strtok(NULL, " "); opt != NULL; opt = strtok(NULL, " ")) {
    if (strncmp(opt, "len=", 4) == 0) {
      o.len = parse_long(opt + 4, line);
    } else if (strncmp(opt, "off=", 4) == 0) {
      o.off = (size_t)parse_long(opt + 4, line);
    } else if (strcmp(opt, "null") == 0) {
      o.null = true;
    } else {
      fail_usage(line);
    }
  }
  if (o.off >= PAD || o.len < -1 || o.len > MAX_BYTES) fail_usage(line);
  return o;
}

static uint8_t data_buf[MAX_BYTES + PAD], out_buf[MAX_BYTES + PAD];

// Reads a hex argument into data_buf at the option's offset: the pointer to pass (NULL for
// "-") and the length to pass.
static const uint8_t *data_arg(const char *hex, const options_t *o, size_t *len, const char *line) {
  long got = parse_hex(hex, data_buf + o->off, MAX_BYTES, line);
  *len = o->len >= 0 ? (size_t)o->len : (got < 0 ? 0u : (size_t)got);
  return got < 0 ? NULL : data_buf + o->off;
}

static void print_result(couplet_status_t status, const uint8_t *out, size_t n) {
  printf("%d ", (int)status);
  if (out == NULL) {
    putchar('-');
  } else {
    print_hex(out, n);
  }
  putchar('\n');
}

// A command that writes an n-byte output buffer: prepares it, returns the pointer to pass.
static uint8_t *out_arg(const options_t *o, size_t n, const char *line) {
  if (n > MAX_BYTES) fail_usage(line);
  memset(out_buf, 0xEE, sizeof out_buf);
  return o->null ? NULL : out_buf + o->off;
}

static void cmd_update(const char *line) {
  couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
  const char *hex = strtok(NULL, " ");
  options_t o = parse_options(line);
  size_t len;
  const uint8_t *data = data_arg(hex, &o, &len, line);
  printf("%d\n", (int)couplet_sha3_update(ctx, data, len));
}

static void cmd_final(const char *line, bool squeeze) {
  couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
  size_t n = (size_t)parse_long(strtok(NULL, " "), line);
  options_t o = parse_options(line);
  uint8_t *out = out_arg(&o, n, line);
  couplet_status_t status = squeeze ? couplet_shake_squeeze(ctx, out, n) : couplet_sha3_final(ctx, out, n);
  print_result(status, out, n);
}

// The rest of a one-shot command's line: "ALG HEX|- N [options]".
typedef struct {
  couplet_sha3_alg_t alg;
  const uint8_t *data;
  size_t len;
  uint8_t *out;
  size_t n;
} oneshot_args_t;

static oneshot_args_t parse_oneshot(const char *line) {
  oneshot_args_t a;
  a.alg = (couplet_sha3_alg_t)parse_long(strtok(NULL, " "), line);
  const char *hex = strtok(NULL, " ");
  a.n = (size_t)parse_long(strtok(NULL, " "), line);
  options_t o = parse_options(line);
  a.data = data_arg(hex, &o, &a.len, line);
  options_t out_opts = {-1, 0u, o.null};
  a.out = out_arg(&out_opts, a.n, line);
  return a;
}

static void cmd_oneshot(const char *line, bool shake) {
  const oneshot_args_t a = parse_oneshot(line);
  couplet_status_t status = shake ? couplet_shake(a.alg, a.data, a.len, a.out, a.n)
                                  : couplet_sha3(a.alg, a.data, a.len, a.out, a.n);
  print_result(status, a.out, a.n);
}

// SHA3VS section 6.2.3: MD_0 = Seed; 100 times: 1000 times MD_i = SHA3(MD_{i-1}); print the last.
static void cmd_mct(const char *line) {
  couplet_sha3_alg_t alg = (couplet_sha3_alg_t)parse_long(strtok(NULL, " "), line);
  uint8_t md[COUPLET_SHA3_MAX_DIGEST];
  long seed_len = parse_hex(strtok(NULL, " "), md, sizeof md, line);
  size_t size = couplet_sha3_digest_size(alg);
  if (size == 0u || seed_len != (long)size) fail_usage(line);
  for (int j = 0; j < 100; ++j) {
    for (int i = 0; i < 1000; ++i) {
      uint8_t next[COUPLET_SHA3_MAX_DIGEST];
      if (couplet_sha3(alg, md, size, next, sizeof next) != COUPLET_OK) fail_usage(line);
      memcpy(md, next, size);
    }
    print_hex(md, size);
    putchar(j < 99 ? ' ' : '\n');
  }
}

// SHA3VS section 6.3.3: the message is the leftmost 128 bits of the previous output (zero
// padded), the output length the minimum plus the rightmost 16 bits of the previous output
// modulo the range; print the last output of each of 100 rounds of 1000.
static void cmd_xmct(const char *line) {
  couplet_sha3_alg_t alg = (couplet_sha3_alg_t)parse_long(strtok(NULL, " "), line);
  static uint8_t output[MAX_BYTES];
  long msg_len = parse_hex(strtok(NULL, " "), output, 16u, line);
  size_t min_bytes = (size_t)parse_long(strtok(NULL, " "), line) / 8u;
  size_t max_bytes = (size_t)parse_long(strtok(NULL, " "), line) / 8u;
  if (msg_len != 16 || min_bytes < 2u || max_bytes < min_bytes || max_bytes > MAX_BYTES) fail_usage(line);
  size_t out_len = max_bytes, prev_len = 16u;
  for (int j = 0; j < 100; ++j) {
    for (int i = 0; i < 1000; ++i) {
      uint8_t msg[16] = {0};
      memcpy(msg, output, prev_len < 16u ? prev_len : 16u);
      if (couplet_shake(alg, msg, sizeof msg, output, out_len) != COUPLET_OK) fail_usage(line);
      prev_len = out_len;
      size_t rightmost = (size_t)output[out_len - 2u] << 8 | output[out_len - 1u];
      out_len = min_bytes + rightmost % (max_bytes - min_bytes + 1u);
    }
    print_hex(output, prev_len);
    putchar(j < 99 ? ' ' : '\n');
  }
}

static couplet_sha3_held_t *parse_handle(const char *text, const char *line) {
  const int index = parse_index(text, HANDLES, line);
  return index < 0 ? NULL : &handles[index];
}

static void cmd_held(const char *line, bool shake) {
  couplet_sha3_held_t *held = parse_handle(strtok(NULL, " "), line);
  const oneshot_args_t a = parse_oneshot(line);
  couplet_status_t status = shake ? couplet_shake_held(held, a.alg, a.data, a.len, a.out, a.n)
                                  : couplet_sha3_held(held, a.alg, a.data, a.len, a.out, a.n);
  print_result(status, a.out, a.n);
}

static void cmd_poke(const char *line) {
  couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
  const char *field = strtok(NULL, " ");
  uint32_t value = (uint32_t)parse_long(strtok(NULL, " "), line);
  if (ctx == NULL || field == NULL) fail_usage(line);
  if (strcmp(field, "buf_len") == 0) {
    ctx->buf_len = value;
  } else if (strcmp(field, "squeezed") == 0) {
    ctx->squeezed = value;
  } else if (strcmp(field, "rate") == 0) {
    ctx->rate = value;
  } else if (strcmp(field, "phase") == 0) {
    ctx->phase = value;
  } else if (strcmp(field, "alg") == 0) {
    ctx->alg = value;
  } else {
    fail_usage(line);
  }
  puts("0");
}

int main(void) {
  const char *const line = command_line;
  const char *cmd;
  while ((cmd = next_command()) != NULL) {
    if (strcmp(cmd, "update") == 0) {
      cmd_update(line);
    } else if (strcmp(cmd, "final") == 0) {
      cmd_final(line, false);
    } else if (strcmp(cmd, "squeeze") == 0) {
      cmd_final(line, true);
    } else if (strcmp(cmd, "sfinal") == 0) {
      printf("%d\n", (int)couplet_shake_final(parse_ctx(strtok(NULL, " "), line)));
    } else if (strcmp(cmd, "sha3") == 0) {
      cmd_oneshot(line, false);
    } else if (strcmp(cmd, "shake") == 0) {
      cmd_oneshot(line, true);
    } else if (strcmp(cmd, "init") == 0) {
      couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      couplet_sha3_alg_t alg = (couplet_sha3_alg_t)parse_long(strtok(NULL, " "), line);
      const char *b = strtok(NULL, " ");
      if (b == NULL) fail_usage(line);
      couplet_status_t status =
          strcmp(b, "d") == 0
              ? couplet_sha3_init(ctx, alg)
              : couplet_sha3_init_backend(ctx, alg, (couplet_sha3_backend_id_t)parse_long(b, line));
      printf("%d\n", (int)status);
    } else if (strcmp(cmd, "fill") == 0) {
      couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      long byte = parse_long(strtok(NULL, " "), line);
      if (ctx == NULL) fail_usage(line);
      memset(ctx, (int)byte, sizeof *ctx);
      puts("0");
    } else if (strcmp(cmd, "poke") == 0) {
      cmd_poke(line);
    } else if (strcmp(cmd, "snap") == 0) {
      couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      if (ctx == NULL) fail_usage(line);
      print_hex((const uint8_t *)ctx, sizeof *ctx);
      putchar('\n');
    } else if (strcmp(cmd, "extract") == 0) {
      couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      size_t len = (size_t)parse_long(strtok(NULL, " "), line);
      options_t o = parse_options(line);
      if (ctx == NULL || len == 0u || len > ctx->rate) fail_usage(line);
      uint8_t *out = out_arg(&o, len, line);
      print_result(couplet_sha3_backend_soft.extract(ctx, out, len), out, len);
    } else if (strcmp(cmd, "size") == 0) {
      printf("%zu\n", couplet_sha3_digest_size((couplet_sha3_alg_t)parse_long(strtok(NULL, " "), line)));
    } else if (strcmp(cmd, "which") == 0) {
      couplet_sha3_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      if (ctx == NULL) fail_usage(line);
      printf("%d\n", ctx->backend == NULL ? -1 : (int)ctx->backend->id);
    } else if (strcmp(cmd, "name") == 0) {
      puts(couplet_sha3_backend_name((couplet_sha3_backend_id_t)parse_long(strtok(NULL, " "), line)));
    } else if (strcmp(cmd, "avail") == 0) {
      couplet_sha3_backend_id_t b = (couplet_sha3_backend_id_t)parse_long(strtok(NULL, " "), line);
      printf("%d\n", couplet_sha3_backend_available(b) ? 1 : 0);
    } else if (strcmp(cmd, "hold") == 0) {
      couplet_sha3_held_t *held = parse_handle(strtok(NULL, " "), line);
      couplet_sha3_backend_id_t b = (couplet_sha3_backend_id_t)parse_long(strtok(NULL, " "), line);
      printf("%d\n", (int)couplet_sha3_hold(held, b));
    } else if (strcmp(cmd, "release") == 0) {
      printf("%d\n", (int)couplet_sha3_release(parse_handle(strtok(NULL, " "), line)));
    } else if (strcmp(cmd, "hcopy") == 0) {
      couplet_sha3_held_t *from = parse_handle(strtok(NULL, " "), line);
      couplet_sha3_held_t *to = parse_handle(strtok(NULL, " "), line);
      if (from == NULL || to == NULL) fail_usage(line);
      *to = *from;
      puts("0");
    } else if (strcmp(cmd, "held") == 0) {
      cmd_held(line, false);
    } else if (strcmp(cmd, "sheld") == 0) {
      cmd_held(line, true);
    } else if (strcmp(cmd, "mct") == 0) {
      cmd_mct(line);
    } else if (strcmp(cmd, "xmct") == 0) {
      cmd_xmct(line);
#ifdef FAKE_BACKENDS
    } else if (strcmp(cmd, "probe") == 0) {
      fake.probe_ctx = parse_ctx(strtok(NULL, " "), line);
      fake.fired = 0;
      puts("0");
    } else if (strcmp(cmd, "probed") == 0) {
      printf("%d %d %d %d %d %d %d\n", fake.fired, (int)fake.update, (int)fake.final, (int)fake.squeeze,
             fake.unchanged, (int)fake.oneshot, (int)fake.hold);
    } else if (strcmp(cmd, "fail") == 0) {
      fake.fail_next = (int)parse_long(strtok(NULL, " "), line);
      puts("0");
    } else if (strcmp(cmd, "counts") == 0) {
      printf("%u %u %u %u %u %u %u %u\n", fake.absorb_calls, fake.permute_calls, fake.extract_calls,
             fake.release_calls, fake.loads, fake.violations, fake.part_calls, fake.last_calls);
#endif
    } else {
      fail_usage(line);
    }
  }
  return 0;
}
