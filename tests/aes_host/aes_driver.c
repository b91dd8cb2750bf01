// Host test driver for the AES front end and the software backend (tests/test_aes_host.py).
//
// Reads one command per line on stdin and answers each with one line on stdout, so that one
// process runs thousands of vectors. Byte strings are hex, "=" is the empty string and "-"
// stands for a NULL pointer.
//
//   init C B|d               couplet_aes_init_backend(ctx C, B), or couplet_aes_init with "d"
//   fill C BYTE              fill ctx C with BYTE (an uninitialised or zeroed context)
//   key C|- HEX|- LEN        couplet_aes_set_key with LEN bytes (HEX may be shorter or longer)
//   crypt C|- MODE DEC IV|- IN|- [len=N] [ioff=N] [ooff=N] [inplace] [outnull] [api]
//                            answers "STATUS OUT IV": OUT is the output buffer after the call
//                            (pre-filled with 0xEE), IV the iv buffer after the call ("-" if
//                            none). ioff/ooff misalign the buffers; api uses the named wrapper.
//   zeroize C|-              couplet_aes_zeroize
//   state C                  "KEY_LEN KEY_ID WIPED" (WIPED 1 when key and round keys are all 0)
//   which C                  the id of ctx C's backend, -1 for none
//   name B / avail B         couplet_aes_backend_name / couplet_aes_backend_available
//   mct ecb|cbc DEC KEY IV|- TEXT OUTER
//                            the AESAVS Monte Carlo test: the last output of each outer round
//
// Built with FAKE_BACKENDS, it also provides every hardware backend as a stand-in that marks
// itself as using the accelerator and computes with the software backend (aes_fake_backends.h),
// plus:
//   probe C                  on the next backend call, re-enter the API on ctx C (as another
//                            thread would while this one holds the accelerator) and record it
//   probed                   "FIRED CRYPT SETKEY ZEROIZE": the statuses the re-entry got
//   fail S                   the next backend crypt returns status S without doing anything
//   counts                   "SET_KEY CRYPT ZEROIZE KEY_ID_AT_ZEROIZE" calls into the stand-ins

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/aes.h>

#include "aes_backend.h"

#define DRIVER_NAME "aes_driver"
#define MAX_BYTES 8192
#include "../host_common/driver_io.h"

#define CONTEXTS 8
#define PAD 8

static couplet_aes_ctx_t ctxs[CONTEXTS];

static couplet_aes_ctx_t *parse_ctx(const char *text, const char *line) {
  const int index = parse_index(text, CONTEXTS, line);
  return index < 0 ? NULL : &ctxs[index];
}

#ifdef FAKE_BACKENDS
#include "aes_fake_backends.h"
#endif

// Calls the named wrapper of (mode, decrypt), as an application would.
static couplet_status_t call_api(couplet_aes_ctx_t *ctx, int mode, bool decrypt, uint8_t *iv,
                                 const uint8_t *in, uint8_t *out, size_t len) {
  switch (mode) {
    case COUPLET_AES_ECB:
      return decrypt ? couplet_aes_ecb_decrypt(ctx, in, out, len)
                     : couplet_aes_ecb_encrypt(ctx, in, out, len);
    case COUPLET_AES_CBC:
      return decrypt ? couplet_aes_cbc_decrypt(ctx, iv, in, out, len)
                     : couplet_aes_cbc_encrypt(ctx, iv, in, out, len);
    case COUPLET_AES_CTR:
      return couplet_aes_ctr_crypt(ctx, iv, in, out, len);
    case COUPLET_AES_CFB:
      return decrypt ? couplet_aes_cfb_decrypt(ctx, iv, in, out, len)
                     : couplet_aes_cfb_encrypt(ctx, iv, in, out, len);
    case COUPLET_AES_OFB:
      return couplet_aes_ofb_crypt(ctx, iv, in, out, len);
    default:
      return couplet_aes_crypt(ctx, (couplet_aes_mode_t)mode, decrypt, iv, in, out, len);
  }
}

static void cmd_crypt(char *line_copy, const char *line) {
  static uint8_t inbuf[MAX_BYTES + PAD], outbuf[MAX_BYTES + PAD];
  uint8_t iv[16];
  uint8_t data[MAX_BYTES];
  strtok(line_copy, " ");
  couplet_aes_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
  const char *mode_text = strtok(NULL, " ");
  const char *dec_text = strtok(NULL, " ");
  const char *iv_text = strtok(NULL, " ");
  const char *in_text = strtok(NULL, " ");
  if (mode_text == NULL || dec_text == NULL || iv_text == NULL || in_text == NULL) {
    fail_usage(line);
  }
  long iv_len = parse_hex(iv_text, iv, sizeof iv, line);
  if (iv_len >= 0 && iv_len != 16) fail_usage(line);
  long in_len = parse_hex(in_text, data, sizeof data, line);
  size_t len = in_len < 0 ? 0u : (size_t)in_len;
  size_t ioff = 0, ooff = 0;
  bool inplace = false, outnull = false, api = false;
  for (const char *opt = strtok(NULL, " "); opt != NULL; opt = strtok(NULL, " ")) {
    if (strncmp(opt, "len=", 4) == 0) {
      len = (size_t)strtoul(opt + 4, NULL, 10);
    } else if (strncmp(opt, "ioff=", 5) == 0) {
      ioff = (size_t)strtoul(opt + 5, NULL, 10);
    } else if (strncmp(opt, "ooff=", 5) == 0) {
      ooff = (size_t)strtoul(opt + 5, NULL, 10);
    } else if (strcmp(opt, "inplace") == 0) {
      inplace = true;
    } else if (strcmp(opt, "outnull") == 0) {
      outnull = true;
    } else if (strcmp(opt, "api") == 0) {
      api = true;
    } else {
      fail_usage(line);
    }
  }
  if (ioff >= PAD || ooff >= PAD || len > MAX_BYTES) fail_usage(line);
  memset(outbuf, 0xEE, sizeof outbuf);
  const uint8_t *in = NULL;
  uint8_t *out = outnull ? NULL : outbuf + ooff;
  if (inplace) {
    memcpy(outbuf + ooff, data, (size_t)(in_len < 0 ? 0 : in_len));
    in = outbuf + ooff;
  } else if (in_len >= 0) {
    memcpy(inbuf + ioff, data, (size_t)in_len);
    in = inbuf + ioff;
  }
  int mode = atoi(mode_text);
  bool decrypt = atoi(dec_text) != 0;
  uint8_t *ivp = iv_len < 0 ? NULL : iv;
  couplet_status_t status =
      api ? call_api(ctx, mode, decrypt, ivp, in, out, len)
          : couplet_aes_crypt(ctx, (couplet_aes_mode_t)mode, decrypt, ivp, in, out, len);
  printf("%d ", (int)status);
  print_hex(outbuf + ooff, (size_t)(in_len < 0 ? (long)len : in_len));
  putchar(' ');
  if (ivp == NULL) {
    putchar('-');
  } else {
    print_hex(iv, sizeof iv);
  }
  putchar('\n');
}

// AESAVS (NIST, 2002) section 6.4: Monte Carlo tests of ECB and CBC, through the public API.
// Prints the last output block of each outer round.
static void cmd_mct(const char *line) {
  char mode_text[8];
  int dec, outer;
  char key_text[80], iv_text[40], text_text[40];
  if (sscanf(line, "mct %7s %d %79s %39s %39s %d", mode_text, &dec, key_text, iv_text, text_text,
             &outer) != 6) {
    fail_usage(line);
  }
  uint8_t key[32], iv[16], text[16];
  long key_len = parse_hex(key_text, key, sizeof key, line);
  bool cbc = strcmp(mode_text, "cbc") == 0;
  if (cbc && parse_hex(iv_text, iv, sizeof iv, line) != 16) fail_usage(line);
  if (parse_hex(text_text, text, sizeof text, line) != 16) fail_usage(line);
  couplet_aes_ctx_t *ctx = &ctxs[CONTEXTS - 1];
  if (couplet_aes_init_backend(ctx, COUPLET_AES_BACKEND_SOFT) != COUPLET_OK) fail_usage(line);
  for (int i = 0; i < outer; ++i) {
    if (couplet_aes_set_key(ctx, key, (size_t)key_len) != COUPLET_OK) fail_usage(line);
    uint8_t in[16], out[16] = {0}, prev[16] = {0}, chain_iv[16];
    memcpy(in, text, 16);
    memcpy(chain_iv, iv, 16);
    for (int j = 0; j < 1000; ++j) {
      memcpy(prev, out, 16);
      couplet_status_t status;
      if (!cbc) {
        status = dec ? couplet_aes_ecb_decrypt(ctx, in, out, 16)
                     : couplet_aes_ecb_encrypt(ctx, in, out, 16);
        memcpy(in, out, 16);
      } else {
        // chain_iv carries the chaining value from call to call; the next input is the IV for
        // j == 0, then the output before this one.
        status = dec ? couplet_aes_cbc_decrypt(ctx, chain_iv, in, out, 16)
                     : couplet_aes_cbc_encrypt(ctx, chain_iv, in, out, 16);
        memcpy(in, j == 0 ? iv : prev, 16);
      }
      if (status != COUPLET_OK) fail_usage(line);
    }
    print_hex(out, 16);
    putchar(i + 1 < outer ? ' ' : '\n');
    // Key update from the last output (and the one before it for longer keys).
    uint8_t material[32];
    memcpy(material, prev, 16);
    memcpy(material + 16, out, 16);
    for (long b = 0; b < key_len; ++b) {
      key[b] ^= material[32 - key_len + b];
    }
    if (cbc) {
      memcpy(iv, out, 16);
      memcpy(text, prev, 16);
    } else {
      memcpy(text, out, 16);
    }
  }
}

int main(void) {
  const char *const line = command_line;
  const char *cmd;
  while ((cmd = next_command()) != NULL) {
    if (strcmp(cmd, "crypt") == 0) {
      memcpy(command_copy, line, strlen(line) + 1u);  // cmd_crypt cuts up the whole line again
      cmd_crypt(command_copy, line);
    } else if (strcmp(cmd, "init") == 0) {
      couplet_aes_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      const char *b = strtok(NULL, " ");
      if (b == NULL) fail_usage(line);
      couplet_status_t status = strcmp(b, "d") == 0
                                    ? couplet_aes_init(ctx)
                                    : couplet_aes_init_backend(ctx, (couplet_aes_backend_id_t)atoi(b));
      printf("%d\n", (int)status);
    } else if (strcmp(cmd, "fill") == 0) {
      couplet_aes_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      const char *b = strtok(NULL, " ");
      if (ctx == NULL || b == NULL) fail_usage(line);
      memset(ctx, (int)strtol(b, NULL, 0), sizeof *ctx);
      puts("0");
    } else if (strcmp(cmd, "key") == 0) {
      uint8_t key[64] = {0};
      couplet_aes_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      const char *hex = strtok(NULL, " ");
      const char *len = strtok(NULL, " ");
      if (hex == NULL || len == NULL) fail_usage(line);
      long got = parse_hex(hex, key, sizeof key, line);
      couplet_status_t status =
          couplet_aes_set_key(ctx, got < 0 ? NULL : key, (size_t)strtoul(len, NULL, 10));
      printf("%d\n", (int)status);
    } else if (strcmp(cmd, "zeroize") == 0) {
      printf("%d\n", (int)couplet_aes_zeroize(parse_ctx(strtok(NULL, " "), line)));
    } else if (strcmp(cmd, "state") == 0) {
      couplet_aes_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      if (ctx == NULL) fail_usage(line);
      int wiped = 1;
      for (size_t i = 0; i < 8u; ++i) wiped &= ctx->key[i] == 0u;
      for (size_t i = 0; i < 60u; ++i) wiped &= ctx->round_keys[i] == 0u;
      printf("%lu %lu %d\n", (unsigned long)ctx->key_len, (unsigned long)ctx->key_id, wiped);
    } else if (strcmp(cmd, "which") == 0) {
      couplet_aes_ctx_t *ctx = parse_ctx(strtok(NULL, " "), line);
      if (ctx == NULL) fail_usage(line);
      printf("%d\n", ctx->backend == NULL ? -1 : (int)ctx->backend->id);
    } else if (strcmp(cmd, "name") == 0) {
      const char *b = strtok(NULL, " ");
      if (b == NULL) fail_usage(line);
      puts(couplet_aes_backend_name((couplet_aes_backend_id_t)atoi(b)));
    } else if (strcmp(cmd, "avail") == 0) {
      const char *b = strtok(NULL, " ");
      if (b == NULL) fail_usage(line);
      printf("%d\n", couplet_aes_backend_available((couplet_aes_backend_id_t)atoi(b)) ? 1 : 0);
    } else if (strcmp(cmd, "mct") == 0) {
      cmd_mct(line);
#ifdef FAKE_BACKENDS
    } else if (strcmp(cmd, "probe") == 0) {
      const char *c = strtok(NULL, " ");
      if (c == NULL) fail_usage(line);
      fake.probe_ctx = parse_ctx(c, line);
      fake.fired = 0;
      puts("0");
    } else if (strcmp(cmd, "probed") == 0) {
      printf("%d %d %d %d\n", fake.fired, (int)fake.crypt, (int)fake.set_key, (int)fake.zeroize);
    } else if (strcmp(cmd, "fail") == 0) {
      const char *s = strtok(NULL, " ");
      if (s == NULL) fail_usage(line);
      fake.fail_next = atoi(s);
      puts("0");
    } else if (strcmp(cmd, "counts") == 0) {
      printf("%u %u %u %lu\n", fake.set_key_calls, fake.crypt_calls, fake.zeroize_calls,
             (unsigned long)fake.key_id_at_zeroize);
#endif
    } else {
      fail_usage(line);
    }
  }
  return 0;
}
