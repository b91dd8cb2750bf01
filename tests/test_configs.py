"""A second configuration drives the RTL, SDK and linker script: firmware runs on it unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import run_couplet

from couplet.errors import EXIT_TOOL_ERROR
from couplet.model.config import SocConfig, load_config
from couplet.tools import firmware, simbuild, simulator


@pytest.fixture(scope="module")
def small() -> SocConfig:
    config = load_config("small")
    simbuild.build_sim(config)
    return config


def test_configs_small_differs_from_default(small: SocConfig, config: SocConfig) -> None:
    assert small.sram.base != config.sram.base and small.sram.size < config.sram.size
    assert small.mtime_hz != config.mtime_hz


@pytest.mark.parametrize("app", ["test_timer_irq", "test_bus_error", "test_counters"])
def test_configs_small_runs_firmware(small: SocConfig, app: str) -> None:
    result = simulator.simulate(small, firmware.build_app(small, app), max_cycles=20_000_000, capture=True)
    assert result.exit_code == 0, result.console
    assert f"{app}: PASS" in (result.console or "")


def test_configs_small_banner_shows_its_sram(small: SocConfig) -> None:
    result = simulator.simulate(small, firmware.build_app(small, "demo"), capture=True)
    assert result.exit_code == 0, result.console
    assert "couplet demo on SoC 'small'" in (result.console or "")
    assert "64 KiB SRAM" in (result.console or "") and "mtime at 1 MHz" in (result.console or "")


def test_configs_elf_for_another_config_is_refused(small: SocConfig, build_app: Callable[[str], Path]) -> None:
    default_elf = build_app("test_exit_code")  # linked for 0x8000_0000
    proc = run_couplet("sim", "-c", "small", str(default_elf))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "does not fit the SRAM [0x20000000, 0x20010000) of configuration 'small'" in proc.stderr
