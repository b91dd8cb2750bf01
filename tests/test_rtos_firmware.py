"""FreeRTOS on the SoC: fw/rtos/ built through cargo and freertos-build, run in the Verilator model.

One simulation: `couplet rtos run test_kernel`, whose check lines must be exactly the ones listed
below, in order (the checks docs/rtos.md describes). The other tests only build.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from conftest import run_couplet

from couplet import rtos_fw
from couplet.config import SocConfig
from couplet.errors import EXIT_TOOL_ERROR, BuildError

EXPECTED_CHECKS = [
    "priority: lower tasks wait while a higher one runs",
    "priority: all tasks ran",
    "priority: higher priority runs first",
    "round robin: both tasks finished",
    "round robin: taskYIELD alternates equal priorities",
    "suspend: vTaskSuspend(NULL) suspends the caller",
    "suspend: a suspended task does not run",
    "resume: vTaskResume makes it ready",
    "resume: a resumed task runs again",
    "suspend: vTaskSuspend of another task",
    "suspend: the other task stops running",
    "resume: the other task runs again",
    "mutex: the low task holds it",
    "mutex: take with timeout 0 fails while held",
    "mutex: holder at its own priority before contention",
    "mutex: contender blocks",
    "mutex: priority inheritance raises the holder",
    "mutex: both tasks finished",
    "mutex: the contender gets it after the give",
    "mutex: holder priority returns after the give",
    "mutex: handover order",
    "semaphore: take with timeout 0 on empty fails",
    "semaphore: gives count up to the maximum",
    "semaphore: takes count down to empty",
    "semaphore: taker blocks on empty",
    "semaphore: a give wakes the waiting task",
    "semaphore: the woken task consumed the give",
    "queue: send with timeout 0 fails when full",
    "queue: receive with timeout 0 fails when empty",
    "queue: messages arrive intact and in order",
    "queue: receiver blocks on empty",
    "queue: a send wakes the receiver with the data",
    "delay: vTaskDelay(3) lets exactly 3 ticks pass",
]


def _cargo_outputs(config: SocConfig, app: str) -> list[Path]:
    """The kernel library build.rs made and the linked binary: rebuilt means newer."""
    out = rtos_fw.target_dir(config, app, rtos_fw.VARIANTS["sw"]) / rtos_fw.RUST_TARGET / "release"
    libraries = sorted(out.glob("build/couplet-rtos-*/out/libfreertos.a"))
    assert libraries, f"build.rs left no libfreertos.a under {out}"
    return [*libraries, out / rtos_fw.BINARY_NAME]


def test_rtos_test_kernel_passes_on_the_soc(sim_binary: Path) -> None:
    proc = run_couplet("rtos", "run", "test_kernel", "--max-cycles", "6000000")
    console = proc.stdout
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{console}\n{proc.stderr}"
    assert console.startswith("test_kernel: FreeRTOS V11.2.0, 8 priorities, tick 1000 Hz\n"), console
    ok_lines = [line.removeprefix("ok ") for line in console.splitlines() if line.startswith("ok ")]
    assert ok_lines == EXPECTED_CHECKS, console
    assert "FAIL" not in console
    assert "test_kernel: 0 failed" in console


def test_rtos_second_build_does_not_recompile(config: SocConfig) -> None:
    elf = rtos_fw.build_rtos_app(config, "test_kernel")
    outputs = _cargo_outputs(config, "test_kernel")
    before = [p.stat().st_mtime_ns for p in [elf, *outputs]]
    start = time.monotonic()
    again = rtos_fw.build_rtos_app(config, "test_kernel")
    seconds = time.monotonic() - start
    assert again == elf
    assert [p.stat().st_mtime_ns for p in [elf, *outputs]] == before, "the second build recompiled or relinked"
    assert seconds < 5.0, f"a build with nothing changed took {seconds:.1f} s"


def test_rtos_unknown_app_is_a_clear_error(config: SocConfig) -> None:
    with pytest.raises(BuildError, match=r"no FreeRTOS app 'no_such_app' in fw/rtos/apps/ \(known: .*test_kernel"):
        rtos_fw.build_rtos_app(config, "no_such_app")
    # The glue folder is not an app either.
    with pytest.raises(BuildError, match="no FreeRTOS app 'common'"):
        rtos_fw.build_rtos_app(config, "common")
    proc = run_couplet("rtos", "build", "no_such_app")
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "no FreeRTOS app 'no_such_app'" in proc.stderr


def test_rtos_unknown_kernel_variant_is_a_clear_error(config: SocConfig) -> None:
    with pytest.raises(BuildError, match="no FreeRTOS kernel variant 'nope' .*known: sw"):
        rtos_fw.build_rtos_app(config, "test_kernel", variant="nope")


def test_rtos_heap_fills_the_sram_left_over(config: SocConfig) -> None:
    # The default SoC: 256 KiB SRAM, 8 KiB start-up stack, 48 KiB for the program.
    assert rtos_fw.heap_size(config) == (256 - 8 - 48) * 1024
    tiny = dataclasses.replace(config, name="tiny", sram=dataclasses.replace(config.sram, size=48 * 1024))
    with pytest.raises(BuildError, match="no room for a FreeRTOS heap"):
        rtos_fw.heap_size(tiny)
