"""`couplet sweep`: the hardware cost of each accelerator over its parameters and couplings.

Each point is the configuration's SoC with one accelerator, in one coupling, with one setting
changed (AES architecture, AES GHASH bits per cycle, Keccak rounds per cycle, RTOS thread count),
synthesized like the variants of `couplet synth` (core boxed, its count added once) and compared
with the core-only SoC. An axis has a name of its own (AXES: `--only aes_ghash`) and names the
accelerator whose [accelerator.*] setting it changes. The AES GHASH option (ghash_bits) is also
compared with the same SoC without a multiplier (ghash_bits = 0): that difference is its cost.
The AES key size is not a hardware parameter (one datapath runs 128, 192 and 256-bit keys), so
key sizes appear as throughput columns: cycles per 16-byte block from a `couplet bench aes`
report of an SoC with that architecture, at the tile's Fmax (with --fmax) or at the SoC clock.

A second chart puts each point's cycles (the axis's headline benchmark, HEADLINES, from the
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
from couplet.reports.bench_report import Section, goal_row, plot_path, publish
from couplet.reports.results import RESOURCE_HEADERS, fmt, reports_dir, resource_cells
from couplet.tools.nextpnr import PnrResult, ULX3S_85F
from couplet.tools.yosys import SynthResult, TARGETS
from couplet.tools.soc_synthesis import (Variant, attempt_fmax, boxed_job, core_count, core_job, derive_config,
                                         engine_count, ghash_count, run_parallel, tile_design)
from couplet.tools.yosys_stats import Resources


@dataclass(frozen=True)
class Axis:
    """What is swept: a setting of one accelerator's [accelerator.*] table, over values, in each
    of some couplings. An accelerator may have several axes (AES: arch and ghash_bits)."""

    accelerator: str  # the [accelerator.*] table changed, and whose engine is counted
    setting: str
    values: tuple[Any, ...]
    couplings: tuple[str, ...]
    title: str


AXES = {
    # zkn (the scalar unit) and ise (the kc.* unit) do not use the engine: no setting changes them.
    # The values are every legal one of the parameter (its description's [[param]]).
    "aes": Axis("aes", "arch", load_ip_regs("aes").param("arch").choices, ("tight", "mem", "mmio", "dma"),
                "AES engine architecture"),
    # GCM runs on the streams (mem, and dma's descriptor jobs); the multiplier and its registers are
    # the same in every coupling, so one coupling shows the option's cost.
    "aes_ghash": Axis("aes", "ghash_bits", load_ip_regs("aes").param("ghash_bits").choices, ("mem",),
                      "AES GHASH multiplier (GCM), bits per cycle"),
    "keccak": Axis("keccak", "rounds_per_cycle", load_ip_regs("keccak").param("rounds_per_cycle").choices,
                   ("tight", "mmio"), "Keccak rounds per cycle"),
    # ChamelIoT Fig. 9 measures 2 to 16 threads.
    "rtos": Axis("rtos", "max_threads", (2, 4, 8, 16), ("tight", "mmio"), "RTOS thread count"),
}
# What `couplet sweep` without --only sweeps.
DEFAULT_AXES = tuple(AXES)
# Issue goal: the GHASH option at 8 bits per cycle costs at most this many LUTs (Yosys xc7): the
# increase of the SoC over the same SoC with ghash_bits = 0.
GHASH_GOAL_BITS = 8
GHASH_GOAL_LUTS = 1500
KECCAK_RATE_BITS = 1088  # SHA3-256: the bits one permutation absorbs
AES_KEY_BITS = (128, 192, 256)


@dataclass(frozen=True)
class Point:
    axis: str  # its key in AXES
    coupling: str
    value: Any
    config: SocConfig

    @property
    def accelerator(self) -> str:
        return AXES[self.axis].accelerator

    @property
    def setting(self) -> str:
        return AXES[self.axis].setting

    @property
    def label(self) -> str:
        # Unique: no two axes of one accelerator change the same setting.
        return f"{self.accelerator} {self.coupling} {self.setting}={self.value}"


def report_stem(config: str, target: str, axes: tuple[str, ...], values: dict[str, tuple[Any, ...]]) -> str:
    """A narrowed sweep gets a report of its own, so it never overwrites a wider one."""
    if axes == DEFAULT_AXES and not values:
        return f"sweep-{config}-{target}"
    parts = [key + ("_" + "_".join(map(str, values[key])) if key in values else "") for key in axes]
    return f"sweep-{config}-{target}-{'-'.join(parts)}"


def selection_flags(axes: tuple[str, ...], values: dict[str, tuple[Any, ...]]) -> str:
    """The --only/--values options that make this selection, for the report's "made by" line."""
    flags = "" if axes == DEFAULT_AXES else f" --only {','.join(axes)}"
    return flags + "".join(f" --values {key}={','.join(map(str, v))}" for key, v in values.items())


def parse_values(key: str, text: str) -> tuple[Any, ...]:
    """A comma-separated subset of an axis's values (`--values`), checked against it."""
    axis = AXES[key]
    wanted = list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    by_text = {str(v): v for v in axis.values}
    unknown = [v for v in wanted if v not in by_text]
    if unknown or not wanted:
        raise CoupletError(f"--values {text!r}: {axis.setting} takes {', '.join(map(str, axis.values))}")
    return tuple(by_text[v] for v in wanted)


def parse_selection(only: str | None, values: list[str]) -> tuple[tuple[str, ...], dict[str, tuple[Any, ...]]]:
    """`--only aes,rtos` and `--values keccak=1,2` as the axes and values to sweep."""
    axes = tuple(dict.fromkeys(a.strip() for a in only.split(","))) if only else DEFAULT_AXES
    unknown = [a for a in axes if a not in AXES]
    if unknown or not axes:
        raise CoupletError(f"--only {only!r}: choose from {', '.join(AXES)}")
    chosen = {}
    for item in values:
        key, _, text = item.partition("=")
        if key not in axes:
            raise CoupletError(f"--values {item!r}: give AXIS=V1,V2 for one of {', '.join(axes)}")
        chosen[key] = parse_values(key, text)
    return axes, chosen


def points(config_name: str, axes: tuple[str, ...],
           values: dict[str, tuple[Any, ...]] | None = None) -> tuple[SocConfig, list[Point]]:
    doc, path = read_config_doc(config_name)
    full = parse_config(copy.deepcopy(doc), path)
    result = []
    for key in axes:
        axis = AXES[key]
        acc = axis.accelerator
        own = getattr(full, acc)
        if own is None:
            raise CoupletError(f"configuration '{full.name}' has no {acc} accelerator to sweep")
        for coupling in axis.couplings:
            for value in (values or {}).get(key, axis.values):
                # The configuration's own setting is the `couplet synth` variant: same name, same cache
                # (and the same SoC as the other axes' point at their own setting: synthesized once).
                suffix = "" if value == getattr(own, axis.setting) else f"_{axis.setting}_{value}"
                config = derive_config(doc, path, f"{full.name}_{acc}_{coupling}{suffix}", {acc: [coupling]},
                                       {acc: {axis.setting: value}})
                result.append(Point(key, coupling, value, config))
    return full, result


def run(config_name: str, target_name: str, axes: tuple[str, ...], jobs: int, fmax: bool,
        values: dict[str, tuple[Any, ...]] | None = None) -> int:
    target = TARGETS[target_name]
    full, sweep = points(config_name, axes, values)
    doc, path = read_config_doc(config_name)
    core_config = derive_config(doc, path, f"{full.name}_core", {})
    # Points of different axes can be one SoC (each axis at the configuration's own setting, e.g.
    # aes mem arch=rolled and ghash_bits=8): each SoC is synthesized once, never twice at a time.
    socs: dict[str, Point] = {}
    for p in sweep:
        socs.setdefault(p.config.name, p)
    log.info(f"sweep of '{full.name}' on {target.name}: {len(socs)} SoCs (" +
             ", ".join(f"{k}: {AXES[k].setting} x {len(AXES[k].couplings)} couplings" for k in axes) + ")")
    work: list[tuple[str, Callable[[], SynthResult]]] = [core_job(core_config, target),
                                                         boxed_job("core only", core_config, target)]
    work += [boxed_job(p.label, p.config, target) for p in socs.values()]
    results = run_parallel(jobs, work)
    core = core_count(results[0])[1]
    base = results[1].hierarchy.total() + core
    by_soc = dict(zip(socs, results[2:]))
    synthesized = {p.label: by_soc[p.config.name] for p in sweep}
    increase = {p.label: synthesized[p.label].hierarchy.total() + core - base for p in sweep}
    engine = {p.label: engine_count(synthesized[p.label], p.accelerator)[1] for p in sweep}
    ghash = {p.label: g for p in sweep if p.accelerator == "aes"
             and (g := ghash_count(synthesized[p.label])) is not None}

    pnr: dict[str, PnrResult] = {}
    unplaced: dict[str, str] = {}
    if fmax:
        tiles = [(p.label, tile_design(Variant(p.label, p.config, p.accelerator, p.coupling))) for p in socs.values()]
        done = run_parallel(jobs, [(f"nextpnr {label} tile", lambda d=design: attempt_fmax(d))  # type: ignore[misc]
                                   for label, design in tiles])
        by_label = dict(zip((label for label, _ in tiles), done))
        tile_of = {p.label: by_label[socs[p.config.name].label] for p in sweep}
        pnr = {label: r for label, r in tile_of.items() if not isinstance(r, str)}
        unplaced = {label: r for label, r in tile_of.items() if isinstance(r, str)}

    sections: list[Section] = []
    goals: list[list[str]] = []
    for key in axes:
        axis_points = [p for p in sweep if p.axis == key]
        sections.append(cost_section(key, axis_points, increase, engine, pnr, unplaced))
        if key == "aes":
            sections.append(aes_throughput_section(full, axis_points, increase, pnr))
        if key == "aes_ghash":
            sections.append(ghash_section(axis_points, increase, ghash))
            goals.append(ghash_goal_row(target.name, axis_points, increase))
        if key == "keccak":
            sections.append(keccak_throughput_section(full, axis_points, increase, pnr))
    intro = [f"# Parameter sweep of configuration '{full.name}' ({target.name})\n",
             f"Counts: {target.label}; each row is the increase over the core-only SoC "
             f"({fmt(base.luts)} LUTs, {fmt(base.ffs)} FFs). Made by `couplet sweep -c {config_name} "
             f"--target {target.name}{selection_flags(axes, values or {})}{' --fmax' if fmax else ''}`.\n"]
    if pnr:
        intro.append(f"Fmax: nextpnr-ecp5 0.11 (YoWASP) on {ULX3S_85F.name}, each tile between registers.\n")
    data = {
        "config": full.name, "target": target.name, "label": target.label,
        "core_only": base.as_dict(),
        "points": [{"axis": p.axis, "accelerator": p.accelerator, "coupling": p.coupling, "setting": p.setting,
                    "value": p.value, "config": p.config.name, "increase": increase[p.label].as_dict(),
                    "engine": engine[p.label].as_dict(),
                    **({"ghash": ghash[p.label].as_dict()} if p.label in ghash else {}),
                    "fmax_mhz": pnr[p.label].timing.fmax_mhz if p.label in pnr else None,
                    "not_placed": unplaced.get(p.label)} for p in sweep],
    }
    stem = report_stem(full.name, target.name, axes, values or {})
    charted = tuple(key for key in axes if key in HEADLINES)
    chart = reports_dir() / f"{stem}-cycles.png"
    cycles = chart_points(full, [p for p in sweep if p.axis in charted], increase)
    charts = f"Charts: +LUTs over each setting ([{plot_path(stem).name}]({plot_path(stem).name}))"
    if charted:
        sections.append(chart_section(charted, cycles, target.name))
        data["cycles_vs_luts"] = [{"axis": c.point.axis, "accelerator": c.point.accelerator,
                                   "coupling": c.point.coupling, "value": c.point.value, "luts": c.luts,
                                   "cycles": c.cycles, "source": c.source} for c in cycles]
        charts += f" and cycles versus +LUTs per axis ([{chart.name}]({chart.name}))"
    intro.append(charts + ".\n")
    measured: list[anchors.Measured] = [(p.accelerator, p.coupling, p.config, increase[p.label].luts) for p in sweep]
    json_path, md_path = publish(stem, intro, sections, anchors.goal_rows(target.name, measured) + goals, data)
    plot(plot_path(stem), axes, sweep, increase, target.name)
    written = [str(json_path), str(md_path), str(plot_path(stem))]
    if charted:
        cycles_plot(chart, charted, cycles, target.name)
        written.append(str(chart))
    log.info(f"written {', '.join(written)}")
    return 0


def cost_section(key: str, acc_points: list[Point], increase: dict[str, Resources], engine: dict[str, Resources],
                 pnr: dict[str, PnrResult], unplaced: dict[str, str]) -> Section:
    axis = AXES[key]
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


def ghash_section(axis_points: list[Point], increase: dict[str, Resources], ghash: dict[str, Resources]) -> Section:
    """The GHASH option's cost: each point against the same SoC with ghash_bits = 0, split into the
    multiplier (couplet_aes_ghash) and the rest (H register, S's read path, GCM muxes, control)."""
    headers = ["coupling", "ghash_bits", "GHASH cycles/block", "+LUTs over ghash_bits=0", "+FFs over ghash_bits=0",
               "multiplier LUTs", "multiplier FFs", "rest LUTs", "rest FFs"]

    def cells(r: Resources | None) -> list[str]:
        return ["-", "-"] if r is None else [fmt(r.luts), fmt(r.ffs)]

    rows = []
    for p in axis_points:
        zero = next((q for q in axis_points if q.coupling == p.coupling and q.value == 0), None)
        cost = increase[p.label] - increase[zero.label] if zero else None
        mult = Resources() if p.value == 0 else ghash.get(p.label)
        rest = cost - mult if cost is not None and mult is not None else None
        rows.append([p.coupling, str(p.value), str(128 // int(p.value)) if p.value else "- (no GCM)",
                     *cells(cost), *cells(mult), *cells(rest)])
    return ("AES GHASH option: increase over the same SoC without a multiplier (ghash_bits = 0); the multiplier "
            "is couplet_aes_ghash, the rest is couplet_aes's H register, S read path and GCM muxes", headers, rows)


def ghash_goal_row(target: str, axis_points: list[Point], increase: dict[str, Resources]) -> list[str]:
    """The issue's goal on the GHASH option at GHASH_GOAL_BITS bits per cycle (Yosys xc7)."""
    label = f"AES GHASH option at {GHASH_GOAL_BITS} bits/cycle (+LUTs over ghash_bits = 0)"
    anchor = f"couplet_aes_ghash alone at {GHASH_GOAL_BITS} bits/cycle: 811 LUTs (Yosys, same tool)"
    for p in axis_points:
        zero = next((q for q in axis_points if q.coupling == p.coupling and q.value == 0), None)
        if target == "xc7" and p.value == GHASH_GOAL_BITS and zero is not None:
            return goal_row(f"{label}, {p.coupling}", target, increase[p.label].luts - increase[zero.label].luts,
                            GHASH_GOAL_LUTS, anchor)
    return [label, "xc7", "-", f"<= {GHASH_GOAL_LUTS:g}",
            f"not measured here (needs ghash_bits 0 and {GHASH_GOAL_BITS} on xc7)", anchor]


def clock_of(p: Point, pnr: dict[str, PnrResult]) -> tuple[float, str]:
    """The clock a throughput is computed at: the tile's Fmax when measured, else the SoC's."""
    if p.label in pnr:
        return pnr[p.label].timing.fmax_mhz, "Fmax"
    return p.config.clock_hz / 1e6, "SoC clock"


@dataclass(frozen=True)
class Headline:
    """One axis's headline benchmark: its `couplet bench` report and one figure of it."""

    bench: str  # couplet bench <bench>; its report is bench-<bench>-<config>.json
    title: str  # the figure, for the chart's axis
    path: tuple[str, ...]  # keys from the report to the figure; "{coupling}" stands for the point's

    def cycles(self, doc: dict[str, Any], coupling: str) -> float | None:
        node: Any = doc
        for key in self.path:
            node = node.get(key.format(coupling=coupling)) if isinstance(node, dict) else None
        return float(node) if isinstance(node, (int, float)) else None


HEADLINES = {  # by axis; an axis without one is left out of the cycles-versus-LUTs chart
    "aes": Headline("aes", "AES-128 CTR over 4 KiB (cycles)", ("backends", "{coupling}", "ctr4k/128", "mean")),
    "aes_ghash": Headline("aead", "AES-GCM encryption of 4 KiB (cycles)",
                          ("backends", "{coupling}", "gcm4k/enc", "mean")),
    "keccak": Headline("sha3", "SHA3-256 of 4 KiB (cycles)", ("backends", "{coupling}", "sha3-256/4096", "mean")),
    "rtos": Headline("rtos", "taskYIELD() to another task: a context switch (cycles)",
                     ("api", "hw-{coupling}", "measures", "schedule/yield", "mean")),
}


def report_setting(doc: dict[str, Any], key: str) -> Any:
    """The setting an axis sweeps, of the SoC a bench report measured: from the report, else from
    its configuration file (None when neither says)."""
    axis = AXES[key]
    if axis.setting in doc:
        return doc[axis.setting]
    try:
        own = getattr(load_config(str(doc.get("config"))), axis.accelerator)
    except ConfigError:
        return None
    return getattr(own, axis.setting, None)


def bench_for(key: str, value: Any, preferred: str) -> tuple[str, dict[str, Any]] | None:
    """A `couplet bench` report (its file name and contents) of an SoC with this setting of the
    axis, the configuration's own report first."""
    bench = HEADLINES[key].bench
    reports = sorted((paths.BUILD_DIR / "reports").glob(f"bench-{bench}-*.json"))
    reports.sort(key=lambda r: r.name != f"bench-{bench}-{preferred}.json")
    for report in reports:
        doc = json.loads(report.read_text())
        if report_setting(doc, key) == value:
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


def plot(path: Path, axes: tuple[str, ...], sweep: list[Point], increase: dict[str, Resources],
         target: str) -> None:
    """One panel per axis: +LUTs over the swept setting, one line per coupling."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, panels = plt.subplots(1, len(axes), figsize=(4.5 * len(axes), 4), squeeze=False)
    for ax, key in zip(panels[0], axes):
        axis = AXES[key]
        for coupling in axis.couplings:
            pts = [p for p in sweep if p.axis == key and p.coupling == coupling]
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
    bench = HEADLINES[p.axis].bench
    setting = p.setting
    own = getattr(getattr(full, p.accelerator), setting)
    which = full.name if own == p.value else f"<a configuration with {setting} = {p.value}>"
    return f"no bench-{bench} report with {setting} = {p.value}: run `couplet bench {bench} -c {which}`"


def chart_points(full: SocConfig, sweep: list[Point], increase: dict[str, Resources]) -> list[ChartPoint]:
    """Each point's +LUTs and headline cycles; a point without a bench report says what to run."""
    result = []
    for p in sweep:
        bench = bench_for(p.axis, p.value, full.name)
        cycles = HEADLINES[p.axis].cycles(bench[1], p.coupling) if bench else None
        source = missing_bench(full, p) if bench is None else bench[0] if cycles is not None else \
            f"{bench[0]} has no {p.coupling} figure"
        result.append(ChartPoint(p, increase[p.label].luts, cycles, source))
    return result


def chart_section(axes: tuple[str, ...], points_: list[ChartPoint], target: str) -> Section:
    headers = ["accelerator", "coupling", "setting", f"+LUTs ({target})", "headline", "cycles", "source"]
    rows = [[c.point.accelerator, c.point.coupling, f"{c.point.setting}={c.point.value}",
             fmt(c.luts), HEADLINES[c.point.axis].title, fmt(c.cycles) if c.cycles is not None else "-",
             c.source] for key in axes for c in points_ if c.point.axis == key]
    return ("Cycles versus LUTs (the chart's points: pick a coupling and an engine for a LUT budget)", headers, rows)


def cycles_plot(path: Path, axes: tuple[str, ...], points_: list[ChartPoint], target: str) -> None:
    """One panel per axis (with a headline): headline cycles over +LUTs, one labelled point per
    coupling and setting; a panel without bench figures says which command gives them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, panels = plt.subplots(1, len(axes), figsize=(5.5 * len(axes), 4.5), squeeze=False)
    for ax, key in zip(panels[0], axes):
        mine = [c for c in points_ if c.point.axis == key]
        shown = [c for c in mine if c.cycles is not None]
        for coupling in AXES[key].couplings:
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
        ax.set_ylabel(HEADLINES[key].title)
        ax.set_title(AXES[key].title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
