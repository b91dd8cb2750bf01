"""Reading what the FPGA tools report: Yosys `stat -json` and nextpnr's `--report` JSON.

Yosys counts the mapped cells of each module; a module instantiated under a hierarchy appears
as a cell whose type is that module's name, so a module's total is its own primitives plus its
children's totals. Each primitive falls into one resource class of its FPGA family.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from couplet.errors import BuildError

# Primitive cell types -> resource class, per family. BRAM counts in the family's usual unit:
# 36 Kb blocks on 7-series (a RAMB18E1 is half of one), 18 Kb DP16KD blocks on ECP5, 4 Kb
# SB_RAM40_4K on iCE40. LUT RAM and shift registers are LUTs used as memory.
_XC7 = {
    **{f"LUT{n}": "luts" for n in range(1, 7)},
    "INV": "luts",  # Yosys leaves inverters as INV cells; a LUT1 each on the device
    **{ff: "ffs" for ff in ("FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1", "LDCE", "LDPE")},
    **{ram: "lutram" for ram in ("RAM32M", "RAM32M16", "RAM64M", "RAM64M8", "RAM32X1D", "RAM64X1D", "RAM128X1D",
                                 "RAM256X1D", "RAM32X1S", "RAM64X1S", "RAM128X1S", "RAM256X1S", "SRL16E", "SRLC32E")},
    "RAMB36E1": "bram",
    "RAMB18E1": "bram_half",
    "DSP48E1": "dsps",
    "CARRY4": "carry",
    "MUXF7": "muxes",
    "MUXF8": "muxes",
}
_ECP5 = {
    "LUT4": "luts",
    "TRELLIS_FF": "ffs",
    "TRELLIS_DPR16X4": "lutram",
    "DP16KD": "bram",
    "PDPW16KD": "bram",
    "MULT18X18D": "dsps",
    "ALU54B": "dsps",
    "CCU2C": "carry",
    "PFUMX": "muxes",
    "L6MUX21": "muxes",
}
_ICE40 = {
    "SB_LUT4": "luts",
    **{ff: "ffs" for ff in ("SB_DFF", "SB_DFFE", "SB_DFFSR", "SB_DFFR", "SB_DFFS", "SB_DFFESR", "SB_DFFER",
                            "SB_DFFES", "SB_DFFSS", "SB_DFFESS", "SB_DFFN", "SB_DFFNE", "SB_DFFNSR", "SB_DFFNR",
                            "SB_DFFNS", "SB_DFFNESR", "SB_DFFNER", "SB_DFFNES", "SB_DFFNSS", "SB_DFFNESS")},
    "SB_RAM40_4K": "bram",
    "SB_SPRAM256KA": "bram",
    "SB_MAC16": "dsps",
    "SB_CARRY": "carry",
}
CELL_CLASSES = {"xc7": _XC7, "ecp5": _ECP5, "ice40": _ICE40}
# Cells that are neither logic nor storage: clock and I/O buffers, PLLs, constants.
_IGNORED = {"BUFG", "IBUF", "OBUF", "IOBUF", "GND", "VCC", "$scopeinfo", "TRELLIS_IO", "SB_IO", "SB_GB", "EHXPLLL"}


@dataclass(frozen=True)
class Resources:
    """Mapped resources of a module and everything below it."""

    luts: int = 0
    ffs: int = 0
    lutram: int = 0
    bram: float = 0.0
    dsps: int = 0
    carry: int = 0
    muxes: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def __sub__(self, other: Resources) -> Resources:
        return Resources(**{f.name: getattr(self, f.name) - getattr(other, f.name) for f in fields(self)})

    def scaled(self, factor: int) -> Resources:
        return Resources(**{f.name: getattr(self, f.name) * factor for f in fields(self)})

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def _primitives(cells: dict[str, int], family: str, module: str) -> Resources:
    classes = CELL_CLASSES[family]
    counts: dict[str, float] = {}
    for cell, number in cells.items():
        if cell in _IGNORED:
            continue
        kind = classes.get(cell)
        if kind is None:
            # An unmapped cell ($add, $dff, ...) means the script did not map everything: a
            # count without it would be silently wrong.
            raise BuildError(f"Yosys left cell type '{cell}' unmapped in module {module} ({family})")
        if kind == "bram_half":
            counts["bram"] = counts.get("bram", 0) + number / 2
        else:
            counts[kind] = counts.get(kind, 0) + number
    whole = {k: int(v) for k, v in counts.items() if k != "bram"}
    return Resources(bram=counts.get("bram", 0.0), **whole)


@dataclass(frozen=True)
class Hierarchy:
    """Each module's own primitives and its child instances (module names without Yosys's '\\')."""

    top: str
    own: dict[str, Resources]
    children: dict[str, dict[str, int]]

    def total(self, module: str | None = None) -> Resources:
        module = self.top if module is None else module
        result = self.own[module]
        for child, count in self.children[module].items():
            result = result + self.total(child).scaled(count)
        return result

    def found(self, names: tuple[str, ...], module: str | None = None) -> tuple[list[str], Resources]:
        """The instances below `module` (the top) of the modules named (before any '$'), outermost
        only, and their count: what of a design those modules are."""
        module = self.top if module is None else module
        if module.split("$", 1)[0] in names:
            return [module], self.total(module)
        modules: list[str] = []
        result = Resources()
        for child, count in self.children[module].items():
            inner, resources = self.found(names, child)
            modules += inner * count
            result = result + resources.scaled(count)
        return modules, result


def parse_stat(doc: dict[str, Any], family: str, top: str, boxes: tuple[str, ...] = ()) -> Hierarchy:
    """boxes: module names (before any '$') left as black boxes: their cells count nothing."""
    try:
        modules: dict[str, Any] = doc["modules"]
    except (KeyError, TypeError) as err:
        raise BuildError("Yosys stat JSON has no 'modules' table") from err
    names = {key.lstrip("\\") for key in modules}
    if top not in names:
        raise BuildError(f"Yosys stat JSON has no module '{top}' (modules: {', '.join(sorted(names))})")
    own: dict[str, Resources] = {}
    children: dict[str, dict[str, int]] = {}
    for key, entry in modules.items():
        name = key.lstrip("\\")
        cells = {c: n for c, n in entry.get("num_cells_by_type", {}).items() if c.split("$", 1)[0] not in boxes}
        children[name] = {cell: n for cell, n in cells.items() if cell in names}
        own[name] = _primitives({c: n for c, n in cells.items() if c not in names}, family, name)
    return Hierarchy(top, own, children)


def read_stat(path: Path, family: str, top: str, boxes: tuple[str, ...] = ()) -> Hierarchy:
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise BuildError(f"cannot read Yosys statistics {path}: {err}") from err
    return parse_stat(doc, family, top, boxes)


@dataclass(frozen=True)
class Timing:
    """nextpnr's verdict for one clock: the Fmax it achieved and the constraint it was given."""

    clock: str
    fmax_mhz: float
    target_mhz: float

    @property
    def met(self) -> bool:
        return self.fmax_mhz >= self.target_mhz


def parse_nextpnr_report(doc: dict[str, Any]) -> tuple[list[Timing], dict[str, tuple[int, int]]]:
    """The clocks' Fmax and the device utilisation {bel type: (used, available)}."""
    try:
        fmax = doc["fmax"]
        utilization = doc["utilization"]
    except (KeyError, TypeError) as err:
        raise BuildError("nextpnr report has no 'fmax' or 'utilization' table") from err
    timings = [Timing(clock, float(v["achieved"]), float(v["constraint"])) for clock, v in fmax.items()]
    used = {bel: (int(v["used"]), int(v["available"])) for bel, v in utilization.items()}
    return timings, used


def read_nextpnr_report(path: Path) -> tuple[list[Timing], dict[str, tuple[int, int]]]:
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise BuildError(f"cannot read nextpnr report {path}: {err}") from err
    return parse_nextpnr_report(doc)
