"""The FreeRTOS API on every kernel variant, and FreeRTOS apps from a folder of their own.

`test_api` (fw/rtos/apps/test_api) runs once per kernel variant: its check lines must be exactly
the ones below, in order, on each (the hardware kernels serve the same API with the same
results, and add "hw:" checks: their accelerator serves test_api's timer queue and its
statically allocated objects). The other
tests build apps written into a temporary folder (docs/rtos-app.md): one with its own
FreeRTOSConfig_app.h runs on the SoC, the rest check the errors for a folder that is not an app
and for a setting a kernel variant cannot serve.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_couplet, run_rtos_checks

from couplet import paths
from couplet.errors import BuildError, EXIT_TOOL_ERROR
from couplet.model.config import SocConfig
from couplet.tools import freertos

KERNELS = ["sw", "hw-tight", "hw-mmio"]

API_CHECKS = [
    "delay until: wakes every 4 ticks exactly, whatever ran in between",
    "delay until: a wake time already past returns pdFALSE at once",
    "delay until: vTaskDelayUntil keeps the period after an overrun",
    "hw: the timer queue is one of the accelerator's queues",
    "timer: the timer service task exists, at its priority, waiting",
    "timer: one-shot and auto-reload fire at their ticks, in the timer task, until stopped",
    "timer: xTimerReset and xTimerChangePeriod restart the period",
    "timer: xTimerPendFunctionCall runs the function in the timer task",
    "event group: a wait for all bits wakes at the last one and clears them",
    "event group: a wait for any bit times out after its ticks with the bits there",
    "event group: xEventGroupSync releases all three tasks together and clears the bits",
    "event group: bits set from an ISR wake the waiter through the timer task",
    "stream buffer: a blocked receiver wakes at the trigger level with the bytes in order",
    "stream buffer: a send stores what fits, receives take bytes in order, empty gives 0",
    "stream buffer: send and receive from an ISR, and a reset empties it",
    "message buffer: messages keep their bounds; one too long for the buffer stays",
    "message buffer: a send wakes the blocked receiver with the whole message",
    "notify: a wait on one index ignores the others and wakes on its own",
    "notify: each index keeps its own value and state",
    "notify: set without overwrite fails while pending; bits accumulate per index",
    "abort delay: a delay and waits on a queue, a semaphore and a mutex end at once, failed",
    "abort delay: the holder inherits while the waiter waits, not after the abort",
    "abort delay: the objects keep a later send and give; a task not blocked is not aborted",
    "static: a task, a queue, semaphores and a mutex in the app's own memory work as the others",
    "hw: the static queue, semaphores and mutex are the accelerator's",
    "static: deleted and made again in the same memory, they work",
]


@pytest.mark.parametrize("kernel", KERNELS)
def test_rtos_api_on_every_kernel(sim_binary: Path, kernel: str) -> None:
    # The app's FreeRTOSConfig_app.h sets the tick; the tree's configuration the indexes.
    passed = run_rtos_checks("test_api", kernel, "test_api: FreeRTOS V11.2.0, tick 2000 Hz, 3 notification indexes",
                             4_000_000)
    assert passed == [c for c in API_CHECKS if kernel != "sw" or not c.startswith("hw: ")]


# An app of one's own: a 500 Hz tick set by its FreeRTOSConfig_app.h (the tree's is 1000 Hz), a
# delay in milliseconds measured against mtime, and a software timer. Its exit code says what
# went wrong (0: nothing).
MY_APP = r"""
#include <stdio.h>
#include <stdlib.h>

#include <couplet/timer.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "task.h"
#include "timers.h"

static volatile int fired;

static void on_timer(TimerHandle_t timer) {
  (void)timer;
  fired++;
}

static void main_task(void *arg) {
  (void)arg;
  TimerHandle_t timer = xTimerCreate("t", pdMS_TO_TICKS(10), pdFALSE, NULL, on_timer);
  vTaskDelay(1);
  TickType_t ticks = xTaskGetTickCount();
  uint64_t mtime = couplet_timer_now();
  xTimerStart(timer, 0);
  vTaskDelay(pdMS_TO_TICKS(20));
  ticks = xTaskGetTickCount() - ticks;
  uint64_t us = couplet_timer_ticks_to_us(couplet_timer_now() - mtime);
  // Both ends are read a little after a tick (its interrupt, a task switch): they differ by
  // far less than 100 us.
  printf("myapp: tick %u Hz, %lu ticks, %lu ms, timer fired %d\n", (unsigned)configTICK_RATE_HZ,
         (unsigned long)ticks, (unsigned long)((us + 500u) / 1000u), fired);
  exit(ticks == 10 && us > 19900u && us < 20100u && fired == 1 ? 0 : 1);
}

void app_main(void) { xTaskCreate(main_task, "main", 4 * configMINIMAL_STACK_SIZE, NULL, 1, NULL); }
"""


def _write_app(folder: Path, settings: str | None) -> Path:
    folder.mkdir(parents=True)
    (folder / "main.c").write_text(MY_APP)
    if settings is not None:
        (folder / "FreeRTOSConfig_app.h").write_text(settings)
    return folder


TICK_500_HZ = "#undef configTICK_RATE_HZ\n#define configTICK_RATE_HZ 500\n"


@pytest.mark.parametrize("kernel", ["sw", "hw-tight"])
def test_rtos_app_from_a_folder_runs_with_its_own_settings(
    sim_binary: Path, config: SocConfig, tmp_path: Path, kernel: str
) -> None:
    _write_app(tmp_path / "myapp", TICK_500_HZ)
    # A relative path from where the command runs, as on a shell.
    proc = run_couplet("rtos", "run", "myapp", "--kernel", kernel, "--max-cycles", "3000000", cwd=tmp_path)
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert proc.stdout.startswith("myapp: tick 500 Hz, 10 ticks, 20 ms, timer fired 1\n"), proc.stdout
    # Built outside the tree apps' folders, named after its folder.
    elf = freertos.build_rtos_app(config, tmp_path / "myapp", kernel)
    suffix = "" if kernel == "sw" else f"-{kernel}"
    assert elf == paths.config_build_dir(config.name) / "rtos-ext" / f"myapp{suffix}" / "myapp.elf"


def test_rtos_app_of_the_tree_as_a_path_is_the_named_app(config: SocConfig) -> None:
    by_name = freertos.build_rtos_app(config, "hello")
    assert freertos.build_rtos_app(config, freertos.APPS_DIR / "hello") == by_name
    assert by_name.parent == paths.config_build_dir(config.name) / "rtos" / "hello"


def test_rtos_app_folder_that_is_not_an_app_is_a_clear_error(config: SocConfig, tmp_path: Path) -> None:
    with pytest.raises(BuildError, match=r"no FreeRTOS app folder '\S*/missing'"):
        freertos.build_rtos_app(config, tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no C here\n")
    with pytest.raises(BuildError, match=r"FreeRTOS app folder \S*/empty has no \.c or \.S files"):
        freertos.build_rtos_app(config, empty)
    # The glue folder is not an app, given as a path either.
    with pytest.raises(BuildError, match="no FreeRTOS app folder"):
        freertos.build_rtos_app(config, freertos.COMMON_DIR)
    for app in (tmp_path / "missing", empty):
        proc = run_couplet("rtos", "build", str(app))
        assert proc.returncode == EXIT_TOOL_ERROR, proc.stdout + proc.stderr
        assert str(app) in proc.stderr


@pytest.mark.parametrize(
    "settings, where, reason",
    [
        ("#undef configUSE_QUEUE_SETS\n#define configUSE_QUEUE_SETS 1\n", "fw/rtos/FreeRTOSConfig.h",
         "configUSE_QUEUE_SETS is not supported by the hw kernels"),
        # The hw kernels keep no ready lists for uxTaskGetSystemState to walk.
        ("#undef configUSE_TRACE_FACILITY\n#define configUSE_TRACE_FACILITY 1\n", "fw/rtos/kernel_hw/couplet_kernel_hw.h",
         "configUSE_TRACE_FACILITY (uxTaskGetSystemState) walks FreeRTOS's ready lists"),
    ],
    ids=["queue-sets", "trace-facility"],
)
def test_rtos_app_setting_a_kernel_cannot_serve_is_a_clear_error(
    config: SocConfig, tmp_path: Path, settings: str, where: str, reason: str
) -> None:
    app = _write_app(tmp_path / "myapp", settings)
    # The software kernel serves it: the app builds.
    assert freertos.build_rtos_app(config, app, "sw").is_file()
    # The headline names the setting and why, before cargo's account.
    place = rf"\S*/{re.escape(where)}:\d+:\d+"
    headline = rf"^building FreeRTOS app 'myapp' failed: {place}: #error \"kernel_hw: {re.escape(reason)}"
    with pytest.raises(BuildError, match=headline):
        freertos.build_rtos_app(config, app, "hw-tight")
