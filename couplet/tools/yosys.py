"""Synthesis with Yosys (YoWASP build, `read_slang`): mapped resource counts of a design.

A design is a top module, its SystemVerilog files and parameters. Synthesis runs in two Yosys
calls: the first elaborates and records the hierarchy, the second keeps the top's direct
children as modules (so each is counted on its own), flattens everything below them (Yosys
maps one big module much faster than hundreds of small ones: every S-box instance would
otherwise be mapped on its own) and maps to the target family. A run is skipped when its
script and every source file are unchanged since the last one.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from dataclasses import dataclass, field
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError
from couplet.model import rtl
from couplet.tools import yowasp
from couplet.tools.yosys_stats import Hierarchy, read_stat

# The FPGA build does not gate the core's clock (hw/vendor/cv32e40x/fpga/).
FPGA_CLOCK_GATE = paths.HW_DIR / "vendor" / "cv32e40x" / "fpga" / "cv32e40x_clock_gate.sv"


@dataclass(frozen=True)
class Target:
    name: str
    synth: str  # the Yosys synthesis command
    label: str  # what the counts are, for reports


TARGETS = {
    # -noiopad/-noclkbuf: a count of the logic, not of a chip top with I/O buffers.
    "xc7": Target("xc7", "synth_xilinx -family xc7 -noiopad -noclkbuf",
                  "Artix-7-style cells mapped by Yosys synth_xilinx (Yosys counts, not Vivado)"),
    "ecp5": Target("ecp5", "synth_ecp5", "Lattice ECP5 cells mapped by Yosys synth_ecp5 (LUT4s)"),
    "ice40": Target("ice40", "synth_ice40", "Lattice iCE40 cells mapped by Yosys synth_ice40 (LUT4s)"),
}


@dataclass(frozen=True)
class Design:
    name: str  # its folder under build/synth/
    top: str
    sources: tuple[Path, ...]
    include_dirs: tuple[Path, ...] = ()
    params: tuple[tuple[str, str], ...] = ()
    blackboxes: tuple[str, ...] = ()  # children of the top left as empty boxes (counted elsewhere)
    # Modules below the top's children kept as modules of their own (not flattened), so that a
    # report can read their count inside the design (an accelerator's engine in its tile).
    keep: tuple[str, ...] = ()
    # Plain Verilog read before the SystemVerilog (a vendor primitive's instance, such as a
    # generated PLL, keeps parameters that read_slang's box of the primitive would not carry).
    verilog_sources: tuple[Path, ...] = ()
    # Files the design reads while elaborating ($readmemh images): a change re-runs synthesis.
    data_files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class SynthResult:
    design: Design
    target: Target
    hierarchy: Hierarchy
    seconds: float  # 0 when the result came from an earlier run
    netlist: Path | None = None  # the mapped netlist (JSON), when asked for
    children: dict[str, str] = field(default_factory=dict)  # child module -> instance path


def synth_dir(design: Design, target: Target) -> Path:
    return paths.BUILD_DIR / "synth" / target.name / design.name


def _read_command(design: Design) -> str:
    verilog = [f"read_verilog {s}\n" for s in design.verilog_sources]
    args = ["read_slang", "-j", "1", "--best-effort-hierarchy"]
    args += [f"-I{d}" for d in design.include_dirs]
    args += [f"-G{name}={value}" for name, value in design.params]
    args += [str(s) for s in design.sources]
    args += ["--top", design.top]
    return "".join(verilog) + " ".join(args)


def _pattern(module: str) -> str:
    # Yosys selections are glob patterns: generate-block indices' brackets would be classes.
    return module.replace("[", "?").replace("]", "?")


def _digest(parts: list[str], files: list[Path]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
    for path in files:
        try:
            digest.update(path.read_bytes())
        except OSError as err:
            raise BuildError(f"cannot read source {path}: {err}") from err
    return digest.hexdigest()


def _elab_script(design: Design) -> str:
    return "\n".join([
        _read_command(design),
        f"hierarchy -top {design.top}",
        "tee -q -o elab_stat.json stat -json",
        "write_rtlil elab.il",
    ]) + "\n"


def elaborate(design: Design) -> None:
    """Read and elaborate a design as synthesis would (slang is stricter than Verilator's lint),
    without mapping it; a BuildError names what it refused."""
    out = paths.BUILD_DIR / "synth" / "elaborate" / design.name
    out.mkdir(parents=True, exist_ok=True)
    (out / "elaborate.ys").write_text(_elab_script(design))
    yowasp.run("yosys", ["-q", "-l", "elaborate.log", "elaborate.ys"], out / "elaborate.out", cwd=out)


def synthesize(design: Design, target: Target, netlist: bool = False) -> SynthResult:
    out = synth_dir(design, target)
    out.mkdir(parents=True, exist_ok=True)
    elab_script = _elab_script(design)
    files = [*design.verilog_sources, *design.sources, *design.data_files]
    files += [f for d in design.include_dirs for f in sorted(d.glob("*"))]
    synth_tail = [target.synth + f" -top {design.top}" + (" -json netlist.json" if netlist else ""),
                  f"tee -q -o stat.json stat -json -top {design.top}"]
    # Another Yosys may map differently: its version is part of what a result depends on.
    yosys_version = importlib.metadata.version(yowasp.TOOLS["yosys"])
    stamp = _digest([elab_script, *synth_tail, yosys_version, *design.keep], files)
    stamp_file = out / "stamp"
    seconds = 0.0
    if not (stamp_file.exists() and stamp_file.read_text() == stamp and (out / "stat.json").exists()):
        stamp_file.unlink(missing_ok=True)
        seconds = _run_yosys(design, target, out, elab_script, synth_tail)
        stamp_file.write_text(stamp)
    hierarchy = read_stat(out / "stat.json", target.name, design.top, design.blackboxes)
    children = json.loads((out / "children.json").read_text())
    return SynthResult(design, target, hierarchy, seconds, out / "netlist.json" if netlist else None, children)


def _run_yosys(design: Design, target: Target, out: Path, elab_script: str, synth_tail: list[str]) -> float:
    """Elaborate, then keep the top's children, flatten below them and map; the wall time."""
    (out / "elaborate.ys").write_text(elab_script)
    seconds = yowasp.run("yosys", ["-q", "-l", "elaborate.log", "elaborate.ys"], out / "elaborate.out", cwd=out)
    children = _direct_children(out / "elab_stat.json", design.top)
    boxed = [m for m in children if m.split("$", 1)[0] in design.blackboxes]
    nested = _modules_named(out / "elab_stat.json", design.keep)
    keep = " ".join(_pattern(m) for m in [*children, *nested] if m not in boxed)
    synth_script = "\n".join([
        "read_rtlil elab.il",
        # A box keeps its ports (the rest of the design still connects to them), not its logic.
        *([f"blackbox {' '.join(_pattern(m) for m in boxed)}"] if boxed else []),
        f"hierarchy -top {design.top}",
        *([f"setattr -mod -set keep_hierarchy 1 {keep}"] if keep else []),
        "flatten",
        *synth_tail,
    ]) + "\n"
    (out / "synth.ys").write_text(synth_script)
    seconds += yowasp.run("yosys", ["-q", "-l", "synth.log", "synth.ys"], out / "synth.out", cwd=out)
    (out / "children.json").write_text(json.dumps(children, indent=1) + "\n")
    return seconds


def _direct_children(stat_path: Path, top: str) -> dict[str, str]:
    """{module: instance path} for the modules the top instantiates, from the elaborated stat."""
    doc = json.loads(stat_path.read_text())
    modules = {key.lstrip("\\"): entry for key, entry in doc["modules"].items()}
    if top not in modules:
        raise BuildError(f"elaboration produced no module '{top}'")
    prefix = f"{top}."
    children = {}
    for cell in modules[top].get("num_cells_by_type", {}):
        if cell in modules:
            path = cell.split("$", 1)[1] if "$" in cell else cell
            children[cell] = path.removeprefix(prefix)
    return children


def _modules_named(stat_path: Path, names: tuple[str, ...]) -> list[str]:
    """The elaborated modules (one per instance: `name$path`) of the given module names."""
    if not names:
        return []
    modules = json.loads(stat_path.read_text())["modules"]
    return sorted(key.lstrip("\\") for key in modules if key.lstrip("\\").split("$", 1)[0] in names)


def core_sources() -> tuple[list[Path], list[Path]]:
    """The CV32E40X for an FPGA: its RTL with a pass-through clock gate, and its include dirs."""
    return rtl.core_sources(simulation=False) + [FPGA_CLOCK_GATE], rtl.core_include_dirs()


def soc_design(name: str, config_pkg: Path, blackbox_core: bool = False, keep: tuple[str, ...] = ()) -> Design:
    """couplet_soc of a generated configuration package; the core optionally left as a box, and
    `keep` modules kept whole (Design.keep)."""
    # A boxed core is elaborated (its ports connect the rest) but not mapped.
    sources, includes = core_sources()
    return Design(
        name=name,
        top="couplet_soc",
        sources=tuple(sources + rtl.soc_sources(config_pkg)),
        include_dirs=tuple(includes),
        blackboxes=("cv32e40x_core",) if blackbox_core else (),
        keep=keep,
    )


def report_progress(result: SynthResult) -> None:
    total = result.hierarchy.total()
    when = f"{result.seconds:.0f} s" if result.seconds else "unchanged, reused"
    log.info(f"{result.target.name} {result.design.name}: {total.luts:,} LUTs, {total.ffs:,} FFs ({when})")
