"""`couplet bench rtos`: FreeRTOS API latency and a Thread-Metric-equivalent suite, per kernel variant.

For every kernel variant (couplet/freertos.py VARIANTS: "sw" is FreeRTOS as released, the "hw-*"
ones have the RTOS accelerator serve the kernel) this builds and simulates two FreeRTOS apps:

- fw/rtos/apps/bench_api: cycles of each API call (ChamelIoT Figs. 5-8 shape), N samples per
  measure, the cost of an empty measurement subtracted, ticks left on (a sample a tick landed in
  is flagged);
- fw/rtos/apps/thread_metric: eight Thread-Metric-style tests, each counting loop iterations
  over a fixed period of ticks (ChamelIoT Table II shape), compared with Table II relatively (hw vs
  sw in %) and absolutely (cycles per iteration, theirs derived in couplet/reports/chameliot.py).

It prints the tables, writes build/reports/bench-rtos-<config>.{json,md} with every raw sample,
three plots and the firmware consoles, and judges the issue's goals (hw vs sw, per hw variant).
docs/bench_rtos.md says what each measure and test times.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from couplet import log
from couplet.errors import BuildError, CoupletError
from couplet.flows.bench.thread_metric import ParseError, TM_LINE, TM_TESTS, TmResult
from couplet.model.config import SocConfig
from couplet.reports import bench_report, chameliot
from couplet.reports.bench_report import Section, goal_row
from couplet.reports.results import reports_dir
from couplet.tools import freertos, simbuild

API_APP = "bench_api"
TM_APP = "thread_metric"
BASELINE = "sw"
# Each app runs 1.5 to 3 M cycles; far more means it hangs.
MAX_CYCLES = 30_000_000

# The measures bench_api reports, in table order (docs/bench_rtos.md defines each).
SCHEDULE_MEASURES = ("yield", "suspend", "resume", "resume-switch", "suspend-self")
MUTEX_MEASURES = ("lock", "unlock", "unlock-fail", "lock-fail", "lock-pi", "unlock-handover")
SEMAPHORE_MEASURES = ("give", "take", "take-fail", "give-wake")
QUEUE_OPS = ("send", "receive", "send-wake", "receive-wake")
QUEUE_WORDS = (1, 2, 4, 8, 16)
GROUPS: dict[str, tuple[str, ...]] = {
    "schedule": tuple(f"schedule/{m}" for m in SCHEDULE_MEASURES),
    "mutex": tuple(f"mutex/{m}" for m in MUTEX_MEASURES),
    "semaphore": tuple(f"semaphore/{m}" for m in SEMAPHORE_MEASURES),
    "queue": tuple(f"queue/{op}-{w}w" for op in QUEUE_OPS for w in QUEUE_WORDS),
}
API_MEASURES = tuple(m for group in GROUPS.values() for m in group)

# The issue's goals: HW vs SW Thread-Metric gain in %, at least.
TM_GOALS = (("cooperative", 200.0), ("preemptive", 177.0), ("message", 54.0), ("synchronization", 21.0))
# Issue 20's goals, per hardware kernel variant (same measure, at least): ChamelIoT's gains were
# set against a software FreeRTOS five times slower than ours, these against our own.
ISSUE20_GOALS: dict[str, tuple[tuple[str, float], ...]] = {
    "hw-tight": (("cooperative", 100.0), ("preemptive", 60.0), ("message", 100.0), ("memory", 0.0)),
    "hw-mmio": (("message", 54.0),),
}

# Tests whose iteration does other work than Table II's: their cycles per iteration stand beside
# ChamelIoT's without a ratio. (Thread-Metric's basic test, as published with the suite, updates
# a 1,024-word array per iteration: about 31,000-33,000 cycles on ChamelIoT's core.)
TM_NOT_COMPARABLE = {
    "basic": "our iteration is arithmetic over a 32-word array, Thread-Metric's over a 1,024-word one",
}
ABSOLUTE_METHOD = (
    "ours: the cycles of the test's period (the reporter reads mcycle before and after its vTaskDelay of "
    "period_ticks ticks; FreeRTOS ticks at 1 kHz) / the iterations counted in that period; ChamelIoT: "
    f"{chameliot.CLOCK_HZ:,} Hz x {chameliot.PERIOD_S} s / the count of Table II; ratio: ours / the ChamelIoT "
    "FreeRTOS configuration the variant compares with (sw: SW, hw-*: HW)")

# The firmware's lines (docs/bench_rtos.md); any line starting with one of these keywords must match.
API_HEADER = re.compile(r"^bench_api samples=(?P<n>\d+) overhead_cycles=(?P<oc>\d+) overhead_instret=(?P<oi>\d+)$")
API_LINE = re.compile(
    r"^api (?P<name>[a-z]+/[a-z0-9-]+) cycles=(?P<cycles>\d+(?:,\d+)*) instret=(?P<instret>\d+(?:,\d+)*) "
    r"ticks=(?P<ticks>[01]+)$")
API_DONE = "bench_api done"
TM_DONE = "thread_metric done"
KEYWORDS = ("api", "bench_api", "tm", "thread_metric")


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Spread:
    """The mean and population standard deviation of a set of samples."""

    mean: float
    stdev: float

    @staticmethod
    def of(samples: tuple[int, ...]) -> Spread:
        return Spread(statistics.mean(samples), statistics.pstdev(samples))

    def cell(self) -> str:
        return f"{self.mean:,.1f} ± {self.stdev:.1f}"


@dataclass(frozen=True)
class Latency:
    """The samples of one API measure: cycles and instructions (overhead subtracted), and whether
    the tick count changed across each sample."""

    cycles: tuple[int, ...]
    instret: tuple[int, ...]
    ticks: tuple[bool, ...]

    @property
    def all(self) -> Spread:
        return Spread.of(self.cycles)

    @property
    def quiet_samples(self) -> tuple[int, ...]:
        """The samples no tick landed in (all of them if every sample met one)."""
        return tuple(c for c, t in zip(self.cycles, self.ticks) if not t) or self.cycles

    @property
    def quiet(self) -> Spread:
        return Spread.of(self.quiet_samples)

    @property
    def tick_hits(self) -> int:
        return sum(self.ticks)

    def as_json(self) -> dict[str, Any]:
        return {"cycles": list(self.cycles), "instret": list(self.instret), "ticks": [int(t) for t in self.ticks],
                "mean": self.all.mean, "stdev": self.all.stdev, "min": min(self.cycles), "max": max(self.cycles),
                "instret_mean": statistics.mean(self.instret), "tick_hits": self.tick_hits,
                "quiet_mean": self.quiet.mean, "quiet_stdev": self.quiet.stdev}


@dataclass(frozen=True)
class ApiRun:
    samples: int
    overhead_cycles: int
    overhead_instret: int
    measures: dict[str, Latency]


@dataclass
class VariantResult:
    api: ApiRun
    tm: dict[str, TmResult]
    consoles: dict[str, str] = field(default_factory=dict)
    sim: dict[str, dict[str, float]] = field(default_factory=dict)  # app: cycles, seconds


# ----------------------------------------------------------------------------- parsing


_T = TypeVar("_T")


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(","))


def _keyword_lines(console: str, done_line: str) -> tuple[list[tuple[int, str]], bool]:
    """(line number, line) of the lines meant for us, those starting with one of KEYWORDS, but
    the program's `done_line`; and whether that line came."""
    found = []
    done = False
    for number, line in enumerate(console.splitlines(), 1):
        line = line.rstrip()
        if line == done_line:
            done = True
        elif line.split(" ", 1)[0] in KEYWORDS:
            found.append((number, line))
    return found, done


def _bad(number: int, line: str, why: str) -> ParseError:
    return ParseError(f"firmware output line {number}: {why}: {line[:160]!r}")


def _complete(program: str, done_line: str, done: bool, what: str, found: dict[str, _T],
              expected: tuple[str, ...]) -> dict[str, _T]:
    """`found` in the order of `expected`, once the program has finished and reported exactly those."""
    if not done:
        raise ParseError(f"{program} did not finish (no '{done_line}' line)")
    unknown = sorted(set(found) - set(expected))
    missing = [m for m in expected if m not in found]
    if unknown or missing:
        raise ParseError(f"{program} {what} differ from the expected ones: missing {missing}, unknown {unknown}")
    return {m: found[m] for m in expected}


def parse_api(console: str) -> ApiRun:
    """bench_api's output: the header, one line per measure, the done line. Strict: a line of
    ours that does not match, a sample count other than the header's, a measure twice, or one
    missing or unknown is an error."""
    header: re.Match[str] | None = None
    measures: dict[str, Latency] = {}
    lines, done = _keyword_lines(console, API_DONE)
    for number, line in lines:
        if line.startswith("bench_api "):
            header = API_HEADER.match(line)
            if header is None:
                raise _bad(number, line, "malformed bench_api header")
            continue
        match = API_LINE.match(line)
        if match is None:
            raise _bad(number, line, "malformed api line (expected 'api <group>/<measure> cycles=... instret=... "
                                     "ticks=...')")
        if header is None:
            raise _bad(number, line, "api line before the bench_api header")
        samples = int(header["n"])
        cycles, instret, ticks = _numbers(match["cycles"]), _numbers(match["instret"]), match["ticks"]
        if not len(cycles) == len(instret) == len(ticks) == samples:
            raise _bad(number, line, f"expected {samples} samples, got {len(cycles)} cycles, {len(instret)} instret, "
                                     f"{len(ticks)} tick flags")
        name = match["name"]
        if name in measures:
            raise _bad(number, line, f"measure {name} reported twice")
        measures[name] = Latency(cycles, instret, tuple(t == "1" for t in ticks))
    if header is None:
        raise ParseError("bench_api printed no header line ('bench_api samples=...')")
    measures = _complete("bench_api", API_DONE, done, "measures", measures, API_MEASURES)
    return ApiRun(int(header["n"]), int(header["oc"]), int(header["oi"]), measures)


def parse_tm(console: str) -> dict[str, TmResult]:
    """thread_metric's output: one line per test and the done line, strictly."""
    results: dict[str, TmResult] = {}
    lines, done = _keyword_lines(console, TM_DONE)
    for number, line in lines:
        match = TM_LINE.match(line)
        if match is None:
            raise _bad(number, line, "malformed tm line (expected 'tm <test> count=N ticks=P cycles=C tasks=...')")
        name = match["name"]
        if name in results:
            raise _bad(number, line, f"test {name} reported twice")
        result = TmResult(int(match["count"]), int(match["ticks"]), int(match["cycles"]), _numbers(match["tasks"]))
        if sum(result.tasks) != result.count:
            raise _bad(number, line, "count is not the sum of the task counters")
        results[name] = result
    return _complete("thread_metric", TM_DONE, done, "tests", results, TM_TESTS)


# ----------------------------------------------------------------------------- running


def select_variants(config: SocConfig, requested: Sequence[str] | None) -> tuple[list[str], dict[str, str]]:
    """The variants to run (requested, or all of VARIANTS) and the skipped ones with the reason:
    those the configuration lacks (the variant's own check says so)."""
    names = list(requested) if requested else list(freertos.VARIANTS)
    unknown = [n for n in names if n not in freertos.VARIANTS]
    if unknown:
        raise CoupletError(f"unknown kernel variant(s) {', '.join(unknown)} (known: {', '.join(freertos.VARIANTS)})")
    run, skipped = [], {}
    for name in dict.fromkeys(names):
        try:
            freertos.VARIANTS[name].check(config)
        except BuildError as err:
            skipped[name] = str(err)
            continue
        run.append(name)
    return run, skipped


def _simulate(config: SocConfig, elf: Path, app: str, variant: str) -> tuple[str, dict[str, float]]:
    log.info(f"{variant}: simulating {app} (about {'3' if app == TM_APP else '1.5'} M cycles)")
    result = bench_report.simulate_firmware(config, elf, f"{app} on the {variant} kernel", MAX_CYCLES)
    return result.console or "", {"cycles": result.cycles, "seconds": result.seconds}


def run_variant(config: SocConfig, variant: str) -> VariantResult:
    """Build both apps for `variant`, simulate them and parse their output."""
    elfs = {}
    for app in (API_APP, TM_APP):
        log.info(f"{variant}: building {app}")
        elfs[app] = freertos.build_rtos_app(config, app, variant)
    consoles, sim = {}, {}
    for app, elf in elfs.items():
        consoles[app], sim[app] = _simulate(config, elf, app, variant)
    try:
        api, tm = parse_api(consoles[API_APP]), parse_tm(consoles[TM_APP])
    except ParseError as err:
        raise ParseError(f"{variant}: {err}") from err
    return VariantResult(api, tm, consoles, sim)


def run_all(config: SocConfig, variants: list[str], jobs: int) -> dict[str, VariantResult]:
    log.info(f"building the simulation model of '{config.name}'")
    simbuild.build_sim(config)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(zip(variants, pool.map(lambda variant: run_variant(config, variant), variants)))


# ----------------------------------------------------------------------------- tables


def latency_gain(sw: float, hw: float) -> float:
    """ChamelIoT's "improvement" of a latency: how much longer software takes, in %."""
    return (sw / hw - 1.0) * 100.0 if hw else float("nan")


def count_gain(sw: float, hw: float) -> float:
    """Table II's HW vs SW: how many more iterations, in %."""
    return (hw / sw - 1.0) * 100.0 if sw else float("nan")


def _pct(value: float) -> str:
    return "-" if value != value else f"{value:+.1f}%"


def hw_variants(results: dict[str, VariantResult]) -> list[str]:
    return [v for v in results if v != BASELINE]


def latency_table(results: dict[str, VariantResult], samples: int) -> Section:
    variants = list(results)
    hws = hw_variants(results) if BASELINE in results else []
    headers = ["measure"]
    for v in variants:
        headers += [f"{v} mean ± sd", f"{v} min-max"]
    headers += [f"{v} vs sw" for v in hws]
    rows = []
    for measure in API_MEASURES:
        row = [measure]
        for v in variants:
            lat = results[v].api.measures[measure]
            row += [lat.all.cell(), f"{min(lat.cycles)}-{max(lat.cycles)}"]
        sw = results[BASELINE].api.measures[measure].quiet.mean if hws else 0.0
        row += [_pct(latency_gain(sw, results[v].api.measures[measure].quiet.mean)) for v in hws]
        rows.append(row)
    return (f"API latency in cycles ({samples} samples each, empty measurement subtracted, ticks left on; "
            "'vs sw' = how much longer sw takes, as in ChamelIoT Figs. 5-8, from the means of the samples no "
            "tick landed in)", headers, rows)


def jitter_table(results: dict[str, VariantResult]) -> Section:
    headers = ["measure"]
    for v in results:
        headers += [f"{v} sd", f"{v} tick hits", f"{v} no tick: mean ± sd", f"{v} instret"]
    rows = []
    for measure in API_MEASURES:
        row = [measure]
        for v in results:
            lat = results[v].api.measures[measure]
            row += [f"{lat.all.stdev:.1f}", str(lat.tick_hits), lat.quiet.cell(),
                    f"{statistics.mean(lat.instret):,.1f}"]
        rows.append(row)
    return ("Jitter: standard deviation of all samples, how many samples a tick landed in, mean and sd of the "
            "others, and mean instructions retired", headers, rows)


def tm_table(results: dict[str, VariantResult]) -> Section:
    variants = list(results)
    hws = hw_variants(results) if BASELINE in results else []
    first = next(iter(results.values()))
    period = first.tm[TM_TESTS[0]].ticks
    headers = ["test"]
    for v in variants:
        headers += [f"{v} count", f"{v} cycles/iter"]
    headers += [f"{v} vs sw" for v in hws]
    headers += ["ChamelIoT SW", "ChamelIoT HW", "ChamelIoT HW vs SW"]
    rows = []
    for test in TM_TESTS:
        row = [test]
        for v in variants:
            res = results[v].tm[test]
            row += [f"{res.count:,}", f"{res.cycles_per_iteration:,.1f}"]
        row += [_pct(count_gain(results[BASELINE].tm[test].count, results[v].tm[test].count)) for v in hws]
        sw, hw = (chameliot.count(chameliot.OUR_OS, c, test) for c in (chameliot.SW, chameliot.HW))
        row += [f"{sw:,}", f"{hw:,}", _chameliot_pct(test)] if sw and hw else ["-", "-", "-"]
        rows.append(row)
    return (f"Thread-Metric-equivalent suite: iterations in {period} ticks ({period} ms); ChamelIoT Table II "
            f"(FreeRTOS, {_chameliot_window()}) for comparison of the HW vs SW gain", headers, rows)


def _chameliot_window() -> str:
    return f"{chameliot.CLOCK_HZ / 1e6:g} MHz x {chameliot.PERIOD_S} s"


def _chameliot_pct(test: str) -> str:
    """Table II's HW vs SW gain of ChamelIoT's FreeRTOS, as the paper prints it (two decimals)."""
    gain = chameliot.count_gain(chameliot.OUR_OS, test)
    return "-" if gain is None else f"{gain:+.2f}%"


def chameliot_counterpart(variant: str) -> str:
    """The configuration of ChamelIoT's FreeRTOS a kernel variant compares with: sw is FreeRTOS as
    released (their SW); every other variant has the accelerator serve the kernel (their HW)."""
    return chameliot.SW if variant == BASELINE else chameliot.HW


def absolute_rows(results: dict[str, VariantResult]) -> dict[str, dict[str, Any]]:
    """Per test: ChamelIoT's FreeRTOS cycles per iteration (SW, HW; None where Table II lacks the
    test) and, per variant, ours (mcycle over the test's period / iterations counted in it) and
    the ratio ours / their counterpart's (None where the iterations are not the same work)."""
    rows: dict[str, dict[str, Any]] = {}
    for test in TM_TESTS:
        theirs = {c: chameliot.cycles_per_iteration(chameliot.OUR_OS, c, test) for c in (chameliot.SW, chameliot.HW)}
        ours = {}
        for v, r in results.items():
            cpi = r.tm[test].cycles_per_iteration
            anchor = theirs[chameliot_counterpart(v)]
            ratio = cpi / anchor if anchor and test not in TM_NOT_COMPARABLE else None
            ours[v] = {"cycles_per_iteration": cpi, "chameliot": chameliot_counterpart(v), "ratio": ratio}
        rows[test] = {"chameliot_sw": theirs[chameliot.SW], "chameliot_hw": theirs[chameliot.HW],
                      "comparable": test in chameliot.TESTS and test not in TM_NOT_COMPARABLE, "variants": ours}
    return rows


def _cycles(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def absolute_table(results: dict[str, VariantResult]) -> Section:
    first = next(iter(results.values()))
    period = first.tm[TM_TESTS[0]].ticks
    headers = ["test", "ChamelIoT SW", "ChamelIoT HW"]
    for v in results:
        headers += [f"{v}", f"{v} / ChamelIoT {chameliot_counterpart(v)}"]
    rows = []
    for test, row in absolute_rows(results).items():
        cells = [test, _cycles(row["chameliot_sw"]), _cycles(row["chameliot_hw"])]
        for v in results:
            ours = row["variants"][v]
            cells += [_cycles(ours["cycles_per_iteration"]), _ratio(ours["ratio"])]
        rows.append(cells)
    not_comparable = ", ".join(TM_NOT_COMPARABLE)
    return (f"Thread-Metric, absolute: cycles per iteration, ours (mcycle over the {period}-tick period / the "
            f"iterations in it) beside ChamelIoT's ({_chameliot_window()} / Table II's count; {chameliot.SETUP}); "
            "ratio = ours / the ChamelIoT configuration the variant compares with (sw: SW, hw-*: HW), below 1x = "
            f"fewer cycles than ChamelIoT; '-' = not in Table II, or ({not_comparable}) not the same work per "
            "iteration", headers, rows)


def chameliot_table() -> Section:
    """Table II as cycles per iteration, every OS it has (ours is FreeRTOS)."""
    headers = ["test"] + [f"{rtos} {c}" for rtos, rows in chameliot.TABLE_II.items() for c in rows]
    rows = [[test] + [_cycles(chameliot.cycles_per_iteration(rtos, c, test))
                      for rtos, rows in chameliot.TABLE_II.items() for c in rows] for test in chameliot.TESTS]
    return (f"ChamelIoT Table II as cycles per iteration ({_chameliot_window()} / count), every OS it reports. "
            f"Source: {chameliot.SOURCE}", headers, rows)


def goals(results: dict[str, VariantResult], skipped: dict[str, str]) -> list[list[str]]:
    rows: list[list[str]] = []
    hws = hw_variants(results)
    if BASELINE not in results or not hws:
        why = "no sw baseline run" if BASELINE not in results else "no hw variant run"
        if skipped:
            why += f" (skipped: {', '.join(skipped)})"
        for test, limit in TM_GOALS:
            rows.append([f"Thread-Metric {test} hw vs sw", "-", "-", f">= +{limit:g}%", why,
                         f"ChamelIoT: {_chameliot_pct(test)}"])
        rows.append(["zero jitter on hw-served calls", "-", "-", "sd = 0", why, "ChamelIoT: HW deviation 0"])
        return rows
    sw = results[BASELINE]
    for v in hws:
        for test, limit in TM_GOALS:
            gain = count_gain(sw.tm[test].count, results[v].tm[test].count)
            row = goal_row(f"Thread-Metric {test} hw vs sw", v, gain, limit,
                           f"ChamelIoT Table II: {_chameliot_pct(test)}", at_least=True, digits=1)
            rows.append([row[0], row[1], f"{gain:+.1f}%", f">= +{limit:g}%", *row[4:]])
        for test, limit in ISSUE20_GOALS.get(v, ()):
            gain = count_gain(sw.tm[test].count, results[v].tm[test].count)
            row = goal_row(f"Thread-Metric {test} hw vs sw (issue 20)", v, gain, limit, "-", at_least=True, digits=1)
            rows.append([row[0], row[1], f"{gain:+.1f}%", f">= {limit:+g}%", *row[4:]])
        for group, measures in GROUPS.items():
            lats = [results[v].api.measures[m] for m in measures]
            worst = max(lat.quiet.stdev for lat in lats)
            jittery = sum(1 for lat in lats if lat.quiet.stdev > 0)
            row = goal_row(f"zero jitter, {group} calls (samples without a tick)", v, worst, 0.0,
                           "ChamelIoT: HW deviation 0", digits=2)
            rows.append([row[0], row[1], f"max sd {worst:.2f} ({jittery}/{len(lats)} measures jitter)",
                         "sd = 0", *row[4:]])
    return rows


# ----------------------------------------------------------------------------- plots


def plot_latency(results: dict[str, VariantResult], path: Path) -> None:
    measures = [m for m in API_MEASURES if not m.startswith("queue/")]
    series = {v: [r.api.measures[m].all.mean for m in measures] for v, r in results.items()}
    bench_report.bar_plot(path, measures, series, "FreeRTOS API latency (schedule, mutex, semaphore)",
                          "cycles (mean)", log_scale=False, label_rotation=40)


def plot_queue(results: dict[str, VariantResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for v, r in results.items():
        for op, style in zip(QUEUE_OPS, ("-o", "--s", "-^", "--v")):
            ax.plot(QUEUE_WORDS, [r.api.measures[f"queue/{op}-{w}w"].all.mean for w in QUEUE_WORDS], style,
                    label=f"{v} {op}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(QUEUE_WORDS, [str(w) for w in QUEUE_WORDS])
    ax.set_xlabel("message size (words)")
    ax.set_ylabel("cycles")
    ax.set_title("FreeRTOS queue latency by message size")
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_tm(results: dict[str, VariantResult], path: Path) -> None:
    if BASELINE in results:
        base = results[BASELINE].tm
        series = {v: [100.0 * r.tm[t].count / base[t].count for t in TM_TESTS] for v, r in results.items()}
        ylabel, log_scale = "iterations per period, % of sw", False
    else:
        series = {v: [float(r.tm[t].count) for t in TM_TESTS] for v, r in results.items()}
        ylabel, log_scale = "iterations per period (log scale)", True
    bench_report.bar_plot(path, list(TM_TESTS), series, "Thread-Metric-equivalent suite", ylabel,
                          log_scale=log_scale, label_rotation=30)


# ----------------------------------------------------------------------------- report


def report_data(config: SocConfig, results: dict[str, VariantResult], skipped: dict[str, str]) -> dict[str, Any]:
    first = next(iter(results.values()))
    data: dict[str, Any] = {
        "config": config.name,
        "clock_hz": config.clock_hz,
        "samples": first.api.samples,
        "period_ticks": first.tm[TM_TESTS[0]].ticks,
        "variants": list(results),
        "skipped": skipped,
        "api": {},
        "thread_metric": {},
        "simulation": {v: r.sim for v, r in results.items()},
        "chameliot_table_ii": chameliot.as_json(),
        "thread_metric_absolute": {
            "method": ABSOLUTE_METHOD,
            "not_comparable": TM_NOT_COMPARABLE,
            "tests": absolute_rows(results),
        },
    }
    for v, r in results.items():
        data["api"][v] = {"overhead_cycles": r.api.overhead_cycles, "overhead_instret": r.api.overhead_instret,
                          "measures": {m: lat.as_json() for m, lat in r.api.measures.items()}}
        data["thread_metric"][v] = {t: res.as_json() for t, res in r.tm.items()}
    if BASELINE in results:
        sw = results[BASELINE]
        data["hw_vs_sw"] = {
            v: {"api_pct": {m: latency_gain(sw.api.measures[m].quiet.mean, results[v].api.measures[m].quiet.mean)
                            for m in API_MEASURES},
                "thread_metric_pct": {t: count_gain(sw.tm[t].count, results[v].tm[t].count) for t in TM_TESTS}}
            for v in hw_variants(results)
        }
    return data


def publish(config: SocConfig, results: dict[str, VariantResult], skipped: dict[str, str]) -> Path:
    first = next(iter(results.values()))
    samples, period = first.api.samples, first.tm[TM_TESTS[0]].ticks
    skipped_text = "; ".join(f"{v}: {why}" for v, why in skipped.items()) or "none"
    intro = [
        f"# FreeRTOS benchmark, configuration '{config.name}' ({config.clock_hz / 1e6:g} MHz)\n",
        f"Kernel variants run: {', '.join(results)}. Skipped (the configuration lacks them): {skipped_text}.\n",
        "FreeRTOS V11.2.0 on CV32E40X in the Verilator model, one firmware per variant built from the same",
        "application code (fw/rtos/apps/bench_api and thread_metric). API latency: mcycle around each call,",
        f"{samples} samples per measure, the cost of an empty measurement subtracted; a measure that wakes",
        "or switches to another task is timed until that task runs. Ticks stay on: a sample a tick landed in",
        "is counted in the mean and sd, and flagged (see the jitter table). Thread-Metric: iterations in",
        f"{period} ticks per test, compared relatively (hw vs sw, as ChamelIoT's Table II) and absolutely",
        "(cycles per iteration beside those derived from Table II). docs/bench_rtos.md says exactly what each",
        "figure times.\n",
    ]
    sections = [latency_table(results, samples), jitter_table(results), tm_table(results), absolute_table(results),
                chameliot_table()]
    stem = f"bench-rtos-{config.name}"
    json_path, md_path = bench_report.publish(stem, intro, sections, goals(results, skipped),
                                              report_data(config, results, skipped))
    out = reports_dir()
    plots = [bench_report.plot_path(stem), out / f"{stem}-queue.png", out / f"{stem}-tm.png"]
    plot_latency(results, plots[0])
    plot_queue(results, plots[1])
    plot_tm(results, plots[2])
    for v, r in results.items():
        for app, console in r.consoles.items():
            (out / f"{stem}-{v}-{app}.log").write_text(console)
    log.info(f"written {json_path}, {md_path}, {', '.join(p.name for p in plots)} and the firmware consoles")
    return json_path


def run(config: SocConfig, kernels: Sequence[str] | None = None, jobs: int = 1) -> int:
    variants, skipped = select_variants(config, kernels)
    for variant, reason in skipped.items():
        log.info(f"{variant}: skipped, {reason}")
    if not variants:
        raise CoupletError(f"config '{config.name}' supports none of the kernel variants asked for")
    log.info(f"kernel variants: {', '.join(variants)} (two apps each, about 40 s of simulation per variant)")
    results = run_all(config, variants, jobs)
    publish(config, results, skipped)
    return 0
