// test_xif_hazard: an offloaded instruction accepted while the core's ID stage is stalled must
// still write its result to rd (hw/vendor/cv32e40x/patches/0002-xif-sticky-issue-response.patch).
//
// The stall comes from an older offloaded instruction waiting in WB for its result: a register
// write to the RTOS accelerator (custom instruction, rd = x0) followed 0, 1, 2 or 3 instructions
// later by QUEUE_SEND, whose result (status OK, no thread woken, one message stored) must reach
// rd. Without the core patch the one-instruction gap left rd unwritten. The message written is
// read back each time, so both instructions are also checked to have run.

#include <stdint.h>
#include <stdio.h>

#include <couplet/rtos_hw.h>
#include <couplet/selftest.h>
#include <couplet/soc_config.h>

#if !COUPLET_RTOS_HAS_TIGHT
#error "test_xif_hazard needs the RTOS accelerator's tight coupling (the default SoC has it)"
#endif

#define OPC COUPLET_RTOS_CUSTOM_OPCODE
// MSG[0] write (funct3 1, funct7 0, rd x0), then QUEUE_SEND (funct3 3, funct7 0x22) into rd.
#define WRITE_MSG0 ".insn r %1, 1, 0, x0, %2, x0\n\t"
#define QUEUE_SEND ".insn r %1, 3, 0x22, %0, %3, x0\n\t"
#define GAP "addi x0, x0, 0\n\t"  // a 32-bit nop: the gap is counted in instructions

static uint32_t send_after_write(uint32_t queue, uint32_t word, uint32_t gap) {
  uint32_t result = 0xDEADBEEFu;
  switch (gap) {
    case 0:
      __asm__ volatile(WRITE_MSG0 QUEUE_SEND : "=&r"(result) : "i"(OPC), "r"(word), "r"(queue) : "memory");
      break;
    case 1:
      __asm__ volatile(WRITE_MSG0 GAP QUEUE_SEND : "=&r"(result) : "i"(OPC), "r"(word), "r"(queue) : "memory");
      break;
    case 2:
      __asm__ volatile(WRITE_MSG0 GAP GAP QUEUE_SEND : "=&r"(result) : "i"(OPC), "r"(word), "r"(queue) : "memory");
      break;
    default:
      __asm__ volatile(WRITE_MSG0 GAP GAP GAP QUEUE_SEND
                       : "=&r"(result)
                       : "i"(OPC), "r"(word), "r"(queue)
                       : "memory");
      break;
  }
  return result;
}

int main(void) {
  // The result word of a QUEUE_SEND that stored its message: OK, tid none, one message stored.
  const uint32_t stored = (1u << RTOS_CALL_VALUE_SHIFT) | ((uint32_t)COUPLET_RTOS_NONE << RTOS_CALL_TID_SHIFT) |
                          ((uint32_t)COUPLET_RTOS_OK << RTOS_CALL_STATUS_SHIFT);
  for (uint32_t gap = 0; gap < 4u; gap++) {
    uint32_t alloc = couplet_rtos_queue_alloc(1, 1);
    COUPLET_REQUIRE(couplet_expect_u32("queue_alloc status", COUPLET_RTOS_OK, couplet_rtos_status(alloc)));
    uint32_t queue = couplet_rtos_tid(alloc);
    uint32_t word = 0xC0DE0000u + gap;
    char what[48];
    snprintf(what, sizeof what, "send result, gap %lu", (unsigned long)gap);
    COUPLET_REQUIRE(couplet_expect_u32(what, stored, send_after_write(queue, word, gap)));
    uint32_t received = couplet_rtos_queue_recv(queue, 0);
    uint32_t got = 0;
    couplet_rtos_msg_get(&got, 1);
    COUPLET_REQUIRE(couplet_expect_u32("recv status", COUPLET_RTOS_OK, couplet_rtos_status(received)));
    COUPLET_REQUIRE(couplet_expect_u32("message", word, got));
    COUPLET_REQUIRE(couplet_expect_u32("queue_free status", COUPLET_RTOS_OK,
                                       couplet_rtos_status(couplet_rtos_queue_free(queue, 0))));
  }
  printf("test_xif_hazard: PASS\n");
  return 0;
}
