"""The hardware-cost anchors and area goals of issue 19, written once.

`couplet synth` and `couplet sweep` quote the anchors in their reports and judge the goals on the
counts they have just made; `couplet gen` writes docs/fpga-anchors.md from the same records.
Same-tool anchors were measured with our Yosys; the seeds' figures are theirs (Vivado, each on
its own part and clock), an order of magnitude to read beside ours, not a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import paths
from couplet.model.config import SocConfig
from couplet.reports.bench_report import Section, goal_row
from couplet.reports.results import markdown_table
from couplet.tools.soc_synthesis import ENGINES


@dataclass(frozen=True)
class Anchor:
    """A published or measured figure to read ours against; empty cells were not given."""

    name: str  # short, for a goal row
    design: str
    luts: str
    ffs: str
    cycles: str
    source: str

    def cite(self) -> str:
        """The anchor in a goal row: its LUTs (and cycles) and whose figure it is."""
        cycles = f", {self.cycles}" if self.cycles else ""
        whose = "Yosys, same tool" if self.source == SAME_TOOL_SOURCE else f"{self.source.split(',')[0]}, Vivado"
        return f"{self.name}: {self.luts} LUTs{cycles} ({whose})"


SAME_TOOL_SOURCE = "Yosys 0.70 synth_xilinx -family xc7 -flatten, each design alone, measured for issue 19"
FACV_SOURCE = "FAC-V Table 5, Vivado 2020.2 post-implementation, Artix-7 (Arty), 65 MHz"
KRONOS_SOURCE = "KRONOS Table 2, Vivado, Zynq UltraScale+ (ZCU104), 50 MHz"
CHAMELIOT_SOURCE = "ChamelIoT Table III, Vivado 2020.2, Artix-7 (Arty A7-100T), 65 MHz"

AES_CORE = Anchor("couplet_aes_core", "couplet_aes_core, ROLLED, enc+dec, 128/192/256", "8,010", "2,319", "10 cycles per block",
                  SAME_TOOL_SOURCE)
SECWORKS_AES = Anchor("secworks/aes", "secworks/aes (BSD-2; enc+dec, 128/256, with its 32-bit register interface)", "4,136",
                      "2,994", "46 cycles per block", SAME_TOOL_SOURCE)
KECCAK_CORE = Anchor("couplet_keccak_core", "couplet_keccak_core, 1 round/cycle", "4,370", "1,607", "", SAME_TOOL_SOURCE)
OPENTITAN_KECCAK = Anchor("OpenTitan prim_keccak", "OpenTitan prim_keccak round + 1,600-bit state register", "3,814", "1,606", "",
                          SAME_TOOL_SOURCE)
FACV_128 = Anchor("FAC-V FACV-128", "FAC-V FACV-128 (AES-128 rolled), per coupling over Rocket", "+4,056 to +4,174 (MMIO +4,174)",
                  "+1,822 to +2,169", "", FACV_SOURCE)
FACV_128_MMIO = Anchor("FAC-V FACV-128 MMIO", "FAC-V FACV-128 MMIO", "+4,174", "+1,822", "", FACV_SOURCE)
KRONOS_LOOSE = Anchor("KRONOS loosely coupled", "KRONOS loosely coupled", "4,915", "3,252", "", KRONOS_SOURCE)
KRONOS_COPROC = Anchor("KRONOS coprocessor", "KRONOS coprocessor", "6,591", "3,372", "", KRONOS_SOURCE)
CHAMELIOT_8T = Anchor("ChamelIoT 8 threads", "ChamelIoT 8 threads over Rocket", "+6,115", "+1,854", "", CHAMELIOT_SOURCE)

SAME_TOOL = (AES_CORE, SECWORKS_AES, KECCAK_CORE, OPENTITAN_KECCAK)
SEEDS = (FACV_128, KRONOS_LOOSE, KRONOS_COPROC, CHAMELIOT_8T)

ALL_KEY_SIZES = (128, 192, 256)


@dataclass(frozen=True)
class AreaGoal:
    """An upper bound on LUTs: the increase over the core-only SoC of one accelerator in one
    coupling with the given settings, or (accelerator None) the total of the named configuration."""

    label: str
    accelerator: str | None
    coupling: str | None
    # (setting of [accelerator.*], value it must have, value when the configuration has no such
    # setting): a setting added later (AES decrypt, key_sizes) reads as its default until then.
    settings: tuple[tuple[str, Any, Any], ...]
    limit: float
    anchor: str
    target: str = "xc7"
    config: str | None = None

    def applies(self, accelerator: str | None, coupling: str | None, config: SocConfig) -> bool:
        if (accelerator, coupling) != (self.accelerator, self.coupling):
            return False
        if accelerator is None:
            return config.name == self.config
        own = getattr(config, accelerator, None)
        if own is None:
            return False
        for setting, wanted, default in self.settings:
            value = getattr(own, setting, default)
            if isinstance(value, (list, tuple)):
                value = tuple(value)
            if value != wanted:
                return False
        return True


_AES_ROLLED = (("arch", "rolled", None),)
GOALS = (
    AreaGoal("AES ROLLED, enc+dec, all key sizes, mmio (+LUTs)", "aes", "mmio",
             (*_AES_ROLLED, ("decrypt", True, True), ("key_sizes", ALL_KEY_SIZES, ALL_KEY_SIZES)), 8000,
             SECWORKS_AES.cite()),
    AreaGoal("AES ROLLED, encrypt-only AES-128, mmio (+LUTs)", "aes", "mmio",
             (*_AES_ROLLED, ("decrypt", False, True), ("key_sizes", (128,), ALL_KEY_SIZES)), 3500,
             FACV_128_MMIO.cite()),
    AreaGoal("Keccak 1 round/cycle, mmio (+LUTs)", "keccak", "mmio", (("rounds_per_cycle", 1, None),), 5000,
             KRONOS_LOOSE.cite()),
    AreaGoal("Keccak 1 round/cycle, tight (+LUTs)", "keccak", "tight", (("rounds_per_cycle", 1, None),), 5000,
             KRONOS_COPROC.cite()),
    AreaGoal("RTOS 8 threads, tight (+LUTs)", "rtos", "tight", (("max_threads", 8, None),), 5500,
             CHAMELIOT_8T.cite()),
    AreaGoal("default SoC, everything (LUT4s)", None, None, (), 70000,
             "fits the ULX3S's LFE5U-85F (84K LUT4s) with room for the board's top", target="ecp5",
             config="default"),
)

# One measured point: (accelerator or None for the whole SoC, coupling, its configuration, LUTs:
# the increase over the core-only SoC, or the SoC's total when accelerator is None).
Measured = tuple[str | None, str | None, SocConfig, float]


def goal_rows(target: str, measured: Sequence[Measured]) -> list[list[str]]:
    """Every goal: judged on the first point it applies to, else said to be not measured here."""
    rows = []
    for goal in GOALS:
        value = next((luts for acc, coupling, config, luts in measured
                      if goal.target == target and goal.applies(acc, coupling, config)), None)
        if value is None:
            rows.append([goal.label, goal.target, "-", f"<= {goal.limit:g}", "not measured here", goal.anchor])
        else:
            rows.append(goal_row(goal.label, target, value, goal.limit, goal.anchor))
    return rows


ANCHOR_HEADERS = ["design", "LUTs", "FFs", "cycles", "source"]


def anchor_sections() -> list[Section]:
    """The anchors as report sections: ours first, then the seeds' in their own units."""
    same = [[a.design, a.luts, a.ffs, a.cycles or "-", a.source] for a in SAME_TOOL]
    seeds = [[a.design, a.luts, a.ffs, a.cycles or "-", a.source] for a in SEEDS]
    return [("Anchors: the same tool (Yosys xc7 counts, comparable with couplet's own)", ANCHOR_HEADERS, same),
            ("Anchors: the seeds' figures (Vivado, as published; read beside ours, not as a match)",
             ANCHOR_HEADERS, seeds)]


DOC_PAGE = paths.DOCS_DIR / "fpga-anchors.md"


def doc_page() -> str:
    """docs/fpga-anchors.md: the anchors and the goals, as `couplet synth` and `sweep` judge them."""
    lines = ["<!-- Generated by `couplet gen` from couplet/reports/anchors.py: edit that, not this. -->\n",
             "# Hardware-cost anchors and area goals (issue 19)\n",
             "`couplet synth` and `couplet sweep` quote these in their reports and judge the goals on the",
             "counts they have just made ([fpga.md](fpga.md)). A goal is judged only when its point was",
             "synthesized for its target; otherwise the report says it was not measured.\n"]
    for title, headers, rows in anchor_sections():
        lines += [f"## {title}\n", markdown_table(headers, rows)]
    engines = [[acc, ", ".join(f"`{m}`" for m in modules)] for acc, modules in ENGINES.items()]
    lines += ["## Engine modules (the rest of an accelerator's increase is its front end)\n",
              markdown_table(["accelerator", "engine modules"], engines)]
    goals = [[g.label, g.target, f"configuration '{g.config}'" if g.accelerator is None else ", ".join(
        f"{s} = {toml_value(w)}" for s, w, _ in g.settings), f"<= {g.limit:,g}", g.anchor] for g in GOALS]
    lines += ["## Area goals (LUTs over the core-only SoC, or the SoC's total)\n",
              markdown_table(["goal", "target", "settings", "limit", "anchor"], goals)]
    return "\n".join(lines)


def toml_value(value: Any) -> str:
    """A setting as a configuration file spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def doc_outputs() -> dict[Path, str]:
    return {DOC_PAGE: doc_page()}

