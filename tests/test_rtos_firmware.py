"""FreeRTOS on the SoC: fw/rtos/ built through cargo and freertos-build, run in the Verilator model.

Simulations: `couplet rtos run test_kernel`, `test_task_limit` and `test_sync_hw` once per kernel
variant (the software kernel and the two hardware-kernel ones of fw/rtos/kernel_hw), whose check
lines must be exactly the ones listed below, in order (the checks docs/rtos.md describes). The other tests
only build.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_couplet, run_rtos_checks

from couplet import paths
from couplet.errors import BuildError, EXIT_TOOL_ERROR
from couplet.model.config import SocConfig, load_config
from couplet.tools import freertos

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


KERNELS = ["sw", "hw-tight", "hw-mmio"]
HW_KERNELS = [k for k in KERNELS if k != "sw"]
# Nodes of the accelerator's thread table the kernel itself takes: the idle task, and the timer
# service task when software timers are on.
KERNEL_OWN_TASKS = freertos.kernel_tasks()


def _cargo_outputs(config: SocConfig, app: str, variant: str = "sw") -> list[Path]:
    """The kernel library build.rs made and the linked binary: rebuilt means newer."""
    out = freertos.target_dir(config, app, freertos.VARIANTS[variant]) / freertos.RUST_TARGET / "release"
    libraries = sorted(out.glob("build/couplet-rtos-*/out/libfreertos.a"))
    assert libraries, f"build.rs left no libfreertos.a under {out}"
    return [*libraries, out / freertos.BINARY_NAME]


@pytest.mark.parametrize("kernel", KERNELS)
def test_rtos_test_kernel_passes_on_the_soc(sim_binary: Path, kernel: str) -> None:
    passed = run_rtos_checks("test_kernel", kernel, "test_kernel: FreeRTOS V11.2.0, 8 priorities, tick 1000 Hz",
                             6_000_000)
    assert passed == EXPECTED_CHECKS


@pytest.mark.parametrize("kernel", ["sw", "hw-tight"])
def test_rtos_second_build_does_not_recompile(config: SocConfig, kernel: str) -> None:
    # hw-tight: the patched kernel copy build.rs makes must not look changed to cargo either.
    elf = freertos.build_rtos_app(config, "test_kernel", kernel)
    outputs = _cargo_outputs(config, "test_kernel", kernel)
    before = [p.stat().st_mtime_ns for p in [elf, *outputs]]
    again = freertos.build_rtos_app(config, "test_kernel", kernel)
    assert again == elf
    assert [p.stat().st_mtime_ns for p in [elf, *outputs]] == before, "the second build recompiled or relinked"


def test_rtos_unknown_app_is_a_clear_error(config: SocConfig) -> None:
    with pytest.raises(BuildError, match=r"no FreeRTOS app 'no_such_app' in fw/rtos/apps/ \(known: .*test_kernel"):
        freertos.build_rtos_app(config, "no_such_app")
    # The glue folder is not an app either.
    with pytest.raises(BuildError, match="no FreeRTOS app 'common'"):
        freertos.build_rtos_app(config, "common")
    proc = run_couplet("rtos", "build", "no_such_app")
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "no FreeRTOS app 'no_such_app'" in proc.stderr


def test_rtos_unknown_kernel_variant_is_a_clear_error(config: SocConfig) -> None:
    with pytest.raises(BuildError, match="no FreeRTOS kernel variant 'nope' .*known: sw, hw-tight, hw-mmio"):
        freertos.build_rtos_app(config, "test_kernel", variant="nope")


def test_rtos_hw_kernel_needs_its_coupling(config: SocConfig) -> None:
    # Refused before anything is built, naming the config and what it lacks.
    with pytest.raises(BuildError, match="'hw-tight' needs the RTOS accelerator, and config 'small' has none"):
        freertos.build_rtos_app(load_config("small"), "test_kernel", variant="hw-tight")
    assert config.rtos is not None
    tight_only = dataclasses.replace(
        config, name="tight_only", rtos=dataclasses.replace(config.rtos, couplings=("tight",))
    )
    with pytest.raises(BuildError, match="'hw-mmio' needs the 'mmio' coupling .* config 'tight_only' has only tight"):
        freertos.build_rtos_app(tight_only, "test_kernel", variant="hw-mmio")


def _task_limit(console: str) -> int:
    found = re.search(r"test_task_limit: made (\d+) tasks", console)
    assert found, console
    return int(found[1])


@pytest.mark.parametrize("kernel", KERNELS)
def test_rtos_task_limit(sim_binary: Path, config: SocConfig, kernel: str) -> None:
    proc = run_couplet("rtos", "run", "test_task_limit", "--kernel", kernel, "--max-cycles", "3000000")
    console = proc.stdout
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{console}\n{proc.stderr}"
    assert "FAIL" not in console and "test_task_limit: 0 failed" in console, console
    ok_lines = [line.removeprefix("ok ") for line in console.splitlines() if line.startswith("ok ")]
    assert config.rtos is not None
    table = config.rtos.max_threads - KERNEL_OWN_TASKS  # what the accelerator leaves the app
    if kernel == "sw":
        # The heap is the limit: the app's cap (16 workers + the controller) comes first.
        assert _task_limit(console) >= table, console
        assert "no failure within the cap" in console
        assert len(ok_lines) == 3, console
    else:
        assert _task_limit(console) == table, console
        assert "then xTaskCreate failed" in console
        assert ok_lines == [
            "limit: xTaskCreate fails with errCOULD_NOT_ALLOCATE",
            "limit: the failed xTaskCreate freed what it took",
            "limit: the failed xTaskCreate returned no handle",
            "limit: every task made still runs",
            "limit: deleting one lets one more be created",
            "limit: and then the next one fails again",
            "limit: the new task runs, the deleted one does not",
        ], console


# test_sync_hw's behaviour checks, the same on every kernel; the hardware kernels add the "hw:"
# ones (what serves each object), in this order among them.
SYNC_CHECKS = [
    "semaphore: 5 counting semaphores count, each to its own maximum",
    "semaphore: a binary semaphore starts empty and holds one give",
    "hw: the first 4 semaphores are the accelerator's, the next ones software",
    "semaphore: a semaphore made after a delete works",
    "hw: deleting a hardware semaphore frees it for the next one",
    "queue: 5 queues hold their messages in order, full and empty fail",
    "queue: queues of 17-word, 6-byte and 5-deep items work",
    "hw: the first 4 queues are the accelerator's; the 5th and those that do not fit are software",
    "queue: a queue made after a delete works",
    "hw: deleting a hardware queue frees it for the next one",
    "timeout: a take on an empty semaphore fails after its 3 ticks",
    "timeout: the semaphore counts a later give and can be taken",
    "timeout: a receive on an empty queue fails after its 2 ticks",
    "timeout: a send to a full queue fails after its ticks",
    "timeout: the queue still holds exactly the message sent",
    "wake: a higher-priority taker blocks on empty",
    "wake: a give runs the higher-priority waiter at once",
    "wake: equal-priority waiters are woken first come, first served",
    "wake: a blocked receiver gets a 16-word message intact, at once",
    "wake: and into an unaligned buffer, nothing around it touched",
    "wake: a receive wakes a blocked sender, whose message arrives",
    "order: send to front, peek and peek from an ISR keep FreeRTOS's order",
    "overwrite: xQueueOverwrite replaces the message of a queue of length 1",
    "peek: a blocked peek runs at once with the message, which stays in the queue",
    "peek: with a peeker and a receiver waiting, both get the message, once",
    "front: a blocked send to the front is woken and goes ahead",
    "reset: xQueueReset empties the queue and wakes the blocked sender",
    "semaphore: a peek leaves the count, a reset takes it all",
    "hw: the queues and the semaphore that peek, overwrite, send to the front and reset are the accelerator's",
    "mutex: waiters raise their mutexes' holders, not along a chain",
    "hw: the mutexes are the accelerator's",
    "mutex: the chain unwinds in order and both mutexes are free",
    "mutex: a timed-out waiter gives the holder's priority back, to its new base",
    "mutex: a recursive mutex is free after as many gives as takes",
    "hw: a 5th mutex is refused (NULL) and a deleted one frees its place",
    "mutex: two held, the other given first: the inherited priority stays until both are given",
    "mutex: two held, the waited one given first: the priority stays until the last give",
    "mutex: a timed-out waiter leaves the priority of a holder of two mutexes",
    "delete: a task that holds a mutex can be deleted, the mutex stays held, then can be deleted",
    "delete: a held mutex can be deleted, and the next one works",
    "delete: a task that deleted a mutex it held keeps an inherited priority after its other give",
    "woken: a give to a lower waiter counts; a task that runs first takes it; the waiter waits on",
    "woken: a send to a lower receiver stores the item; a task that runs first receives the oldest",
    "woken: an unlock with a lower waiter frees the mutex; a task that runs first locks it again",
    "isr: a give from an ISR wakes the higher waiter, which runs at the yield",
    "isr: queue send and receive from an ISR, full and empty",
]


@pytest.mark.parametrize("kernel", KERNELS)
def test_rtos_sync_objects(sim_binary: Path, config: SocConfig, kernel: str) -> None:
    # The app's "hw:" checks assume the default SoC's 4 semaphores, 4 queues of 16-word
    # messages, 4 deep, and 4 mutexes.
    assert config.rtos is not None
    sizes = (config.rtos.semaphores, config.rtos.queues, config.rtos.message_words, config.rtos.queue_depth,
             config.rtos.mutexes)
    assert sizes == (4, 4, 16, 4, 4)
    objects = "software" if kernel == "sw" else "hardware"
    passed = run_rtos_checks("test_sync_hw", kernel, f"test_sync_hw: FreeRTOS V11.2.0, {objects} objects", 4_000_000)
    assert passed == [c for c in SYNC_CHECKS if kernel != "sw" or not c.startswith("hw: ")]


def _function_words(elf: Path, function: str) -> list[int]:
    """The 32-bit instruction words of `function` in `elf` (compressed ones left out)."""
    dump = subprocess.run(
        [paths.cross_tool("objdump"), "-d", f"--disassemble={function}", str(elf)],
        capture_output=True, text=True, check=True,
    ).stdout
    return [int(m[1], 16) for m in re.finditer(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", dump, re.MULTILINE)]


def test_rtos_hw_tight_schedules_with_the_accelerator(config: SocConfig) -> None:
    # The context switch asks the accelerator (SCHEDULE, action 8, over custom-N with funct3 3):
    # without it the hw kernel would quietly be FreeRTOS's own scheduler again. FreeRTOS keeps no
    # ready lists on the hw kernels (tasks.patch): the accelerator's choice is the only one.
    assert config.rtos is not None
    elf = freertos.build_rtos_app(config, "test_kernel", "hw-tight")
    opcode = {0: 0x0B, 1: 0x2B, 2: 0x5B, 3: 0x7B}[config.rtos.custom]
    words = _function_words(elf, "vTaskSwitchContext")
    assert words, "no vTaskSwitchContext in the ELF"
    schedule = [w for w in words if w & 0x7F == opcode and (w >> 12) & 7 == 3 and w >> 25 == 0x08]
    assert len(schedule) == 1, [hex(w) for w in words]
    sw_elf = freertos.build_rtos_app(config, "test_kernel", "sw")
    assert not [w for w in _function_words(sw_elf, "vTaskSwitchContext") if w & 0x7F == opcode]


BAD_CALL_APP = r"""
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "couplet_kernel_hw.h"
#include "couplet_rtos_check.h"
#include "task.h"

// A call the kernel never makes: a thread node out of range (NO_ID).
__attribute__((noinline)) void bad_call(void) {
  couplet_kernel_hw_ok(COUPLET_KERNEL_HW_CALL(thread_set_state, 0x7Fu, COUPLET_RTOS_READY));
}

static void caller(void *arg) {
  (void)arg;
  printf("bad_call at %p\n", (void *)bad_call);
  bad_call();
  printf("not stopped\n");
  exit(0);
}

void app_main(void) { couplet_rtos_spawn(caller, "caller", 4 * configMINIMAL_STACK_SIZE, 1, NULL); }
"""


def test_rtos_hw_accelerator_error_stops_the_run_naming_the_call(sim_binary: Path, tmp_path: Path) -> None:
    # Any status but OK is a bug in the kernel's bookkeeping: exit code 111 (a configASSERT's),
    # the accelerator's answer, and the address right after the failing call, inside its caller.
    app = tmp_path / "badcall"
    app.mkdir()
    (app / "main.c").write_text(BAD_CALL_APP)
    proc = run_couplet("rtos", "run", str(app), "--kernel", "hw-tight", "--max-cycles", "2000000")
    assert proc.returncode == 111, f"exit code {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    found = re.search(r"^bad_call at 0x([0-9a-f]+)\n+couplet-rtos: the RTOS accelerator answered 0x[0-9a-f]+ "
                      r"\(status 4\) to the call before 0x([0-9a-f]+)$", proc.stdout, re.MULTILINE)
    assert found, proc.stdout
    assert 0 < int(found[2], 16) - int(found[1], 16) < 64, proc.stdout
    assert "not stopped" not in proc.stdout


def test_rtos_kernel_patch_that_does_not_apply_is_a_clear_error(
    config: SocConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real patches apply (every hw build above); one whose context is not in the kernel
    # stops the build with patch's output and the patch's name.
    broken = tmp_path / "broken.patch"
    broken.write_text(
        "--- a/tasks.c\n+++ b/tasks.c\n@@ -1,3 +1,3 @@\n-no such line\n+a new line\n context\n context\n"
    )
    variant = dataclasses.replace(freertos.VARIANTS["hw-tight"], name="broken", patches=(broken,))
    monkeypatch.setitem(freertos.VARIANTS, "broken", variant)
    headline = r"^building FreeRTOS app 'hello' failed: kernel patch \S*broken\.patch does not apply cleanly"
    with pytest.raises(BuildError, match=rf"(?s){headline}.*FAILED"):
        freertos.build_rtos_app(config, "hello", "broken")


def test_rtos_kernel_patches_apply_to_the_pristine_kernel(tmp_path: Path) -> None:
    # Every variant's patches, in order, on a copy of the kernel freertos-next bundles, as build.rs
    # applies them: cleanly (no fuzz, no offset), and only adding lines (the kernel's own code is
    # untouched; every added line is guarded by COUPLET_RTOS_KERNEL_HW, see kernel_hw/README.md).
    kernels = sorted(Path.home().glob(".cargo/registry/src/*/freertos-next-0.12.0/FreeRTOS-Kernel"))
    if not kernels:
        pytest.skip("freertos-next 0.12.0 is not in cargo's registry (run ./bootstrap.sh)")
    variants = [v for v in freertos.VARIANTS.values() if v.patches]
    assert {v.name for v in variants} == set(HW_KERNELS)
    for variant in variants:
        copy = tmp_path / variant.name
        copy.mkdir()
        for source in kernels[-1].glob("*.c"):
            (copy / source.name).write_bytes(source.read_bytes())
        shutil.copytree(kernels[-1] / "include", copy / "include")
        for patch in variant.patches:
            removed = [line for line in patch.read_bytes().splitlines() if line[:1] == b"-" and line[:3] != b"---"]
            assert not removed, f"{patch.name} removes kernel lines: {removed[:3]}"
            proc = subprocess.run(
                ["patch", "-p1", "--forward", "--batch", "--no-backup-if-mismatch", "--fuzz=0"]
                + ["-d", str(copy), "-i", str(patch)],
                capture_output=True, text=True,
            )
            assert proc.returncode == 0, f"{patch.name}:\n{proc.stdout}{proc.stderr}"
            assert "offset" not in proc.stdout, proc.stdout


def test_rtos_heap_fills_the_sram_left_over(config: SocConfig) -> None:
    # The default SoC: 256 KiB SRAM, 8 KiB start-up stack, 52 KiB for the program (60 KiB for
    # the hardware kernels' bigger one).
    assert freertos.heap_size(config, freertos.VARIANTS["sw"]) == (256 - 8 - 52) * 1024
    for kernel in HW_KERNELS:
        assert freertos.heap_size(config, freertos.VARIANTS[kernel]) == (256 - 8 - 60) * 1024
    tiny = dataclasses.replace(config, name="tiny", sram=dataclasses.replace(config.sram, size=48 * 1024))
    with pytest.raises(BuildError, match="no room for a FreeRTOS heap"):
        freertos.heap_size(tiny, freertos.VARIANTS["sw"])
