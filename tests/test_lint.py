"""Lint: our RTL is clean under Verilator -Wall, and the waivers do not hide our own code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from couplet import paths
from couplet.flows import lint
from couplet.model import rtl
from couplet.model.config import load_config

SHIPPED_CONFIGS = sorted(p.stem for p in paths.CONFIGS_DIR.glob("*.toml"))
# The FPGA tops (the ULX3S board top with its generated PLL, couplet_fmax_tile around each tile)
# are linted over the board's configuration and the default one (every coupling of every tile);
# the others differ from these only inside the SoC, which every configuration's lint covers.
FPGA_LINT_CONFIGS = ("default", "ulx3s")


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_lint_rtl_is_clean(name: str) -> None:
    """Each shipped config elaborates different generate branches (no tiles, one, two). The formal
    checks' harnesses (`couplet prove`) are the same in every config: linted with the default one."""
    assert lint.lint(load_config(name), fpga=name in FPGA_LINT_CONFIGS, formal=name == "default") == 0


def test_lint_covers_the_fpga_tops() -> None:
    """The board top is linted with ecppll's PLL module, and each tile of the config as a tile."""
    config = load_config("ulx3s")
    board_cmd = lint.board_lint_command(config, "ulx3s")
    assert board_cmd[board_cmd.index("--top-module") + 1] == "couplet_ulx3s"
    pll = next(a for a in board_cmd if a.endswith("couplet_ulx3s_pll.v"))
    assert "EHXPLLL" in Path(pll).read_text()  # the generated module, not a stand-in
    assert any(a.endswith("cv32e40x_clock_gate.sv") and "/fpga/" in a for a in board_cmd)
    tiles = lint.fmax_tile_lint_commands(config)
    assert [name for name, _ in tiles] == ["aes", "keccak", "rtos"]
    assert all(cmd[cmd.index("--top-module") + 1] == "couplet_fmax_tile" for _, cmd in tiles)


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


# IPs linted with their own top for the parameter values their tests build that no shipped
# config uses (`couplet lint` only sees what a SoC uses), with just the files that top needs
# (rtl.module_sources). Accelerators import the coupling layer's types and instantiate its
# responder, front end and port checker, which live in the accel IP.
STANDALONE_TOPS = [
    *(("keccak", "couplet_keccak_core", [f"-GRoundsPerCycle={r}"]) for r in (1, 2, 24)),
    ("keccak", "couplet_keccak_ise", []),
    *(("keccak", "couplet_keccak", [f"-GRoundsPerCycle={r}"]) for r in (1, 24)),
    # The AES build options with each datapath (KeySizes: bit i is key length i; aes128_enc
    # covers rolled, encrypt-only, AES-128 in a SoC).
    *(("aes", "couplet_aes", [f"-GArch=2'd{arch}", "-GDecrypt=1'b0", f"-GKeySizes=3'b{sizes:03b}"])
      for arch in (0, 1, 2) for sizes in (1, 4, 5)),
]


@pytest.mark.parametrize(("ip", "top", "params"), STANDALONE_TOPS)
def test_lint_standalone_ip_is_clean(ip: str, top: str, params: list[str]) -> None:
    sources = [*rtl.accel_port_sources(), *rtl.module_sources(ip, top)]
    command = lint.verilator_command(top, sources, [], params)
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "%Warning" not in output and "%Error" not in output, output


@pytest.mark.parametrize("param", ["-GMaxThreads=17", "-GNumQueue=0", "-GQueueDepth=9"])
def test_rtos_engine_refuses_parameters_outside_its_description(param: str) -> None:
    # The ranges reach the RTL from hw/ip/rtos/data/rtos.toml (rtos_reg_pkg RTOS_PARAM_*).
    sources = [*rtl.accel_port_sources(), *rtl.ip_sources("rtos")]
    command = lint.verilator_command("couplet_rtos", sources, [], [param])
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    assert proc.returncode != 0 and "parameter out of range (hw/ip/rtos/data/rtos.toml)" in proc.stdout + proc.stderr
