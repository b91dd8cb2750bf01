"""System tests: firmware from sw/apps/ running on the whole SoC in the Verilator model."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from couplet.errors import EXIT_TIMEOUT
from couplet.tools.simulator import SimResult

RunApp = Callable[..., SimResult]

SELF_CHECKING_APPS = [
    "test_isa",
    "test_counters",
    "test_timer_irq",
    "test_soft_irq",
    "test_bus_error",
    "test_xif_hazard",
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
        "test_printf: console and printf\n"
        "hello from couplet\n"
        "printf: -42 42 beef couplet Z\n"
        "widths: [   42] [42   ] [00042] [  -7]\n"
        "hex: 0xdeadbeef DEADBEEF 0x0000002a\n"
        "64-bit: 1234567890123 -9223372036854775808 ffffffffffffffff\n"
        "strings: [abc] [  abc] [abc  ] [ab]\n"
        "char and percent: A 100%\n"
        "puts adds a newline\n"
        "raw console: 0x12345678 4294967295\n"
        'snprintf: "n=17" returned 4\n'
        "test_printf: PASS\n"
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


def test_firmware_unhandled_trap_ends_the_program(run_app: RunApp) -> None:
    """A bus error with no handler is reported and ends the run instead of hanging it."""
    result = run_app("test_unhandled_trap")
    assert result.status == "exit"
    assert result.exit_code == 224, result.console  # the SDK's code for an unhandled load NMI
    assert "unhandled NMI 1024" in (result.console or "")
    assert "mcause=0x80000400" in (result.console or "")
