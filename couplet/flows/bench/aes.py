"""`couplet bench aes`: cycles of the AES API for every backend of a SoC configuration.

The firmware (sw/apps/bench_aes) times each call with mcycle and prints one result line per
run; this module groups the runs, computes mean and standard deviation, checks that every
backend produced the same ciphertext, and writes build/reports/bench-aes-<config>.{json,md,png}.
Speed-ups are against the software backend on the same core.
"""

from __future__ import annotations

from pathlib import Path

from couplet import log
from couplet.errors import CoupletError
from couplet.model.config import SocConfig
from couplet.reports import bench_report
from couplet.reports.bench_report import Floor, Section, Stats, goal_row, speedup, with_floor
from couplet.reports.results import Measurement, parse_results


APP = "bench_aes"
KEY_BITS = (128, 192, 256)
MESSAGE_BYTES = (16, 32, 48, 64, 80)
MODES = ("ecb", "cbc", "ctr", "cfb", "ofb")
CTR_BYTES = 4096

HELD_BYTES = (16, 80)

# Goals of the AES issue (issue 4), with the seed papers' figures they improve on: (label,
# measure, backend or "min" for the best hardware coupling, at most this many cycles, anchor).
GOALS = (
    ("AES-128 16 B, best coupling", "ecb/128/16", "min", 16, "FAC-V RoCC Mem: 20"),
    ("AES-128 80 B, best coupling", "ecb/128/80", "min", 60, "FAC-V RoCC Mem: 165"),
    ("AES-128 16 B, memory-mapped", "ecb/128/16", "mmio", 40, "FAC-V MMIO: 189"),
    ("AES-256 key set-up, tight", "init/256", "tight", 20, "FAC-V RoCC: 45"),
)
# Goals of the lean-calls issue (issue 17): each coupling's public call and held call.
LEAN_GOALS = (
    ("AES-128 16 B, tight, public API", "ecb/128/16", "tight", 60, "FAC-V RoCC: 66"),
    ("AES-128 16 B, mem, public API", "ecb/128/16", "mem", 60, "FAC-V RoCC Mem: 20"),
    ("AES-128 16 B, mmio, public API", "ecb/128/16", "mmio", 80, "FAC-V MMIO: 189"),
    ("AES-128 80 B, mem, public API", "ecb/128/80", "mem", 100, "FAC-V RoCC Mem: 165"),
    ("AES-256 key set-up, tight, public API", "init/256", "tight", 40, "FAC-V RoCC: 45"),
    ("4 blocks CBC, AES-256, best coupling", "4blk/cbc/256", "min", 100, "AES-RV: 1,129-1,525"),
    ("AES-128 16 B, tight, accelerator held", "held/128/16", "tight", 20, "FAC-V RoCC Mem: 20"),
    ("AES-128 16 B, mmio, accelerator held", "held/128/16", "mmio", 45, "FAC-V MMIO: 189"),
)

# The floor model (docs/aes.md): every instruction takes one cycle, a memory-mapped access two
# (hw/ip/aes/README.md, "Timing"), the accelerator's DMA moves a word per cycle, and the engine
# takes its cycles per block. What a coupling cannot avoid for one block of data:
#   tight: 4 lw + 2 WRITE2 (the second starts the block) + 4 READ (the first waits for the
#          engine) + 4 sw; mmio: the same with 4 stores and 4 loads on the bus; mem: one MEM
#          instruction (with LEN and a fence), the DMA's 4 words in before the first block and 4
#          out after the last. A call adds CTRL (once); a chaining mode its value in and out (as
#          a block's words); key set-up the key words (lw + WRITE2 per two, or a store each),
#          CTRL and EXPAND.
ROUNDS = {128: 10, 192: 12, 256: 14}
KEY_WORDS = {128: 4, 192: 6, 256: 8}
TIGHT_BLOCK = 14  # 4 lw + 2 WRITE2 + 4 READ + 4 sw
MMIO_ACCESS = 2
MMIO_BLOCK = 4 + 4 * MMIO_ACCESS + 4 * MMIO_ACCESS + 4  # 4 lw, 4 bus stores, 4 bus loads, 4 sw


def engine_latency(arch: str, bits: int) -> int:
    """Cycles from a block's start to its result."""
    return ROUNDS[bits] // 2 if arch == "partial" else ROUNDS[bits]


def engine_stream(arch: str, bits: int, blocks: int, serial: bool) -> int:
    """Cycles of `blocks` blocks fed back to back (a mem job): the unrolled pipeline overlaps
    independent blocks, a chaining mode's serial blocks cannot overlap."""
    if arch == "unrolled" and not serial:
        return ROUNDS[bits] + blocks - 1
    return engine_latency(arch, bits) * blocks


def floor(backend: str, measure: str, arch: str) -> Floor | None:
    """The physical floor of one measure in one coupling, or None where the bench does not model
    one (software, zkn, and the interrupt-driven couplings)."""
    parts = measure.split("/")
    kind = parts[0]
    if kind == "init":
        bits = int(parts[1])
        words = KEY_WORDS[bits]
        if backend in ("tight", "mem"):
            return Floor(words + words // 2 + 2, f"{words} lw + {words // 2} WRITE2 + CTRL + EXPAND")
        if backend == "mmio":
            return Floor(words + (words + 2) * MMIO_ACCESS, f"{words} lw + {words + 2} bus stores (KEY, CTRL, CMD)")
        return None
    if kind in ("ecb", "held", "bare"):
        bits, blocks, chaining = int(parts[1]), int(parts[2]) // 16, False
    elif kind == "4blk":
        bits, blocks, chaining = int(parts[2]), 4, parts[1] != "ecb"
    else:
        return None
    call = kind not in ("held", "bare")  # a held call writes no CTRL and no chaining value
    latency = engine_latency(arch, bits)
    if backend == "tight":
        extra = (1 if call else 0) + (TIGHT_BLOCK if chaining else 0)
        return Floor(extra + blocks * (TIGHT_BLOCK + latency),
                     f"{blocks} x ({TIGHT_BLOCK} instructions + {latency} engine) + {extra} (CTRL, chaining value)")
    if backend == "mem":
        extra = (1 if call else 0) + (TIGHT_BLOCK if chaining else 0)
        engine = engine_stream(arch, bits, blocks, serial=chaining and parts[1] in ("cbc", "cfb", "ofb"))
        return Floor(extra + 3 + 8 + engine,
                     f"LEN + fence + MEM + 8 DMA words + {engine} engine + {extra} (CTRL, chaining value)")
    if backend == "mmio":
        extra = (MMIO_ACCESS if call else 0) + (MMIO_BLOCK if chaining else 0)
        return Floor(extra + blocks * (MMIO_BLOCK + latency),
                     f"{blocks} x ({MMIO_BLOCK} for 16 accesses + {latency} engine) + {extra} (CTRL, chaining value)")
    return None


def summarise(measurements: list[Measurement]) -> Stats:
    """{backend: {measure: Stat}} from lines named aes/<backend>/<measure>."""
    return bench_report.summarise(measurements, "aes")


def check_agreement(stats: Stats) -> None:
    """Every backend must have computed the same output as the software one."""
    reference = stats.get("soft")
    if reference is None:
        raise CoupletError("the software backend is missing from the results")
    for backend, measures in stats.items():
        for measure, stat in measures.items():
            # A bare block is an ECB block: the software backend has no bare sequence.
            same = measure.replace("bare/", "ecb/", 1) if measure.startswith("bare/") else measure
            if not measure.startswith("init/") and stat.check != reference[same].check:
                raise CoupletError(f"{backend} {measure}: output differs from the software backend")


# The short-message table: (column, measure).
SHORT_COLUMNS = (
    ("ECB 16 B", "ecb/128/16"),
    ("ECB 80 B", "ecb/128/80"),
    ("held, 16 B", "held/128/16"),
    ("held, 80 B", "held/128/80"),
    ("bare sequence, 16 B", "bare/128/16"),
    ("AES-256 set-up", "init/256"),
    ("4 blocks CBC, AES-256", "4blk/cbc/256"),
)


def short_table(stats: Stats, arch: str) -> Section:
    """Each coupling's short calls, public API and held, each beside its floor."""
    rows = [[b] + [with_floor(stats[b].get(m), floor(b, m, arch)) for _, m in SHORT_COLUMNS] for b in stats]
    return ("Short messages: the public API and the accelerator held, AES-128 unless stated "
            "(cycles; floor = what the coupling cannot avoid plus the engine, and how far above it)",
            ["backend", *(c for c, _ in SHORT_COLUMNS)], rows)


def tables(stats: Stats, arch: str) -> list[Section]:
    backends = list(stats)
    soft = stats["soft"]
    out: list[Section] = [short_table(stats, arch)]
    rows = [[b] + [stats[b][f"init/{k}"].cell() + f" ({speedup(soft[f'init/{k}'], stats[b][f'init/{k}'])})"
                   for k in KEY_BITS] for b in backends]
    out.append(("Key set-up, couplet_aes_set_key (cycles, mean ± sd; speed-up vs soft)",
                ["backend", *(f"AES-{k}" for k in KEY_BITS)], rows))
    for k in KEY_BITS:
        rows = [[b] + [stats[b][f"ecb/{k}/{n}"].cell() for n in MESSAGE_BYTES]
                + [speedup(soft[f"ecb/{k}/80"], stats[b][f"ecb/{k}/80"])] for b in backends]
        out.append((f"AES-{k} ECB encryption by message size (cycles, mean ± sd)",
                    ["backend", *(f"{n} B" for n in MESSAGE_BYTES), "speed-up at 80 B"], rows))
    rows = []
    for b in backends:
        for k in KEY_BITS:
            rows.append([b, f"AES-{k}", *(stats[b][f"4blk/{m}/{k}"].cell() for m in MODES)])
    out.append(("4 consecutive blocks per mode (cycles, mean ± sd)", ["backend", "key", *MODES], rows))
    rows = [[b, f"{stats[b]['ctr4k/128'].mean:,.0f}", f"{CTR_BYTES / stats[b]['ctr4k/128'].mean:.3f}",
             speedup(soft["ctr4k/128"], stats[b]["ctr4k/128"])] for b in backends]
    out.append((f"Sustained AES-128 CTR over {CTR_BYTES} bytes",
                ["backend", "cycles", "bytes/cycle", "speed-up"], rows))
    return out


def goals(stats: Stats, arch: str) -> list[list[str]]:
    rows = []
    for label, measure, who, limit, anchor in GOALS + LEAN_GOALS:
        hardware = {b: s for b, s in stats.items() if b != "soft" and measure in s}
        if who == "min":
            if not hardware:
                continue
            backend = min(hardware, key=lambda b: hardware[b][measure].mean)
        elif who in hardware:
            backend = who
        else:
            continue
        row = goal_row(label, backend, hardware[backend][measure].mean, limit, anchor)
        bound = floor(backend, measure, arch)
        if bound is not None and row[4] != "met":
            row[4] += f" (floor {bound.cycles:,})"
        rows.append(row)
    if "dma" in stats:
        rate = CTR_BYTES / stats["dma"]["ctr4k/128"].mean
        rows.append(goal_row("AES-128 CTR 4 KiB, DMA", "dma", rate, 1.6, "-", at_least=True, unit="B/cycle", digits=2))
    accelerated = [s for b, s in stats.items() if b != "soft"]
    if accelerated:
        # The slowest case among the best coupling of each mode and key size.
        value = max(min(s[f"4blk/{m}/{k}"].mean for s in accelerated) for m in MODES for k in KEY_BITS)
        rows.append(goal_row("4 blocks, any mode and key size, best coupling", "-", value, 100, "AES-RV: 1,129-1,525"))
    return rows


def plot(stats: Stats, path: Path) -> None:
    series = {b: [ms[f"ecb/128/{n}"].mean for n in MESSAGE_BYTES] for b, ms in stats.items()}
    bench_report.bar_plot(path, [f"{n} B" for n in MESSAGE_BYTES], series,
                          "AES-128 ECB encryption, couplet_aes_ecb_encrypt", "cycles (log scale)")


def run(config: SocConfig) -> int:
    if config.aes is None:
        raise CoupletError(f"configuration '{config.name}' has no AES accelerator ([accelerator.aes])")
    console = bench_report.run_firmware(config, APP, f"{len(config.aes.backends)} backends, several million cycles",
                                        max_cycles=400_000_000)
    stats = summarise(parse_results(console))
    check_agreement(stats)
    arch = config.aes.arch
    intro = [
        f"# AES benchmark, configuration '{config.name}' (AES arch: {config.aes.arch})\n",
        "Cycles are mcycle deltas around one API call, as an application makes it, on CV32E40X in",
        "the Verilator model. Simulation is deterministic, so a standard deviation of 0 means every",
        "run took exactly the same time (no jitter). Speed-ups are against the",
        "portable constant-time software backend on the same core. ECB is the mode of the message-size",
        "tables (FAC-V Tables 6 and 7 shape); the 4-block table follows AES-RV Fig. 7.\n",
        "\"held\" is couplet/aes_held.h: the accelerator taken once with the key and mode, each call",
        "timed; \"bare sequence\" is the coupling's own instructions for one block alone",
        "(couplet/aes_coupling.h), with no API around them. The floor beside a figure counts what",
        "the coupling cannot avoid for that call: one",
        "cycle per instruction that moves the data (lw, sw, custom instructions), two per",
        "memory-mapped access, a word per cycle for the accelerator's DMA, plus the engine's cycles",
        f"per block ({arch}); docs/aes.md derives it. A goal not met shows its floor.\n",
    ]
    stem = f"bench-aes-{config.name}"
    floors = {b: {m: f.__dict__ for m in ms if (f := floor(b, m, arch)) is not None} for b, ms in stats.items()}
    data = {"config": config.name, "arch": arch, "backends": bench_report.stats_json(stats), "floors": floors}
    json_path, md_path = bench_report.publish(stem, intro, tables(stats, arch), goals(stats, arch), data)
    png = bench_report.plot_path(stem)
    plot(stats, png)
    log.info(f"written {json_path}, {md_path} and {png}")
    return 0
