// test_isa: the M, A and C extensions, one exact instruction at a time.
//
// Each operation runs as inline assembly, so the compiler can neither fold it at compile
// time nor pick a different instruction. Expected values were computed independently with
// Python from the RISC-V unprivileged spec (M: division by zero gives all ones / the
// dividend, INT_MIN / -1 gives INT_MIN / 0).
// Prints one line per check; exits 0 when all pass, 1 at the first failure.

#include <stdint.h>
#include <stdio.h>

#include <couplet/selftest.h>

// ------------------------------------------------------------------------------ M extension

#define DEFINE_RTYPE(op)                                                   \
  static uint32_t op_##op(uint32_t a, uint32_t b) {                        \
    uint32_t result;                                                       \
    __asm__ volatile(#op " %0, %1, %2" : "=r"(result) : "r"(a), "r"(b));   \
    return result;                                                         \
  }

DEFINE_RTYPE(mul)
DEFINE_RTYPE(mulh)
DEFINE_RTYPE(mulhsu)
DEFINE_RTYPE(mulhu)
DEFINE_RTYPE(div)
DEFINE_RTYPE(divu)
DEFINE_RTYPE(rem)
DEFINE_RTYPE(remu)

typedef struct {
  const char *name;
  uint32_t (*run)(uint32_t a, uint32_t b);
  uint32_t a, b, expected;
} m_case_t;

static const m_case_t m_cases[] = {
    {"mul", op_mul, 0x00000007u, 0xfffffffdu, 0xffffffebu},
    {"mul", op_mul, 0x12345678u, 0x9abcdef0u, 0x242d2080u},
    {"mulh", op_mulh, 0xfffffffeu, 0x00000003u, 0xffffffffu},
    {"mulh", op_mulh, 0x80000000u, 0x80000000u, 0x40000000u},
    {"mulh", op_mulh, 0x12345678u, 0x9abcdef0u, 0xf8cc93d6u},
    {"mulhsu", op_mulhsu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
    {"mulhsu", op_mulhsu, 0x12345678u, 0x9abcdef0u, 0x0b00ea4eu},
    {"mulhsu", op_mulhsu, 0x80000000u, 0xffffffffu, 0x80000000u},
    {"mulhu", op_mulhu, 0xffffffffu, 0xffffffffu, 0xfffffffeu},
    {"mulhu", op_mulhu, 0x12345678u, 0x9abcdef0u, 0x0b00ea4eu},
    {"div", op_div, 0xfffffff9u, 0x00000002u, 0xfffffffdu},   // -7 / 2 = -3 (toward zero)
    {"div", op_div, 0x00000007u, 0xfffffffeu, 0xfffffffdu},   // 7 / -2 = -3
    {"div", op_div, 0x000004d2u, 0x00000000u, 0xffffffffu},   // x / 0 = -1
    {"div", op_div, 0x80000000u, 0xffffffffu, 0x80000000u},   // INT_MIN / -1 = INT_MIN
    {"divu", op_divu, 0x00000007u, 0x00000002u, 0x00000003u},
    {"divu", op_divu, 0x80000000u, 0xffffffffu, 0x00000000u},
    {"divu", op_divu, 0x000004d2u, 0x00000000u, 0xffffffffu},  // x / 0 = all ones
    {"rem", op_rem, 0xfffffff9u, 0x00000002u, 0xffffffffu},    // -7 % 2 = -1 (sign of dividend)
    {"rem", op_rem, 0x00000007u, 0xfffffffeu, 0x00000001u},
    {"rem", op_rem, 0x000004d2u, 0x00000000u, 0x000004d2u},    // x % 0 = x
    {"rem", op_rem, 0x80000000u, 0xffffffffu, 0x00000000u},    // INT_MIN % -1 = 0
    {"remu", op_remu, 0x00000007u, 0x00000002u, 0x00000001u},
    {"remu", op_remu, 0xfffffff9u, 0x0000000au, 0x00000009u},
    {"remu", op_remu, 0x000004d2u, 0x00000000u, 0x000004d2u},  // x % 0 = x
};

static int check_m_extension(void) {
  printf("M extension\n");
  char what[48];
  for (size_t i = 0; i < sizeof m_cases / sizeof m_cases[0]; ++i) {
    const m_case_t *c = &m_cases[i];
    snprintf(what, sizeof what, "%s 0x%08lx, 0x%08lx", c->name, (unsigned long)c->a, (unsigned long)c->b);
    COUPLET_REQUIRE(couplet_expect_u32(what, c->expected, c->run(c->a, c->b)));
  }
  return 0;
}

// ------------------------------------------------------------------------------ A extension

// The word the atomics work on; in .bss, so in SRAM, which carries out the atomics.
static volatile uint32_t atomic_word;

#define DEFINE_AMO(name, insn)                                                      \
  static uint32_t op_##name(volatile uint32_t *word, uint32_t operand) {              \
    uint32_t old;                                                                     \
    __asm__ volatile(insn " %0, %2, (%1)" : "=r"(old) : "r"(word), "r"(operand) : "memory"); \
    return old;                                                                       \
  }

DEFINE_AMO(amoadd_w, "amoadd.w")
DEFINE_AMO(amoswap_w, "amoswap.w")
DEFINE_AMO(amoand_w, "amoand.w")
DEFINE_AMO(amoor_w, "amoor.w")
DEFINE_AMO(amoxor_w, "amoxor.w")
DEFINE_AMO(amomin_w, "amomin.w")
DEFINE_AMO(amomax_w, "amomax.w")
DEFINE_AMO(amominu_w, "amominu.w")
DEFINE_AMO(amomaxu_w, "amomaxu.w")

typedef struct {
  const char *name;
  uint32_t (*run)(volatile uint32_t *word, uint32_t operand);
  uint32_t initial, operand, stored;  // an AMO returns `initial` and leaves `stored`
} amo_case_t;

static int check_amo(const amo_case_t *c) {
  char what[48];
  atomic_word = c->initial;
  uint32_t old = c->run(&atomic_word, c->operand);
  snprintf(what, sizeof what, "%s returns the old word", c->name);
  COUPLET_REQUIRE(couplet_expect_u32(what, c->initial, old));
  snprintf(what, sizeof what, "%s 0x%08lx, 0x%08lx stores", c->name, (unsigned long)c->initial,
           (unsigned long)c->operand);
  COUPLET_REQUIRE(couplet_expect_u32(what, c->stored, atomic_word));
  return 0;
}

static uint32_t load_reserved(volatile uint32_t *word) {
  uint32_t value;
  __asm__ volatile("lr.w %0, (%1)" : "=r"(value) : "r"(word) : "memory");
  return value;
}

// 0 when the store happened, nonzero when it failed.
static uint32_t store_conditional(volatile uint32_t *word, uint32_t value) {
  uint32_t failed;
  __asm__ volatile("sc.w %0, %2, (%1)" : "=r"(failed) : "r"(word), "r"(value) : "memory");
  return failed;
}

static int check_lr_sc(void) {
  atomic_word = 100u;
  COUPLET_REQUIRE(couplet_expect_u32("lr.w reads the word", 100u, load_reserved(&atomic_word)));
  COUPLET_REQUIRE(couplet_expect_u32("sc.w after lr.w succeeds (0)", 0u, store_conditional(&atomic_word, 101u)));
  COUPLET_REQUIRE(couplet_expect_u32("sc.w stored its value", 101u, atomic_word));

  // Any SC ends the reservation, so a second SC has none left.
  COUPLET_REQUIRE(couplet_expect_true("second sc.w fails (nonzero)", store_conditional(&atomic_word, 102u) != 0u));
  COUPLET_REQUIRE(couplet_expect_u32("failed sc.w left the word alone", 101u, atomic_word));

  // A plain store to the reserved word also ends the reservation.
  (void)load_reserved(&atomic_word);
  atomic_word = 200u;
  COUPLET_REQUIRE(couplet_expect_true("sc.w after a store to the word fails", store_conditional(&atomic_word, 201u) != 0u));
  COUPLET_REQUIRE(couplet_expect_u32("the plain store survived", 200u, atomic_word));
  return 0;
}

static int check_a_extension(void) {
  // Expected values from Python: (initial op operand) & 0xffffffff, min/max signed or not.
  static const amo_case_t cases[] = {
      {"amoadd.w", op_amoadd_w, 0x000000f0u, 0x00000011u, 0x00000101u},
      {"amoadd.w", op_amoadd_w, 0xffffffffu, 0x00000002u, 0x00000001u},
      {"amoswap.w", op_amoswap_w, 0x12345678u, 0xcafef00du, 0xcafef00du},
      {"amoand.w", op_amoand_w, 0xff00ff00u, 0x0ff00ff0u, 0x0f000f00u},
      {"amoor.w", op_amoor_w, 0xff00ff00u, 0x0ff00ff0u, 0xfff0fff0u},
      {"amoxor.w", op_amoxor_w, 0xff00ff00u, 0x0ff00ff0u, 0xf0f0f0f0u},
      {"amomin.w", op_amomin_w, 0xfffffffbu, 0x00000003u, 0xfffffffbu},   // min(-5, 3) = -5
      {"amomin.w", op_amomin_w, 0x00000005u, 0xfffffffdu, 0xfffffffdu},   // min(5, -3) = -3
      {"amomax.w", op_amomax_w, 0xfffffffbu, 0x00000003u, 0x00000003u},   // max(-5, 3) = 3
      {"amominu.w", op_amominu_w, 0xfffffffbu, 0x00000003u, 0x00000003u},
      {"amomaxu.w", op_amomaxu_w, 0xfffffffbu, 0x00000003u, 0xfffffffbu},
  };
  printf("A extension\n");
  COUPLET_REQUIRE(check_lr_sc() == 0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    COUPLET_REQUIRE(check_amo(&cases[i]) == 0);
  }
  return 0;
}

// ------------------------------------------------------------------------------ C extension

// A function made only of compressed instructions (the c. mnemonics always encode in 16
// bits). It computes, for x in a0:
//   y = (((9x - 19) ^ 0x5000) & ~3 | 3) >> 1 (arithmetic); s = (5y) >> 2 (logical);
//   return s ? s : 0, passing s through the stack with c.swsp/c.lwsp.
uint32_t compressed_math(uint32_t x);
extern const char compressed_math_end[];

__asm__(
    "  .pushsection .text.compressed_math, \"ax\", @progbits\n"
    "  .balign 2\n"
    "  .globl compressed_math\n"
    "  .type compressed_math, @function\n"
    "compressed_math:\n"
    "  c.mv       a1, a0\n"
    "  c.slli     a1, 3\n"
    "  c.add      a1, a0\n"
    "  c.addi     a1, -7\n"
    "  c.li       a2, 12\n"
    "  c.sub      a1, a2\n"
    "  c.lui      a3, 5\n"
    "  c.xor      a1, a3\n"
    "  c.andi     a1, -4\n"
    "  c.li       a4, 3\n"
    "  c.or       a1, a4\n"
    "  c.srai     a1, 1\n"
    "  c.li       a5, 0\n"
    "  c.li       a4, 5\n"
    "1:\n"
    "  c.add      a5, a1\n"
    "  c.addi     a4, -1\n"
    "  c.bnez     a4, 1b\n"
    "  c.srli     a5, 2\n"
    "  c.beqz     a5, 2f\n"
    "  c.addi16sp sp, -16\n"
    "  c.swsp     a5, 12(sp)\n"
    "  c.lwsp     a0, 12(sp)\n"
    "  c.addi16sp sp, 16\n"
    "  c.j        3f\n"
    "2:\n"
    "  c.li       a0, 0\n"
    "3:\n"
    "  c.jr       ra\n"
    "  .globl compressed_math_end\n"
    "compressed_math_end:\n"
    "  .size compressed_math, . - compressed_math\n"
    "  .popsection\n");

// Instructions in compressed_math, each 2 bytes.
#define COMPRESSED_MATH_INSTRUCTIONS 26u

static int check_c_extension(void) {
  // Expected results from a Python model of the same instruction sequence.
  static const struct {
    uint32_t x, expected;
  } cases[] = {
      {0x00000000u, 0x3fffcdf4u},
      {0x00000001u, 0x3fffcdf9u},
      {0x00001234u, 0x00009859u},
      {0xfffffff0u, 0x3fffcd9au},
      {0x80000000u, 0x0fffcdf4u},
  };
  printf("C extension\n");
  uintptr_t size = (uintptr_t)compressed_math_end - (uintptr_t)compressed_math;
  COUPLET_REQUIRE(couplet_expect_u32("compressed_math is all 16-bit instructions (bytes)",
                                     2u * COMPRESSED_MATH_INSTRUCTIONS, (uint32_t)size));
  char what[48];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    snprintf(what, sizeof what, "compressed_math(0x%08lx)", (unsigned long)cases[i].x);
    COUPLET_REQUIRE(couplet_expect_u32(what, cases[i].expected, compressed_math(cases[i].x)));
  }
  return 0;
}

int main(void) {
  printf("test_isa: M, A and C extensions\n");
  COUPLET_REQUIRE(check_m_extension() == 0);
  COUPLET_REQUIRE(check_a_extension() == 0);
  COUPLET_REQUIRE(check_c_extension() == 0);
  printf("test_isa: PASS\n");
  return 0;
}
