// energy_aes: the firmware of `couplet energy` (couplet/flows/energy.py). One backend per build:
// sets an AES-128 key once, then encrypts one MSG_BYTES-byte message MESSAGES times in ECB,
// in place, so that each message is the previous one's ciphertext (every call does real work
// on changing data, and the last output depends on all of them). It ends with one line:
//
//   energy_aes: backend <name> bytes 0x<MSG_BYTES> messages 0x<N> loop_cycles 0x<C> check 0x<X>
//
// loop_cycles is mcycle around the MESSAGES calls; check is FNV-1a of the final buffer, the
// same on every backend (the host compares it with its own AES). The host runs two builds that
// differ only in MESSAGES and takes the difference, so boot, key set-up and this line cancel
// out. For that the two builds must run the same code: MESSAGES is read from a volatile
// variable (the compiler cannot unroll or specialise the loop on it), and the line is printed
// with couplet_put_hex (a table lookup per digit: its cycles do not depend on the value).
// A failing call prints "energy_aes: FAIL ..." and exits 1.

#include <stdint.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/bench.h>
#include <couplet/console.h>
#include <couplet/counters.h>

#define APP "energy_aes"

#ifndef BACKEND
#error "build with -DBACKEND=<couplet_aes_backend_id_t value>"
#endif
#ifndef MSG_BYTES
#define MSG_BYTES 16u
#endif
#ifndef MESSAGES
#define MESSAGES 2u
#endif
#define MAX_MESSAGES 1000u  // a bound on the loop whatever the build says

_Static_assert(MSG_BYTES % 16u == 0u && MSG_BYTES > 0u && MSG_BYTES <= 256u, "MSG_BYTES: 16..256, whole blocks");

static volatile uint32_t message_count = MESSAGES;

static uint8_t buffer[MSG_BYTES] __attribute__((aligned(4)));

// The FIPS-197 Appendix C.1 key.
static const uint8_t key[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};

int main(void) {
  const couplet_aes_backend_id_t id = (couplet_aes_backend_id_t)(BACKEND);
  const char *name = couplet_aes_backend_name(id);
  if (!couplet_aes_backend_available(id)) {
    return couplet_bench_failed(APP, name, "backend", COUPLET_ERR_UNSUPPORTED);
  }
  const uint32_t messages = message_count;
  if (messages > MAX_MESSAGES) {
    return couplet_bench_failed(APP, name, "MESSAGES", COUPLET_ERR_ARG);
  }
  for (uint32_t i = 0; i < MSG_BYTES; i++) {
    buffer[i] = (uint8_t)(i * 7u + 3u);
  }
  couplet_aes_ctx_t ctx;
  couplet_status_t status = couplet_aes_init_backend(&ctx, id);
  if (status != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "init", status);
  }
  if ((status = couplet_aes_set_key(&ctx, key, sizeof key)) != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "set_key", status);
  }
  const uint64_t start = couplet_cycles();
  for (uint32_t m = 0; m < messages; m++) {
    if ((status = couplet_aes_ecb_encrypt(&ctx, buffer, buffer, MSG_BYTES)) != COUPLET_OK) {
      return couplet_bench_failed(APP, name, "ecb", status);
    }
  }
  const uint64_t end = couplet_cycles();
  if ((status = couplet_aes_zeroize(&ctx)) != COUPLET_OK) {
    return couplet_bench_failed(APP, name, "zeroize", status);
  }
  couplet_puts(APP ": backend ");
  couplet_puts(name);
  couplet_puts(" bytes ");
  couplet_put_hex(MSG_BYTES);
  couplet_puts(" messages ");
  couplet_put_hex(messages);
  couplet_puts(" loop_cycles ");
  couplet_put_hex((uint32_t)(end - start));
  couplet_puts(" check ");
  couplet_put_hex(couplet_bench_fnv1a(buffer, MSG_BYTES));
  couplet_putc('\n');
  return 0;
}
