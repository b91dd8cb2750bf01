"""`couplet bench rtos`: the FreeRTOS API latency and Thread-Metric-equivalent bench, run once for
real (every kernel variant the default configuration has) and its report checked for structure and
sense; the firmware-output parser checked on tampered lines."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from conftest import run_couplet

from couplet import paths
from couplet.errors import CoupletError
from couplet.flows.bench import rtos
from couplet.model.config import SocConfig, load_config
from couplet.reports import bench_report
from couplet.tools import freertos

# FreeRTOSConfig.h: configTICK_RATE_HZ.
TICK_RATE_HZ = 1000


def _stem(config: SocConfig) -> Path:
    return paths.BUILD_DIR / "reports" / f"bench-rtos-{config.name}"


@pytest.fixture(scope="module")
def report(config: SocConfig, sim_binary: Path) -> dict[str, Any]:
    """`couplet bench rtos -j 2` on the default SoC, end to end (about 40 s of simulation per kernel
    variant, two variants at a time): its JSON report."""
    proc = run_couplet("bench", "rtos", "-j", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "API latency in cycles" in proc.stdout and "Thread-Metric" in proc.stdout and "Goals" in proc.stdout
    assert "simulating thread_metric" in proc.stderr  # progress lines
    stem = _stem(config)
    assert stem.with_suffix(".md").read_text().startswith("# FreeRTOS benchmark")
    for suffix in ("", "-queue", "-tm"):
        png = stem.with_name(f"{stem.name}{suffix}.png")
        assert png.stat().st_size > 1000, png
    data: dict[str, Any] = json.loads(stem.with_suffix(".json").read_text())
    return data


def test_bench_rtos_runs_every_supported_variant(config: SocConfig, report: dict[str, Any]) -> None:
    expected, skipped = rtos.select_variants(config, None)
    assert report["variants"] == expected and "sw" in expected
    assert sorted([*report["variants"], *report["skipped"]]) == sorted(freertos.VARIANTS)
    assert report["skipped"] == skipped
    for variant in expected:
        assert sorted(report["api"][variant]["measures"]) == sorted(rtos.API_MEASURES)
        assert list(report["thread_metric"][variant]) == list(rtos.TM_TESTS)


def test_bench_rtos_latency_statistics_match_the_raw_samples(report: dict[str, Any]) -> None:
    n = report["samples"]
    assert n == 20
    for variant in report["variants"]:
        api = report["api"][variant]
        assert 0 < api["overhead_instret"] <= api["overhead_cycles"]
        for measure, m in api["measures"].items():
            cycles, instret, ticks = m["cycles"], m["instret"], m["ticks"]
            assert len(cycles) == len(instret) == len(ticks) == n, (variant, measure)
            # Recomputed here from the raw samples, not with the bench's own code.
            mean = sum(cycles) / n
            sd = math.sqrt(sum((c - mean) ** 2 for c in cycles) / n)
            assert m["mean"] == pytest.approx(mean) and m["stdev"] == pytest.approx(sd, abs=1e-9), (variant, measure)
            assert (m["min"], m["max"]) == (min(cycles), max(cycles))
            assert m["tick_hits"] == sum(ticks) and set(ticks) <= {0, 1}
            quiet = [c for c, t in zip(cycles, ticks) if not t] or cycles
            qmean = sum(quiet) / len(quiet)
            assert m["quiet_stdev"] == pytest.approx(math.sqrt(sum((c - qmean) ** 2 for c in quiet) / len(quiet)))
            # Every call costs something once the empty measurement is subtracted, and no core
            # retires more than one instruction per cycle.
            assert all(c >= i > 0 for c, i in zip(cycles, instret)), (variant, measure)
            # A tick landing in a sample only makes it longer: the quiet samples hold the minimum.
            assert min(quiet) == min(cycles)


def test_bench_rtos_latencies_make_sense(report: dict[str, Any]) -> None:
    for variant in report["variants"]:
        means = {name: m["quiet_mean"] for name, m in report["api"][variant]["measures"].items()}
        # Copying 16 words costs more than copying 1.
        assert means["queue/send-16w"] > means["queue/send-1w"], variant
        assert means["queue/receive-16w"] > means["queue/receive-1w"], variant
        # A call that switches to another task costs more than the same kind of call that does not.
        assert means["schedule/resume-switch"] > means["schedule/resume"], variant
        assert means["semaphore/give-wake"] > means["semaphore/give"], variant
        assert means["mutex/lock-pi"] > means["mutex/lock"], variant
        for words in rtos.QUEUE_WORDS:
            assert means[f"queue/send-wake-{words}w"] > means[f"queue/send-{words}w"], (variant, words)


def test_bench_rtos_thread_metric_counts(config: SocConfig, report: dict[str, Any]) -> None:
    period = report["period_ticks"]
    for variant in report["variants"]:
        tm = report["thread_metric"][variant]
        for test, res in tm.items():
            assert res["count"] > 0 and sum(res["tasks"]) == res["count"], (variant, test)
            assert res["ticks"] == period
            # The period is `period` ticks of the kernel: mcycle agrees within 2 %.
            assert res["cycles"] == pytest.approx(period * config.clock_hz / TICK_RATE_HZ, rel=0.02), (variant, test)
        assert tm["cooperative"]["count"] > 0 and len(tm["cooperative"]["tasks"]) == 5
        # Round robin: a task can fall behind by one turn per tick (a time slice) and the period
        # can end inside a round.
        coop = tm["cooperative"]["tasks"]
        assert max(coop) - min(coop) <= period + 1, coop
        # Each preemptive round counts once in every task.
        pre = tm["preemptive"]["tasks"]
        assert len(pre) == 5 and max(pre) - min(pre) <= 1, pre
        low, high = tm["interrupt-preemption"]["tasks"]
        assert abs(low - high) <= 1
        # No kernel call in the basic test: the kernel variant cannot change it by more than the
        # tick handler's share.
        assert tm["basic"]["count"] == pytest.approx(report["thread_metric"]["sw"]["basic"]["count"], rel=0.05)


def test_bench_rtos_hw_vs_sw_and_goals(report: dict[str, Any]) -> None:
    hws = [v for v in report["variants"] if v != "sw"]
    sw = report["thread_metric"]["sw"]
    goals = report["goals"]
    assert all(list(g) == bench_report.GOAL_HEADERS for g in goals)
    if not hws:
        assert all(g["backend"] == "-" for g in goals)
        return
    assert len(goals) == len(hws) * (len(rtos.TM_GOALS) + len(rtos.GROUPS))
    for variant in hws:
        for measure, m in report["api"][variant]["measures"].items():
            # Latency gain as ChamelIoT gives it, from the samples no tick landed in.
            sw_quiet = [c for c, t in zip(report["api"]["sw"]["measures"][measure]["cycles"],
                                          report["api"]["sw"]["measures"][measure]["ticks"]) if not t]
            hw_quiet = [c for c, t in zip(m["cycles"], m["ticks"]) if not t]
            gain = (sum(sw_quiet) / len(sw_quiet)) / (sum(hw_quiet) / len(hw_quiet)) * 100 - 100
            assert report["hw_vs_sw"][variant]["api_pct"][measure] == pytest.approx(gain), (variant, measure)
        for test in rtos.TM_TESTS:
            gain = (report["thread_metric"][variant][test]["count"] / sw[test]["count"] - 1) * 100
            assert report["hw_vs_sw"][variant]["thread_metric_pct"][test] == pytest.approx(gain)
        for test, limit in rtos.TM_GOALS:
            goal = next(g for g in goals if g["backend"] == variant and g["goal"] == f"Thread-Metric {test} hw vs sw")
            gain = (report["thread_metric"][variant][test]["count"] / sw[test]["count"] - 1) * 100
            assert goal["measured"] == f"{gain:+.1f}%"
            assert goal["verdict"] == ("met" if gain >= limit else "NOT met"), goal
        for group, measures in rtos.GROUPS.items():
            goal = next(g for g in goals if g["backend"] == variant and g["goal"].startswith(f"zero jitter, {group} "))
            jitter = any(report["api"][variant]["measures"][m]["quiet_stdev"] > 0 for m in measures)
            assert goal["verdict"] == ("NOT met" if jitter else "met"), goal


# ---------------------------------------------------------------------------- the parser

API_OK = """\
couplet: something else the firmware printed
bench_api samples=2 overhead_cycles=74 overhead_instret=30
{lines}bench_api done
"""


def _api_console(lines: dict[str, str] | None = None) -> str:
    body = {m: f"api {m} cycles=10,12 instret=5,5 ticks=01\n" for m in rtos.API_MEASURES}
    body.update(lines or {})
    return API_OK.format(lines="".join(body.values()))


def test_bench_rtos_parser_reads_good_output() -> None:
    run = rtos.parse_api(_api_console())
    assert run.samples == 2 and run.overhead_cycles == 74 and list(run.measures) == list(rtos.API_MEASURES)
    lat = run.measures["schedule/yield"]
    assert lat.cycles == (10, 12) and lat.ticks == (False, True) and lat.all == rtos.Spread(11, 1)
    assert lat.quiet_samples == (10,) and lat.quiet.stdev == 0 and lat.tick_hits == 1


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("api schedule/yield cycles=10,x instret=5,5 ticks=01", "line 3: malformed api line"),
        ("api schedule/yield cycles=10,12 instret=5,5", "line 3: malformed api line"),
        ("api schedule/yield cycles=10 instret=5 ticks=0", "line 3: expected 2 samples, got 1 cycles"),
        ("api schedule/yield cycles=10,12 instret=5,5,5 ticks=01", "line 3: expected 2 samples"),
    ],
)
def test_bench_rtos_parser_rejects_malformed_lines(line: str, error: str) -> None:
    with pytest.raises(rtos.ParseError, match=error):
        rtos.parse_api(_api_console({"schedule/yield": line + "\n"}))


def test_bench_rtos_parser_rejects_incomplete_output() -> None:
    console = _api_console()
    with pytest.raises(rtos.ParseError, match="did not finish"):
        rtos.parse_api(console.replace("bench_api done\n", ""))
    with pytest.raises(rtos.ParseError, match=r"missing \['queue/receive-wake-16w'\]"):
        rtos.parse_api(_api_console({"queue/receive-wake-16w": ""}))
    with pytest.raises(rtos.ParseError, match="reported twice"):
        rtos.parse_api(console.replace("bench_api done", "api mutex/lock cycles=1,1 instret=1,1 ticks=00\n"
                                                               "bench_api done"))
    with pytest.raises(rtos.ParseError, match="malformed bench_api header"):
        rtos.parse_api(console.replace("samples=2 ", "samples=two "))
    tm = "".join(f"tm {t} count=3 ticks=5 cycles=250000 tasks=1,2\n" for t in rtos.TM_TESTS)
    tm += "thread_metric done\n"
    assert rtos.parse_tm(tm)["memory"].tasks == (1, 2)
    with pytest.raises(rtos.ParseError, match="not the sum of the task counters"):
        rtos.parse_tm(tm.replace("tm basic count=3", "tm basic count=4"))
    with pytest.raises(rtos.ParseError, match="line 1: malformed tm line"):
        rtos.parse_tm(tm.replace("tm basic count=3", "tm basic count=-3"))
    with pytest.raises(rtos.ParseError, match="did not finish"):
        rtos.parse_tm(tm.replace("thread_metric done\n", ""))


def test_bench_rtos_variant_selection() -> None:
    config = load_config("default")
    with pytest.raises(CoupletError, match="unknown kernel variant"):
        rtos.select_variants(config, ["sw", "no-such-kernel"])
    assert rtos.select_variants(config, ["sw", "sw"]) == (["sw"], {})
    # A configuration without the RTOS accelerator runs sw and says why the hw variants are skipped.
    small = load_config("small")
    run, skipped = rtos.select_variants(small, None)
    assert "sw" in run
    if small.rtos is None:
        assert run == ["sw"] and sorted(skipped) == sorted(v for v in freertos.VARIANTS if v != "sw")
        assert all("small" in why for why in skipped.values())


def test_bench_rtos_cli_rejects_an_unknown_variant() -> None:
    proc = run_couplet("bench", "rtos", "--kernel", "sw,bogus")
    assert proc.returncode == 125 and "unknown kernel variant(s) bogus" in proc.stderr
