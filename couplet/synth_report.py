"""`couplet synth`: what a configuration's SoC and each accelerator coupling cost on an FPGA.

FAC-V Table 5 shape: the core-only SoC (the configuration without accelerators), then the SoC
with one accelerator in one coupling, for every coupling the configuration has, and the whole
configuration, each with its increase over the core-only SoC. The core is mapped once, in the
core-only SoC; every other variant is synthesized with the core left as a box and the core's
count added (the core's parameters are the same in every variant, and the hierarchy is kept at
its boundary, so its count does not change). With --fmax, nextpnr-ecp5 places and routes each
accelerator tile behind each coupling (hw/fpga/rtl/couplet_fmax_tile.sv) and the whole SoC.
"""

from __future__ import annotations

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

from couplet import generate, log, paths, rtl
from couplet.bench_common import Section, bar_plot, goal_row, plot_path, publish
from couplet.config import (OPTIONAL_PERIPHERALS, SocConfig, coupling_windows, parse_config, read_config_doc)
from couplet.errors import BuildError, CoupletError
from couplet.pnr import ULX3S_85F, PnrResult, place_and_route
from couplet.synth import TARGETS, Design, SynthResult, Target, report_progress, soc_design, synthesize
from couplet.synth_stats import Resources

ACCELERATORS = ("aes", "keccak", "rtos")
FMAX_TILE = paths.HW_DIR / "fpga" / "rtl" / "couplet_fmax_tile.sv"
# The seeds' SoC clock (issue 6): the default SoC must reach it on ECP5.
FMAX_GOAL_MHZ = 65.0


@dataclass(frozen=True)
class Variant:
    label: str
    config: SocConfig
    accelerator: str | None = None
    coupling: str | None = None


def derive_config(doc: dict[str, Any], path: Path, name: str, keep: dict[str, list[str]],
                  overrides: dict[str, dict[str, Any]] | None = None) -> SocConfig:
    """The configuration of `doc` with only the accelerators and couplings in `keep` (and any
    accelerator settings in `overrides`), checked like any configuration file."""
    new = copy.deepcopy(doc)
    new["soc"]["name"] = name
    accel = new.get("accelerator", {})
    for acc in list(accel):
        if acc not in keep:
            del accel[acc]
            continue
        accel[acc]["couplings"] = list(keep[acc])
        accel[acc]["default_backend"] = keep[acc][0]  # every coupling is also a backend's name
        accel[acc].update((overrides or {}).get(acc, {}))
    missing = set(keep) - set(accel)
    if missing:
        raise CoupletError(f"{path.name} has no [accelerator.{sorted(missing)[0]}] to derive a variant from")
    if not accel:
        new.pop("accelerator", None)
    needed: set[str] = set()
    for acc, couplings in keep.items():
        needed |= coupling_windows(acc, couplings)
    for window in OPTIONAL_PERIPHERALS:
        if window not in needed:
            new.get("peripheral", {}).pop(window, None)
    return parse_config(new, path)


def variants(config_name: str) -> tuple[SocConfig, list[Variant]]:
    doc, path = read_config_doc(config_name)
    full = parse_config(copy.deepcopy(doc), path)
    result = [Variant("core only", derive_config(doc, path, f"{full.name}_core", {}))]
    for acc in ACCELERATORS:
        acc_config = getattr(full, acc)
        if acc_config is None:
            continue
        for coupling in acc_config.couplings:
            config = derive_config(doc, path, f"{full.name}_{acc}_{coupling}", {acc: [coupling]})
            result.append(Variant(f"{acc} {coupling}", config, acc, coupling))
    result.append(Variant(f"{full.name} (everything)", full))
    return full, result


def config_package(config: SocConfig) -> Path:
    out = paths.BUILD_DIR / "synth" / "gen" / config.name
    return generate.write_config_outputs(config, out)["sv_pkg"]


T = TypeVar("T")


def run_parallel(jobs: int, work: list[tuple[str, Callable[[], T]]]) -> list[T]:
    """Run independent tool jobs `jobs` at a time (each is one single-threaded tool), in order."""
    if jobs < 1:
        raise CoupletError("--jobs must be at least 1")
    log.info(f"{len(work)} jobs, {jobs} at a time (the first call of each tool compiles it: ~40 s)")
    done = 0

    def one(item: tuple[str, Callable[[], T]]) -> T:
        nonlocal done
        name, fn = item
        result = fn()
        done += 1
        log.info(f"[{done}/{len(work)}] {name} done")
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, work))


def fmt(value: float) -> str:
    return f"{value:,.1f}" if value % 1 else f"{value:,.0f}"


def resource_cells(r: Resources) -> list[str]:
    return [fmt(r.luts), fmt(r.ffs), fmt(r.lutram), fmt(r.bram), fmt(r.dsps)]


RESOURCE_HEADERS = ["LUTs", "FFs", "LUT RAM", "BRAM", "DSP"]


def tile_design(variant: Variant) -> Design:
    """The accelerator tile of a one-accelerator variant, between registers, for nextpnr."""
    tiles = generate.tiles(variant.config)
    if len(tiles) != 1:
        raise CoupletError(f"{variant.label}: expected one accelerator tile, found {len(tiles)}")
    tile = tiles[0]
    sources = [config_package(variant.config)]
    for ip in rtl.TILE_IPS:
        sources += rtl.ip_sources(ip)
    sources += [paths.HW_DIR / "soc" / "rtl" / "couplet_accel_tile.sv", FMAX_TILE]
    params = (("KindIndex", str(tile.kind)), ("Param", str(tile.param)), ("Xif", str(int(tile.xif))),
              ("Regs", str(int(tile.regs))), ("Dma", str(int(tile.dma_engine))))
    return Design(f"fmax_{variant.config.name}", "couplet_fmax_tile", tuple(sources), params=params)


def core_job(core_config: SocConfig, target: Target) -> tuple[str, Callable[[], SynthResult]]:
    """The core-only SoC with the core mapped: where the core's count comes from."""
    design = soc_design(f"{core_config.name}_soc", config_package(core_config))
    return (f"{target.name} core-only SoC (with the core)", lambda: synthesize(design, target))


def boxed_job(label: str, config: SocConfig, target: Target) -> tuple[str, Callable[[], SynthResult]]:
    """A configuration's SoC with the core left as a box (its count is added from core_job)."""
    design = soc_design(config.name, config_package(config), blackbox_core=True)
    return (f"{target.name} {label}", lambda: synthesize(design, target))


def core_count(core_result: SynthResult) -> tuple[str, Resources]:
    """The core's module name and count in the core-only SoC."""
    module = next((m for m in core_result.children if m.startswith("cv32e40x_core")), None)
    if module is None:
        raise CoupletError("the core-only SoC has no cv32e40x_core instance")
    return module, core_result.hierarchy.total(module)


def instance_resources(soc: SynthResult, core: Resources) -> dict[str, Resources]:
    """{instance path in couplet_soc: its count}, the boxed core's count under its instance, and
    "glue" for the SoC's own cells (bus decode, wiring)."""
    result = {}
    for module, path in soc.children.items():
        result[path] = core if module.startswith("cv32e40x_core") else soc.hierarchy.total(module)
    result["glue"] = soc.hierarchy.own[soc.design.top]
    return result


def soc_by_instance(config: SocConfig, target_name: str = "xc7", jobs: int = 1) -> dict[str, Resources]:
    """The mapped resources of each top-level instance of a configuration's SoC (Yosys; cached)."""
    target = TARGETS[target_name]
    doc, path = read_config_doc(config.path)
    core_config = derive_config(doc, path, f"{config.name}_core", {})
    core_result, soc = run_parallel(jobs, [core_job(core_config, target), boxed_job(config.name, config, target)])
    return instance_resources(soc, core_count(core_result)[1])


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

    pnr: dict[str, PnrResult] = {}
    unplaced: dict[str, str] = {}
    if fmax:
        pnr, unplaced = run_fmax(full, all_variants, jobs)

    sections = [variant_section(target, all_variants, totals, base, pnr, unplaced),
                module_section(full, target, rest[-1], core)]
    if pnr:
        sections.append(throughput_section(full, all_variants, totals, base, pnr))
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
                               "total": totals[v.label].as_dict(), "increase": (totals[v.label] - base).as_dict()}
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


def attempt_fmax(design: Design) -> PnrResult | str:
    """Place and route for an Fmax. A design that cannot be placed (more cells than the device
    has) is a finding for the report, not the end of the run: the reason comes back instead."""
    try:
        return place_and_route(design, FMAX_GOAL_MHZ)
    except BuildError as err:
        lines = str(err).splitlines()
        reason = next((line.strip() for line in lines if "ERROR" in line), lines[0])
        log.error(f"{design.name}: not placed and routed: {reason}")
        return reason


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
    rows = []

    def increase(label: str) -> float | None:
        return (totals[label] - base).luts if label in totals else None

    aes = increase("aes mmio")
    if aes is not None and full.aes is not None and full.aes.arch == "rolled":
        rows.append(goal_row("AES rolled, mmio (+LUTs)", target.name, aes, 3000, "FAC-V Table 5: +4,174"))
    keccak = increase("keccak mmio")
    if keccak is not None and full.keccak is not None and full.keccak.rounds_per_cycle == 1:
        rows.append(goal_row("Keccak 1 round/cycle, loose (mmio) (+LUTs)", target.name, keccak, 4500,
                             "KRONOS Table 2: 4,915"))
    if full.rtos is not None and full.rtos.max_threads == 8:
        for coupling in full.rtos.couplings:
            value = increase(f"rtos {coupling}")
            if value is not None:
                rows.append(goal_row(f"RTOS 8 threads, {coupling} (+LUTs)", target.name, value, 6000,
                                     "ChamelIoT 8T: +6,115"))
    soc_label = all_variants[-1].label
    if soc_label in pnr:
        rows.append(goal_row(f"{full.name} SoC Fmax", ULX3S_85F.name, pnr[soc_label].timing.fmax_mhz, FMAX_GOAL_MHZ,
                             "the seeds' 65 MHz", at_least=True, unit="MHz", digits=1))
    elif soc_label in unplaced:
        rows.append([f"{full.name} SoC Fmax", ULX3S_85F.name, f"not placed: {unplaced[soc_label]}",
                     f">= {FMAX_GOAL_MHZ:g} MHz", "NOT met", "the seeds' 65 MHz"])
    return rows


def plot(stem: str, all_variants: list[Variant], totals: dict[str, Resources], base: Resources,
         target: Target) -> None:
    labels = [v.label for v in all_variants[1:-1]]
    increases = [totals[label] - base for label in labels]
    bar_plot(plot_path(stem), labels, {"+LUTs": [float(r.luts) for r in increases],
                                       "+FFs": [float(r.ffs) for r in increases]},
             f"Increase over the core-only SoC ({target.name})", "cells", log_scale=False, label_rotation=30)
