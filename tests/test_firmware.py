"""System tests: firmware from sw/apps/ running on the whole SoC in the Verilator model."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from couplet.errors import EXIT_TIMEOUT
from couplet.simulator import SimResult

RunApp = Callable[..., SimResult]

SELF_CHECKING_APPS = [
    "test_isa",
    "test_counters",
    "test_timer_irq",
    "test_soft_irq",
    "test_bus_error",
]


@pytest.mark.parametrize("app", SELF_CHECKING_APPS)
def test_firmware_self_checking(run_app: RunApp, app: str) -> None:
    result = run_app(app)
    assert result.status == "exit", f"{app} did not finish:\n{result.console}"
    assert result.exit_code == 0, f"{app} failed with exit code {result.exit_code}:\n{result.console}"
    assert "PASS" in (result.console or ""), result.console
    assert result.instret > 0 and result.cycles >= result.instret


def test_firmware_printf_output_is_exact(run_app: RunApp) -> None:
    result = run_app("test_printf")
    assert result.exit_code == 0, result.console
    # The text sw/apps/test_printf/main.c promises in its header comment.
    expected = (
        "hello from couplet\n"
        "int -42 unsigned 4294967254 hex deadbeef string couplet char Z\n"
        "padded [   7] [0007] [7   ] [-7]\n"
        "64-bit 18446744073709551615 -9223372036854775808\n"
        "done\n"
    )
    assert result.console == expected


def test_firmware_exit_code_reaches_the_process(run_app: RunApp) -> None:
    result = run_app("test_exit_code")
    assert result.status == "exit"
    assert result.exit_code == 42


def test_firmware_runaway_is_stopped(run_app: RunApp) -> None:
    result = run_app("test_runaway", max_cycles=200_000)
    assert result.status == "timeout"
    assert result.exit_code == EXIT_TIMEOUT
    assert result.cycles == 200_000
    assert "spinning" in (result.console or "")
