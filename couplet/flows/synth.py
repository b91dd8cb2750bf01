"""`couplet synth`: what a configuration's SoC and each accelerator coupling cost on an FPGA.

FAC-V Table 5 shape: the core-only SoC (the configuration without accelerators), then the SoC
with one accelerator in one coupling, for every coupling the configuration has, and the whole
configuration, each with its increase over the core-only SoC. The core is mapped once, in the
core-only SoC; every other variant is synthesized with the core left as a box and the core's
count added (the core's parameters are the same in every variant, and the hierarchy is kept at
its boundary, so its count does not change). With --fmax, nextpnr-ecp5 places and routes each
accelerator tile behind each coupling (hw/fpga/rtl/couplet_fmax_tile.sv) and the whole SoC.

Each variant's increase splits into its engine (ENGINES in couplet/tools/soc_synthesis.py, kept
as a module of its own in the same synthesis, so engine + front end = increase exactly) and its
front end (everything else the variant adds). The AES engine includes the GHASH multiplier of GCM
when the configuration has one (ghash_bits), and its own count is a column of the engine table.
The report ends with the anchors and the goals of couplet/reports/anchors.py.
"""

from __future__ import annotations

import json
from typing import Callable

from couplet import log, paths
from couplet.gen import generate
from couplet.model.config import SocConfig
from couplet.reports import anchors
from couplet.reports.bench_report import Section, bar_plot, goal_row, plot_path, publish
from couplet.reports.results import RESOURCE_HEADERS, fmt, resource_cells
from couplet.tools.nextpnr import PnrResult, ULX3S_85F
from couplet.tools.soc_synthesis import (FMAX_GOAL_MHZ, Variant, attempt_fmax, boxed_job, config_package, core_count,
                                         core_job, engine_count, engine_label, ghash_count, instance_resources,
                                         run_parallel, tile_design, variants)
from couplet.tools.yosys import SynthResult, TARGETS, Target, report_progress, soc_design
from couplet.tools.yosys_stats import Resources

def run(config_name: str, target_name: str, jobs: int, fmax: bool) -> int:
    target = TARGETS[target_name]
    full, all_variants = variants(config_name)
    work = [core_job(all_variants[0].config, target)]
    work += [boxed_job(v.label, v.config, target) for v in all_variants]
    results = run_parallel(jobs, work)
    for r in results:
        report_progress(r)
    core_result, rest = results[0], results[1:]
    core = core_count(core_result)[1]
    totals = {v.label: r.hierarchy.total() + core for v, r in zip(all_variants, rest)}
    base = totals[all_variants[0].label]
    engines = {v.label: engine_count(r, v.accelerator) for v, r in zip(all_variants, rest)}
    ghash = {v.label: g for v, r in zip(all_variants, rest) if (g := ghash_count(r)) is not None}

    pnr: dict[str, PnrResult] = {}
    unplaced: dict[str, str] = {}
    if fmax:
        pnr, unplaced = run_fmax(full, all_variants, jobs)

    sections = [variant_section(target, all_variants, totals, base, pnr, unplaced),
                engine_section(target, all_variants, totals, base, engines, ghash),
                module_section(full, target, rest[-1], core)]
    if pnr:
        sections.append(throughput_section(full, all_variants, totals, base, pnr))
    sections += anchors.anchor_sections()
    goals = goal_rows(full, target, all_variants, totals, base, pnr, unplaced)
    intro = [f"# Hardware cost of configuration '{full.name}' ({target.name})\n",
             f"Counts: {target.label}. Made by `couplet synth -c {config_name} --target {target.name}"
             f"{' --fmax' if fmax else ''}`; Yosys 0.70 (YoWASP) with read_slang. BRAM in 36 Kb blocks (xc7), "
             "DP16KD (ecp5) or 4 Kb blocks (ice40).\n"]
    if pnr:
        intro.append(f"Fmax: nextpnr-ecp5 0.11 (YoWASP) on {ULX3S_85F.name}, seed 1, ECP5 counts for the tiles.\n")
    data = {
        "config": full.name, "target": target.name, "label": target.label,
        "core": core.as_dict(),
        "variants": {v.label: {"config": v.config.name, "accelerator": v.accelerator, "coupling": v.coupling,
                               "total": totals[v.label].as_dict(), "increase": (totals[v.label] - base).as_dict(),
                               "engine": {"modules": sorted(engines[v.label][0]), **engines[v.label][1].as_dict()},
                               **({"ghash": {"bits": ghash_bits(v.config), **ghash[v.label].as_dict()}}
                                  if v.label in ghash else {}),
                               "front_end": (totals[v.label] - base - engines[v.label][1]).as_dict()}
                     for v in all_variants},
        "modules": {path: r.as_dict() for path, r in instance_resources(rest[-1], core).items()},
        "fmax_mhz": {label: {"device": p.device.name, "fmax": p.timing.fmax_mhz, "target": p.timing.target_mhz,
                             "luts_ecp5": p.synth.hierarchy.total().luts} for label, p in pnr.items()},
        "not_placed": unplaced,
    }
    stem = f"synth-{full.name}-{target.name}"
    json_path, md_path = publish(stem, intro, sections, goals, data)
    plot(stem, all_variants, totals, base, target)
    log.info(f"written {json_path}, {md_path} and {plot_path(stem)}")
    return 0


def variant_section(target: Target, all_variants: list[Variant], totals: dict[str, Resources], base: Resources,
                    pnr: dict[str, PnrResult], unplaced: dict[str, str]) -> Section:
    headers = ["SoC", *RESOURCE_HEADERS, "+LUTs", "+FFs"] + (["tile Fmax (MHz)"] if pnr or unplaced else [])
    rows = []
    for v in all_variants:
        t = totals[v.label]
        d = t - base
        row = [v.label, *resource_cells(t), "-" if v is all_variants[0] else f"+{fmt(d.luts)}",
               "-" if v is all_variants[0] else f"+{fmt(d.ffs)}"]
        if pnr or unplaced:
            row.append(f"{pnr[v.label].timing.fmax_mhz:.1f}" if v.label in pnr else
                       f"not placed: {unplaced[v.label]}" if v.label in unplaced else "-")
        rows.append(row)
    return (f"Each accelerator in each coupling ({target.name}, increase over the core-only SoC)", headers, rows)


def ghash_bits(config: SocConfig) -> int:
    return config.aes.ghash_bits if config.aes else 0


def engine_section(target: Target, all_variants: list[Variant], totals: dict[str, Resources], base: Resources,
                   engines: dict[str, tuple[list[str], Resources]], ghash: dict[str, Resources]) -> Section:
    headers = ["SoC", "engine", "engine LUTs", "engine FFs", "front end LUTs", "front end FFs", "+LUTs", "+FFs"]
    # Why AES grew with ghash_bits: its engine includes the GHASH multiplier (its H register, S read
    # path and GCM muxes are front end); `couplet sweep --only aes_ghash` gives the option's whole cost.
    headers += ["of the engine: GHASH multiplier LUTs / FFs"] if ghash else []
    rows = []
    for v in all_variants[1:]:
        modules, engine = engines[v.label]
        increase = totals[v.label] - base
        front = increase - engine
        row = [v.label, engine_label(modules), fmt(engine.luts), fmt(engine.ffs), fmt(front.luts),
               fmt(front.ffs), fmt(increase.luts), fmt(increase.ffs)]
        if ghash:
            g = ghash.get(v.label)
            row.append(f"{fmt(g.luts)} / {fmt(g.ffs)} ({ghash_bits(v.config)} bits/cycle)" if g else "-")
        rows.append(row)
    return (f"Engine and front end of each variant ({target.name}): engine + front end = the increase over the "
            "core-only SoC", headers, rows)


def module_section(full: SocConfig, target: Target, rest: SynthResult, core: Resources) -> Section:
    tiles = [t.name for t in generate.tiles(full)]
    instances = instance_resources(rest, core)
    glue = instances.pop("glue")
    rows = [["u_core (CV32E40X)", *resource_cells(instances.pop("u_core"))]]
    for path, resources in sorted(instances.items()):
        name = path
        if path.startswith("g_tile["):
            index = int(path[len("g_tile["):path.index("]")])
            name = f"{path} ({tiles[index]})"
        rows.append([name, *resource_cells(resources)])
    rows.append(["the SoC's own glue (bus decode, wiring)", *resource_cells(glue)])
    rows.append(["total", *resource_cells(rest.hierarchy.total() + core)])
    return (f"The '{full.name}' SoC by module ({target.name})", ["instance", *RESOURCE_HEADERS], rows)


def run_fmax(full: SocConfig, all_variants: list[Variant], jobs: int) -> tuple[dict[str, PnrResult], dict[str, str]]:
    """The Fmax of each tile and of the whole SoC; and the reason for each that could not be placed."""
    work: list[tuple[str, Callable[[], PnrResult | str]]] = []
    for v in all_variants[1:-1]:
        design = tile_design(v)
        work.append((f"nextpnr {v.label} tile", lambda d=design: attempt_fmax(d)))  # type: ignore[misc]
    soc = soc_design(f"{full.name}_soc", config_package(full))
    work.append((f"nextpnr {full.name} SoC", lambda: attempt_fmax(soc)))
    results = run_parallel(jobs, work)
    placed: dict[str, PnrResult] = {}
    failed: dict[str, str] = {}
    for v, r in zip(all_variants[1:], results):
        if isinstance(r, str):
            failed[v.label] = r
            continue
        placed[v.label] = r
        log.info(f"{v.label}: Fmax {r.timing.fmax_mhz:.1f} MHz on {r.device.name} ({r.seconds:.0f} s)")
    return placed, failed


def throughput_section(full: SocConfig, all_variants: list[Variant], totals: dict[str, Resources],
                       base: Resources, pnr: dict[str, PnrResult]) -> Section:
    """AES-RV Table I shape: AES throughput at the tile's Fmax, per LUT, from `couplet bench aes`."""
    bench = paths.BUILD_DIR / "reports" / f"bench-aes-{full.name}.json"
    headers = ["coupling", "Fmax (MHz)", "+LUTs", "CTR 4 KiB cycles", "Mbit/s at Fmax", "kbit/s per LUT"]
    rows: list[list[str]] = []
    if not bench.exists():
        rows.append([f"run `couplet bench aes -c {full.name}` first", "-", "-", "-", "-", "-"])
        return ("AES throughput at Fmax", headers, rows)
    backends = json.loads(bench.read_text())["backends"]
    for v in all_variants:
        if v.accelerator != "aes" or v.label not in pnr or v.coupling not in backends:
            continue
        cycles = backends[v.coupling].get("ctr4k/128", {}).get("mean")
        if not cycles:
            continue
        fmax = pnr[v.label].timing.fmax_mhz
        mbps = 4096 * 8 * fmax / cycles
        luts = (totals[v.label] - base).luts
        rows.append([str(v.coupling), f"{fmax:.1f}", fmt(luts), fmt(cycles), f"{mbps:.1f}",
                     f"{1000 * mbps / luts:.2f}" if luts else "-"])
    return (f"AES throughput at Fmax (AES-128 CTR over 4 KiB through the C API, {bench.name})", headers, rows)


def goal_rows(full: SocConfig, target: Target, all_variants: list[Variant], totals: dict[str, Resources],
              base: Resources, pnr: dict[str, PnrResult], unplaced: dict[str, str]) -> list[list[str]]:
    measured: list[anchors.Measured] = [(v.accelerator, v.coupling, v.config, (totals[v.label] - base).luts)
                                        for v in all_variants[1:-1]]
    measured.append((None, None, full, totals[all_variants[-1].label].luts))
    rows = anchors.goal_rows(target.name, measured)
    soc_label = all_variants[-1].label
    if soc_label in pnr:
        rows.append(goal_row(f"{full.name} SoC Fmax", ULX3S_85F.name, pnr[soc_label].timing.fmax_mhz, FMAX_GOAL_MHZ,
                             "the seeds' 65 MHz", at_least=True, unit="MHz", digits=1))
    elif soc_label in unplaced:
        rows.append([f"{full.name} SoC Fmax", ULX3S_85F.name, f"not placed: {unplaced[soc_label]}",
                     f">= {FMAX_GOAL_MHZ:g} MHz", "NOT met", "the seeds' 65 MHz"])
    else:
        rows.append([f"{full.name} SoC Fmax", ULX3S_85F.name, "-", f">= {FMAX_GOAL_MHZ:g} MHz",
                     "not measured here (add --fmax)", "the seeds' 65 MHz"])
    return rows


def plot(stem: str, all_variants: list[Variant], totals: dict[str, Resources], base: Resources,
         target: Target) -> None:
    labels = [v.label for v in all_variants[1:-1]]
    increases = [totals[label] - base for label in labels]
    bar_plot(plot_path(stem), labels, {"+LUTs": [float(r.luts) for r in increases],
                                       "+FFs": [float(r.ffs) for r in increases]},
             f"Increase over the core-only SoC ({target.name})", "cells", log_scale=False, label_rotation=30)
