"""`couplet bench facv`: the FAC-V section 4.3 application, AES packet echo under Thread-Metric load.

Builds and simulates the FreeRTOS app fw/rtos/apps/facv_echo once: a packet source wakes every
few ticks and hands the server an 80-byte AES-256-CBC message, which the server decrypts,
validates, changes, re-encrypts and sends back, while the Thread-Metric-equivalent suite
(fw/rtos/lib/thread_metric, the one `couplet bench rtos` runs) runs below it. Every scenario runs
the whole suite: baseline (no packets), echo (no crypto), then echo with each AES backend of the
SoC (soft first); then the CCM* variant at its own rate and period: ccm_echo (the frame in clear)
and each backend (ccm_<backend>), the same message as the payload of an IEEE 802.15.4 data frame
secured with CCM* at level 5 (AES-128, 32-bit MIC), which the server verifies, decrypts, changes
and secures again. The report has FAC-V's Table 8 shape (Thread-Metric counts per scenario), its
Table 9 shape (decrease relative to the variant's echo), the server's cycles per packet per
backend, CBC beside CCM* per backend, and FAC-V's own figures (RIOT on a Rocket core) as anchor
rows. docs/bench_rtos.md describes it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import log
from couplet.errors import CoupletError
from couplet.flows.bench.thread_metric import ParseError, TM_LINE, TM_TESTS, TmResult
from couplet.model.config import SocConfig
from couplet.reports import bench_report
from couplet.reports.bench_report import Section, goal_row
from couplet.reports.results import reports_dir
from couplet.tools import freertos, simbuild

APP = "facv_echo"
# Tasks facv_echo has at once besides the kernel's own (freertos.kernel_tasks()): its controller,
# the packet source, the server and the Thread-Metric suite's largest test (5 tasks, MAX_TASKS in
# fw/rtos/lib/thread_metric/tm_suite.c).
FACV_APP_TASKS = 8
# About 32 M cycles on the default SoC (nine CBC scenarios of 1.5 M, eight CCM* of 2.3 M); far
# more means it hangs.
MAX_CYCLES = 60_000_000
# FreeRTOSConfig.h: configTICK_RATE_HZ.
TICK_RATE_HZ = 1000
BASELINE = "baseline"
ECHO = "echo"
SOFT = "soft"
# The CCM* variant's scenario of backend b is CCM_PREFIX + b; its echo (the frame in clear) CCM_ECHO.
CCM_PREFIX = "ccm_"
CCM_ECHO = CCM_PREFIX + ECHO
# IEEE 802.15.4: aMaxPHYPacketSize (the frame with its 2-byte FCS), and the MIC of each security
# level that encrypts (level & 3 gives 4, 8 or 16 bytes).
MAX_FRAME_BYTES = 127
FCS_BYTES = 2
CCM_MIC_BYTES = {5: 4, 6: 8, 7: 16}

SETUP_FIELDS = ("period_ticks", "packet_ticks", "packet_bytes", "key_bits", "ccm_period_ticks", "ccm_packet_ticks",
                "ccm_level", "ccm_key_bits", "ccm_header_bytes", "ccm_payload_bytes", "ccm_mic_bytes",
                "ccm_frame_bytes", "check_every")
HEADER = re.compile(
    r"^facv_echo" + "".join(rf" {f}=(?P<{f}>\d+)" for f in SETUP_FIELDS)
    + r" backends=(?P<backends>[a-z0-9_]+(?:,[a-z0-9_]+)*)$")
PACKET_FIELDS = ("packets", "replies", "misses", "lost", "errors", "checked", "check_failures", "forged", "refused",
                 "server_cycles", "server_max")
PACKET_LINE = re.compile(
    r"^facv scenario=(?P<scenario>[a-z0-9_]+)" + "".join(rf" {f}=(?P<{f}>\d+)" for f in PACKET_FIELDS) + "$")
SCENARIO_SUFFIX = re.compile(r" scenario=(?P<scenario>[a-z0-9_]+)$")
DONE = "facv_echo done"
KEYWORDS = ("facv_echo", "facv", "tm")

# FAC-V (J. Low Power Electron. Appl. 2022, 12, 50), RIOT on a Rocket core with the FAC-V
# coprocessor, 80-byte AES-256 UDP echo at ~15 messages/s. Columns in TM_TESTS order.
FACV_TABLE_8: dict[str, tuple[int, ...]] = {
    "(i) Baseline (no network)": (73_012, 4_049_986, 1_552_968, 5_746_523, 3_051_415, 5_480_340, 5_676_620,
                                  2_810_406),
    "(ii) Echo": (38_994, 2_145_623, 869_367, 3_212_352, 1_707_203, 3_013_826, 3_180_201, 1_489_664),
    "(iii) Echo + SW": (24_678, 1_288_700, 461_632, 1_490_272, 1_015_795, 2_227_820, 2_275_369, 1_109_816),
    "(iv) Echo + RoCC Mem": (37_560, 2_100_921, 830_111, 3_035_100, 1_594_133, 2_779_515, 2_895_005, 1_411_679),
    "(v) Echo + RoCC": (35_546, 2_053_071, 817_707, 2_955_054, 1_586_991, 2_778_290, 2_901_002, 1_412_516),
    "(vi) Echo + MMIO": (37_060, 2_137_461, 806_495, 3_066_915, 1_566_676, 2_849_630, 2_849_586, 1_437_321),
}
# Table 9 as printed ("relative performance decrease", %). Its baseline row is echo's decrease
# relative to the baseline, -(baseline - echo) / baseline; the other rows are relative to echo.
FACV_TABLE_9: dict[str, tuple[float, ...]] = {
    "(i) Baseline (no network)": (-46.6, -47.0, -44.0, -44.1, -44.1, -45.0, -44.0, -47.0),
    "(ii) Echo": (0.0,) * 8,
    "(iii) Echo + SW": (36.7, 39.9, 46.9, 53.6, 40.5, 26.1, 28.5, 25.5),
    "(iv) Echo + RoCC Mem": (3.7, 2.1, 4.5, 5.5, 6.6, 7.8, 9.0, 5.2),
    "(v) Echo + RoCC": (8.8, 4.3, 5.9, 8.0, 7.0, 7.8, 8.8, 5.2),
    "(vi) Echo + MMIO": (5.0, 0.4, 7.2, 4.5, 8.2, 5.4, 10.4, 3.5),
}
# Which of our backends is closest to each FAC-V coupling.
FACV_COUPLINGS = {"mem": "RoCC Mem", "tight": "RoCC", "mmio": "MMIO"}


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Packets:
    """The packet flow of one scenario, as the firmware counted it."""

    packets: int
    replies: int
    misses: int
    lost: int
    errors: int
    checked: int
    check_failures: int
    forged: int  # frames with a flipped bit handed to the server before the scenario (CCM* only)
    refused: int
    server_cycles: int
    server_max: int

    @property
    def server_mean(self) -> float:
        return self.server_cycles / self.replies if self.replies else 0.0

    @property
    def ok(self) -> bool:
        return (self.lost == 0 and self.errors == 0 and self.check_failures == 0 and self.replies == self.packets
                and self.refused == self.forged)

    def as_json(self) -> dict[str, Any]:
        return {**self.__dict__, "server_mean": self.server_mean, "ok": self.ok}


@dataclass(frozen=True)
class Setup:
    period_ticks: int
    packet_ticks: int
    packet_bytes: int
    key_bits: int
    ccm_period_ticks: int  # the CCM* scenarios' Thread-Metric period
    ccm_packet_ticks: int  # and packet interval
    ccm_level: int  # IEEE 802.15.4 security level of the CCM* frames
    ccm_key_bits: int
    ccm_header_bytes: int  # the MAC header with its auxiliary security header (authenticated)
    ccm_payload_bytes: int  # encrypted
    ccm_mic_bytes: int
    ccm_frame_bytes: int  # on air: header, payload, MIC and the FCS
    check_every: int
    backends: tuple[str, ...]

    @property
    def ccm_backend_scenarios(self) -> tuple[str, ...]:
        return tuple(CCM_PREFIX + b for b in self.backends)

    @property
    def ccm_scenarios(self) -> tuple[str, ...]:
        return (CCM_ECHO, *self.ccm_backend_scenarios)

    @property
    def scenarios(self) -> tuple[str, ...]:
        return (BASELINE, ECHO, *self.backends, *self.ccm_scenarios)

    def is_ccm(self, scenario: str) -> bool:
        return scenario in self.ccm_scenarios

    def period_of(self, scenario: str) -> int:
        return self.ccm_period_ticks if self.is_ccm(scenario) else self.period_ticks

    def packet_ticks_of(self, scenario: str) -> int:
        return self.ccm_packet_ticks if self.is_ccm(scenario) else self.packet_ticks

    def echo_of(self, scenario: str) -> str:
        """The scenario a scenario's Thread-Metric decrease is relative to: its variant's echo."""
        return CCM_ECHO if self.is_ccm(scenario) else ECHO

    def soft_of(self, scenario: str) -> str:
        return CCM_PREFIX + SOFT if self.is_ccm(scenario) else SOFT


@dataclass
class FacvRun:
    setup: Setup
    tm: dict[str, dict[str, TmResult]]  # scenario: test: result
    packets: dict[str, Packets]
    console: str = ""
    sim: dict[str, float] | None = None


# ----------------------------------------------------------------------------- parsing


def _bad(number: int, line: str, why: str) -> ParseError:
    return ParseError(f"facv_echo output line {number}: {why}: {line[:160]!r}")


def _setup(number: int, line: str) -> Setup:
    header = HEADER.match(line)
    if header is None:
        raise _bad(number, line, "malformed facv_echo header (expected 'facv_echo "
                                 + " ".join(f"{f}=N" for f in SETUP_FIELDS) + " backends=a,b,...')")
    n = {f: int(header[f]) for f in SETUP_FIELDS}
    setup = Setup(n["period_ticks"], n["packet_ticks"], n["packet_bytes"], n["key_bits"], n["ccm_period_ticks"],
                  n["ccm_packet_ticks"], n["ccm_level"], n["ccm_key_bits"], n["ccm_header_bytes"],
                  n["ccm_payload_bytes"], n["ccm_mic_bytes"], n["ccm_frame_bytes"], n["check_every"],
                  tuple(header["backends"].split(",")))
    for period, packet in ((setup.period_ticks, setup.packet_ticks), (setup.ccm_period_ticks, setup.ccm_packet_ticks)):
        if packet == 0 or period % packet:
            raise _bad(number, line, f"a period of {period} ticks is not a multiple of the packet interval ({packet})")
    mic = CCM_MIC_BYTES.get(setup.ccm_level)
    if mic is None:
        raise _bad(number, line, f"CCM* level {setup.ccm_level} does not encrypt (levels {sorted(CCM_MIC_BYTES)} do)")
    if setup.ccm_mic_bytes != mic:
        raise _bad(number, line, f"CCM* level {setup.ccm_level} has a {mic}-byte MIC, not {setup.ccm_mic_bytes}")
    parts = setup.ccm_header_bytes + setup.ccm_payload_bytes + setup.ccm_mic_bytes + FCS_BYTES
    if setup.ccm_frame_bytes != parts or parts > MAX_FRAME_BYTES:
        raise _bad(number, line, f"the CCM* frame is {setup.ccm_frame_bytes} bytes, its parts {parts} (header, "
                                 f"payload, MIC, {FCS_BYTES}-byte FCS; at most {MAX_FRAME_BYTES})")
    if len(set(setup.backends)) != len(setup.backends) or ECHO in setup.backends:
        raise _bad(number, line, "a backend listed twice, or one named echo")
    return setup


def _tm_line(number: int, line: str) -> tuple[str, str, TmResult]:
    suffix = SCENARIO_SUFFIX.search(line)
    match = TM_LINE.match(line[:suffix.start()]) if suffix else None
    if suffix is None or match is None:
        raise _bad(number, line, "malformed tm line (expected 'tm <test> count=N ticks=P cycles=C tasks=... "
                                 "scenario=S')")
    tasks = tuple(int(v) for v in match["tasks"].split(","))
    result = TmResult(int(match["count"]), int(match["ticks"]), int(match["cycles"]), tasks)
    if sum(tasks) != result.count:
        raise _bad(number, line, "count is not the sum of the task counters")
    return suffix["scenario"], match["name"], result


def parse(console: str) -> FacvRun:
    """facv_echo's output, strictly: the header, eight tm lines and one facv line per scenario
    (every scenario the header implies, each once), the done line. A line starting with one of
    our keywords that does not match is an error, as is anything missing or repeated."""
    setup: Setup | None = None
    tm: dict[str, dict[str, TmResult]] = {}
    packets: dict[str, Packets] = {}
    done = False
    for number, raw in enumerate(console.splitlines(), 1):
        line = raw.rstrip()
        keyword = line.split(" ", 1)[0]
        if keyword not in KEYWORDS:
            continue
        if line == DONE:
            done = True
        elif keyword == "facv_echo":
            if setup is not None:
                raise _bad(number, line, "a second facv_echo header")
            setup = _setup(number, line)
        elif setup is None:
            raise _bad(number, line, "line before the facv_echo header")
        elif keyword == "tm":
            scenario, test, result = _tm_line(number, line)
            if scenario in setup.scenarios and result.ticks != setup.period_of(scenario):
                raise _bad(number, line, f"scenario {scenario} runs {setup.period_of(scenario)} ticks per test")
            if test in tm.setdefault(scenario, {}):
                raise _bad(number, line, f"test {test} of scenario {scenario} reported twice")
            tm[scenario][test] = result
        else:
            match = PACKET_LINE.match(line)
            if match is None:
                raise _bad(number, line, "malformed facv line (expected 'facv scenario=S "
                                         + " ".join(f"{f}=N" for f in PACKET_FIELDS) + "')")
            scenario = match["scenario"]
            if scenario in packets:
                raise _bad(number, line, f"scenario {scenario} reported twice")
            flow = Packets(*(int(match[f]) for f in PACKET_FIELDS))
            # Only the CCM* scenarios with a backend are offered forged frames, and they all are.
            if (flow.forged > 0) != (scenario in setup.ccm_backend_scenarios) or flow.refused > flow.forged:
                raise _bad(number, line, f"forged={flow.forged} refused={flow.refused} in scenario {scenario} "
                                         f"(forged frames go to the {CCM_PREFIX}<backend> scenarios only)")
            packets[scenario] = flow
    if setup is None:
        raise ParseError("facv_echo printed no header line ('facv_echo period_ticks=...')")
    if not done:
        raise ParseError(f"facv_echo did not finish (no '{DONE}' line)")
    expected = list(setup.scenarios)
    for what, found in (("Thread-Metric", tm), ("packet", packets)):
        if sorted(found) != sorted(expected):
            raise ParseError(f"facv_echo {what} scenarios differ from the expected ones: expected {expected}, "
                             f"got {sorted(found)}")
    for scenario, tests in tm.items():
        missing = [t for t in TM_TESTS if t not in tests]
        unknown = sorted(set(tests) - set(TM_TESTS))
        if missing or unknown:
            raise ParseError(f"facv_echo scenario {scenario}: Thread-Metric tests missing {missing}, unknown {unknown}")
    return FacvRun(setup, {s: {t: tm[s][t] for t in TM_TESTS} for s in expected}, {s: packets[s] for s in expected})


# ----------------------------------------------------------------------------- figures


def decrease(echo: float, value: float) -> float:
    """Table 9's relative performance decrease of a scenario, in % of echo (negative: more)."""
    return (echo - value) / echo * 100.0 if echo else float("nan")


def table9(run: FacvRun) -> dict[str, dict[str, float]]:
    """Each scenario's decrease relative to its variant's echo (same period and packet rate)."""
    return {s: {t: decrease(run.tm[run.setup.echo_of(s)][t].count, run.tm[s][t].count) for t in TM_TESTS}
            for s in run.setup.scenarios}


def mean_decrease(run: FacvRun, scenario: str) -> float:
    """Table 9's decrease of a scenario averaged over the eight tests."""
    values = table9(run)[scenario]
    return sum(values.values()) / len(values)


def _label(scenario: str) -> str:
    if scenario in (BASELINE, ECHO):
        return scenario
    if scenario == CCM_ECHO:
        return "CCM* frame echo (in clear)"
    if scenario.startswith(CCM_PREFIX):
        return f"CCM* frame echo + {scenario.removeprefix(CCM_PREFIX)}"
    anchor = FACV_COUPLINGS.get(scenario)
    return f"echo + {scenario}" + (f" (~FAC-V {anchor})" if anchor else "")


def _pct(value: float) -> str:
    return "-" if value != value else f"{value:+.1f}%"


def table8_section(run: FacvRun) -> Section:
    headers = ["scenario", *TM_TESTS]
    rows = [[_label(s), *(f"{run.tm[s][t].count:,}" for t in TM_TESTS)] for s in run.setup.scenarios]
    rows += [[f"FAC-V {name}", *(f"{v:,}" for v in values)] for name, values in FACV_TABLE_8.items()]
    return (f"Table 8 shape: Thread-Metric iterations per test in {run.setup.period_ticks} ticks "
            f"({run.setup.period_ticks} ms) per scenario, CCM* rows in {run.setup.ccm_period_ticks} ticks; FAC-V "
            "rows: RIOT on Rocket with the FAC-V coprocessor "
            "(their test period), for the shape only", headers, rows)


def table9_section(run: FacvRun) -> Section:
    headers = ["scenario", *TM_TESTS]
    decreases = table9(run)
    rows = [[_label(s), *(_pct(decreases[s][t]) for t in TM_TESTS)] for s in run.setup.scenarios]
    rows += [[f"FAC-V {name}", *(f"{v:+.1f}%" for v in values)] for name, values in FACV_TABLE_9.items()]
    return ("Table 9 shape: relative performance decrease vs echo, (echo - scenario) / echo (negative: more "
            "iterations than echo; CCM* rows vs the CCM* frame echo); FAC-V's rows as printed (their baseline row is echo's decrease vs the "
            "baseline, -(baseline - echo) / baseline)", headers, rows)


def server_load(run: FacvRun, config: SocConfig, scenario: str) -> float:
    """The share of the processor the server takes: its mean cycles per packet over a packet interval."""
    interval = run.setup.packet_ticks_of(scenario) * config.clock_hz / TICK_RATE_HZ
    return run.packets[scenario].server_mean / interval * 100.0


def _frame_note(setup: Setup) -> str:
    return (f"an IEEE 802.15.4 data frame of {setup.ccm_frame_bytes} bytes on air ({setup.ccm_header_bytes}-byte "
            f"MAC header with its auxiliary security header, authenticated; the {setup.ccm_payload_bytes}-byte "
            f"message encrypted; {setup.ccm_mic_bytes}-byte MIC; {FCS_BYTES}-byte FCS left to the radio), CCM* "
            f"security level {setup.ccm_level}, AES-{setup.ccm_key_bits}")


def packets_section(run: FacvRun, config: SocConfig) -> Section:
    headers = ["scenario", "packets", "replies", "deadline misses", "lost", "errors", "replies checked",
               "check failures", "forged refused", "server cycles/packet (mean)", "max", "speed-up vs soft",
               "server load"]
    rows = []
    for s in run.setup.scenarios[1:]:
        p = run.packets[s]
        soft = run.packets.get(run.setup.soft_of(s))
        speed = f"{soft.server_mean / p.server_mean:,.1f}x" if soft and p.server_mean and s not in (ECHO, CCM_ECHO) \
            else "-"
        forged = f"{p.refused}/{p.forged}" if p.forged else "-"
        rows.append([_label(s), str(p.packets), str(p.replies), str(p.misses), str(p.lost), str(p.errors),
                     str(p.checked), str(p.check_failures), forged, f"{p.server_mean:,.0f}", f"{p.server_max:,}",
                     speed, f"{server_load(run, config, s):.1f}%"])
    return (f"Packets per scenario: {run.setup.packet_bytes}-byte AES-{run.setup.key_bits}-CBC messages every "
            f"{run.setup.packet_ticks} ticks; CCM* rows: {_frame_note(run.setup)}, one every "
            f"{run.setup.ccm_packet_ticks} ticks. Server cycles from taking "
            f"a packet to queueing the reply; speed-up vs the same variant's soft; one reply in "
            f"{run.setup.check_every} checked with the soft backend after the scenario; forged: frames with one bit "
            "flipped handed to the server before the CCM* scenario", headers, rows)


def variants_section(run: FacvRun, config: SocConfig) -> Section:
    headers = ["backend", "CBC server cycles/packet", "CCM* server cycles/packet", "CCM* / CBC",
               "CBC server load", "CCM* server load", "CBC decrease vs echo (mean)", "CCM* decrease vs echo (mean)"]
    rows = []
    for b in (ECHO, *run.setup.backends):
        cbc, ccm = run.packets[b].server_mean, run.packets[CCM_PREFIX + b].server_mean
        rows.append([b if b != ECHO else "echo (no AES)", f"{cbc:,.0f}", f"{ccm:,.0f}",
                     f"{ccm / cbc:.2f}x" if cbc else "-", f"{server_load(run, config, b):.1f}%",
                     f"{server_load(run, config, CCM_PREFIX + b):.1f}%", _pct(mean_decrease(run, b)),
                     _pct(mean_decrease(run, CCM_PREFIX + b))])
    s = run.setup
    return (f"CBC beside CCM* per backend: {s.packet_bytes}-byte AES-{s.key_bits}-CBC message every "
            f"{s.packet_ticks} ticks (decrypt, encrypt: {2 * -(-s.packet_bytes // 16)} blocks) vs {_frame_note(s)}, "
            f"one every {s.ccm_packet_ticks} ticks; Thread-Metric decrease vs the variant's echo averaged over the "
            "eight tests", headers, rows)


def goals(run: FacvRun) -> list[list[str]]:
    rows = []
    for s in run.setup.scenarios[1:]:
        p = run.packets[s]
        bad = p.lost + p.errors + p.check_failures + (p.packets - p.replies)
        rows.append(goal_row("every packet answered, every reply checked right", s, bad, 0,
                             "FAC-V: the client validates the echo"))
    for s in run.setup.ccm_backend_scenarios:
        p = run.packets[s]
        rows.append(goal_row("every forged frame refused (bad MIC)", s, p.forged - p.refused, 0,
                             "IEEE 802.15.4: a frame whose MIC fails is discarded"))
    for s in (*run.setup.backends, *run.setup.ccm_backend_scenarios):
        soft = run.packets.get(run.setup.soft_of(s))
        if soft is None or s == run.setup.soft_of(s):
            continue
        mean = run.packets[s].server_mean
        row = goal_row("server cycles/packet below soft's", s, mean, soft.server_mean,
                       "FAC-V: every coupling beats SW")
        rows.append([row[0], row[1], row[2], f"< {soft.server_mean:,.0f}", "met" if mean < soft.server_mean else
                     "NOT met", row[5]])
    return rows


# ----------------------------------------------------------------------------- report


def report_data(config: SocConfig, run: FacvRun, variant: str) -> dict[str, Any]:
    return {
        "config": config.name,
        "clock_hz": config.clock_hz,
        "kernel": variant,
        **{k: v for k, v in run.setup.__dict__.items() if k != "backends"},
        "backends": list(run.setup.backends),
        "scenarios": list(run.setup.scenarios),
        "thread_metric": {s: {t: r.as_json() for t, r in tests.items()} for s, tests in run.tm.items()},
        "table8": {s: {t: r.count for t, r in tests.items()} for s, tests in run.tm.items()},
        "table9_decrease_vs_echo_pct": table9(run),
        "packets": {s: p.as_json() for s, p in run.packets.items()},
        "server_load_pct": {s: server_load(run, config, s) for s in run.setup.scenarios[1:]},
        "ccm_scenarios": list(run.setup.ccm_scenarios),
        "decrease_reference": {s: run.setup.echo_of(s) for s in run.setup.scenarios},
        "cbc_vs_ccm": {b: {"cbc_server_mean": run.packets[b].server_mean,
                           "ccm_server_mean": run.packets[CCM_PREFIX + b].server_mean,
                           "cbc_mean_decrease_pct": mean_decrease(run, b),
                           "ccm_mean_decrease_pct": mean_decrease(run, CCM_PREFIX + b)}
                       for b in (ECHO, *run.setup.backends)},
        "facv_table8": {name: dict(zip(TM_TESTS, values)) for name, values in FACV_TABLE_8.items()},
        "facv_table9_pct": {name: dict(zip(TM_TESTS, values)) for name, values in FACV_TABLE_9.items()},
        "simulation": run.sim or {},
    }


def report_stem(config: SocConfig, variant: str) -> str:
    return f"bench-facv-{config.name}" + ("" if variant == "sw" else f"-{variant}")


def plot(run: FacvRun, path: Path) -> None:
    """Table 9's shape as bars, for the scenarios FAC-V has (the CCM* rows are in the tables)."""
    decreases = table9(run)
    series = {_label(s): [decreases[s][t] for t in TM_TESTS] for s in run.setup.scenarios
              if s != ECHO and s not in run.setup.ccm_scenarios}
    bench_report.bar_plot(path, list(TM_TESTS), series, "Thread-Metric decrease vs echo (FAC-V Table 9 shape)",
                          "decrease vs echo (%)", log_scale=False, label_rotation=30)


def publish(config: SocConfig, run: FacvRun, variant: str) -> Path:
    s = run.setup
    intro = [
        f"# FAC-V packet echo under Thread-Metric, configuration '{config.name}' "
        f"({config.clock_hz / 1e6:g} MHz, FreeRTOS kernel '{variant}')\n",
        "fw/rtos/apps/facv_echo (FAC-V section 4.3): a source task at the highest priority hands the server "
        f"an {s.packet_bytes}-byte AES-{s.key_bits}-CBC message every {s.packet_ticks} ticks; the server "
        "(above the Thread-Metric tasks) decrypts it, checks its magic, sequence and checksum, marks it as a "
        "reply, increments a field, re-encrypts and hands it back. Every scenario runs the whole "
        f"Thread-Metric-equivalent suite ({s.period_ticks} ticks per test): baseline (no packets), echo (no "
        f"crypto), then echo with each AES backend ({', '.join(s.backends)}). docs/bench_rtos.md explains "
        "the tables. FAC-V's rows are RIOT on Rocket over a real 6LoWPAN/UDP stack (whose cost is most of "
        "their echo row): compare shapes and ratios, not counts.\n",
        f"The CCM* rows (`{CCM_PREFIX}<backend>`) carry the same message the way an 802.15.4 node protects it: "
        f"{_frame_note(s)}; nonce: source address, frame counter, level. The server checks the header, verifies "
        "the MIC and decrypts (couplet_aes_ccm_star_decrypt; a bad MIC is an error), changes the message, swaps "
        "the addresses, increments the frame counter and secures the reply (couplet_aes_ccm_star_encrypt). "
        f"They send a frame every {s.ccm_packet_ticks} ticks (about what a 250 kbit/s radio carries at this "
        f"length) and run {s.ccm_period_ticks} ticks per test, so their decrease is relative to their own echo, "
        f"`{CCM_ECHO}` (the same frames in clear). Before each CCM* scenario with a backend the server is handed "
        "frames with one bit flipped (MIC, ciphertext, header), which it must refuse.\n",
    ]
    sections = [table8_section(run), table9_section(run), packets_section(run, config),
                variants_section(run, config)]
    stem = report_stem(config, variant)
    json_path, md_path = bench_report.publish(stem, intro, sections, goals(run), report_data(config, run, variant))
    png = bench_report.plot_path(stem)
    plot(run, png)
    log_path = reports_dir() / f"{stem}.log"
    log_path.write_text(run.console)
    log.info(f"written {json_path}, {md_path}, {png.name} and the firmware console {log_path.name}")
    return json_path


def run(config: SocConfig, kernels: Sequence[str] | None = None) -> int:
    variants = list(dict.fromkeys(kernels or ["sw"]))
    if len(variants) != 1:
        raise CoupletError(f"bench facv runs one kernel variant at a time (got {', '.join(variants)})")
    variant = variants[0]
    if variant not in freertos.VARIANTS:
        raise CoupletError(f"unknown kernel variant {variant} (known: {', '.join(freertos.VARIANTS)})")
    kernel = freertos.VARIANTS[variant]
    kernel.check(config)
    limit = kernel.max_tasks(config)
    tasks = freertos.kernel_tasks() + FACV_APP_TASKS
    if limit is not None and limit < tasks:
        raise CoupletError(
            f"{APP} runs {tasks} tasks at once (the kernel's {freertos.kernel_tasks()}, its controller, the packet "
            f"source, the server and the Thread-Metric suite's 5), and the {variant} kernel on '{config.name}' "
            f"holds {limit} (the RTOS accelerator's threads): use --kernel sw, or a configuration with "
            f"[accelerator.rtos] max_threads >= {tasks}"
        )
    log.info(f"building the simulation model of '{config.name}'")
    simbuild.build_sim(config)
    log.info(f"building {APP} ({variant} kernel)")
    elf = freertos.build_rtos_app(config, APP, variant)
    log.info(f"simulating {APP}: every scenario runs the Thread-Metric suite (about 32 M cycles, 5 min)")
    result = bench_report.simulate_firmware(config, elf, f"{APP} on the {variant} kernel", MAX_CYCLES)
    console = result.console or ""
    facv = parse(console)
    facv.console = console
    facv.sim = {"cycles": result.cycles, "seconds": result.seconds}
    publish(config, facv, variant)
    return 0
