"""The FPGA boards couplet builds for, and each board's PLL for a configuration's clock (ecppll)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from couplet import paths
from couplet.errors import BuildError, CoupletError
from couplet.tools import yowasp
from couplet.tools.nextpnr import Ecp5Device, Placer, ULX3S_85F

# The PLL must give the configuration's clock this closely: the UART's receiver tolerates a few
# percent, a timer a fraction of one.
CLOCK_TOLERANCE = 0.005
PLL_MODULE = "couplet_ulx3s_pll"


@dataclass(frozen=True)
class Board:
    name: str
    device: Ecp5Device
    top: str  # the board's top module: its parameters ClkHz and SramInitFile, its PLL module
    lpf: Path  # pin constraints
    ips: tuple[str, ...]  # the IPs the board's top uses beside the SoC (compiled with the SoC's)
    rtl: tuple[Path, ...]  # the board's own RTL, compiled after the SoC's, top last
    osc_mhz: float  # the oscillator the PLL runs from
    placer: Placer  # nextpnr's placer for the whole SoC (docs/board-ulx3s.md says why)


BOARDS = {
    "ulx3s": Board(
        name="ulx3s",
        device=ULX3S_85F,
        top="couplet_ulx3s",
        lpf=paths.HW_DIR / "fpga" / "ulx3s" / "ulx3s.lpf",
        ips=("uart",),
        rtl=(paths.HW_DIR / "fpga" / "ulx3s" / "couplet_ulx3s.sv",),
        osc_mhz=25.0,
        # The heap placer packs the Keccak round (1,600 bits, every one wired across the state)
        # so densely that the router stalls on the SoC with all three accelerators.
        placer="static",
    ),
}


@dataclass(frozen=True)
class Pll:
    verilog: Path
    mhz: float  # what the PLL really gives


def board_named(name: str) -> Board:
    if name not in BOARDS:
        raise CoupletError(f"no board '{name}' (known: {', '.join(sorted(BOARDS))})")
    return BOARDS[name]


_PLL_MHZ = re.compile(r"^clkout0 frequency:\s*([0-9.]+)\s*MHz", re.MULTILINE)


def generate_pll(board: Board, clock_hz: int, out: Path, exact: bool = True) -> Pll:
    """The board PLL for clock_hz (ecppll's Verilog module); refused if it cannot give that clock
    (unless not exact: lint only needs the module)."""
    out.mkdir(parents=True, exist_ok=True)
    verilog = out / f"{PLL_MODULE}.v"
    asked = clock_hz / 1e6
    yowasp.run("ecppll", ["-i", f"{board.osc_mhz:g}", "-o", f"{asked:g}", "-n", PLL_MODULE, "-f", verilog.name],
               out / "ecppll.log", cwd=out)
    found = _PLL_MHZ.search((out / "ecppll.log").read_text())
    if found is None or not verilog.is_file():
        raise BuildError(f"ecppll did not report its output frequency ({out / 'ecppll.log'})")
    mhz = float(found.group(1))
    if exact and abs(mhz - asked) > CLOCK_TOLERANCE * asked:
        raise CoupletError(
            f"the PLL cannot make {asked:g} MHz from the {board.osc_mhz:g} MHz oscillator: the nearest it gives is "
            f"{mhz:g} MHz ({(mhz - asked) / asked:+.2%}); the CLINT and the UART are timed from clock_hz, so set "
            f"clock_hz to a frequency the PLL makes exactly (e.g. {mhz * 1e6:,.0f})")
    return Pll(verilog, mhz)
