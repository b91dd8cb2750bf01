"""couplet's designs as synthesis jobs: the configuration variants `couplet synth` and `sweep`
compare (the core alone, one accelerator in one coupling, everything), the core's own count, the
count of each SoC instance (which `couplet energy` weighs), the tile nextpnr places for an Fmax,
and the jobs run side by side."""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

from couplet import log, paths
from couplet.errors import BuildError, CoupletError
from couplet.gen import generate
from couplet.model import rtl
from couplet.model.config import OPTIONAL_PERIPHERALS, SocConfig, coupling_windows, parse_config, read_config_doc
from couplet.tools.nextpnr import PnrResult, place_and_route
from couplet.tools.yosys import Design, SynthResult, TARGETS, Target, soc_design, synthesize
from couplet.tools.yosys_stats import Resources

ACCELERATORS = ("aes", "keccak", "rtos")
# What of each accelerator is its engine (the rest of its increase is the front end: the
# command and register logic, the couplings' doors, the bus). AES and Keccak: the cipher or
# permutation core, or the stateless instruction unit of zkn / ise; AES also its GHASH multiplier
# (ghash_bits; the H register, S's read path and the GCM muxes stay in couplet_aes, front end).
# RTOS: the kernel's units, which hold the threads and objects and run the actions; couplet_rtos
# itself is its control unit (command port, registers, response) and so front end.
ENGINES = {
    "aes": ("couplet_aes_core", "couplet_aes_zkn", "couplet_aes_ghash"),
    "keccak": ("couplet_keccak_core", "couplet_keccak_ise"),
    "rtos": ("couplet_rtos_threads", "couplet_rtos_sched", "couplet_rtos_mutex", "couplet_rtos_sem",
             "couplet_rtos_queue"),
}
ENGINE_MODULES = tuple(m for modules in ENGINES.values() for m in modules)
GHASH_MODULE = "couplet_aes_ghash"  # part of the AES engine: counted on its own as well
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


def tile_design(variant: Variant) -> Design:
    """The accelerator tile of a one-accelerator variant, between registers, for nextpnr."""
    tiles = generate.tiles(variant.config)
    if len(tiles) != 1:
        raise CoupletError(f"{variant.label}: expected one accelerator tile, found {len(tiles)}")
    sources = (*rtl.tile_sources(config_package(variant.config)), FMAX_TILE)
    return Design(f"fmax_{variant.config.name}", "couplet_fmax_tile", sources, params=(("TileIndex", "0"),))


def core_job(core_config: SocConfig, target: Target) -> tuple[str, Callable[[], SynthResult]]:
    """The core-only SoC with the core mapped: where the core's count comes from."""
    design = soc_design(f"{core_config.name}_soc", config_package(core_config))
    return (f"{target.name} core-only SoC (with the core)", lambda: synthesize(design, target))


def boxed_job(label: str, config: SocConfig, target: Target) -> tuple[str, Callable[[], SynthResult]]:
    """A configuration's SoC with the core left as a box (its count is added from core_job)."""
    design = soc_design(config.name, config_package(config), blackbox_core=True, keep=ENGINE_MODULES)
    return (f"{target.name} {label}", lambda: synthesize(design, target))


def engine_count(result: SynthResult, accelerator: str | None) -> tuple[list[str], Resources]:
    """The engine instances of one accelerator (None: of every accelerator) in a boxed SoC and
    their count. An accelerator whose engine is missing is an error, not an engine of 0 LUTs."""
    modules, resources = result.hierarchy.found(ENGINES[accelerator] if accelerator else ENGINE_MODULES)
    if accelerator and not modules:
        raise CoupletError(f"{result.design.name}: no {accelerator} engine module ({', '.join(ENGINES[accelerator])}) "
                           "in the synthesized SoC; if the RTL renamed it, update ENGINES in "
                           "couplet/tools/soc_synthesis.py")
    return modules, resources


def ghash_count(result: SynthResult) -> Resources | None:
    """The GHASH multiplier's count in a boxed SoC, None when it has none (ghash_bits = 0)."""
    modules, resources = result.hierarchy.found((GHASH_MODULE,))
    return resources if modules else None


def engine_label(modules: list[str]) -> str:
    """Engine module names for a table, shared prefixes folded: couplet_rtos_{threads,sched}."""
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(m.split("$", 1)[0] for m in modules):
        head, _, tail = name.partition("_")
        ip, _, unit = tail.partition("_")
        groups.setdefault(f"{head}_{ip}", []).append(unit)
    parts = [f"{head}_{units[0]}" if len(units) == 1 else f"{head}_{{{','.join(units)}}}"
             for head, units in groups.items()]
    return ", ".join(parts) or "-"


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
