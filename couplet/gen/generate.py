"""Generators: everything derived from a SoC configuration or a register description.

Per configuration (into ``build/<config>/gen``): the SystemVerilog package that sets the SoC
top's parameters, the C header with addresses and IRQ numbers, the linker script and the
memory-map page. Per IP (committed, checked by a test to be up to date): the register-offset
package, the C register header and the register table of the IP's doc.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from couplet import paths
from couplet.model.config import (AES_COUPLINGS, CUSTOM_OPCODES, KECCAK_COUPLINGS, KECCAK_ISE_CUSTOM, RTOS_COUPLINGS,
                                  AccelConfig, AesConfig, KeccakConfig, RtosConfig, SocConfig)
from couplet.model.regs import (ACCESS, FIELD_ACCESS, Enum, EnumValue, IpRegs, Param, ParamValue, RegsError,
                                load_ip_regs)

_Accel = TypeVar("_Accel", bound=AccelConfig)

# The core's fast interrupts (mip bits 16..31) are reserved for accelerators.
IRQ_MSI = 3
IRQ_MTI = 7
IRQ_MEI = 11
IRQ_FAST_FIRST = 16
IRQ_FAST_COUNT = 16

# Zkne/Zknd aes32* (opcode OP, funct3 0, funct7 = bs:2 | 10xx1): the bits that are fixed.
ZKN_MASK = 0x3200_707F
ZKN_MATCH = 0x2200_0033
# A custom-N port claims every R-type instruction of its major opcode.
OPCODE_MASK = 0x0000_007F
# The kc.* unit claims funct3 0..3 with funct7[6:5] = 0 of custom-1 (hw/ip/keccak/doc/ise.md), so
# the encodings it does not define are refused at issue and trap as illegal instructions.
KECCAK_ISE_MASK = 0xC000_407F


def data_slaves(config: SocConfig) -> list[str]:
    """Data-bus slave ports in decoder order: SRAM, then the peripherals as the config lists them."""
    return [r.name for r in config.regions]


# What a couplet_accel_tile can hold (its Kind, couplet_tile_pkg::accel_kind_e): the engines, which
# share one port list, and the stateless instruction units, which have the command port only.
TILE_KINDS = ("aes", "keccak", "rtos", "zkn", "keccak_ise")


@dataclass(frozen=True)
class Tile:
    """One couplet_accel_tile: an accelerator and the front doors its couplings need."""

    name: str  # the accelerator or unit (a TILE_KINDS name), and the name of its window and interrupt
    xif: bool  # tight, mem, zkn or ise: a CV-X-IF port
    regs: bool  # mmio or dma: the accelerator's register window
    dma_regs: bool  # dma: the DMA engine's descriptor window
    dma_engine: bool  # mem or dma: the tile has a DMA engine (a bus master)
    slice: bool = False  # a register stage in front of the engine's command port (register_slice)

    @property
    def dma_name(self) -> str:
        """The name of the tile's DMA window and interrupt ("dma" is the AES tile's, the first)."""
        return "dma" if self.name == "aes" else f"{self.name}_dma"

    @property
    def kind(self) -> str:
        """Its couplet_tile_pkg::accel_kind_e value."""
        return f"AccelKind{_camel(self.name)}"


def tiles(config: SocConfig) -> list[Tile]:
    """The tiles of a configuration: the engines in the order of their bus-master ports, then the
    stateless instruction units. A tile has the register windows its couplings need (config.py)."""
    windows = {r.name for r in config.peripherals}

    def tile(name: str, xif: bool, dma_engine: bool, slice_: bool = False) -> Tile:
        bare = Tile(name, xif, False, False, dma_engine, slice_)
        return replace(bare, regs=name in windows, dma_regs=bare.dma_name in windows)

    result: list[Tile] = []
    aes, keccak, rtos = config.aes, config.keccak, config.rtos
    if aes and any(aes.has(c) for c in ("tight", "mem", "mmio", "dma")):
        result.append(tile("aes", aes.needs_xif_port, aes.needs_dma_engine, aes.register_slice))
    if keccak and keccak.needs_accelerator:
        result.append(tile("keccak", keccak.needs_xif_port, keccak.needs_dma_engine, keccak.register_slice))
    if rtos:
        # The engine's descriptor registers are not mapped: no RTOS coupling programs them.
        result.append(tile("rtos", rtos.needs_xif_port, rtos.needs_dma_engine, rtos.register_slice))
    if aes and aes.has("zkn"):
        result.append(tile("zkn", True, False))
    if keccak and keccak.has("ise"):
        result.append(tile("keccak_ise", True, False))
    return result


def engine_params(config: SocConfig) -> dict[str, dict[str, ParamValue]]:
    """The build parameters of every engine with [[param]] entries, by IP: the configuration's
    where the SoC has the engine, the description's default where it has not."""
    given = {"aes": config.aes, "keccak": config.keccak, "rtos": config.rtos}
    result = {}
    for regs in param_ips():
        accel = given.get(regs.ip)
        result[regs.ip] = accel.params if accel else {p.name: p.default for p in regs.params}
    return result


def param_ips() -> list[IpRegs]:
    """The IPs whose descriptions have build parameters (the fields of accel_cfg_t), by name."""
    result = []
    for toml in sorted(paths.IP_DIR.glob("*/data/*.toml")):
        if toml.stem == toml.parent.parent.name:
            regs = load_ip_regs(toml.stem)
            if regs.params:
                result.append(regs)
    return result


def xif_ports(config: SocConfig) -> list[tuple[str, int, int]]:
    """(name, mask, match) of each CV-X-IF adapter port."""
    ports: list[tuple[str, int, int]] = []
    aes, keccak = config.aes, config.keccak
    if aes and aes.needs_xif_port:
        ports.append(("aes", OPCODE_MASK, CUSTOM_OPCODES[aes.custom]))
    if aes and aes.has("zkn"):
        ports.append(("zkn", ZKN_MASK, ZKN_MATCH))
    if keccak and keccak.needs_xif_port:
        ports.append(("keccak", OPCODE_MASK, CUSTOM_OPCODES[keccak.custom]))
    if keccak and keccak.has("ise"):
        ports.append(("keccak_ise", KECCAK_ISE_MASK, CUSTOM_OPCODES[KECCAK_ISE_CUSTOM]))
    if config.rtos and config.rtos.needs_xif_port:
        ports.append(("rtos", OPCODE_MASK, CUSTOM_OPCODES[config.rtos.custom]))
    return ports


def accel_irqs(config: SocConfig) -> list[str]:
    """Accelerator interrupt sources, in the order of the fast interrupt lines from 16."""
    irqs: list[str] = []
    for tile in tiles(config):
        if tile.regs:
            irqs.append(tile.name)
        if tile.dma_engine:
            irqs.append(tile.dma_name)
    return irqs


def _sv_array(width: str, values: list[int]) -> str:
    # Packed arrays list the highest index first.
    return "{" + ", ".join(f"{width}'h{v:0{int(width) // 4}X}" for v in reversed(values)) + "}"


def banner(comment: str, what: str) -> str:
    return (
        f"{comment} Generated by `couplet gen` from {what}. Do not edit: edit the source and regenerate.\n"
    )


def _hex(value: int) -> str:
    return f"0x{value:08X}"


def sv_param_value(regs: IpRegs, param: Param, value: ParamValue) -> str:
    """A parameter's value as a SystemVerilog constant of its field in <ip>_cfg_t."""
    if param.enum:
        value_name = next(v for v in param.enum.values if v.name == value)
        return f"{regs.ip}_reg_pkg::{sv_enum_value(regs, param.enum, value_name)}"
    if param.subset:
        return f"{param.width}'b{param.encode(value):0{param.width}b}"
    return f"{param.width}'d{param.encode(value)}"


def sv_accel_cfg(values: dict[str, dict[str, ParamValue]]) -> str:
    """An accel_cfg_t constant: the parameters of each engine, by IP and parameter name (one
    engine a line)."""
    parts = []
    for regs in param_ips():
        fields = ", ".join(f"{p.name}: {sv_param_value(regs, p, values[regs.ip][p.name])}" for p in regs.params)
        parts.append(f"    {regs.ip}: '{{{fields}}}")
    return "'{\n" + ",\n".join(parts) + "\n  }"


# --- per configuration ------------------------------------------------------------------------


def sv_config_package(config: SocConfig) -> str:
    lines = [
        banner("//", f"configs/{config.path.name}"),
        "// SoC parameters of configuration '" + config.name + "'.",
        "package couplet_soc_cfg_pkg;",
        f"  localparam int unsigned ClockHz      = {config.clock_hz};",
        f"  localparam int unsigned MtimeDivider = {config.mtime_divider};",
        f"  localparam logic [31:0] BootAddr     = 32'h{config.boot_addr:08X};",
        f"  localparam logic [31:0] MtvecAddr    = 32'h{config.mtvec_addr:08X};",
    ]
    # The SRAM also serves instruction fetches; every other region is only in the arrays below.
    lines.append(f"  localparam logic [31:0] SramBase     = 32'h{config.sram.base:08X};")
    lines.append(f"  localparam logic [31:0] SramSize     = 32'h{config.sram.size:08X};")
    slaves = data_slaves(config)
    regions = {r.name: r for r in config.regions}
    lines += [
        "",
        "  // Data-bus slave ports of the address decoder, in port order.",
        f"  localparam int unsigned NumDataSlaves = {len(slaves)};",
        f"  localparam logic [NumDataSlaves-1:0][31:0] DataBase = {_sv_array('32', [regions[n].base for n in slaves])};",
        f"  localparam logic [NumDataSlaves-1:0][31:0] DataSize = {_sv_array('32', [regions[n].size for n in slaves])};",
        f"  localparam logic [NumDataSlaves-1:0] DataAtomics = {len(slaves)}'b{'0' * (len(slaves) - 1)}1;  // SRAM only",
    ]
    for name in ("sram", "clint", "simctrl"):
        lines.append(f"  localparam int unsigned DataIdx{name.capitalize()} = {slaves.index(name)};")
    ports = xif_ports(config)
    port_names = [p[0] for p in ports]
    irqs = accel_irqs(config)
    tile_list = tiles(config)
    engines = [t for t in tile_list if t.dma_engine]
    lines += [
        "",
        "  // CV-X-IF adapter ports: an instruction goes to the first port whose mask/match it fits.",
        f"  localparam int unsigned NumXifPorts = {len(ports)};",
        f"  localparam int unsigned XifArrayLen = {max(1, len(ports))};  // NumXifPorts, at least 1 for the array types",
        f"  localparam logic [XifArrayLen-1:0][31:0] XifMask = {_sv_array('32', [p[1] for p in ports] or [0])};",
        f"  localparam logic [XifArrayLen-1:0][31:0] XifMatch = {_sv_array('32', [p[2] for p in ports] or [0])};",
        "",
        "  // Build parameters of the engines, typed by their descriptions (hw/ip/<ip>/data/<ip>.toml,",
        "  // [[param]]), under the names of the [accelerator.*] tables. An engine this SoC does not",
        "  // have keeps its description's defaults; every tile takes AccelCfg and uses its own part.",
        f"  localparam couplet_tile_pkg::accel_cfg_t AccelCfg = {sv_accel_cfg(engine_params(config))};",
        "",
        "  // Accelerator tiles (couplet_accel_tile), one per engine or instruction unit: kind, front",
        "  // doors, and the index each front door has in the adapter ports, data-bus slaves, interrupt",
        "  // lines (line n drives mip bit 16 + n) and DMA bus masters (master 0 is the core).",
        f"  localparam int unsigned NumTiles = {len(tile_list)};",
        f"  localparam int unsigned TileArrayLen = {max(1, len(tile_list))};  // NumTiles, at least 1",
        f"  localparam int unsigned NumDmaEngines = {len(engines)};",
    ]
    def tile_array(name: str, values: list[int], comment: str, width: int = 8) -> str:
        values = values or [0]
        return (f"  localparam logic [TileArrayLen-1:0][{width - 1}:0] {name} = "
                f"{_sv_array(str(width), values)};  // {comment}")

    def tile_bits(name: str, values: list[bool]) -> str:
        bits = "".join(str(int(v)) for v in reversed(values or [False]))
        return f"  localparam logic [TileArrayLen-1:0] {name} = {len(bits)}'b{bits};"

    kinds = ", ".join(f"couplet_tile_pkg::{t.kind}" for t in reversed(tile_list)) or "couplet_tile_pkg::AccelKindAes"
    lines += [
        f"  localparam couplet_tile_pkg::accel_kind_e [TileArrayLen-1:0] TileKind = '{{{kinds}}};",
        tile_bits("TileXif", [t.xif for t in tile_list]),
        tile_bits("TileRegs", [t.regs for t in tile_list]),
        tile_bits("TileDmaRegs", [t.dma_regs for t in tile_list]),
        tile_bits("TileDmaEngine", [t.dma_engine for t in tile_list]),
        tile_bits("TileSlice", [t.slice for t in tile_list]),
        tile_array("TileXifIdx", [port_names.index(t.name) if t.xif else 0 for t in tile_list], "adapter port"),
        tile_array("TileRegsIdx", [slaves.index(t.name) if t.regs else 0 for t in tile_list], "data-bus slave"),
        tile_array("TileDmaRegsIdx", [slaves.index(t.dma_name) if t.dma_regs else 0 for t in tile_list],
                   "data-bus slave"),
        tile_array("TileIrqIdx", [irqs.index(t.name) if t.regs else 0 for t in tile_list], "interrupt line"),
        tile_array("TileDmaIrqIdx", [irqs.index(t.dma_name) if t.dma_engine else 0 for t in tile_list],
                   "interrupt line"),
        tile_array("TileMasterIdx", [1 + engines.index(t) if t.dma_engine else 0 for t in tile_list],
                   "bus master"),
    ]
    lines.append("endpackage")
    return "\n".join(lines) + "\n"


def c_config_header(config: SocConfig) -> str:
    lines = [
        banner("//", f"configs/{config.path.name}"),
        "#ifndef COUPLET_SOC_CONFIG_H_",
        "#define COUPLET_SOC_CONFIG_H_",
        "",
        f'#define COUPLET_SOC_NAME "{config.name}"',
        f"#define COUPLET_CLOCK_HZ {config.clock_hz}u",
        f"#define COUPLET_MTIME_HZ {config.mtime_hz}u",
        "",
    ]
    for region in config.regions:
        upper = region.name.upper()
        lines.append(f"#define COUPLET_{upper}_BASE {_hex(region.base)}u")
        lines.append(f"#define COUPLET_{upper}_SIZE {_hex(region.size)}u")
    lines += [
        f"#define COUPLET_STACK_SIZE {_hex(config.stack_size)}u",
        "",
        "// Interrupt numbers: bit positions in mie/mip and mcause codes of interrupts.",
        f"#define COUPLET_IRQ_SOFTWARE {IRQ_MSI}u",
        f"#define COUPLET_IRQ_TIMER {IRQ_MTI}u",
        f"#define COUPLET_IRQ_EXTERNAL {IRQ_MEI}u",
        f"#define COUPLET_IRQ_ACCEL_FIRST {IRQ_FAST_FIRST}u",
        f"#define COUPLET_IRQ_ACCEL_COUNT {IRQ_FAST_COUNT}u",
    ]
    for index, name in enumerate(accel_irqs(config)):
        lines.append(f"#define COUPLET_IRQ_{name.upper()} {IRQ_FAST_FIRST + index}u")
    lines += [
        "",
        *_c_accel_lines("// AES accelerator: which couplings this SoC has (couplet/aes.h picks the backends).",
                        config.aes, "AES", "AES", AES_COUPLINGS, _c_aes_own),
        "",
        *_c_accel_lines("// Keccak accelerator and kc.* unit: which SHA-3 backends this SoC has (couplet/sha3.h).",
                        config.keccak, "KECCAK", "SHA3", KECCAK_COUPLINGS, _c_keccak_own),
        "",
        *_c_accel_lines("// RTOS accelerator: its couplings and build parameters (couplet/rtos_hw.h).",
                        config.rtos, "RTOS", "RTOS", RTOS_COUPLINGS, _c_rtos_own),
        "",
        "#endif  // COUPLET_SOC_CONFIG_H_",
    ]
    return "\n".join(lines) + "\n"


def _c_accel_lines(comment: str, accel: _Accel | None, ip: str, api: str, couplings: tuple[str, ...],
                   own: Callable[[_Accel], list[str]]) -> list[str]:
    """What the C API needs of an accelerator: whether the SoC has it; for each coupling whether
    the backend of that name is there (a coupling brings the one it is built on,
    AccelConfig.reachable); its opcode, default backend and `own` lines where it is present."""
    lines = [comment, f"#define COUPLET_{ip}_PRESENT {int(accel is not None)}"]
    for coupling in couplings:
        present = bool(accel and coupling in accel.backends)
        lines.append(f"#define COUPLET_{api}_HAS_{coupling.upper()} {int(present)}")
    if accel:
        lines += [
            f"#define COUPLET_{ip}_CUSTOM_OPCODE 0x{CUSTOM_OPCODES[accel.custom]:02x}",
            f"#define COUPLET_{api}_DEFAULT_BACKEND COUPLET_{api}_BACKEND_{accel.default_backend.upper()}",
            *own(accel),
        ]
    return lines


def _c_aes_own(aes: AesConfig) -> list[str]:
    key_sizes = load_ip_regs("aes").param("key_sizes").encode(aes.key_sizes)
    return [f'#define COUPLET_AES_ARCH "{aes.arch}"',
            "// What the engine refuses (couplet/aes.h answers COUPLET_ERR_UNSUPPORTED_MODE and",
            "// COUPLET_ERR_UNSUPPORTED_KEY_SIZE before touching it): the inverse cipher (ECB and CBC",
            "// decryption), and the key sizes, bit AES_KEY_LEN_<bits> set for each one built.",
            f"#define COUPLET_AES_ENGINE_DECRYPT {int(aes.decrypt)}",
            f"#define COUPLET_AES_ENGINE_KEY_SIZES 0x{key_sizes:x}u",
            "// The GHASH multiplier's bits per cycle (the modes GCM and GHASH); 0: none.",
            f"#define COUPLET_AES_ENGINE_GHASH_BITS {aes.ghash_bits}"]


def _c_keccak_own(keccak: KeccakConfig) -> list[str]:
    return [f"#define COUPLET_KECCAK_ROUNDS_PER_CYCLE {keccak.rounds_per_cycle}",
            f"#define COUPLET_KECCAK_ISE_OPCODE 0x{CUSTOM_OPCODES[KECCAK_ISE_CUSTOM]:02x}"]


def _c_rtos_own(rtos: RtosConfig) -> list[str]:
    return [
        f"#define COUPLET_RTOS_MAX_THREADS {rtos.max_threads}u",
        f"#define COUPLET_RTOS_PRIORITIES {rtos.priorities}u",
        f"#define COUPLET_RTOS_PRIORITY_ASCENDING {int(rtos.ascending)}",
        f"#define COUPLET_RTOS_PRIORITY_INHERITANCE {int(rtos.priority_inheritance)}",
        f"#define COUPLET_RTOS_MUTEXES {rtos.mutexes}u",
        f"#define COUPLET_RTOS_SEMAPHORES {rtos.semaphores}u",
        f"#define COUPLET_RTOS_QUEUES {rtos.queues}u",
        f"#define COUPLET_RTOS_MESSAGE_WORDS {rtos.message_words}u",
        f"#define COUPLET_RTOS_QUEUE_DEPTH {rtos.queue_depth}u",
        f"#define COUPLET_RTOS_CONFIG_WORD 0x{rtos.param_word:08x}u  // what CONFIG reads",
    ]


def linker_script(config: SocConfig) -> str:
    sram = config.sram
    return (
        banner("/*", f"configs/{config.path.name}").rstrip("\n")
        + " */\n"
        + f"""/* Everything runs from SRAM: the simulator (or a boot loader) places each PT_LOAD segment. */
OUTPUT_ARCH(riscv)
ENTRY(_start)

MEMORY
{{
  sram (rwx) : ORIGIN = {_hex(sram.base)}, LENGTH = {_hex(sram.size)}
}}

__stack_size = {_hex(config.stack_size)};

SECTIONS
{{
  . = {_hex(config.boot_addr)};
  .text : {{
    KEEP(*(.text.start))
    *(.text.unlikely .text.unlikely.*)
    *(.text.startup .text.startup.*)
    *(.text .text.*)
  }} > sram

  .rodata : {{
    *(.rodata .rodata.*)
    *(.srodata .srodata.*)
    . = ALIGN(4);
    PROVIDE_HIDDEN(__init_array_start = .);
    KEEP(*(SORT_BY_INIT_PRIORITY(.init_array.*)))
    KEEP(*(.init_array))
    PROVIDE_HIDDEN(__init_array_end = .);
    PROVIDE_HIDDEN(__fini_array_start = .);
    KEEP(*(SORT_BY_INIT_PRIORITY(.fini_array.*)))
    KEEP(*(.fini_array))
    PROVIDE_HIDDEN(__fini_array_end = .);
  }} > sram

  .data : ALIGN(8) {{
    *(.data .data.*)
    . = ALIGN(8);
    PROVIDE(__global_pointer$ = . + 0x800);
    *(.sdata .sdata.*)
  }} > sram

  /* picolibc keeps errno and friends thread-local: tp points at __tls_base. */
  .tdata : ALIGN(8) {{
    PROVIDE(__tls_base = .);
    *(.tdata .tdata.*)
  }} > sram
  .tbss (NOLOAD) : ALIGN(8) {{
    *(.tbss .tbss.*)
    *(.tcommon)
  }} > sram
  /* The linker does not advance '.' over .tbss; make room for it explicitly. */
  .tbss_space (NOLOAD) : {{
    . = ADDR(.tbss) + SIZEOF(.tbss);
  }} > sram

  .bss (NOLOAD) : ALIGN(8) {{
    __bss_start = .;
    *(.sbss .sbss.*)
    *(.bss .bss.*)
    *(COMMON)
    . = ALIGN(8);
    __bss_end = .;
  }} > sram
  PROVIDE(__tbss_start = ADDR(.tbss));

  __heap_start = ALIGN(__bss_end, 16);
  __stack_top = ORIGIN(sram) + LENGTH(sram);
  __stack_bottom = __stack_top - __stack_size;
  __heap_end = __stack_bottom;
  ASSERT(__heap_start <= __heap_end, "couplet: program and stack do not fit in the SRAM")
  ASSERT(_start == {_hex(config.boot_addr)}, "couplet: _start must be at the boot address")

  /DISCARD/ : {{
    *(.note .note.*)
    *(.eh_frame .eh_frame.*)
    *(.riscv.attributes)
  }}
}}
"""
    )


def memory_map_markdown(config: SocConfig) -> str:
    lines = [
        banner("<!--", f"configs/{config.path.name}").rstrip("\n") + " -->",
        f"# Memory map of configuration `{config.name}`",
        "",
        config.description + ".",
        "",
        f"Clock: {config.clock_hz / 1e6:g} MHz. mtime counts at {config.mtime_hz / 1e6:g} MHz "
        f"(divider {config.mtime_divider}). Boot address `{_hex(config.boot_addr)}`.",
        "",
        "| region | base | end (exclusive) | size | what |",
        "|---|---|---|---|---|",
    ]
    for region in sorted(config.regions, key=lambda r: r.base):
        lines.append(
            f"| {region.name} | `{_hex(region.base)}` | `{_hex(region.end)}` | "
            f"{_size(region.size)} | {region.description} |"
        )
    lines += [
        "",
        "Any other address answers with a bus error. CV32E40X turns a data bus error into an",
        "imprecise non-maskable interrupt (mcause `0x80000400` load, `0x80000401` store, taken at",
        "`mtvec + 0x3C`) and an instruction fetch bus error into exception 48 (`0x30`). Instruction",
        "fetches are served by the SRAM only.",
        "",
        f"The top {_size(config.stack_size)} of the SRAM hold the stack; the heap runs from the end",
        "of `.bss` up to the stack.",
        "",
        "## Interrupts",
        "",
        "| mcause / mie bit | source |",
        "|---|---|",
        f"| {IRQ_MSI} | machine software interrupt (CLINT `msip`) |",
        f"| {IRQ_MTI} | machine timer interrupt (CLINT `mtime >= mtimecmp`) |",
    ]
    irqs = accel_irqs(config)
    for index, name in enumerate(irqs):
        lines.append(f"| {IRQ_FAST_FIRST + index} | {name} accelerator/engine done |")
    first_free = IRQ_FAST_FIRST + len(irqs)
    lines += [
        f"| {first_free}..{IRQ_FAST_FIRST + IRQ_FAST_COUNT - 1} | reserved for accelerators |",
        "",
    ]
    if config.aes or config.keccak or config.rtos:
        lines += ["## Accelerators", ""]
    if config.aes:
        aes = config.aes
        lines.append(f"- AES ({aes.arch}), couplings: {', '.join(aes.couplings)}; "
                     f"`couplet_aes_init()` uses the `{aes.default_backend}` backend.")
        if aes.needs_xif_port:
            lines.append(f"  Custom instructions of the tight/mem couplings use {_md_custom(aes.custom)}.")
    if config.keccak:
        keccak = config.keccak
        lines.append(f"- Keccak ({keccak.rounds_per_cycle} round(s) per cycle), couplings: "
                     f"{', '.join(keccak.couplings)}; `couplet_sha3_init()` uses the "
                     f"`{keccak.default_backend}` backend.")
        if keccak.needs_xif_port:
            lines.append(f"  Custom instructions of the tight/mem couplings use {_md_custom(keccak.custom)}.")
        if keccak.has("ise"):
            lines.append(f"  The kc.* instructions (ise coupling) use {_md_custom(KECCAK_ISE_CUSTOM)}.")
    if config.rtos:
        rtos = config.rtos
        lines.append(f"- RTOS kernel services ({rtos.max_threads} threads, {rtos.priorities} priorities "
                     f"{'ascending' if rtos.ascending else 'descending'}, {rtos.mutexes} mutexes"
                     f"{' with priority inheritance' if rtos.priority_inheritance else ''}, "
                     f"{rtos.semaphores} semaphores, {rtos.queues} queues of {rtos.queue_depth} x "
                     f"{rtos.message_words} words), couplings: {', '.join(rtos.couplings)}; the "
                     f"kernel-offload layer uses the `{rtos.default_backend}` backend.")
        if rtos.needs_xif_port:
            lines.append(f"  Its custom instructions use {_md_custom(rtos.custom)}.")
    if config.aes or config.keccak or config.rtos:
        lines.append("")
    for region in config.peripherals:
        regs = config.ip_regs[region.name]
        lines += [f"## {region.name} registers (base `{_hex(region.base)}`)", ""]
        lines += _reg_table(regs, region.base)
    return "\n".join(lines)


def _md_custom(index: int) -> str:
    return f"custom-{index} (opcode 0x{CUSTOM_OPCODES[index]:02x})"


def _size(size: int) -> str:
    if size % 1024 == 0:
        return f"{size // 1024} KiB"
    return f"{size} B"


def _reg_table(regs: IpRegs, base: int) -> list[str]:
    lines = ["| register | offset | address | access | description |", "|---|---|---|---|---|"]
    for reg in regs.regs:
        if reg.count == 1:
            name, offset, address = f"`{reg.name.upper()}`", f"`0x{reg.offset:04X}`", f"`{_hex(base + reg.offset)}`"
        else:
            last = reg.end - 4
            name = f"`{reg.name.upper()}0`..`{reg.name.upper()}{reg.count - 1}`"
            offset = f"`0x{reg.offset:04X}`-`0x{last:04X}`"
            address = f"`{_hex(base + reg.offset)}`-`{_hex(base + last)}`"
        lines.append(f"| {name} | {offset} | {address} | {ACCESS[reg.access]} | {reg.description} |")
    return lines + [""]


def write_config_outputs(config: SocConfig, out_dir: Path) -> dict[str, Path]:
    """Write the per-configuration files; only touch a file whose content changes."""
    outputs = {
        "sv_pkg": (out_dir / "rtl" / "couplet_soc_cfg_pkg.sv", sv_config_package(config)),
        "c_header": (out_dir / "include" / "couplet" / "soc_config.h", c_config_header(config)),
        "linker": (out_dir / "link.ld", linker_script(config)),
        "memory_map": (out_dir / "memory-map.md", memory_map_markdown(config)),
    }
    for path, text in outputs.values():
        write_if_changed(path, text)
    return {key: path for key, (path, _) in outputs.items()}


# --- per IP -----------------------------------------------------------------------------------


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def sv_enum_value(regs: IpRegs, enum: Enum, value: EnumValue) -> str:
    """The SystemVerilog name of a value: AesModeEcb for value ecb of set mode of aes."""
    return f"{_camel(regs.ip)}{_camel(enum.name)}{_camel(value.name)}"


def sv_reg_package(regs: IpRegs) -> str:
    width = max(r.end - 4 for r in regs.regs).bit_length() or 1
    ip = regs.ip.upper()
    lines = [banner("//", f"hw/ip/{regs.ip}/data/{regs.ip}.toml"), f"package {regs.ip}_reg_pkg;"]
    for reg in regs.regs:
        lines.append(
            f"  localparam logic [{width - 1}:0] {ip}_{reg.name.upper()}_OFFSET = "
            f"{width}'h{reg.offset:X};"
        )
        if reg.count > 1:
            lines.append(f"  localparam int unsigned {ip}_{reg.name.upper()}_COUNT = {reg.count};")
    for enum in regs.enums:
        lines += ["", f"  // {enum.description}", f"  typedef enum logic [{enum.width - 1}:0] {{"]
        for i, value in enumerate(enum.values):
            comma = "," if i + 1 < len(enum.values) else ""
            lines.append(f"    // {value.description}")
            lines.append(f"    {sv_enum_value(regs, enum, value)} = {enum.width}'h{value.value:X}{comma}")
        lines.append(f"  }} {regs.ip}_{enum.name}_e;")
    with_fields = [r for r in regs.regs if r.fields]
    ranged = [p for p in regs.params if not p.values and not p.enum and not p.subset and not p.is_bool]
    if with_fields or regs.consts or ranged:
        # A user of the package reads the fields and constants it needs, so most go unused in each.
        lines += ["", "  /* verilator lint_off UNUSEDPARAM */"]
    for const in regs.consts:
        lines += [f"  // {const.description}",
                  f"  localparam logic [{const.width - 1}:0] {ip}_{const.name.upper()} = "
                  f"{const.width}'h{const.value:X};"]
    if ranged:
        lines.append("  // Build parameters' ranges ([[param]] min and max): the engine checks its own against them.")
    for param in ranged:
        name = f"{ip}_PARAM_{param.name.upper()}"
        lines += [f"  localparam int unsigned {name}_MIN = {param.low};",
                  f"  localparam int unsigned {name}_MAX = {param.high};"]
    acting = [r for r in with_fields if any(f.action for f in r.fields)]
    for reg in acting:
        mask = sum(f.mask for f in reg.fields if f.action)
        lines += [f"  // {reg.name.upper()}'s fields that run an action: bit i runs action i.",
                  f"  localparam logic [31:0] {ip}_{reg.name.upper()}_ACTIONS = 32'h{mask:X};"]
    if with_fields:
        lines.append("  // Field positions: _BIT of a one-bit field, _LSB and _WIDTH of a wider one.")
        for reg in with_fields:
            for f in reg.fields:
                name = f"{ip}_{reg.name.upper()}_{f.name.upper()}"
                if f.width == 1:
                    lines.append(f"  localparam int unsigned {name}_BIT = {f.lsb};")
                else:
                    lines.append(f"  localparam int unsigned {name}_LSB = {f.lsb};")
                    lines.append(f"  localparam int unsigned {name}_WIDTH = {f.width};")
    if with_fields or regs.consts or ranged:
        lines.append("  /* verilator lint_on UNUSEDPARAM */")
    for reg in with_fields:
        lines += ["", f"  // {reg.name.upper()} up to its highest field.", "  typedef struct packed {"]
        bit = max(f.msb for f in reg.fields)
        for f in sorted(reg.fields, key=lambda f: -f.msb):
            if f.msb < bit:
                lines.append(f"    logic [{bit}:{f.msb + 1}] rsvd{f.msb + 1};")
            kind = f"{regs.ip}_{f.enum}_e" if f.enum else ("logic" if f.width == 1 else f"logic [{f.width - 1}:0]")
            lines.append(f"    {kind} {f.name};  // [{f.bits}]")
            bit = f.lsb - 1
        if bit >= 0:
            lines.append(f"    logic [{bit}:0] rsvd0;")
        lines.append(f"  }} {regs.ip}_{reg.name}_reg_t;")
    if acting:
        actions = regs.enum("action")
        lines += ["", "  // The actions a command asks for, one bit each at its value (bit i: action i).",
                  "  typedef struct packed {"]
        lines += [f"    logic {v.name};" for v in sorted(actions.values, key=lambda v: -v.value)]
        lines.append(f"  }} {regs.ip}_actions_t;")
    if regs.params:
        lines += ["", "  // Build parameters of the engine, as a SoC configuration sets them ([[param]]).",
                  "  typedef struct packed {"]
        for param in regs.params:
            kind = f"{regs.ip}_{param.enum.name}_e" if param.enum else (
                "logic" if param.width == 1 else f"logic [{param.width - 1}:0]")
            lines.append(f"    {kind} {param.name};  // {param.engine}: {param.legal}")
        lines.append(f"  }} {regs.ip}_cfg_t;")
    lines.append("endpackage")
    return "\n".join(lines) + "\n"


def c_reg_header(regs: IpRegs) -> str:
    guard = f"COUPLET_AUTOGEN_{regs.ip.upper()}_REGS_H_"
    ip = regs.ip.upper()
    lines = [
        banner("//", f"hw/ip/{regs.ip}/data/{regs.ip}.toml"),
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        f"// {regs.description}",
    ]
    names: list[str] = []

    def define(name: str, value: str, comment: str = "") -> None:
        names.append(name)
        if comment:
            lines.append(f"// {comment}")
        lines.append(f"#define {name} {value}")

    lines.append("")
    lines.append("// _OFFSET: the byte offset in the register window; _INDEX: the word index, offset / 4 (the")
    lines.append("// command port's `index`, by which the custom instructions name a register).")
    for reg in regs.regs:
        define(f"{ip}_{reg.name.upper()}_OFFSET", f"0x{reg.offset:04X}u")
        define(f"{ip}_{reg.name.upper()}_INDEX", f"{reg.offset // 4}u")
        if reg.count > 1:
            define(f"{ip}_{reg.name.upper()}_COUNT", f"{reg.count}u")
    if regs.consts:
        lines.append("")
    for const in regs.consts:
        define(f"{ip}_{const.name.upper()}", f"0x{const.value:X}u", const.description)
    with_fields = [r for r in regs.regs if r.fields]
    if with_fields:
        lines += ["", "// Fields: _SHIFT is the lowest bit, _MASK the field's bits in place."]
    for reg in with_fields:
        for f in reg.fields:
            name = f"{ip}_{reg.name.upper()}_{f.name.upper()}"
            define(f"{name}_SHIFT", f"{f.lsb}u")
            define(f"{name}_MASK", f"0x{f.mask:08X}u")
    if regs.params:
        lines += ["", "// Build parameters ([[param]]): the legal values a SoC configuration may give."]
    for param in regs.params:
        name = f"{ip}_PARAM_{param.name.upper()}"
        if param.values:
            items = " \\\n".join(f"  X({v})" for v in param.values)
            define(f"{name}_LIST(X)", "\\\n" + items, f"{param.description} X(value) for each value")
        elif not param.enum and not param.subset and not param.is_bool:
            define(f"{name}_MIN", f"{param.low}u", param.description)
            define(f"{name}_MAX", f"{param.high}u")
    for enum in regs.enums:
        lines += ["", f"// {enum.description}"]
        for value in enum.values:
            define(f"{ip}_{enum.name.upper()}_{value.name.upper()}", f"0x{value.value:X}u", value.description)
        items = " \\\n".join(f"  X({v.name}, {ip}_{enum.name.upper()}_{v.name.upper()})" for v in enum.values)
        define(f"{ip}_{enum.name.upper()}_LIST(X)", "\\\n" + items, "X(name, value) for each value")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RegsError(f"hw/ip/{regs.ip}/data/{regs.ip}.toml: C names defined twice: {', '.join(dup)}")
    lines += ["", f"#endif  // {guard}"]
    return "\n".join(lines) + "\n"


def reg_doc(regs: IpRegs) -> str:
    lines = [
        banner("<!--", f"hw/ip/{regs.ip}/data/{regs.ip}.toml").rstrip("\n") + " -->",
        f"# {regs.ip} registers",
        "",
        regs.description,
        "",
        f"Register window: 0x{regs.span:X} bytes. Word accesses only, except where a register says",
        "otherwise; an offset with no register answers with a bus error.",
        "",
    ]
    lines += _reg_table(regs, 0)
    for reg in regs.regs:
        if not reg.fields:
            continue
        lines += [f"## {reg.name.upper()} fields", "", f"Reset value `{_hex(reg.reset)}`.", "",
                  "| bits | field | access | reset | description |", "|---|---|---|---|---|"]
        for f in sorted(reg.fields, key=lambda f: -f.lsb):
            values = f" Values: {f.enum} (below)." if f.enum else ""
            lines.append(f"| {f.bits} | `{f.name.upper()}` | {FIELD_ACCESS[f.access]} | 0x{f.reset:X} | "
                         f"{f.description}{values} |")
        lines.append("")
    if regs.params:
        lines += ["## Build parameters", "",
                  f"Set by a SoC configuration (`[accelerator.{regs.ip}]`, docs/configuration.md) under these",
                  f"names; the SoC hands them to the engine's parameters typed (`{regs.ip}_cfg_t`).", "",
                  "| parameter | engine parameter | legal values | default | description |", "|---|---|---|---|---|"]
        for param in regs.params:
            default = (str(param.default).lower() if param.is_bool else
                       ", ".join(map(str, param.default)) if isinstance(param.default, tuple) else param.default)
            lines.append(f"| `{param.name}` | `{param.engine}` | {param.legal} | `{default}` | {param.description} |")
        lines.append("")
    if regs.consts:
        lines += ["## Constants", "", "| name | value | description |", "|---|---|---|"]
        lines += [f"| `{c.name.upper()}` | 0x{c.value:X} | {c.description} |" for c in regs.consts]
        lines.append("")
    for enum in regs.enums:
        lines += [f"## Values: {enum.name}", "", f"{enum.description} ({enum.width} bits.)", "",
                  "| value | name | description |", "|---|---|---|"]
        for value in enum.values:
            lines.append(f"| 0x{value.value:X} | `{value.name.upper()}` | {value.description} |")
        lines.append("")
    return "\n".join(lines)


def ip_outputs(regs: IpRegs) -> dict[Path, str]:
    ip_dir = paths.IP_DIR / regs.ip
    return {
        ip_dir / "rtl" / "autogen" / f"{regs.ip}_reg_pkg.sv": sv_reg_package(regs),
        paths.SW_DIR / "include" / "couplet" / "autogen" / f"{regs.ip}_regs.h": c_reg_header(regs),
        ip_dir / "doc" / "autogen" / "registers.md": reg_doc(regs),
    }


TILE_PACKAGE = paths.IP_DIR / "coupling" / "rtl" / "autogen" / "couplet_tile_pkg.sv"


def sv_tile_package() -> str:
    """What a tile can hold and the typed build parameters of every engine (couplet_tile_pkg)."""
    engines = param_ips()
    lines = [
        banner("//", "couplet/gen/generate.py (TILE_KINDS) and the [[param]] entries of hw/ip/*/data/*.toml"),
        "// What an accelerator tile (couplet_accel_tile) holds, and the build parameters of every engine,",
        "// typed as their descriptions give them: the SoC package sets one accel_cfg_t (AccelCfg).",
        "package couplet_tile_pkg;",
        "  typedef enum int unsigned {",
    ]
    for i, kind in enumerate(TILE_KINDS):
        comma = "," if i + 1 < len(TILE_KINDS) else ""
        lines.append(f"    AccelKind{_camel(kind)} = {i}{comma}")
    lines += ["  } accel_kind_e;", "", "  typedef struct packed {"]
    lines += [f"    {regs.ip}_reg_pkg::{regs.ip}_cfg_t {regs.ip};" for regs in engines]
    lines += ["  } accel_cfg_t;", "",
              "  // Every engine's defaults: a tile's parameter until the SoC sets it.",
              f"  localparam accel_cfg_t AccelCfgDefault = "
              f"{sv_accel_cfg({r.ip: {p.name: p.default for p in r.params} for r in engines})};",
              "endpackage"]
    return "\n".join(lines) + "\n"


def committed_outputs(config: SocConfig) -> dict[Path, str]:
    """Generated files that live in the repository, with the text they must have."""
    outputs: dict[Path, str] = {}
    for regs in config.ip_regs.values():
        outputs.update(ip_outputs(regs))
    # IPs not in this SoC yet (built and tested on their own) keep their files current too.
    for toml in sorted(paths.IP_DIR.glob("*/data/*.toml")):
        ip = toml.parent.parent.name
        if toml.stem == ip and ip not in config.ip_regs:
            outputs.update(ip_outputs(load_ip_regs(ip)))
    outputs[TILE_PACKAGE] = sv_tile_package()
    if config.name == "default":
        outputs[paths.DOCS_DIR / "memory-map.md"] = memory_map_markdown(config)
    return outputs


def write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True
