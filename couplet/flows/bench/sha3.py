"""`couplet bench sha3`: cycles of the SHA-3 API for every backend of a SoC configuration.

The firmware (sw/apps/bench_sha3) times whole hashes (one call, init + update + final, and the
held call of couplet/sha3_held.h) with mcycle and prints one result line per run; this module
groups the runs, checks every backend's output against hashlib, and writes
build/reports/bench-sha3-<config>.{json,md,png}: a table shaped like KRONOS Table 1 (SHA3-384 of
200 bytes, with KRONOS's figures beside ours), both API levels beside the physical floor of each
coupling (sha3_floor), cycles per byte over 4 KiB, and the goals of the SHA-3 issue. Speed-ups
are against our software backend.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from couplet import log
from couplet.errors import CoupletError
from couplet.model.config import SocConfig
from couplet.reports import bench_report
from couplet.reports.bench_report import Floor, Section, Stat, Stats, goal_row, speedup, with_floor
from couplet.reports.results import Measurement, fnv1a, message, parse_results

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
# The same hash by couplet_sha3_held(), the backend held around the runs.
HELD_MEASURE = "kronos/held"
LONG_MEASURES = ("sha3-256/4096", "shake128/4096")
MEASURES = (ONESHOT_MEASURE, KRONOS_MEASURE, *SPLIT_MEASURES, HELD_MEASURE, *LONG_MEASURES)
KRONOS_RATE = 104  # SHA3-384's block, bytes
KRONOS_DIGEST = 48
# Lines that are not hashes (sha3-harness/none/empty, sha3-access/mmio/{store,load}).
HARNESS_PREFIX = "sha3-harness"
ACCESS_PREFIX = "sha3-access"
ACCESS_WORDS = 32  # accesses per access line, as sw/apps/bench_sha3/main.c makes them
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

# (label, backend, at most this many cycles for SHA3-384 of 200 bytes in one call, anchor)
CYCLE_GOALS = (
    ("SHA3-384 200 B, loose + DMA", "dma", 400, "KRONOS Loosely: 4,169"),
    ("SHA3-384 200 B, loosely (memory-mapped)", "mmio", 400, "KRONOS Loosely: 4,169"),
    ("SHA3-384 200 B, coprocessor", "tight", 350, "KRONOS Coproc: 7,553"),
    ("SHA3-384 200 B, coprocessor with memory access", "mem", 250, "KRONOS Coproc: 7,553"),
)
ISE_SPEEDUP_GOAL = 2.0
KRONOS_ISE_SPEEDUP = KRONOS_REFERENCE / 31_527
# init + update + final at most this many times the one call, SHA3-384 of 200 bytes.
RATIO_GOAL = ("SHA3-384 200 B, init + update + final over one call", "mem", 1.3)


# ------------------------------------------------------------------------------------ floors

STATE_WORDS = 50  # the Keccak state in 32-bit words


@dataclass(frozen=True)
class AccessCosts:
    """Cycles per access on CV32E40X in this SoC, as the floor model counts them.

    mmio: a load or a store in an accelerator's register window (one OBI transaction every two
    cycles, hw/ip/accel/README.md; measured by the bench firmware, `measured_access_costs`);
    ram: a load or store of a RAM word, scheduled so that nothing waits for it; xif: a custom
    instruction answered in the next cycle (1 per cycle back to back); absorb_setup: the cycles
    an ABSORB spends checking LEN before its DMA job starts (hw/ip/keccak/README.md); dma_words:
    a DMA engine moves one word per cycle."""

    mmio: float = 2.0
    ram: int = 1
    xif: int = 1
    absorb_setup: int = 20
    dma_word: int = 1


def measured_access_costs(measurements: list[Measurement]) -> AccessCosts:
    """The access costs with the memory-mapped one measured by the firmware: its ACCESS_WORDS
    stores and loads, less the empty interval (what the timing adds), per access."""
    harness = bench_report.summarise(measurements, HARNESS_PREFIX).get("none", {}).get("empty")
    access = bench_report.summarise(measurements, ACCESS_PREFIX).get("mmio", {})
    if harness is None or "store" not in access or "load" not in access:
        return AccessCosts()
    per_access = (access["store"].mean + access["load"].mean - 2 * harness.mean) / (2 * ACCESS_WORDS)
    return AccessCosts(mmio=round(per_access, 2))


def sha3_floor(backend: str, rate: int, message_bytes: int, output_bytes: int, rounds_per_cycle: int,
               costs: AccessCosts, *, state_kept: bool = False) -> Floor | None:
    """The physical floor of hashing `message_bytes` into `output_bytes` (at most one block) at
    `rate` bytes per block through one coupling, from the zero state: what the coupling cannot
    avoid, each at its cost, plus the engine's cycles (24 / rounds_per_cycle per permutation).

    Counted for every coupling: a load per message word (the caller's data into registers), a
    store per output word, one permutation per block (the padded last one included), and the
    ZEROIZE that leaves nothing of the message behind. The last block moves only the words that
    hold message bytes or padding: the domain byte's word and, when it is another one, the word
    of pad10*1's final bit.
      tight: a WRITE2 per word pair, a PERMUTE per block, a READ per output word.
      mem:   the same, or the whole blocks by one ABSORB (two instructions, its LEN check, a word
             per cycle by DMA) when that is cheaper (from about two blocks on).
      mmio:  a store per word, a CMD store per block, a load per output word (each a
             memory-mapped access) and the STATUS load that shows a refused command.
      dma:   the same, or the whole blocks by a descriptor (eight register accesses, a word per
             cycle) when that is cheaper.
    With state_kept (init + update + final), what the incremental calls add: the 50-word state
    read back and stored in the context at the end of update (so that another context may use
    the accelerator before final) and wiped by final. None for the software backends (no
    coupling)."""
    if backend not in ("tight", "mem", "mmio", "dma"):
        return None
    engine = 24 // rounds_per_cycle
    full, tail = divmod(message_bytes, rate)
    block_words = rate // 4
    out_words = math.ceil(output_bytes / 4)
    message_words = math.ceil(message_bytes / 4)
    pad_word, last_word = tail // 4, block_words - 1
    permutations = full + 1
    if backend in ("tight", "mem"):
        last_pairs = tail // 8 + 1 + (0 if tail // 8 == rate // 8 - 1 else 1)
        writes = full * (rate // 8) + last_pairs
        cycles = (message_words * costs.ram + writes * costs.xif + permutations * (costs.xif + engine)
                  + out_words * (costs.xif + costs.ram) + costs.xif)
        counts = (f"{message_words} lw + {writes} WRITE2 + {permutations} PERMUTE + {permutations}x{engine} engine"
                  f" + {out_words} READ + {out_words} sw + 1 ZEROIZE")
        if backend == "mem" and full > 0:
            by_writes = full * (block_words * costs.ram + rate // 8 * costs.xif)
            by_job = 2 * costs.xif + costs.absorb_setup + full * block_words * costs.dma_word - full * costs.xif
            if by_job < by_writes:
                cycles += by_job - by_writes
                counts = (f"LEN + ABSORB ({costs.absorb_setup} + {full * block_words} words) + "
                          f"{message_words - full * block_words} lw + {last_pairs} WRITE2 + 1 PERMUTE + "
                          f"{permutations}x{engine} engine + {out_words} READ + {out_words} sw + 1 ZEROIZE")
        stored = STATE_WORDS * (costs.xif + costs.ram)
        store_counts = f"{STATE_WORDS} READ + {STATE_WORDS} sw"
    else:
        stores = full * block_words + pad_word + (1 if pad_word == last_word else 2)
        accesses = stores + permutations + out_words + 2  # + CMD per block, output, ZEROIZE, STATUS
        cycles_f = message_words * costs.ram + accesses * costs.mmio + permutations * engine + out_words * costs.ram
        counts = (f"{message_words} lw + {stores} stores + {permutations} CMD + {permutations}x{engine} engine"
                  f" + {out_words} loads + {out_words} sw + ZEROIZE + STATUS ({costs.mmio:g} cycles per"
                  " memory-mapped access)")
        if backend == "dma" and full > 0:
            by_stores = full * block_words * (costs.ram + costs.mmio)
            by_descriptor = 8 * costs.mmio + full * block_words * costs.dma_word
            if by_descriptor < by_stores:
                cycles_f += by_descriptor - by_stores
                counts = "descriptor (8 accesses, a word per cycle) + " + counts.split(" + ", 1)[1]
        cycles = round(cycles_f)
        stored = round(STATE_WORDS * (costs.mmio + costs.ram))
        store_counts = f"{STATE_WORDS} loads + {STATE_WORDS} sw"
    if state_kept:
        cycles += stored + STATE_WORDS * costs.ram
        counts += f" + state stored by update ({store_counts}) and wiped by final ({STATE_WORDS} sw)"
    return Floor(int(cycles), counts)


def kronos_floors(config: SocConfig, costs: AccessCosts) -> dict[str, dict[str, Floor]]:
    """{backend: {"one": one call / held, "three": init + update + final}} for the KRONOS hash."""
    rounds = config.keccak.rounds_per_cycle if config.keccak else 1
    floors: dict[str, dict[str, Floor]] = {}
    for backend in BACKENDS:
        one = sha3_floor(backend, KRONOS_RATE, KRONOS_BYTES, KRONOS_DIGEST, rounds, costs)
        three = sha3_floor(backend, KRONOS_RATE, KRONOS_BYTES, KRONOS_DIGEST, rounds, costs, state_kept=True)
        if one is not None and three is not None:
            floors[backend] = {"one": one, "three": three}
    return floors

NOT_IN_CONFIG = "not in this configuration"


def expected_checks() -> dict[str, str]:
    """The check each measure must report, from hashlib (independent of the firmware)."""
    outputs: dict[str, Callable[[], bytes]] = {
        KRONOS_MEASURE: lambda: hashlib.sha3_384(message(KRONOS_BYTES)).digest(),
        "sha3-256/4096": lambda: hashlib.sha3_256(message(LONG_BYTES)).digest(),
        "shake128/4096": lambda: hashlib.shake_128(message(LONG_BYTES)).digest(SHAKE_OUT_BYTES),
    }
    checks = {measure: f"0x{fnv1a(out()):08x}" for measure, out in outputs.items()}
    return {**checks,
            **{measure: checks[KRONOS_MEASURE] for measure in (ONESHOT_MEASURE, *SPLIT_MEASURES, HELD_MEASURE)}}


def configured_backends(config: SocConfig) -> list[str]:
    """The backends this configuration has, the software one first."""
    return list(config.keccak.backends) if config.keccak else ["soft"]


def summarise(measurements: list[Measurement]) -> Stats:
    """{backend: {measure: Stat}} from lines named sha3/<backend>/<measure>."""
    return bench_report.summarise(measurements, "sha3")


def check_results(stats: Stats, backends: list[str] | None = None) -> None:
    """Every reported backend has every measure and the right output (hashlib); with `backends`
    (the configuration's), exactly those backends reported."""
    bench_report.check_outputs(stats, MEASURES, expected_checks(), "hashlib", backends)


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


def floors_table(stats: Stats, floors: dict[str, dict[str, Floor]]) -> Section:
    """Both API levels beside the floor of each coupling (sha3_floor): one call, init + update +
    final, and the held call, for the KRONOS hash."""
    rows = []
    for backend in BACKENDS:
        measures = stats.get(backend)
        if measures is None:
            rows.append([backend, NOT_IN_CONFIG, "-", "-", "-"])
            continue
        floor = floors.get(backend, {})
        one, three = floor.get("one"), floor.get("three")
        rows.append([backend, with_floor(measures[ONESHOT_MEASURE], one), with_floor(measures[KRONOS_MEASURE], three),
                     with_floor(measures[HELD_MEASURE], one), one.counts if one else "software: no coupling"])
    headers = ["backend", "one call (couplet_sha3_using)", "init + update + final", "held (couplet_sha3_held)",
               "what the one-call floor counts"]
    return (f"Both API levels against the physical floor of each coupling: SHA3-384 of {KRONOS_BYTES} bytes "
            "(cycles mean ± sd (floor, how far above it))", headers, rows)


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


def goals(stats: Stats, floors: dict[str, dict[str, Floor]] | None = None) -> list[list[str]]:
    rows = []
    for label, backend, limit, anchor in CYCLE_GOALS:
        stat = stats.get(backend, {}).get(ONESHOT_MEASURE)
        if stat is None:
            rows.append([label, backend, "-", f"<= {limit}", NOT_IN_CONFIG, anchor])
        else:
            rows.append(goal_row(label, backend, stat.mean, limit, anchor))
    label, backend, ratio_limit = RATIO_GOAL
    floor = (floors or {}).get(backend)
    anchor = (f"floor {floor['three'].cycles / floor['one'].cycles:.2f}x: the state stored by update, wiped by final"
              if floor else "-")
    three, one = stats.get(backend, {}).get(KRONOS_MEASURE), stats.get(backend, {}).get(ONESHOT_MEASURE)
    if three is None or one is None:
        rows.append([label, backend, "-", f"<= {ratio_limit:g}x", NOT_IN_CONFIG, anchor])
    else:
        row = goal_row(label, backend, three.mean / one.mean, ratio_limit, anchor, digits=2)
        rows.append([row[0], row[1], row[2] + "x", row[3] + "x", *row[4:]])
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
    bench_report.bar_plot(path, categories, series, "SHA-3 API, whole hash (init + update + final)",
                          "cycles per message byte (log scale)")


def run(config: SocConfig) -> int:
    backends = configured_backends(config)
    console = bench_report.run_firmware(
        config, APP, f"backends {', '.join(backends)}; the software one takes most of the few million cycles",
        max_cycles=200_000_000)
    measurements = parse_results(console)
    stats = summarise(measurements)
    check_results(stats, backends)
    for backend, measures in stats.items():
        log.info(f"{backend}: SHA3-384 200 B {measures[ONESHOT_MEASURE].mean:,.0f} cycles in one call, "
                 f"{measures[HELD_MEASURE].mean:,.0f} held, "
                 f"SHA3-256 {measures['sha3-256/4096'].mean / LONG_BYTES:.2f} cycles/byte, output checked")
    costs = measured_access_costs(measurements)
    floors = kronos_floors(config, costs)
    harness = bench_report.summarise(measurements, HARNESS_PREFIX).get("none", {}).get("empty")
    harness_cycles = "-" if harness is None else f"{harness.mean:,.0f} cycle{'' if harness.mean == 1 else 's'}"
    engine = (f"Keccak engine at {config.keccak.rounds_per_cycle} round(s) per cycle" if config.keccak
              else "no Keccak accelerator")
    permutation = 24 // config.keccak.rounds_per_cycle if config.keccak else 24
    intro = [
        f"# SHA-3 benchmark, configuration '{config.name}' ({config.clock_hz / 1e6:g} MHz, {engine})\n",
        "Cycles are mcycle deltas around a whole hash through the public API (couplet/sha3.h): the",
        "one-shot couplet_sha3_using() for the KRONOS row (one call, as KRONOS times a hash), and",
        "couplet_sha3_init_backend + couplet_sha3_update + couplet_sha3_final (SHAKE: shake_final and",
        "a 32-byte squeeze) elsewhere, on CV32E40X in the Verilator model. \"held\" is the same hash by",
        "couplet_sha3_held() (couplet/sha3_held.h), the backend taken once around all the runs by",
        "couplet_sha3_hold(). Simulation is deterministic, so a",
        "standard deviation of 0 means every run took the same time. Every output is checked against",
        "Python's hashlib. Speed-ups are against our portable software backend on the same core;",
        f"KRONOS's are against its reference software ({KRONOS_REFERENCE:,} cycles) on CV32E40PX. Throughput",
        "in the first table is computed as KRONOS does: 384 digest bits per hash times the clock over the",
        "cycles (KRONOS at 50 MHz); the 4 KiB table gives input bits per second.",
        f"Backends this configuration lacks are listed as '{NOT_IN_CONFIG}'.\n",
        "The floor beside a figure is the physical floor of that coupling for that call (sha3_floor in",
        "couplet/flows/bench/sha3.py): the custom instructions or register accesses it cannot avoid, the loads",
        "that bring the caller's message words and the stores of the output words, and the engine's",
        f"{permutation} cycles per permutation (24 / rounds per cycle), summed as if nothing overlapped. Per",
        "access: a custom instruction 1 cycle, a RAM load or store 1, a memory-mapped load or store",
        f"{costs.mmio:g} (measured by this run: {ACCESS_WORDS} back-to-back stores into the Keccak window and",
        f"{ACCESS_WORDS} loads from it). The tight floor is a WRITE2 per word pair, a PERMUTE per block, a READ",
        "per output word and one ZEROIZE; mem may take the whole blocks by ABSORB (its 20-cycle LEN check, a",
        "word per cycle) where that is cheaper; mmio is a store per word, a CMD store per block, a load per",
        "output word, ZEROIZE and the STATUS load; dma may take the whole blocks by a descriptor. The last",
        "block moves only the words that hold message bytes or padding. For init + update + final the floor",
        f"adds what the incremental calls must move: the {STATE_WORDS}-word state stored in the context at the end",
        "of update (another context may use the accelerator before final) and wiped by final. Every figure",
        f"also holds the timing itself: an empty timed interval (couplet/bench.h) takes {harness_cycles} here.\n",
    ]
    sections = [kronos_table(stats, config.clock_hz), floors_table(stats, floors), split_table(stats),
                long_table(stats, config.clock_hz)]
    stem = f"bench-sha3-{config.name}"
    data = {
        "config": config.name,
        "clock_hz": config.clock_hz,
        "rounds_per_cycle": config.keccak.rounds_per_cycle if config.keccak else None,
        "backends": bench_report.stats_json(stats),
        "missing_backends": [b for b in BACKENDS if b not in stats],
        "expected_checks": expected_checks(),
        "kronos": {b: {"integration": p, "cycles": c} for b, (p, c) in KRONOS_PEERS.items()},
        "floors": {b: {k: {"cycles": f.cycles, "counts": f.counts} for k, f in fl.items()} for b, fl in floors.items()},
        "access_costs": costs.__dict__,
        "harness_cycles": harness.mean if harness else None,
    }
    json_path, md_path = bench_report.publish(stem, intro, sections, goals(stats, floors), data)
    png = bench_report.plot_path(stem)
    plot(stats, png)
    # The raw firmware output, to recompute or re-check the figures without simulating again.
    console_path = png.with_suffix(".log")
    console_path.write_text(console)
    log.info(f"written {json_path}, {md_path}, {png} and the firmware console {console_path.name}")
    return 0
