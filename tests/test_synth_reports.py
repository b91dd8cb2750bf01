"""The reports of `couplet synth` and `couplet sweep` without a real synthesis.

The Yosys runs are replaced by results with known counts (the shape Yosys gives: the top, its
children, the engine modules kept below the tiles), so the tables, the goals, the anchors and the
chart are checked on figures the test chose.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, cast

import pytest

from couplet import paths
from couplet.errors import CoupletError
from couplet.flows import sweep, synth
from couplet.model.config import SocConfig
from couplet.reports import anchors
from couplet.tools.soc_synthesis import ENGINES, Variant, engine_count, engine_label
from couplet.tools.yosys import Design, SynthResult, TARGETS
from couplet.tools.yosys_stats import Hierarchy, Resources

CORE = Resources(luts=5000, ffs=2000)
GLUE = Resources(luts=300, ffs=100)
# What each accelerator adds in the fake SoCs: its engine and the rest of its tile.
ENGINE = {"aes": Resources(luts=4000, ffs=1500), "keccak": Resources(luts=3000, ffs=1700),
          "rtos": Resources(luts=1000, ffs=300)}  # per unit: RTOS has five
FRONT = {"aes": Resources(luts=1200, ffs=400), "keccak": Resources(luts=900, ffs=200),
         "rtos": Resources(luts=700, ffs=250)}


def fake_soc(name: str, accelerators: list[str], *, with_core: bool = False) -> SynthResult:
    """couplet_soc with a core (mapped or boxed) and one tile per accelerator, each tile holding
    its engine module(s) kept below it, named as read_slang names them."""
    top = "couplet_soc"
    core = "cv32e40x_core$couplet_soc.u_core"
    own = {top: GLUE, core: CORE if with_core else Resources()}
    children: dict[str, dict[str, int]] = {top: {core: 1}, core: {}}
    paths_of = {core: "u_core"}
    for i, acc in enumerate(accelerators):
        tile = f"couplet_accel_tile$couplet_soc.g_tile[{i}].u_tile"
        own[tile] = FRONT[acc]
        children[top][tile] = 1
        children[tile] = {}
        paths_of[tile] = f"g_tile[{i}].u_tile"
        for unit in ENGINES[acc][:5 if acc == "rtos" else 1]:
            engine = f"{unit}$couplet_soc.g_tile[{i}].u_tile.u_engine"
            own[engine] = ENGINE[acc]
            children[tile][engine] = 1
            children[engine] = {}
    design = Design(name, top, ())
    return SynthResult(design, TARGETS["xc7"], Hierarchy(top, own, children), 0.0, children=paths_of)


def engine_of(acc: str) -> Resources:
    return ENGINE[acc].scaled(5 if acc == "rtos" else 1)


def fake_run_parallel(jobs: int, work: list[tuple[str, Callable[[], Any]]]) -> list[Any]:
    """Stands in for the Yosys jobs: the result each job name asks for."""
    results = []
    for name, _ in work:
        label = name.split(" ", 1)[1]
        if label == "core-only SoC (with the core)":
            results.append(fake_soc("core_soc", [], with_core=True))
            continue
        accs = [acc for acc in ENGINES if label.startswith(acc + " ")]
        if label.endswith("(everything)"):
            accs = list(ENGINES)
        results.append(fake_soc(label.replace(" ", "_"), accs))
    return results


@pytest.fixture()
def reports(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A build folder of the test's own, so that no earlier bench report is read."""
    monkeypatch.setattr(paths, "BUILD_DIR", tmp_path)
    return tmp_path / "reports"


# A same-tool anchor only this test has: the report must show it, and not the real ones.
PROBE = anchors.Anchor("probe", "a probe design", "1,234", "567", "", anchors.SAME_TOOL_SOURCE)


@pytest.fixture(scope="module")
def synth_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """`couplet synth` of the default configuration on the fake results: its JSON and Markdown
    (one run for the tests that read it: the variants' packages take seconds to generate)."""
    build = tmp_path_factory.mktemp("synth")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(paths, "BUILD_DIR", build)
        patch.setattr(synth, "run_parallel", fake_run_parallel)
        patch.setattr(anchors, "SAME_TOOL", (PROBE,))
        assert synth.run("default", "xc7", 1, fmax=False) == 0
    reports = build / "reports"
    assert (reports / "synth-default-xc7.png").is_file()
    return json.loads((reports / "synth-default-xc7.json").read_text()), (reports / "synth-default-xc7.md").read_text()


def test_hierarchy_found_sums_the_engine_modules_below_the_tiles() -> None:
    soc = fake_soc("soc", ["aes", "rtos"])
    modules, total = soc.hierarchy.found(ENGINES["rtos"])
    assert len(modules) == 5 and total == engine_of("rtos")
    modules, total = engine_count(soc, None)
    assert total == engine_of("aes") + engine_of("rtos") and len(modules) == 6
    assert engine_label(modules) == \
        "couplet_aes_core, couplet_rtos_{threads,sched,mutex,sem,queue}"
    with pytest.raises(CoupletError, match="no keccak engine module .*update ENGINES"):
        engine_count(soc, "keccak")


def test_synth_report_splits_each_increase_into_engine_and_front_end(
        synth_report: tuple[dict[str, Any], str]) -> None:
    data, markdown = synth_report
    for label, v in data["variants"].items():
        if label == "core only":
            assert v["increase"]["luts"] == 0 and v["engine"]["modules"] == []
            continue
        accs = [v["accelerator"]] if v["accelerator"] else list(ENGINES)
        assert v["engine"]["luts"] == sum(engine_of(a).luts for a in accs)
        assert v["front_end"]["luts"] == sum(FRONT[a].luts for a in accs)
        for kind in ("luts", "ffs"):
            assert v["engine"][kind] + v["front_end"][kind] == v["increase"][kind], (label, kind)
    rtos = data["variants"]["rtos tight"]["engine"]["modules"]
    assert sorted(m.split("$")[0] for m in rtos) == sorted(ENGINES["rtos"])
    # The table a person reads: the engine named, and its columns adding up to the increase.
    table = markdown.split("## Engine and front end", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in table.splitlines() if line.startswith("| aes mmio |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "couplet_aes_core"
    engine, front, increase = (int(cells[i].replace(",", "")) for i in (2, 4, 6))
    assert engine + front == increase == ENGINE["aes"].luts + FRONT["aes"].luts


def test_synth_engine_table_says_the_aes_engine_holds_the_ghash_multiplier(config: SocConfig) -> None:
    # The default configuration has ghash_bits = 8: the AES engine grew by its multiplier.
    assert config.aes is not None and config.aes.ghash_bits == 8
    base = Resources(luts=10_000, ffs=5_000)
    variants = [Variant("core only", config), Variant("aes mem", config, "aes", "mem"),
                Variant("rtos tight", config, "rtos", "tight")]
    totals = {"core only": base, "aes mem": base + Resources(luts=6_000, ffs=2_000),
              "rtos tight": base + Resources(luts=1_000, ffs=500)}
    engines = {"aes mem": (["couplet_aes_core$a", "couplet_aes_ghash$b"], Resources(luts=4_800, ffs=1_500)),
               "rtos tight": (["couplet_rtos_threads$c"], Resources(luts=700, ffs=300))}
    _, headers, rows = synth.engine_section(TARGETS["xc7"], variants, totals, base, engines,
                                            {"aes mem": Resources(luts=800, ffs=300)})
    assert headers[-1] == "of the engine: GHASH multiplier LUTs / FFs"
    assert rows[0][1] == "couplet_aes_{core,ghash}" and rows[0][-1] == "800 / 300 (8 bits/cycle)"
    assert rows[1][-1] == "-"
    # Without a multiplier anywhere, the table is as before.
    _, headers, rows = synth.engine_section(TARGETS["xc7"], variants, totals, base, engines, {})
    assert len(headers) == 8 and all(len(r) == 8 for r in rows)


def test_synth_anchors_come_from_the_one_data_source(synth_report: tuple[dict[str, Any], str]) -> None:
    markdown = synth_report[1]
    assert "| a probe design | 1,234 | 567 | - |" in markdown
    assert "couplet_aes_core, ROLLED" not in markdown
    for seed in anchors.SEEDS:
        assert f"| {seed.design} | {seed.luts} | {seed.ffs} |" in markdown


def test_generated_anchor_page_is_up_to_date() -> None:
    for path, text in anchors.doc_outputs().items():
        assert path.read_text() == text, f"run `couplet gen` and commit {path.relative_to(paths.ROOT)}"
    page = anchors.DOC_PAGE.read_text()
    for anchor in (*anchors.SAME_TOOL, *anchors.SEEDS):
        assert anchor.design in page
    assert all(g.anchor in page for g in anchors.GOALS)


def goals_by_label(rows: list[list[str]]) -> dict[str, list[str]]:
    return {row[0]: row for row in rows}


def test_goal_rows_judge_the_points_they_are_stated_for(synth_report: tuple[dict[str, Any], str]) -> None:
    goals = goals_by_label([list(g.values()) for g in synth_report[0]["goals"]])
    aes = ENGINE["aes"].luts + FRONT["aes"].luts
    keccak = ENGINE["keccak"].luts + FRONT["keccak"].luts
    rtos = engine_of("rtos").luts + FRONT["rtos"].luts
    assert goals["AES ROLLED, enc+dec, all key sizes, mmio (+LUTs)"][2:5] == [f"{aes:,}", "<= 8000", "met"]
    assert goals["Keccak 1 round/cycle, mmio (+LUTs)"][2:5] == [f"{keccak:,}", "<= 5000", "met"]
    assert goals["Keccak 1 round/cycle, tight (+LUTs)"][2] == f"{keccak:,}"
    assert goals["RTOS 8 threads, tight (+LUTs)"][2:5] == [f"{rtos:,}", "<= 5500", "NOT met"]
    # The default configuration has no encrypt-only AES, and this run was not on ECP5 nor placed.
    for label in ("AES ROLLED, encrypt-only AES-128, mmio (+LUTs)", "default SoC, everything (LUT4s)",
                  "default SoC Fmax"):
        assert goals[label][2] == "-" and goals[label][4].startswith("not measured"), goals[label]


def test_goal_settings_a_configuration_does_not_have_yet_read_as_their_defaults(config: SocConfig) -> None:
    enc_only, both = (next(g for g in anchors.GOALS if g.label.startswith(p))
                      for p in ("AES ROLLED, encrypt-only", "AES ROLLED, enc+dec"))
    assert both.applies("aes", "mmio", config) and not enc_only.applies("aes", "mmio", config)
    assert not both.applies("aes", "tight", config)
    small = SimpleNamespace(name="aes128", aes=SimpleNamespace(arch="rolled", decrypt=False, key_sizes=[128]))
    assert enc_only.applies("aes", "mmio", cast(SocConfig, small))
    assert not both.applies("aes", "mmio", cast(SocConfig, small))
    unrolled = SimpleNamespace(name="u", aes=SimpleNamespace(arch="unrolled", decrypt=False, key_sizes=[128]))
    assert not enc_only.applies("aes", "mmio", cast(SocConfig, unrolled))
    # The whole-SoC goal: the default configuration's total, on ECP5 only.
    rows = goals_by_label(anchors.goal_rows("ecp5", [(None, None, config, 65_000)]))
    assert rows["default SoC, everything (LUT4s)"][2:5] == ["65,000", "<= 70000", "met"]
    assert rows["Keccak 1 round/cycle, mmio (+LUTs)"][4] == "not measured here"
    rows = goals_by_label(anchors.goal_rows("xc7", [(None, None, config, 65_000)]))
    assert rows["default SoC, everything (LUT4s)"][4] == "not measured here"


def test_sweep_chart_puts_bench_cycles_against_luts(reports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep, "run_parallel", fake_run_parallel)
    reports.mkdir(parents=True)
    # A bench of the default SoC (1 round per cycle) measured mmio only.
    bench = {"config": "default", "rounds_per_cycle": 1,
             "backends": {"mmio": {"sha3-256/4096": {"mean": 6543.0}}}}
    (reports / "bench-sha3-default.json").write_text(json.dumps(bench))
    assert sweep.run("default", "xc7", ("keccak",), 1, False, {"keccak": (1, 2)}) == 0
    stem = "sweep-default-xc7-keccak_1_2"
    chart = reports / f"{stem}-cycles.png"
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"]({chart.name})" in (reports / f"{stem}.md").read_text()
    points = {(p["coupling"], p["value"]): p for p in json.loads((reports / f"{stem}.json").read_text())
              ["cycles_vs_luts"]}
    assert set(points) == {(c, r) for c in ("tight", "mmio") for r in (1, 2)}
    # The fake SoCs of the sweep hold the keccak tile: its increase is engine + front end.
    assert all(p["luts"] == ENGINE["keccak"].luts + FRONT["keccak"].luts for p in points.values())
    assert all(p["engine"]["luts"] == ENGINE["keccak"].luts
               for p in json.loads((reports / f"{stem}.json").read_text())["points"])
    assert points[("mmio", 1)]["cycles"] == 6543.0
    assert points[("mmio", 1)]["source"] == "bench-sha3-default.json"
    assert points[("tight", 1)]["cycles"] is None
    assert points[("tight", 1)]["source"] == "bench-sha3-default.json has no tight figure"
    assert points[("mmio", 2)]["cycles"] is None
    assert "run `couplet bench sha3 -c <a configuration with rounds_per_cycle = 2>`" in points[("mmio", 2)]["source"]


def test_sweep_chart_without_any_bench_report_says_what_to_run(reports: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep, "run_parallel", fake_run_parallel)
    assert sweep.run("default", "xc7", ("rtos",), 1, False, {"rtos": (8,)}) == 0
    stem = "sweep-default-xc7-rtos_8"
    assert (reports / f"{stem}-cycles.png").is_file()
    markdown = (reports / f"{stem}.md").read_text()
    assert markdown.count("run `couplet bench rtos -c default`") == 2  # tight and mmio
    goals = goals_by_label([list(g.values()) for g in json.loads((reports / f"{stem}.json").read_text())["goals"]])
    assert goals["RTOS 8 threads, tight (+LUTs)"][2] == f"{engine_of('rtos').luts + FRONT['rtos'].luts:,}"
    assert goals["Keccak 1 round/cycle, mmio (+LUTs)"][4] == "not measured here"


# The fake GHASH option: its multiplier (per bit per cycle) and what couplet_aes adds around it.
GHASH_PER_BIT = Resources(luts=100, ffs=20)
GHASH_REST = Resources(luts=200, ffs=128)


def fake_ghash_run_parallel(jobs: int, work: list[tuple[str, Callable[[], Any]]]) -> list[Any]:
    """fake_run_parallel, with an AES tile holding a couplet_aes_ghash of ghash_bits = N for a
    job named `... ghash_bits=N` (N > 0), and the rest of the option in the tile."""
    results = fake_run_parallel(jobs, work)
    for (name, _), result in zip(work, results):
        bits = int(name.rsplit("ghash_bits=", 1)[1]) if "ghash_bits=" in name else 0
        if not bits:
            continue
        h = result.hierarchy
        tile = next(m for m in h.children[h.top] if m.startswith("couplet_accel_tile"))
        ghash = "couplet_aes_ghash$couplet_soc.g_tile[0].u_tile.u_engine.g_ghash.u_ghash"
        h.own[ghash] = GHASH_PER_BIT.scaled(bits)
        h.children[ghash] = {}
        h.children[tile][ghash] = 1
        h.own[tile] = h.own[tile] + GHASH_REST
    return results


def test_sweep_ghash_axis_reports_the_option_cost_over_no_multiplier(reports: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep, "run_parallel", fake_ghash_run_parallel)
    reports.mkdir(parents=True)
    # A `couplet bench aead` of the default SoC (ghash_bits = 8): GCM's cycles are the chart's.
    bench = {"config": "default", "ghash_bits": 8, "backends": {"mem": {"gcm4k/enc": {"mean": 23456.0}}}}
    (reports / "bench-aead-default.json").write_text(json.dumps(bench))
    assert sweep.run("default", "xc7", ("aes_ghash",), 1, False, {"aes_ghash": (0, 8, 16)}) == 0
    stem = "sweep-default-xc7-aes_ghash_0_8_16"
    data = json.loads((reports / f"{stem}.json").read_text())
    points = {p["value"]: p for p in data["points"]}
    assert set(points) == {0, 8, 16} and all(p["axis"] == "aes_ghash" and p["accelerator"] == "aes"
                                             and p["setting"] == "ghash_bits" for p in points.values())
    # The multiplier is part of the AES engine, and counted on its own.
    assert "ghash" not in points[0] and points[8]["ghash"]["luts"] == 800
    assert points[8]["engine"]["luts"] == ENGINE["aes"].luts + 800
    markdown = (reports / f"{stem}.md").read_text()
    table = markdown.split("## AES GHASH option", 1)[1].split("\n## ", 1)[0]
    rows = {cells[1]: cells for cells in ([c.strip() for c in line.strip("|").split("|")]
                                          for line in table.splitlines() if line.startswith("| mem |"))}
    assert rows["0"][2:] == ["- (no GCM)", "0", "0", "0", "0", "0", "0"]
    assert rows["8"][2:] == ["16", "1,000", "288", "800", "160", "200", "128"]
    assert rows["16"][2:5] == ["8", "1,800", "448"]
    goals = goals_by_label([list(g.values()) for g in data["goals"]])
    assert goals["AES GHASH option at 8 bits/cycle (+LUTs over ghash_bits = 0), mem"][2:5] == \
        ["1,000", "<= 1500", "met"]
    # The chart's axis for GHASH is GCM's cycles, from a `couplet bench aead` report.
    chart = {c["value"]: c for c in data["cycles_vs_luts"]}
    assert chart[8]["cycles"] == 23456.0 and chart[8]["source"] == "bench-aead-default.json"
    assert chart[0]["cycles"] is None
    assert "run `couplet bench aead -c <a configuration with ghash_bits = 0>`" in markdown
