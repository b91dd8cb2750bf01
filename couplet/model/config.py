"""SoC configuration: the single source of truth read from ``configs/<name>.toml``.

Everything that depends on the configuration (SystemVerilog parameters, the C header,
the linker script, the memory-map page) is generated from the ``SocConfig`` built here,
so a config that does not make sense is rejected here, with a message naming the problem.
"""

from __future__ import annotations

import tomllib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from couplet import paths
from couplet.model.regs import IpRegs, ParamValue, description_path, load_ip_regs


class ConfigError(Exception):
    """The configuration file is missing, malformed or inconsistent."""


# Below this there is no room for start-up code, picolibc's printf and a stack.
MIN_SRAM_BYTES = 16 * 1024
# On-chip memory: beyond this the simulator's memory image and an FPGA's block RAM run out.
MAX_SRAM_BYTES = 16 * 1024 * 1024
MIN_STACK_BYTES = 1024
ADDR_LIMIT = 1 << 32

# Peripherals every SoC has, in the order of their slave ports on the data bus.
PERIPHERALS = ("clint", "simctrl")
# The IP whose register map a window carries, where the window's name is not the IP's.
WINDOW_IP = {"keccak_dma": "dma"}

# How the AES accelerator can be attached. "mem" and "tight" share one custom opcode; "mem"
# adds the DMA engine as the accelerator's memory master.
AES_COUPLINGS = ("tight", "mem", "mmio", "dma", "zkn")
AES_BACKENDS = ("soft", "tight", "mem", "mmio", "mmio_irq", "dma", "zkn")
# The backend that needs a coupling of another name (the others need the coupling of theirs),
# and the register windows a coupling needs.
_AES_BACKEND_NEEDS = {"mmio_irq": "mmio"}
_AES_COUPLING_WINDOWS = {"mmio": ("aes",), "dma": ("aes", "dma")}
CUSTOM_OPCODES = (0x0B, 0x2B, 0x5B, 0x7B)  # custom-0..3

# "ise" is the stateless kc.* unit (a software Keccak with custom instructions); the others
# reach the Keccak accelerator, as for AES.
KECCAK_COUPLINGS = ("ise", "tight", "mem", "mmio", "dma")
KECCAK_BACKENDS = ("soft", "ise", "tight", "mem", "mmio", "dma")  # couplet_sha3_backend_id_t order
_KECCAK_COUPLING_WINDOWS = {"mmio": ("keccak",), "dma": ("keccak", "keccak_dma")}
# The kc.* encodings are fixed on custom-1 (hw/ip/keccak/doc/ise.md).
KECCAK_ISE_CUSTOM = 1

# The RTOS kernel-services accelerator: custom instructions (tight) or memory-mapped registers
# (mmio), both from one RTL; "soft" is the OS's own kernel. Its memory port (message copies to a
# waiting receiver) always has a DMA engine.
RTOS_COUPLINGS = ("tight", "mmio")
RTOS_BACKENDS = ("soft", "tight", "mmio")
_RTOS_COUPLING_WINDOWS: dict[str, tuple[str, ...]] = {"mmio": ("rtos",)}
_COUPLING_WINDOWS: dict[str, dict[str, tuple[str, ...]]] = {"aes": _AES_COUPLING_WINDOWS, "keccak": _KECCAK_COUPLING_WINDOWS, "rtos": _RTOS_COUPLING_WINDOWS}
# Register windows that exist only when an accelerator coupling needs them, in bus order after
# the fixed peripherals: an accelerator's registers (mmio coupling, and the control side of dma)
# and the descriptor registers of the DMA engine in its tile (dma coupling), in the order the
# coupling tables above first name them. "dma" is the AES tile's engine (the first accelerator
# had the name to itself).
OPTIONAL_PERIPHERALS = tuple(dict.fromkeys(
    window for table in _COUPLING_WINDOWS.values() for windows in table.values() for window in windows))

# An engine's build parameters, their types and legal values are its description's [[param]]
# entries (hw/ip/<ip>/data/<ip>.toml); a configuration sets them under their names.


@dataclass(frozen=True)
class AccelConfig(ABC):
    """What every accelerator of a SoC has: the couplings it is reachable through (in the order
    of its *_COUPLINGS), the backend software uses by default, its custom-N opcode (of the
    tight and mem couplings), and whether a register stage sits in front of its command port
    (couplet_accel_cmd_slice: two cycles more per command, for FPGA clock rates)."""

    couplings: tuple[str, ...]
    default_backend: str
    custom: int
    register_slice: bool
    # Every backend of the accelerator's C API, in its order, and the coupling each one needs
    # where that is not the coupling of its name.
    BACKENDS: ClassVar[tuple[str, ...]]
    BACKEND_NEEDS: ClassVar[dict[str, str]] = {}

    def has(self, coupling: str) -> bool:
        return coupling in self.couplings

    @property
    def needs_dma_engine(self) -> bool:
        return self.has("mem") or self.has("dma")

    @property
    def needs_xif_port(self) -> bool:
        return self.has("tight") or self.has("mem")

    @property
    def reachable(self) -> set[str]:
        """The couplings and those they are built on: mem is tight plus a memory master, dma is
        the register window plus the DMA engine."""
        couplings = set(self.couplings)
        couplings |= {"tight"} if self.has("mem") else set()
        couplings |= {"mmio"} if self.has("dma") else set()
        return couplings

    @property
    def backends(self) -> tuple[str, ...]:
        """Backends available in this SoC, the software one first."""
        return tuple(b for b in self.BACKENDS if b == "soft" or self.BACKEND_NEEDS.get(b, b) in self.reachable)

    @property
    @abstractmethod
    def params(self) -> dict[str, ParamValue]:
        """The engine's build parameters by the names of its description (hw/ip/<ip>/data/<ip>.toml)."""


@dataclass(frozen=True)
class AesConfig(AccelConfig):
    """The AES accelerator of a SoC: its datapath, whether it decrypts, its key sizes (bits, in
    ascending order), its GHASH multiplier's bits per cycle (0: none), whether a stream's next
    block enters as the previous one leaves, and the couplings it is reachable through."""

    arch: str
    decrypt: bool
    key_sizes: tuple[int, ...]
    ghash_bits: int
    stream_handover: bool
    BACKENDS = AES_BACKENDS
    BACKEND_NEEDS = _AES_BACKEND_NEEDS

    @property
    def params(self) -> dict[str, ParamValue]:
        return {"arch": self.arch, "decrypt": self.decrypt, "key_sizes": self.key_sizes,
                "ghash_bits": self.ghash_bits, "stream_handover": self.stream_handover}


@dataclass(frozen=True)
class KeccakConfig(AccelConfig):
    """The Keccak accelerator of a SoC, the couplings it is reachable through, and the kc.* unit."""

    rounds_per_cycle: int
    BACKENDS = KECCAK_BACKENDS

    @property
    def params(self) -> dict[str, ParamValue]:
        return {"rounds_per_cycle": self.rounds_per_cycle}

    @property
    def needs_accelerator(self) -> bool:
        """Every coupling but ise goes to the accelerator (ise alone is a stateless unit)."""
        return any(c != "ise" for c in self.couplings)



@dataclass(frozen=True)
class RtosConfig(AccelConfig):
    """The RTOS accelerator of a SoC: its build parameters and the couplings it is reachable through."""

    max_threads: int
    priorities: int
    ascending: bool  # a larger number is a higher priority (FreeRTOS)
    mutexes: int
    semaphores: int
    queues: int
    message_words: int
    queue_depth: int
    priority_inheritance: bool
    BACKENDS = RTOS_BACKENDS

    @property
    def needs_dma_engine(self) -> bool:
        """The memory port (message copies to a waiting receiver) always has the engine."""
        return True


    @property
    def params(self) -> dict[str, ParamValue]:
        return {
            "max_threads": self.max_threads,
            "priorities": self.priorities,
            "priority_order": "ascending" if self.ascending else "descending",
            "mutexes": self.mutexes,
            "semaphores": self.semaphores,
            "queues": self.queues,
            "message_words": self.message_words,
            "queue_depth": self.queue_depth,
            "priority_inheritance": self.priority_inheritance,
        }

    @property
    def param_word(self) -> int:
        """The parameters packed as the accelerator's CONFIG register (hw/ip/rtos/data/rtos.toml),
        what software reads back."""
        config = load_ip_regs("rtos").reg("config")
        values = {
            "max_threads": self.max_threads,
            "num_prio": self.priorities,
            "prio_ascending": int(self.ascending),
            "prio_inherit": int(self.priority_inheritance),
            "num_mutex": self.mutexes,
            "num_sem": self.semaphores,
            "num_queue": self.queues,
            "msg_words": self.message_words,
            "queue_depth_m1": self.queue_depth - 1,
        }
        return sum(values[f.name] << f.lsb for f in config.fields)


@dataclass(frozen=True)
class Region:
    """A contiguous address range on the data bus."""

    name: str
    base: int
    size: int
    description: str

    @property
    def end(self) -> int:
        """One past the last byte."""
        return self.base + self.size


@dataclass(frozen=True)
class SocConfig:
    name: str
    description: str
    path: Path
    clock_hz: int
    mtime_divider: int
    boot_addr: int
    mtvec_addr: int
    sram: Region
    stack_size: int
    peripherals: tuple[Region, ...]
    ip_regs: dict[str, IpRegs]  # by window (region) name
    aes: AesConfig | None = None
    keccak: KeccakConfig | None = None
    rtos: RtosConfig | None = None

    @property
    def mtime_hz(self) -> int:
        return self.clock_hz // self.mtime_divider

    @property
    def regions(self) -> tuple[Region, ...]:
        return (self.sram, *self.peripherals)

    def peripheral(self, name: str) -> Region:
        for region in self.peripherals:
            if region.name == name:
                return region
        raise KeyError(name)


def _take(table: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in table:
        raise ConfigError(f"{where}: missing key '{key}'")
    value = table.pop(key)
    # bool is an int in Python; a flag where a number belongs is still a mistake.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{where}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def _table(doc: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = doc.pop(key, None)
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: missing table [{key}]")
    return value


def _no_leftovers(table: dict[str, Any], where: str) -> None:
    if table:
        keys = ", ".join(sorted(table))
        raise ConfigError(f"{where}: unknown key(s) {keys} (a typo?)")


def resolve_config_path(name_or_path: str | Path) -> Path:
    """A config is named (``default``) or given as a path to a ``.toml`` file."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".toml" or candidate.exists():
        return candidate.resolve()
    return paths.CONFIGS_DIR / f"{name_or_path}.toml"


def read_config_doc(name_or_path: str | Path = "default") -> tuple[dict[str, Any], Path]:
    """A configuration file as TOML data (to derive variants from it) and its path."""
    path = resolve_config_path(name_or_path)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in paths.CONFIGS_DIR.glob("*.toml")))
        raise ConfigError(f"no configuration '{name_or_path}' ({path} does not exist; known: {known})")
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from err
    return doc, path


def load_config(name_or_path: str | Path = "default") -> SocConfig:
    doc, path = read_config_doc(name_or_path)
    return parse_config(doc, path)




def coupling_windows(accelerator: str, couplings: tuple[str, ...] | list[str]) -> set[str]:
    """The register windows ([peripheral.*] tables) an accelerator's couplings need."""
    table = _COUPLING_WINDOWS[accelerator]
    return {w for c in couplings for w in table.get(c, ())}


def parse_config(doc: dict[str, Any], path: Path) -> SocConfig:
    where = path.name
    soc = _table(doc, "soc", where)
    name = _take(soc, "name", str, f"{where}[soc]")
    description = _take(soc, "description", str, f"{where}[soc]")
    clock_hz = _take(soc, "clock_hz", int, f"{where}[soc]")
    mtime_divider = _take(soc, "mtime_divider", int, f"{where}[soc]")
    _no_leftovers(soc, f"{where}[soc]")
    if not name.isidentifier():
        raise ConfigError(f"{where}[soc].name: '{name}' must be a C/SV identifier")
    if clock_hz <= 0:
        raise ConfigError(f"{where}[soc].clock_hz: must be positive, got {clock_hz}")
    if mtime_divider < 1 or clock_hz % mtime_divider:
        raise ConfigError(
            f"{where}[soc].mtime_divider: must be >= 1 and divide clock_hz ({clock_hz}), got {mtime_divider}"
        )

    core = _table(doc, "core", where)
    boot_addr = _take(core, "boot_addr", int, f"{where}[core]")
    mtvec_addr = _take(core, "mtvec_addr", int, f"{where}[core]")
    _no_leftovers(core, f"{where}[core]")

    memory = _table(doc, "memory", where)
    sram_t = _table(memory, "sram", f"{where}[memory]")
    _no_leftovers(memory, f"{where}[memory]")
    sram = Region(
        "sram",
        _take(sram_t, "base", int, f"{where}[memory.sram]"),
        _take(sram_t, "size", int, f"{where}[memory.sram]"),
        "On-chip SRAM: code, data, heap and stack",
    )
    stack_size = _take(sram_t, "stack_size", int, f"{where}[memory.sram]")
    _no_leftovers(sram_t, f"{where}[memory.sram]")

    accel_t = doc.pop("accelerator", {})
    if not isinstance(accel_t, dict):
        raise ConfigError(f"{where}: [accelerator] must be a table")
    aes = _parse_aes(accel_t.pop("aes"), f"{where}[accelerator.aes]") if "aes" in accel_t else None
    keccak = (_parse_keccak(accel_t.pop("keccak"), f"{where}[accelerator.keccak]")
              if "keccak" in accel_t else None)
    rtos = _parse_rtos(accel_t.pop("rtos"), f"{where}[accelerator.rtos]") if "rtos" in accel_t else None
    _no_leftovers(accel_t, f"{where}[accelerator]")
    _check_opcodes(aes, keccak, rtos, f"{where}[accelerator]")
    needed = coupling_windows("aes", aes.couplings if aes else ())
    needed |= coupling_windows("keccak", keccak.couplings if keccak else ())
    needed |= coupling_windows("rtos", rtos.couplings if rtos else ())
    windows = sorted(needed, key=OPTIONAL_PERIPHERALS.index)

    periph_t = _table(doc, "peripheral", where)
    wanted = (*PERIPHERALS, *windows)
    ip_regs = {ip: load_ip_regs(WINDOW_IP.get(ip, ip)) for ip in wanted}
    peripherals = []
    for ip in OPTIONAL_PERIPHERALS:
        if ip in periph_t and ip not in windows:
            raise ConfigError(
                f"{where}: [peripheral.{ip}] is given but no coupling in [accelerator] uses it"
            )
    for ip in wanted:
        table = periph_t.pop(ip, None)
        if not isinstance(table, dict):
            why = "" if ip in PERIPHERALS else " (the [accelerator] couplings need it)"
            raise ConfigError(f"{where}: missing table [peripheral.{ip}]{why}")
        region = Region(
            ip,
            _take(table, "base", int, f"{where}[peripheral.{ip}]"),
            _take(table, "size", int, f"{where}[peripheral.{ip}]"),
            _window_description(ip, ip_regs[ip]),
        )
        _no_leftovers(table, f"{where}[peripheral.{ip}]")
        if region.size < ip_regs[ip].span:
            raise ConfigError(
                f"{where}[peripheral.{ip}].size: 0x{region.size:x} is smaller than the "
                f"{ip} register span 0x{ip_regs[ip].span:x}"
            )
        peripherals.append(region)
    _no_leftovers(periph_t, f"{where}[peripheral]")
    _no_leftovers(doc, where)

    config = SocConfig(
        name=name,
        description=description,
        path=path,
        clock_hz=clock_hz,
        mtime_divider=mtime_divider,
        boot_addr=boot_addr,
        mtvec_addr=mtvec_addr,
        sram=sram,
        stack_size=stack_size,
        peripherals=tuple(peripherals),
        ip_regs=ip_regs,
        aes=aes,
        keccak=keccak,
        rtos=rtos,
    )
    _check_layout(config, where)
    return config


def _window_description(window: str, regs: IpRegs) -> str:
    if window in WINDOW_IP:
        tile = window.removesuffix(f"_{regs.ip}")
        return f"{tile.capitalize()} tile's {regs.ip.upper()} engine. {regs.description}"
    return regs.description


def _check_couplings_and_opcode(couplings: list[Any], allowed: tuple[str, ...], custom: Any, where: str) -> None:
    """The rules every [accelerator.*] table shares: known couplings, each once, and a custom-N."""
    for coupling in couplings:
        if coupling not in allowed:
            raise ConfigError(f"{where}.couplings: '{coupling}' is not one of {', '.join(allowed)}")
    if len(set(couplings)) != len(couplings) or not couplings:
        raise ConfigError(f"{where}.couplings: list each coupling once, at least one")
    if not isinstance(custom, int) or isinstance(custom, bool) or not 0 <= custom < len(CUSTOM_OPCODES):
        raise ConfigError(f"{where}.custom_opcode: must be 0..3 (custom-0..custom-3), got {custom!r}")


def _take_params(table: dict[str, Any], ip: str, where: str) -> dict[str, Any]:
    """The engine's build parameters, each checked against its description's [[param]]."""
    values = {}
    for param in load_ip_regs(ip).params:
        if param.name not in table and not param.optional:
            raise ConfigError(f"{where}: missing key '{param.name}'")
        value = table.pop(param.name, param.default)
        problem = param.problem(value)
        if problem:
            source = description_path(ip).relative_to(paths.ROOT)
            raise ConfigError(f"{where}.{param.name}: {problem} ({source})")
        values[param.name] = tuple(value) if isinstance(value, list) else value
    return values


def _take_common(table: dict[str, Any], allowed: tuple[str, ...], default_custom: int, where: str) -> dict[str, Any]:
    """The keys every [accelerator.*] table has, checked, as AccelConfig's fields."""
    couplings = _take(table, "couplings", list, where)
    default_backend = _take(table, "default_backend", str, where)
    custom = table.pop("custom_opcode", default_custom)
    register_slice = table.pop("register_slice", False)
    if not isinstance(register_slice, bool):
        raise ConfigError(f"{where}.register_slice: expected true or false, got {register_slice!r}")
    _check_couplings_and_opcode(couplings, allowed, custom, where)
    return {"couplings": tuple(c for c in allowed if c in couplings), "default_backend": default_backend,
            "custom": custom, "register_slice": register_slice}


def _parse_aes(table: Any, where: str) -> AesConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    params = _take_params(table, "aes", where)
    common = _take_common(table, AES_COUPLINGS, 0, where)
    _no_leftovers(table, where)
    return _with_default_backend(AesConfig(**common, arch=params["arch"], decrypt=params["decrypt"],
                                           key_sizes=params["key_sizes"],
                                           ghash_bits=params["ghash_bits"],
                                           stream_handover=params["stream_handover"]), where)


_Accel = TypeVar("_Accel", bound=AccelConfig)


def _with_default_backend(accel: _Accel, where: str) -> _Accel:
    """`accel`, once its default backend is one its couplings make available."""
    if accel.default_backend not in accel.backends:
        raise ConfigError(
            f"{where}.default_backend: '{accel.default_backend}' is not available with couplings "
            f"{', '.join(accel.couplings)} (available: {', '.join(accel.backends)})"
        )
    return accel


def _parse_keccak(table: Any, where: str) -> KeccakConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    rounds = _take_params(table, "keccak", where)["rounds_per_cycle"]
    common = _take_common(table, KECCAK_COUPLINGS, 2, where)
    _no_leftovers(table, where)
    return _with_default_backend(KeccakConfig(**common, rounds_per_cycle=rounds), where)


def _parse_rtos(table: Any, where: str) -> RtosConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    common = _take_common(table, RTOS_COUPLINGS, 3, where)
    sizes = _take_params(table, "rtos", where)
    _no_leftovers(table, where)
    rtos = RtosConfig(
        **common,
        ascending=sizes["priority_order"] == "ascending",
        priority_inheritance=sizes["priority_inheritance"],
        max_threads=sizes["max_threads"],
        priorities=sizes["priorities"],
        mutexes=sizes["mutexes"],
        semaphores=sizes["semaphores"],
        queues=sizes["queues"],
        message_words=sizes["message_words"],
        queue_depth=sizes["queue_depth"],
    )
    return _with_default_backend(rtos, where)


def _check_opcodes(aes: AesConfig | None, keccak: KeccakConfig | None, rtos: RtosConfig | None,
                   where: str) -> None:
    """Each custom-N opcode belongs to one unit: the X-IF adapter gives an instruction to the
    first port that claims it, so a shared opcode would silently starve the second unit."""
    claims: list[tuple[str, int]] = []
    if aes and aes.needs_xif_port:
        claims.append(("aes.custom_opcode", aes.custom))
    if keccak and keccak.needs_xif_port:
        claims.append(("keccak.custom_opcode", keccak.custom))
    if keccak and keccak.has("ise"):
        claims.append(("the keccak ise coupling (fixed)", KECCAK_ISE_CUSTOM))
    if rtos and rtos.needs_xif_port:
        claims.append(("rtos.custom_opcode", rtos.custom))
    for i, (name, opcode) in enumerate(claims):
        for other, other_opcode in claims[:i]:
            if opcode == other_opcode:
                raise ConfigError(f"{where}: {name} and {other} both use custom-{opcode}")


def _check_layout(config: SocConfig, where: str) -> None:
    for region in config.regions:
        if region.base % 4 or region.size % 4 or region.size <= 0:
            raise ConfigError(
                f"{where}: region '{region.name}' must have a word-aligned base and a positive "
                f"word-multiple size (base 0x{region.base:x}, size 0x{region.size:x})"
            )
        if region.base < 0 or region.end > ADDR_LIMIT:
            raise ConfigError(f"{where}: region '{region.name}' does not fit in the 32-bit address space")
    for region in config.regions:
        # The address decoder compares the bits above the size: regions are aligned powers of two.
        if region.size & (region.size - 1) or region.base % region.size:
            raise ConfigError(
                f"{where}: region '{region.name}' must have a power-of-two size and a base aligned "
                f"to it (base 0x{region.base:x}, size 0x{region.size:x})"
            )
    ordered = sorted(config.regions, key=lambda r: r.base)
    for low, high in zip(ordered, ordered[1:]):
        if high.base < low.end:
            raise ConfigError(
                f"{where}: regions '{low.name}' [0x{low.base:08x}, 0x{low.end:08x}) and "
                f"'{high.name}' [0x{high.base:08x}, 0x{high.end:08x}) overlap"
            )
    if config.sram.size < MIN_SRAM_BYTES:
        raise ConfigError(
            f"{where}[memory.sram].size: 0x{config.sram.size:x} bytes is too small; "
            f"at least 0x{MIN_SRAM_BYTES:x} ({MIN_SRAM_BYTES // 1024} KiB) is needed"
        )
    if config.sram.size > MAX_SRAM_BYTES:
        raise ConfigError(
            f"{where}[memory.sram].size: 0x{config.sram.size:x} bytes is more than the "
            f"{MAX_SRAM_BYTES // (1024 * 1024)} MiB an on-chip SRAM can have here"
        )
    if config.stack_size < MIN_STACK_BYTES or config.stack_size % 16:
        raise ConfigError(
            f"{where}[memory.sram].stack_size: must be a multiple of 16 and at least {MIN_STACK_BYTES}"
        )
    if config.stack_size > config.sram.size // 2:
        raise ConfigError(
            f"{where}[memory.sram].stack_size: 0x{config.stack_size:x} leaves less than half "
            f"of the 0x{config.sram.size:x}-byte SRAM for code and data"
        )
    # CV32E40X keeps only mtvec[31:7]: the trap vector is 128-byte aligned.
    for key, addr, align in (("boot_addr", config.boot_addr, 4), ("mtvec_addr", config.mtvec_addr, 128)):
        if not config.sram.base <= addr < config.sram.end or addr % align:
            raise ConfigError(
                f"{where}[core].{key}: 0x{addr:x} must be a {align}-byte aligned address inside the SRAM"
            )
