// facv_echo: the FAC-V (section 4.3, Tables 8 and 9) application on FreeRTOS. A server receives
// 80-byte (five-block) AES-256-CBC messages at a fixed rate, decrypts them, validates and changes
// the content, re-encrypts and sends them back, while the Thread-Metric suite
// (fw/rtos/lib/thread_metric) runs below it. A second variant carries the same 80-byte message as
// the payload of an IEEE 802.15.4 data frame secured with CCM* (AES-128, security level 5), one
// every CCM_PACKET_TICKS ticks (about what an 802.15.4 radio carries): the server verifies and
// decrypts it, changes it, and sends back a frame secured the same way.
// docs/bench_rtos.md describes it; `couplet bench facv` runs it and parses its output.
//
// Tasks (priorities): this app's controller is the suite's reporter (TM_REPORTER_PRIORITY); the
// packet source sits at the same, highest priority; it starts as the first test's period does and
// then wakes every PACKET_TICKS (CCM*: CCM_PACKET_TICKS) ticks to "receive" the next packet (a
// copy from a pool of messages or frames secured at start-up with the software backend) and queue
// it to the server; the server (just above the suite's tasks) serves one packet at a time and
// hands the reply back to the source, which counts it and keeps every CHECK_EVERY-th one. The
// kept replies are checked after the scenario, with the software backend, outside every timed
// path.
//
// Scenarios, each running the whole suite: baseline (no packets), echo (no crypto: copy, validate,
// modify), then CBC echo with every AES backend this SoC has, soft first (named after the
// backend); then, at the CCM* variant's period and rate, ccm_echo (the frame in clear: header
// checked, payload copied, validated, modified, reply header made) and the CCM* frame echo with
// every backend (ccm_<backend>). Before each ccm_<backend> scenario the server is handed
// FORGERIES frames with one bit flipped, which it must refuse.
// Output:
//   facv_echo period_ticks=P packet_ticks=T packet_bytes=80 key_bits=256 ccm_period_ticks=P2
//        ccm_packet_ticks=T2 ccm_level=5 ccm_key_bits=128 ccm_header_bytes=27
//        ccm_payload_bytes=80 ccm_mic_bytes=4 ccm_frame_bytes=113 check_every=K
//        backends=soft,...                                                    (one line)
//   tm <test> count=... ticks=... cycles=... tasks=... scenario=<scenario>      (8 per scenario)
//   facv scenario=<s> packets=N replies=N misses=N lost=N errors=N checked=N check_failures=N
//        forged=F refused=R server_cycles=<sum over the replies> server_max=<cycles>  (one line)
//   facv_echo done
// Exit code 0 only if every reply checked is right, no packet was lost or refused and every
// forged frame was refused.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_aead.h>
#include <couplet/console.h>
#include <couplet/counters.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "queue.h"
#include "task.h"
#include "tm_suite.h"

// Each Thread-Metric test runs this many ticks (1 ms, 50,000 cycles): a multiple of PACKET_TICKS,
// so that every period sees the same number of packets whatever its phase. Two keeps a CBC
// scenario near 1.5 M cycles.
#define PERIOD_TICKS 2
#define PACKET_TICKS 2
// The CCM* variant sends a frame every 4 ticks: a 113-byte frame is 3.8 ms on air at 250 kbit/s
// (with its 6-byte preamble and PHY header), so an 802.15.4 radio carries at most about one every
// 4 ms; and software CCM* (about 115,000 cycles a frame, both ways) would not keep up with one
// every 2 ms. Its tests run 4 ticks (about 2.3 M cycles a scenario).
#define CCM_PERIOD_TICKS 4
#define CCM_PACKET_TICKS 4
#define PACKET_BYTES 80  // five AES blocks, as in FAC-V
#define KEY_BYTES 32     // AES-256
#define POOL_SIZE 8
#define CHECK_EVERY 2
#define MAX_CHECKS 64

// Packets queued to the server at most; a full queue when the next one arrives loses it.
#define RX_DEPTH 4
// The source copies packet n into rx_ring[n % RX_RING]: up to RX_DEPTH queued and one being
// served, so the slot written is always free while the queue has room.
#define RX_RING (RX_DEPTH + 2)
#define TX_DEPTH 6
#define TX_RING (TX_DEPTH + 2)

#define SERVER_PRIORITY (TM_TEST_PRIORITY_MAX + 1)
#define SOURCE_PRIORITY TM_REPORTER_PRIORITY
#define STACK (2 * configMINIMAL_STACK_SIZE)
// Ticks the controller waits for the last replies at the end of a scenario.
#define DRAIN_TICKS 20

#define MAGIC_REQUEST 0x46414356u  // "FACV"
#define MAGIC_REPLY 0x52504c59u    // "RPLY"
// The plaintext: magic, sequence (pool index), hops (the server adds one), payload, checksum.
#define OFF_MAGIC 0
#define OFF_SEQ 4
#define OFF_HOPS 8
#define OFF_PAYLOAD 12
#define OFF_SUM (PACKET_BYTES - 4)

// The CCM* variant: an IEEE 802.15.4-2006 data frame (docs/bench_rtos.md). MAC header: frame
// control, sequence number, destination PAN, destination and source extended addresses, then the
// auxiliary security header: security control, frame counter, key index. Multi-byte fields are
// little-endian on air. The payload is the CBC variant's 80-byte message; the MIC follows it.
// Level 5 (ENC-MIC-32) is the level Thread's MAC layer and Zigbee's network layer secure their
// frames with; the MIC length does not change CCM*'s block count, so level 6 would cost the same.
#define CCM_LEVEL 5u
#define CCM_MIC_BYTES 4        // level & 3 = 1: a 32-bit MIC
#define CCM_KEY_BYTES 16       // 802.15.4 is AES-128
#define CCM_NONCE_BYTES 13     // source address, frame counter, level (big-endian)
#define HDR_FC 0
#define HDR_DSN 2
#define HDR_PAN 3
#define HDR_DST 5
#define HDR_SRC 13
#define HDR_SEC 21
#define HDR_COUNTER 22
#define HDR_KEY_INDEX 26
#define CCM_HEADER_BYTES 27
#define FRAME_PAYLOAD CCM_HEADER_BYTES
#define FRAME_MIC (FRAME_PAYLOAD + PACKET_BYTES)
#define FRAME_BYTES (FRAME_MIC + CCM_MIC_BYTES)  // the MPDU without its FCS: what the server sees
#define FCS_BYTES 2                              // added and checked by the radio
#define PSDU_BYTES (FRAME_BYTES + FCS_BYTES)
_Static_assert(PSDU_BYTES <= 127, "an 802.15.4 frame is at most aMaxPHYPacketSize (127) bytes");
// Data frame, security enabled, ack request, PAN ID compression; destination addressing extended,
// frame version 1 (2006), source addressing extended.
#define FRAME_CONTROL 0xdc69u
#define SECURITY_CONTROL (CCM_LEVEL | 1u << 3)  // key identifier mode 1: a one-byte key index
#define PAN_ID 0xfaceu
#define KEY_INDEX 1u
#define FRAME_COUNTER_0 0x1000u  // pool frame i has counter FRAME_COUNTER_0 + i
// Frames the server must refuse before each CCM* scenario: one bit of the MIC, of the ciphertext
// or of the header's sequence number (which only the MIC protects) flipped.
#define FORGERIES 3


typedef union {
  struct {
    uint8_t iv[COUPLET_AES_BLOCK_BYTES];  // sent in clear with the message
    uint8_t data[PACKET_BYTES];
  } msg;                                  // echo and CBC
  struct {                                // CCM*, as a radio's frame buffer holds it:
    uint8_t phr;                          // the PHY header (the frame's length, PSDU_BYTES),
    uint8_t frame[FRAME_BYTES];           // then the frame (its FCS checked and dropped)
  } radio;
  uint32_t align;  // packets 4-byte aligned, so the message and the frame's payload are too
} packet_t;
_Static_assert(offsetof(packet_t, radio.frame) + FRAME_PAYLOAD == 28, "the frame's payload is word-aligned");

typedef enum { KIND_BASELINE, KIND_ECHO, KIND_CBC, KIND_FRAME_ECHO, KIND_CCM } kind_t;

typedef struct {
  uint32_t packets, replies, misses, lost, errors, checked, check_failures;
  uint32_t server_cycles, server_max;
  uint32_t served;  // packets the server finished with, answered or not
} stats_t;

static const uint8_t key[KEY_BYTES] = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4,
};

static const uint8_t ccm_key[CCM_KEY_BYTES] = {
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
};
// Extended addresses in on-air (little-endian) order.
static const uint8_t source_address[8] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xde, 0xac};
static const uint8_t server_address[8] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xde, 0xac};

static packet_t rx_ring[RX_RING];
static packet_t tx_ring[TX_RING];
// The request pools (3.5 KiB) and the kept replies (7 KiB) live on FreeRTOS's heap, not in .bss:
// the program's room in SRAM (PROGRAM_RESERVE in couplet/tools/freertos.py) is the same whatever
// the app keeps there.
static packet_t *pool_cipher;  // what the CBC scenarios receive
static packet_t *pool_plain;   // what the echo scenario receives
static packet_t *pool_frame;   // what the CCM* scenarios receive
static packet_t *pool_clear;   // what ccm_echo receives: the same frames in clear
static packet_t *kept;
static uint32_t *kept_index;  // the reply number of each kept reply

static QueueHandle_t rx_queue;
static QueueHandle_t tx_queue;
static TaskHandle_t controller_handle;
static TaskHandle_t source_handle;

static couplet_aes_ctx_t server_ctx;  // the scenario's backend
static couplet_aes_ctx_t soft_ctx;    // the CBC pool and checks
static couplet_aes_ctx_t soft_ccm_ctx;  // the CCM* pool and checks
static volatile kind_t kind;
static volatile unsigned packet_ticks;  // the scenario's packet interval
static volatile bool running;
static bool source_started;  // in the scenario (the controller's)
static volatile stats_t stats;
static uint32_t server_seq;  // the server's next expected sequence number
static uint32_t rx_next, tx_next;
static uint32_t forged, refused;  // the scenario's forged frames and how many the server refused

// ----------------------------------------------------------------------------- the message

static uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void put32(uint8_t *p, uint32_t v) {
  memcpy(p, &v, sizeof v);
}

static uint32_t get_le(const uint8_t *p, unsigned bytes) {
  uint32_t v = 0;
  for (unsigned i = bytes; i-- > 0;) {
    v = v << 8 | p[i];
  }
  return v;
}

static void put_le(uint8_t *p, uint32_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; i++) {
    p[i] = (uint8_t)(v >> (8 * i));
  }
}

// FNV-1a over everything but the checksum field. Word-aligned, so that its loop's head is too
// whatever code comes before it: a head at a half-word costs CV32E40X a fetch cycle an iteration
// (150 cycles a packet), which would move the echo's figures with unrelated code.
__attribute__((aligned(4))) static uint32_t checksum(const uint8_t *plain) {
  uint32_t h = 2166136261u;
  for (unsigned i = 0; i < OFF_SUM; i++) {
    h = (h ^ plain[i]) * 16777619u;
  }
  return h;
}

static void make_request(uint32_t seq, uint8_t plain[PACKET_BYTES], uint8_t iv[COUPLET_AES_BLOCK_BYTES]) {
  put32(plain + OFF_MAGIC, MAGIC_REQUEST);
  put32(plain + OFF_SEQ, seq);
  put32(plain + OFF_HOPS, 0);
  for (unsigned j = OFF_PAYLOAD; j < OFF_SUM; j++) {
    plain[j] = (uint8_t)(seq * 31u + j * 7u + 1u);
  }
  put32(plain + OFF_SUM, checksum(plain));
  for (unsigned j = 0; j < COUPLET_AES_BLOCK_BYTES; j++) {
    iv[j] = (uint8_t)(seq * 17u + j);
  }
}

// The reply travels with the request's IV with its first byte flipped (a fresh IV per message).
static void reply_iv(const uint8_t in[COUPLET_AES_BLOCK_BYTES], uint8_t out[COUPLET_AES_BLOCK_BYTES]) {
  memcpy(out, in, COUPLET_AES_BLOCK_BYTES);
  out[0] ^= 0xa5u;
}

// ----------------------------------------------------------------------------- the frame

static void request_header(uint32_t seq, uint8_t header[CCM_HEADER_BYTES]) {
  put_le(header + HDR_FC, FRAME_CONTROL, 2);
  header[HDR_DSN] = (uint8_t)seq;
  put_le(header + HDR_PAN, PAN_ID, 2);
  memcpy(header + HDR_DST, server_address, sizeof server_address);
  memcpy(header + HDR_SRC, source_address, sizeof source_address);
  header[HDR_SEC] = SECURITY_CONTROL;
  put_le(header + HDR_COUNTER, FRAME_COUNTER_0 + seq, 4);
  header[HDR_KEY_INDEX] = KEY_INDEX;
}

// The reply's header: the addresses swapped, the frame counter incremented.
static void reply_header(const uint8_t in[CCM_HEADER_BYTES], uint8_t out[CCM_HEADER_BYTES]) {
  memcpy(out, in, CCM_HEADER_BYTES);
  memcpy(out + HDR_DST, in + HDR_SRC, sizeof source_address);
  memcpy(out + HDR_SRC, in + HDR_DST, sizeof server_address);
  put_le(out + HDR_COUNTER, get_le(in + HDR_COUNTER, 4) + 1, 4);
}

// 802.15.4's CCM* nonce: the source address and the frame counter, big-endian, then the level.
static void frame_nonce(const uint8_t header[CCM_HEADER_BYTES], uint8_t nonce[CCM_NONCE_BYTES]) {
  for (unsigned i = 0; i < 8; i++) {
    nonce[i] = header[HDR_SRC + 7 - i];
  }
  for (unsigned i = 0; i < 4; i++) {
    nonce[8 + i] = header[HDR_COUNTER + 3 - i];
  }
  nonce[12] = (uint8_t)CCM_LEVEL;
}

// Secures a frame whose header is in place: the payload `plain` encrypted after it, the MIC last.
static bool protect(couplet_aes_ctx_t *ctx, uint8_t frame[FRAME_BYTES], const uint8_t plain[PACKET_BYTES]) {
  uint8_t nonce[CCM_NONCE_BYTES];
  frame_nonce(frame, nonce);
  return couplet_aes_ccm_star_encrypt(ctx, CCM_LEVEL, nonce, frame, CCM_HEADER_BYTES, plain, frame + FRAME_PAYLOAD,
                                      PACKET_BYTES, frame + FRAME_MIC) == COUPLET_OK;
}

// Verifies a frame and decrypts its payload into `plain`; false if the MIC does not match.
static bool unprotect(couplet_aes_ctx_t *ctx, const uint8_t frame[FRAME_BYTES], uint8_t plain[PACKET_BYTES]) {
  uint8_t nonce[CCM_NONCE_BYTES];
  frame_nonce(frame, nonce);
  return couplet_aes_ccm_star_decrypt(ctx, CCM_LEVEL, nonce, frame, CCM_HEADER_BYTES, frame + FRAME_PAYLOAD, plain,
                                      PACKET_BYTES, frame + FRAME_MIC) == COUPLET_OK;
}

// What a node checks of the header before it spends AES on a frame: a data frame for it, on its
// PAN, secured at the level and with the key it expects.
static bool frame_for_server(const uint8_t header[CCM_HEADER_BYTES]) {
  return get_le(header + HDR_FC, 2) == FRAME_CONTROL && get_le(header + HDR_PAN, 2) == PAN_ID &&
         memcmp(header + HDR_DST, server_address, sizeof server_address) == 0 && header[HDR_SEC] == SECURITY_CONTROL &&
         header[HDR_KEY_INDEX] == KEY_INDEX;
}

// ----------------------------------------------------------------------------- the server

// Validates and changes one message in place; false if it is not the request expected.
static bool answer(uint8_t plain[PACKET_BYTES]) {
  if (get32(plain + OFF_MAGIC) != MAGIC_REQUEST || get32(plain + OFF_SEQ) != server_seq ||
      get32(plain + OFF_SUM) != checksum(plain)) {
    return false;
  }
  server_seq = (server_seq + 1) % POOL_SIZE;
  put32(plain + OFF_MAGIC, MAGIC_REPLY);
  put32(plain + OFF_HOPS, get32(plain + OFF_HOPS) + 1);
  put32(plain + OFF_SUM, checksum(plain));
  return true;
}

// The frame variants: the header checked, the payload verified and decrypted (CCM*; a bad MIC,
// COUPLET_ERR_AUTH, refuses the frame like any other error) or copied (in clear), validated and
// changed, the reply's header made, the payload secured again or copied.
static bool serve_frame(const packet_t *in, packet_t *out, bool secured) {
  uint8_t plain[PACKET_BYTES];
  if (in->radio.phr != PSDU_BYTES || !frame_for_server(in->radio.frame)) {
    return false;
  }
  if (secured) {
    if (!unprotect(&server_ctx, in->radio.frame, plain)) {
      return false;
    }
  } else {
    memcpy(plain, in->radio.frame + FRAME_PAYLOAD, PACKET_BYTES);
  }
  if (!answer(plain)) {
    return false;
  }
  out->radio.phr = PSDU_BYTES;
  reply_header(in->radio.frame, out->radio.frame);
  if (secured) {
    return protect(&server_ctx, out->radio.frame, plain);
  }
  memcpy(out->radio.frame + FRAME_PAYLOAD, plain, PACKET_BYTES);
  memset(out->radio.frame + FRAME_MIC, 0, CCM_MIC_BYTES);
  return true;
}

static bool serve(const packet_t *in, packet_t *out) {
  uint8_t plain[PACKET_BYTES];
  uint8_t iv[COUPLET_AES_BLOCK_BYTES];
  switch (kind) {
    case KIND_ECHO:
      reply_iv(in->msg.iv, out->msg.iv);
      memcpy(plain, in->msg.data, PACKET_BYTES);
      if (!answer(plain)) {
        return false;
      }
      memcpy(out->msg.data, plain, PACKET_BYTES);
      return true;
    case KIND_CBC:
      reply_iv(in->msg.iv, out->msg.iv);
      memcpy(iv, in->msg.iv, sizeof iv);
      if (couplet_aes_cbc_decrypt(&server_ctx, iv, in->msg.data, plain, PACKET_BYTES) != COUPLET_OK ||
          !answer(plain)) {
        return false;
      }
      memcpy(iv, out->msg.iv, sizeof iv);
      return couplet_aes_cbc_encrypt(&server_ctx, iv, plain, out->msg.data, PACKET_BYTES) == COUPLET_OK;
    case KIND_FRAME_ECHO:
    case KIND_CCM:
      return serve_frame(in, out, kind == KIND_CCM);
    default:
      return false;
  }
}

static void server_task(void *arg) {
  (void)arg;
  for (;;) {
    packet_t *in;
    if (xQueueReceive(rx_queue, &in, portMAX_DELAY) != pdTRUE) {
      continue;
    }
    uint64_t start = couplet_cycles();
    packet_t *out = &tx_ring[tx_next];
    tx_next = (tx_next + 1) % TX_RING;
    // A reply with no room to go is an error like a bad request (the source counts the lost ones).
    bool ok = serve(in, out) && xQueueSend(tx_queue, &out, 0) == pdTRUE;
    uint32_t cycles = (uint32_t)(couplet_cycles() - start);
    if (!ok) {
      stats.errors++;
      stats.served++;
      continue;
    }
    stats.server_cycles += cycles;
    if (cycles > stats.server_max) {
      stats.server_max = cycles;
    }
    stats.served++;
  }
}

// ----------------------------------------------------------------------------- the source

// Counts the replies sent back and keeps every CHECK_EVERY-th for the check after the scenario.
static void collect_replies(void) {
  packet_t *reply;
  while (xQueueReceive(tx_queue, &reply, 0) == pdTRUE) {
    uint32_t n = stats.replies++;
    if (n % CHECK_EVERY == 0 && stats.checked < MAX_CHECKS) {
      kept[stats.checked] = *reply;
      kept_index[stats.checked] = n;
      stats.checked++;
    }
  }
}

static void receive_next(void) {
  uint32_t n = stats.packets++;
  if (uxQueueMessagesWaiting(rx_queue) != 0) {
    stats.misses++;  // the server has not taken the previous packet yet
  }
  packet_t *slot = &rx_ring[rx_next];
  const packet_t *pool = kind == KIND_CBC ? pool_cipher
                         : kind == KIND_CCM ? pool_frame
                         : kind == KIND_FRAME_ECHO ? pool_clear
                                                   : pool_plain;
  *slot = pool[n % POOL_SIZE];
  if (xQueueSend(rx_queue, &slot, 0) != pdTRUE) {
    stats.lost++;
    return;
  }
  rx_next = (rx_next + 1) % RX_RING;
}

static void source_task(void *arg) {
  (void)arg;
  for (;;) {
    ulTaskNotifyTake(pdTRUE, portMAX_DELAY);  // the first test's period starts (start_source)
    if (running) {
      receive_next();
    }
    while (running) {
      vTaskDelay(packet_ticks);
      collect_replies();
      if (running) {
        receive_next();
      }
    }
    xTaskNotifyGive(controller_handle);  // stopped
  }
}

// ----------------------------------------------------------------------------- the controller

// Before a CCM* scenario: the server is handed FORGERIES frames with one bit flipped, as it is
// handed packets, and must refuse each (counted as errors). Outside every timed path.
static void offer_forgeries(void) {
  static const unsigned flipped[FORGERIES] = {FRAME_MIC, FRAME_PAYLOAD + 17, HDR_DSN};
  memset((void *)&stats, 0, sizeof stats);
  server_seq = 0;
  tx_next = 0;
  for (unsigned i = 0; i < FORGERIES; i++) {
    packet_t *slot = &rx_ring[i];
    *slot = pool_frame[0];
    slot->radio.frame[flipped[i]] ^= 0x01u;
    couplet_rtos_expect(xQueueSend(rx_queue, &slot, 0) == pdTRUE, "queueing a forged frame");
  }
  for (unsigned t = 0; t < DRAIN_TICKS && stats.served < FORGERIES; t++) {
    vTaskDelay(1);
  }
  couplet_rtos_expect(stats.served == FORGERIES, "the server did not take the forged frames in time");
  packet_t *reply;
  while (xQueueReceive(tx_queue, &reply, 0) == pdTRUE) {
  }
  forged = FORGERIES;
  refused = stats.errors;
}

static void start_flow(kind_t k, couplet_aes_backend_id_t backend, unsigned ticks) {
  kind = k;
  packet_ticks = ticks;
  forged = 0;
  refused = 0;
  if (k == KIND_CBC || k == KIND_CCM) {
    couplet_rtos_expect(couplet_aes_init_backend(&server_ctx, backend) == COUPLET_OK, "couplet_aes_init_backend");
    couplet_rtos_expect(k == KIND_CBC ? couplet_aes_set_key(&server_ctx, key, KEY_BYTES) == COUPLET_OK
                                      : couplet_aes_set_key(&server_ctx, ccm_key, CCM_KEY_BYTES) == COUPLET_OK,
                        "couplet_aes_set_key");
  }
  if (k == KIND_CCM) {
    offer_forgeries();
  }
  memset((void *)&stats, 0, sizeof stats);
  server_seq = 0;
  rx_next = 0;
  tx_next = 0;
  running = k != KIND_BASELINE;
  source_started = false;
}

// The suite's hook: the source starts as the first test's period starts, with a packet at once, so
// that the load is periodic from the start of every period, the first test's too, and each period
// holds the same share of it whatever its phase.
static void start_source(const char *test, bool starting) {
  (void)test;
  if (starting && running && !source_started) {
    source_started = true;
    xTaskNotifyGive(source_handle);
  }
}

static void stop_flow(void) {
  if (kind == KIND_BASELINE) {
    return;
  }
  couplet_rtos_expect(source_started, "the packet source never started");
  running = false;
  ulTaskNotifyTake(pdTRUE, portMAX_DELAY);  // the source stopped
  // The server (below us) finishes the packets still queued; we collect their replies.
  for (unsigned t = 0; t < DRAIN_TICKS && (stats.served + stats.lost < stats.packets ||
                                           stats.replies + stats.lost + stats.errors < stats.packets);
       t++) {
    vTaskDelay(1);
    collect_replies();
  }
}

// The reply to packet n, rebuilt from scratch: the request changed as the server must change it.
static void expected_reply(uint32_t n, uint8_t plain[PACKET_BYTES], uint8_t iv[COUPLET_AES_BLOCK_BYTES]) {
  uint8_t request_iv[COUPLET_AES_BLOCK_BYTES];
  make_request(n % POOL_SIZE, plain, request_iv);
  put32(plain + OFF_MAGIC, MAGIC_REPLY);
  put32(plain + OFF_HOPS, 1);
  put32(plain + OFF_SUM, checksum(plain));
  reply_iv(request_iv, iv);
}

// Checks one kept reply with the software backend: the header (IV or frame header) as expected, the
// payload decrypted (for CCM*, its MIC verified) to the expected reply.
static bool reply_right(uint32_t n, const packet_t *reply) {
  uint8_t want[PACKET_BYTES], want_iv[COUPLET_AES_BLOCK_BYTES], got[PACKET_BYTES];
  uint8_t iv[COUPLET_AES_BLOCK_BYTES], request[CCM_HEADER_BYTES], header[CCM_HEADER_BYTES];
  expected_reply(n, want, want_iv);
  switch (kind) {
    case KIND_ECHO:
      memcpy(got, reply->msg.data, PACKET_BYTES);
      break;
    case KIND_CBC:
      memcpy(iv, reply->msg.iv, sizeof iv);
      if (couplet_aes_cbc_decrypt(&soft_ctx, iv, reply->msg.data, got, PACKET_BYTES) != COUPLET_OK) {
        return false;
      }
      break;
    case KIND_FRAME_ECHO:
    case KIND_CCM:
      request_header(n % POOL_SIZE, request);
      reply_header(request, header);
      if (kind == KIND_CCM) {
        if (!unprotect(&soft_ccm_ctx, reply->radio.frame, got)) {
          return false;
        }
      } else {
        memcpy(got, reply->radio.frame + FRAME_PAYLOAD, PACKET_BYTES);
      }
      return reply->radio.phr == PSDU_BYTES && memcmp(reply->radio.frame, header, CCM_HEADER_BYTES) == 0 &&
             memcmp(got, want, PACKET_BYTES) == 0;
    default:
      return false;
  }
  return memcmp(reply->msg.iv, want_iv, sizeof want_iv) == 0 && memcmp(got, want, PACKET_BYTES) == 0;
}

static void check_replies(void) {
  for (uint32_t i = 0; i < stats.checked; i++) {
    if (!reply_right(kept_index[i], &kept[i])) {
      stats.check_failures++;
    }
  }
}

static void field(const char *name, uint32_t value) {
  couplet_putc(' ');
  couplet_puts(name);
  couplet_putc('=');
  couplet_put_dec(value);
}

static bool report(const char *scenario) {
  couplet_puts("facv scenario=");
  couplet_puts(scenario);
  field("packets", stats.packets);
  field("replies", stats.replies);
  field("misses", stats.misses);
  field("lost", stats.lost);
  field("errors", stats.errors);
  field("checked", stats.checked);
  field("check_failures", stats.check_failures);
  field("forged", forged);
  field("refused", refused);
  field("server_cycles", stats.server_cycles);
  field("server_max", stats.server_max);
  couplet_putc('\n');
  bool echo = kind != KIND_BASELINE;
  return stats.lost == 0 && stats.errors == 0 && stats.check_failures == 0 && stats.replies == stats.packets &&
         refused == forged && (!echo || (stats.packets > 0 && stats.checked > 0));
}

static bool run_scenario(const char *name, kind_t k, couplet_aes_backend_id_t backend) {
  bool frames = k == KIND_FRAME_ECHO || k == KIND_CCM;
  start_flow(k, backend, frames ? CCM_PACKET_TICKS : PACKET_TICKS);
  tm_suite_run(name, frames ? CCM_PERIOD_TICKS : PERIOD_TICKS, start_source);
  stop_flow();
  check_replies();
  return report(name);
}

static void make_pool(void) {
  couplet_rtos_expect(couplet_aes_init_backend(&soft_ctx, COUPLET_AES_BACKEND_SOFT) == COUPLET_OK, "soft backend");
  couplet_rtos_expect(couplet_aes_set_key(&soft_ctx, key, KEY_BYTES) == COUPLET_OK, "soft set_key");
  couplet_rtos_expect(couplet_aes_init_backend(&soft_ccm_ctx, COUPLET_AES_BACKEND_SOFT) == COUPLET_OK, "soft backend");
  couplet_rtos_expect(couplet_aes_set_key(&soft_ccm_ctx, ccm_key, CCM_KEY_BYTES) == COUPLET_OK, "soft set_key");
  for (uint32_t i = 0; i < POOL_SIZE; i++) {
    uint8_t iv[COUPLET_AES_BLOCK_BYTES];
    make_request(i, pool_plain[i].msg.data, pool_plain[i].msg.iv);
    memcpy(pool_cipher[i].msg.iv, pool_plain[i].msg.iv, sizeof iv);
    memcpy(iv, pool_plain[i].msg.iv, sizeof iv);
    couplet_rtos_expect(couplet_aes_cbc_encrypt(&soft_ctx, iv, pool_plain[i].msg.data, pool_cipher[i].msg.data,
                                                PACKET_BYTES) == COUPLET_OK,
                        "encrypting the pool");
    pool_clear[i].radio.phr = PSDU_BYTES;
    request_header(i, pool_clear[i].radio.frame);
    memcpy(pool_clear[i].radio.frame + FRAME_PAYLOAD, pool_plain[i].msg.data, PACKET_BYTES);
    pool_frame[i] = pool_clear[i];
    couplet_rtos_expect(protect(&soft_ccm_ctx, pool_frame[i].radio.frame, pool_plain[i].msg.data),
                        "securing the frame pool");
  }
}

static void controller_task(void *arg) {
  (void)arg;
  make_pool();
  couplet_puts("facv_echo");
  field("period_ticks", PERIOD_TICKS);
  field("packet_ticks", PACKET_TICKS);
  field("packet_bytes", PACKET_BYTES);
  field("key_bits", KEY_BYTES * 8);
  field("ccm_period_ticks", CCM_PERIOD_TICKS);
  field("ccm_packet_ticks", CCM_PACKET_TICKS);
  field("ccm_level", CCM_LEVEL);
  field("ccm_key_bits", CCM_KEY_BYTES * 8);
  field("ccm_header_bytes", CCM_HEADER_BYTES);
  field("ccm_payload_bytes", PACKET_BYTES);
  field("ccm_mic_bytes", CCM_MIC_BYTES);
  field("ccm_frame_bytes", PSDU_BYTES);
  field("check_every", CHECK_EVERY);
  couplet_puts(" backends=");
  bool first = true;
  for (int b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    if (couplet_aes_backend_available((couplet_aes_backend_id_t)b)) {
      couplet_puts(first ? "" : ",");
      couplet_puts(couplet_aes_backend_name((couplet_aes_backend_id_t)b));
      first = false;
    }
  }
  couplet_putc('\n');
  bool ok = run_scenario("baseline", KIND_BASELINE, COUPLET_AES_BACKEND_SOFT);
  ok &= run_scenario("echo", KIND_ECHO, COUPLET_AES_BACKEND_SOFT);
  for (int b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    if (couplet_aes_backend_available((couplet_aes_backend_id_t)b)) {
      ok &= run_scenario(couplet_aes_backend_name((couplet_aes_backend_id_t)b), KIND_CBC, (couplet_aes_backend_id_t)b);
    }
  }
  ok &= run_scenario("ccm_echo", KIND_FRAME_ECHO, COUPLET_AES_BACKEND_SOFT);
  for (int b = 0; b < COUPLET_AES_BACKEND_COUNT; b++) {
    if (couplet_aes_backend_available((couplet_aes_backend_id_t)b)) {
      char name[32] = "ccm_";
      strncat(name, couplet_aes_backend_name((couplet_aes_backend_id_t)b), sizeof name - strlen(name) - 1);
      ok &= run_scenario(name, KIND_CCM, (couplet_aes_backend_id_t)b);
    }
  }
  if (!ok) {
    couplet_rtos_fail("a scenario lost a packet, refused one, sent a wrong reply or took a forged frame");
  }
  couplet_puts("facv_echo done\n");
  exit(0);
}

void app_main(void) {
  tm_suite_init();
  kept = pvPortMalloc(MAX_CHECKS * sizeof *kept);
  kept_index = pvPortMalloc(MAX_CHECKS * sizeof *kept_index);
  couplet_rtos_expect(kept != NULL && kept_index != NULL, "pvPortMalloc of the kept replies");
  packet_t **pools[] = {&pool_cipher, &pool_plain, &pool_frame, &pool_clear};
  for (size_t i = 0; i < sizeof pools / sizeof pools[0]; i++) {
    *pools[i] = pvPortMalloc(POOL_SIZE * sizeof(packet_t));
    couplet_rtos_expect(*pools[i] != NULL, "pvPortMalloc of the request pools");
    memset(*pools[i], 0, POOL_SIZE * sizeof(packet_t));  // as .bss was: make_pool sets the fields it uses
  }
  rx_queue = xQueueCreate(RX_DEPTH, sizeof(packet_t *));
  tx_queue = xQueueCreate(TX_DEPTH, sizeof(packet_t *));
  couplet_rtos_expect(rx_queue != NULL && tx_queue != NULL, "xQueueCreate");
  couplet_rtos_expect(xTaskCreate(controller_task, "facv", 2 * STACK, NULL, TM_REPORTER_PRIORITY, &controller_handle) == pdPASS,
         "xTaskCreate controller");
  couplet_rtos_expect(xTaskCreate(source_task, "source", STACK, NULL, SOURCE_PRIORITY, &source_handle) == pdPASS,
         "xTaskCreate source");
  couplet_rtos_expect(xTaskCreate(server_task, "server", STACK, NULL, SERVER_PRIORITY, NULL) == pdPASS, "xTaskCreate server");
}
