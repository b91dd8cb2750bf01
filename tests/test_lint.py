"""Lint: our RTL is clean under Verilator -Wall, and the waivers do not hide our own code."""

from __future__ import annotations

import subprocess
from pathlib import Path

from couplet import lint, paths
from couplet.config import SocConfig


def test_lint_rtl_is_clean(config: SocConfig) -> None:
    assert lint.lint(config) == 0


def test_lint_waivers_still_report_our_warnings(tmp_path: Path) -> None:
    """A deliberate unused signal in a file of ours must still be reported."""
    bad = tmp_path / "couplet_lint_probe.sv"
    bad.write_text(
        "module couplet_lint_probe (input logic a_i, output logic b_o);\n"
        "  logic never_read;\n  assign never_read = a_i;\n  assign b_o = 1'b0;\nendmodule\n"
    )
    command = [str(paths.verilator_bin()), "--lint-only", "-Wall", *lint.waiver_files(), str(bad)]
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    assert proc.returncode != 0
    assert "UNUSEDSIGNAL" in proc.stderr and "never_read" in proc.stderr
