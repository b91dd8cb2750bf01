"""The end of a crypto test app's run (sw/apps/test_aes, sw/apps/test_sha3): it exited 0, printed
no FAIL, and one summary line per backend, "backend NAME  <counts> ... ok"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from couplet.tools.simulator import SimResult


def backend_counts(result: SimResult, backends: Sequence[str], summary: str) -> dict[str, list[int]]:
    """Each backend's numbers in its summary line, whose text after the name matches `summary`."""
    console = result.console or ""
    assert result.status == "exit" and result.exit_code == 0, console
    counts = {}
    for backend in backends:
        line = re.search(rf"^backend {backend}\s+{summary}$", console, flags=re.M)
        assert line, f"no passing summary for backend {backend}:\n{console}"
        counts[backend] = [int(number) for number in line.groups()]
    assert "FAIL" not in console
    return counts
