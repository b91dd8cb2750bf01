"""Place and route on a Lattice ECP5 with nextpnr-ecp5 (YoWASP): the Fmax a design reaches.

Every Fmax couplet reports is for one stated device and speed grade, the ULX3S board's
LFE5U-85F-6BG381C, so figures compare with each other and with the bitstream build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from couplet import yowasp
from couplet.errors import BuildError
from couplet.synth import Design, SynthResult, TARGETS, synth_dir, synthesize
from couplet.synth_stats import Timing, read_nextpnr_report


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


def place_and_route(design: Design, target_mhz: float, device: Ecp5Device = ULX3S_85F,
                    lpf: Path | None = None, seed: int = 1) -> PnrResult:
    """Synthesize for ECP5 and place and route; the clock's Fmax is nextpnr's timing analysis.

    Without constraints nextpnr places the I/O itself: fine for a timing figure, not for a board.
    """
    synth = synthesize(design, TARGETS["ecp5"], netlist=True)
    assert synth.netlist is not None
    out = synth_dir(design, TARGETS["ecp5"])
    args = [
        f"--{device.size}", "--package", device.package, "--speed", str(device.speed),
        "--json", synth.netlist.name, "--textcfg", "pnr.config", "--report", "pnr_report.json",
        "--freq", f"{target_mhz:g}", "--seed", str(seed),
    ]
    if lpf is not None:
        args += ["--lpf", str(lpf.resolve())]
    seconds = yowasp.run("nextpnr-ecp5", args, out / "nextpnr.log", cwd=out)
    timings, utilization = read_nextpnr_report(out / "pnr_report.json")
    if not timings:
        raise BuildError(f"nextpnr found no clock to time in {design.top} ({out / 'nextpnr.log'})")
    # The design's own clock: the slowest one nextpnr analysed (a single-clock design has one).
    timing = min(timings, key=lambda t: t.fmax_mhz)
    return PnrResult(synth, device, timing, utilization, seconds, out / "pnr.config")
