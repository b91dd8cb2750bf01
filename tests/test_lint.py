"""Lint: our RTL is clean under Verilator -Wall, and the waivers do not hide our own code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from couplet import lint, paths, rtl
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


# IPs built and tested on their own before they join the SoC: linted with their own top and
# each parameter value the tests build, since `couplet lint` only sees what the SoC uses.
STANDALONE_TOPS = [
    *(("keccak", "couplet_keccak_core", [f"-GRoundsPerCycle={r}"]) for r in (1, 2, 24)),
    ("keccak", "couplet_keccak_ise", []),
    *(("keccak", "couplet_keccak", [f"-GRoundsPerCycle={r}"]) for r in (1, 24)),
]
# Accelerators import the coupling layer's types, which live in the accel IP.
STANDALONE_PACKAGES = [paths.IP_DIR / "accel" / "rtl" / "couplet_accel_pkg.sv"]


@pytest.mark.parametrize(("ip", "top", "params"), STANDALONE_TOPS)
def test_lint_standalone_ip_is_clean(ip: str, top: str, params: list[str]) -> None:
    command = [str(paths.verilator_bin()), "--lint-only", "-Wall", "--top-module", top, *params,
               *lint.waiver_files(), *map(str, [*STANDALONE_PACKAGES, *rtl.ip_sources(ip)])]
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "%Warning" not in output and "%Error" not in output, output
