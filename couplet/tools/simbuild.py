"""Verilator build of the simulator for one configuration, redone only when an input changed."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError
from couplet.gen.generate import write_config_outputs
from couplet.model import rtl
from couplet.model.config import SocConfig

TOP = "couplet_sim_top"
HARNESS = paths.SIM_DIR / "couplet_sim.cpp"

# Speed flags measured in the toolchain notes (~0.6 M cycles/s on CV32E40X).
VERILATOR_FLAGS = [
    "--cc",
    "--exe",
    "--build",
    "-O3",
    "--x-assign", "fast",
    "--x-initial", "fast",
    "--top-module", TOP,
    # The RTL's assertions stop a run that breaks an interface rule (couplet_accel_port_assert).
    "--assert",
    # The core is third-party and not lint-clean under -Wall; our own RTL is linted separately.
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
    "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include CFG_LDLIBS_THREADS=-pthread OPT_FAST=-O2",
]


# Model flavours: the plain model, one per waveform format (Verilator allows one format per
# model, and a model without tracing runs fastest), and "toggle", which counts every bit's
# changes for couplet/flows/energy.py (Verilator's toggle coverage; the harness writes it with
# --coverage). Verilator skips signals wider than --coverage-max-width (256 by default), which
# would leave out the core's register file and the accelerators' key and round-key storage:
# 4096 keeps them and still leaves out the SRAM array (its block RAM is outside the estimate).
TRACE_FLAGS = {"": [], "fst": ["--trace-fst"], "vcd": ["--trace-vcd"],
               "toggle": ["--coverage-toggle", "--coverage-max-width", "4096",
                          "-MAKEFLAGS", "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O1"]}
FLAVOUR_NAMES = {"fst": "FST tracing", "vcd": "VCD tracing", "toggle": "toggle coverage"}


def _obj_dir(config: SocConfig, trace: str) -> Path:
    return paths.config_build_dir(config.name) / (f"sim-{trace}" if trace else "sim")


def sim_binary(config: SocConfig, trace: str = "") -> Path:
    return _obj_dir(config, trace) / f"V{TOP}"


def _command(gen_dir: Path, obj_dir: Path, trace: str) -> list[str]:
    sources = [
        *rtl.core_sources(simulation=True),
        *rtl.soc_sources(gen_dir / "rtl" / "couplet_soc_cfg_pkg.sv"),
        *rtl.sim_top_sources(),
    ]
    includes = [f"+incdir+{d}" for d in rtl.core_include_dirs()]
    return [
        str(paths.verilator_bin()),
        *VERILATOR_FLAGS,
        *TRACE_FLAGS[trace],
        "-j", "2",
        "--Mdir", str(obj_dir),
        "-CFLAGS", f"-I{gen_dir / 'include'}",
        *includes,
        *map(str, sources),
        str(HARNESS),
    ]


def _stamp(command: list[str]) -> str:
    """Changes when the command, any source it names or the Verilator release changes."""
    from importlib.metadata import version

    digest = hashlib.sha256("\0".join([version("verilator"), *command]).encode())
    for item in command:
        path = Path(item)
        if path.suffix in (".sv", ".cpp", ".h") and path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def build_sim(config: SocConfig, trace: str = "") -> Path:
    """Build (if needed) the model of a config; trace is "", "fst", "vcd" or "toggle"."""
    if trace not in TRACE_FLAGS:
        raise BuildError(f"unknown model flavour '{trace}' (known: {', '.join(repr(t) for t in TRACE_FLAGS)})")
    gen_dir = paths.config_build_dir(config.name) / "gen"
    write_config_outputs(config, gen_dir)
    obj_dir = _obj_dir(config, trace)
    command = _command(gen_dir, obj_dir, trace)
    stamp = _stamp(command) + hashlib.sha256((gen_dir / "include" / "couplet" / "soc_config.h").read_bytes()).hexdigest()
    stamp_file = obj_dir / "build.stamp"
    binary = sim_binary(config, trace)
    if binary.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return binary
    what = f" with {FLAVOUR_NAMES[trace]}" if trace else ""
    log.info(f"building the Verilator model of '{config.name}'{what} (about a minute)")
    obj_dir.mkdir(parents=True, exist_ok=True)
    log.debug(" ".join(command))
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    if proc.returncode != 0 or not binary.exists():
        # The end of the output holds the first real error; the file list before it is noise.
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-25:])
        raise BuildError(f"Verilator build failed (full command with --verbose):\n{tail}")
    stamp_file.write_text(stamp)
    return binary
