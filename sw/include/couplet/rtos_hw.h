// Kernel-offload layer: the RTOS accelerator's services as inline calls (ChamelIoT's abstraction
// layer). It is OS-agnostic: an OS port maps its own thread, mutex, semaphore and queue
// operations onto these calls (see docs/rtos.md); nothing here knows FreeRTOS.
//
// Every call is one custom instruction (tight backend) or two stores and one load (mmio backend),
// chosen at compile time: define COUPLET_RTOS_BACKEND before including this header to pick one,
// otherwise the configuration's default backend is used. The accelerator, its actions and its
// result word are described in hw/ip/rtos/README.md.
#ifndef COUPLET_RTOS_HW_H_
#define COUPLET_RTOS_HW_H_

#include <stdbool.h>
#include <stdint.h>

#include "couplet/autogen/rtos_regs.h"
#include "couplet/soc_config.h"

#define COUPLET_RTOS_BACKEND_SOFT 0
#define COUPLET_RTOS_BACKEND_TIGHT 1
#define COUPLET_RTOS_BACKEND_MMIO 2

#if !COUPLET_RTOS_PRESENT
#error "couplet/rtos_hw.h: this SoC configuration has no RTOS accelerator ([accelerator.rtos])"
#endif

#ifndef COUPLET_RTOS_BACKEND
#define COUPLET_RTOS_BACKEND COUPLET_RTOS_DEFAULT_BACKEND
#endif

#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_TIGHT && !COUPLET_RTOS_HAS_TIGHT
#error "couplet/rtos_hw.h: the tight backend needs the tight coupling in [accelerator.rtos]"
#endif
#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_MMIO && !COUPLET_RTOS_HAS_MMIO
#error "couplet/rtos_hw.h: the mmio backend needs the mmio coupling in [accelerator.rtos]"
#endif

// ---------------------------------------------------------------------------------- the result
// The result word's fields (CALL's), its status codes and the thread states are described in
// hw/ip/rtos/data/rtos.toml (couplet/autogen/rtos_regs.h); these are the OS layer's names.
enum {
  COUPLET_RTOS_OK = RTOS_CODE_OK,
  COUPLET_RTOS_UNAVAILABLE = RTOS_CODE_UNAVAILABLE,
  COUPLET_RTOS_QUEUE_FULL = RTOS_CODE_QUEUE_FULL,
  COUPLET_RTOS_QUEUE_EMPTY = RTOS_CODE_QUEUE_EMPTY,
  COUPLET_RTOS_NO_ID = RTOS_CODE_NO_ID,
  COUPLET_RTOS_NOT_OWNER = RTOS_CODE_NOT_OWNER,
  COUPLET_RTOS_BUSY = RTOS_CODE_BUSY,
  COUPLET_RTOS_TABLE_FULL = RTOS_CODE_TABLE_FULL,
  COUPLET_RTOS_BAD_ARG = RTOS_CODE_BAD_ARG,
  COUPLET_RTOS_NO_CALLER = RTOS_CODE_NO_CALLER,
};

#define COUPLET_RTOS_NONE RTOS_TID_NONE  // "no thread" in a TID field

// A field of CALL's result word.
#define COUPLET_RTOS_FIELD(result, name) \
  (((result) >> RTOS_CALL_##name##_SHIFT) & (RTOS_CALL_##name##_MASK >> RTOS_CALL_##name##_SHIFT))

static inline uint32_t couplet_rtos_status(uint32_t result) { return COUPLET_RTOS_FIELD(result, STATUS); }
// The caller now waits: the OS must switch away from it.
static inline bool couplet_rtos_blocked(uint32_t result) { return COUPLET_RTOS_FIELD(result, BLOCKED); }
// A ready thread outranks the running one: the OS should reschedule.
static inline bool couplet_rtos_preempt(uint32_t result) { return COUPLET_RTOS_FIELD(result, PREEMPT); }
static inline uint32_t couplet_rtos_tid(uint32_t result) { return COUPLET_RTOS_FIELD(result, TID); }
// The result names a TID (tid != 0xFF). TIDs are below 0x80, so the field's top bit tells: one
// test where comparing the field with 0xFF takes four instructions (on the OS's fast paths).
_Static_assert(RTOS_PARAM_MAX_THREADS_MAX <= 0x80u, "a TID's top bit must be clear");
static inline bool couplet_rtos_names_tid(uint32_t result) { return (result & (0x80u << RTOS_CALL_TID_SHIFT)) == 0; }
static inline uint32_t couplet_rtos_value(uint32_t result) { return COUPLET_RTOS_FIELD(result, VALUE); }

// Thread states (THREAD_SET_STATE, THREAD_INFO).
enum {
  COUPLET_RTOS_READY = RTOS_THREAD_STATE_READY,
  COUPLET_RTOS_WAITING = RTOS_THREAD_STATE_WAITING,
  COUPLET_RTOS_SUSPENDED = RTOS_THREAD_STATE_SUSPENDED,
  COUPLET_RTOS_DELAYED = RTOS_THREAD_STATE_DELAYED,
};

// The fields of THREAD_INFO's value (hw/ip/rtos/data/rtos.toml; rtos_thread_info_t in the RTL):
// bits 3:0 eprio, 7:4 bprio, 9:8 state, 12:10 wait_kind (RTOS_WAIT_KIND_*), 15:13 wait_id.
static inline uint32_t couplet_rtos_info_eprio(uint32_t result) { return couplet_rtos_value(result) & 0xFu; }
static inline uint32_t couplet_rtos_info_bprio(uint32_t result) { return (couplet_rtos_value(result) >> 4) & 0xFu; }
static inline uint32_t couplet_rtos_info_state(uint32_t result) { return (couplet_rtos_value(result) >> 8) & 0x3u; }
static inline uint32_t couplet_rtos_info_wait_kind(uint32_t result) { return (couplet_rtos_value(result) >> 10) & 0x7u; }
static inline uint32_t couplet_rtos_info_wait_id(uint32_t result) { return (couplet_rtos_value(result) >> 13) & 0x7u; }

// Flags in argument b.
#define COUPLET_RTOS_ADD_READY (1u << 8)    // THREAD_ADD: start READY (else SUSPENDED)
#define COUPLET_RTOS_BLOCK 1u               // LOCK / TAKE / SEND / RECV: wait if unavailable
#define COUPLET_RTOS_QUEUE_FRONT (1u << 1)  // QUEUE_SEND: store at the head
#define COUPLET_RTOS_QUEUE_PEEK (1u << 1)   // QUEUE_RECV: copy the head, keep it stored

// -------------------------------------------------------------------------------- the actions
// One inline call per action of hw/ip/rtos/data/rtos.toml: couplet_rtos_<action>(a, b).
#if COUPLET_RTOS_HAS_MMIO
#define COUPLET_RTOS_REGS ((volatile uint32_t *)COUPLET_RTOS_BASE)
#endif

#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_TIGHT
// One instruction: funct3 3 (AccelOpExec), funct7 = the action, rd = the result. The memory
// clobber keeps the kernel's own loads and stores on their side of the call.
#define COUPLET_RTOS_DEFINE_CALL(name, code)                                                  \
  static inline uint32_t couplet_rtos_##name(uint32_t a, uint32_t b) {                        \
    uint32_t result;                                                                          \
    __asm__ volatile(".insn r %1, 3, %2, %0, %3, %4"                                          \
                     : "=r"(result)                                                           \
                     : "i"(COUPLET_RTOS_CUSTOM_OPCODE), "i"(code), "r"(a), "r"(b)             \
                     : "memory");                                                             \
    return result;                                                                            \
  }
#elif COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_MMIO
// Two stores and the load of CALL[k], which runs the action and returns its result.
#define COUPLET_RTOS_DEFINE_CALL(name, code)                                                  \
  static inline uint32_t couplet_rtos_##name(uint32_t a, uint32_t b) {                        \
    COUPLET_RTOS_REGS[RTOS_ARG_A_OFFSET / 4u] = a;                                             \
    COUPLET_RTOS_REGS[RTOS_ARG_B_OFFSET / 4u] = b;                                             \
    return COUPLET_RTOS_REGS[RTOS_CALL_OFFSET / 4u + (code)];                                  \
  }
#else
#error "couplet/rtos_hw.h: COUPLET_RTOS_BACKEND must be COUPLET_RTOS_BACKEND_TIGHT or _MMIO"
#endif

RTOS_ACTION_LIST(COUPLET_RTOS_DEFINE_CALL)
#undef COUPLET_RTOS_DEFINE_CALL

// ------------------------------------------------------------------------ the staging buffer
// A message goes through MSG[0..words-1]: written before queue_send, read after queue_recv.
#if COUPLET_RTOS_BACKEND == COUPLET_RTOS_BACKEND_TIGHT
// Register accesses are instructions whose funct7 is the register index, so every index is a
// constant: the copies below are unrolled, two words per WRITE2.
#define COUPLET_RTOS_TIGHT_READ(index, out)                                                  \
  __asm__ volatile(".insn r %1, 0, %2, %0, x0, x0"                                          \
                   : "=r"(out)                                                              \
                   : "i"(COUPLET_RTOS_CUSTOM_OPCODE), "i"(index)                            \
                   : "memory")
#define COUPLET_RTOS_TIGHT_WRITE(index, w)                                                   \
  __asm__ volatile(".insn r %0, 1, %1, x0, %2, x0"                                          \
                   :                                                                        \
                   : "i"(COUPLET_RTOS_CUSTOM_OPCODE), "i"(index), "r"(w)                    \
                   : "memory")
#define COUPLET_RTOS_TIGHT_WRITE2(index, w0, w1)                                             \
  __asm__ volatile(".insn r %0, 2, %1, x0, %2, %3"                                          \
                   :                                                                        \
                   : "i"(COUPLET_RTOS_CUSTOM_OPCODE), "i"(index), "r"(w0), "r"(w1)          \
                   : "memory")

// Writes words (1..COUPLET_RTOS_MESSAGE_WORDS) from src into MSG.
static inline void couplet_rtos_msg_put(const uint32_t *src, uint32_t words) {
#define COUPLET_RTOS_PUT_PAIR(i)                                  \
  if (words < (i) + 2u) {                                         \
    if (words == (i) + 1u) COUPLET_RTOS_TIGHT_WRITE(i, src[i]);   \
    return;                                                       \
  }                                                               \
  COUPLET_RTOS_TIGHT_WRITE2(i, src[i], src[(i) + 1]);
  COUPLET_RTOS_PUT_PAIR(0) COUPLET_RTOS_PUT_PAIR(2) COUPLET_RTOS_PUT_PAIR(4) COUPLET_RTOS_PUT_PAIR(6)
  COUPLET_RTOS_PUT_PAIR(8) COUPLET_RTOS_PUT_PAIR(10) COUPLET_RTOS_PUT_PAIR(12) COUPLET_RTOS_PUT_PAIR(14)
#undef COUPLET_RTOS_PUT_PAIR
}

// Reads words (1..COUPLET_RTOS_MESSAGE_WORDS) from MSG into dst.
static inline void couplet_rtos_msg_get(uint32_t *dst, uint32_t words) {
#define COUPLET_RTOS_GET_WORD(i)          \
  if (words <= (i)) return;               \
  COUPLET_RTOS_TIGHT_READ(i, dst[i]);
  COUPLET_RTOS_GET_WORD(0) COUPLET_RTOS_GET_WORD(1) COUPLET_RTOS_GET_WORD(2) COUPLET_RTOS_GET_WORD(3)
  COUPLET_RTOS_GET_WORD(4) COUPLET_RTOS_GET_WORD(5) COUPLET_RTOS_GET_WORD(6) COUPLET_RTOS_GET_WORD(7)
  COUPLET_RTOS_GET_WORD(8) COUPLET_RTOS_GET_WORD(9) COUPLET_RTOS_GET_WORD(10) COUPLET_RTOS_GET_WORD(11)
  COUPLET_RTOS_GET_WORD(12) COUPLET_RTOS_GET_WORD(13) COUPLET_RTOS_GET_WORD(14) COUPLET_RTOS_GET_WORD(15)
#undef COUPLET_RTOS_GET_WORD
}

static inline uint32_t couplet_rtos_read_status(void) {
  uint32_t status;
  COUPLET_RTOS_TIGHT_READ(RTOS_STATUS_OFFSET / 4u, status);
  return status;
}

static inline uint32_t couplet_rtos_read_config(void) {
  uint32_t config;
  COUPLET_RTOS_TIGHT_READ(RTOS_CONFIG_OFFSET / 4u, config);
  return config;
}
#else
// Unrolled as in the tight backend: a load and a store a word at constant offsets and one
// compare, where a loop spent seven instructions a word (and a cycle more wherever its branch
// target fell on a half-word).
static inline void couplet_rtos_msg_put(const uint32_t *src, uint32_t words) {
#define COUPLET_RTOS_PUT_WORD(i)                               \
  if (words <= (i)) return;                                    \
  COUPLET_RTOS_REGS[RTOS_MSG_OFFSET / 4u + (i)] = src[i];
  COUPLET_RTOS_PUT_WORD(0) COUPLET_RTOS_PUT_WORD(1) COUPLET_RTOS_PUT_WORD(2) COUPLET_RTOS_PUT_WORD(3)
  COUPLET_RTOS_PUT_WORD(4) COUPLET_RTOS_PUT_WORD(5) COUPLET_RTOS_PUT_WORD(6) COUPLET_RTOS_PUT_WORD(7)
  COUPLET_RTOS_PUT_WORD(8) COUPLET_RTOS_PUT_WORD(9) COUPLET_RTOS_PUT_WORD(10) COUPLET_RTOS_PUT_WORD(11)
  COUPLET_RTOS_PUT_WORD(12) COUPLET_RTOS_PUT_WORD(13) COUPLET_RTOS_PUT_WORD(14) COUPLET_RTOS_PUT_WORD(15)
#undef COUPLET_RTOS_PUT_WORD
}

static inline void couplet_rtos_msg_get(uint32_t *dst, uint32_t words) {
#define COUPLET_RTOS_GET_WORD(i)                               \
  if (words <= (i)) return;                                    \
  dst[i] = COUPLET_RTOS_REGS[RTOS_MSG_OFFSET / 4u + (i)];
  COUPLET_RTOS_GET_WORD(0) COUPLET_RTOS_GET_WORD(1) COUPLET_RTOS_GET_WORD(2) COUPLET_RTOS_GET_WORD(3)
  COUPLET_RTOS_GET_WORD(4) COUPLET_RTOS_GET_WORD(5) COUPLET_RTOS_GET_WORD(6) COUPLET_RTOS_GET_WORD(7)
  COUPLET_RTOS_GET_WORD(8) COUPLET_RTOS_GET_WORD(9) COUPLET_RTOS_GET_WORD(10) COUPLET_RTOS_GET_WORD(11)
  COUPLET_RTOS_GET_WORD(12) COUPLET_RTOS_GET_WORD(13) COUPLET_RTOS_GET_WORD(14) COUPLET_RTOS_GET_WORD(15)
#undef COUPLET_RTOS_GET_WORD
}

static inline uint32_t couplet_rtos_read_status(void) {
  return COUPLET_RTOS_REGS[RTOS_STATUS_OFFSET / 4u];
}

static inline uint32_t couplet_rtos_read_config(void) {
  return COUPLET_RTOS_REGS[RTOS_CONFIG_OFFSET / 4u];
}
#endif

// STATUS.copy_busy: a message copy to a woken receiver's buffer is still in flight. A read of
// STATUS clears STATUS.copy_error. CONFIG holds the build parameters (COUPLET_RTOS_CONFIG_WORD).
static inline bool couplet_rtos_copy_busy(void) {
  return (couplet_rtos_read_status() & RTOS_STATUS_COPY_BUSY_MASK) != 0;
}

// Waits (bounded) until a woken receiver's message has reached its buffer. A copy moves at most
// COUPLET_RTOS_MESSAGE_WORDS words, one per bus cycle, so the bound is generous. Returns false if
// the copy did not end in time or ended with a bus error (STATUS.copy_error).
static inline bool couplet_rtos_copy_wait(void) {
  for (uint32_t i = 0; i < 10000u; i++) {
    uint32_t status = couplet_rtos_read_status();
    if ((status & RTOS_STATUS_COPY_BUSY_MASK) == 0) {
      return (status & RTOS_STATUS_COPY_ERROR_MASK) == 0;
    }
  }
  return false;
}

#endif  // COUPLET_RTOS_HW_H_
