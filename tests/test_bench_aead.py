"""`couplet bench aead`: the flow run once on the default SoC with the firmware's reduced build
(2 runs per measure, 1 over 4 KiB), its report and the firmware console it keeps beside it; the
floor model against counts made by hand; the goal rows' verdicts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bench_console import tamper
from conftest import run_couplet

from couplet import paths
from couplet.errors import CoupletError
from couplet.flows.bench import aead
from couplet.model.config import SocConfig
from couplet.reports import bench_report
from couplet.reports.bench_report import Stat, Stats
from couplet.reports.results import parse_results

QUICK_RUNS = int(aead.QUICK_DEFINES["RUNS"])
QUICK_LONG_RUNS = int(aead.QUICK_DEFINES["GCM4K_RUNS"])


@pytest.fixture(scope="module")
def aead_report(config: SocConfig, sim_binary: Path) -> tuple[dict[str, Any], str]:
    """The flow, in its reduced mode, end to end: (the JSON report, the firmware console)."""
    assert aead.run(config, quick=True) == 0
    stem = paths.BUILD_DIR / "reports" / f"bench-aead-{config.name}"
    data = json.loads(stem.with_suffix(".json").read_text())
    assert stem.with_suffix(".md").read_text().startswith("# AEAD benchmark")
    assert stem.with_suffix(".png").stat().st_size > 1000
    return data, stem.with_suffix(".log").read_text()


def test_bench_aead_report(config: SocConfig, aead_report: tuple[dict[str, Any], str]) -> None:
    data, _ = aead_report
    assert data["quick"] and data["config"] == config.name
    assert list(data["backends"]) == aead.configured_backends(config)  # every backend, in the enum's order
    for backend, measures in data["backends"].items():
        assert set(measures) == set(aead.MEASURES), backend
    # A floor for each coupling that has one, for every measure (the default SoC has GHASH).
    assert set(data["floors"]) == {b for b in aead.configured_backends(config) if b in aead.COUPLINGS}
    for backend, floors in data["floors"].items():
        assert set(floors) == set(aead.MEASURES), backend
    # The goals: the frame both ways, and GCM over 4 KiB on dma.
    goals = data["goals"]
    assert [g["backend"] for g in goals][2] == "dma"
    assert len(goals) == 3 and all(g["verdict"].startswith(("met", "NOT met")) for g in goals)
    assert goals[0]["target"] == ">= 40 x" and goals[2]["target"] == ">= 1 B/cycle"
    assert data["expected_checks"] == aead.expected_checks()


def test_bench_aead_outputs_and_figures(config: SocConfig, aead_report: tuple[dict[str, Any], str]) -> None:
    _, console = aead_report
    measurements = parse_results(console)
    stats = aead.summarise(measurements)
    aead.check_results(stats, aead.configured_backends(config))
    # Every backend's output equals the software backend's (and the host's AES, checked above).
    for backend, measures in stats.items():
        for measure, stat in measures.items():
            assert stat.check == stats["soft"][measure].check, (backend, measure)
    assert config.aes is not None
    soft = stats["soft"]
    for backend, measures in stats.items():
        for measure, stat in measures.items():
            expected_runs = QUICK_LONG_RUNS if measure == aead.GCM4K else QUICK_RUNS
            assert stat.runs == expected_runs, (backend, measure)
            cycles = [m.cycles for m in measurements if m.name == f"aead/{backend}/{measure}"]
            assert stat.mean == pytest.approx(sum(cycles) / len(cycles))
            assert stat.mean / aead.payload_bytes(measure) > 0
            # Software is the slowest backend at every measure.
            if backend != "soft":
                assert stat.mean < soft[measure].mean, (backend, measure)
            # No figure is below its floor: a floor above a measurement is a wrong model.
            bound = aead.floor(backend, measure, config.aes.arch, config.aes.ghash_bits)
            if bound is not None:
                assert bound.cycles <= stat.mean, f"{backend} {measure}: floor {bound} above {stat.mean}"
        # Longer messages take longer.
        for prefix in ("ccm/enc/0/", "ccm/dec/16/", "gcm/enc/", "cmac/"):
            assert measures[f"{prefix}16"].mean < measures[f"{prefix}80"].mean, (backend, prefix)


def test_bench_aead_rejects_wrong_or_missing_results(config: SocConfig,
                                                     aead_report: tuple[dict[str, Any], str]) -> None:
    _, console = aead_report
    backends = aead.configured_backends(config)
    last = backends[-1]
    # Every run of one backend consistently wrong: the host's AES catches it.
    wrong = tamper(console, f"aead/{last}/frame/enc",
                    lambda line: re.sub(r"check=0x[0-9a-f]+", "check=0x00000000", line))
    with pytest.raises(CoupletError, match="wrong output"):
        aead.check_results(aead.summarise(parse_results(wrong)), backends)
    # One run disagreeing with the other.
    first_only = iter([True])
    one_off = tamper(console, f"aead/{last}/cmac/16",
                      lambda line: line.replace("check=0x", "check=0x1") if next(first_only, False) else line)
    with pytest.raises(CoupletError, match="runs disagree"):
        aead.summarise(parse_results(one_off))
    dropped = tamper(console, f"aead/{last}/{aead.GCM4K}", lambda line: None)
    with pytest.raises(CoupletError, match=f"no result for {aead.GCM4K}"):
        aead.check_results(aead.summarise(parse_results(dropped)), backends)
    with pytest.raises(CoupletError, match="configuration has"):
        aead.check_results(aead.summarise(parse_results(console)), [*backends, "extra"])


def _floor(backend: str, measure: str, arch: str = "rolled", ghash_bits: int = 8) -> int:
    f = aead.floor(backend, measure, arch, ghash_bits)
    assert f is not None
    return f.cycles


def test_bench_aead_floor_model() -> None:
    """Floors counted by hand from the module's model (ROLLED: 10 cycles a block; GHASH 8 bits a
    cycle: 16 a block)."""
    # The frame: 9 CBC-MAC blocks (B0, 2 of header with its length, 6 of payload) and 7 CTR
    # blocks (6 of payload, S0). tight: 6 per block in, 8 out, CTRL per job, 8 state words in
    # (1.5 each), 4 out (2 each).
    assert _floor("tight", "frame/enc") == 9 * (6 + 10) + 1 + 7 * (14 + 10) + 1 + 12 + 8
    # mmio: 12 per block in, 12 out, a CTRL store, state words 3 each.
    assert _floor("mmio", "frame/enc") == 9 * (12 + 10) + 2 + 7 * (24 + 10) + 2 + 12 * 3
    # mem streams both jobs: LEN + fence + MEM, 4 words in before, 4 out after (CTR only).
    assert _floor("mem", "frame/dec") == (1 + 3 + 4 + 9 * 10) + (1 + 3 + 8 + 10 + 6 * 10) + 12 + 8
    # GCM over 4 KiB on dma: H and AES(J0) by a descriptor; the associated data and the lengths
    # through registers; the message streamed at one block per 16 cycles (GHASH) after the
    # first block's 10, the last block's GHASH beyond its words out; state 16 words at 3.
    ecb = 2 + 16 + 8 + 10 + 10
    ghash = 2 + 12 + 16
    gcm = 2 + 16 + 8 + 10 + 255 * 16 + 12
    assert _floor("dma", aead.GCM4K) == ecb + 2 * ghash + gcm + 16 * 3
    # The GHASH multiplier bounds that rate: 8 bits a cycle cannot reach 1 byte a cycle.
    rate8 = aead.gcm4k_floor_rate("rolled", 8)
    assert rate8 is not None and rate8 < 1.0
    assert aead.ghash_bits_needed("rolled", 1.0) == 16
    # The unrolled engine shortens the CTR stream, not the serial CBC-MAC.
    assert _floor("mem", "frame/enc", "unrolled") == _floor("mem", "frame/enc") - 6 * 10 + 6 * 4
    # No floor without a coupling, for mmio_irq, or for GCM without the multiplier.
    assert aead.floor("soft", "frame/enc", "rolled", 8) is None
    assert aead.floor("zkn", "cmac/16", "rolled", 8) is None
    assert aead.floor("mmio_irq", "frame/enc", "rolled", 8) is None
    assert aead.floor("tight", "gcm/enc/16", "rolled", 0) is None
    assert aead.floor("tight", "cmac/16", "rolled", 0) is not None


def _stats(frame: dict[str, float], gcm4k: dict[str, float]) -> Stats:
    return {b: {"frame/enc": Stat(frame[b], 0.0, 1, "0x0"), "frame/dec": Stat(frame[b], 0.0, 1, "0x0"),
                aead.GCM4K: Stat(gcm4k[b], 0.0, 1, "0x0")} for b in frame}


def test_bench_aead_goal_verdicts() -> None:
    rows = aead.goals(_stats({"soft": 60_000, "tight": 2_000, "mem": 1_400, "dma": 3_000},
                             {"soft": 1e6, "tight": 9_000, "mem": 5_000, "dma": 4_000}), "rolled", 16)
    goals = [dict(zip(bench_report.GOAL_HEADERS, r)) for r in rows]
    assert [g["backend"] for g in goals] == ["mem", "mem", "dma"]
    assert goals[0]["measured"] == "42.9 x" and goals[0]["verdict"] == "met"
    assert goals[2]["measured"] == "1.024 B/cycle" and goals[2]["verdict"] == "met"
    # Not met: the verdict shows the floor, and what GHASH would reach the goal.
    rows = aead.goals(_stats({"soft": 60_000, "mem": 2_000, "dma": 3_000}, {"soft": 1e6, "mem": 5_000, "dma": 8_000}),
                      "rolled", 8)
    assert rows[0][4] == "NOT met"
    assert rows[2][4] == "NOT met (floor 0.957 B/cycle; reachable from ghash_bits = 16)"
    # The GCM goal is one of the ROLLED engine; without dma it is not in the configuration.
    rows = aead.goals(_stats({"soft": 1.0, "dma": 1.0}, {"soft": 1.0, "dma": 1.0}), "unrolled", 8)
    assert rows[2][4] == "not judged: the engine is UNROLLED"
    rows = aead.goals(_stats({"soft": 1.0, "tight": 1.0}, {"soft": 1.0, "tight": 1.0}), "rolled", 8)
    assert rows[2][4] == aead.NOT_IN_CONFIG


def test_bench_aead_in_the_cli() -> None:
    proc = run_couplet("bench", "--help")
    assert proc.returncode == 0 and "aead" in proc.stdout
