"""What the API benchmarks (`couplet bench aes`, `aead`, `sha3`, `rtos`) share.

Their firmware times each call with mcycle and prints one line per run named
<prefix>/<backend>/<measure>; this module runs that firmware, groups the runs into a Stat per
backend and measure, formats speed-ups and goal rows, prints the tables, writes the JSON +
Markdown report and draws the bar chart.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import log
from couplet.errors import CoupletError
from couplet.model.config import SocConfig
from couplet.reports.results import Measurement, markdown_table, reports_dir, write_report
from couplet.tools import firmware, simbuild, simulator

# A titled table: (title, headers, rows).
Section = tuple[str, list[str], list[list[str]]]

GOAL_HEADERS = ["goal", "backend", "measured", "target", "verdict", "anchor"]


@dataclass(frozen=True)
class Stat:
    mean: float
    stdev: float
    runs: int
    check: str

    def cell(self) -> str:
        return f"{self.mean:,.0f} ± {self.stdev:.1f}" if self.stdev else f"{self.mean:,.0f}"


Stats = dict[str, dict[str, Stat]]


def summarise(measurements: list[Measurement], prefix: str) -> Stats:
    """{backend: {measure: Stat}} from lines named <prefix>/<backend>/<measure>, in the order
    the backends first appear. Runs of one measure must agree on the output."""
    runs: dict[tuple[str, str], list[Measurement]] = defaultdict(list)
    for m in measurements:
        parts = m.name.split("/", 2)
        if len(parts) == 3 and parts[0] == prefix:
            runs[(parts[1], parts[2])].append(m)
    stats: Stats = defaultdict(dict)
    for (backend, measure), items in runs.items():
        checks = {m.check for m in items}
        if len(checks) != 1:
            raise CoupletError(f"{backend} {measure}: runs disagree on the output ({sorted(checks)})")
        cycles = [m.cycles for m in items]
        stats[backend][measure] = Stat(
            statistics.mean(cycles), statistics.pstdev(cycles) if len(cycles) > 1 else 0.0, len(cycles), checks.pop()
        )
    return dict(stats)


@dataclass(frozen=True)
class Floor:
    """The physical floor of one call in one coupling: the custom instructions or bus accesses it
    cannot avoid (and the loads and stores that move the caller's data to and from them) plus the
    cycles the engine needs, with what it counts in words, so that a reader can check it."""

    cycles: int
    counts: str


def check_outputs(stats: Stats, measures: Sequence[str], expected: dict[str, str], model: str,
                  backends: list[str] | None = None) -> None:
    """Every reported backend has every measure and the output `model` gives (`expected`, by
    measure), so all backends agree; with `backends` (the configuration's), exactly those
    reported."""
    if "soft" not in stats:
        raise CoupletError("the software backend is missing from the results")
    if backends is not None and sorted(stats) != sorted(backends):
        raise CoupletError(f"the firmware reported backends {sorted(stats)}, the configuration has {sorted(backends)}")
    for backend, by_measure in stats.items():
        missing = [m for m in measures if m not in by_measure]
        if missing:
            raise CoupletError(f"{backend}: no result for {', '.join(missing)}")
        for measure, stat in by_measure.items():
            if measure not in expected:
                raise CoupletError(f"{backend}: unknown measure '{measure}'")
            if stat.check != expected[measure]:
                raise CoupletError(f"{backend} {measure}: wrong output (check {stat.check}, {model} gives "
                                   f"{expected[measure]}, the software backend {stats['soft'][measure].check})")


def with_floor(stat: Stat | None, floor: Floor | None) -> str:
    """A measured figure with its floor beside it and how far above the floor it is."""
    if stat is None:
        return "-"
    if floor is None or floor.cycles <= 0:
        return stat.cell()
    return f"{stat.cell()} (floor {floor.cycles:,}, {stat.mean / floor.cycles:.1f}x)"


def speedup(base: Stat | None, stat: Stat) -> str:
    return f"{base.mean / stat.mean:,.1f}x" if base and stat.mean else "-"


def goal_row(label: str, backend: str, value: float, limit: float, anchor: str, *, at_least: bool = False,
             unit: str = "", digits: int = 0) -> list[str]:
    """One row of a Goals table: the value must be <= limit (or >= limit with at_least)."""
    met = value >= limit if at_least else value <= limit
    suffix = f" {unit}" if unit else ""
    return [label, backend, f"{value:,.{digits}f}{suffix}", f"{'>=' if at_least else '<='} {limit:g}{suffix}",
            "met" if met else "NOT met", anchor]


def run_firmware(config: SocConfig, app: str, description: str, max_cycles: int,
                 defines: dict[str, str] | None = None) -> str:
    """Build the model and the app (a variant of it with `defines`, e.g. fewer runs), simulate
    it; the console, or an error if it failed."""
    log.info(f"building the simulation model of '{config.name}'")
    simbuild.build_sim(config)
    log.info(f"building the {app} firmware")
    elf = firmware.build_app(config, app, defines=defines)
    log.info(f"simulating {elf.name}: {description}")
    result = simulator.simulate(config, elf, capture=True, max_cycles=max_cycles)
    console = result.console or ""
    if result.status != "exit" or result.exit_code != 0:
        print(console)
        raise CoupletError(f"{app} failed: {result.status}, exit code {result.exit_code}")
    log.info(f"simulated {result.cycles:,} cycles in {result.seconds:.1f} s")
    return console


def simulate_firmware(config: SocConfig, elf: Path, description: str, max_cycles: int) -> simulator.SimResult:
    """Simulate an ELF already built (FreeRTOS apps build their own way); the result with its
    console, or an error if the program did not exit with 0."""
    result = simulator.simulate(config, elf, capture=True, max_cycles=max_cycles)
    if result.status != "exit" or result.exit_code != 0:
        print(result.console or "")
        raise CoupletError(f"{description} failed: {result.status}, exit code {result.exit_code}")
    log.info(f"{description}: simulated {result.cycles:,} cycles in {result.seconds:.1f} s")
    return result


def bar_plot(path: Path, categories: Sequence[str], series: dict[str, list[float]], title: str, ylabel: str,
             *, log_scale: bool = True, label_rotation: float = 0.0) -> None:
    """Grouped bars: one group per category, one bar per series (backend) in each; long category
    names read better with a label_rotation (degrees)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(len(series), 1)
    for i, (name, values) in enumerate(series.items()):
        xs = [j + i * width for j in range(len(categories))]
        ax.bar(xs, values, width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(categories))], list(categories),
                  rotation=label_rotation, ha="right" if label_rotation else "center")
    if log_scale:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def publish(stem: str, intro: list[str], sections: list[Section], goal_rows: list[list[str]],
            data: dict[str, Any]) -> tuple[Path, Path]:
    """Print the tables and goals; write build/reports/<stem>.{json,md}. A report with no goal
    (an estimate with anchors only) has no Goals section."""
    for title, headers, rows in sections:
        print(f"\n{title}")
        print(log.table(headers, rows))
    markdown = list(intro)
    for title, headers, rows in sections:
        markdown += [f"## {title}\n", markdown_table(headers, rows)]
    if goal_rows:
        print("\nGoals")
        print(log.table(GOAL_HEADERS, goal_rows))
        markdown += ["## Goals\n", markdown_table(GOAL_HEADERS, goal_rows)]
        data = {**data, "goals": [dict(zip(GOAL_HEADERS, r)) for r in goal_rows]}
    return write_report(stem, data, "\n".join(markdown))


def plot_path(stem: str) -> Path:
    return reports_dir() / f"{stem}.png"


def stats_json(stats: Stats) -> dict[str, dict[str, dict[str, Any]]]:
    return {b: {m: s.__dict__ for m, s in ms.items()} for b, ms in stats.items()}
