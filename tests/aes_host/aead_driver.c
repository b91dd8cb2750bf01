// Host test driver for the authenticated layer (sw/lib/aes/aes_aead.c, aes_ghash.c) on the AES
// front end (tests/test_aead_host.py).
//
// One command per line on stdin, one answer line each on stdout. Byte strings are hex, "=" is
// the empty string and "-" a NULL pointer. STATUS is a couplet_status_t number, or OVERRUN when
// the call wrote outside its output (the 8 bytes either side of the output and the 16-byte tag
// buffer are 0xEE before each call and checked after). OUT is the output buffer after the call
// (0xEE before), TAG16 all 16 bytes of the tag buffer (0xEE before).
//
//   init C B | key C HEX | zeroize C | fill C BYTE      AES contexts 0..3 (as aes_driver.c)
//   cmac C DATA TLEN                                   -> STATUS TAG16
//   ccm_enc C NONCE AAD IN TLEN / gcm_enc C IV AAD IN TLEN   -> STATUS OUT TAG16
//   ccm_dec C NONCE AAD IN TAG  / gcm_dec C IV AAD IN TAG    -> STATUS OUT
//   star_enc C LEVEL NONCE A IN                        -> STATUS OUT MIC16
//   star_dec C LEVEL NONCE A IN MIC                    -> STATUS OUT
//   Streams S 0..3 of each kind (C and S may be "-": NULL):
//   cmac_start S C | cmac_update S DATA | cmac_finish S TLEN (-> STATUS TAG16) | cmac_verify S TAG
//   ccm_start S C NONCE AADLEN MSGLEN TLEN | ccm_aad S DATA | ccm_eupd S IN | ccm_dupd S IN
//     (-> STATUS OUT) | ccm_finish S (-> STATUS TAG16) | ccm_verify S TAG
//   gcm_start S C IV | gcm_aad S DATA | gcm_eupd S IN | gcm_dupd S IN | gcm_finish S TLEN |
//     gcm_verify S TAG
//   snap cmac|ccm|gcm S      the stream context's bytes (to see that a refused call changed none)
//   fill cmac|ccm|gcm S BYTE fill a stream context
//   gcm_ctr S HEX            overwrite a GCM stream's next counter block (counter wrap tests)
//   ghash S H DATA           couplet_aes_ghash -> S after
// Options after the arguments: len=N (the data length passed, whatever the data), alen=N (the
// associated data's), nlen=N (nonce or IV), tlen=N (a given tag's), ioff=N / ooff=N (misaligned
// buffers, N < 8), inplace (out = in), outnull, tagnull.
//
// Built with FAKE_BACKENDS (aes_fake_backends.h), also:
//   probe COMMAND...         run COMMAND (any of the above) inside the next backend call, as
//                            another thread would while this one holds the accelerator
//   probed                   "FIRED ANSWER": whether it ran, and its answer line
//   fail S [N]               the next backend crypt (after N more) returns status S, doing nothing
//   modes                    crypt calls into the stand-ins by mode (8 numbers) and violations

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_aead.h>

#include "aes_backend.h"
#include "aes_ghash.h"

#define DATA_MAX 73728u  // above 2^16: the CCM length forms and limits
#define DRIVER_NAME "aead_driver"
#define MAX_BYTES (2u * DATA_MAX)  // driver_io.h's line: several byte strings
#include "../host_common/driver_io.h"

#define CONTEXTS 4
#define STREAMS 4
#define PAD 8
#define FILL 0xEE
#define MAX_ARGS 24
#define LEVELS 2  // a command, and one run inside it by the probe

static couplet_aes_ctx_t ctxs[CONTEXTS];
static couplet_aes_cmac_ctx_t cmacs[STREAMS];
static couplet_aes_ccm_ctx_t ccms[STREAMS];
static couplet_aes_gcm_ctx_t gcms[STREAMS];

// A length given as an option (len=N), which replaces the data's.
typedef struct {
  bool given;
  size_t value;
} opt_t;

// What one command works with; the probe's command has its own, so that it cannot disturb the
// buffers of the call it runs inside.
typedef struct {
  char line[sizeof command_line];
  char *argv[MAX_ARGS];
  int argc;
  const char *source;  // the line as given, for messages
  uint8_t a[DATA_MAX];
  uint8_t data[DATA_MAX];
  uint8_t in[DATA_MAX + 2 * PAD];
  uint8_t out[DATA_MAX + 2 * PAD];
  uint8_t nonce[256];
  uint8_t tag[16 + 2 * PAD];
  char reply[2 * DATA_MAX + 256];
  size_t reply_len;
  // options
  opt_t len, alen, nlen, tlen;
  size_t ioff, ooff;
  bool inplace, outnull, tagnull;
} level_t;

static level_t levels[LEVELS];
static int depth = -1;

static void say(level_t *lv, const char *text) {
  size_t n = strlen(text);
  if (lv->reply_len + n + 1u > sizeof lv->reply) fail_usage(lv->source);
  memcpy(lv->reply + lv->reply_len, text, n + 1u);
  lv->reply_len += n;
}

static void say_int(level_t *lv, long v) {
  char text[32];
  snprintf(text, sizeof text, "%ld", v);
  say(lv, text);
}

static void say_hex(level_t *lv, const uint8_t *p, size_t n) {
  if (p == NULL) {
    say(lv, "-");
    return;
  }
  if (n == 0u) {
    say(lv, "=");
    return;
  }
  if (lv->reply_len + 2u * n + 1u > sizeof lv->reply) fail_usage(lv->source);
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    lv->reply[lv->reply_len++] = digits[p[i] >> 4];
    lv->reply[lv->reply_len++] = digits[p[i] & 15];
  }
  lv->reply[lv->reply_len] = '\0';
}

static const char *arg(level_t *lv, int i) {
  if (i >= lv->argc) fail_usage(lv->source);
  return lv->argv[i];
}

static couplet_aes_ctx_t *ctx_arg(level_t *lv, int i) {
  const int index = parse_index(arg(lv, i), CONTEXTS, lv->source);
  return index < 0 ? NULL : &ctxs[index];
}

static int stream_arg(level_t *lv, int i) {
  return parse_index(arg(lv, i), STREAMS, lv->source);
}

static long num_arg(level_t *lv, int i) {
  return strtol(arg(lv, i), NULL, 0);
}

static size_t size_arg(const char *text) {
  return (size_t)strtoull(text, NULL, 0);
}

// Hex into buf (NULL for "-"); *n gets the length.
static uint8_t *bytes_arg(level_t *lv, int i, uint8_t *buf, size_t cap, size_t *n) {
  const long got = parse_hex(arg(lv, i), buf, cap, lv->source);
  *n = got < 0 ? 0u : (size_t)got;
  return got < 0 ? NULL : buf;
}

// Options from argument `first` on.
static void options(level_t *lv, int first) {
  const opt_t none = {false, 0u};
  lv->len = lv->alen = lv->nlen = lv->tlen = none;
  lv->ioff = lv->ooff = 0u;
  lv->inplace = lv->outnull = lv->tagnull = false;
  for (int i = first; i < lv->argc; ++i) {
    const char *opt = lv->argv[i];
    const char *eq = strchr(opt, '=');
    opt_t given = {true, eq == NULL ? 0u : size_arg(eq + 1)};
    if (strncmp(opt, "len=", 4) == 0) {
      lv->len = given;
    } else if (strncmp(opt, "alen=", 5) == 0) {
      lv->alen = given;
    } else if (strncmp(opt, "nlen=", 5) == 0) {
      lv->nlen = given;
    } else if (strncmp(opt, "tlen=", 5) == 0) {
      lv->tlen = given;
    } else if (strncmp(opt, "ioff=", 5) == 0) {
      lv->ioff = (size_t)strtoul(opt + 5, NULL, 10);
    } else if (strncmp(opt, "ooff=", 5) == 0) {
      lv->ooff = (size_t)strtoul(opt + 5, NULL, 10);
    } else if (strcmp(opt, "inplace") == 0) {
      lv->inplace = true;
    } else if (strcmp(opt, "outnull") == 0) {
      lv->outnull = true;
    } else if (strcmp(opt, "tagnull") == 0) {
      lv->tagnull = true;
    } else {
      fail_usage(lv->source);
    }
  }
  if (lv->ioff >= PAD || lv->ooff >= PAD) fail_usage(lv->source);
}

// A length: the option's if given, else the data's.
static size_t length(opt_t option, size_t data_len) {
  return option.given ? option.value : data_len;
}

// The message: data from argument i into the input buffer (or into out, in place), out
// pre-filled. Returns the number of bytes shown after the call.
typedef struct {
  const uint8_t *in;
  uint8_t *out;
  size_t len;    // passed to the call
  size_t shown;  // bytes of out answered
} message_t;

static message_t message(level_t *lv, int i) {
  size_t n;
  const uint8_t *data = bytes_arg(lv, i, lv->data, sizeof lv->data, &n);
  message_t m;
  memset(lv->in, FILL, sizeof lv->in);
  memset(lv->out, FILL, sizeof lv->out);
  m.out = lv->outnull ? NULL : lv->out + PAD + lv->ooff;
  if (data == NULL) {
    m.in = NULL;
  } else if (lv->inplace) {
    memcpy(lv->out + PAD + lv->ooff, data, n);
    m.in = lv->out + PAD + lv->ooff;
  } else {
    memcpy(lv->in + PAD + lv->ioff, data, n);
    m.in = lv->in + PAD + lv->ioff;
  }
  m.len = length(lv->len, n);
  m.shown = n;
  return m;
}

// The status, or OVERRUN when bytes around the output or past the tag changed.
static void say_status(level_t *lv, couplet_status_t status, const message_t *m, size_t tag_bytes) {
  bool overrun = false;
  if (m != NULL) {
    const uint8_t *start = lv->out + PAD + lv->ooff;
    for (const uint8_t *p = lv->out; p < start; ++p) overrun |= *p != FILL;
    for (const uint8_t *p = start + m->shown; p < lv->out + sizeof lv->out; ++p) overrun |= *p != FILL;
  }
  for (size_t i = tag_bytes; i < sizeof lv->tag; ++i) overrun |= lv->tag[i] != FILL;
  if (overrun) {
    say(lv, "OVERRUN");
  } else {
    say_int(lv, (long)status);
  }
}

static void say_out(level_t *lv, const message_t *m) {
  say(lv, " ");
  say_hex(lv, m->out == NULL ? NULL : lv->out + PAD + lv->ooff, m->shown);
}

static void say_tag16(level_t *lv) {
  say(lv, " ");
  say_hex(lv, lv->tag, 16u);
}

// A tag argument for the decrypting calls: into the tag buffer (NULL for "-" or tagnull).
static const uint8_t *given_tag(level_t *lv, int i, size_t *n) {
  memset(lv->tag, FILL, sizeof lv->tag);
  const uint8_t *tag = bytes_arg(lv, i, lv->tag, 16u + PAD, n);
  *n = length(lv->tlen, *n);
  return lv->tagnull ? NULL : tag;
}

static uint8_t *out_tag(level_t *lv) {
  memset(lv->tag, FILL, sizeof lv->tag);
  return lv->tagnull ? NULL : lv->tag;
}

// ------------------------------------------------------------------------------ one-shot

static void cmd_cmac(level_t *lv) {
  options(lv, 4);
  couplet_aes_ctx_t *ctx = ctx_arg(lv, 1);
  size_t n;
  const uint8_t *data = bytes_arg(lv, 2, lv->data, sizeof lv->data, &n);
  const size_t tag_len = (size_t)num_arg(lv, 3);
  uint8_t *tag = out_tag(lv);
  const couplet_status_t status = couplet_aes_cmac(ctx, data, length(lv->len, n), tag, tag_len);
  say_status(lv, status, NULL, 16u);
  say_tag16(lv);
}

static void cmd_aead(level_t *lv, bool gcm, bool decrypt) {
  options(lv, 6);
  couplet_aes_ctx_t *ctx = ctx_arg(lv, 1);
  size_t nonce_len, aad_len, tag_len;
  const uint8_t *nonce = bytes_arg(lv, 2, lv->nonce, sizeof lv->nonce, &nonce_len);
  const uint8_t *aad = bytes_arg(lv, 3, lv->a, sizeof lv->a, &aad_len);
  nonce_len = length(lv->nlen, nonce_len);
  aad_len = length(lv->alen, aad_len);
  message_t m = message(lv, 4);
  couplet_status_t status;
  if (decrypt) {
    const uint8_t *tag = given_tag(lv, 5, &tag_len);
    status = gcm ? couplet_aes_gcm_decrypt(ctx, nonce, nonce_len, aad, aad_len, m.in, m.out, m.len, tag, tag_len)
                 : couplet_aes_ccm_decrypt(ctx, nonce, nonce_len, aad, aad_len, m.in, m.out, m.len, tag, tag_len);
    say_status(lv, status, &m, 16u + PAD);
    say_out(lv, &m);
  } else {
    tag_len = (size_t)num_arg(lv, 5);
    uint8_t *tag = out_tag(lv);
    status = gcm ? couplet_aes_gcm_encrypt(ctx, nonce, nonce_len, aad, aad_len, m.in, m.out, m.len, tag, tag_len)
                 : couplet_aes_ccm_encrypt(ctx, nonce, nonce_len, aad, aad_len, m.in, m.out, m.len, tag, tag_len);
    say_status(lv, status, &m, 16u);
    say_out(lv, &m);
    say_tag16(lv);
  }
}

static void cmd_star(level_t *lv, bool decrypt) {
  options(lv, decrypt ? 7 : 6);
  couplet_aes_ctx_t *ctx = ctx_arg(lv, 1);
  const uint32_t level = (uint32_t)num_arg(lv, 2);
  size_t nonce_len, a_len;
  const uint8_t *nonce = bytes_arg(lv, 3, lv->nonce, sizeof lv->nonce, &nonce_len);
  if (nonce != NULL && nonce_len != 13u) fail_usage(lv->source);
  const uint8_t *a = bytes_arg(lv, 4, lv->a, sizeof lv->a, &a_len);
  a_len = length(lv->alen, a_len);
  message_t m = message(lv, 5);
  couplet_status_t status;
  if (decrypt) {
    size_t mic_len;
    const uint8_t *mic = given_tag(lv, 6, &mic_len);
    status = couplet_aes_ccm_star_decrypt(ctx, level, nonce, a, a_len, m.in, m.out, m.len, mic);
    say_status(lv, status, &m, 16u + PAD);
    say_out(lv, &m);
  } else {
    uint8_t *mic = out_tag(lv);
    status = couplet_aes_ccm_star_encrypt(ctx, level, nonce, a, a_len, m.in, m.out, m.len, mic);
    say_status(lv, status, &m, 16u);
    say_out(lv, &m);
    say_tag16(lv);
  }
}

// ------------------------------------------------------------------------------ streams

static void *stream_ptr(level_t *lv, const char *kind, int s, size_t *size) {
  if (strcmp(kind, "cmac") == 0) {
    *size = sizeof cmacs[0];
    return s < 0 ? NULL : (void *)&cmacs[s];
  }
  if (strcmp(kind, "ccm") == 0) {
    *size = sizeof ccms[0];
    return s < 0 ? NULL : (void *)&ccms[s];
  }
  if (strcmp(kind, "gcm") == 0) {
    *size = sizeof gcms[0];
    return s < 0 ? NULL : (void *)&gcms[s];
  }
  fail_usage(lv->source);
  return NULL;
}

static void cmd_stream(level_t *lv, const char *cmd) {
  const int s = stream_arg(lv, 1);
  couplet_aes_cmac_ctx_t *cm = s < 0 ? NULL : &cmacs[s];
  couplet_aes_ccm_ctx_t *cc = s < 0 ? NULL : &ccms[s];
  couplet_aes_gcm_ctx_t *gc = s < 0 ? NULL : &gcms[s];
  size_t n, tag_len;
  couplet_status_t status;
  if (strcmp(cmd, "cmac_start") == 0) {
    options(lv, 3);
    say_int(lv, couplet_aes_cmac_start(cm, ctx_arg(lv, 2)));
  } else if (strcmp(cmd, "cmac_update") == 0) {
    options(lv, 3);
    const uint8_t *data = bytes_arg(lv, 2, lv->data, sizeof lv->data, &n);
    say_int(lv, couplet_aes_cmac_update(cm, data, length(lv->len, n)));
  } else if (strcmp(cmd, "cmac_finish") == 0 || strcmp(cmd, "gcm_finish") == 0) {
    options(lv, 3);
    uint8_t *tag = out_tag(lv);
    tag_len = (size_t)num_arg(lv, 2);
    status = cmd[0] == 'c' ? couplet_aes_cmac_finish(cm, tag, tag_len) : couplet_aes_gcm_finish(gc, tag, tag_len);
    say_status(lv, status, NULL, 16u);
    say_tag16(lv);
  } else if (strcmp(cmd, "cmac_verify") == 0 || strcmp(cmd, "gcm_verify") == 0 || strcmp(cmd, "ccm_verify") == 0) {
    options(lv, 3);
    const uint8_t *tag = given_tag(lv, 2, &tag_len);
    status = cmd[1] == 'm'   ? couplet_aes_cmac_verify(cm, tag, tag_len)
             : cmd[0] == 'g' ? couplet_aes_gcm_verify(gc, tag, tag_len)
                             : couplet_aes_ccm_verify(cc, tag);
    say_int(lv, status);
  } else if (strcmp(cmd, "ccm_start") == 0) {
    options(lv, 7);
    couplet_aes_ctx_t *ctx = ctx_arg(lv, 2);
    const uint8_t *nonce = bytes_arg(lv, 3, lv->nonce, sizeof lv->nonce, &n);
    const size_t aad_len = size_arg(arg(lv, 4));
    const size_t msg_len = size_arg(arg(lv, 5));
    say_int(lv, couplet_aes_ccm_start(cc, ctx, nonce, length(lv->nlen, n), aad_len, msg_len, (size_t)num_arg(lv, 6)));
  } else if (strcmp(cmd, "gcm_start") == 0) {
    options(lv, 4);
    couplet_aes_ctx_t *ctx = ctx_arg(lv, 2);
    const uint8_t *iv = bytes_arg(lv, 3, lv->nonce, sizeof lv->nonce, &n);
    say_int(lv, couplet_aes_gcm_start(gc, ctx, iv, length(lv->nlen, n)));
  } else if (strcmp(cmd, "ccm_aad") == 0 || strcmp(cmd, "gcm_aad") == 0) {
    options(lv, 3);
    const uint8_t *data = bytes_arg(lv, 2, lv->data, sizeof lv->data, &n);
    status = cmd[0] == 'c' ? couplet_aes_ccm_aad(cc, data, length(lv->len, n))
                           : couplet_aes_gcm_aad(gc, data, length(lv->len, n));
    say_int(lv, status);
  } else if (strcmp(cmd, "ccm_eupd") == 0 || strcmp(cmd, "ccm_dupd") == 0 || strcmp(cmd, "gcm_eupd") == 0 ||
             strcmp(cmd, "gcm_dupd") == 0) {
    options(lv, 3);
    message_t m = message(lv, 2);
    memset(lv->tag, FILL, sizeof lv->tag);
    const bool decrypt = cmd[4] == 'd';
    if (cmd[0] == 'c') {
      status = decrypt ? couplet_aes_ccm_decrypt_update(cc, m.in, m.out, m.len)
                       : couplet_aes_ccm_encrypt_update(cc, m.in, m.out, m.len);
    } else {
      status = decrypt ? couplet_aes_gcm_decrypt_update(gc, m.in, m.out, m.len)
                       : couplet_aes_gcm_encrypt_update(gc, m.in, m.out, m.len);
    }
    say_status(lv, status, &m, 0u);
    say_out(lv, &m);
  } else if (strcmp(cmd, "ccm_finish") == 0) {
    options(lv, 2);
    uint8_t *tag = out_tag(lv);
    status = couplet_aes_ccm_finish(cc, tag);
    say_status(lv, status, NULL, 16u);
    say_tag16(lv);
  } else if (strcmp(cmd, "gcm_ctr") == 0) {
    if (gc == NULL || parse_hex(arg(lv, 2), gc->ctr, sizeof gc->ctr, lv->source) != 16) fail_usage(lv->source);
    say(lv, "0");
  } else {
    fail_usage(lv->source);
  }
}

// ------------------------------------------------------------------------------ dispatch

#ifdef FAKE_BACKENDS
#include "aes_fake_backends.h"

static char probe_line[sizeof command_line];
static char probe_reply[sizeof levels[0].reply];
static void dispatch(const char *line);

static void run_probe(void) {
  dispatch(probe_line);
  memcpy(probe_reply, levels[depth + 1].reply, levels[depth + 1].reply_len + 1u);
}
#endif

static void dispatch(const char *line) {
  if (depth + 1 >= LEVELS) fail_usage(line);
  level_t *lv = &levels[++depth];
  lv->source = line;
  lv->reply_len = 0u;
  lv->reply[0] = '\0';
  if (strlen(line) >= sizeof lv->line) fail_usage(line);
  strcpy(lv->line, line);
  lv->argc = 0;
  for (char *p = lv->line; *p != '\0';) {
    while (*p == ' ') *p++ = '\0';
    if (*p == '\0') break;
    if (lv->argc == MAX_ARGS) fail_usage(line);
    lv->argv[lv->argc++] = p;
    while (*p != ' ' && *p != '\0') ++p;
  }
  const char *cmd = arg(lv, 0);
  if (strcmp(cmd, "init") == 0) {
    say_int(lv, couplet_aes_init_backend(ctx_arg(lv, 1), (couplet_aes_backend_id_t)num_arg(lv, 2)));
  } else if (strcmp(cmd, "key") == 0) {
    uint8_t key[32];
    size_t n;
    const uint8_t *k = bytes_arg(lv, 2, key, sizeof key, &n);
    say_int(lv, couplet_aes_set_key(ctx_arg(lv, 1), k, n));
  } else if (strcmp(cmd, "zeroize") == 0) {
    say_int(lv, couplet_aes_zeroize(ctx_arg(lv, 1)));
  } else if (strcmp(cmd, "fill") == 0 && lv->argc == 3) {
    couplet_aes_ctx_t *ctx = ctx_arg(lv, 1);
    if (ctx == NULL) fail_usage(line);
    memset(ctx, (int)num_arg(lv, 2), sizeof *ctx);
    say(lv, "0");
  } else if (strcmp(cmd, "fill") == 0) {
    size_t size;
    void *p = stream_ptr(lv, arg(lv, 1), stream_arg(lv, 2), &size);
    if (p == NULL) fail_usage(line);
    memset(p, (int)num_arg(lv, 3), size);
    say(lv, "0");
  } else if (strcmp(cmd, "snap") == 0) {
    size_t size;
    const void *p = stream_ptr(lv, arg(lv, 1), stream_arg(lv, 2), &size);
    if (p == NULL) fail_usage(line);
    say_hex(lv, (const uint8_t *)p, size);
  } else if (strcmp(cmd, "cmac") == 0) {
    cmd_cmac(lv);
  } else if (strcmp(cmd, "ccm_enc") == 0 || strcmp(cmd, "ccm_dec") == 0 || strcmp(cmd, "gcm_enc") == 0 ||
             strcmp(cmd, "gcm_dec") == 0) {
    cmd_aead(lv, cmd[0] == 'g', cmd[4] == 'd');
  } else if (strcmp(cmd, "star_enc") == 0 || strcmp(cmd, "star_dec") == 0) {
    cmd_star(lv, cmd[5] == 'd');
  } else if (strncmp(cmd, "cmac_", 5) == 0 || strncmp(cmd, "ccm_", 4) == 0 || strncmp(cmd, "gcm_", 4) == 0) {
    cmd_stream(lv, cmd);
  } else if (strcmp(cmd, "ghash") == 0) {
    uint8_t s[16], h[16];
    size_t n;
    if (parse_hex(arg(lv, 1), s, sizeof s, line) != 16 || parse_hex(arg(lv, 2), h, sizeof h, line) != 16) {
      fail_usage(line);
    }
    const uint8_t *data = bytes_arg(lv, 3, lv->data, sizeof lv->data, &n);
    if (data == NULL || n % 16u != 0u) fail_usage(line);
    couplet_aes_ghash(s, h, data, n / 16u);
    say_hex(lv, s, sizeof s);
#ifdef FAKE_BACKENDS
  } else if (strcmp(cmd, "probe") == 0) {
    const char *rest = strchr(line, ' ');
    if (rest == NULL) fail_usage(line);
    snprintf(probe_line, sizeof probe_line, "%s", rest + 1);
    probe_reply[0] = '\0';
    fake.fired = 0;
    fake.hook = run_probe;
    say(lv, "0");
  } else if (strcmp(cmd, "probed") == 0) {
    say_int(lv, fake.fired);
    say(lv, " ");
    say(lv, probe_reply);
    fake.hook = NULL;
  } else if (strcmp(cmd, "fail") == 0) {
    fake.fail_next = (int)num_arg(lv, 1);
    fake.fail_skip = lv->argc > 2 ? (int)num_arg(lv, 2) : 0;
    say(lv, "0");
  } else if (strcmp(cmd, "modes") == 0) {
    for (int i = 0; i < 8; ++i) {
      say_int(lv, (long)fake.mode_calls[i]);
      say(lv, " ");
    }
    say_int(lv, (long)fake.violations);
#endif
  } else {
    fail_usage(line);
  }
  --depth;
}

int main(void) {
  (void)print_hex;  // driver_io.h's; answers are built in a buffer (say_hex), for the probe's
  while (next_command() != NULL) {
    dispatch(command_line);
    fputs(levels[0].reply, stdout);
    putchar('\n');
  }
  return 0;
}
