"""Shared fixtures: the default configuration, its simulator (built once) and app runners."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from couplet.model.config import SocConfig, load_config
from couplet.tools import firmware, simbuild, simulator
from couplet.tools.cocotb_run import regression_seed
from couplet.tools.simulator import SimResult


@pytest.fixture()
def rng() -> random.Random:
    """Random for a host test, from COUPLET_TEST_SEED when set (the seed is printed to rerun it)."""
    return random.Random(regression_seed())


@pytest.fixture(scope="session")
def config() -> SocConfig:
    return load_config("default")


@pytest.fixture(scope="session")
def sim_binary(config: SocConfig) -> Path:
    return simbuild.build_sim(config)


@pytest.fixture(scope="session")
def build_app(config: SocConfig) -> Callable[[str], Path]:
    def build(app: str) -> Path:
        return firmware.build_app(config, app)

    return build


@pytest.fixture(scope="session")
def run_app(config: SocConfig, sim_binary: Path, build_app: Callable[[str], Path]) -> Callable[..., SimResult]:
    def run(app: str, max_cycles: int = 20_000_000) -> SimResult:
        return simulator.simulate(config, build_app(app), max_cycles=max_cycles, capture=True)

    return run


def run_couplet(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The `couplet` command as a user runs it (same interpreter, so the venv's packages)."""
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "couplet", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900
    )


def run_rtos_events(app: str, kernel: str, prefix: str, max_cycles: int) -> list[str]:
    """Runs a FreeRTOS app that records events and prints them at the end, each line starting
    with `prefix`, then "<app>: <n> events". The run must exit 0 and fail no check. Returns the
    event lines, in order."""
    proc = run_couplet("rtos", "run", app, "--kernel", kernel, "--max-cycles", str(max_cycles))
    console = proc.stdout
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{console}\n{proc.stderr}"
    assert "FAIL" not in console, console
    lines = [line for line in console.splitlines() if line.startswith(prefix)]
    assert f"{app}: {len(lines)} events" in console.splitlines(), console
    return lines


def run_rtos_checks(app: str, kernel: str, header: str, max_cycles: int) -> list[str]:
    """Runs a FreeRTOS test app (fw/rtos/apps/common/couplet_rtos_check.h's lines) on the SoC
    with `kernel`: it must exit 0, print `header` first, fail no check and say so at the end.
    Returns the names of the checks it passed, in order."""
    proc = run_couplet("rtos", "run", app, "--kernel", kernel, "--max-cycles", str(max_cycles))
    console = proc.stdout
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{console}\n{proc.stderr}"
    assert console.startswith(header + "\n"), console
    assert "FAIL" not in console and f"{app}: 0 failed" in console, console
    return [line.removeprefix("ok ") for line in console.splitlines() if line.startswith("ok ")]
