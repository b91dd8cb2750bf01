"""`couplet sweep`: the hardware cost of each accelerator over its parameters and couplings.

Each point is the configuration's SoC with one accelerator, in one coupling, with one setting
changed (AES architecture, Keccak rounds per cycle, RTOS thread count), synthesized like the
variants of `couplet synth` (core boxed, its count added once) and compared with the core-only
SoC. The AES key size is not a hardware parameter (one datapath runs 128, 192 and 256-bit keys),
so key sizes appear as throughput columns: cycles per 16-byte block from a `couplet bench aes`
report of an SoC with that architecture, at the tile's Fmax (with --fmax) or at the SoC clock.

A second chart puts each point's cycles (the accelerator's headline benchmark, HEADLINES, from the
`couplet bench` report of a configuration with the point's setting) against its +LUTs, so that a
reader picks a coupling and an engine for a budget at a glance.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from couplet import log, paths
from couplet.errors import CoupletError
from couplet.model.config import ConfigError, SocConfig, load_config, parse_config, read_config_doc
from couplet.model.regs import load_ip_regs
from couplet.reports import anchors
from couplet.reports.bench_report import Section, plot_path, publish
from couplet.reports.results import RESOURCE_HEADERS, fmt, reports_dir, resource_cells
from couplet.tools.nextpnr import PnrResult, ULX3S_85F
from couplet.tools.yosys import SynthResult, TARGETS
from couplet.tools.soc_synthesis import (Variant, attempt_fmax, boxed_job, core_count, core_job, derive_config,
                                         engine_count, run_parallel, tile_design)
from couplet.tools.yosys_stats import Resources


@dataclass(frozen=True)
class Axis:
    """What is swept for one accelerator: a setting of its [accelerator.*] table, over values,
    in each of some couplings."""

    setting: str
    values: tuple[Any, ...]
    couplings: tuple[str, ...]
    title: str


AXES = {
    # zkn (the scalar unit) and ise (the kc.* unit) do not use the engine: no setting changes them.
    # The values are every legal one of the parameter (its description's [[param]]).
    "aes": Axis("arch", load_ip_regs("aes").param("arch").choices, ("tight", "mem", "mmio", "dma"),
                "AES engine architecture"),
    "keccak": Axis("rounds_per_cycle", load_ip_regs("keccak").param("rounds_per_cycle").choices, ("tight", "mmio"),
                   "Keccak rounds per cycle"),
    # ChamelIoT Fig. 9 measures 2 to 16 threads.
    "rtos": Axis("max_threads", (2, 4, 8, 16), ("tight", "mmio"), "RTOS thread count"),
}
KECCAK_RATE_BITS = 1088  # SHA3-256: the bits one permutation absorbs
AES_KEY_BITS = (128, 192, 256)


@dataclass(frozen=True)
class Point:
    accelerator: str
    coupling: str
    value: Any
    config: SocConfig

    @property
    def label(self) -> str:
        return f"{self.accelerator} {self.coupling} {AXES[self.accelerator].setting}={self.value}"


def report_stem(config: str, target: str, accelerators: tuple[str, ...], values: dict[str, tuple[Any, ...]]) -> str:
    """A narrowed sweep gets a report of its own, so it never overwrites a wider one."""
    if accelerators == tuple(AXES) and not values:
        return f"sweep-{config}-{target}"
    parts = [acc + ("_" + "_".join(map(str, values[acc])) if acc in values else "") for acc in accelerators]
    return f"sweep-{config}-{target}-{'-'.join(parts)}"


def selection_flags(accelerators: tuple[str, ...], values: dict[str, tuple[Any, ...]]) -> str:
    """The --only/--values options that make this selection, for the report's "made by" line."""
    flags = "" if accelerators == tuple(AXES) else f" --only {','.join(accelerators)}"
    return flags + "".join(f" --values {acc}={','.join(map(str, v))}" for acc, v in values.items())


def parse_values(accelerator: str, text: str) -> tuple[Any, ...]:
    """A comma-separated subset of an axis's values (`--values`), checked against it."""
    axis = AXES[accelerator]
    wanted = [v.strip() for v in text.split(",") if v.strip()]
    by_text = {str(v): v for v in axis.values}
    unknown = [v for v in wanted if v not in by_text]
    if unknown or not wanted:
        raise CoupletError(f"--values {text!r}: {axis.setting} takes {', '.join(map(str, axis.values))}")
    return tuple(by_text[v] for v in wanted)


def parse_selection(only: str | None, values: list[str]) -> tuple[tuple[str, ...], dict[str, tuple[Any, ...]]]:
    """`--only aes,rtos` and `--values keccak=1,2` as the accelerators and values to sweep."""
    accelerators = tuple(a.strip() for a in only.split(",")) if only else tuple(AXES)
    unknown = [a for a in accelerators if a not in AXES]
    if unknown or not accelerators:
        raise CoupletError(f"--only {only!r}: choose from {', '.join(AXES)}")
    chosen = {}
    for item in values:
        acc, _, text = item.partition("=")
        if acc not in accelerators:
            raise CoupletError(f"--values {item!r}: give ACCELERATOR=V1,V2 for one of {', '.join(accelerators)}")
        chosen[acc] = parse_values(acc, text)
    return accelerators, chosen


def points(config_name: str, accelerators: tuple[str, ...],
           values: dict[str, tuple[Any, ...]] | None = None) -> tuple[SocConfig, list[Point]]:
    doc, path = read_config_doc(config_name)
    full = parse_config(copy.deepcopy(doc), path)
    result = []
    for acc in accelerators:
        own = getattr(full, acc)
        if own is None:
            raise CoupletError(f"configuration '{full.name}' has no {acc} accelerator to sweep")
        axis = AXES[acc]
        for coupling in axis.couplings:
            for value in (values or {}).get(acc, axis.values):
                # The configuration's own setting is the `couplet synth` variant: same name, same cache.
                suffix = "" if value == getattr(own, axis.setting) else f"_{axis.setting}_{value}"
                config = derive_config(doc, path, f"{full.name}_{acc}_{coupling}{suffix}", {acc: [coupling]},
                                       {acc: {axis.setting: value}})
                result.append(Point(acc, coupling, value, config))
    return full, result


def run(config_name: str, target_name: str, accelerators: tuple[str, ...], jobs: int, fmax: bool,
        values: dict[str, tuple[Any, ...]] | None = None) -> int:
    target = TARGETS[target_name]
    full, sweep = points(config_name, accelerators, values)
    doc, path = read_config_doc(config_name)
    core_config = derive_config(doc, path, f"{full.name}_core", {})
    log.info(f"sweep of '{full.name}' on {target.name}: {len(sweep)} SoCs (" +
             ", ".join(f"{a}: {AXES[a].setting} x {len(AXES[a].couplings)} couplings" for a in accelerators) + ")")
    work: list[tuple[str, Callable[[], SynthResult]]] = [core_job(core_config, target),
                                                         boxed_job("core only", core_config, target)]
    work += [boxed_job(p.label, p.config, target) for p in sweep]
    results = run_parallel(jobs, work)
    core = core_count(results[0])[1]
    base = results[1].hierarchy.total() + core
    increase = {p.label: r.hierarchy.total() + core - base for p, r in zip(sweep, results[2:])}
    engine = {p.label: engine_count(r, p.accelerator)[1] for p, r in zip(sweep, results[2:])}

    pnr: dict[str, PnrResult] = {}
    unplaced: dict[str, str] = {}
    if fmax:
        tiles = [(p.label, tile_design(Variant(p.label, p.config, p.accelerator, p.coupling))) for p in sweep]
        done = run_parallel(jobs, [(f"nextpnr {label} tile", lambda d=design: attempt_fmax(d))  # type: ignore[misc]
                                   for label, design in tiles])
        pnr = {label: r for (label, _), r in zip(tiles, done) if not isinstance(r, str)}
        unplaced = {label: r for (label, _), r in zip(tiles, done) if isinstance(r, str)}

    sections: list[Section] = []
    for acc in accelerators:
        acc_points = [p for p in sweep if p.accelerator == acc]
        sections.append(cost_section(acc, acc_points, increase, engine, pnr, unplaced))
        if acc == "aes":
            sections.append(aes_throughput_section(full, acc_points, increase, pnr))
        if acc == "keccak":
            sections.append(keccak_throughput_section(full, acc_points, increase, pnr))
    intro = [f"# Parameter sweep of configuration '{full.name}' ({target.name})\n",
             f"Counts: {target.label}; each row is the increase over the core-only SoC "
             f"({fmt(base.luts)} LUTs, {fmt(base.ffs)} FFs). Made by `couplet sweep -c {config_name} "
             f"--target {target.name}{selection_flags(accelerators, values or {})}{' --fmax' if fmax else ''}`.\n"]
    if pnr:
        intro.append(f"Fmax: nextpnr-ecp5 0.11 (YoWASP) on {ULX3S_85F.name}, each tile between registers.\n")
    data = {
        "config": full.name, "target": target.name, "label": target.label,
        "core_only": base.as_dict(),
        "points": [{"accelerator": p.accelerator, "coupling": p.coupling, "setting": AXES[p.accelerator].setting,
                    "value": p.value, "config": p.config.name, "increase": increase[p.label].as_dict(),
                    "engine": engine[p.label].as_dict(),
                    "fmax_mhz": pnr[p.label].timing.fmax_mhz if p.label in pnr else None,
                    "not_placed": unplaced.get(p.label)} for p in sweep],
    }
    stem = report_stem(full.name, target.name, accelerators, values or {})
    chart = reports_dir() / f"{stem}-cycles.png"
    cycles = chart_points(full, sweep, increase)
    sections.append(chart_section(accelerators, cycles, target.name))
    data["cycles_vs_luts"] = [{"accelerator": c.point.accelerator, "coupling": c.point.coupling,
                               "value": c.point.value, "luts": c.luts, "cycles": c.cycles, "source": c.source}
                              for c in cycles]
    intro.append(f"Charts: +LUTs over each setting ([{plot_path(stem).name}]({plot_path(stem).name})) and cycles "
                 f"versus +LUTs per accelerator ([{chart.name}]({chart.name})).\n")
    measured: list[anchors.Measured] = [(p.accelerator, p.coupling, p.config, increase[p.label].luts) for p in sweep]
    json_path, md_path = publish(stem, intro, sections, anchors.goal_rows(target.name, measured), data)
    plot(plot_path(stem), accelerators, sweep, increase, target.name)
    cycles_plot(chart, accelerators, cycles, target.name)
    log.info(f"written {json_path}, {md_path}, {plot_path(stem)} and {chart}")
    return 0


def cost_section(acc: str, acc_points: list[Point], increase: dict[str, Resources], engine: dict[str, Resources],
                 pnr: dict[str, PnrResult], unplaced: dict[str, str]) -> Section:
    axis = AXES[acc]
    measured = bool(pnr or unplaced)
    headers = ["coupling", axis.setting, *(f"+{h}" for h in RESOURCE_HEADERS), "engine LUTs", "front end LUTs"]
    headers += ["Fmax (MHz)"] if measured else []
    rows = []
    for p in acc_points:
        row = [p.coupling, str(p.value), *resource_cells(increase[p.label]), fmt(engine[p.label].luts),
               fmt(increase[p.label].luts - engine[p.label].luts)]
        if measured:
            row.append(f"{pnr[p.label].timing.fmax_mhz:.1f}" if p.label in pnr else f"not placed: {unplaced[p.label]}")
        rows.append(row)
    return (f"{axis.title}: increase over the core-only SoC", headers, rows)


def clock_of(p: Point, pnr: dict[str, PnrResult]) -> tuple[float, str]:
    """The clock a throughput is computed at: the tile's Fmax when measured, else the SoC's."""
    if p.label in pnr:
        return pnr[p.label].timing.fmax_mhz, "Fmax"
    return p.config.clock_hz / 1e6, "SoC clock"


@dataclass(frozen=True)
class Headline:
    """One accelerator's headline benchmark: its `couplet bench` report and one figure of it."""

    bench: str  # couplet bench <bench>; its report is bench-<bench>-<config>.json
    title: str  # the figure, for the chart's axis
    path: tuple[str, ...]  # keys from the report to the figure; "{coupling}" stands for the point's

    def cycles(self, doc: dict[str, Any], coupling: str) -> float | None:
        node: Any = doc
        for key in self.path:
            node = node.get(key.format(coupling=coupling)) if isinstance(node, dict) else None
        return float(node) if isinstance(node, (int, float)) else None


HEADLINES = {
    "aes": Headline("aes", "AES-128 CTR over 4 KiB (cycles)", ("backends", "{coupling}", "ctr4k/128", "mean")),
    "keccak": Headline("sha3", "SHA3-256 of 4 KiB (cycles)", ("backends", "{coupling}", "sha3-256/4096", "mean")),
    "rtos": Headline("rtos", "taskYIELD() to another task: a context switch (cycles)",
                     ("api", "hw-{coupling}", "measures", "schedule/yield", "mean")),
}


def report_setting(doc: dict[str, Any], accelerator: str) -> Any:
    """The swept setting of the SoC a bench report measured: from the report, else from its
    configuration file (None when neither says)."""
    setting = AXES[accelerator].setting
    if setting in doc:
        return doc[setting]
    try:
        own = getattr(load_config(str(doc.get("config"))), accelerator)
    except ConfigError:
        return None
    return getattr(own, setting, None)


def bench_for(accelerator: str, value: Any, preferred: str) -> tuple[str, dict[str, Any]] | None:
    """A `couplet bench` report (its file name and contents) of an SoC with this setting, the
    configuration's own report first."""
    bench = HEADLINES[accelerator].bench
    reports = sorted((paths.BUILD_DIR / "reports").glob(f"bench-{bench}-*.json"))
    reports.sort(key=lambda r: r.name != f"bench-{bench}-{preferred}.json")
    for report in reports:
        doc = json.loads(report.read_text())
        if report_setting(doc, accelerator) == value:
            return report.name, doc
    return None


def aes_throughput_section(full: SocConfig, acc_points: list[Point], increase: dict[str, Resources],
                           pnr: dict[str, PnrResult]) -> Section:
    """Key sizes: ECB of one block through the C API per key size (AES-RV Table I shape)."""
    headers = ["coupling", "arch", *(f"AES-{b} cycles/16 B" for b in AES_KEY_BITS),
               *(f"AES-{b} Mbit/s" for b in AES_KEY_BITS), "clock (MHz)", "AES-128 kbit/s per LUT", "source"]
    rows = []
    for p in acc_points:
        bench = bench_for("aes", p.value, full.name)
        cycles = [None] * len(AES_KEY_BITS) if bench is None else [
            bench[1]["backends"].get(p.coupling, {}).get(f"ecb/{b}/16", {}).get("mean") for b in AES_KEY_BITS]
        mhz, basis = clock_of(p, pnr)
        mbps = [128 * mhz / c if c else None for c in cycles]
        luts = increase[p.label].luts
        per_lut = f"{1000 * mbps[0] / luts:.2f}" if mbps[0] and luts else "-"
        source = bench[0] if bench else missing_bench(full, p)
        rows.append([p.coupling, str(p.value), *(fmt(c) if c else "-" for c in cycles),
                     *(f"{m:.1f}" if m else "-" for m in mbps), f"{mhz:.1f} ({basis})", per_lut, source])
    return ("AES throughput per key size (ECB, one 16-byte block through the C API, key set up)", headers, rows)


def keccak_throughput_section(full: SocConfig, acc_points: list[Point], increase: dict[str, Resources],
                              pnr: dict[str, PnrResult]) -> Section:
    """The permutation's own rate: 24 / rounds-per-cycle cycles per 1,088-bit SHA3-256 block."""
    headers = ["coupling", "rounds/cycle", "cycles/permutation", "clock (MHz)", "SHA3-256 Mbit/s (permutation)",
               "kbit/s per LUT"]
    rows = []
    for p in acc_points:
        cycles = 24 // int(p.value)
        mhz, basis = clock_of(p, pnr)
        mbps = KECCAK_RATE_BITS * mhz / cycles
        luts = increase[p.label].luts
        rows.append([p.coupling, str(p.value), str(cycles), f"{mhz:.1f} ({basis})", f"{mbps:.1f}",
                     f"{1000 * mbps / luts:.2f}" if luts else "-"])
    return (f"Keccak permutation throughput (upper bound: the front door's transfer time is not included; "
            f"see `couplet bench sha3` for '{full.name}')", headers, rows)


def plot(path: Path, accelerators: tuple[str, ...], sweep: list[Point], increase: dict[str, Resources],
         target: str) -> None:
    """One panel per accelerator: +LUTs over the swept setting, one line per coupling."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(accelerators), figsize=(4.5 * len(accelerators), 4), squeeze=False)
    for ax, acc in zip(axes[0], accelerators):
        axis = AXES[acc]
        for coupling in axis.couplings:
            pts = [p for p in sweep if p.accelerator == acc and p.coupling == coupling]
            ax.plot([str(p.value) for p in pts], [increase[p.label].luts for p in pts], marker="o", label=coupling)
        ax.set_xlabel(axis.setting)
        ax.set_ylabel(f"+LUTs ({target})")
        ax.set_title(axis.title)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@dataclass(frozen=True)
class ChartPoint:
    point: Point
    luts: float
    cycles: float | None
    source: str  # the bench report, or what to run to get one


def missing_bench(full: SocConfig, p: Point) -> str:
    bench = HEADLINES[p.accelerator].bench
    setting = AXES[p.accelerator].setting
    own = getattr(getattr(full, p.accelerator), setting)
    which = full.name if own == p.value else f"<a configuration with {setting} = {p.value}>"
    return f"no bench-{bench} report with {setting} = {p.value}: run `couplet bench {bench} -c {which}`"


def chart_points(full: SocConfig, sweep: list[Point], increase: dict[str, Resources]) -> list[ChartPoint]:
    """Each point's +LUTs and headline cycles; a point without a bench report says what to run."""
    result = []
    for p in sweep:
        bench = bench_for(p.accelerator, p.value, full.name)
        cycles = HEADLINES[p.accelerator].cycles(bench[1], p.coupling) if bench else None
        source = missing_bench(full, p) if bench is None else bench[0] if cycles is not None else \
            f"{bench[0]} has no {p.coupling} figure"
        result.append(ChartPoint(p, increase[p.label].luts, cycles, source))
    return result


def chart_section(accelerators: tuple[str, ...], points_: list[ChartPoint], target: str) -> Section:
    headers = ["accelerator", "coupling", "setting", f"+LUTs ({target})", "headline", "cycles", "source"]
    rows = [[c.point.accelerator, c.point.coupling, f"{AXES[c.point.accelerator].setting}={c.point.value}",
             fmt(c.luts), HEADLINES[c.point.accelerator].title, fmt(c.cycles) if c.cycles is not None else "-",
             c.source] for acc in accelerators for c in points_ if c.point.accelerator == acc]
    return ("Cycles versus LUTs (the chart's points: pick a coupling and an engine for a LUT budget)", headers, rows)


def cycles_plot(path: Path, accelerators: tuple[str, ...], points_: list[ChartPoint], target: str) -> None:
    """One panel per accelerator: headline cycles over +LUTs, one labelled point per coupling and
    setting; a panel without bench figures says which command gives them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(accelerators), figsize=(5.5 * len(accelerators), 4.5), squeeze=False)
    for ax, acc in zip(axes[0], accelerators):
        mine = [c for c in points_ if c.point.accelerator == acc]
        shown = [c for c in mine if c.cycles is not None]
        for coupling in AXES[acc].couplings:
            pts = [c for c in shown if c.point.coupling == coupling]
            if pts:
                ax.scatter([c.luts for c in pts], [c.cycles for c in pts], label=coupling)
        for c in shown:
            ax.annotate(f"{c.point.coupling} ({c.point.value})", (c.luts, c.cycles or 0), fontsize="x-small",
                        xytext=(3, 3), textcoords="offset points")
        missing = list(dict.fromkeys(c.source for c in mine if c.cycles is None))
        if missing:
            ax.text(0.02, 0.02, "\n".join(["not shown:", *missing]), transform=ax.transAxes, fontsize="xx-small",
                    va="bottom", wrap=True)
        if shown:
            ax.set_yscale("log")
            ax.legend(fontsize="small")
        ax.set_xlabel(f"+LUTs over the core-only SoC ({target})")
        ax.set_ylabel(HEADLINES[acc].title)
        ax.set_title(AXES[acc].title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
