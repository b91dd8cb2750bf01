"""What the two RTOS benches share: the Thread-Metric-equivalent tests, the line each reports
(`tm <test> count=.. ticks=.. cycles=.. tasks=..`) and its parsed result."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from couplet.errors import CoupletError

TM_TESTS = ("basic", "cooperative", "preemptive", "interrupt", "interrupt-preemption", "message",
            "synchronization", "memory")

TM_LINE = re.compile(
    r"^tm (?P<name>[a-z-]+) count=(?P<count>\d+) ticks=(?P<ticks>\d+) cycles=(?P<cycles>\d+) "
    r"tasks=(?P<tasks>\d+(?:,\d+)*)$")


class ParseError(CoupletError):
    """The firmware's output is not what the bench expects."""


@dataclass(frozen=True)
class TmResult:
    count: int
    ticks: int
    cycles: int
    tasks: tuple[int, ...]

    @property
    def cycles_per_iteration(self) -> float:
        return self.cycles / self.count if self.count else float("inf")

    def as_json(self) -> dict[str, Any]:
        return {"count": self.count, "ticks": self.ticks, "cycles": self.cycles, "tasks": list(self.tasks),
                "cycles_per_iteration": self.cycles_per_iteration}
