"""Tasks of equal priority run in FreeRTOS's order on every kernel variant.

`test_order` (fw/rtos/apps/test_order) has workers a, b, c of one priority that record a turn and
yield; in one of its turns a creates a higher task, which preempts it, creates worker d and ends.
FreeRTOS's order comes from its ready lists (list.c, tasks.c): each priority's list is a circle
with an end marker and an index at the task picked last; a pick takes the next task after the
index (skipping the marker), a task made ready is inserted just before the index, and removing
the task at the index moves the index back one. So:
- at the start the last-created task of the highest priority runs first (it became FreeRTOS's
  current task as it was created), then its peers from the first-created on;
- a task preempted by a higher one has had its turn: the next of its priority runs after the
  higher one, not the preempted one;
- a task made ready meanwhile comes after all of them.

`_freertos_order` replays the scenario on that list, written here from FreeRTOS's rules; the
software kernel (FreeRTOS itself) must give exactly that order, and the hardware kernels the
software kernel's.

Simulations: one per kernel variant, about 0.3 M cycles each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_rtos_events

KERNELS = ["sw", "hw-tight", "hw-mmio"]
MAX_CYCLES = 2_000_000

# The scenario's constants (fw/rtos/apps/test_order/main.c).
TURNS = 5
PREEMPT_TURN = 2


class _ReadyList:
    """One priority's ready list as FreeRTOS keeps it: a circle of tasks with an end marker
    (None) and an index at the task picked last (at the marker before the first pick)."""

    def __init__(self) -> None:
        self.circle: list[str | None] = [None]
        self.index: str | None = None

    def __bool__(self) -> bool:
        return len(self.circle) > 1

    def insert(self, task: str) -> None:
        """listINSERT_END: just before the index, so the task is the last to be picked."""
        self.circle.insert(self.circle.index(self.index), task)

    def remove(self, task: str) -> None:
        """uxListRemove: the index, if at the task, moves back one."""
        at = self.circle.index(task)
        if self.index == task:
            self.index = self.circle[at - 1]
        del self.circle[at]

    def pick(self) -> str:
        """listGET_OWNER_OF_NEXT_ENTRY: the next task after the index, past the marker."""
        assert self, "pick from an empty list"
        at = self.circle.index(self.index)
        while True:
            at = (at + 1) % len(self.circle)
            task = self.circle[at]
            if task is not None:
                self.index = task
                return task


def _freertos_order() -> list[str]:
    """The `order` lines FreeRTOS's rules give for test_order's scenario."""
    workers = _ReadyList()
    for name in "abc":
        workers.insert(name)
    running = "c"  # the last created of the highest priority: FreeRTOS's current task at the start
    turns = dict.fromkeys("abcd", 0)
    preempted: set[str] = set()  # workers preempted within a turn: they only yield when they run next
    lines: list[str] = []
    while True:
        if running in preempted:
            preempted.discard(running)
        elif turns[running] < TURNS:
            lines.append(f"order {running} {turns[running]}")
            turns[running] += 1
            if running == "a" and turns[running] == PREEMPT_TURN + 1:
                # "high" preempts a (a keeps the index), makes d ready, and ends.
                lines.append("order high 0")
                workers.insert("d")
                preempted.add(running)
        else:
            lines.append(f"order {running} -1")
            workers.remove(running)
            if not workers:
                return lines
        running = workers.pick()  # a yield, a preemption's end or a deletion: the next pick


def _run_order(kernel: str) -> list[str]:
    """The `order ` lines of a run on `kernel`, which must end cleanly."""
    return run_rtos_events("test_order", kernel, "order ", MAX_CYCLES)


@pytest.fixture(scope="module")
def sw_order(sim_binary: Path) -> list[str]:
    return _run_order("sw")


def test_rtos_order_model_follows_freertos_rules() -> None:
    # The rules' three cases, seen in the replayed order itself.
    lines = _freertos_order()
    assert lines[:3] == ["order c 0", "order a 0", "order b 0"], "start: last created first, then from the first"
    high = lines.index("order high 0")
    assert lines[high - 1] == f"order a {PREEMPT_TURN}"
    assert lines[high + 1 : high + 4] == [f"order b {PREEMPT_TURN}", "order c 3", "order d 0"], (
        "after the preemption: the next after a, and d behind every other"
    )
    assert len(lines) == 4 * (TURNS + 1) + 1


@pytest.mark.parametrize("kernel", KERNELS)
def test_rtos_equal_priority_order_is_freertos_on_every_kernel(sw_order: list[str], kernel: str) -> None:
    order = sw_order if kernel == "sw" else _run_order(kernel)
    assert sw_order == _freertos_order(), "the software kernel is FreeRTOS: its order is the rules'"
    assert order == sw_order
