"""`couplet energy`: the toggle-coverage model, the harness's --coverage, the coverage.dat parser,
the differencing of two runs and the arithmetic of the relative energy model.

The simulations run on a small SoC derived from the default one (the core and the AES
accelerator coupled tightly only): its toggle-coverage model is one more build (~1 min), and
five short runs of sw/apps/energy_aes feed every check below. The real estimate of the default
SoC (docs/energy.md) needs Yosys for the cell counts and runs outside the suite.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from couplet.errors import CoupletError, SimulationError
from couplet.flows import energy
from couplet.tools.soc_synthesis import derive_config
from couplet.model.config import SocConfig, read_config_doc
from couplet.tools import simbuild, simulator
from couplet.tools.yosys_stats import Resources

# (backend, messages) of every run; all with 16-byte messages (one AES block each).
RUNS = (("tight", 2), ("tight", 6), ("tight", 10), ("soft", 1), ("soft", 2))
TILE = "g_tile[0].u_tile"
# The top-level instances of couplet_soc in this configuration (hw/soc/rtl/couplet_soc.sv):
# what synth_report calls the SoC's children, plus the X-IF interface and the SoC's own glue.
INSTANCES = {"u_core", "u_sram", "u_clint", "u_simctrl", "u_instr_demux", "u_data_demux", TILE,
             "g_xif.u_xif_adapter", "u_xif", energy.GLUE}


@pytest.fixture(scope="module")
def aes_tight() -> SocConfig:
    doc, path = read_config_doc("default")
    return derive_config(doc, path, "energy_aes_tight", {"aes": ["tight"]})


@pytest.fixture(scope="module")
def runs(aes_tight: SocConfig) -> dict[tuple[str, int], energy.Run]:
    simbuild.build_sim(aes_tight, "toggle")
    return {(b, n): energy.run_once(aes_tight, b, 16, n) for b, n in RUNS}


def points(config: SocConfig, backend: str, messages: int) -> list[energy.TogglePoint]:
    return energy.read_coverage(energy.coverage_dir(config) / f"{backend}-16-{messages}.dat")


def test_coverage_counts_match_independent_counts(aes_tight: SocConfig,
                                                  runs: dict[tuple[str, int], energy.Run]) -> None:
    for (backend, n), run in runs.items():
        path = energy.coverage_dir(aes_tight) / f"{backend}-16-{n}.dat"
        parsed = energy.read_coverage(path)
        # Every toggle line, summed by plain string splitting, equals the parser's total.
        lines = [line for line in path.read_text(errors="replace").splitlines() if "\x01page\x02v_toggle/" in line]
        assert len(lines) == len(parsed)
        assert sum(int(line.rsplit(" ", 1)[1]) for line in lines) == sum(p.count for p in parsed)
        by_name = {(p.hier, p.bit, p.rising): p.count for p in parsed}
        # The harness's clock: one rise per cycle plus the edge on which the firmware exited,
        # one fall per cycle (sim/couplet_sim.cpp), both directions kept apart.
        assert by_name[("TOP.couplet_sim_top", "clk_i", True)] == run.cycles + 1
        assert by_name[("TOP.couplet_sim_top", "clk_i", False)] == run.cycles
        # The AES core takes one block per 16-byte message: its one-cycle block-start pulse
        # rises once per encryption the firmware made (key set-up starts no block), and never
        # on the software backend.
        fire = by_name[(f"{energy.SOC_SCOPE}.{TILE}.g_aes.u_aes", "core_in_fire", True)]
        assert fire == (n if backend == "tight" else 0)
        # The grouping: exactly the SoC's instances, each with two points per bit.
        activity = energy.activity_by_instance(parsed)
        assert set(activity) == INSTANCES
        assert all(a.bits > 0 for a in activity.values())
        # The firmware's output is the host's AES (run_once checks it too): same on both backends.
        assert run.check == energy.expected_check(16, n)
    assert runs[("tight", 2)].check == runs[("soft", 2)].check


def test_per_message_is_the_difference_of_two_runs(runs: dict[tuple[str, int], energy.Run]) -> None:
    def msg(backend: str, n1: int, n2: int) -> energy.PerMessage:
        r1, r2 = runs[(backend, n1)], runs[(backend, n2)]
        return energy.per_message(r1.activity, r1.cycles, n1, r2.activity, r2.cycles, n2)

    first, second = msg("tight", 2, 6), msg("tight", 6, 10)
    # The two builds run the same code but for the loop count: the whole-run difference is the
    # loop's, as mcycle measured it inside the firmware.
    for a, b in ((2, 6), (6, 10)):
        r1, r2 = runs[("tight", a)], runs[("tight", b)]
        assert r2.cycles - r1.cycles == r2.loop_cycles - r1.loop_cycles
    assert first.cycles == second.cycles > 0
    # ...and per message is that difference over the number of extra messages.
    assert first.cycles * 4 == runs[("tight", 6)].loop_cycles - runs[("tight", 2)].loop_cycles
    tile = {n: runs[("tight", n)].activity[TILE].toggles for n in (2, 6)}
    assert first.toggles[TILE] * 4 == tile[6] - tile[2]
    # Each message costs the same: (2, 6) and (6, 10) agree (the data differ, so not exactly).
    for inst in (TILE, "u_core"):
        assert first.toggles[inst] > 0
        assert second.toggles[inst] == pytest.approx(first.toggles[inst], rel=0.03)
    soft = msg("soft", 1, 2)
    # The software backend leaves the accelerator idle: its toggles (inputs excluded) do not
    # grow with the messages, while the core's grow far more than on the tight backend.
    assert soft.toggles[TILE] == 0
    assert soft.cycles > 10 * first.cycles
    assert soft.toggles["u_core"] > 10 * first.toggles["u_core"]
    assert soft.bits == first.bits
    with pytest.raises(CoupletError):
        msg("tight", 6, 2)


def test_coverage_needs_the_coverage_model(sim_binary: Path, tmp_path: Path, config: SocConfig) -> None:
    # The plain model (conftest: the default SoC's, which the suite builds anyway) refuses the
    # option before it loads anything.
    proc = subprocess.run([str(sim_binary), "--coverage", str(tmp_path / "c.dat"), str(tmp_path / "none.elf")],
                          capture_output=True, text=True)
    assert proc.returncode == 125
    assert "--coverage: this model was built without toggle coverage" in proc.stderr
    assert not (tmp_path / "c.dat").exists()
    elf = tmp_path / "x.elf"
    elf.write_bytes(b"\x7fELF")
    with pytest.raises(SimulationError, match="different models"):
        simulator.simulate(config, elf, trace=tmp_path / "w.fst", coverage=tmp_path / "c.dat")


def test_parser_rejects_malformed_lines() -> None:
    good = ("C '\x01t\x02toggle\x01page\x02v_toggle/m\x01o\x02q[3]:1->0\x01h\x02"
            f"{energy.SOC_SCOPE}.u_core.x' 7")
    (point,) = energy.parse_coverage("# SystemC::Coverage-3\n" + good + "\n")
    assert (point.hier, point.bit, point.signal, point.rising, point.count) == (
        f"{energy.SOC_SCOPE}.u_core.x", "q[3]", "q", False, 7)
    with pytest.raises(CoupletError, match="line 1"):
        energy.parse_coverage("C 'no count'")
    with pytest.raises(CoupletError, match="toggle point"):
        energy.parse_coverage(good.replace(":1->0", ""))
    # Grouping by the SoC's top-level instances.
    assert energy.instance_of(f"{energy.SOC_SCOPE}.g_tile[2].u_tile.g_aes.u_aes") == "g_tile[2].u_tile"
    assert energy.instance_of(f"{energy.SOC_SCOPE}.g_tile[2]") == energy.GLUE
    assert energy.instance_of(energy.SOC_SCOPE) == energy.GLUE
    assert energy.instance_of("TOP.couplet_sim_top") is None


def test_model_arithmetic_on_a_hand_example() -> None:
    # Two runs of 1 and 3 messages: per message = difference / 2.
    a1 = {"u_a": energy.Activity(100, 10), "u_b": energy.Activity(50, 50), energy.GLUE: energy.Activity(1, 2),
          "u_if": energy.Activity(0, 4)}
    a2 = {"u_a": energy.Activity(140, 10), "u_b": energy.Activity(60, 50), energy.GLUE: energy.Activity(5, 2),
          "u_if": energy.Activity(12, 4)}
    msg = energy.per_message(a1, 1000, 1, a2, 1020, 3)
    assert msg.cycles == 10
    assert msg.toggles == {"u_a": 20, "u_b": 5, energy.GLUE: 2, "u_if": 6}
    resources = {"u_a": Resources(luts=30, ffs=10), "u_b": Resources(luts=50, ffs=50, bram=2.0),
                 energy.GLUE: Resources(luts=10)}
    # u_if has no cells of its own: its 6 toggles and 4 bits join the glue (8 toggles, 6 bits).
    merged = energy.merge_into_glue(msg, resources)
    assert merged.toggles[energy.GLUE] == 8 and merged.bits[energy.GLUE] == 6
    no_static = energy.estimate(merged, resources, 0.0)
    # dynamic: u_a 20/10 x 40 = 80, u_b 5/50 x 100 = 10, glue 8/6 x 10 = 13.33 (BRAM not counted)
    assert no_static.dynamic_by_instance == pytest.approx({"u_a": 80.0, "u_b": 10.0, energy.GLUE: 40 / 3})
    assert no_static.clock == 10 * 60  # 10 cycles x 60 flip-flops
    assert no_static.static == 0
    k = energy.calibrate_static(merged, resources, share=0.25)
    assert k == pytest.approx((0.25 / 0.75) * (80 + 10 + 40 / 3 + 600) / (10 * 150))
    e = energy.estimate(merged, resources, k)
    assert e.static == pytest.approx((80 + 10 + 40 / 3 + 600) / 3)
    assert e.static / e.total == pytest.approx(0.25)
    # The stated default: FAC-V Table 10's static share.
    k_facv = energy.calibrate_static(merged, resources)
    e = energy.estimate(merged, resources, k_facv)
    assert e.static / e.total == pytest.approx(0.099 / 0.295)
    # A message twice as long costs twice the clock and static energy of the same hardware.
    longer = energy.PerMessage(20, merged.toggles, merged.bits)
    assert energy.estimate(longer, resources, k).clock == 2 * no_static.clock
    with pytest.raises(CoupletError):
        energy.calibrate_static(merged, resources, share=1.0)


def test_anchor_table_sets_each_backend_beside_its_facv_counterpart() -> None:
    resources = {"u_a": Resources(luts=10, ffs=10)}

    def result(backend: str, cycles: float) -> energy.Result:
        msg = energy.PerMessage(cycles, {"u_a": 0.0}, {"u_a": 1})
        return energy.Result(backend, 16, msg, energy.estimate(msg, resources, 0.0))

    title, headers, rows = energy.anchor_section([result("soft", 1000), result("mem", 40), result("zkn", 100)])
    assert "anchors, not goals" in title and headers[0] == "backend"
    # With no toggles the energy is the clock term alone: cycles x FFs.
    assert rows == [["mem", "16 B", "0.0400", f"{0.10 / 541.12:.5f} (RoCC Mem)"],
                    ["zkn", "16 B", "0.1000", "-"]]
