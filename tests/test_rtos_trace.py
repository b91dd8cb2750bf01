"""A mixed FreeRTOS application behaves the same on every kernel variant, event for event.

`test_trace` (fw/rtos/apps/test_trace) is an ordinary application: four tasks of different
priorities and a controller, a mutex held across a delay while a higher task waits for it
(priority inheritance), a counting semaphore given by a periodic task, a queue read with
timeouts, task notifications, vTaskSuspend/vTaskResume of another task and an auto-reload
software timer. It records every event (tick, task, event, value) in RAM and prints the trace
once the scenario has ended. The hardware kernels keep FreeRTOS's scheduling semantics, so their
traces must be the software kernel's, line for line; each trace is also checked on its own for
what the scenario must show (the holder at the waiter's priority, queue timeouts and data, the
timer's fires, every give taken, the resumed task running at the resume), so that a kernel that
got the scenario wrong everywhere fails too.

Left out on purpose: two tasks at one priority (their order has a test of its own,
tests/test_rtos_order.py, and one rare order of events that differs, fw/rtos/kernel_hw/README.md).
A give, send or unlock that wakes a lower-priority waiter leaves what it gave in the object until
the waiter runs, on every kernel; test_sync_hw checks that (its "woken: ..." checks).

Simulations: one per kernel variant, about 2.15 M cycles each (20-30 s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import run_rtos_events

KERNELS = ["sw", "hw-tight", "hw-mmio"]
MAX_CYCLES = 4_000_000

# The scenario's constants (fw/rtos/apps/test_trace/main.c).
PERIOD = 4
QUEUE_WAIT = 3
NOTIFY_WAIT = 6
TIMER_PERIOD = 7
TIMER_FIRES = 4
END = 30
CTRL_ITEMS = [100, 101]
DONE_ALL = 0b1111
E_READY = 1
E_SUSPENDED = 3


@dataclass(frozen=True)
class Event:
    tick: int
    who: str
    what: str
    value: int


def _parse(line: str) -> Event:
    _, tick, who, what, value = line.split(" ")
    return Event(int(tick), who, what, int(value))


def _run_trace(kernel: str) -> list[str]:
    """The `trace ` lines of a run on `kernel`, which must end cleanly."""
    return run_rtos_events("test_trace", kernel, "trace ", MAX_CYCLES)


@pytest.fixture(scope="module")
def sw_trace(sim_binary: Path) -> list[str]:
    return _run_trace("sw")


def _one(events: list[Event], who: str, what: str) -> Event:
    found = [e for e in events if e.who == who and e.what == what]
    assert len(found) == 1, f"{who} {what}: {found}"
    return found[0]


def _of(events: list[Event], who: str, what: str) -> list[Event]:
    return [e for e in events if e.who == who and e.what == what]


def _check_content(lines: list[str]) -> None:
    events = [_parse(line) for line in lines]
    ticks = [e.tick for e in events]
    assert ticks == sorted(ticks), "events out of tick order"

    # Five tasks, each at a priority of its own; at a tick they ran highest first.
    prio = {e.who: e.value for e in events if e.what == "start"}
    assert sorted(prio) == ["ctrl", "high", "low", "period", "worker"]
    assert len(set(prio.values())) == 5
    starts = [e.who for e in events if e.what == "start"]
    assert starts == sorted(starts, key=lambda who: -prio[who])

    # Priority inheritance: low holds the mutex across its delay at high's priority, the give
    # hands it to high at once (preempting low), and low drops back to its own priority.
    assert _one(events, "low", "mutex-take").value == prio["low"]
    wait = _one(events, "high", "mutex-wait")
    assert wait.value == prio["low"]
    holding = _one(events, "low", "holding")
    assert holding.tick > wait.tick and holding.value == prio["high"] > prio["low"]
    taken = _one(events, "high", "mutex-take")
    given = _one(events, "low", "mutex-give")
    assert events.index(holding) < events.index(taken) < events.index(given)
    assert taken.tick == given.tick == holding.tick and taken.value == prio["high"]
    assert given.value == prio["low"]

    # The timer fires every TIMER_PERIOD ticks, TIMER_FIRES times, then stops itself.
    fires = _of(events, "timer", "fire")
    assert [(e.tick, e.value) for e in fires] == [(TIMER_PERIOD * n, n) for n in range(1, TIMER_FIRES + 1)]

    # The queue: every item sent (the timer's tick, the controller's two) arrives at the tick
    # it was sent, in order; between them the receives time out after QUEUE_WAIT ticks each.
    send = _one(events, "ctrl", "send")
    assert send.value == len(CTRL_ITEMS)
    sent = sorted([(e.tick, e.tick) for e in fires] + [(send.tick, item) for item in CTRL_ITEMS])
    high = [e for e in events if e.who == "high" and e.what in ("q-recv", "q-timeout")]
    assert [(e.tick, e.value) for e in high if e.what == "q-recv"] == sent
    timeouts = [i for i, e in enumerate(high) if e.what == "q-timeout"]
    assert len(timeouts) >= 3, "the queue never timed out"
    assert all(high[i].tick - high[i - 1].tick == QUEUE_WAIT for i in timeouts if i > 0)

    # The semaphore: given every PERIOD ticks until END, each give taken exactly once.
    gives = _of(events, "period", "give")
    assert [(e.tick, e.value) for e in gives] == [(PERIOD * n, n) for n in range(1, len(gives) + 1)]
    assert len(gives) == (END - 1) // PERIOD
    takes = _of(events, "worker", "sem-take")
    assert len(takes) == len(gives) and takes[-1].value == 0

    # Suspended while waiting for the semaphore, the worker misses the gives; resumed, it runs
    # at once (after the controller) and takes them all.
    suspend = _one(events, "ctrl", "suspend")
    resume = _one(events, "ctrl", "resume")
    assert suspend.value == E_SUSPENDED and resume.value == E_READY
    assert not [e for e in events if e.who == "worker" and suspend.tick <= e.tick < resume.tick]
    missed = [e for e in gives if suspend.tick < e.tick < resume.tick]
    at_resume = [e for e in takes if e.tick == resume.tick]
    assert len(missed) >= 2 and [e.value for e in at_resume] == list(range(len(missed) - 1, -1, -1))
    assert events.index(resume) < events.index(at_resume[0])

    # Notifications: the controller's two gives reach low as one take of 2, at once; its other
    # waits time out after NOTIFY_WAIT ticks.
    notify = _one(events, "ctrl", "notify")
    notified = _of(events, "low", "notified")
    assert [e.value for e in notified if e.value != 0] == [notify.value] == [2]
    assert [e.tick for e in notified if e.value != 0] == [notify.tick]
    waits = [given.tick] + [e.tick for e in notified]
    assert all(b - a == NOTIFY_WAIT for a, b, e in zip(waits, waits[1:], notified) if e.value == 0)

    # Every task finished after END and told the controller (xTaskNotify bits).
    done = _of(events, "ctrl", "done")
    bits = [e.value for e in done]
    assert sorted(bits) == [1, 2, 4, 8] and sum(bits) == DONE_ALL
    assert all(e.tick >= END for e in done)


def _first_difference(ours: list[str], reference: list[str]) -> str:
    for i, (a, b) in enumerate(zip(ours, reference)):
        if a != b:
            return f"event {i}: {a!r}, sw has {b!r}"
    return f"{len(ours)} events, sw has {len(reference)}"


@pytest.mark.parametrize("kernel", KERNELS)
def test_rtos_trace_is_the_software_kernels_on_every_kernel(sw_trace: list[str], kernel: str) -> None:
    trace = sw_trace if kernel == "sw" else _run_trace(kernel)
    _check_content(trace)
    assert trace == sw_trace, _first_difference(trace, sw_trace)


def test_rtos_trace_content_checks_can_fail(sw_trace: list[str]) -> None:
    # The checks see a kernel that got the scenario wrong: without inheritance, with a give
    # lost, with the resumed task running late.
    def replace(old: str, new: str) -> Callable[[list[str]], list[str]]:
        return lambda lines: [new if line == old else line for line in lines]

    broken: list[Callable[[list[str]], list[str]]] = [
        replace("trace 5 low holding 5", "trace 5 low holding 2"),
        lambda lines: [line for line in lines if line != "trace 28 worker sem-take 0"],
        replace("trace 22 ctrl resume 1", "trace 22 ctrl resume 3"),
        lambda lines: [line for line in lines if line != "trace 14 timer fire 2"],
    ]
    for mutate in broken:
        lines = mutate(sw_trace)
        assert lines != sw_trace, "the mutation no longer matches the trace"
        with pytest.raises(AssertionError):
            _check_content(lines)
