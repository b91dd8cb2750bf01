"""`couplet bench aes`: cycles of the AES API for every backend of a SoC configuration.

The firmware (sw/apps/bench_aes) times each call with mcycle and prints one result line per
run; this module groups the runs, computes mean and standard deviation, checks that every
backend produced the same ciphertext, and writes build/reports/bench-aes-<config>.{json,md,png}.
Speed-ups are against the software backend on the same core.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from couplet import firmware, log, simbuild, simulator
from couplet.config import SocConfig
from couplet.errors import CoupletError
from couplet.results import Measurement, markdown_table, parse_results, reports_dir, write_report

APP = "bench_aes"
KEY_BITS = (128, 192, 256)
MESSAGE_BYTES = (16, 32, 48, 64, 80)
MODES = ("ecb", "cbc", "ctr", "cfb", "ofb")
CTR_BYTES = 4096

# Goals of the AES issue, with the seed papers' figures they improve on.
GOALS = (
    ("AES-128 16 B, best coupling", "ecb/128/16", "min", 16, "FAC-V RoCC Mem: 20"),
    ("AES-128 80 B, best coupling", "ecb/128/80", "min", 60, "FAC-V RoCC Mem: 165"),
    ("AES-128 16 B, memory-mapped", "ecb/128/16", "mmio", 40, "FAC-V MMIO: 189"),
    ("AES-256 key set-up, tight", "init/256", "tight", 20, "FAC-V RoCC: 45"),
)


@dataclass(frozen=True)
class Stat:
    mean: float
    stdev: float
    runs: int
    check: str

    def cell(self) -> str:
        return f"{self.mean:,.0f} ± {self.stdev:.1f}" if self.stdev else f"{self.mean:,.0f}"


def summarise(measurements: list[Measurement]) -> dict[str, dict[str, Stat]]:
    """{backend: {measure: Stat}} from lines named aes/<backend>/<measure>."""
    runs: dict[tuple[str, str], list[Measurement]] = defaultdict(list)
    for m in measurements:
        parts = m.name.split("/", 2)
        if len(parts) == 3 and parts[0] == "aes":
            runs[(parts[1], parts[2])].append(m)
    stats: dict[str, dict[str, Stat]] = defaultdict(dict)
    for (backend, measure), items in runs.items():
        checks = {m.check for m in items}
        if len(checks) != 1:
            raise CoupletError(f"{backend} {measure}: runs disagree on the output ({sorted(checks)})")
        cycles = [m.cycles for m in items]
        stats[backend][measure] = Stat(
            statistics.mean(cycles), statistics.pstdev(cycles) if len(cycles) > 1 else 0.0, len(cycles), checks.pop()
        )
    return dict(stats)


def check_agreement(stats: dict[str, dict[str, Stat]]) -> None:
    """Every backend must have computed the same output as the software one."""
    reference = stats.get("soft")
    if reference is None:
        raise CoupletError("the software backend is missing from the results")
    for backend, measures in stats.items():
        for measure, stat in measures.items():
            if not measure.startswith("init/") and stat.check != reference[measure].check:
                raise CoupletError(f"{backend} {measure}: output differs from the software backend")


def _speedup(base: Stat | None, stat: Stat) -> str:
    return f"{base.mean / stat.mean:,.1f}x" if base and stat.mean else "-"


def tables(stats: dict[str, dict[str, Stat]]) -> list[tuple[str, list[str], list[list[str]]]]:
    backends = list(stats)
    soft = stats["soft"]
    out: list[tuple[str, list[str], list[list[str]]]] = []
    rows = [[b] + [stats[b][f"init/{k}"].cell() + f" ({_speedup(soft[f'init/{k}'], stats[b][f'init/{k}'])})"
                   for k in KEY_BITS] for b in backends]
    out.append(("Key set-up, couplet_aes_set_key (cycles, mean ± sd; speed-up vs soft)",
                ["backend", *(f"AES-{k}" for k in KEY_BITS)], rows))
    for k in KEY_BITS:
        rows = [[b] + [stats[b][f"ecb/{k}/{n}"].cell() for n in MESSAGE_BYTES]
                + [_speedup(soft[f"ecb/{k}/80"], stats[b][f"ecb/{k}/80"])] for b in backends]
        out.append((f"AES-{k} ECB encryption by message size (cycles, mean ± sd)",
                    ["backend", *(f"{n} B" for n in MESSAGE_BYTES), "speed-up at 80 B"], rows))
    rows = []
    for b in backends:
        for k in KEY_BITS:
            rows.append([b, f"AES-{k}", *(stats[b][f"4blk/{m}/{k}"].cell() for m in MODES)])
    out.append(("4 consecutive blocks per mode (cycles, mean ± sd)", ["backend", "key", *MODES], rows))
    rows = [[b, f"{stats[b]['ctr4k/128'].mean:,.0f}", f"{CTR_BYTES / stats[b]['ctr4k/128'].mean:.3f}",
             _speedup(soft["ctr4k/128"], stats[b]["ctr4k/128"])] for b in backends]
    out.append((f"Sustained AES-128 CTR over {CTR_BYTES} bytes",
                ["backend", "cycles", "bytes/cycle", "speed-up"], rows))
    return out


def goals(stats: dict[str, dict[str, Stat]]) -> list[list[str]]:
    rows = []
    for label, measure, who, limit, anchor in GOALS:
        hardware = {b: s for b, s in stats.items() if b != "soft" and measure in s}
        if who == "min":
            if not hardware:
                continue
            backend = min(hardware, key=lambda b: hardware[b][measure].mean)
        elif who in hardware:
            backend = who
        else:
            continue
        value = hardware[backend][measure].mean
        rows.append([label, backend, f"{value:,.0f}", f"<= {limit}", "met" if value <= limit else "NOT met", anchor])
    if "dma" in stats:
        rate = CTR_BYTES / stats["dma"]["ctr4k/128"].mean
        rows.append(["AES-128 CTR 4 KiB, DMA", "dma", f"{rate:.2f} B/cycle", ">= 1.6 B/cycle",
                     "met" if rate >= 1.6 else "NOT met", "-"])
    accelerated = [s for b, s in stats.items() if b != "soft"]
    if accelerated:
        # The slowest case among the best coupling of each mode and key size.
        value = max(min(s[f"4blk/{m}/{k}"].mean for s in accelerated) for m in MODES for k in KEY_BITS)
        rows.append(["4 blocks, any mode and key size, best coupling", "-", f"{value:,.0f}", "<= 100",
                     "met" if value <= 100 else "NOT met", "AES-RV: 1,129-1,525"])
    return rows


def plot(stats: dict[str, dict[str, Stat]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(stats)
    for i, (backend, measures) in enumerate(stats.items()):
        xs = [j + i * width for j in range(len(MESSAGE_BYTES))]
        ax.bar(xs, [measures[f"ecb/128/{n}"].mean for n in MESSAGE_BYTES], width, label=backend)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(MESSAGE_BYTES))], [f"{n} B" for n in MESSAGE_BYTES])
    ax.set_yscale("log")
    ax.set_ylabel("cycles (log scale)")
    ax.set_title("AES-128 ECB encryption, couplet_aes_ecb_encrypt")
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(config: SocConfig) -> int:
    if config.aes is None:
        raise CoupletError(f"configuration '{config.name}' has no AES accelerator ([accelerator.aes])")
    simbuild.build_sim(config)
    log.info("building the bench_aes firmware")
    elf = firmware.build_app(config, APP)
    log.info(f"simulating {elf.name}: {len(config.aes.backends)} backends, several million cycles")
    result = simulator.simulate(config, elf, capture=True, max_cycles=400_000_000)
    console = result.console or ""
    if result.status != "exit" or result.exit_code != 0:
        print(console)
        raise CoupletError(f"bench_aes failed: {result.status}, exit code {result.exit_code}")
    stats = summarise(parse_results(console))
    check_agreement(stats)
    sections = tables(stats)
    goal_rows = goals(stats)
    goal_headers = ["goal", "backend", "measured", "target", "verdict", "anchor"]
    for title, headers, rows in sections:
        print(f"\n{title}")
        print(log.table(headers, rows))
    print("\nGoals")
    print(log.table(goal_headers, goal_rows))
    markdown = [
        f"# AES benchmark, configuration '{config.name}' (AES arch: {config.aes.arch})\n",
        "Cycles are mcycle deltas around one API call, as an application makes it, on CV32E40X in",
        "the Verilator model. Simulation is deterministic, so a standard deviation of 0 means every",
        "run took exactly the same time (no jitter). Speed-ups are against the",
        "portable constant-time software backend on the same core. ECB is the mode of the message-size",
        "tables (FAC-V Tables 6 and 7 shape); the 4-block table follows AES-RV Fig. 7.\n",
    ]
    for title, headers, rows in sections:
        markdown += [f"## {title}\n", markdown_table(headers, rows)]
    markdown += ["## Goals\n", markdown_table(goal_headers, goal_rows)]
    data = {
        "config": config.name,
        "arch": config.aes.arch,
        "backends": {b: {m: s.__dict__ for m, s in ms.items()} for b, ms in stats.items()},
        "goals": [dict(zip(goal_headers, r)) for r in goal_rows],
    }
    json_path, md_path = write_report(f"bench-aes-{config.name}", data, "\n".join(markdown))
    png = reports_dir() / f"bench-aes-{config.name}.png"
    plot(stats, png)
    log.info(f"written {json_path}, {md_path} and {png}")
    return 0
