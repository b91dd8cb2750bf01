"""Benchmark consoles rewritten for the bench flows' tests: a flow must refuse a tampered result."""

from __future__ import annotations

from collections.abc import Callable


def tamper(console: str, name: str, replace: Callable[[str], str | None]) -> str:
    """The console with every result line named `name` rewritten (None drops it)."""
    lines = []
    for line in console.splitlines():
        if line.startswith(f"result {name} "):
            new = replace(line)
            if new is not None:
                lines.append(new)
        else:
            lines.append(line)
    return "\n".join(lines)
