"""`couplet bench rtos`: the FreeRTOS API latency and Thread-Metric-equivalent bench, run once for
real (every kernel variant the default configuration has) and its report checked for structure and
sense; the firmware-output parser checked on tampered lines; ChamelIoT's Table II and the absolute
comparison with it checked on the paper's numbers and a synthetic result set."""

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
from couplet.reports import bench_report, chameliot
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
    assert len(goals) == len(hws) * (len(rtos.TM_GOALS) + len(rtos.GROUPS)) + sum(
        len(rtos.ISSUE20_GOALS.get(v, ())) for v in hws)
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
        for suffix, targets in (("", rtos.TM_GOALS), (" (issue 20)", rtos.ISSUE20_GOALS.get(variant, ()))):
            for test, limit in targets:
                name = f"Thread-Metric {test} hw vs sw{suffix}"
                goal = next(g for g in goals if g["backend"] == variant and g["goal"] == name)
                gain = (report["thread_metric"][variant][test]["count"] / sw[test]["count"] - 1) * 100
                assert goal["measured"] == f"{gain:+.1f}%"
                assert goal["verdict"] == ("met" if gain >= limit else "NOT met"), goal
        for group, measures in rtos.GROUPS.items():
            goal = next(g for g in goals if g["backend"] == variant and g["goal"].startswith(f"zero jitter, {group} "))
            jitter = any(report["api"][variant]["measures"][m]["quiet_stdev"] > 0 for m in measures)
            assert goal["verdict"] == ("NOT met" if jitter else "met"), goal


def test_bench_rtos_absolute_table_in_the_report(config: SocConfig, report: dict[str, Any]) -> None:
    """The absolute comparison of the real run: our cycles per iteration from the raw counts and
    mcycle windows, ChamelIoT's from Table II, the ratio of each variant to its counterpart."""
    absolute = report["thread_metric_absolute"]
    assert list(absolute["tests"]) == list(rtos.TM_TESTS)
    for test, row in absolute["tests"].items():
        for variant in report["variants"]:
            res, ours = report["thread_metric"][variant][test], row["variants"][variant]
            assert ours["cycles_per_iteration"] == pytest.approx(res["cycles"] / res["count"])
            configuration = "SW" if variant == "sw" else "HW"
            assert ours["chameliot"] == configuration
            theirs = row[f"chameliot_{configuration.lower()}"]
            if test in ("cooperative", "preemptive", "message", "synchronization"):
                assert ours["ratio"] == pytest.approx(ours["cycles_per_iteration"] / theirs)
            else:
                assert ours["ratio"] is None, (variant, test)
    markdown = _stem(config).with_suffix(".md").read_text()
    assert "## Thread-Metric, absolute: cycles per iteration" in markdown
    assert "## ChamelIoT Table II as cycles per iteration" in markdown


# ---------------------------------------------------------------------------- ChamelIoT Table II

# The paper's "(%)" row of Table II as printed: HW vs SW per OS, in the order of chameliot.TESTS. The
# counts in couplet/reports/chameliot.py must reproduce it, which catches a mistyped count.
TABLE_II_PRINTED_PCT = {
    "RIOT": (0.0, 45.98, 45.64, 50.04, 111.42),
    "Zephyr": (0.001, 9.44, 1.62, 152.83, 100.28),
    "FreeRTOS": (6.66, 200.52, 176.95, 54.16, 21.11),
}


def test_bench_rtos_chameliot_table_ii_matches_its_printed_gains() -> None:
    assert list(chameliot.TABLE_II) == list(TABLE_II_PRINTED_PCT)
    for rtos_name, printed in TABLE_II_PRINTED_PCT.items():
        for test, pct in zip(chameliot.TESTS, printed):
            # The paper rounds to two decimals (Zephyr's basic, 0.0016 %, it prints as 0.001).
            assert chameliot.count_gain(rtos_name, test) == pytest.approx(pct, abs=0.006), (rtos_name, test)


def test_bench_rtos_chameliot_cycles_per_iteration() -> None:
    # 30 s at 65 MHz over each count of Table II, computed here independently of the module.
    assert chameliot.WINDOW_CYCLES == 1_950_000_000
    for rtos_name, rows in chameliot.TABLE_II.items():
        for configuration, counts in rows.items():
            for test, n in zip(chameliot.TESTS, counts):
                assert chameliot.cycles_per_iteration(rtos_name, configuration, test) == pytest.approx(65e6 * 30 / n)
    # Issue 20's figures for ChamelIoT's FreeRTOS HW kernel, and the SW kernel's.
    derived = {c: [round(chameliot.cycles_per_iteration("FreeRTOS", c, t) or 0)
                   for t in ("cooperative", "preemptive", "message", "synchronization")] for c in ("SW", "HW")}
    assert derived == {"SW": [1209, 2589, 825, 531], "HW": [402, 935, 535, 438]}
    # Tests Table II does not have.
    assert chameliot.cycles_per_iteration("FreeRTOS", "HW", "memory") is None
    assert chameliot.count_gain("FreeRTOS", "interrupt") is None


def _tm_console(counts: dict[str, int], cycles: int = 250_000) -> str:
    lines = "".join(f"tm {t} count={counts[t]} ticks=5 cycles={cycles} tasks={counts[t]}\n" for t in rtos.TM_TESTS)
    return lines + "thread_metric done\n"


def test_bench_rtos_absolute_report_from_synthetic_results(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The report of made-up results (no simulation): the absolute table, its JSON, and the
    relative table kept."""
    monkeypatch.setattr(paths, "BUILD_DIR", tmp_path)
    base = dict.fromkeys(rtos.TM_TESTS, 1_000)
    sw = {**base, "cooperative": 1_000, "message": 625, "synchronization": 2_500}
    hw = {**base, "cooperative": 1_250, "message": 1_250, "synchronization": 5_000}
    results = {v: rtos.VariantResult(rtos.parse_api(_api_console()), rtos.parse_tm(_tm_console(counts)))
               for v, counts in (("sw", sw), ("hw-tight", hw))}
    config = load_config("default")
    json_path = rtos.publish(config, results, {"hw-mmio": "not asked for"})
    data = json.loads(json_path.read_text())
    absolute = data["thread_metric_absolute"]
    coop = absolute["tests"]["cooperative"]
    # 250,000 cycles / 1,000 iterations = 250 (sw); / 1,250 = 200 (hw-tight). ChamelIoT's FreeRTOS:
    # 1.95e9 / 1,612,707 (SW) and / 4,846,436 (HW).
    assert coop["variants"]["sw"] == {"cycles_per_iteration": 250.0, "chameliot": "SW",
                                      "ratio": pytest.approx(250 / (1.95e9 / 1_612_707))}
    assert coop["variants"]["hw-tight"]["ratio"] == pytest.approx(200 / (1.95e9 / 4_846_436))
    assert coop["chameliot_hw"] == pytest.approx(402.36, abs=0.01)
    assert absolute["tests"]["basic"]["variants"]["sw"]["ratio"] is None  # not the same work
    assert absolute["tests"]["memory"]["chameliot_sw"] is None  # not in Table II
    assert data["chameliot_table_ii"]["counts"]["FreeRTOS"]["HW"]["message"] == 3_641_817
    assert data["chameliot_table_ii"]["clock_hz"] == 65_000_000 and data["chameliot_table_ii"]["period_s"] == 30
    # The relative comparison stays.
    assert data["hw_vs_sw"]["hw-tight"]["thread_metric_pct"]["synchronization"] == pytest.approx(100.0)

    markdown = json_path.with_suffix(".md").read_text()
    section = markdown.split("## Thread-Metric, absolute: cycles per iteration", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert table[0] == ("| test | ChamelIoT SW | ChamelIoT HW | sw | sw / ChamelIoT SW | hw-tight | "
                        "hw-tight / ChamelIoT HW |")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in table[2:]}
    assert list(rows) == list(rtos.TM_TESTS)
    assert rows["cooperative"] == "| cooperative | 1,209.1 | 402.4 | 250.0 | 0.21x | 200.0 | 0.50x |"
    assert rows["synchronization"] == "| synchronization | 530.6 | 438.1 | 100.0 | 0.19x | 50.0 | 0.11x |"
    assert rows["basic"] == "| basic | 32,927.0 | 30,871.5 | 250.0 | - | 250.0 | - |"
    assert rows["memory"] == "| memory | - | - | 250.0 | - | 250.0 | - |"
    assert "## ChamelIoT Table II as cycles per iteration" in markdown
    assert "| message | 274.5 | 182.9 | 689.4 | 272.7 | 825.4 | 535.4 |" in markdown
    assert "hw-tight vs sw" in markdown  # the relative table


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
