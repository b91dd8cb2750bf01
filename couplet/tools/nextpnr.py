"""Place and route on a Lattice ECP5 with nextpnr-ecp5 (YoWASP): the Fmax a design reaches.

Every Fmax couplet reports is for one stated device and speed grade, the ULX3S board's
LFE5U-85F-6BG381C, so figures compare with each other and with the bitstream build.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from couplet.errors import BuildError
from couplet.tools import yowasp
from couplet.tools.yosys import Design, SynthResult, TARGETS, synth_dir, synthesize
from couplet.tools.yosys_stats import Timing, read_nextpnr_report


@dataclass(frozen=True)
class Ecp5Device:
    name: str  # the part number, for reports
    size: str  # nextpnr's device flag, without the dashes
    package: str
    speed: int


ULX3S_85F = Ecp5Device("LFE5U-85F-6BG381C", "85k", "CABGA381", 6)


@dataclass(frozen=True)
class PnrResult:
    synth: SynthResult
    device: Ecp5Device
    timing: Timing  # the design's clock
    utilization: dict[str, tuple[int, int]]
    seconds: float
    textcfg: Path  # the placed and routed design, input of the bitstream packer


# nextpnr's placers: "heap" (its default, analytical) or "static" (electrostatic).
Placer = Literal["heap", "static"]


def place_and_route(design: Design, target_mhz: float, device: Ecp5Device = ULX3S_85F,
                    lpf: Path | None = None, seed: int = 1, placer: Placer = "heap") -> PnrResult:
    """Synthesize for ECP5 and place and route; the clock's Fmax is nextpnr's timing analysis.

    Without constraints nextpnr places the I/O itself: fine for a timing figure, not for a board.
    """
    synth = synthesize(design, TARGETS["ecp5"], netlist=True)
    assert synth.netlist is not None
    out = synth_dir(design, TARGETS["ecp5"])
    args = [
        f"--{device.size}", "--package", device.package, "--speed", str(device.speed),
        "--json", synth.netlist.name, "--textcfg", "pnr.config", "--report", "pnr_report.json",
        "--freq", f"{target_mhz:g}", "--seed", str(seed), "--placer", placer,
        # A missed clock is a result to report (PnrResult.timing.met), not a tool failure.
        "--timing-allow-fail",
    ]
    if lpf is not None:
        args += ["--lpf", str(lpf.resolve())]
    # A run is skipped when the netlist (its synthesis stamp), the options, the constraints and
    # nextpnr itself are unchanged since the last one that finished.
    digest = hashlib.sha256((out / "stamp").read_bytes())
    digest.update("\0".join(args).encode())
    digest.update(importlib.metadata.version(yowasp.TOOLS["nextpnr-ecp5"]).encode())
    if lpf is not None:
        digest.update(lpf.read_bytes())
    stamp_file = out / "pnr.stamp"
    seconds = 0.0
    done = [out / "pnr_report.json", out / "pnr.config"]
    if not (stamp_file.exists() and stamp_file.read_text() == digest.hexdigest() and all(f.exists() for f in done)):
        stamp_file.unlink(missing_ok=True)
        seconds = yowasp.run("nextpnr-ecp5", args, out / "nextpnr.log", cwd=out)
        stamp_file.write_text(digest.hexdigest())
    timings, utilization = read_nextpnr_report(out / "pnr_report.json")
    if not timings:
        raise BuildError(f"nextpnr found no clock to time in {design.top} ({out / 'nextpnr.log'})")
    # The design's own clock: the slowest one nextpnr analysed (a single-clock design has one).
    timing = min(timings, key=lambda t: t.fmax_mhz)
    return PnrResult(synth, device, timing, utilization, seconds, out / "pnr.config")
