"""`couplet energy`: a RELATIVE estimate of the energy each AES backend spends per message.

FAC-V Table 11 shape (energy per message of 16 and 80 bytes for each coupling), but in toggle
units normalised to the software backend at 16 bytes, not in Joules. For one backend and one
message size:

    energy per message = dynamic + clock + static
    dynamic = sum over the SoC's top-level instances m of
              (bit toggles of m per message / bits of m) x (LUTs_m + FFs_m)
    clock   = cycles per message x FFs of the whole SoC x CLOCK_WEIGHT
    static  = cycles per message x (LUTs + FFs of the whole SoC) x k_static

- Toggles come from Verilator's toggle coverage (the "toggle" model flavour of simbuild; the
  harness writes coverage.dat with --coverage), summed per top-level instance of couplet_soc
  (u_core, u_sram, g_tile[0].u_tile, ...; signals of couplet_soc itself and instances without
  cells of their own, such as the u_xif interface, count as "glue"). Each mapped cell is assumed
  to switch as often as its instance's average bit. Left out of the toggles: clock nets (the
  clock term counts them), input ports (a net counts where it is driven, not at every input it
  reaches) and lint sinks that synthesis removes.
- LUTs and FFs per instance come from Yosys (couplet.tools.soc_synthesis.soc_by_instance, xc7 mapping).
- Every flip-flop is clocked every cycle (the FPGA build has no clock gating): one toggle unit
  per FF per cycle (CLOCK_WEIGHT).
- k_static is calibrated once per SoC: for the software backend at the first size, static is
  the share of the total that FAC-V Table 10 reports for its core-only platform (0.099 W static
  of 0.295 W, Vivado's vectorless estimate for Rocket on an Arty A7-100). Static energy then
  scales with time (cycles) and with the SoC's size.
- Per message = (run with N2 messages - run with N1 messages) / (N2 - N1), for the toggles and
  for the cycles: boot, printing and key set-up cancel out.

Limits: a relative ranking of the backends of ONE SoC and where its energy goes, no more. It
does not give Watts or Joules; it ignores glitches, routing and net capacitance, I/O, block RAM
(the SRAM array is not even in the toggle counts, being wider than the coverage limit), the
clock tree's structure, and the difference between cell types (a LUT6 and an FF weigh the
same); its static power is a calibration, not a property of a real board, so SoCs of different
sizes compare only as far as the calibration holds.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from couplet import log, paths
from couplet.errors import CoupletError
from couplet.model.config import SocConfig, load_config
from couplet.reports import bench_report
from couplet.reports.results import fnv1a, message
from couplet.tools import firmware, simbuild, simulator
from couplet.tools.soc_synthesis import soc_by_instance
from couplet.tools.yosys_stats import Resources

APP = "energy_aes"
SIZES = (16, 80)
KEY = bytes(range(16))  # the firmware's key (FIPS-197 C.1)
# (N1, N2) messages per backend: the software backend takes ~5k cycles per 16 B and ~13k per
# 80 B, so it runs fewer; the accelerators take a few hundred.
SOFT_RUNS = (1, 3)
HW_RUNS = (2, 6)
MAX_CYCLES = 5_000_000

SOC_SCOPE = "TOP.couplet_sim_top.u_soc"
GLUE = "glue"
# The assumptions of the model, stated once (docs/energy.md repeats them).
CLOCK_WEIGHT = 1.0  # toggle units per flip-flop per clock cycle
# FAC-V Table 10: static 0.099 W of 0.295 W total for the core-only platform (Rocket, Arty A7-100).
STATIC_SHARE = 0.099 / 0.295
# Clock nets: counted by the clock term, not as data toggles (clk, clk_i, clk_ungated_i, clk_gated_o).
CLOCK_SIGNAL = re.compile(r"^clk(_ungated|_gated)?(_i|_o)?$")
# lowRISC-style lint sinks (`logic unused_x = ^x;`), possibly inside a generate block.
UNUSED = re.compile(r"(^|\.)unused")
INPUT_PORT = re.compile(r"_n?i$")
_LINE = re.compile(r"^C '(?P<keys>.*)' (?P<count>\d+)$")
_TOGGLE = re.compile(r"^(?P<bit>.+):(?P<direction>0->1|1->0)$")


# ---------------------------------------------------------------------------- coverage.dat


@dataclass(frozen=True)
class TogglePoint:
    """One coverage point: the changes of one bit in one direction, in one instance."""

    hier: str  # the instance, e.g. TOP.couplet_sim_top.u_soc.u_core.if_stage_i
    bit: str  # the bit as Verilator names it: "clk_i", "rdata_q[3]", "resp_q[0].bus_resp.err"
    rising: bool  # True: 0->1, False: 1->0
    count: int

    @property
    def signal(self) -> str:
        """The variable the bit belongs to ("resp_q" for "resp_q[0].bus_resp.err")."""
        return re.split(r"[\[.]", self.bit, maxsplit=1)[0]


def parse_coverage(text: str) -> list[TogglePoint]:
    """The toggle points of a coverage.dat (Verilator's format: one `C '<keys>' <count>` line per
    point, the keys a list of \\001<key>\\002<value> pairs; the type is under 'page', the
    instance under 'h', the bit and direction under 'o').

    A point counts one bit's changes in ONE direction: Verilator 5.049 keeps two counters per bit
    (VL_COV_TOGGLE_CHG_* in include/verilated_cov.h add to slot 2*bit + new value, and the points
    are named "sig[i]:0->1" and "sig[i]:1->0"), so a bit's toggles are the sum of its two points.
    Other coverage types (line, branch) are skipped."""
    points = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise CoupletError(f"coverage.dat line {number}: not a `C '<keys>' <count>` line")
        keys: dict[str, str] = {}
        for item in match["keys"].split("\x01")[1:]:
            key, sep, value = item.partition("\x02")
            if not sep:
                raise CoupletError(f"coverage.dat line {number}: key '{key}' without a value")
            keys[key] = value
        if not keys.get("page", "").startswith("v_toggle/"):
            continue
        toggle = _TOGGLE.match(keys.get("o", ""))
        if toggle is None or "h" not in keys:
            raise CoupletError(f"coverage.dat line {number}: toggle point without 'h' or 'sig:0->1' in 'o'")
        points.append(TogglePoint(keys["h"], toggle["bit"], toggle["direction"] == "0->1", int(match["count"])))
    return points


def read_coverage(path: Path) -> list[TogglePoint]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise CoupletError(f"cannot read coverage data {path}: {err}") from err
    return parse_coverage(text)


def instance_of(hier: str) -> str | None:
    """The top-level instance of couplet_soc a hierarchy belongs to, named like synth_report
    names the SoC's children: the path under u_soc up to its first instance (u_*), so
    "g_tile[0].u_tile" and "g_xif.u_xif_adapter" keep their generate block; GLUE for couplet_soc's
    own signals (generate blocks included); None outside the SoC."""
    if hier == SOC_SCOPE:
        return GLUE
    if not hier.startswith(SOC_SCOPE + "."):
        return None
    parts = hier[len(SOC_SCOPE) + 1:].split(".")
    for i, part in enumerate(parts):
        if part.startswith("u_"):
            return ".".join(parts[:i + 1])
    return GLUE


@dataclass(frozen=True)
class Activity:
    """The data toggles of an instance (both directions, clock nets left out) and its bits."""

    toggles: int
    bits: int


def counted(point: TogglePoint) -> bool:
    """Whether a point counts: not a clock net, not a lint sink (`unused_*`: a reduction of
    unused inputs that synthesis removes), and not an input port (`*_i`, `*_ni`: the naming
    convention of couplet's RTL and of CV32E40X). An input is a net driven elsewhere and counted
    there, where it is driven; counted again at every input it reaches, a bus would weigh as
    often as it has listeners, and an idle accelerator whose address and write-data inputs
    follow every bus transfer would look busy."""
    return not (CLOCK_SIGNAL.match(point.signal) or UNUSED.search(point.bit) or INPUT_PORT.search(point.signal))


def activity_by_instance(points: list[TogglePoint]) -> dict[str, Activity]:
    """{top-level instance: Activity}, over the SoC's toggle points that count."""
    toggles: dict[str, int] = defaultdict(int)
    directions: dict[str, int] = defaultdict(int)
    for p in points:
        inst = instance_of(p.hier)
        if inst is None or not counted(p):
            continue
        toggles[inst] += p.count
        directions[inst] += 1
    for inst, n in directions.items():
        if n % 2:
            raise CoupletError(f"coverage of {inst}: {n} toggle points, not two per bit")
    return {inst: Activity(toggles[inst], directions[inst] // 2) for inst in sorted(toggles)}


# ---------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class PerMessage:
    """What one message of one backend and size costs, from two runs."""

    cycles: float
    toggles: dict[str, float]  # data toggles per message, by instance
    bits: dict[str, int]


def per_message(a1: dict[str, Activity], cycles1: int, n1: int, a2: dict[str, Activity], cycles2: int,
                n2: int) -> PerMessage:
    """(run 2 - run 1) / (n2 - n1); both runs must have the same instances and bits (one model)."""
    if n2 <= n1:
        raise CoupletError(f"per message needs more messages in the second run ({n1} vs {n2})")
    if {k: v.bits for k, v in a1.items()} != {k: v.bits for k, v in a2.items()}:
        raise CoupletError("the two runs' coverage has different instances or bits (different models?)")
    dn = n2 - n1
    return PerMessage((cycles2 - cycles1) / dn, {k: (a2[k].toggles - a1[k].toggles) / dn for k in a1},
                      {k: v.bits for k, v in a1.items()})


def cells(r: Resources) -> int:
    """The cells that switch in the model: LUTs and flip-flops."""
    return r.luts + r.ffs


@dataclass(frozen=True)
class Estimate:
    """The three terms in toggle units (before normalisation) and the dynamic term by instance."""

    dynamic_by_instance: dict[str, float]
    clock: float
    static: float

    @property
    def dynamic(self) -> float:
        return sum(self.dynamic_by_instance.values())

    @property
    def total(self) -> float:
        return self.dynamic + self.clock + self.static


def merge_into_glue(msg: PerMessage, resources: dict[str, Resources]) -> PerMessage:
    """Instances that have toggles but no cells of their own in the synthesis (an SV interface
    such as u_xif: wires between instances) are glue wiring: their toggles and bits join GLUE."""
    toggles: dict[str, float] = defaultdict(float)
    bits: dict[str, int] = defaultdict(int)
    for inst, t in msg.toggles.items():
        key = inst if inst in resources else GLUE
        toggles[key] += t
        bits[key] += msg.bits[inst]
    return PerMessage(msg.cycles, dict(toggles), dict(bits))


def estimate(msg: PerMessage, resources: dict[str, Resources], k_static: float) -> Estimate:
    """The model for one message (msg already merged: its instances are keys of `resources`)."""
    dynamic = {}
    for inst, r in resources.items():
        bits = msg.bits.get(inst, 0)
        activity = msg.toggles.get(inst, 0.0) / bits if bits else 0.0
        dynamic[inst] = activity * cells(r)
    ffs = sum(r.ffs for r in resources.values())
    total_cells = sum(cells(r) for r in resources.values())
    return Estimate(dynamic, msg.cycles * ffs * CLOCK_WEIGHT, msg.cycles * total_cells * k_static)


def calibrate_static(msg: PerMessage, resources: dict[str, Resources], share: float = STATIC_SHARE) -> float:
    """k_static such that static / (dynamic + clock + static) == share for this message."""
    if not 0.0 <= share < 1.0:
        raise CoupletError(f"static share {share} outside [0, 1)")
    moving = estimate(msg, resources, 0.0)
    total_cells = sum(cells(r) for r in resources.values())
    if msg.cycles <= 0 or total_cells == 0:
        raise CoupletError("cannot calibrate static power on a message of no cycles or a SoC of no cells")
    return share / (1.0 - share) * (moving.dynamic + moving.clock) / (msg.cycles * total_cells)


# ---------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class Run:
    backend: str
    size: int
    messages: int
    cycles: int  # the whole simulation
    loop_cycles: int  # mcycle around the encryptions, as the firmware measured it
    check: int
    activity: dict[str, Activity] = field(repr=False)


_RESULT = re.compile(r"^energy_aes: backend (?P<backend>\S+) bytes 0x(?P<bytes>[0-9a-f]+) messages 0x(?P<n>[0-9a-f]+) "
                     r"loop_cycles 0x(?P<loop>[0-9a-f]+) check 0x(?P<check>[0-9a-f]+)$", re.M)


def expected_check(size: int, messages: int) -> int:
    """The firmware's check from the host: FNV-1a of the message after `messages` in-place
    AES-128 ECB encryptions under KEY (pycryptodome)."""
    from Crypto.Cipher import AES

    data = message(size)
    cipher = AES.new(KEY, AES.MODE_ECB)
    for _ in range(messages):
        data = cipher.encrypt(data)
    return fnv1a(data)


def runs_for(backend: str) -> tuple[int, int]:
    return SOFT_RUNS if backend == "soft" else HW_RUNS


def coverage_dir(config: SocConfig) -> Path:
    return paths.config_build_dir(config.name) / "energy"


def run_once(config: SocConfig, backend: str, size: int, messages: int) -> Run:
    """Build energy_aes for one backend, size and number of messages, simulate it on the toggle
    model and read its coverage; the firmware's check must match the host's AES."""
    defines = {"BACKEND": f"COUPLET_AES_BACKEND_{backend.upper()}", "MSG_BYTES": f"{size}u",
               "MESSAGES": f"{messages}u"}
    elf = firmware.build_app(config, APP, defines=defines)
    out = coverage_dir(config)
    out.mkdir(parents=True, exist_ok=True)
    dat = out / f"{backend}-{size}-{messages}.dat"
    result = simulator.simulate(config, elf, capture=True, coverage=dat, max_cycles=MAX_CYCLES)
    console = result.console or ""
    match = _RESULT.search(console)
    if result.status != "exit" or result.exit_code != 0 or match is None:
        print(console)
        raise CoupletError(f"{APP} {backend} {size} B x {messages}: {result.status}, exit code {result.exit_code}")
    if match["backend"] != backend or int(match["bytes"], 16) != size or int(match["n"], 16) != messages:
        raise CoupletError(f"{APP}: ran {match.group(0)!r}, expected {backend} {size} B x {messages}")
    check = int(match["check"], 16)
    if check != expected_check(size, messages):
        raise CoupletError(f"{APP} {backend} {size} B x {messages}: check 0x{check:08x} is not the host's "
                           f"0x{expected_check(size, messages):08x}")
    activity = activity_by_instance(read_coverage(dat))
    log.info(f"{backend} {size} B x {messages}: {result.cycles:,} cycles, "
             f"{sum(a.toggles for a in activity.values()):,} toggles ({result.seconds:.1f} s)")
    return Run(backend, size, messages, result.cycles, int(match["loop"], 16), check, activity)


def measure(config: SocConfig, backend: str, size: int) -> PerMessage:
    """Per-message cycles and toggles of one backend and size, from two runs."""
    n1, n2 = runs_for(backend)
    r1 = run_once(config, backend, size, n1)
    r2 = run_once(config, backend, size, n2)
    msg = per_message(r1.activity, r1.cycles, n1, r2.activity, r2.cycles, n2)
    loop = (r2.loop_cycles - r1.loop_cycles) / (n2 - n1)
    if loop != msg.cycles:
        # Both runs execute the same code around the loop, so the whole-run difference is the
        # loop's; anything else means the two builds did not differ only in MESSAGES.
        raise CoupletError(f"{backend} {size} B: {msg.cycles} cycles per message from the runs, {loop} from mcycle")
    return msg


# ---------------------------------------------------------------------------- report


@dataclass(frozen=True)
class Result:
    backend: str
    size: int
    msg: PerMessage
    estimate: Estimate


def check_instances(results: list[Result], resources: dict[str, Resources]) -> list[str]:
    """Notes on instances that have cells but no toggle points (their dynamic term is 0)."""
    seen: set[str] = set()
    for r in results:
        seen |= {k for k, b in r.msg.bits.items() if b}
    return [f"{inst}: {cells(r):,} cells but no toggle points (dynamic 0)" for inst, r in resources.items()
            if inst not in seen and cells(r)]


def fmt(value: float) -> str:
    return f"{value:.4f}" if value < 10 else f"{value:,.2f}"


def tables(results: list[Result], unit: float, sizes: tuple[int, ...]) -> list[bench_report.Section]:
    soft = {r.size: r.estimate.total for r in results if r.backend == "soft"}
    rows = []
    for r in results:
        e = r.estimate
        rows.append([r.backend, f"{r.size} B", f"{r.msg.cycles:,.1f}", fmt(e.dynamic / unit), fmt(e.clock / unit),
                     fmt(e.static / unit), fmt(e.total / unit), f"{e.total:,.0f}",
                     f"{soft[r.size] / e.total:,.1f}x" if r.size in soft and e.total else "-"])
    out: list[bench_report.Section] = [(
        "Energy per message, relative estimate (software backend at "
        f"{sizes[0]} B = 1.0; FAC-V Table 11 shape)",
        ["backend", "message", "cycles", "dynamic", "clock", "static", "total", "toggle units", "less than soft"],
        rows)]
    # Where the dynamic energy goes, at the largest size.
    big = [r for r in results if r.size == sizes[-1]]
    if big:
        instances = sorted({i for r in big for i in r.estimate.dynamic_by_instance},
                           key=lambda i: (i == GLUE, i))
        share_rows = []
        for inst in instances:
            shares = [100 * r.estimate.dynamic_by_instance.get(inst, 0.0) / r.estimate.dynamic
                      if r.estimate.dynamic else None for r in big]
            share_rows.append([inst] + ["-" if v is None else f"{v:.1f}" for v in shares])
        out.append((f"Where the dynamic energy goes at {sizes[-1]} B (% of the dynamic term, by instance)",
                    ["instance", *(r.backend for r in big)], share_rows))
    return out


# FAC-V Table 11 (AES-128): energy per message in µJ, to set the ratios beside.
FACV_TABLE11 = {16: {"Software": 541.12, "RoCC Mem": 0.10, "RoCC": 0.32, "MMIO": 0.93},
                80: {"Software": 2705.87, "RoCC Mem": 0.81, "RoCC": 1.55, "MMIO": 4.55}}


# FAC-V's couplings beside ours (FAC-V section 4: RoCC = custom instructions with register
# operands, RoCC Mem = with memory access, MMIO = memory-mapped registers).
FACV_COUNTERPART = {"tight": "RoCC", "mem": "RoCC Mem", "mmio": "MMIO"}


def anchor_section(results: list[Result]) -> bench_report.Section:
    """Each backend's energy over the software backend's at the same size, beside FAC-V Table 11's
    ratio for its counterpart. Anchors, not goals: the ratios compare shapes, and FAC-V's software
    AES on Rocket is far slower than ours (its Table 11: 541 uJ per 16 B)."""
    rows = []
    for r in results:
        soft = next((s for s in results if s.backend == "soft" and s.size == r.size), None)
        if r.backend == "soft" or soft is None:
            continue
        facv = FACV_TABLE11.get(r.size, {})
        counterpart = FACV_COUNTERPART.get(r.backend)
        theirs = f"{facv[counterpart] / facv['Software']:.5f} ({counterpart})" if counterpart and facv else "-"
        rows.append([r.backend, f"{r.size} B", f"{r.estimate.total / soft.estimate.total:.4f}", theirs])
    return ("Energy over the software backend's, beside FAC-V Table 11 (anchors, not goals)",
            ["backend", "message", "couplet (relative)", "FAC-V (uJ ratio)"], rows)


def plot(stem: str, results: list[Result], unit: float, sizes: tuple[int, ...]) -> None:
    backends = list(dict.fromkeys(r.backend for r in results))
    totals = {(r.backend, r.size): r.estimate.total / unit for r in results}
    bench_report.bar_plot(bench_report.plot_path(stem), backends,
                          {f"{s} B": [totals[(b, s)] for b in backends] for s in sizes},
                          "AES-128 ECB energy per message (relative estimate, soft 16 B = 1)",
                          "relative energy (log scale)", label_rotation=30)


def intro(config: SocConfig, k_static: float, notes: list[str]) -> list[str]:
    lines = [
        f"# AES energy per message, configuration '{config.name}': a RELATIVE estimate\n",
        "**Not Watts or Joules.** Toggle units from Verilator's toggle coverage and Yosys's cell counts "
        "(xc7), normalised to the software backend at the first size. See docs/energy.md.\n",
        "Assumptions (couplet/flows/energy.py):\n",
        "- dynamic = sum over the SoC's top-level instances of (bit toggles per message / bits) x (LUTs + FFs): "
        "each mapped cell switches as often as its instance's average bit; clock nets left out;",
        f"- clock = cycles per message x FFs of the SoC x {CLOCK_WEIGHT:g} (every FF clocked every cycle, no gating);",
        "- static = cycles per message x (LUTs + FFs of the SoC) x k_static, "
        f"k_static = {k_static:.4g} calibrated so that static is {100 * STATIC_SHARE:.1f}% of the software "
        "backend's total at the first size (FAC-V Table 10: 0.099 W static of 0.295 W, Rocket core alone, "
        "Vivado vectorless, Arty A7-100);",
        "- per message = (run with N2 messages - run with N1) / (N2 - N1), for toggles and cycles "
        f"(soft: N = {SOFT_RUNS[0]}, {SOFT_RUNS[1]}; hardware: N = {HW_RUNS[0]}, {HW_RUNS[1]}); AES-128 ECB, "
        "in place, each message the previous ciphertext.",
        "- Left out: glitches, routing capacitance, I/O, block RAM, the clock tree, cell types.\n",
    ]
    if notes:
        lines += ["Notes:\n", *(f"- {n}" for n in notes), ""]
    return lines


def run(config_name: str, sizes: tuple[int, ...] = SIZES, jobs: int = 1) -> int:
    config = load_config(config_name)
    if config.aes is None:
        raise CoupletError(f"configuration '{config.name}' has no AES accelerator ([accelerator.aes])")
    sizes = tuple(sizes)
    if not sizes or any(s <= 0 or s % 16 for s in sizes):
        raise CoupletError(f"message sizes must be whole AES blocks (multiples of 16): {sizes}")
    backends = list(config.aes.backends)
    log.info(f"the cells of each instance of '{config.name}' (Yosys, cached; the first time ~10-15 min)")
    resources = soc_by_instance(config, "xc7", jobs)
    log.info(f"building the toggle-coverage model of '{config.name}'")
    simbuild.build_sim(config, "toggle")
    raw = [(b, s, measure(config, b, s)) for b in backends for s in sizes]
    measured = [(b, s, merge_into_glue(m, resources)) for b, s, m in raw]
    wires = sorted({i for _, _, m in raw for i in m.toggles if i not in resources})
    reference = next(m for b, s, m in measured if b == "soft" and s == sizes[0])
    k_static = calibrate_static(reference, resources)
    results = [Result(b, s, m, estimate(m, resources, k_static)) for b, s, m in measured]
    unit = next(r.estimate.total for r in results if r.backend == "soft" and r.size == sizes[0])
    notes = [f"{i}: toggles but no cells of its own in the synthesis (wires): counted with the glue" for i in wires]
    notes += check_instances(results, resources)
    stem = f"energy-{config.name}"
    data: dict[str, Any] = {
        "config": config.name, "label": "relative estimate (toggle units), not Watts", "unit_toggle_units": unit,
        "assumptions": {"clock_weight": CLOCK_WEIGHT, "static_share": STATIC_SHARE, "k_static": k_static,
                        "runs": {"soft": SOFT_RUNS, "hardware": HW_RUNS}, "target": "xc7"},
        "resources": {k: r.as_dict() for k, r in resources.items()},
        "results": [{"backend": r.backend, "bytes": r.size, "cycles": r.msg.cycles,
                     "toggles": r.msg.toggles, "bits": r.msg.bits,
                     "dynamic_by_instance": r.estimate.dynamic_by_instance,
                     "dynamic": r.estimate.dynamic / unit, "clock": r.estimate.clock / unit,
                     "static": r.estimate.static / unit, "total": r.estimate.total / unit} for r in results],
        "notes": notes,
    }
    sections = [*tables(results, unit, sizes), anchor_section(results)]
    json_path, md_path = bench_report.publish(stem, intro(config, k_static, notes), sections, [], data)
    plot(stem, results, unit, sizes)
    log.info(f"written {json_path}, {md_path} and {bench_report.plot_path(stem)}")
    return 0
