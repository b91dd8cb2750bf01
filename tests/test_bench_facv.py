"""`couplet bench facv`: the FAC-V packet echo under Thread-Metric load, run once for real on the
default SoC and its report checked (every scenario of both packet variants, CBC and the 802.15.4
CCM* frame, ran; counts and packets make sense; every forged frame was refused; Table 9 recomputed
here from Table 8; hardware beats software per packet); the output parser checked on tampered
lines; the `libraries` step of the FreeRTOS build checked on an unknown name. The CCM* variant
rides on the same single run (its scenarios follow the CBC ones), so it adds simulation time
only, no build or run of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_couplet

from couplet import paths
from couplet.errors import BuildError
from couplet.flows.bench import facv
from couplet.flows.bench.thread_metric import TM_TESTS, ParseError
from couplet.model.config import SocConfig
from couplet.tools import freertos

TICK_RATE_HZ = 1000  # FreeRTOSConfig.h


@pytest.fixture(scope="module")
def report(config: SocConfig, sim_binary: Path) -> dict[str, Any]:
    """`couplet bench facv` on the default SoC, end to end (about 32 M cycles of simulation)."""
    proc = run_couplet("bench", "facv")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Table 8 shape" in proc.stdout and "Table 9 shape" in proc.stdout and "Goals" in proc.stdout
    assert "CBC beside CCM* per backend" in proc.stdout
    stem = paths.BUILD_DIR / "reports" / f"bench-facv-{config.name}"
    assert stem.with_suffix(".md").read_text().startswith("# FAC-V packet echo")
    assert stem.with_suffix(".png").stat().st_size > 1000
    assert "facv_echo done" in stem.with_suffix(".log").read_text()
    data: dict[str, Any] = json.loads(stem.with_suffix(".json").read_text())
    return data


def test_bench_facv_runs_every_scenario(report: dict[str, Any]) -> None:
    # The default SoC has every AES backend; soft comes first.
    assert report["backends"] == ["soft", "tight", "mem", "mmio", "mmio_irq", "dma", "zkn"]
    ccm = ["ccm_echo", *(f"ccm_{b}" for b in report["backends"])]
    assert report["ccm_scenarios"] == ccm
    assert report["scenarios"] == ["baseline", "echo", *report["backends"], *ccm]
    assert report["packet_bytes"] == 80 and report["key_bits"] == 256
    # The CCM* frame: 802.15.4 level 5 (4-byte MIC), AES-128, the same 80-byte message as payload,
    # header + payload + MIC + FCS within the 127 bytes of an 802.15.4 frame.
    assert report["ccm_level"] == 5 and report["ccm_key_bits"] == 128 and report["ccm_mic_bytes"] == 4
    assert report["ccm_payload_bytes"] == report["packet_bytes"]
    assert report["ccm_frame_bytes"] == report["ccm_header_bytes"] + 80 + 4 + 2 <= 127
    assert report["period_ticks"] % report["packet_ticks"] == 0
    assert report["ccm_period_ticks"] % report["ccm_packet_ticks"] == 0
    for scenario in report["scenarios"]:
        period = report["ccm_period_ticks" if scenario in ccm else "period_ticks"]
        tm = report["thread_metric"][scenario]
        assert list(tm) == list(TM_TESTS), scenario
        for test, res in tm.items():
            assert res["count"] > 0 and sum(res["tasks"]) == res["count"], (scenario, test)
            assert res["ticks"] == period
            assert res["cycles"] == pytest.approx(period * report["clock_hz"] / TICK_RATE_HZ, rel=0.03), (scenario, test)
            assert report["table8"][scenario][test] == res["count"]


def test_bench_facv_packets(report: dict[str, Any]) -> None:
    assert report["packets"]["baseline"]["packets"] == 0
    for scenario in report["scenarios"][1:]:
        p = report["packets"][scenario]
        assert p["packets"] > 0 and p["replies"] == p["packets"], scenario
        assert p["lost"] == 0 and p["errors"] == 0 and p["check_failures"] == 0, scenario
        # Every CHECK_EVERY-th reply was kept and checked.
        assert p["checked"] == -(-p["replies"] // report["check_every"]), scenario
        assert 0 < p["server_max"] and p["server_mean"] == pytest.approx(p["server_cycles"] / p["replies"])
        assert p["server_mean"] <= p["server_max"]
        # Every CCM* scenario with a backend was preceded by forged frames, all refused (a bad MIC
        # is an error); no other scenario is offered any.
        forged = 3 if scenario.startswith("ccm_") and scenario != "ccm_echo" else 0
        assert p["forged"] == forged and p["refused"] == forged and p["ok"], scenario
    for prefix in ("", "ccm_"):
        echo = report["packets"][prefix + "echo"]["server_mean"]
        soft = report["packets"][prefix + "soft"]["server_mean"]
        # Ten AES-256 blocks (CBC), or 28 AES-128 blocks (CCM*: CBC-MAC of 8 and CTR of 6, both
        # ways), in software cost far more than the echo's copying and checking.
        assert soft > 10 * echo, prefix
        for backend in report["backends"][1:]:
            mean = report["packets"][prefix + backend]["server_mean"]
            assert echo < mean < soft, prefix + backend
    # CCM* runs more blocks than CBC here (28 AES-128 against 10 AES-256).
    assert report["packets"]["ccm_soft"]["server_mean"] > report["packets"]["soft"]["server_mean"]
    assert list(report["cbc_vs_ccm"]) == ["echo", *report["backends"]]
    for backend, row in report["cbc_vs_ccm"].items():
        assert row["cbc_server_mean"] == report["packets"][backend]["server_mean"]
        assert row["ccm_server_mean"] == report["packets"][f"ccm_{backend}"]["server_mean"]
    goals = {(g["goal"], g["backend"]) for g in report["goals"]}
    assert {("every forged frame refused (bad MIC)", s) for s in report["ccm_scenarios"][1:]} <= goals
    assert ("server cycles/packet below soft's", "ccm_tight") in goals
    assert all(g["verdict"] == "met" for g in report["goals"]), report["goals"]


def test_bench_facv_table9_from_table8(report: dict[str, Any]) -> None:
    table8 = report["table8"]
    for scenario in report["scenarios"]:
        # Each variant's rows are relative to its own echo (same period and packet rate).
        echo = "ccm_echo" if scenario.startswith("ccm_") else "echo"
        assert report["decrease_reference"][scenario] == echo
        for test in TM_TESTS:
            expected = (table8[echo][test] - table8[scenario][test]) / table8[echo][test] * 100
            assert report["table9_decrease_vs_echo_pct"][scenario][test] == pytest.approx(expected)
    # Software AES takes the processor from the tests for longer than any coupling does (summed
    # over the tests: one test's count can move by an iteration or two either way).
    for prefix in ("", "ccm_"):
        soft = sum(report["table9_decrease_vs_echo_pct"][prefix + "soft"].values())
        for backend in report["backends"][1:]:
            assert sum(report["table9_decrease_vs_echo_pct"][prefix + backend].values()) < soft, prefix + backend
    for backend, row in report["cbc_vs_ccm"].items():
        for key, scenario in (("cbc_mean_decrease_pct", backend), ("ccm_mean_decrease_pct", f"ccm_{backend}")):
            values = report["table9_decrease_vs_echo_pct"][scenario].values()
            assert row[key] == pytest.approx(sum(values) / len(values))
    # FAC-V's anchors are carried as printed.
    assert report["facv_table8"]["(iii) Echo + SW"]["basic"] == 24_678
    assert report["facv_table9_pct"]["(iii) Echo + SW"]["interrupt"] == 53.6


# ---------------------------------------------------------------------------- the parser

HEADER = ("facv_echo period_ticks=2 packet_ticks=2 packet_bytes=80 key_bits=256 ccm_period_ticks=4 "
          "ccm_packet_ticks=4 ccm_level=5 ccm_key_bits=128 ccm_header_bytes=27 ccm_payload_bytes=80 ccm_mic_bytes=4 "
          "ccm_frame_bytes=113 check_every=2 backends=soft,tight\n")
SCENARIOS = ("baseline", "echo", "soft", "tight", "ccm_echo", "ccm_soft", "ccm_tight")


def _console(drop: str | None = None, replace: tuple[str, str] | None = None) -> str:
    lines = [HEADER.rstrip()]
    for scenario in SCENARIOS:
        ticks = 4 if scenario.startswith("ccm_") else 2
        for test in TM_TESTS:
            lines.append(f"tm {test} count=5 ticks={ticks} cycles={ticks * 50_000} tasks=2,3 scenario={scenario}")
        n = 0 if scenario == "baseline" else 4
        forged = 3 if scenario in ("ccm_soft", "ccm_tight") else 0
        lines.append(f"facv scenario={scenario} packets={n} replies={n} misses=0 lost=0 errors=0 checked={n // 2} "
                     f"check_failures=0 forged={forged} refused={forged} server_cycles={n * 100} server_max=120")
    lines.append("facv_echo done")
    text = "couplet: boot\n" + "\n".join(lines) + "\n"
    if drop is not None:
        text = "".join(line + "\n" for line in text.splitlines() if line != drop)
    if replace is not None:
        text = text.replace(*replace, 1)
    return text


def test_bench_facv_parser_accepts_and_computes() -> None:
    run = facv.parse(_console())
    assert run.setup.scenarios == SCENARIOS
    assert run.setup.ccm_level == 5 and run.setup.ccm_frame_bytes == 113 and run.setup.check_every == 2
    assert run.setup.period_of("tight") == 2 and run.setup.period_of("ccm_echo") == 4
    assert run.setup.echo_of("ccm_soft") == "ccm_echo" and run.setup.echo_of("baseline") == "echo"
    assert run.tm["tight"]["memory"].count == 5 and run.tm["tight"]["memory"].tasks == (2, 3)
    assert run.packets["soft"].server_mean == 100 and run.packets["soft"].ok
    assert run.packets["ccm_tight"].forged == 3 and run.packets["ccm_tight"].ok
    assert not facv.parse(_console(replace=("forged=3 refused=3", "forged=3 refused=2"))).packets["ccm_soft"].ok
    assert facv.decrease(200, 150) == 25.0


@pytest.mark.parametrize(
    ("drop", "replace", "message"),
    [
        ("facv_echo done", None, "did not finish"),
        (HEADER.rstrip(), None, "line before the facv_echo header"),
        ("tm memory count=5 ticks=2 cycles=100000 tasks=2,3 scenario=soft", None, "soft: Thread-Metric tests missing"),
        (None, ("scenario=tight\n", "\n"), "malformed tm line"),
        (None, ("count=5 ticks=2", "count=6 ticks=2"), "count is not the sum"),
        (None, ("replies=4 misses", "replies=x misses"), "malformed facv line"),
        (None, ("facv scenario=tight", "facv scenario=soft"), "reported twice"),
        (None, ("backends=soft,tight", "backends=soft,tight,mem"), "scenarios differ"),
        (None, ("key_bits=256", "key_bits=25x"), "malformed facv_echo header"),
        (None, ("ccm_level=5 ", ""), "malformed facv_echo header"),
        (None, ("ccm_level=5", "ccm_level=4"), "level 4 does not encrypt"),
        (None, ("ccm_mic_bytes=4", "ccm_mic_bytes=8"), "4-byte MIC, not 8"),
        (None, ("ccm_frame_bytes=113", "ccm_frame_bytes=111"), "frame is 111 bytes, its parts 113"),
        (None, ("ccm_header_bytes=27 ccm_payload_bytes=80 ccm_mic_bytes=4 ccm_frame_bytes=113",
                "ccm_header_bytes=27 ccm_payload_bytes=96 ccm_mic_bytes=4 ccm_frame_bytes=129"), "at most 127"),
        (None, ("backends=soft,tight", "backends=soft,soft"), "a backend listed twice"),
        (None, ("ccm_period_ticks=4", "ccm_period_ticks=6"), "period of 6 ticks is not a multiple"),
        (None, ("ticks=4 cycles=200000 tasks=2,3 scenario=ccm_soft", "ticks=2 cycles=200000 tasks=2,3 "
                "scenario=ccm_soft"), "scenario ccm_soft runs 4 ticks per test"),
        (None, ("scenario=ccm_echo packets=4 replies=4 misses=0 lost=0 errors=0 checked=2 check_failures=0 forged=0",
                "scenario=ccm_echo packets=4 replies=4 misses=0 lost=0 errors=0 checked=2 check_failures=0 forged=3"),
         "forged frames go to the ccm_"),
        (None, ("check_failures=0 forged=0 refused=0 server_cycles=400", "check_failures=0 forged=3 refused=3 "
                "server_cycles=400"), "forged frames go to the ccm_"),
        (None, ("forged=3 refused=3", "forged=0 refused=0"), "forged frames go to the ccm_"),
        (None, ("forged=3 refused=3", "forged=3 refused=4"), "forged=3 refused=4"),
        (None, ("forged=3 refused=3", "refused=3"), "malformed facv line"),
        ("facv scenario=ccm_tight packets=4 replies=4 misses=0 lost=0 errors=0 checked=2 check_failures=0 forged=3 "
         "refused=3 server_cycles=400 server_max=120", None, "packet scenarios differ"),
    ],
)
def test_bench_facv_parser_rejects(drop: str | None, replace: tuple[str, str] | None, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        facv.parse(_console(drop, replace))


def test_bench_facv_app_fits_beside_the_hw_kernel(config: SocConfig) -> None:
    # `couplet bench facv --kernel hw-mmio`: the app with the largest kernel glue links, i.e.
    # program and data fit the room the heap leaves (the linker script's ASSERT).
    elf = freertos.build_rtos_app(config, facv.APP, "hw-mmio")
    assert elf.read_bytes()[:4] == b"\x7fELF"


def test_rtos_unknown_library_is_a_clear_error(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "libraries").write_text("# a comment\nthread_metric\n\nno_such_lib\n")
    with pytest.raises(BuildError, match=r"libraries:4: no FreeRTOS library 'no_such_lib'.*thread_metric"):
        freertos.app_libraries(app)
    (app / "libraries").write_text("thread_metric  # the suite\n")
    assert freertos.app_libraries(app) == [freertos.LIB_DIR / "thread_metric"]
    sources = freertos.library_sources(freertos.app_libraries(app))
    assert {s.name for s in sources} == {"tm_suite.c", "tm_interrupt.c", "tm_interrupt.S"}
    (app / "libraries").unlink()
    assert freertos.app_libraries(app) == []
