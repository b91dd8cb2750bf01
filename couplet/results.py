"""Parsing what firmware prints and writing reports (JSON and Markdown) to build/reports/."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import paths

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
