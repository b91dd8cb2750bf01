// couplet simulator harness: loads a RISC-V ELF into the SoC's SRAM, runs until the firmware
// writes the exit register, forwards the console and reports cycles and instructions.
//
// Exit status: the firmware's exit code; 124 when --max-cycles ran out; 125 when the input
// was refused (not an ELF for this SoC) or the command line was wrong.

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "Vcouplet_sim_top.h"
#include "couplet/soc_config.h"
#include "svdpi.h"
#include "verilated.h"
// One model per waveform format: Verilator builds a model with one trace format at most, and
// tracing support costs speed, so the plain model has none (see couplet/simbuild.py).
#if VM_TRACE_FST
#include "verilated_fst_c.h"
using TraceFile = VerilatedFstC;
constexpr const char *kTraceSuffix = ".fst";
#elif VM_TRACE_VCD
#include "verilated_vcd_c.h"
using TraceFile = VerilatedVcdC;
constexpr const char *kTraceSuffix = ".vcd";
#else
constexpr const char *kTraceSuffix = "";
#endif
// Toggle coverage (couplet/energy.py) is a model of its own too: counting every bit's changes
// slows the model down, so only the "toggle" flavour has it.
#if VM_COVERAGE
#include "verilated_cov.h"
constexpr bool kCoverage = true;
#else
constexpr bool kCoverage = false;
#endif

// Exported from couplet_sram (DPI back door).
extern "C" void couplet_sram_write_word(unsigned int index, unsigned int data);

namespace {

constexpr int kExitTimeout = 124;
constexpr int kExitRefused = 125;
constexpr uint64_t kResetCycles = 4;

struct Options {
  std::string elf;
  std::string trace;
  std::string stats;
  std::string coverage;
  uint64_t max_cycles = 100000000;
};

[[noreturn]] void refuse(const std::string &message) {
  std::fprintf(stderr, "couplet-sim: error: %s\n", message.c_str());
  std::exit(kExitRefused);
}

void usage() {
  std::fprintf(stderr,
               "usage: couplet_sim [--max-cycles N] [--trace FILE.fst|FILE.vcd] [--stats FILE.json] "
               "[--coverage FILE.dat] ELF\n");
}

Options parse_args(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) refuse(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--max-cycles") {
      std::string text = value();
      char *end = nullptr;
      opt.max_cycles = std::strtoull(text.c_str(), &end, 0);
      if (text.empty() || *end != '\0' || opt.max_cycles == 0) refuse("--max-cycles takes a positive number");
    } else if (arg == "--trace") {
      opt.trace = value();
    } else if (arg == "--stats") {
      opt.stats = value();
    } else if (arg == "--coverage") {
      opt.coverage = value();
    } else if (arg == "-h" || arg == "--help") {
      usage();
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-' && arg.size() > 1 && arg.rfind("+", 0) != 0) {
      usage();
      refuse("unknown option " + arg);
    } else if (arg.rfind("+", 0) == 0) {
      // +plusargs belong to Verilator.
    } else if (opt.elf.empty()) {
      opt.elf = arg;
    } else {
      usage();
      refuse("more than one ELF given");
    }
  }
  if (opt.elf.empty()) {
    usage();
    refuse("no ELF given");
  }
  return opt;
}

// ---------------------------------------------------------------------------- ELF loading

uint16_t le16(const uint8_t *p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t *p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08" PRIx64, value);
  return buf;
}

// Builds the SRAM image from the PT_LOAD segments; refuses anything that is not a little-endian
// RISC-V 32-bit executable whose segments all fit the SRAM of this configuration.
std::vector<uint32_t> load_elf(const std::string &path, uint32_t *entry) {
  std::ifstream file(path, std::ios::binary);
  if (!file) refuse("cannot open " + path);
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string what = path + ": ";
  if (data.size() < 52 || std::memcmp(data.data(), "\x7f" "ELF", 4) != 0) refuse(what + "not an ELF file");
  if (data[4] != 1) refuse(what + "not a 32-bit ELF (ELFCLASS32 expected)");
  if (data[5] != 1) refuse(what + "not a little-endian ELF");
  if (le16(&data[18]) != 243) refuse(what + "not a RISC-V ELF (e_machine " + std::to_string(le16(&data[18])) + ")");
  if (le16(&data[16]) != 2) refuse(what + "not an executable (ET_EXEC expected; was it linked?)");
  *entry = le32(&data[24]);
  const uint32_t phoff = le32(&data[28]);
  const uint16_t phentsize = le16(&data[42]);
  const uint16_t phnum = le16(&data[44]);
  if (phentsize < 32 || static_cast<uint64_t>(phoff) + static_cast<uint64_t>(phnum) * phentsize > data.size()) {
    refuse(what + "program header table lies outside the file");
  }

  const uint64_t base = COUPLET_SRAM_BASE;
  const uint64_t size = COUPLET_SRAM_SIZE;
  std::vector<uint8_t> image(size, 0);
  int loaded = 0;
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint8_t *ph = &data[phoff + static_cast<size_t>(i) * phentsize];
    if (le32(ph) != 1) continue;  // PT_LOAD only
    const uint64_t offset = le32(ph + 4);
    const uint64_t paddr = le32(ph + 12);
    const uint64_t filesz = le32(ph + 16);
    const uint64_t memsz = le32(ph + 20);
    if (memsz == 0) continue;
    if (filesz > memsz || offset + filesz > data.size()) refuse(what + "segment " + std::to_string(i) + " is truncated");
    if (paddr < base || paddr + memsz > base + size) {
      refuse(what + "segment [" + hex(paddr) + ", " + hex(paddr + memsz) + ") does not fit the SRAM [" + hex(base) +
             ", " + hex(base + size) + ") of configuration '" COUPLET_SOC_NAME "'");
    }
    std::memcpy(&image[paddr - base], &data[offset], filesz);
    ++loaded;
  }
  if (loaded == 0) refuse(what + "has no loadable segments");
  if (*entry != COUPLET_SRAM_BASE) {
    refuse(what + "entry point " + hex(*entry) + " is not the boot address " + hex(COUPLET_SRAM_BASE) +
           " (linked for another configuration?)");
  }
  std::vector<uint32_t> words(size / 4);
  for (size_t w = 0; w < words.size(); ++w) words[w] = le32(&image[w * 4]);
  return words;
}

bool ends_with(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt = parse_args(argc, argv);
  if (!opt.coverage.empty() && !kCoverage) {
    refuse("--coverage: this model was built without toggle coverage; build the \"toggle\" flavour "
           "(couplet/simbuild.py) to write coverage data");
  }
  uint32_t entry = 0;
  std::vector<uint32_t> image = load_elf(opt.elf, &entry);

  if (!opt.trace.empty() && (kTraceSuffix[0] == '\0' || !ends_with(opt.trace, kTraceSuffix))) {
    refuse(std::string("--trace: this model writes ") + (kTraceSuffix[0] ? kTraceSuffix : "no") +
           " waveforms; couplet sim picks the model from the file name (.fst or .vcd)");
  }

  auto context = std::make_unique<VerilatedContext>();
  context->commandArgs(argc, argv);
  context->traceEverOn(!opt.trace.empty());
  auto top = std::make_unique<Vcouplet_sim_top>(context.get(), "TOP");

#if VM_TRACE
  std::unique_ptr<TraceFile> wave;
  if (!opt.trace.empty()) {
    wave = std::make_unique<TraceFile>();
    top->trace(wave.get(), 99);
    wave->open(opt.trace.c_str());
  }
  auto dump = [&](uint64_t time) {
    if (wave) wave->dump(time);
  };
#else
  auto dump = [](uint64_t) {};
#endif

  // Reset: high for the first evaluation, then low, then high (toolchain notes: starting at
  // 0 leaves flops behind CV32E40X's clock gate un-reset).
  top->clk_i = 0;
  top->rst_ni = 1;
  top->eval();
  const svScope sram_scope = svGetScopeFromName("TOP.couplet_sim_top.u_soc.u_sram");
  if (sram_scope == nullptr) refuse("internal: SRAM scope not found in the model");
  svSetScope(sram_scope);
  for (size_t w = 0; w < image.size(); ++w) couplet_sram_write_word(static_cast<unsigned>(w), image[w]);

  top->rst_ni = 0;
  uint64_t time = 0;
  uint64_t cycles = 0;
  bool exited = false;
  int exit_code = 0;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    if (cycles == kResetCycles) top->rst_ni = 1;
    top->clk_i = 1;
    top->eval();
    dump(time++);
    if (top->console_valid_o) {
      std::fputc(top->console_data_o, stdout);
      if (top->console_data_o == '\n') std::fflush(stdout);
    }
    if (top->exit_valid_o) {
      exited = true;
      exit_code = top->exit_code_o;
      break;
    }
    top->clk_i = 0;
    top->eval();
    dump(time++);
    ++cycles;
    if (cycles >= opt.max_cycles) break;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fflush(stdout);
  const uint64_t instret = top->minstret_o;
  top->final();
#if VM_TRACE
  if (wave) wave->close();
#endif
#if VM_COVERAGE
  // Written also after a timeout: the counts up to the stop are still what happened. Per
  // instance: by default the writer adds up the points of every instance of one module (the
  // three accelerator tiles would become one "g_tile[*]" count), and energy.py needs each
  // instance's own.
  if (!opt.coverage.empty()) {
    context->coveragep()->forcePerInstance(true);
    context->coveragep()->write(opt.coverage.c_str());
  }
#endif

  const double speed = seconds > 0 ? cycles / seconds : 0.0;
  if (exited) {
    std::fprintf(stderr,
                 "couplet-sim: exit code %d after %" PRIu64 " cycles, %" PRIu64
                 " instructions retired, %.2f s, %.3f M cycles/s\n",
                 exit_code, cycles, instret, seconds, speed / 1e6);
  } else {
    std::fprintf(stderr,
                 "couplet-sim: error: no exit after --max-cycles %" PRIu64 " (%" PRIu64
                 " instructions retired): stopped; the program may be stuck\n",
                 opt.max_cycles, instret);
  }
  if (!opt.stats.empty()) {
    std::FILE *out = std::fopen(opt.stats.c_str(), "w");
    if (out == nullptr) refuse("cannot write " + opt.stats);
    std::fprintf(out,
                 "{\"status\": \"%s\", \"exit_code\": %d, \"cycles\": %" PRIu64 ", \"instret\": %" PRIu64
                 ", \"seconds\": %.6f, \"cycles_per_second\": %.1f}\n",
                 exited ? "exit" : "timeout", exited ? exit_code : kExitTimeout, cycles, instret, seconds, speed);
    std::fclose(out);
  }
  return exited ? exit_code : kExitTimeout;
}
