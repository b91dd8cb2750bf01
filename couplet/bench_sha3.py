"""`couplet bench sha3`: cycles of the SHA-3 API for every backend of a SoC configuration.

The firmware (sw/apps/bench_sha3) times whole hashes (init + update + final) with mcycle and
prints one result line per run; this module groups the runs, checks every backend's output
against hashlib, and writes build/reports/bench-sha3-<config>.{json,md,png}: a table shaped like
KRONOS Table 1 (SHA3-384 of 200 bytes, with KRONOS's figures beside ours), cycles per byte over
4 KiB, and the goals of the SHA-3 issue. Speed-ups are against our software backend.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from couplet import bench_common, log
from couplet.bench_common import Section, Stat, Stats, goal_row, speedup
from couplet.config import SocConfig
from couplet.errors import CoupletError
from couplet.results import Measurement, parse_results

APP = "bench_sha3"
# Every backend of couplet/sha3.h, in the enum's order (the firmware reports them in it).
BACKENDS = ("soft", "ise", "tight", "mem", "mmio", "dma")
KRONOS_BYTES = 200
LONG_BYTES = 4096
SHAKE_OUT_BYTES = 32
# KRONOS times one hash call: ours is the one-shot couplet_sha3_using(); "kronos" is the same
# hash by init + update + final, which moves the state to the accelerator and back per call.
ONESHOT_MEASURE = "kronos/oneshot"
KRONOS_MEASURE = "kronos"
# The same hash with its three calls timed one by one.
SPLIT_MEASURES = ("kronos/init", "kronos/update", "kronos/final")
LONG_MEASURES = ("sha3-256/4096", "shake128/4096")
MEASURES = (ONESHOT_MEASURE, KRONOS_MEASURE, *SPLIT_MEASURES, *LONG_MEASURES)
# Runs per measure, as sw/apps/bench_sha3/main.c makes them.
KRONOS_RUNS = 10
SPLIT_RUNS = 3
LONG_RUNS = 3
SLOW_LONG_RUNS = 2  # soft and ise
SLOW_BACKENDS = ("soft", "ise")

# KRONOS (Dolmeta et al., "A Deep Dive into Integration Methodologies in RISC-V"), Table 1:
# SHA3-384 of 200 bytes on CV32E40PX in X-HEEP at 50 MHz. Its throughput is the 384 output
# bits per hash: 384 bit x 50 MHz / 4,169 cycles = 4.61 Mb/s, and ours is computed the same way.
KRONOS_CLOCK_HZ = 50_000_000
KRONOS_OUTPUT_BITS = 384
KRONOS_REFERENCE = 56_529
# Our backend: (the KRONOS integration it corresponds to, its cycles).
KRONOS_PEERS: dict[str, tuple[str, int]] = {
    "soft": ("reference software", KRONOS_REFERENCE),
    "ise": ("Tightly (ISE, rol_32)", 31_527),
    "tight": ("Coproc (CV-X-IF, Keccak register file)", 7_553),
    "mem": ("Coproc; ours adds memory access", 7_553),
    "mmio": ("Loosely (memory-mapped)", 4_169),
    "dma": ("Loosely; ours adds DMA", 4_169),
}

# (label, backend, at most this many cycles for SHA3-384 of 200 bytes, anchor)
CYCLE_GOALS = (
    ("SHA3-384 200 B, loose + DMA", "dma", 400, "KRONOS Loosely: 4,169"),
    ("SHA3-384 200 B, coprocessor", "tight", 350, "KRONOS Coproc: 7,553"),
    ("SHA3-384 200 B, coprocessor with memory access", "mem", 250, "KRONOS Coproc: 7,553"),
)
ISE_SPEEDUP_GOAL = 2.0
KRONOS_ISE_SPEEDUP = KRONOS_REFERENCE / 31_527

NOT_IN_CONFIG = "not in this configuration"


def message(length: int) -> bytes:
    """The firmware's message: byte i = (7i + 3) mod 256."""
    return bytes((7 * i + 3) & 0xFF for i in range(length))


def fnv1a(data: bytes) -> int:
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def expected_checks() -> dict[str, str]:
    """The check each measure must report, from hashlib (independent of the firmware)."""
    outputs: dict[str, Callable[[], bytes]] = {
        KRONOS_MEASURE: lambda: hashlib.sha3_384(message(KRONOS_BYTES)).digest(),
        "sha3-256/4096": lambda: hashlib.sha3_256(message(LONG_BYTES)).digest(),
        "shake128/4096": lambda: hashlib.shake_128(message(LONG_BYTES)).digest(SHAKE_OUT_BYTES),
    }
    checks = {measure: f"0x{fnv1a(out()):08x}" for measure, out in outputs.items()}
    return {**checks, **{measure: checks[KRONOS_MEASURE] for measure in (ONESHOT_MEASURE, *SPLIT_MEASURES)}}


def configured_backends(config: SocConfig) -> list[str]:
    """The backends this configuration has, the software one first."""
    return list(config.keccak.backends) if config.keccak else ["soft"]


def summarise(measurements: list[Measurement]) -> Stats:
    """{backend: {measure: Stat}} from lines named sha3/<backend>/<measure>."""
    return bench_common.summarise(measurements, "sha3")


def check_results(stats: Stats, backends: list[str] | None = None) -> None:
    """Every reported backend has every measure and the right output (hashlib); with `backends`
    (the configuration's), exactly those backends reported."""
    if "soft" not in stats:
        raise CoupletError("the software backend is missing from the results")
    if backends is not None and sorted(stats) != sorted(backends):
        raise CoupletError(f"the firmware reported backends {sorted(stats)}, the configuration has {sorted(backends)}")
    expected = expected_checks()
    for backend, measures in stats.items():
        missing = [m for m in MEASURES if m not in measures]
        if missing:
            raise CoupletError(f"{backend}: no result for {', '.join(missing)}")
        for measure, stat in measures.items():
            if measure not in expected:
                raise CoupletError(f"{backend}: unknown measure '{measure}'")
            if stat.check != expected[measure]:
                raise CoupletError(
                    f"{backend} {measure}: wrong output (check {stat.check}, hashlib gives {expected[measure]})")


def mbit_per_s(bits: int, cycles: float, clock_hz: int) -> float:
    return bits * clock_hz / cycles / 1e6


def kronos_table(stats: Stats, clock_hz: int) -> Section:
    soft = stats["soft"][ONESHOT_MEASURE]
    rows = []
    for backend in BACKENDS:
        peer, peer_cycles = KRONOS_PEERS[backend]
        kronos = [f"{peer_cycles:,}", f"{KRONOS_REFERENCE / peer_cycles:.2f}x",
                  f"{mbit_per_s(KRONOS_OUTPUT_BITS, peer_cycles, KRONOS_CLOCK_HZ):.2f}"]
        stat = stats.get(backend, {}).get(ONESHOT_MEASURE)
        if stat is None:
            ours = [NOT_IN_CONFIG, "-", "-", "-"]
        else:
            # Two decimals, as KRONOS gives its speed-ups.
            ours = [stat.cell(), f"{soft.mean / stat.mean:.2f}x",
                    f"{mbit_per_s(KRONOS_OUTPUT_BITS, stat.mean, clock_hz):.2f}",
                    stats[backend][KRONOS_MEASURE].cell()]
        rows.append([backend, peer, *ours, *kronos])
    headers = ["backend", "KRONOS integration", "cycles", "speed-up vs soft", f"Mbit/s @ {clock_hz / 1e6:g} MHz",
               "init + update + final", "KRONOS cycles", "KRONOS speed-up", "KRONOS Mbit/s @ 50 MHz"]
    return (f"SHA3-384 of {KRONOS_BYTES} bytes in one call, couplet_sha3_using() (KRONOS Table 1 shape; cycles "
            "mean ± sd), and the same hash by init + update + final", headers, rows)


def split_table(stats: Stats) -> Section:
    rows = []
    for backend in BACKENDS:
        if backend not in stats:
            rows.append([backend, NOT_IN_CONFIG, "-", "-", "-", "-"])
            continue
        parts = [stats[backend][m] for m in SPLIT_MEASURES]
        rows.append([backend, *(p.cell() for p in parts), f"{sum(p.mean for p in parts):,.0f}",
                     stats[backend][KRONOS_MEASURE].cell()])
    headers = ["backend", "init", f"update ({KRONOS_BYTES} B)", "final", "sum", "whole hash (above)"]
    return ("Where the cycles go: the same SHA3-384 hash, each API call timed on its own (cycles mean ± sd)",
            headers, rows)


def long_table(stats: Stats, clock_hz: int) -> Section:
    rows = []
    for backend in BACKENDS:
        if backend not in stats:
            rows.append([backend, *([NOT_IN_CONFIG] + ["-"] * 3) * len(LONG_MEASURES)])
            continue
        cells = []
        for measure in LONG_MEASURES:
            stat = stats[backend][measure]
            rate = mbit_per_s(8 * LONG_BYTES, stat.mean, clock_hz)
            per_byte = stat.mean / LONG_BYTES
            cells += [stat.cell(), f"{per_byte:,.2f}", f"{rate:.2f}", speedup(stats["soft"][measure], stat)]
        rows.append([backend, *cells])
    headers = ["backend"]
    for label in ("SHA3-256", f"SHAKE128 ({SHAKE_OUT_BYTES} B out)"):
        headers += [f"{label} cycles", "cycles/byte", "Mbit/s in", "speed-up"]
    return (f"{LONG_BYTES}-byte messages, init + update + final (cycles mean ± sd; input Mbit/s at "
            f"{clock_hz / 1e6:g} MHz)", headers, rows)


def goals(stats: Stats) -> list[list[str]]:
    rows = []
    for label, backend, limit, anchor in CYCLE_GOALS:
        stat = stats.get(backend, {}).get(ONESHOT_MEASURE)
        if stat is None:
            rows.append([label, backend, "-", f"<= {limit}", NOT_IN_CONFIG, anchor])
        else:
            rows.append(goal_row(label, backend, stat.mean, limit, anchor))
    label = "SHA3-384 200 B, ISE speed-up over soft"
    anchor = f"KRONOS Tightly: {KRONOS_ISE_SPEEDUP:.2f}x"
    ise: Stat | None = stats.get("ise", {}).get(ONESHOT_MEASURE)
    if ise is None:
        rows.append([label, "ise", "-", f">= {ISE_SPEEDUP_GOAL:g}x", NOT_IN_CONFIG, anchor])
    else:
        value = stats["soft"][ONESHOT_MEASURE].mean / ise.mean
        row = goal_row(label, "ise", value, ISE_SPEEDUP_GOAL, anchor, at_least=True, digits=2)
        rows.append([row[0], row[1], row[2] + "x", row[3] + "x", *row[4:]])
    return rows


def plot(stats: Stats, path: Path) -> None:
    categories = [f"SHA3-384, {KRONOS_BYTES} B", f"SHA3-256, {LONG_BYTES // 1024} KiB",
                  f"SHAKE128, {LONG_BYTES // 1024} KiB"]
    sizes = (KRONOS_BYTES, LONG_BYTES, LONG_BYTES)
    measures = (KRONOS_MEASURE, *LONG_MEASURES)
    series = {b: [ms[m].mean / n for m, n in zip(measures, sizes)] for b, ms in stats.items()}
    bench_common.bar_plot(path, categories, series, "SHA-3 API, whole hash (init + update + final)",
                          "cycles per message byte (log scale)")


def run(config: SocConfig) -> int:
    backends = configured_backends(config)
    console = bench_common.run_firmware(
        config, APP, f"backends {', '.join(backends)}; the software one takes most of the few million cycles",
        max_cycles=200_000_000)
    stats = summarise(parse_results(console))
    check_results(stats, backends)
    for backend, measures in stats.items():
        log.info(f"{backend}: SHA3-384 200 B {measures[ONESHOT_MEASURE].mean:,.0f} cycles in one call, "
                 f"SHA3-256 {measures['sha3-256/4096'].mean / LONG_BYTES:.2f} cycles/byte, output checked")
    engine = (f"Keccak engine at {config.keccak.rounds_per_cycle} round(s) per cycle" if config.keccak
              else "no Keccak accelerator")
    intro = [
        f"# SHA-3 benchmark, configuration '{config.name}' ({config.clock_hz / 1e6:g} MHz, {engine})\n",
        "Cycles are mcycle deltas around a whole hash through the public API (couplet/sha3.h): the",
        "one-shot couplet_sha3_using() for the KRONOS row (one call, as KRONOS times a hash), and",
        "couplet_sha3_init_backend + couplet_sha3_update + couplet_sha3_final (SHAKE: shake_final and",
        "a 32-byte squeeze) elsewhere, on CV32E40X in the Verilator model. Simulation is deterministic, so a",
        "standard deviation of 0 means every run took the same time. Every output is checked against",
        "Python's hashlib. Speed-ups are against our portable software backend on the same core;",
        f"KRONOS's are against its reference software ({KRONOS_REFERENCE:,} cycles) on CV32E40PX. Throughput",
        "in the first table is computed as KRONOS does: 384 digest bits per hash times the clock over the",
        "cycles (KRONOS at 50 MHz); the second table gives input bits per second.",
        f"Backends this configuration lacks are listed as '{NOT_IN_CONFIG}'.\n",
    ]
    sections = [kronos_table(stats, config.clock_hz), split_table(stats), long_table(stats, config.clock_hz)]
    stem = f"bench-sha3-{config.name}"
    data = {
        "config": config.name,
        "clock_hz": config.clock_hz,
        "rounds_per_cycle": config.keccak.rounds_per_cycle if config.keccak else None,
        "backends": bench_common.stats_json(stats),
        "missing_backends": [b for b in BACKENDS if b not in stats],
        "expected_checks": expected_checks(),
        "kronos": {b: {"integration": p, "cycles": c} for b, (p, c) in KRONOS_PEERS.items()},
    }
    json_path, md_path = bench_common.publish(stem, intro, sections, goals(stats), data)
    png = bench_common.plot_path(stem)
    plot(stats, png)
    # The raw firmware output, to recompute or re-check the figures without simulating again.
    console_path = png.with_suffix(".log")
    console_path.write_text(console)
    log.info(f"written {json_path}, {md_path}, {png} and the firmware console {console_path.name}")
    return 0
