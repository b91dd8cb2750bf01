// test_faults: faults in the SoC, on every backend each concerns (issue 21, part 2).
//
// Cases (each prints "fault <case> <aes|sha3>/<backend>: <result> stray <none|FOUND> after
// <ok|bad>", and a failure line from couplet/check.h for anything unexpected):
//  - bus_error_in / bus_error_out: a mem or dma job whose source (or AES destination) runs off
//    the end of the SRAM into unmapped space. The call must return COUPLET_ERR_HW, write
//    nothing outside the caller's buffer, raise no NMI on the core (the error is the DMA's, not
//    the core's), and the next call on that backend must be right.
//  - irq_storm: the machine timer fires every 100..355 cycles (200 times) while runs of custom
//    instructions (and, for mmio, register accesses) execute, so instructions in the pipeline
//    are killed and replayed; the results must equal the software backend's.
//  - zeroize_irq: in the same storm the interrupt handler calls couplet_aes_zeroize on another
//    context of the same backend: COUPLET_ERR_BUSY while a call holds the accelerator, the
//    call's result unchanged.
//  - zeroize_mid_job / abort_mid_job: the accelerator's ZEROIZE issued while a block, a
//    permutation or a DMA job runs, and the DMA's CTRL.abort_all (its soft reset) during a job;
//    the documented result (hw/ip/aes, hw/ip/keccak, hw/ip/dma READMEs) and the backend right
//    afterwards. The mem backends are not concerned: the core stalls on their one instruction
//    until the job ends, and takes no interrupt meanwhile, so nothing of the core's can come
//    in between.
//  - dma_at_regs: DMA descriptors and mem jobs pointed at the accelerator's own registers, its
//    DMA's registers, the other accelerator's and other peripherals': a documented result, no
//    hang. A tile's DMA never reaches its own accelerator's registers: the SoC answers it with a
//    bus error (couplet_obi_fence; a mem job reading there used to deadlock the SoC).
// Every wait is bounded. Exits 0 when every check passed.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <couplet/aes.h>
#include <couplet/aes_held.h>
#include <couplet/autogen/dma_regs.h>
#include <couplet/autogen/keccak_regs.h>
#include <couplet/check.h>
#include <couplet/counters.h>
#include <couplet/csr.h>
#include <couplet/irq.h>
#include <couplet/mmio.h>
#include <couplet/sha3.h>
#include <couplet/soc_config.h>
#include <couplet/timer.h>

// A SoC without accelerators has no case; the app then only says so.
#if (defined(COUPLET_AES_PRESENT) && COUPLET_AES_PRESENT) || (defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT)
#define FAULTS_ACCEL 1
#else
#define FAULTS_ACCEL 0
#endif

#define RAM_END (COUPLET_SRAM_BASE + COUPLET_SRAM_SIZE)
#define MSG_BYTES 4096u
#define GUARD_WORDS 16u
#define GUARD 0xC0FFEE11u
// Polls of a DMA STATUS before a job is declared hung: a 4 KiB job takes about 4,000 cycles.
#define DMA_POLL_LIMIT 200000u
// The SHA3-256 rate in bytes.
#define RATE_256 136u
// The storm: the next timer interrupt 100..355 ticks after the handler ran (the handler itself
// takes about 150 cycles), until STORM_IRQS were taken; calls are repeated until then, at
// most STORM_CALLS of them.
#define STORM_MIN_TICKS 100u
#define STORM_JITTER 255u
#define STORM_IRQS 200u
#define STORM_CALLS 300u
#define STORM_BYTES 256u

#if FAULTS_ACCEL
// The caller's output buffer between guard words that no call may touch.
typedef struct {
  uint32_t pre[GUARD_WORDS];
  uint8_t data[MSG_BYTES];
  uint32_t post[GUARD_WORDS];
} guarded_t;

static guarded_t out __attribute__((aligned(16)));
static uint8_t msg[MSG_BYTES] __attribute__((aligned(16)));
static const uint8_t key[16] __attribute__((aligned(4))) = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                                            0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
#endif
static uint32_t cases_run;
static volatile uint32_t nmis;

static couplet_trap_action_t count_nmi(couplet_trap_frame_t *frame) {
  (void)frame;
  nmis = nmis + 1u;
  return COUPLET_TRAP_RESUME;
}

#if FAULTS_ACCEL
static void guard_fill(void) {
  for (uint32_t i = 0; i < GUARD_WORDS; i++) {
    out.pre[i] = GUARD;
    out.post[i] = GUARD;
  }
}

static bool guard_intact(void) {
  for (uint32_t i = 0; i < GUARD_WORDS; i++) {
    if (out.pre[i] != GUARD || out.post[i] != GUARD) {
      return false;
    }
  }
  return true;
}

// The line the Python test reads; `stray` and `after_ok` are also checks of their own.
static void report(const char *fault, const char *acc, const char *backend, const char *result, bool stray,
                   bool after_ok) {
  char who[24];
  snprintf(who, sizeof who, "%s/%s", acc, backend);
  if (stray) {
    couplet_check_fail(who, fault, "a write outside the caller's buffer");
  }
  if (!after_ok) {
    couplet_check_fail(who, fault, "the backend is wrong afterwards");
  }
  printf("fault %s %s: %s stray %s after %s\n", fault, who, result, stray ? "FOUND" : "none",
         after_ok ? "ok" : "bad");
  cases_run++;
}

static void expect(bool ok, const char *acc, const char *backend, const char *what) {
  if (!ok) {
    char who[24];
    snprintf(who, sizeof who, "%s/%s", acc, backend);
    couplet_check_fail(who, what, "not as documented");
  }
}

#if COUPLET_AES_HAS_DMA || (defined(COUPLET_SHA3_HAS_DMA) && COUPLET_SHA3_HAS_DMA)
// Slot 0 from src to dst; returns STATUS once slot 0 is done, 0 if it never ends (a hang).
static uint32_t dma_slot0(uintptr_t base, uint32_t src, uint32_t dst, uint32_t len, uint32_t out_len,
                          void (*during)(void)) {
  couplet_mmio_write32(base + DMA_STATUS_OFFSET, 0xFFFFFFFFu);
  couplet_mmio_write32(base + DMA_SLOT0_SRC_OFFSET, src);
  couplet_mmio_write32(base + DMA_SLOT0_DST_OFFSET, dst);
  couplet_mmio_write32(base + DMA_SLOT0_LEN_OFFSET, len);
  couplet_mmio_write32(base + DMA_SLOT0_OUT_LEN_OFFSET, out_len);
  __asm__ volatile("fence" ::: "memory");
  couplet_mmio_write32(base + DMA_CTRL_OFFSET, DMA_CTRL_GO0_MASK);
  if (during != NULL) {
    during();
  }
  for (uint32_t i = 0; i < DMA_POLL_LIMIT; i++) {
    const uint32_t s = couplet_mmio_read32(base + DMA_STATUS_OFFSET);
    if (s & DMA_STATUS_SLOT0_DONE_MASK) {
      couplet_mmio_write32(base + DMA_STATUS_OFFSET, 0xFFFFFFFFu);
      return s;
    }
  }
  // Never ended: stop it so that the rest of the test runs.
  couplet_mmio_write32(base + DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
  couplet_mmio_write32(base + DMA_STATUS_OFFSET, 0xFFFFFFFFu);
  return 0u;
}

static const char *slot_result(uint32_t s) {
  if (s == 0u) {
    return "HANG";
  }
  if (s & DMA_STATUS_SLOT0_ERR_MASK) {
    return "slot_err";
  }
  if (s & DMA_STATUS_SLOT0_REFUSED_MASK) {
    return "slot_refused";
  }
  return "slot_done";
}

#endif

// The storm: the timer interrupt re-armed 40..170 ticks ahead by its own handler, which may
// also try something on the accelerator (storm_action).
static volatile uint32_t storm_irqs;
static volatile bool storm_on;
static void (*volatile storm_action)(void);

static void on_storm_timer(uint32_t irq) {
  (void)irq;
  storm_irqs = storm_irqs + 1u;
  if (storm_action != NULL) {
    storm_action();
  }
  if (storm_on) {
    couplet_timer_set_compare(couplet_timer_now() + STORM_MIN_TICKS + (couplet_check_rand() & STORM_JITTER));
  } else {
    couplet_timer_disable();
  }
}

static void storm_start(void (*action)(void)) {
  storm_irqs = 0u;
  storm_action = action;
  storm_on = true;
  couplet_timer_set_compare(couplet_timer_now() + STORM_MIN_TICKS);
  if (couplet_irq_enable(COUPLET_IRQ_TIMER) != COUPLET_OK) {
    couplet_check_fail("setup", "storm", "timer interrupt not enabled");
  }
  (void)couplet_irq_global_enable();
}

static uint32_t storm_stop(void) {
  (void)couplet_irq_global_disable();
  storm_on = false;
  storm_action = NULL;
  couplet_timer_disable();
  if (couplet_irq_disable(COUPLET_IRQ_TIMER) != COUPLET_OK) {
    couplet_check_fail("setup", "storm", "timer interrupt not disabled");
  }
  return storm_irqs;
}

#endif  // FAULTS_ACCEL

// ---------------------------------------------------------------- AES

#if defined(COUPLET_AES_PRESENT) && COUPLET_AES_PRESENT

static uint8_t ref[MSG_BYTES] __attribute__((aligned(16)));

// The software backend's ECB of msg[0..len) into ref.
static void aes_reference(size_t len) {
  couplet_aes_ctx_t ctx;
  if (couplet_aes_init_backend(&ctx, COUPLET_AES_BACKEND_SOFT) != COUPLET_OK ||
      couplet_aes_set_key(&ctx, key, sizeof key) != COUPLET_OK ||
      couplet_aes_ecb_encrypt(&ctx, msg, ref, len) != COUPLET_OK) {
    couplet_check_fail("aes/soft", "reference", "the software backend failed");
  }
}

// A fresh context on `backend` encrypts msg right (the whole 4 KiB: two DMA chunks).
static bool aes_works(couplet_aes_backend_id_t backend) {
  couplet_aes_ctx_t ctx;
  memset(out.data, 0, sizeof out.data);
  return couplet_aes_init_backend(&ctx, backend) == COUPLET_OK &&
         couplet_aes_set_key(&ctx, key, sizeof key) == COUPLET_OK &&
         couplet_aes_ecb_encrypt(&ctx, msg, out.data, MSG_BYTES) == COUPLET_OK &&
         memcmp(out.data, ref, MSG_BYTES) == 0;
}

#if COUPLET_AES_HAS_MEM || COUPLET_AES_HAS_DMA
// Source: the last KiB of the SRAM (the bottom of the stack's reserve, only read), then
// unmapped space: the job fails 1 KiB in.
static void aes_bus_error_in(couplet_aes_backend_id_t backend) {
  const char *name = couplet_aes_backend_name(backend);
  couplet_aes_ctx_t ctx;
  guard_fill();
  const uint32_t nmis_before = nmis;
  couplet_status_t status = couplet_aes_init_backend(&ctx, backend);
  if (status == COUPLET_OK) {
    status = couplet_aes_set_key(&ctx, key, sizeof key);
  }
  if (status == COUPLET_OK) {
    status = couplet_aes_ecb_encrypt(&ctx, (const uint8_t *)(uintptr_t)(RAM_END - 1024u), out.data, MSG_BYTES);
  }
  (void)couplet_check_status(name, "bus_error_in", COUPLET_ERR_HW, status);
  expect(nmis == nmis_before, "aes", name, "bus_error_in: no NMI on the core");
  const bool stray = !guard_intact();
  report("bus_error_in", "aes", name, couplet_status_name(status), stray, aes_works(backend));
}

// Destination: the top 32 bytes of the SRAM, then unmapped space. Those bytes and the 32 below
// them are the outermost stack frames (crt0's and main's), which nothing reads while this runs
// deeper down: they are saved, guarded, and put back.
static __attribute__((noinline)) void aes_bus_error_out(couplet_aes_backend_id_t backend) {
  const char *name = couplet_aes_backend_name(backend);
  volatile uint32_t *top = (volatile uint32_t *)(uintptr_t)(RAM_END - 64u);
  if ((uintptr_t)__builtin_frame_address(0) > RAM_END - 512u) {
    couplet_check_fail(name, "bus_error_out", "stack too shallow to borrow its top");
    return;
  }
  uint32_t saved[16];
  for (uint32_t i = 0; i < 16u; i++) {
    saved[i] = top[i];
    top[i] = GUARD;
  }
  const uint32_t nmis_before = nmis;
  couplet_aes_ctx_t ctx;
  couplet_status_t status = couplet_aes_init_backend(&ctx, backend);
  if (status == COUPLET_OK) {
    status = couplet_aes_set_key(&ctx, key, sizeof key);
  }
  if (status == COUPLET_OK) {
    status = couplet_aes_ecb_encrypt(&ctx, msg, (uint8_t *)(uintptr_t)(RAM_END - 32u), 64u);
  }
  bool stray = false;
  for (uint32_t i = 0; i < 8u; i++) {
    stray |= top[i] != GUARD;  // below the caller's buffer
  }
  for (uint32_t i = 0; i < 16u; i++) {
    top[i] = saved[i];
  }
  (void)couplet_check_status(name, "bus_error_out", COUPLET_ERR_HW, status);
  expect(nmis == nmis_before, "aes", name, "bus_error_out: no NMI on the core");
  report("bus_error_out", "aes", name, couplet_status_name(status), stray, aes_works(backend));
}
#endif

static couplet_aes_ctx_t victim;
static volatile uint32_t victim_busy, victim_other;

// From the interrupt handler: another context's zeroize while a call may hold the accelerator.
static void zeroize_victim(void) {
  couplet_status_t status = couplet_aes_zeroize(&victim);
  if (status == COUPLET_ERR_BUSY) {
    victim_busy = victim_busy + 1u;
  } else if (status != COUPLET_OK) {
    victim_other = victim_other + 1u;
  }
}

// ECB, CTR and CFB decryption of STORM_BYTES by the software backend, computed once outside
// any storm (the software backend takes about 2,000 cycles a block).
static uint8_t aes_storm_ref[3][STORM_BYTES];
static uint8_t aes_storm_iv_ref[3][16];

// CFB decryption rather than CBC's: it runs the forward cipher, which an encrypt-only engine
// (configs/aes128_enc.toml) has too.
static couplet_aes_mode_t storm_mode(uint32_t i) {
  return i == 0u ? COUPLET_AES_ECB : i == 1u ? COUPLET_AES_CTR : COUPLET_AES_CFB;
}

static void aes_storm_reference(void) {
  couplet_aes_ctx_t soft;
  bool ok = couplet_aes_init_backend(&soft, COUPLET_AES_BACKEND_SOFT) == COUPLET_OK &&
            couplet_aes_set_key(&soft, key, sizeof key) == COUPLET_OK;
  for (uint32_t i = 0; ok && i < 3u; i++) {
    memset(aes_storm_iv_ref[i], (int)i, 16u);
    ok = couplet_aes_crypt(&soft, storm_mode(i), i == 2u, aes_storm_iv_ref[i], msg, aes_storm_ref[i], STORM_BYTES) ==
         COUPLET_OK;
  }
  if (!ok) {
    couplet_check_fail("aes/soft", "storm reference", "the software backend failed");
  }
}

// The three calls in turn under the storm until it has brought STORM_IRQS interrupts, each
// against the software backend's result and chaining value.
static bool aes_storm_calls(couplet_aes_backend_id_t backend) {
  couplet_aes_ctx_t ctx;
  uint8_t *got = out.data;  // between the guards
  bool ok = couplet_aes_init_backend(&ctx, backend) == COUPLET_OK &&
            couplet_aes_set_key(&ctx, key, sizeof key) == COUPLET_OK;
  for (uint32_t call = 0; ok && call < STORM_CALLS && storm_irqs < STORM_IRQS; call++) {
    const uint32_t i = call % 3u;
    uint8_t iv[16];
    memset(iv, (int)i, sizeof iv);
    couplet_status_t status;
    do {  // a zeroize from the handler may hold the accelerator for a moment
      status = couplet_aes_crypt(&ctx, storm_mode(i), i == 2u, iv, msg, got, STORM_BYTES);
    } while (status == COUPLET_ERR_BUSY);
    ok = status == COUPLET_OK && memcmp(got, aes_storm_ref[i], STORM_BYTES) == 0 &&
         memcmp(iv, aes_storm_iv_ref[i], sizeof iv) == 0;
  }
  return ok;
}

static void aes_irq_storm(couplet_aes_backend_id_t backend, bool with_zeroize) {
  const char *name = couplet_aes_backend_name(backend);
  victim_busy = 0u;
  victim_other = 0u;
  if (with_zeroize && (couplet_aes_init_backend(&victim, backend) != COUPLET_OK ||
                       couplet_aes_set_key(&victim, key, sizeof key) != COUPLET_OK)) {
    couplet_check_fail(name, "zeroize_irq", "victim context");
  }
  guard_fill();
  storm_start(with_zeroize ? zeroize_victim : NULL);
  const bool ok = aes_storm_calls(backend);
  const uint32_t irqs = storm_stop();
  const bool stray = !guard_intact();
  expect(ok, "aes", name, "irq_storm: results equal the software backend's");
  expect(irqs >= STORM_IRQS, "aes", name, "irq_storm: STORM_IRQS interrupts");
  char result[48];
  snprintf(result, sizeof result, "irqs=%lu", (unsigned long)irqs);
  report("irq_storm", "aes", name, ok ? result : "MISMATCH", stray, aes_works(backend));
  if (with_zeroize) {
    expect(victim_busy > 0u && victim_other == 0u, "aes", name, "zeroize_irq: BUSY while a call holds it");
    snprintf(result, sizeof result, "COUPLET_ERR_BUSY=%lu", (unsigned long)victim_busy);
    report("zeroize_irq", "aes", name, victim_other == 0u && victim_busy > 0u ? result : "UNEXPECTED", stray,
           aes_works(backend));
  }
}

#if COUPLET_AES_HAS_MMIO
static inline void aes_reg_write(uint32_t index, uint32_t value) {
  couplet_mmio_write32(COUPLET_AES_BASE + 4u * index, value);
}
static inline uint32_t aes_reg_read(uint32_t index) {
  return couplet_mmio_read32(COUPLET_AES_BASE + 4u * index);
}

// The key by registers (ECB, AES-128); the accelerator then holds no context's key as far as
// the driver knows, so its next call reloads.
static void aes_mmio_key(void) {
  const uint32_t *k = (const uint32_t *)(const void *)key;
  for (uint32_t i = 0; i < 4u; i++) {
    aes_reg_write(AES_KEY0_INDEX + i, k[i]);
  }
  aes_reg_write(AES_CTRL_INDEX, (uint32_t)AES_MODE_ECB);
  aes_reg_write(AES_CMD_INDEX, AES_CMD_EXPAND_MASK);
  aes_reg_write(AES_STATUS_INDEX, AES_STATUS_STICKY);
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
}

// ZEROIZE (CMD) right after DIN3 started a block: refused (busy), the block's result intact.
static void aes_mmio_zeroize_mid_block(void) {
  guard_fill();
  aes_mmio_key();
  const uint32_t *m = (const uint32_t *)(const void *)msg;
  for (uint32_t i = 0; i < 4u; i++) {
    aes_reg_write(AES_DIN0_INDEX + i, m[i]);
  }
  aes_reg_write(AES_CMD_INDEX, AES_CMD_ZEROIZE_MASK);
  uint32_t dout[4];
  for (uint32_t i = 0; i < 4u; i++) {
    dout[i] = aes_reg_read(AES_DOUT0_INDEX + i);
  }
  const uint32_t status = aes_reg_read(AES_STATUS_INDEX);
  aes_reg_write(AES_STATUS_INDEX, AES_STATUS_STICKY);
  const bool refused = (status & AES_STATUS_REFUSED_BUSY_MASK) && (status & AES_STATUS_KEY_READY_MASK) &&
                       memcmp(dout, ref, 16u) == 0;
  expect(refused, "aes", "mmio", "zeroize_mid_job: refused busy, block intact");
  // Idle, it acts: the key is gone.
  aes_reg_write(AES_CMD_INDEX, AES_CMD_ZEROIZE_MASK);
  const bool cleared = (aes_reg_read(AES_STATUS_INDEX) & AES_STATUS_KEY_READY_MASK) == 0u;
  expect(cleared, "aes", "mmio", "zeroize_mid_job: zeroize when idle clears the key");
  report("zeroize_mid_job", "aes", "mmio", refused && cleared ? "refused_busy" : "UNEXPECTED", !guard_intact(),
         aes_works(COUPLET_AES_BACKEND_MMIO));
}
#endif

#if COUPLET_AES_HAS_TIGHT
// The same through custom instructions: ZEROIZE answers BUSY.
static void aes_tight_zeroize_mid_block(void) {
  guard_fill();
  const uint32_t *k = (const uint32_t *)(const void *)key;
  (void)couplet_aes_xif_write2_key0(k[0], k[1]);
  (void)couplet_aes_xif_write2_key2(k[2], k[3]);
  (void)couplet_aes_xif_write_ctrl((uint32_t)AES_MODE_ECB, 0);
  (void)couplet_aes_xif_expand(0, 0);
  (void)couplet_aes_xif_write_status(AES_STATUS_STICKY, 0);
  couplet_aes_accel.resident_key = COUPLET_AES_NO_RESIDENT_KEY;
  const uint32_t *m = (const uint32_t *)(const void *)msg;
  (void)couplet_aes_xif_write2_din0(m[0], m[1]);
  (void)couplet_aes_xif_write2_din2(m[2], m[3]);
  const uint32_t code = couplet_aes_xif_zeroize(0, 0);
  uint32_t dout[4];
  dout[0] = couplet_aes_xif_read_dout0(0, 0);
  dout[1] = couplet_aes_xif_read_dout1(0, 0);
  dout[2] = couplet_aes_xif_read_dout2(0, 0);
  dout[3] = couplet_aes_xif_read_dout3(0, 0);
  const uint32_t status = couplet_aes_xif_read_status(0, 0);
  (void)couplet_aes_xif_write_status(AES_STATUS_STICKY, 0);
  const bool refused = code == AES_RESULT_BUSY && (status & AES_STATUS_KEY_READY_MASK) && memcmp(dout, ref, 16u) == 0;
  expect(refused, "aes", "tight", "zeroize_mid_job: ZEROIZE answers BUSY, block intact");
  const uint32_t idle_code = couplet_aes_xif_zeroize(0, 0);
  const bool cleared = idle_code == AES_RESULT_OK &&
                       (couplet_aes_xif_read_status(0, 0) & AES_STATUS_KEY_READY_MASK) == 0u;
  expect(cleared, "aes", "tight", "zeroize_mid_job: ZEROIZE when idle clears the key");
  report("zeroize_mid_job", "aes", "tight", refused && cleared ? "AES_RESULT_BUSY" : "UNEXPECTED", !guard_intact(),
         aes_works(COUPLET_AES_BACKEND_TIGHT));
}
#endif

#if COUPLET_AES_HAS_DMA
static inline void aes_dma_write(uint32_t offset, uint32_t value) {
  couplet_mmio_write32(COUPLET_DMA_BASE + offset, value);
}

static void aes_zeroize_now(void) {
  couplet_delay_cycles(200u);
  aes_reg_write(AES_CMD_INDEX, AES_CMD_ZEROIZE_MASK);
}

static void aes_dma_abort_later(void) {
  couplet_delay_cycles(600u);
  aes_dma_write(DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
}

// ZEROIZE through the register window while a DMA descriptor streams 4 KiB through the engine.
static void aes_dma_zeroize_mid_job(void) {
  aes_mmio_key();
  guard_fill();
  memset(out.data, 0, sizeof out.data);
  const uint32_t s = dma_slot0(COUPLET_DMA_BASE, (uint32_t)(uintptr_t)msg, (uint32_t)(uintptr_t)out.data, MSG_BYTES,
                               MSG_BYTES, aes_zeroize_now);
  const uint32_t status = aes_reg_read(AES_STATUS_INDEX);
  aes_reg_write(AES_STATUS_INDEX, AES_STATUS_STICKY);
  // Documented: ZEROIZE is refused while busy, that is while a block of the stream is in flight:
  // with the ROLLED engine (10 cycles a block against 4 words a block from the DMA) always, so
  // the output is the right ciphertext. A faster engine may leave gaps in which it would act.
  const bool refused = (status & AES_STATUS_REFUSED_BUSY_MASK) != 0u;
  const bool right = memcmp(out.data, ref, MSG_BYTES) == 0;
  char result[48];
  snprintf(result, sizeof result, "%s,%s,%s", slot_result(s), refused ? "refused_busy" : "zeroized",
           right ? "output_right" : "output_changed");
  expect(s != 0u && (s & DMA_STATUS_SLOT0_ERR_MASK) == 0u, "aes", "dma", "zeroize_mid_job: the job ends");
  expect(refused && right, "aes", "dma", "zeroize_mid_job: refused busy, output right");
  aes_reg_write(AES_CMD_INDEX, AES_CMD_ZEROIZE_MASK);
  report("zeroize_mid_job", "aes", "dma", result, !guard_intact(), aes_works(COUPLET_AES_BACKEND_DMA));
}

// The DMA's soft reset (CTRL.abort_all) in the middle of a 4 KiB job: slot error, the
// accelerator's stream state dropped (job_abort), nothing written outside the buffer.
static void aes_dma_abort_mid_job(void) {
  aes_mmio_key();
  guard_fill();
  memset(out.data, 0, sizeof out.data);
  const uint32_t s = dma_slot0(COUPLET_DMA_BASE, (uint32_t)(uintptr_t)msg, (uint32_t)(uintptr_t)out.data, MSG_BYTES,
                               MSG_BYTES, aes_dma_abort_later);
  aes_reg_write(AES_STATUS_INDEX, AES_STATUS_STICKY);
  // Whatever was written before the abort is the right ciphertext; the rest is untouched.
  uint32_t written = 0u;
  while (written < MSG_BYTES && memcmp(out.data + written, ref + written, 16u) == 0) {
    written += 16u;
  }
  bool rest_untouched = true;
  for (uint32_t i = written + 16u; i < MSG_BYTES; i++) {
    rest_untouched &= out.data[i] == 0u;
  }
  const bool err = s != 0u && (s & DMA_STATUS_SLOT0_ERR_MASK);
  expect(err, "aes", "dma", "abort_mid_job: slot error");
  expect(written > 0u && written < MSG_BYTES && rest_untouched, "aes", "dma",
         "abort_mid_job: a right prefix, nothing after it");
  char result[48];
  snprintf(result, sizeof result, "%s,written=%lu", slot_result(s), (unsigned long)written);
  report("abort_mid_job", "aes", "dma", result, !guard_intact(), aes_works(COUPLET_AES_BACKEND_DMA));
}

// A descriptor whose source or destination is a register window.
static void aes_dma_at(const char *what, uint32_t src, uint32_t dst, uint32_t len, const char *want) {
  aes_mmio_key();
  guard_fill();
  const uint32_t nmis_before = nmis;
  const uint32_t s = dma_slot0(COUPLET_DMA_BASE, src, dst, len, len, NULL);
  aes_reg_write(AES_STATUS_INDEX, AES_STATUS_STICKY);
  aes_reg_write(AES_CMD_INDEX, AES_CMD_ZEROIZE_MASK);
  const char *result = slot_result(s);
  char who[48];
  snprintf(who, sizeof who, "dma_at_regs %s: %s", what, want);
  expect(strcmp(result, want) == 0 && nmis == nmis_before, "aes", "dma", who);
  char line[48];
  snprintf(line, sizeof line, "%s:%s", what, result);
  report("dma_at_regs", "aes", "dma", line, !guard_intact(), aes_works(COUPLET_AES_BACKEND_DMA));
}
#endif

#if COUPLET_AES_HAS_MEM
// A MEM job whose source is a register window (its own accelerator's gets a bus error).
static void aes_mem_at(const char *what, uint32_t src, uint32_t len, couplet_status_t want) {
  couplet_aes_ctx_t ctx;
  guard_fill();
  const uint32_t nmis_before = nmis;
  couplet_status_t status = couplet_aes_init_backend(&ctx, COUPLET_AES_BACKEND_MEM);
  if (status == COUPLET_OK) {
    status = couplet_aes_set_key(&ctx, key, sizeof key);
  }
  if (status == COUPLET_OK) {
    status = couplet_aes_ecb_encrypt(&ctx, (const uint8_t *)(uintptr_t)src, out.data, len);
  }
  char who[48];
  snprintf(who, sizeof who, "dma_at_regs %s", what);
  (void)couplet_check_status("aes/mem", who, want, status);
  expect(nmis == nmis_before, "aes", "mem", "dma_at_regs: no NMI on the core");
  char line[48];
  snprintf(line, sizeof line, "%s:%s", what, couplet_status_name(status));
  report("dma_at_regs", "aes", "mem", line, !guard_intact(), aes_works(COUPLET_AES_BACKEND_MEM));
}
#endif

static void run_aes(void) {
  aes_reference(MSG_BYTES);
  aes_storm_reference();
#if COUPLET_AES_HAS_MEM
  aes_bus_error_in(COUPLET_AES_BACKEND_MEM);
  aes_bus_error_out(COUPLET_AES_BACKEND_MEM);
#endif
#if COUPLET_AES_HAS_DMA
  aes_bus_error_in(COUPLET_AES_BACKEND_DMA);
  aes_bus_error_out(COUPLET_AES_BACKEND_DMA);
#endif
#if COUPLET_AES_HAS_TIGHT
  aes_irq_storm(COUPLET_AES_BACKEND_TIGHT, true);
#endif
#if COUPLET_AES_HAS_MEM
  aes_irq_storm(COUPLET_AES_BACKEND_MEM, true);
#endif
#if COUPLET_AES_HAS_MMIO
  aes_irq_storm(COUPLET_AES_BACKEND_MMIO, true);
#endif
#if defined(COUPLET_AES_HAS_ZKN) && COUPLET_AES_HAS_ZKN
  aes_irq_storm(COUPLET_AES_BACKEND_ZKN, false);  // no accelerator state: nothing to zeroize
#endif
#if COUPLET_AES_HAS_TIGHT
  aes_tight_zeroize_mid_block();
#endif
#if COUPLET_AES_HAS_MMIO
  aes_mmio_zeroize_mid_block();
#endif
#if COUPLET_AES_HAS_DMA
  aes_dma_zeroize_mid_job();
  aes_dma_abort_mid_job();
  const uint32_t buf = (uint32_t)(uintptr_t)out.data;
  aes_dma_at("src_own_regs", COUPLET_AES_BASE, buf, 64u, "slot_err");
  aes_dma_at("dst_own_regs", (uint32_t)(uintptr_t)msg, COUPLET_AES_BASE + 4u * AES_IV0_INDEX, 16u, "slot_err");
  aes_dma_at("src_dma_regs", COUPLET_DMA_BASE, buf, 32u, "slot_done");  // both slots' registers
  aes_dma_at("dst_dma_regs", (uint32_t)(uintptr_t)msg, COUPLET_DMA_BASE + DMA_SLOT0_SRC_OFFSET, 16u, "slot_done");
#if COUPLET_KECCAK_PRESENT && defined(COUPLET_KECCAK_BASE)
  aes_dma_at("src_other_accel", COUPLET_KECCAK_BASE, buf, 64u, "slot_done");
#endif
  aes_dma_at("src_clint", COUPLET_CLINT_BASE, buf, 16u, "slot_err");
#endif
#if COUPLET_AES_HAS_MEM
#if COUPLET_KECCAK_PRESENT && defined(COUPLET_KECCAK_BASE)
  aes_mem_at("src_other_accel", COUPLET_KECCAK_BASE, 64u, COUPLET_OK);
#endif
  aes_mem_at("src_clint", COUPLET_CLINT_BASE, 16u, COUPLET_ERR_HW);
#if defined(COUPLET_AES_BASE)
  aes_mem_at("src_own_regs", COUPLET_AES_BASE, 64u, COUPLET_ERR_HW);
#endif
#endif
}

#endif  // COUPLET_AES_PRESENT

// ---------------------------------------------------------------- SHA-3

#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT
static uint8_t digest_ref[32];

static bool sha3_works(couplet_sha3_backend_id_t backend) {
  uint8_t d[32];
  return couplet_sha3_using(backend, COUPLET_SHA3_256, msg, 1000u, d, sizeof d) == COUPLET_OK &&
         memcmp(d, digest_ref, sizeof d) == 0;
}

#if COUPLET_SHA3_HAS_MEM || COUPLET_SHA3_HAS_DMA
// Four blocks and a tail from the last two blocks of the SRAM: blocks 3 and 4 and the tail lie
// in unmapped space. The job fails; nothing may read the tail afterwards (an NMI on the core).
static void sha3_bus_error_in(couplet_sha3_backend_id_t backend, const char *name) {
  guard_fill();
  const uint32_t nmis_before = nmis;
  const couplet_status_t status =
      couplet_sha3_using(backend, COUPLET_SHA3_256, (const uint8_t *)(uintptr_t)(RAM_END - 2u * RATE_256),
                         4u * RATE_256 + 10u, out.data, 32u);
  (void)couplet_check_status(name, "bus_error_in", COUPLET_ERR_HW, status);
  expect(nmis == nmis_before, "sha3", name, "bus_error_in: no NMI on the core");
  bool untouched = true;
  for (uint32_t i = 0; i < 32u; i++) {
    untouched &= out.data[i] == 0u;  // a failed hash writes no digest
  }
  expect(untouched, "sha3", name, "bus_error_in: no digest written");
  report("bus_error_in", "sha3", name, couplet_status_name(status), !guard_intact(), sha3_works(backend));
}
#endif

// SHA3-256, SHAKE128 (a rate and a half of output) and SHA3-512 in pieces by a context, of
// STORM_BYTES, by the software backend, computed once (about 150 cycles a byte).
static uint8_t sha3_storm_ref[3][256];

static bool sha3_storm_call(couplet_sha3_backend_id_t backend, uint32_t i, uint8_t *got) {
  if (i == 0u) {
    return couplet_sha3_using(backend, COUPLET_SHA3_256, msg, STORM_BYTES, got, 32u) == COUPLET_OK;
  }
  if (i == 1u) {
    return couplet_shake_using(backend, COUPLET_SHAKE128, msg, STORM_BYTES, got, 256u) == COUPLET_OK;
  }
  couplet_sha3_ctx_t ctx;
  return couplet_sha3_init_backend(&ctx, COUPLET_SHA3_512, backend) == COUPLET_OK &&
         couplet_sha3_update(&ctx, msg, 100u) == COUPLET_OK &&
         couplet_sha3_update(&ctx, msg + 100u, STORM_BYTES - 100u) == COUPLET_OK &&
         couplet_sha3_final(&ctx, got, 64u) == COUPLET_OK;
}

static const uint32_t sha3_storm_len[3] = {32u, 256u, 64u};

static void sha3_storm_reference(void) {
  for (uint32_t i = 0; i < 3u; i++) {
    if (!sha3_storm_call(COUPLET_SHA3_BACKEND_SOFT, i, sha3_storm_ref[i])) {
      couplet_check_fail("sha3/soft", "storm reference", "the software backend failed");
    }
  }
}

static bool sha3_storm_calls(couplet_sha3_backend_id_t backend) {
  uint8_t *got = out.data;  // between the guards
  bool ok = true;
  for (uint32_t call = 0; ok && call < STORM_CALLS && storm_irqs < STORM_IRQS; call++) {
    const uint32_t i = call % 3u;
    ok = sha3_storm_call(backend, i, got) && memcmp(got, sha3_storm_ref[i], sha3_storm_len[i]) == 0;
  }
  return ok;
}

static void sha3_irq_storm(couplet_sha3_backend_id_t backend, const char *name) {
  guard_fill();
  storm_start(NULL);
  const bool ok = sha3_storm_calls(backend);
  const uint32_t irqs = storm_stop();
  const bool stray = !guard_intact();
  expect(ok, "sha3", name, "irq_storm: results equal the software backend's");
  expect(irqs >= STORM_IRQS, "sha3", name, "irq_storm: STORM_IRQS interrupts");
  char result[32];
  snprintf(result, sizeof result, "irqs=%lu", (unsigned long)irqs);
  report("irq_storm", "sha3", name, ok ? result : "MISMATCH", stray, sha3_works(backend));
}

#if COUPLET_SHA3_HAS_MMIO
static inline void kc_write(uint32_t index, uint32_t value) {
  couplet_mmio_write32(COUPLET_KECCAK_BASE + 4u * index, value);
}
static inline uint32_t kc_read(uint32_t index) {
  return couplet_mmio_read32(COUPLET_KECCAK_BASE + 4u * index);
}

static bool kc_state_zero(void) {
  uint32_t any = 0u;
  for (uint32_t w = 0; w < KECCAK_STATE_COUNT; w++) {
    any |= kc_read(KECCAK_STATE_INDEX + w);
  }
  return any == 0u;
}

// CMD.zeroize right after CMD.permute: held until the permutation ends, then the state is zero.
static void sha3_mmio_zeroize_mid_job(void) {
  guard_fill();
  kc_write(KECCAK_CMD_INDEX, KECCAK_CMD_ZEROIZE_MASK);
  kc_write(KECCAK_STATUS_INDEX, 0xFFFFFFFFu);
  kc_write(KECCAK_STATE_XOR_INDEX, 0x12345678u);
  kc_write(KECCAK_CMD_INDEX, KECCAK_CMD_PERMUTE_MASK);
  kc_write(KECCAK_CMD_INDEX, KECCAK_CMD_ZEROIZE_MASK);
  const uint32_t status = kc_read(KECCAK_STATUS_INDEX);
  const bool zero = kc_state_zero();
  kc_write(KECCAK_STATUS_INDEX, 0xFFFFFFFFu);
  const bool ok = zero && (status & KECCAK_STATUS_REFUSED_BUSY_MASK) == 0u;
  expect(ok, "sha3", "mmio", "zeroize_mid_job: waits for the permutation, state zero");
  report("zeroize_mid_job", "sha3", "mmio", ok ? "state_zero" : "UNEXPECTED", !guard_intact(),
         sha3_works(COUPLET_SHA3_BACKEND_MMIO));
}
#endif

#if COUPLET_SHA3_HAS_TIGHT
#define KC_STR_(x) #x
#define KC_STR(x) KC_STR_(x)
#define KC_XIF(op, index, a, b)                                                                            \
  ({                                                                                                       \
    uint32_t r_;                                                                                           \
    __asm__ volatile(".insn r " KC_STR(COUPLET_KECCAK_CUSTOM_OPCODE) ", " #op ", %3, %0, %1, %2"          \
                     : "=r"(r_)                                                                            \
                     : "r"(a), "r"(b), "i"(index)                                                          \
                     : "memory");                                                                          \
    r_;                                                                                                    \
  })

// The ZEROIZE action right after PERMUTE: taken when the permutation ends, answers OK, state zero.
static void sha3_tight_zeroize_mid_job(void) {
  guard_fill();
  (void)KC_XIF(3, KECCAK_ACTION_ZEROIZE, 0u, 0u);
  (void)KC_XIF(1, KECCAK_STATUS_INDEX, 0xFFFFFFFFu, 0u);
  (void)KC_XIF(2, KECCAK_STATE_XOR_INDEX, 0x12345678u, 0x9abcdef0u);
  const uint32_t permute = KC_XIF(3, KECCAK_ACTION_PERMUTE, 0u, 0u);
  const uint32_t code = KC_XIF(3, KECCAK_ACTION_ZEROIZE, 0u, 0u);
  uint32_t any = 0u;
  any |= KC_XIF(0, 0, 0u, 0u);
  any |= KC_XIF(0, 1, 0u, 0u);
  any |= KC_XIF(0, 24, 0u, 0u);
  any |= KC_XIF(0, 49, 0u, 0u);
  const bool ok = permute == KECCAK_RESULT_OK && code == KECCAK_RESULT_OK && any == 0u;
  expect(ok, "sha3", "tight", "zeroize_mid_job: ZEROIZE waits for the permutation, answers OK, state zero");
  report("zeroize_mid_job", "sha3", "tight", ok ? "KECCAK_RESULT_OK,state_zero" : "UNEXPECTED", !guard_intact(),
         sha3_works(COUPLET_SHA3_BACKEND_TIGHT));
}
#endif

#if COUPLET_SHA3_HAS_DMA
static void kc_zeroize_later(void) {
  couplet_delay_cycles(300u);
  kc_write(KECCAK_CMD_INDEX, KECCAK_CMD_ZEROIZE_MASK);
}

static void kc_abort_later(void) {
  couplet_delay_cycles(600u);
  couplet_mmio_write32(COUPLET_KECCAK_DMA_BASE + DMA_CTRL_OFFSET, DMA_CTRL_ABORT_ALL_MASK);
}

// A stream of 30 SHA3-256 blocks (rate 34 words) from src, with `during` while it runs.
static uint32_t kc_stream(uint32_t src, uint32_t len, void (*during)(void)) {
  kc_write(KECCAK_CMD_INDEX, KECCAK_CMD_ZEROIZE_MASK);
  kc_write(KECCAK_CTRL_INDEX, (RATE_256 / 4u) << KECCAK_CTRL_RATE_SHIFT);
  kc_write(KECCAK_STATUS_INDEX, 0xFFFFFFFFu);
  const uint32_t s = dma_slot0(COUPLET_KECCAK_DMA_BASE, src, 0u, len, 0u, during);
  (void)kc_read(KECCAK_STATE_INDEX);  // waits for the last permutation
  kc_write(KECCAK_STATUS_INDEX, 0xFFFFFFFFu);
  kc_write(KECCAK_CMD_INDEX, KECCAK_CMD_ZEROIZE_MASK);
  return s;
}

static void sha3_dma_faults(void) {
  // ZEROIZE mid-stream: taken (a stream block in progress is not a refusal), the word counter
  // restarts; the job ends normally, absorbing the rest into the cleared state.
  guard_fill();
  uint32_t s = kc_stream((uint32_t)(uintptr_t)msg, 30u * RATE_256, kc_zeroize_later);
  bool ok = s != 0u && (s & DMA_STATUS_SLOT0_ERR_MASK) == 0u;
  expect(ok, "sha3", "dma", "zeroize_mid_job: the job ends without error");
  report("zeroize_mid_job", "sha3", "dma", slot_result(s), !guard_intact(), sha3_works(COUPLET_SHA3_BACKEND_DMA));

  s = kc_stream((uint32_t)(uintptr_t)msg, 30u * RATE_256, kc_abort_later);
  ok = s != 0u && (s & DMA_STATUS_SLOT0_ERR_MASK) != 0u;
  expect(ok, "sha3", "dma", "abort_mid_job: slot error");
  report("abort_mid_job", "sha3", "dma", slot_result(s), !guard_intact(), sha3_works(COUPLET_SHA3_BACKEND_DMA));

  // Descriptors at register windows: one block from each.
  static const struct {
    const char *what;
    uint32_t src;
    const char *want;
  } at[] = {
      {"src_own_regs", COUPLET_KECCAK_BASE, "slot_err"},
      {"src_dma_regs", COUPLET_KECCAK_DMA_BASE, "slot_err"},  // its registers end at 0x2C
#if COUPLET_AES_PRESENT && defined(COUPLET_AES_BASE)
      {"src_other_accel", COUPLET_AES_BASE, "slot_err"},  // AES's registers end at 0x60
#endif
      {"src_clint", COUPLET_CLINT_BASE, "slot_err"},
  };
  for (uint32_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    guard_fill();
    const uint32_t nmis_before = nmis;
    s = kc_stream(at[i].src, RATE_256, NULL);
    char who[48];
    snprintf(who, sizeof who, "dma_at_regs %s: %s", at[i].what, at[i].want);
    expect(strcmp(slot_result(s), at[i].want) == 0 && nmis == nmis_before, "sha3", "dma", who);
    char line[48];
    snprintf(line, sizeof line, "%s:%s", at[i].what, slot_result(s));
    report("dma_at_regs", "sha3", "dma", line, !guard_intact(), sha3_works(COUPLET_SHA3_BACKEND_DMA));
  }
}
#endif

#if COUPLET_SHA3_HAS_MEM
static void sha3_mem_at(const char *what, uint32_t src, couplet_status_t want) {
  uint8_t d[32];
  const uint32_t nmis_before = nmis;
  guard_fill();
  // Three whole blocks: an ABSORB job (XIF_JOB_MIN_BLOCKS), no tail.
  const couplet_status_t status =
      couplet_sha3_using(COUPLET_SHA3_BACKEND_MEM, COUPLET_SHA3_256, (const uint8_t *)(uintptr_t)src, 3u * RATE_256,
                         d, sizeof d);
  char who[48];
  snprintf(who, sizeof who, "dma_at_regs %s", what);
  (void)couplet_check_status("sha3/mem", who, want, status);
  expect(nmis == nmis_before, "sha3", "mem", "dma_at_regs: no NMI on the core");
  char line[48];
  snprintf(line, sizeof line, "%s:%s", what, couplet_status_name(status));
  report("dma_at_regs", "sha3", "mem", line, !guard_intact(), sha3_works(COUPLET_SHA3_BACKEND_MEM));
}
#endif

static void run_sha3(void) {
  if (couplet_sha3_using(COUPLET_SHA3_BACKEND_SOFT, COUPLET_SHA3_256, msg, 1000u, digest_ref, sizeof digest_ref) !=
      COUPLET_OK) {
    couplet_check_fail("sha3/soft", "reference", "the software backend failed");
  }
  sha3_storm_reference();
  memset(out.data, 0, 64u);
#if COUPLET_SHA3_HAS_MEM
  sha3_bus_error_in(COUPLET_SHA3_BACKEND_MEM, "mem");
#endif
#if COUPLET_SHA3_HAS_DMA
  memset(out.data, 0, 64u);
  sha3_bus_error_in(COUPLET_SHA3_BACKEND_DMA, "dma");
#endif
#if COUPLET_SHA3_HAS_ISE
  sha3_irq_storm(COUPLET_SHA3_BACKEND_ISE, "ise");
#endif
#if COUPLET_SHA3_HAS_TIGHT
  sha3_irq_storm(COUPLET_SHA3_BACKEND_TIGHT, "tight");
#endif
#if COUPLET_SHA3_HAS_MEM
  sha3_irq_storm(COUPLET_SHA3_BACKEND_MEM, "mem");
#endif
#if COUPLET_SHA3_HAS_MMIO
  sha3_irq_storm(COUPLET_SHA3_BACKEND_MMIO, "mmio");
#endif
#if COUPLET_SHA3_HAS_TIGHT
  sha3_tight_zeroize_mid_job();
#endif
#if COUPLET_SHA3_HAS_MMIO
  sha3_mmio_zeroize_mid_job();
#endif
#if COUPLET_SHA3_HAS_DMA
  sha3_dma_faults();
#endif
#if COUPLET_SHA3_HAS_MEM
#if COUPLET_AES_PRESENT && defined(COUPLET_AES_BASE)
  sha3_mem_at("src_other_accel", COUPLET_AES_BASE, COUPLET_ERR_HW);  // AES's registers end at 0x60
#endif
  sha3_mem_at("src_clint", COUPLET_CLINT_BASE, COUPLET_ERR_HW);
#if defined(COUPLET_KECCAK_BASE)
  sha3_mem_at("src_own_regs", COUPLET_KECCAK_BASE, COUPLET_ERR_HW);
#endif
#endif
}
#endif

// A deep frame, so that bus_error_out may borrow the stack's top bytes.
static __attribute__((noinline)) void run_all(void) {
  volatile uint8_t depth[1024];
  depth[0] = 0u;
  (void)depth[0];
#if defined(COUPLET_AES_PRESENT) && COUPLET_AES_PRESENT
  run_aes();
#endif
#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT
  run_sha3();
#endif
}

int main(void) {
  printf("test_faults: bus errors, interrupt storms, zeroize and abort mid-job, DMA at registers\n");
#if FAULTS_ACCEL
  couplet_check_fill(msg, sizeof msg);
#endif
  if (couplet_nmi_register(count_nmi) != COUPLET_OK) {
    couplet_check_fail("setup", "NMI handler", "refused");
  }
#if FAULTS_ACCEL
  if (couplet_irq_register(COUPLET_IRQ_TIMER, on_storm_timer) != COUPLET_OK) {
    couplet_check_fail("setup", "timer handler", "refused");
  }
#endif
  run_all();
  printf("test_faults: %lu cases, %lu failed, %lu NMIs\n", (unsigned long)cases_run,
         (unsigned long)couplet_check_failures(), (unsigned long)nmis);
  return couplet_check_failures() == 0u ? 0 : 1;
}
