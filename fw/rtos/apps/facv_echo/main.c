// facv_echo: the FAC-V (section 4.3, Tables 8 and 9) application on FreeRTOS. A server receives
// 80-byte (five-block) AES-256-CBC messages at a fixed rate, decrypts them, validates and changes
// the content, re-encrypts and sends them back, while the Thread-Metric suite
// (fw/rtos/lib/thread_metric) runs below it. docs/bench_rtos.md describes it; `couplet bench facv`
// runs it and parses its output.
//
// Tasks (priorities): this app's controller is the suite's reporter (TM_REPORTER_PRIORITY); the
// packet source sits at the same, highest priority and wakes every PACKET_TICKS ticks to
// "receive" the next packet (a copy from a pool of messages encrypted at start-up with the
// software backend) and queue it to the server; the server (just above the suite's tasks) serves
// one packet at a time and hands the reply back to the source, which counts it and keeps every
// CHECK_EVERY-th one. The kept replies are checked after the scenario, with the software backend,
// outside every timed path.
//
// Scenarios, each running the whole suite: baseline (no packets), echo (no crypto: copy, validate,
// modify), then echo with every AES backend this SoC has, soft first. Output:
//   facv_echo period_ticks=P packet_ticks=T packet_bytes=80 key_bits=256 check_every=K backends=soft,...
//   tm <test> count=... ticks=... cycles=... tasks=... scenario=<scenario>      (8 per scenario)
//   facv scenario=<s> packets=N replies=N misses=N lost=N errors=N checked=N check_failures=N
//        server_cycles=<sum over the replies> server_max=<cycles>            (one line)
//   facv_echo done
// Exit code 0 only if every reply checked is right and no packet was lost or refused.

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/console.h>
#include <couplet/counters.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "couplet_rtos_check.h"
#include "queue.h"
#include "task.h"
#include "tm_suite.h"

// Each Thread-Metric test runs this many ticks (1 ms, 50,000 cycles): a multiple of PACKET_TICKS,
// so that every period sees the same number of packets whatever its phase. Two keeps the nine
// scenarios near 11 M cycles (about 100 s of simulation).
#define PERIOD_TICKS 2
#define PACKET_TICKS 2
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


typedef struct {
  uint8_t iv[COUPLET_AES_BLOCK_BYTES];  // sent in clear with the message
  uint8_t data[PACKET_BYTES];
} packet_t;

typedef enum { KIND_BASELINE, KIND_ECHO, KIND_CRYPTO } kind_t;

typedef struct {
  uint32_t packets, replies, misses, lost, errors, checked, check_failures;
  uint32_t server_cycles, server_max;
} stats_t;

static const uint8_t key[KEY_BYTES] = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4,
};

static packet_t pool_cipher[POOL_SIZE];  // what the crypto scenarios receive
static packet_t pool_plain[POOL_SIZE];   // what the echo scenario receives
static packet_t rx_ring[RX_RING];
static packet_t tx_ring[TX_RING];
// The kept replies (6 KiB) live on FreeRTOS's heap, not in .bss: the program's room in SRAM
// (PROGRAM_RESERVE in couplet/tools/freertos.py) is the same whatever the app keeps there.
static packet_t *kept;
static uint32_t *kept_index;  // the reply number of each kept reply

static QueueHandle_t rx_queue;
static QueueHandle_t tx_queue;
static TaskHandle_t controller_handle;
static TaskHandle_t source_handle;

static couplet_aes_ctx_t server_ctx;  // the scenario's backend
static couplet_aes_ctx_t soft_ctx;    // the pool and the checks
static volatile kind_t kind;
static volatile bool running;
static volatile stats_t stats;
static uint32_t server_seq;  // the server's next expected sequence number
static uint32_t rx_next, tx_next;

// ----------------------------------------------------------------------------- the message

static uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void put32(uint8_t *p, uint32_t v) {
  memcpy(p, &v, sizeof v);
}

// FNV-1a over everything but the checksum field.
static uint32_t checksum(const uint8_t *plain) {
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

static bool serve(const packet_t *in, packet_t *out) {
  uint8_t plain[PACKET_BYTES];
  uint8_t iv[COUPLET_AES_BLOCK_BYTES];
  reply_iv(in->iv, out->iv);
  if (kind != KIND_CRYPTO) {
    memcpy(plain, in->data, PACKET_BYTES);
    if (!answer(plain)) {
      return false;
    }
    memcpy(out->data, plain, PACKET_BYTES);
    return true;
  }
  memcpy(iv, in->iv, sizeof iv);
  if (couplet_aes_cbc_decrypt(&server_ctx, iv, in->data, plain, PACKET_BYTES) != COUPLET_OK || !answer(plain)) {
    return false;
  }
  memcpy(iv, out->iv, sizeof iv);
  return couplet_aes_cbc_encrypt(&server_ctx, iv, plain, out->data, PACKET_BYTES) == COUPLET_OK;
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
      continue;
    }
    stats.server_cycles += cycles;
    if (cycles > stats.server_max) {
      stats.server_max = cycles;
    }
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
  const packet_t *pool = kind == KIND_CRYPTO ? pool_cipher : pool_plain;
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
    ulTaskNotifyTake(pdTRUE, portMAX_DELAY);  // a scenario starts
    while (running) {
      vTaskDelay(PACKET_TICKS);
      collect_replies();
      if (running) {
        receive_next();
      }
    }
    xTaskNotifyGive(controller_handle);  // stopped
  }
}

// ----------------------------------------------------------------------------- the controller

static void start_flow(kind_t k, couplet_aes_backend_id_t backend) {
  memset((void *)&stats, 0, sizeof stats);
  server_seq = 0;
  rx_next = 0;
  tx_next = 0;
  kind = k;
  if (k == KIND_CRYPTO) {
    couplet_rtos_expect(couplet_aes_init_backend(&server_ctx, backend) == COUPLET_OK, "couplet_aes_init_backend");
    couplet_rtos_expect(couplet_aes_set_key(&server_ctx, key, KEY_BYTES) == COUPLET_OK, "couplet_aes_set_key");
  }
  if (k != KIND_BASELINE) {
    running = true;
    xTaskNotifyGive(source_handle);
  }
}

static void stop_flow(void) {
  if (kind == KIND_BASELINE) {
    return;
  }
  running = false;
  ulTaskNotifyTake(pdTRUE, portMAX_DELAY);  // the source stopped
  // The server (below us) finishes the packets still queued; we collect their replies.
  for (unsigned t = 0; t < DRAIN_TICKS && stats.replies + stats.lost + stats.errors < stats.packets; t++) {
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

static void check_replies(void) {
  for (uint32_t i = 0; i < stats.checked; i++) {
    uint8_t want[PACKET_BYTES], want_iv[COUPLET_AES_BLOCK_BYTES], got[PACKET_BYTES];
    expected_reply(kept_index[i], want, want_iv);
    const packet_t *reply = &kept[i];
    bool ok = memcmp(reply->iv, want_iv, sizeof want_iv) == 0;
    if (kind == KIND_CRYPTO) {
      uint8_t iv[COUPLET_AES_BLOCK_BYTES];
      memcpy(iv, reply->iv, sizeof iv);
      ok = ok && couplet_aes_cbc_decrypt(&soft_ctx, iv, reply->data, got, PACKET_BYTES) == COUPLET_OK;
    } else {
      memcpy(got, reply->data, PACKET_BYTES);
    }
    if (!ok || memcmp(got, want, PACKET_BYTES) != 0) {
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
  field("server_cycles", stats.server_cycles);
  field("server_max", stats.server_max);
  couplet_putc('\n');
  bool echo = kind != KIND_BASELINE;
  return stats.lost == 0 && stats.errors == 0 && stats.check_failures == 0 && stats.replies == stats.packets &&
         (!echo || (stats.packets > 0 && stats.checked > 0));
}

static bool run_scenario(const char *name, kind_t k, couplet_aes_backend_id_t backend) {
  start_flow(k, backend);
  tm_suite_run(name, PERIOD_TICKS, NULL);
  stop_flow();
  check_replies();
  return report(name);
}

static void make_pool(void) {
  couplet_rtos_expect(couplet_aes_init_backend(&soft_ctx, COUPLET_AES_BACKEND_SOFT) == COUPLET_OK, "soft backend");
  couplet_rtos_expect(couplet_aes_set_key(&soft_ctx, key, KEY_BYTES) == COUPLET_OK, "soft set_key");
  for (uint32_t i = 0; i < POOL_SIZE; i++) {
    uint8_t iv[COUPLET_AES_BLOCK_BYTES];
    make_request(i, pool_plain[i].data, pool_plain[i].iv);
    memcpy(pool_cipher[i].iv, pool_plain[i].iv, sizeof iv);
    memcpy(iv, pool_plain[i].iv, sizeof iv);
    couplet_rtos_expect(couplet_aes_cbc_encrypt(&soft_ctx, iv, pool_plain[i].data, pool_cipher[i].data, PACKET_BYTES) ==
               COUPLET_OK,
           "encrypting the pool");
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
      ok &= run_scenario(couplet_aes_backend_name((couplet_aes_backend_id_t)b), KIND_CRYPTO,
                         (couplet_aes_backend_id_t)b);
    }
  }
  if (!ok) {
    couplet_rtos_fail("a scenario lost a packet, refused one or sent a wrong reply");
  }
  couplet_puts("facv_echo done\n");
  exit(0);
}

void app_main(void) {
  tm_suite_init();
  kept = pvPortMalloc(MAX_CHECKS * sizeof *kept);
  kept_index = pvPortMalloc(MAX_CHECKS * sizeof *kept_index);
  couplet_rtos_expect(kept != NULL && kept_index != NULL, "pvPortMalloc of the kept replies");
  rx_queue = xQueueCreate(RX_DEPTH, sizeof(packet_t *));
  tx_queue = xQueueCreate(TX_DEPTH, sizeof(packet_t *));
  couplet_rtos_expect(rx_queue != NULL && tx_queue != NULL, "xQueueCreate");
  couplet_rtos_expect(xTaskCreate(controller_task, "facv", 2 * STACK, NULL, TM_REPORTER_PRIORITY, &controller_handle) == pdPASS,
         "xTaskCreate controller");
  couplet_rtos_expect(xTaskCreate(source_task, "source", STACK, NULL, SOURCE_PRIORITY, &source_handle) == pdPASS,
         "xTaskCreate source");
  couplet_rtos_expect(xTaskCreate(server_task, "server", STACK, NULL, SERVER_PRIORITY, NULL) == pdPASS, "xTaskCreate server");
}
