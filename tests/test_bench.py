"""`couplet bench sim` and `couplet bench sha3` measure and write their reports (goals live in the
reports). The sha3 checks run on the real bench_sha3 firmware's output; its floor model is
checked against counts made by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bench_console import tamper
from conftest import run_couplet

from couplet import paths
from couplet.errors import CoupletError
from couplet.flows.bench import sha3
from couplet.model.config import SocConfig
from couplet.reports import bench_report
from couplet.reports.results import parse_results
from couplet.tools.simulator import SimResult


def test_bench_sim_writes_report(sim_binary: Path) -> None:
    proc = run_couplet("bench", "sim", "--runs", "1")
    assert proc.returncode == 0, proc.stderr
    assert "M cycles/s" in proc.stdout
    data = json.loads((paths.BUILD_DIR / "reports" / "bench-sim-default.json").read_text())
    assert data["cycles_per_run"] > 1_000_000
    assert len(data["cycles_per_second"]) == 1 and data["mean"] > 0
    assert (paths.BUILD_DIR / "reports" / "bench-sim-default.md").read_text().startswith("# Simulation speed")


# ---------------------------------------------------------------------------- bench sha3


@pytest.fixture(scope="module")
def sha3_console(config: SocConfig, sim_binary: Path) -> str:
    """`couplet bench sha3` on the default SoC, run once, end to end (about 45 s): its report is
    checked here, and the firmware console it keeps beside the report feeds the tests below."""
    proc = run_couplet("bench", "sha3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "KRONOS Table 1 shape" in proc.stdout and "Goals" in proc.stdout
    stem = paths.BUILD_DIR / "reports" / f"bench-sha3-{config.name}"
    data = json.loads(stem.with_suffix(".json").read_text())
    assert list(data["backends"]) == sha3.configured_backends(config)
    assert data["missing_backends"] == [b for b in sha3.BACKENDS if b not in data["backends"]]
    # The four one-call goals, the incremental ratio and the ISE speed-up.
    assert len(data["goals"]) == 6
    assert stem.with_suffix(".md").read_text().startswith("# SHA-3 benchmark")
    assert "against the physical floor" in proc.stdout
    assert set(data["floors"]) == {b for b in sha3.configured_backends(config) if b not in ("soft", "ise")}
    assert stem.with_suffix(".png").stat().st_size > 1000
    return stem.with_suffix(".log").read_text()


def test_bench_sha3_firmware_outputs_match_hashlib(config: SocConfig, sha3_console: str) -> None:
    measurements = parse_results(sha3_console)
    stats = sha3.summarise(measurements)
    # Every backend of the configuration reported, each output equal to hashlib's digest.
    sha3.check_results(stats, sha3.configured_backends(config))
    assert list(stats) == sha3.configured_backends(config)  # reported in the enum's order
    # The statistics, recomputed from the raw lines.
    for backend, measures in stats.items():
        for measure, stat in measures.items():
            cycles = [m.cycles for m in measurements if m.name == f"sha3/{backend}/{measure}"]
            assert stat.runs == len(cycles) and stat.mean == pytest.approx(sum(cycles) / len(cycles))
        long_runs = sha3.SLOW_LONG_RUNS if backend in sha3.SLOW_BACKENDS else sha3.LONG_RUNS
        assert measures["kronos"].runs == measures["kronos/oneshot"].runs == sha3.KRONOS_RUNS
        assert measures["kronos/held"].runs == sha3.KRONOS_RUNS
        assert all(measures[m].runs == sha3.SPLIT_RUNS for m in sha3.SPLIT_MEASURES)
        assert measures["sha3-256/4096"].runs == measures["shake128/4096"].runs == long_runs
        if backend not in sha3.SLOW_BACKENDS:
            # On an accelerator the held call does what the one call does, without the lock.
            assert measures["kronos/held"].mean < measures["kronos/oneshot"].mean, backend
    # The lines that are not hashes: the empty interval, and the memory-mapped accesses (2 cycles
    # each on this SoC's bus: one OBI transaction every two cycles, hw/ip/accel/README.md).
    harness = [m for m in measurements if m.name == "sha3-harness/none/empty"]
    assert len(harness) == 1 and 0 < harness[0].cycles < 100
    for m in measurements:
        if m.name.startswith("sha3/"):
            # mcycle and minstret really bracket the calls: no instruction is free on CV32E40X.
            # (Less the empty interval's: minstret is read outside mcycle, so its window holds a
            # few more instructions of the timing itself, more than init now takes in cycles.)
            assert m.cycles - harness[0].cycles >= m.instret - harness[0].instret > 0, m
    if "mmio" in stats:
        costs = sha3.measured_access_costs(measurements)
        assert costs.mmio == pytest.approx(2.0, abs=0.25)
    soft = stats["soft"]
    # Sponge arithmetic: 4 KiB at the SHA3-256 rate (136 B) is 31 permutations, at SHAKE128's
    # (168 B) 25, so the software backend's cost per byte must fall in that ratio (+-15 %).
    ratio = soft["sha3-256/4096"].mean / soft["shake128/4096"].mean
    assert ratio == pytest.approx(31 / 25, rel=0.15)
    for backend, measures in stats.items():
        # The three calls timed one by one add up to the whole hash (give or take the counter reads).
        split = sum(measures[m].mean for m in sha3.SPLIT_MEASURES)
        assert split == pytest.approx(measures["kronos"].mean, rel=0.05), backend
        if backend != "soft":
            for measure in ("kronos", "kronos/oneshot", *sha3.LONG_MEASURES):
                # An accelerator that is not faster than software on a whole hash is broken.
                assert measures[measure].mean < soft[measure].mean, (backend, measure)


def test_bench_sha3_rejects_wrong_or_missing_results(config: SocConfig, sha3_console: str) -> None:
    backends = sha3.configured_backends(config)
    last = backends[-1]
    name = f"sha3/{last}/kronos"
    # One run disagreeing with the others.
    first_only = iter([True])
    one_off = tamper(sha3_console, name, lambda line: line.replace("check=0x", "check=0x1") if next(first_only, False)
                      else line)
    with pytest.raises(CoupletError, match="runs disagree"):
        sha3.summarise(parse_results(one_off))
    # Every run of one backend consistently wrong: only hashlib catches it.
    wrong = tamper(sha3_console, name, lambda line: re.sub(r"check=0x[0-9a-f]+", "check=0x00000000", line))
    with pytest.raises(CoupletError, match="wrong output"):
        sha3.check_results(sha3.summarise(parse_results(wrong)), backends)
    # A measure missing.
    dropped = tamper(sha3_console, f"sha3/{last}/shake128/4096", lambda line: None)
    with pytest.raises(CoupletError, match="no result for shake128/4096"):
        sha3.check_results(sha3.summarise(parse_results(dropped)), backends)
    # A backend the configuration has but the firmware did not report.
    with pytest.raises(CoupletError, match="configuration has"):
        sha3.check_results(sha3.summarise(parse_results(sha3_console)), [*backends, "extra"])


def test_bench_sha3_floor_model() -> None:
    """The floor of the KRONOS hash (SHA3-384, 200 bytes: a whole block and 96 bytes, 48 out),
    counted by hand from what each coupling must move (sha3_floor's docstring)."""
    costs = sha3.AccessCosts()

    def floor(backend: str, state_kept: bool = False) -> int:
        f = sha3.sha3_floor(backend, 104, 200, 48, 1, costs, state_kept=state_kept)
        assert f is not None
        return f.cycles

    # 50 lw, 13 + 13 WRITE2 (the last pair carries the domain byte and the final bit), 2 PERMUTE,
    # 2 x 24 engine, 12 READ + 12 sw, 1 ZEROIZE.
    assert floor("tight") == floor("mem") == 50 + 26 + 2 + 48 + 24 + 1
    # 50 lw, 52 stores (26 + the last block's 24 words, the domain byte's word and the final
    # bit's), 2 CMD, 12 loads and ZEROIZE and STATUS at 2 cycles each, 2 x 24 engine, 12 sw.
    assert floor("mmio") == 50 + (52 + 2 + 12 + 2) * 2 + 48 + 12
    # The descriptor (8 accesses, 26 words at a word per cycle) instead of the whole block's 26
    # loads and stores.
    assert floor("dma") == floor("mmio") - 26 * 3 + 8 * 2 + 26
    # init + update + final: the state stored by update (50 READ + 50 sw) and wiped by final.
    assert floor("mem", state_kept=True) == floor("mem") + 100 + 50
    assert floor("mmio", state_kept=True) == floor("mmio") + 150 + 50
    # Faster engines, fewer cycles; three blocks and more by ABSORB on mem; no floor in software.
    f24 = sha3.sha3_floor("tight", 104, 200, 48, 24, costs)
    assert f24 is not None and f24.cycles == floor("tight") - 46
    three = sha3.sha3_floor("mem", 104, 3 * 104 + 10, 48, 1, costs)
    assert three is not None and "ABSORB" in three.counts
    assert sha3.sha3_floor("soft", 104, 200, 48, 1, costs) is None


def test_bench_sha3_tables_and_goals(config: SocConfig, sha3_console: str) -> None:
    stats = sha3.summarise(parse_results(sha3_console))
    _, headers, rows = sha3.kronos_table(stats, config.clock_hz)
    assert [r[0] for r in rows] == list(sha3.BACKENDS)  # every backend, present or not
    for row in rows:
        cells = dict(zip(headers, row))
        if row[0] not in stats:
            assert cells["cycles"] == sha3.NOT_IN_CONFIG
            continue
        cycles = stats[row[0]]["kronos/oneshot"].mean
        assert float(cells["speed-up vs soft"].rstrip("x")) == pytest.approx(
            stats["soft"]["kronos/oneshot"].mean / cycles, abs=0.006)
        # KRONOS's throughput: 384 digest bits per hash.
        mbit = float(cells[f"Mbit/s @ {config.clock_hz / 1e6:g} MHz"])
        assert mbit == pytest.approx(384 * config.clock_hz / cycles / 1e6, abs=0.006)
    kronos = dict(zip(headers, rows[sha3.BACKENDS.index("mmio")]))
    assert kronos["KRONOS speed-up"] == "13.56x" and kronos["KRONOS Mbit/s @ 50 MHz"] == "4.61"  # its Table 1
    costs = sha3.measured_access_costs(parse_results(sha3_console))
    floors = sha3.kronos_floors(config, costs)
    _, headers, rows = sha3.floors_table(stats, floors)
    for row in rows:
        if row[0] in floors:
            for cell, level in zip(row[1:4], ("one", "three", "one")):
                assert f"floor {floors[row[0]][level].cycles:,}" in cell, (row[0], cell)
    goal_rows = sha3.goals(stats, floors)
    assert [r[1] for r in goal_rows] == ["dma", "mmio", "tight", "mem", "mem", "ise"]
    for row in goal_rows:
        goal = dict(zip(bench_report.GOAL_HEADERS, row))
        backend = goal["backend"]
        if backend not in stats:
            assert goal["verdict"] == sha3.NOT_IN_CONFIG
            continue
        measured = float(goal["measured"].rstrip("x").replace(",", ""))
        limit = float(goal["target"].split()[1].rstrip("x"))
        met = measured >= limit if goal["target"].startswith(">=") else measured <= limit
        assert goal["verdict"] == ("met" if met else "NOT met"), goal
