"""`couplet bench sim` measures and writes its report (speed goals live in the report)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_couplet

from couplet import paths


def test_bench_sim_writes_report(sim_binary: Path) -> None:
    proc = run_couplet("bench", "sim", "--runs", "1")
    assert proc.returncode == 0, proc.stderr
    assert "M cycles/s" in proc.stdout
    data = json.loads((paths.BUILD_DIR / "reports" / "bench-sim-default.json").read_text())
    assert data["cycles_per_run"] > 1_000_000
    assert len(data["cycles_per_second"]) == 1 and data["mean"] > 0
    assert (paths.BUILD_DIR / "reports" / "bench-sim-default.md").read_text().startswith("# Simulation speed")
