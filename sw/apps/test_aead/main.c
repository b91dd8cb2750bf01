// test_aead: authenticated encryption and CMAC (couplet/aes_aead.h) on every AES backend of this
// SoC, against NIST vectors, pycryptodome and each other.
//
// For each available backend (software first: it is the reference of the streamed messages):
//  - the CAVP sample of aead_vectors.c through the one-shot calls: CCM and GCM generation records
//    encrypted; decryption-verification records decrypted (every other one in place), those that
//    must fail refused with COUPLET_ERR_AUTH and their output zeroed; CMAC generated, verified,
//    and refused truncated with a bit flipped;
//  - CCM* at every IEEE 802.15.4 security level on one frame: the precomputed result, this
//    backend's CCM (levels 1..3 and 5..7) or CTR (level 4) on the same frame, decryption back in
//    place, and a flipped MIC bit;
//  - random messages (CCM, GCM and CMAC in turn) through the streaming calls in random pieces,
//    in place every other message, equal to this backend's one-shot calls and to the software
//    backend's, and decrypted back in pieces (in place when the encryption was not);
//  - error codes: bad nonce, IV, tag and level, contexts without a key, streams out of order or
//    re-keyed, and flipped tags (COUPLET_ERR_AUTH, output zeroed).
// A key size the backend's engine was built without is refused by set_key
// (COUPLET_ERR_UNSUPPORTED_KEY_SIZE): the record counts as passed and as refused
// (tests/test_aead_firmware.py derives how many from the configuration).
// Prints a line per backend and one per failure; exits 0 when everything passed.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_aead.h>
#include <couplet/check.h>

#include "aead_vectors.h"

#define MAX_LEN 128u         // the longest message of the sample and of the streamed ones
#define STREAM_MAX_LEN 100u  // streamed random messages: up to this many bytes
#define STREAM_MAX_AAD 40u   // and this many of associated data
#define STREAM_SEED 0x5EED0000u  // message r comes from seed STREAM_SEED + r on every backend
#define FILL 0xA5u           // output buffers hold this before a call

// Refusals of an engine built without some key sizes (set_key), per backend.
static uint32_t refused;

static uint8_t out_buf[MAX_LEN], back_buf[MAX_LEN], frame_buf[2u * MAX_LEN];

// n bytes equal (memcmp is not given NULL, which the table has for empty arrays).
static bool same(const uint8_t *a, const uint8_t *b, size_t n) {
  return n == 0u || memcmp(a, b, n) == 0;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t value) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != value) {
      return false;
    }
  }
  return true;
}

// A failure unless `p` (n bytes) is all `value`: zeroed by a refused tag, untouched by a refused
// call.
static bool check_bytes(const char *name, const char *what, const uint8_t *p, size_t n, uint8_t value,
                        const char *detail) {
  if (all_bytes(p, n, value)) {
    return true;
  }
  couplet_check_fail(name, what, detail);
  return false;
}

static bool check_same(const char *name, const char *what, const uint8_t *got, const uint8_t *want, size_t n,
                       const char *detail) {
  if (same(got, want, n)) {
    return true;
  }
  couplet_check_fail(name, what, detail);
  return false;
}

typedef enum { KEY_SET, KEY_REFUSED, KEY_FAILED } key_result_t;

// Initialises `ctx` with backend `id` and gives it `key`. A key size the backend refuses must be
// refused by set_key with the code couplet_aes_backend_supports names (counted in `refused`).
static key_result_t keyed_context(couplet_aes_ctx_t *ctx, couplet_aes_backend_id_t id, const char *what,
                                  const uint8_t *key, size_t key_len) {
  const char *name = couplet_aes_backend_name(id);
  if (!couplet_check_status(name, what, COUPLET_OK, couplet_aes_init_backend(ctx, id))) {
    return KEY_FAILED;
  }
  // CTR encryption needs only the forward cipher, as every AEAD mode: what is left is the key size.
  const couplet_status_t want = couplet_aes_backend_supports(id, COUPLET_AES_CTR, false, key_len);
  if (!couplet_check_status(name, what, want, couplet_aes_set_key(ctx, key, key_len))) {
    return KEY_FAILED;
  }
  if (want != COUPLET_OK) {
    refused++;
    return KEY_REFUSED;
  }
  return KEY_SET;
}

// ---------------------------------------------------------------------------------------------
// The CAVP sample through the one-shot calls

static couplet_status_t aead_encrypt(couplet_aes_ctx_t *ctx, const aead_test_vector_t *v, const uint8_t *in,
                                     uint8_t *out, uint8_t *tag) {
  if (v->kind == AEAD_GCM) {
    return couplet_aes_gcm_encrypt(ctx, v->nonce, v->nonce_len, v->aad, v->aad_len, in, out, v->len, tag,
                                   v->tag_len);
  }
  return couplet_aes_ccm_encrypt(ctx, v->nonce, v->nonce_len, v->aad, v->aad_len, in, out, v->len, tag, v->tag_len);
}

static couplet_status_t aead_decrypt(couplet_aes_ctx_t *ctx, const aead_test_vector_t *v, const uint8_t *in,
                                     uint8_t *out, const uint8_t *tag) {
  if (v->kind == AEAD_GCM) {
    return couplet_aes_gcm_decrypt(ctx, v->nonce, v->nonce_len, v->aad, v->aad_len, in, out, v->len, tag,
                                   v->tag_len);
  }
  return couplet_aes_ccm_decrypt(ctx, v->nonce, v->nonce_len, v->aad, v->aad_len, in, out, v->len, tag, v->tag_len);
}

// A generation record is encrypted; a decryption-verification record decrypted, in place when
// `in_place`.
static bool run_aead_vector(const char *name, couplet_aes_ctx_t *ctx, const aead_test_vector_t *v, bool in_place) {
  uint8_t tag[16];
  memset(out_buf, FILL, sizeof out_buf);
  memset(tag, FILL, sizeof tag);
  if (!v->decrypt) {
    return couplet_check_status(name, v->source, COUPLET_OK, aead_encrypt(ctx, v, v->plain, out_buf, tag)) &&
           check_same(name, v->source, out_buf, v->cipher, v->len, "wrong ciphertext") &&
           check_same(name, v->source, tag, v->tag, v->tag_len, "wrong tag") &&
           check_bytes(name, v->source, &tag[v->tag_len], 16u - v->tag_len, FILL, "the tag ran past its length");
  }
  const uint8_t *in = v->cipher;
  if (in_place) {
    memcpy(out_buf, v->cipher, v->len);
    in = out_buf;
  }
  const couplet_status_t got = aead_decrypt(ctx, v, in, out_buf, v->tag);
  if (!v->pass) {
    return couplet_check_status(name, v->source, COUPLET_ERR_AUTH, got) &&
           check_bytes(name, v->source, out_buf, v->len, 0u, "a refused tag left output");
  }
  return couplet_check_status(name, v->source, COUPLET_OK, got) &&
         check_same(name, v->source, out_buf, v->plain, v->len, "wrong plaintext");
}

// The MAC in one call; verified in a stream, and refused there when truncated with a bit flipped.
static bool run_cmac_vector(const char *name, couplet_aes_ctx_t *ctx, const aead_test_vector_t *v) {
  uint8_t tag[16], flipped[16];
  const size_t truncated = 4u + v->len % 9u;  // 4..12 bytes
  couplet_aes_cmac_ctx_t cmac;
  memset(tag, FILL, sizeof tag);
  if (!couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_cmac(ctx, v->plain, v->len, tag, 16)) ||
      !check_same(name, v->source, tag, v->tag, 16, "wrong MAC")) {
    return false;
  }
  memcpy(flipped, v->tag, 16);
  flipped[v->len % truncated] ^= (uint8_t)(1u << (v->len % 8u));
  return couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_cmac_start(&cmac, ctx)) &&
         couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_cmac_update(&cmac, v->plain, v->len)) &&
         couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_cmac_verify(&cmac, v->tag, 16)) &&
         couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_cmac_start(&cmac, ctx)) &&
         couplet_check_status(name, v->source, COUPLET_OK, couplet_aes_cmac_update(&cmac, v->plain, v->len)) &&
         couplet_check_status(name, v->source, COUPLET_ERR_AUTH, couplet_aes_cmac_verify(&cmac, flipped, truncated));
}

static uint32_t run_cavp(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  uint32_t passed = 0;
  for (size_t i = 0; i < aead_vectors_count; i++) {
    const aead_test_vector_t *v = &aead_vectors[i];
    couplet_aes_ctx_t ctx;
    const key_result_t key = keyed_context(&ctx, id, v->source, v->key, v->key_len);
    if (key == KEY_REFUSED) {
      passed++;
      continue;
    }
    if (key == KEY_FAILED) {
      continue;
    }
    if (v->kind == AEAD_CMAC ? run_cmac_vector(name, &ctx, v) : run_aead_vector(name, &ctx, v, i % 2u == 1u)) {
      passed++;
    }
  }
  return passed;
}

// ---------------------------------------------------------------------------------------------
// CCM* (IEEE 802.15.4)

static bool run_ccm_star_level(const char *name, couplet_aes_ctx_t *ctx, const ccm_star_test_vector_t *v) {
  const char *what = v->source;
  uint8_t mic[16], tag[16];
  uint8_t *mic_out = v->mic_len != 0u ? mic : NULL;  // level 4 has none: NULL is allowed
  memset(out_buf, FILL, sizeof out_buf);
  memset(mic, FILL, sizeof mic);
  if (!couplet_check_status(name, what, COUPLET_OK,
                            couplet_aes_ccm_star_encrypt(ctx, v->level, v->nonce, v->a, v->a_len, v->in, out_buf,
                                                         v->len, mic_out)) ||
      !check_same(name, what, out_buf, v->out, v->len, "wrong secured payload") ||
      !check_same(name, what, mic, v->mic, v->mic_len, "wrong MIC") ||
      !check_bytes(name, what, &mic[v->mic_len], 16u - v->mic_len, FILL, "the MIC ran past its length")) {
    return false;
  }
  // The same frame through this backend's CCM (or CTR at level 4).
  memset(back_buf, FILL, sizeof back_buf);
  if (v->level == 4u) {
    uint8_t counter[16] = {0x01u};  // A_1: flags (q - 1 = 1), the nonce, counter 1
    memcpy(&counter[1], v->nonce, 13);
    counter[15] = 1u;
    if (!couplet_check_status(name, what, COUPLET_OK, couplet_aes_ctr_crypt(ctx, counter, v->in, back_buf, v->len)) ||
        !check_same(name, what, back_buf, v->out, v->len, "differs from CTR on this backend")) {
      return false;
    }
  } else if (v->level > 4u) {
    if (!couplet_check_status(name, what, COUPLET_OK,
                              couplet_aes_ccm_encrypt(ctx, v->nonce, 13, v->a, v->a_len, v->in, back_buf, v->len, tag,
                                                      v->mic_len)) ||
        !check_same(name, what, back_buf, v->out, v->len, "payload differs from CCM on this backend") ||
        !check_same(name, what, tag, v->mic, v->mic_len, "MIC differs from CCM on this backend")) {
      return false;
    }
  } else {
    // Authentication only: CCM of an empty message with header || payload as associated data.
    memcpy(frame_buf, v->a, v->a_len);
    memcpy(&frame_buf[v->a_len], v->in, v->len);
    if (!couplet_check_status(name, what, COUPLET_OK,
                              couplet_aes_ccm_encrypt(ctx, v->nonce, 13, frame_buf, v->a_len + v->len, NULL, NULL, 0,
                                                      tag, v->mic_len)) ||
        !check_same(name, what, tag, v->mic, v->mic_len, "MIC differs from CCM on this backend")) {
      return false;
    }
  }
  // Back, in place.
  memcpy(back_buf, v->out, v->len);
  if (!couplet_check_status(name, what, COUPLET_OK,
                            couplet_aes_ccm_star_decrypt(ctx, v->level, v->nonce, v->a, v->a_len, back_buf, back_buf,
                                                         v->len, v->mic)) ||
      !check_same(name, what, back_buf, v->in, v->len, "decryption does not give the payload")) {
    return false;
  }
  if (v->mic_len == 0u) {
    return true;
  }
  // A MIC with one bit flipped: refused, nothing of the payload left.
  memcpy(mic, v->mic, v->mic_len);
  mic[v->level % v->mic_len] ^= (uint8_t)(0x80u >> v->level);
  memset(back_buf, FILL, sizeof back_buf);
  return couplet_check_status(name, what, COUPLET_ERR_AUTH,
                              couplet_aes_ccm_star_decrypt(ctx, v->level, v->nonce, v->a, v->a_len, v->out, back_buf,
                                                           v->len, mic)) &&
         check_bytes(name, what, back_buf, v->len, 0u, "a refused MIC left output");
}

static uint32_t run_ccm_star(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  uint32_t passed = 0;
  for (size_t i = 0; i < ccm_star_vectors_count; i++) {
    const ccm_star_test_vector_t *v = &ccm_star_vectors[i];
    couplet_aes_ctx_t ctx;
    const key_result_t key = keyed_context(&ctx, id, v->source, v->key, 16);
    if (key == KEY_REFUSED) {
      passed++;
    } else if (key == KEY_SET && run_ccm_star_level(name, &ctx, v)) {
      passed++;
    }
  }
  return passed;
}

// ---------------------------------------------------------------------------------------------
// Streaming: random messages in random pieces

// The software backend's one-shot results (it runs first), which the others must give.
static uint8_t reference_out[AEAD_STREAM_MESSAGES][STREAM_MAX_LEN];
static uint8_t reference_tag[AEAD_STREAM_MESSAGES][16];
static bool reference_set[AEAD_STREAM_MESSAGES];

// A random piece of what is left: 0 (an empty call) to 40 bytes.
static size_t piece(size_t left) {
  const size_t most = left < 40u ? left : 40u;
  return couplet_check_rand() % (most + 1u);
}

typedef struct {
  aead_kind_t kind;
  size_t key_len, nonce_len, aad_len, len, tag_len;
  bool in_place;
  uint8_t key[32], nonce[20], aad[STREAM_MAX_AAD], msg[STREAM_MAX_LEN];
} stream_message_t;

// Message r, the same on every backend: CCM, GCM and CMAC in turn; keys of 16, 24 and 32 bytes in
// turn, each for three messages (stream_key_bytes of testsupport/cavp_aead.py, with which
// tests/test_aead_firmware.py counts the refused ones).
static void make_message(uint32_t r, stream_message_t *m) {
  couplet_check_seed(STREAM_SEED + r);
  m->kind = (aead_kind_t)(r % 3u);
  m->key_len = 16u + 8u * ((r / 3u) % 3u);
  m->len = couplet_check_rand() % (STREAM_MAX_LEN + 1u);
  m->aad_len = couplet_check_rand() % (STREAM_MAX_AAD + 1u);
  m->in_place = r % 2u == 1u;
  switch (m->kind) {
    case AEAD_CCM:
      m->nonce_len = 7u + couplet_check_rand() % 7u;
      m->tag_len = 4u + 2u * (couplet_check_rand() % 7u);
      break;
    case AEAD_GCM:
      m->nonce_len = couplet_check_rand() % 2u ? 12u : 1u + couplet_check_rand() % sizeof m->nonce;
      m->tag_len = 4u + couplet_check_rand() % 13u;
      break;
    default:
      m->nonce_len = 0u;
      m->aad_len = 0u;
      m->tag_len = 1u + couplet_check_rand() % 16u;
      break;
  }
  couplet_check_fill(m->key, sizeof m->key);
  couplet_check_fill(m->nonce, sizeof m->nonce);
  couplet_check_fill(m->aad, sizeof m->aad);
  couplet_check_fill(m->msg, sizeof m->msg);
}

static couplet_status_t one_shot(couplet_aes_ctx_t *ctx, const stream_message_t *m, uint8_t *out, uint8_t *tag) {
  switch (m->kind) {
    case AEAD_CCM:
      return couplet_aes_ccm_encrypt(ctx, m->nonce, m->nonce_len, m->aad, m->aad_len, m->msg, out, m->len, tag,
                                     m->tag_len);
    case AEAD_GCM:
      return couplet_aes_gcm_encrypt(ctx, m->nonce, m->nonce_len, m->aad, m->aad_len, m->msg, out, m->len, tag,
                                     m->tag_len);
    default:
      return couplet_aes_cmac(ctx, m->msg, m->len, tag, m->tag_len);
  }
}

// CCM or GCM in pieces: `data` (len bytes) is encrypted or decrypted in place; then the tag is
// made (encryption) or checked (decryption, `tag` given).
static couplet_status_t stream_aead(couplet_aes_ctx_t *ctx, const stream_message_t *m, bool decrypt,
                                    const uint8_t *in, uint8_t *out, uint8_t *tag) {
  couplet_aes_ccm_ctx_t ccm;
  couplet_aes_gcm_ctx_t gcm;
  const bool is_ccm = m->kind == AEAD_CCM;
  couplet_status_t status = is_ccm ? couplet_aes_ccm_start(&ccm, ctx, m->nonce, m->nonce_len, m->aad_len, m->len,
                                                           m->tag_len)
                                   : couplet_aes_gcm_start(&gcm, ctx, m->nonce, m->nonce_len);
  for (size_t done = 0; done < m->aad_len && status == COUPLET_OK;) {
    const size_t n = piece(m->aad_len - done);
    status = is_ccm ? couplet_aes_ccm_aad(&ccm, &m->aad[done], n) : couplet_aes_gcm_aad(&gcm, &m->aad[done], n);
    done += n;
  }
  for (size_t done = 0; done < m->len && status == COUPLET_OK;) {
    const size_t n = piece(m->len - done);
    if (is_ccm) {
      status = decrypt ? couplet_aes_ccm_decrypt_update(&ccm, &in[done], &out[done], n)
                       : couplet_aes_ccm_encrypt_update(&ccm, &in[done], &out[done], n);
    } else {
      status = decrypt ? couplet_aes_gcm_decrypt_update(&gcm, &in[done], &out[done], n)
                       : couplet_aes_gcm_encrypt_update(&gcm, &in[done], &out[done], n);
    }
    done += n;
  }
  if (status != COUPLET_OK) {
    return status;
  }
  if (is_ccm) {
    return decrypt ? couplet_aes_ccm_verify(&ccm, tag) : couplet_aes_ccm_finish(&ccm, tag);
  }
  return decrypt ? couplet_aes_gcm_verify(&gcm, tag, m->tag_len) : couplet_aes_gcm_finish(&gcm, tag, m->tag_len);
}

static couplet_status_t stream_cmac(couplet_aes_ctx_t *ctx, const stream_message_t *m, bool verify, uint8_t *tag) {
  couplet_aes_cmac_ctx_t cmac;
  couplet_status_t status = couplet_aes_cmac_start(&cmac, ctx);
  for (size_t done = 0; done < m->len && status == COUPLET_OK;) {
    const size_t n = piece(m->len - done);
    status = couplet_aes_cmac_update(&cmac, &m->msg[done], n);
    done += n;
  }
  if (status != COUPLET_OK) {
    return status;
  }
  return verify ? couplet_aes_cmac_verify(&cmac, tag, m->tag_len) : couplet_aes_cmac_finish(&cmac, tag, m->tag_len);
}

static bool run_stream_message(couplet_aes_backend_id_t id, uint32_t r) {
  const char *name = couplet_aes_backend_name(id);
  static stream_message_t m;
  make_message(r, &m);
  char what[80];
  snprintf(what, sizeof what, "stream #%lu %s-%u nonce %u aad %u len %u tag %u", (unsigned long)r,
           m.kind == AEAD_CCM ? "CCM" : m.kind == AEAD_GCM ? "GCM" : "CMAC", (unsigned)(m.key_len * 8u),
           (unsigned)m.nonce_len, (unsigned)m.aad_len, (unsigned)m.len, (unsigned)m.tag_len);
  couplet_aes_ctx_t ctx;
  const key_result_t key = keyed_context(&ctx, id, what, m.key, m.key_len);
  if (key != KEY_SET) {
    return key == KEY_REFUSED;
  }
  uint8_t tag[16], stream_tag[16];
  static uint8_t expected[STREAM_MAX_LEN], buf[STREAM_MAX_LEN];
  if (!couplet_check_status(name, what, COUPLET_OK, one_shot(&ctx, &m, expected, tag))) {
    return false;
  }
  const size_t out_len = m.kind == AEAD_CMAC ? 0u : m.len;
  if (id == COUPLET_AES_BACKEND_SOFT) {
    memcpy(reference_out[r], expected, out_len);
    memcpy(reference_tag[r], tag, m.tag_len);
    reference_set[r] = true;
  } else if (!reference_set[r]) {
    couplet_check_fail(name, what, "no result of the software backend to compare with");
    return false;
  } else if (!check_same(name, what, expected, reference_out[r], out_len, "one-shot output differs from soft") ||
             !check_same(name, what, tag, reference_tag[r], m.tag_len, "one-shot tag differs from soft")) {
    return false;
  }

  if (m.kind == AEAD_CMAC) {
    memset(stream_tag, FILL, sizeof stream_tag);
    return couplet_check_status(name, what, COUPLET_OK, stream_cmac(&ctx, &m, false, stream_tag)) &&
           check_same(name, what, stream_tag, tag, m.tag_len, "streamed MAC differs from one-shot") &&
           couplet_check_status(name, what, COUPLET_OK, stream_cmac(&ctx, &m, true, tag));
  }
  // Encryption in pieces: from msg to buf, or in place in buf.
  const uint8_t *in = m.msg;
  memset(buf, FILL, sizeof buf);
  if (m.in_place) {
    memcpy(buf, m.msg, m.len);
    in = buf;
  }
  memset(stream_tag, FILL, sizeof stream_tag);
  if (!couplet_check_status(name, what, COUPLET_OK, stream_aead(&ctx, &m, false, in, buf, stream_tag)) ||
      !check_same(name, what, buf, expected, m.len, "streamed ciphertext differs from one-shot") ||
      !check_same(name, what, stream_tag, tag, m.tag_len, "streamed tag differs from one-shot")) {
    return false;
  }
  // Decryption in pieces (in place when the encryption was not), and the tag verified.
  uint8_t *back = m.in_place ? back_buf : buf;
  return couplet_check_status(name, what, COUPLET_OK, stream_aead(&ctx, &m, true, buf, back, tag)) &&
         check_same(name, what, back, m.msg, m.len, "streamed decryption does not give the plaintext");
}

static uint32_t run_stream(couplet_aes_backend_id_t id) {
  uint32_t passed = 0;
  for (uint32_t r = 0; r < AEAD_STREAM_MESSAGES; r++) {
    if (run_stream_message(id, r)) {
      passed++;
    }
  }
  return passed;
}

// ---------------------------------------------------------------------------------------------
// Error codes

// A call refused with `want` that left `out` (n bytes, FILL before) as it was.
static bool refused_untouched(const char *name, const char *what, couplet_status_t want, couplet_status_t got,
                              const uint8_t *out, size_t n) {
  return couplet_check_status(name, what, want, got) &&
         check_bytes(name, what, out, n, FILL, "a refused call wrote output");
}

static bool run_errors(couplet_aes_backend_id_t id) {
  const char *name = couplet_aes_backend_name(id);
  static const uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static const uint8_t other_key[16] = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  static const uint8_t nonce[16] = {0xC0u, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  static const uint8_t msg[32] = {'c', 'o', 'u', 'p', 'l', 'e', 't'};
  uint8_t tag[16] = {0}, flipped[16];
  couplet_aes_ctx_t ctx;
  couplet_aes_ccm_ctx_t ccm;
  couplet_aes_gcm_ctx_t gcm;
  couplet_aes_cmac_ctx_t cmac;
  bool ok = couplet_check_status(name, "init", COUPLET_OK, couplet_aes_init_backend(&ctx, id));

  // A context without a key.
  memset(out_buf, FILL, sizeof out_buf);
  ok &= refused_untouched(name, "CCM without a key", COUPLET_ERR_STATE,
                          couplet_aes_ccm_encrypt(&ctx, nonce, 13, NULL, 0, msg, out_buf, 16, tag, 8), out_buf, 16);
  ok &= refused_untouched(name, "GCM without a key", COUPLET_ERR_STATE,
                          couplet_aes_gcm_encrypt(&ctx, nonce, 12, NULL, 0, msg, out_buf, 16, tag, 16), out_buf, 16);
  ok &= refused_untouched(name, "CCM* without a key", COUPLET_ERR_STATE,
                          couplet_aes_ccm_star_encrypt(&ctx, 5, nonce, msg, 4, msg, out_buf, 16, tag), out_buf, 16);
  ok &= couplet_check_status(name, "CMAC without a key", COUPLET_ERR_STATE, couplet_aes_cmac(&ctx, msg, 16, tag, 16));
  ok &= couplet_check_status(name, "CCM start without a key", COUPLET_ERR_STATE,
                             couplet_aes_ccm_start(&ccm, &ctx, nonce, 13, 0, 16, 8));
  ok &= couplet_check_status(name, "GCM start without a key", COUPLET_ERR_STATE,
                             couplet_aes_gcm_start(&gcm, &ctx, nonce, 12));
  ok &= couplet_check_status(name, "CMAC start without a key", COUPLET_ERR_STATE, couplet_aes_cmac_start(&cmac, &ctx));
  ok &= couplet_check_status(name, "set_key", COUPLET_OK, couplet_aes_set_key(&ctx, key, sizeof key));

  // Bad nonce, IV, tag length and level; NULL pointers. Nothing is written.
  static const struct {
    const char *what;
    size_t nonce_len, tag_len;
  } ccm_bad[] = {{"CCM nonce 6", 6, 8}, {"CCM nonce 14", 14, 8}, {"CCM tag 2", 13, 2},
                 {"CCM tag 5", 13, 5}, {"CCM tag 18", 13, 18}};
  for (size_t i = 0; i < sizeof ccm_bad / sizeof ccm_bad[0]; i++) {
    ok &= refused_untouched(name, ccm_bad[i].what, COUPLET_ERR_ARG,
                            couplet_aes_ccm_encrypt(&ctx, nonce, ccm_bad[i].nonce_len, NULL, 0, msg, out_buf, 16, tag,
                                                    ccm_bad[i].tag_len),
                            out_buf, 16);
    ok &= refused_untouched(name, ccm_bad[i].what, COUPLET_ERR_ARG,
                            couplet_aes_ccm_decrypt(&ctx, nonce, ccm_bad[i].nonce_len, NULL, 0, msg, out_buf, 16, tag,
                                                    ccm_bad[i].tag_len),
                            out_buf, 16);
    ok &= couplet_check_status(name, ccm_bad[i].what, COUPLET_ERR_ARG,
                               couplet_aes_ccm_start(&ccm, &ctx, nonce, ccm_bad[i].nonce_len, 0, 16,
                                                     ccm_bad[i].tag_len));
  }
  static const struct {
    const char *what;
    size_t iv_len, tag_len;
  } gcm_bad[] = {{"GCM IV 0", 0, 16}, {"GCM tag 3", 12, 3}, {"GCM tag 17", 12, 17}, {"GCM tag 0", 12, 0}};
  for (size_t i = 0; i < sizeof gcm_bad / sizeof gcm_bad[0]; i++) {
    ok &= refused_untouched(name, gcm_bad[i].what, COUPLET_ERR_ARG,
                            couplet_aes_gcm_encrypt(&ctx, nonce, gcm_bad[i].iv_len, NULL, 0, msg, out_buf, 16, tag,
                                                    gcm_bad[i].tag_len),
                            out_buf, 16);
    ok &= refused_untouched(name, gcm_bad[i].what, COUPLET_ERR_ARG,
                            couplet_aes_gcm_decrypt(&ctx, nonce, gcm_bad[i].iv_len, NULL, 0, msg, out_buf, 16, tag,
                                                    gcm_bad[i].tag_len),
                            out_buf, 16);
  }
  ok &= couplet_check_status(name, "GCM start IV 0", COUPLET_ERR_ARG, couplet_aes_gcm_start(&gcm, &ctx, nonce, 0));
  ok &= couplet_check_status(name, "CMAC tag 0", COUPLET_ERR_ARG, couplet_aes_cmac(&ctx, msg, 16, tag, 0));
  ok &= couplet_check_status(name, "CMAC tag 17", COUPLET_ERR_ARG, couplet_aes_cmac(&ctx, msg, 16, tag, 17));
  ok &= refused_untouched(name, "CCM* level 0", COUPLET_ERR_ARG,
                          couplet_aes_ccm_star_encrypt(&ctx, 0, nonce, msg, 4, msg, out_buf, 16, tag), out_buf, 16);
  ok &= refused_untouched(name, "CCM* level 8", COUPLET_ERR_ARG,
                          couplet_aes_ccm_star_decrypt(&ctx, 8, nonce, msg, 4, msg, out_buf, 16, tag), out_buf, 16);
  ok &= refused_untouched(name, "CCM NULL nonce", COUPLET_ERR_NULL,
                          couplet_aes_ccm_encrypt(&ctx, NULL, 13, NULL, 0, msg, out_buf, 16, tag, 8), out_buf, 16);
  ok &= refused_untouched(name, "GCM NULL tag", COUPLET_ERR_NULL,
                          couplet_aes_gcm_encrypt(&ctx, nonce, 12, NULL, 0, msg, out_buf, 16, NULL, 16), out_buf, 16);
  ok &= couplet_check_status(name, "CCM length 65536 with a 13-byte nonce", COUPLET_ERR_LEN,
                             couplet_aes_ccm_start(&ccm, &ctx, nonce, 13, 0, 65536u, 8));

  // A tag with one bit flipped: COUPLET_ERR_AUTH and the output zeroed.
  uint8_t ct[32];
  ok &= couplet_check_status(name, "CCM", COUPLET_OK,
                             couplet_aes_ccm_encrypt(&ctx, nonce, 12, msg, 7, msg, ct, sizeof ct, tag, 12));
  memcpy(flipped, tag, sizeof flipped);
  flipped[11] ^= 0x01u;
  memset(out_buf, FILL, sizeof out_buf);
  ok &= couplet_check_status(name, "CCM flipped tag", COUPLET_ERR_AUTH,
                             couplet_aes_ccm_decrypt(&ctx, nonce, 12, msg, 7, ct, out_buf, sizeof ct, flipped, 12)) &&
        check_bytes(name, "CCM flipped tag", out_buf, sizeof ct, 0u, "a refused tag left output");
  ok &= couplet_check_status(name, "GCM", COUPLET_OK,
                             couplet_aes_gcm_encrypt(&ctx, nonce, 12, msg, 7, msg, ct, sizeof ct, tag, 16));
  memcpy(flipped, tag, sizeof flipped);
  flipped[0] ^= 0x80u;
  memset(out_buf, FILL, sizeof out_buf);
  ok &= couplet_check_status(name, "GCM flipped tag", COUPLET_ERR_AUTH,
                             couplet_aes_gcm_decrypt(&ctx, nonce, 12, msg, 7, ct, out_buf, sizeof ct, flipped, 16)) &&
        check_bytes(name, "GCM flipped tag", out_buf, sizeof ct, 0u, "a refused tag left output");
  // In place too: the ciphertext itself is zeroed.
  memcpy(out_buf, ct, sizeof ct);
  ok &= couplet_check_status(name, "GCM flipped tag in place", COUPLET_ERR_AUTH,
                             couplet_aes_gcm_decrypt(&ctx, nonce, 12, msg, 7, out_buf, out_buf, sizeof ct, flipped,
                                                     16)) &&
        check_bytes(name, "GCM flipped tag in place", out_buf, sizeof ct, 0u, "a refused tag left output");
  // The streaming verify says the same (the plaintext it wrote is the caller's to discard).
  ok &= couplet_check_status(name, "GCM stream", COUPLET_OK, couplet_aes_gcm_start(&gcm, &ctx, nonce, 12)) &&
        couplet_check_status(name, "GCM stream", COUPLET_OK, couplet_aes_gcm_aad(&gcm, msg, 7)) &&
        couplet_check_status(name, "GCM stream", COUPLET_OK,
                             couplet_aes_gcm_decrypt_update(&gcm, ct, out_buf, sizeof ct)) &&
        couplet_check_status(name, "GCM stream flipped tag", COUPLET_ERR_AUTH,
                             couplet_aes_gcm_verify(&gcm, flipped, 16));
  ok &= couplet_check_status(name, "CCM", COUPLET_OK,
                             couplet_aes_ccm_encrypt(&ctx, nonce, 12, msg, 7, msg, ct, sizeof ct, tag, 12));
  memcpy(flipped, tag, sizeof flipped);
  flipped[5] ^= 0x10u;
  ok &= couplet_check_status(name, "CCM stream", COUPLET_OK,
                             couplet_aes_ccm_start(&ccm, &ctx, nonce, 12, 7, sizeof ct, 12)) &&
        couplet_check_status(name, "CCM stream", COUPLET_OK, couplet_aes_ccm_aad(&ccm, msg, 7)) &&
        couplet_check_status(name, "CCM stream", COUPLET_OK,
                             couplet_aes_ccm_decrypt_update(&ccm, ct, out_buf, sizeof ct)) &&
        couplet_check_status(name, "CCM stream flipped tag", COUPLET_ERR_AUTH, couplet_aes_ccm_verify(&ccm, flipped));

  // Streams out of order.
  memset(&gcm, 0, sizeof gcm);
  memset(&ccm, 0, sizeof ccm);
  memset(&cmac, 0, sizeof cmac);
  ok &= couplet_check_status(name, "GCM not started", COUPLET_ERR_STATE, couplet_aes_gcm_aad(&gcm, msg, 4));
  ok &= couplet_check_status(name, "CCM not started", COUPLET_ERR_STATE, couplet_aes_ccm_aad(&ccm, msg, 4));
  ok &= couplet_check_status(name, "CMAC not started", COUPLET_ERR_STATE, couplet_aes_cmac_update(&cmac, msg, 4));
  ok &= couplet_check_status(name, "CCM start", COUPLET_OK, couplet_aes_ccm_start(&ccm, &ctx, nonce, 13, 10, 5, 8));
  ok &= couplet_check_status(name, "CCM message before the associated data", COUPLET_ERR_STATE,
                             couplet_aes_ccm_encrypt_update(&ccm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "CCM associated data beyond aad_len", COUPLET_ERR_LEN,
                             couplet_aes_ccm_aad(&ccm, msg, 11));
  ok &= couplet_check_status(name, "CCM associated data", COUPLET_OK, couplet_aes_ccm_aad(&ccm, msg, 10));
  ok &= couplet_check_status(name, "CCM finish before the message", COUPLET_ERR_STATE,
                             couplet_aes_ccm_finish(&ccm, tag));
  ok &= couplet_check_status(name, "CCM message beyond msg_len", COUPLET_ERR_LEN,
                             couplet_aes_ccm_encrypt_update(&ccm, msg, out_buf, 6));
  ok &= couplet_check_status(name, "CCM message", COUPLET_OK, couplet_aes_ccm_encrypt_update(&ccm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "CCM associated data after the message", COUPLET_ERR_STATE,
                             couplet_aes_ccm_aad(&ccm, msg, 1));
  ok &= couplet_check_status(name, "CCM verify of an encryption", COUPLET_ERR_STATE,
                             couplet_aes_ccm_verify(&ccm, tag));
  ok &= couplet_check_status(name, "CCM finish", COUPLET_OK, couplet_aes_ccm_finish(&ccm, tag));
  ok &= couplet_check_status(name, "CCM finish twice", COUPLET_ERR_STATE, couplet_aes_ccm_finish(&ccm, tag));
  ok &= couplet_check_status(name, "GCM start", COUPLET_OK, couplet_aes_gcm_start(&gcm, &ctx, nonce, 12));
  ok &= couplet_check_status(name, "GCM message", COUPLET_OK, couplet_aes_gcm_encrypt_update(&gcm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "GCM associated data after the message", COUPLET_ERR_STATE,
                             couplet_aes_gcm_aad(&gcm, msg, 1));
  ok &= couplet_check_status(name, "GCM decryption in an encryption", COUPLET_ERR_STATE,
                             couplet_aes_gcm_decrypt_update(&gcm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "GCM verify of an encryption", COUPLET_ERR_STATE,
                             couplet_aes_gcm_verify(&gcm, tag, 16));
  ok &= couplet_check_status(name, "GCM finish tag 3", COUPLET_ERR_ARG, couplet_aes_gcm_finish(&gcm, tag, 3));
  ok &= couplet_check_status(name, "GCM finish", COUPLET_OK, couplet_aes_gcm_finish(&gcm, tag, 16));
  ok &= couplet_check_status(name, "GCM after finish", COUPLET_ERR_STATE,
                             couplet_aes_gcm_encrypt_update(&gcm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "CMAC start", COUPLET_OK, couplet_aes_cmac_start(&cmac, &ctx));
  ok &= couplet_check_status(name, "CMAC finish", COUPLET_OK, couplet_aes_cmac_finish(&cmac, tag, 16));
  ok &= couplet_check_status(name, "CMAC verify after finish", COUPLET_ERR_STATE,
                             couplet_aes_cmac_verify(&cmac, tag, 16));

  // A stream whose AES context got another key, or lost it, since start.
  ok &= couplet_check_status(name, "GCM start", COUPLET_OK, couplet_aes_gcm_start(&gcm, &ctx, nonce, 12));
  ok &= couplet_check_status(name, "CMAC start", COUPLET_OK, couplet_aes_cmac_start(&cmac, &ctx));
  ok &= couplet_check_status(name, "new key", COUPLET_OK, couplet_aes_set_key(&ctx, other_key, sizeof other_key));
  ok &= couplet_check_status(name, "GCM after a new key", COUPLET_ERR_STATE,
                             couplet_aes_gcm_encrypt_update(&gcm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "CMAC after a new key", COUPLET_ERR_STATE, couplet_aes_cmac_update(&cmac, msg, 5));
  ok &= couplet_check_status(name, "CCM start", COUPLET_OK, couplet_aes_ccm_start(&ccm, &ctx, nonce, 13, 0, 5, 8));
  ok &= couplet_check_status(name, "zeroize", COUPLET_OK, couplet_aes_zeroize(&ctx));
  ok &= couplet_check_status(name, "CCM after zeroize", COUPLET_ERR_STATE,
                             couplet_aes_ccm_encrypt_update(&ccm, msg, out_buf, 5));
  ok &= couplet_check_status(name, "CMAC after zeroize", COUPLET_ERR_STATE, couplet_aes_cmac(&ctx, msg, 5, tag, 16));
  return ok;
}

int main(void) {
  size_t counts[3] = {0};
  for (size_t i = 0; i < aead_vectors_count; i++) {
    counts[aead_vectors[i].kind]++;
  }
  printf("test_aead: %u CAVP vectors (CCM %u, GCM %u, CMAC %u), %u CCM* levels, %u streamed messages per backend\n",
         (unsigned)aead_vectors_count, (unsigned)counts[AEAD_CCM], (unsigned)counts[AEAD_GCM],
         (unsigned)counts[AEAD_CMAC], (unsigned)ccm_star_vectors_count, (unsigned)AEAD_STREAM_MESSAGES);
  for (uint32_t b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    couplet_aes_backend_id_t id = (couplet_aes_backend_id_t)b;
    if (!couplet_aes_backend_available(id)) {
      printf("backend %-8s absent in this SoC\n", couplet_aes_backend_name(id));
      continue;
    }
    const uint32_t before = couplet_check_failures();
    refused = 0;
    const uint32_t cavp = run_cavp(id);
    const uint32_t star = run_ccm_star(id);
    const uint32_t stream = run_stream(id);
    const bool errors = run_errors(id);
    printf("backend %-8s cavp %lu/%u ccm_star %lu/%u stream %lu/%u errors %s refused %lu\n",
           couplet_aes_backend_name(id), (unsigned long)cavp, (unsigned)aead_vectors_count, (unsigned long)star,
           (unsigned)ccm_star_vectors_count, (unsigned long)stream, (unsigned)AEAD_STREAM_MESSAGES,
           errors ? "ok" : "FAIL", (unsigned long)refused);
    if (couplet_check_failures() != before) {
      printf("backend %s: %lu failures\n", couplet_aes_backend_name(id),
             (unsigned long)(couplet_check_failures() - before));
    }
  }
  return couplet_check_failures() == 0u ? 0 : 1;
}
