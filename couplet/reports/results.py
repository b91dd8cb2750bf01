"""Parsing what firmware prints and writing reports (JSON and Markdown) to build/reports/."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import paths
from couplet.tools.yosys_stats import Resources

# Firmware reports a measurement as: result <name> cycles=<N> instret=<M> check=<0xHEX>
RESULT_LINE = re.compile(r"^result (?P<name>\S+) cycles=(?P<cycles>\d+) instret=(?P<instret>\d+) check=(?P<check>0x[0-9a-fA-F]+)\s*$")


@dataclass(frozen=True)
class Measurement:
    name: str
    cycles: int
    instret: int
    check: str


def parse_results(console: str) -> list[Measurement]:
    found = []
    for line in console.splitlines():
        match = RESULT_LINE.match(line)
        if match:
            found.append(
                Measurement(match["name"], int(match["cycles"]), int(match["instret"]), match["check"].lower())
            )
    return found


def reports_dir() -> Path:
    out = paths.BUILD_DIR / "reports"
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_report(stem: str, data: dict[str, Any], markdown: str) -> tuple[Path, Path]:
    out = reports_dir()
    json_path = out / f"{stem}.json"
    md_path = out / f"{stem}.md"
    json_path.write_text(json.dumps(data, indent=2) + "\n")
    md_path.write_text(markdown)
    return json_path, md_path


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def fmt(value: float) -> str:
    return f"{value:,.1f}" if value % 1 else f"{value:,.0f}"


def resource_cells(r: Resources) -> list[str]:
    return [fmt(r.luts), fmt(r.ffs), fmt(r.lutram), fmt(r.bram), fmt(r.dsps)]


RESOURCE_HEADERS = ["LUTs", "FFs", "LUT RAM", "BRAM", "DSP"]


def message(length: int) -> bytes:
    """The firmware's message: byte i = (7i + 3) mod 256."""
    return bytes((7 * i + 3) & 0xFF for i in range(length))


def fnv1a(data: bytes) -> int:
    """couplet_bench_fnv1a (couplet/bench.h) on the host: the check value of a result line."""
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h
