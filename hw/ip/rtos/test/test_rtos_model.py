"""Host-only scenario tests of the couplet_rtos reference model (rtos_model.py), from the README
and the ChamelIoT paper (section III): priority order and round robin in both priority orders,
suspend/resume, priority inheritance through a chain of three mutexes (raise and restore), a
THREAD_UNBLOCK lowering a chain, full tables, every status code, the register layer, the copy
engine, the queue's FRONT send, PEEK receive and QUEUE_RESET, HANDOFF 0 (FreeRTOS's wake-up
rule), and a random run that checks the model's own invariants.

Run: .venv/bin/python -m pytest hw/ip/rtos/test/test_rtos_model.py -q
"""

from __future__ import annotations

import copy
import random

import pytest

from hw.ip.rtos.test.rtos_model import (
    ADD_READY, ARG_A, ARG_B, BLOCK, CALL0, CONFIG, FRONT, MSG0, NONE, OP_EXEC, OP_READ, OP_WRITE, OP_WRITE2, PEEK,
    STATUS, Act, CommandError, Params, RtosModel, State, Status, Unspecified, Wait, decode_result,
)


class Drv:
    """Calls actions on a model and decodes the result words."""

    def __init__(self, **params: int) -> None:
        self.m = RtosModel(Params(**params))

    def __call__(self, act: Act, a: int = 0, b: int = 0) -> dict[str, int]:
        word = self.m.call(act, a, b)
        self.m.check_invariants()
        return decode_result(word)

    def ok(self, act: Act, a: int = 0, b: int = 0) -> dict[str, int]:
        res = self(act, a, b)
        assert res["status"] == Status.OK, f"{act.name}({a:#x}, {b:#x}): {Status(res['status']).name}"
        return res

    def fails(self, act: Act, a: int, b: int, status: Status, value: int = 0) -> None:
        before = copy.deepcopy(self.m.__dict__)
        res = self(act, a, b)
        assert res["status"] == status, f"{act.name}: {Status(res['status']).name}, expected {status.name}"
        assert (res["blocked"], res["tid"], res["value"]) == (0, NONE, value)
        assert self.m.__dict__ == before, f"{act.name} failing with {status.name} changed the state"

    def add(self, tcb: int, prio: int, ready: bool = True) -> int:
        return self.ok(Act.THREAD_ADD, tcb, prio | (ADD_READY if ready else 0))["tid"]

    def schedule(self) -> int:
        return self.m.call(Act.SCHEDULE)

    def info(self, tid: int) -> tuple[int, int, State, Wait, int]:
        v = self.ok(Act.THREAD_INFO, tid)["value"]
        return v & 0xF, v >> 4 & 0xF, State(v >> 8 & 3), Wait(v >> 10 & 7), v >> 13

    def eprio(self, tid: int) -> int:
        return self.info(tid)[0]

    def run(self, tid: int) -> None:
        """Make `tid` the running thread by scheduling until it is picked."""
        for _ in range(4 * self.m.p.MaxThreads):
            if self.schedule() == self.m.threads[tid].tcb and self.m.cur == tid:
                return
        raise AssertionError(f"TID {tid} is never scheduled")


@pytest.mark.parametrize("ascending", [1, 0])
def test_priority_order_and_round_robin(ascending: int) -> None:
    d = Drv(PrioAscending=ascending)
    hi, lo = (5, 2) if ascending else (2, 5)
    a = d.add(0x100, lo)
    assert d.schedule() == 0x100 and d.m.cur == a
    b = d.add(0x200, hi)
    res = d.ok(Act.CURRENT)
    assert (res["tid"], res["value"], res["preempt"]) == (a, 2, 1), "a higher thread preempts"
    assert d.schedule() == 0x200
    c = d.add(0x300, hi)
    assert d.ok(Act.CURRENT)["preempt"] == 0, "an equal priority does not preempt"
    # Round robin between b and c (cur rotates to the tail when it is the head).
    assert [d.schedule() for _ in range(4)] == [0x300, 0x200, 0x300, 0x200]
    assert d.m.ready[hi] == [b, c]
    # cur suspended: preempt, SCHEDULE picks the head without rotating.
    d.ok(Act.THREAD_SET_STATE, b, State.SUSPENDED)
    assert d.ok(Act.CURRENT)["preempt"] == 1
    assert d.schedule() == 0x300
    d.ok(Act.THREAD_SET_STATE, c, State.DELAYED)
    assert d.schedule() == 0x100, "only the low thread is left"
    d.ok(Act.THREAD_SET_STATE, a, State.SUSPENDED)
    assert d.schedule() == 0 and d.m.cur is None
    assert d.ok(Act.CURRENT)["tid"] == NONE and d.ok(Act.CURRENT)["preempt"] == 0
    # Resume appends at the tail.
    d.ok(Act.THREAD_SET_STATE, c, State.READY)
    assert d.ok(Act.CURRENT)["preempt"] == 1, "idle with a READY thread"
    d.ok(Act.THREAD_SET_STATE, b, State.READY)
    assert d.m.ready[hi] == [c, b]
    assert d.schedule() == 0x300
    assert d.ok(Act.THREAD_SET_STATE, c, State.READY)["preempt"] == 0, "READY again changes nothing"
    assert d.m.ready[hi] == [c, b]
    assert d.info(c) == (hi, hi, State.READY, Wait.NONE, 0)


def test_picked_head_that_left_does_not_rotate() -> None:
    d = Drv()
    a, b, c = d.add(1, 3), d.add(2, 3), d.add(3, 3)
    assert d.schedule() == 1
    d.ok(Act.THREAD_SET_STATE, a, State.SUSPENDED)
    d.ok(Act.THREAD_SET_STATE, a, State.READY)  # a to the tail: [b, c, a], b has not run
    assert d.m.ready[3] == [b, c, a]
    assert d.schedule() == 2 and d.m.ready[3] == [b, c, a]
    assert d.schedule() == 3 and d.m.ready[3] == [c, a, b]


def test_preempted_thread_goes_behind_its_peers() -> None:
    """FreeRTOS's list index: a thread preempted by a higher one has had its turn; its queue goes
    on with the next thread when the higher one stops, and a thread made ready meanwhile comes
    after every other (just before the preempted one in the circle)."""
    d = Drv()
    a, b = d.add(0xA, 3), d.add(0xB, 3)
    assert d.schedule() == 0xA
    h = d.add(0x50, 5)
    assert d.schedule() == 0x50
    c = d.add(0xC, 3)
    assert d.m.ready[3] == [a, b, c]
    d.ok(Act.THREAD_SET_STATE, h, State.SUSPENDED)
    assert [d.schedule() for _ in range(4)] == [0xB, 0xC, 0xA, 0xB]
    assert d.m.ready[3] == [b, c, a]


def test_thread_add_find_remove_tcb() -> None:
    d = Drv(MaxThreads=4)
    tids = [d.add(0x1000 + 4 * i, i, ready=i % 2 == 0) for i in range(4)]
    assert tids == [0, 1, 2, 3]
    d.fails(Act.THREAD_ADD, 0x9000, ADD_READY | 1, Status.TABLE_FULL)
    assert d.info(1)[2] == State.SUSPENDED and d.info(2)[2] == State.READY
    d.ok(Act.THREAD_REMOVE, 1)
    assert d.m.call(Act.THREAD_TCB, 1) == 0 and d.m.call(Act.THREAD_TCB, 99) == 0
    assert d.m.call(Act.THREAD_TCB, 2) == 0x1008
    assert d.add(0x1008, 7) == 1, "lowest free node"
    assert d.ok(Act.THREAD_FIND, 0x1008)["tid"] == 1, "lowest TID holding the tcb"
    d.fails(Act.THREAD_FIND, 0x4242, 0, Status.NO_ID)
    assert d.ok(Act.CURRENT)["value"] == 4
    d.fails(Act.THREAD_ADD, 0, 8, Status.BAD_ARG)  # 8 >= NumPrio, checked before the table
    d.fails(Act.THREAD_REMOVE, 4, 0, Status.NO_ID)
    d.fails(Act.THREAD_REMOVE, 0x100, 0, Status.NO_ID)  # whole-word id, not its low bits
    assert d.schedule() == 0x1008 and d.m.cur == 1  # prio 7 is the highest
    d.ok(Act.THREAD_REMOVE, 1)
    assert d.m.cur is None and d.ok(Act.CURRENT)["tid"] == NONE
    d.fails(Act.THREAD_INFO, 1, 0, Status.NO_ID)


def test_priority_inheritance_chain_of_three_mutexes() -> None:
    d = Drv(NumMutex=4)
    t0, t1, t2, t3 = d.add(0xA0, 1), d.add(0xA1, 2, ready=False), d.add(0xA2, 3, ready=False), d.add(0xA3, 6, False)
    m0, m1, m2 = (d.ok(Act.MUTEX_ALLOC)["tid"] for _ in range(3))
    assert (m0, m1, m2) == (0, 1, 2)
    d.run(t0)
    d.ok(Act.MUTEX_LOCK, m0, BLOCK)
    d.ok(Act.THREAD_SET_STATE, t1, State.READY)
    d.run(t1)
    d.ok(Act.MUTEX_LOCK, m1)
    res = d.ok(Act.MUTEX_LOCK, m0, BLOCK)
    assert res["blocked"] == 1 and res["preempt"] == 1
    assert d.info(t1) == (2, 2, State.WAITING, Wait.MUTEX, m0)
    assert d.eprio(t0) == 2 and d.m.ready[2] == [t0], "t0 inherits 2 and moves to queue 2"
    d.ok(Act.THREAD_SET_STATE, t2, State.READY)
    d.run(t2)
    d.ok(Act.MUTEX_LOCK, m2)
    d.ok(Act.MUTEX_LOCK, m1, BLOCK)
    assert (d.eprio(t1), d.eprio(t0)) == (3, 3), "raise through the chain"
    d.ok(Act.THREAD_SET_STATE, t3, State.READY)
    d.run(t3)
    d.ok(Act.MUTEX_LOCK, m2, BLOCK)
    assert [d.eprio(t) for t in (t0, t1, t2, t3)] == [6, 6, 6, 6]
    assert d.ok(Act.MUTEX_INFO, m0) == {"status": 0, "blocked": 0, "preempt": 1, "tid": t0, "value": 1}
    # Raising the top waiter's base priority raises the whole chain; lowering restores it.
    d.ok(Act.THREAD_SET_PRIO, t3, 7)
    assert [d.eprio(t) for t in (t0, t1, t2, t3)] == [7, 7, 7, 7]
    d.ok(Act.THREAD_SET_PRIO, t3, 6)
    assert [d.eprio(t) for t in (t0, t1, t2)] == [6, 6, 6]
    # Unlock from the bottom of the chain: each owner falls back, the woken waiter inherits.
    assert d.schedule() == 0xA0
    res = d.ok(Act.MUTEX_UNLOCK, m0)
    assert res["tid"] == t1 and res["preempt"] == 1
    assert d.info(t0) == (1, 1, State.READY, Wait.NONE, 0) and d.m.ready[1] == [t0]
    assert d.info(t1) == (6, 2, State.READY, Wait.NONE, 0), "t1 owns m0 and m1; t2 waits on m1"
    assert d.schedule() == 0xA1
    d.ok(Act.MUTEX_UNLOCK, m1)
    assert d.eprio(t1) == 2 and d.eprio(t2) == 6
    d.ok(Act.MUTEX_UNLOCK, m0)
    assert d.ok(Act.MUTEX_INFO, m0)["tid"] == NONE
    assert d.schedule() == 0xA2
    d.ok(Act.MUTEX_UNLOCK, m2)
    assert [d.eprio(t) for t in (t0, t1, t2, t3)] == [1, 2, 3, 6]
    d.fails(Act.MUTEX_UNLOCK, m2, 0, Status.NOT_OWNER)


def test_unblock_lowers_chain_and_no_inheritance_build() -> None:
    for inherit in (1, 0):
        d = Drv(PrioInherit=inherit, PrioAscending=0)  # smaller is higher
        lo, mid, hi = d.add(1, 6), d.add(2, 4, ready=False), d.add(3, 1, ready=False)
        ma, mb = d.ok(Act.MUTEX_ALLOC)["tid"], d.ok(Act.MUTEX_ALLOC)["tid"]
        d.run(lo)
        d.ok(Act.MUTEX_LOCK, ma)
        d.ok(Act.THREAD_SET_STATE, mid, State.READY)
        d.run(mid)
        d.ok(Act.MUTEX_LOCK, mb)
        d.ok(Act.MUTEX_LOCK, ma, BLOCK)
        d.ok(Act.THREAD_SET_STATE, hi, State.READY)
        d.run(hi)
        d.ok(Act.MUTEX_LOCK, mb, BLOCK)
        assert (d.eprio(lo), d.eprio(mid)) == ((1, 1) if inherit else (6, 4))
        # The OS times out hi's wait: the chain falls back.
        res = d.ok(Act.THREAD_UNBLOCK, hi)
        assert res["tid"] == hi and res["blocked"] == 0
        assert (d.eprio(lo), d.eprio(mid)) == ((4, 4) if inherit else (6, 4))
        assert d.info(hi) == (1, 1, State.READY, Wait.NONE, 0)
        d.fails(Act.THREAD_UNBLOCK, hi, 0, Status.BAD_ARG)
        # mid's wait ends by a SET_STATE into SUSPENDED: lo falls back to its base.
        d.ok(Act.THREAD_SET_STATE, mid, State.SUSPENDED)
        assert d.eprio(lo) == 6 and d.info(mid)[2:4] == (State.SUSPENDED, Wait.NONE)
        assert d.ok(Act.MUTEX_INFO, ma)["value"] == 0


def test_semaphores() -> None:
    d = Drv(NumSem=2)
    t0, t1, t2 = d.add(1, 2), d.add(2, 5, ready=False), d.add(3, 5, ready=False)
    d.fails(Act.SEM_ALLOC, 0, 0, Status.BAD_ARG)
    d.fails(Act.SEM_ALLOC, 3, 2, Status.BAD_ARG)
    d.fails(Act.SEM_ALLOC, 0, 0x10000, Status.BAD_ARG)
    s = d.ok(Act.SEM_ALLOC, 1, 2)["tid"]
    s1 = d.ok(Act.SEM_ALLOC, 0, 0xFFFF)["tid"]
    d.fails(Act.SEM_ALLOC, 0, 1, Status.TABLE_FULL)
    d.fails(Act.SEM_TAKE, 5, 0, Status.NO_ID)
    assert d.ok(Act.SEM_GIVE, s)["value"] == 2
    d.fails(Act.SEM_GIVE, s, 0, Status.BAD_ARG, value=2)
    assert d.ok(Act.SEM_TAKE, s)["value"] == 1
    assert d.ok(Act.SEM_TAKE, s)["value"] == 0
    d.fails(Act.SEM_TAKE, s, 0, Status.UNAVAILABLE)
    d.fails(Act.SEM_TAKE, s, BLOCK, Status.NO_CALLER)  # nobody runs
    for t in (t2, t1):
        d.ok(Act.THREAD_SET_STATE, t, State.READY)
        d.run(t)
        res = d.ok(Act.SEM_TAKE, s, BLOCK)
        assert res["blocked"] == 1 and res["value"] == 0
    assert d.ok(Act.SEM_INFO, s) == {"status": 0, "blocked": 0, "preempt": 1, "tid": 2, "value": 0}
    d.fails(Act.SEM_FREE, s, 0, Status.BUSY)
    res = d.ok(Act.SEM_GIVE, s)
    assert (res["tid"], res["value"]) == (t2, 0), "equal eprio: the first to wait, not the lowest TID"
    d.ok(Act.THREAD_SET_PRIO, t0, 7)
    d.ok(Act.THREAD_SET_PRIO, t1, 6)
    assert d.ok(Act.SEM_GIVE, s)["tid"] == t1
    assert d.ok(Act.SEM_GIVE, s)["value"] == 1
    d.ok(Act.SEM_FREE, s)
    d.fails(Act.SEM_INFO, s, 0, Status.NO_ID)
    d.fails(Act.SEM_GIVE, 2, 0, Status.NO_ID)
    d.ok(Act.SEM_FREE, s1)


def test_queues_ring_senders_receivers_and_copy() -> None:
    d = Drv(MsgWords=4, QueueDepth=2, NumQueue=2)
    t0, t1, t2 = d.add(1, 3), d.add(2, 3, ready=False), d.add(3, 3, ready=False)
    d.fails(Act.QUEUE_ALLOC, 0, 1, Status.BAD_ARG)
    d.fails(Act.QUEUE_ALLOC, 5, 1, Status.BAD_ARG)
    d.fails(Act.QUEUE_ALLOC, 4, 3, Status.BAD_ARG)
    q = d.ok(Act.QUEUE_ALLOC, 3, 2)["tid"]
    d.ok(Act.QUEUE_ALLOC, 1, 1)
    d.fails(Act.QUEUE_ALLOC, 1, 1, Status.TABLE_FULL)
    d.fails(Act.QUEUE_RECV, q, 0, Status.QUEUE_EMPTY)
    msgs = [[10, 11, 12], [20, 21, 22]]
    for i, msg in enumerate(msgs):
        d.m.write2(MSG0, msg[0], msg[1])
        d.m.write(MSG0 + 2, msg[2])
        assert d.ok(Act.QUEUE_SEND, q)["value"] == i + 1
    d.fails(Act.QUEUE_SEND, q, 0, Status.QUEUE_FULL, value=2)
    d.fails(Act.QUEUE_SEND, q, BLOCK, Status.NO_CALLER, value=2)
    d.run(t0)
    assert d.ok(Act.QUEUE_SEND, q, BLOCK)["blocked"] == 1
    assert d.ok(Act.QUEUE_INFO, q)["tid"] == 1
    d.fails(Act.QUEUE_FREE, q, 0, Status.BUSY)
    d.ok(Act.THREAD_SET_STATE, t1, State.READY)
    d.run(t1)
    d.m.write(MSG0 + 3, 0x33)
    res = d.ok(Act.QUEUE_RECV, q)
    assert (res["tid"], res["value"]) == (t0, 1), "the waiting sender wakes"
    assert [d.m.read(MSG0 + i) for i in range(4)] == [10, 11, 12, 0x33], "FIFO order; MSG[3] untouched"
    assert d.ok(Act.QUEUE_RECV, q)["value"] == 0
    assert [d.m.read(MSG0 + i) for i in range(3)] == msgs[1]
    # A waiting receiver gets the next message through the copy engine.
    assert d.ok(Act.QUEUE_RECV, q, 0x8000_0102 | BLOCK)["blocked"] == 1
    assert d.info(t1)[2:] == (State.WAITING, Wait.QUEUE_RECV, q)
    d.ok(Act.THREAD_SET_STATE, t2, State.READY)
    d.run(t2)
    d.m.write2(MSG0, 7, 8)
    res = d.ok(Act.QUEUE_SEND, q)
    assert (res["tid"], res["value"]) == (t1, 0)
    assert d.m.copy is not None and d.m.copy.dst == 0x8000_0100 and d.m.copy.words == (7, 8, 22)
    assert d.m.read(STATUS) == 1 | t2 << 8, "copy_busy, cur t2"
    for act in (Act.QUEUE_SEND, Act.QUEUE_RECV):
        d.fails(act, q, 0, Status.BUSY, value=0)
        d.fails(act, 7, 0, Status.NO_ID)  # the id is checked first
    d.ok(Act.QUEUE_INFO, q)
    d.m.copy_done(err=True)
    assert d.m.irq and d.m.read(STATUS) & 3 == 2
    assert not d.m.irq and d.m.read(STATUS) & 3 == 0, "a read of STATUS clears bit 1"
    d.ok(Act.QUEUE_FREE, q)
    d.fails(Act.QUEUE_INFO, q, 0, Status.NO_ID)


def _send(d: Drv, q: int, word: int, b: int = 0) -> dict[str, int]:
    d.m.write(MSG0, word)
    return d(Act.QUEUE_SEND, q, b)


def _recv(d: Drv, q: int, b: int = 0) -> tuple[dict[str, int], int]:
    res = d(Act.QUEUE_RECV, q, b)
    return res, d.m.read(MSG0)


def test_queue_send_to_front() -> None:
    """FRONT stores at the head (the next message received), also across the ring's end; a full
    queue and a waiting receiver answer as a plain send; the flag is not remembered."""
    d = Drv(MsgWords=1, QueueDepth=4, NumQueue=1)
    q = d.ok(Act.QUEUE_ALLOC, 1, 4)["tid"]
    assert _send(d, q, 1)["value"] == 1
    assert _send(d, q, 2, FRONT)["value"] == 2  # rd 0 -> 3: wraps to the end of the ring
    assert _send(d, q, 3)["value"] == 3
    assert _send(d, q, 4, FRONT | BLOCK)["value"] == 4
    d.fails(Act.QUEUE_SEND, q, FRONT, Status.QUEUE_FULL, value=4)
    d.fails(Act.QUEUE_SEND, q, FRONT | BLOCK, Status.NO_CALLER, value=4)
    assert [_recv(d, q)[1] for _ in range(4)] == [4, 2, 1, 3]
    # A waiting receiver gets a FRONT message by the copy engine, as any other.
    t = d.add(0x10, 1)
    d.run(t)
    assert d.ok(Act.QUEUE_RECV, q, 0x400 | BLOCK)["blocked"] == 1
    d.m.write(MSG0, 9)
    res = d.ok(Act.QUEUE_SEND, q, FRONT)
    assert (res["tid"], res["value"]) == (t, 0)
    assert d.m.copy is not None and d.m.copy.dst == 0x400 and d.m.copy.words == (9,)
    d.fails(Act.QUEUE_SEND, q, FRONT, Status.BUSY, value=0)
    d.m.copy_done(err=False)
    # A sender blocked by a FRONT send sends again (plainly): the queue does not remember FRONT.
    d.run(t)
    for word in (5, 6, 7, 8):
        _send(d, q, word)
    assert d.ok(Act.QUEUE_SEND, q, FRONT | BLOCK)["blocked"] == 1
    assert d.info(t)[2:] == (State.WAITING, Wait.QUEUE_SEND, q)
    res, word = _recv(d, q)
    assert (res["tid"], word) == (t, 5)
    assert _send(d, q, 9)["value"] == 4
    assert [_recv(d, q)[1] for _ in range(4)] == [6, 7, 8, 9]


def test_queue_peek() -> None:
    """PEEK copies the head to MSG and keeps it stored (count unchanged, no sender woken); on an
    empty queue it waits as a receiver (bit 0) or answers QUEUE_EMPTY."""
    d = Drv(MsgWords=2, QueueDepth=2, NumQueue=1)
    t0, t1 = d.add(1, 2), d.add(2, 1)
    q = d.ok(Act.QUEUE_ALLOC, 2, 2)["tid"]
    d.fails(Act.QUEUE_RECV, q, PEEK, Status.QUEUE_EMPTY)
    d.m.write2(MSG0, 0xA0, 0xA1)
    d.ok(Act.QUEUE_SEND, q)
    d.m.write2(MSG0, 0xB0, 0xB1)
    d.ok(Act.QUEUE_SEND, q)
    d.run(t0)
    assert d.ok(Act.QUEUE_SEND, q, BLOCK)["blocked"] == 1  # t0 waits as a sender
    d.m.write2(MSG0, 0, 0)
    for _ in range(2):
        res = d.ok(Act.QUEUE_RECV, q, PEEK | BLOCK)
        assert (res["tid"], res["value"], res["blocked"]) == (NONE, 2, 0), "no sender woken"
        assert d.m.msg == [0xA0, 0xA1]
    assert d.info(t0)[2] == State.WAITING
    res = d.ok(Act.QUEUE_RECV, q)
    assert (res["tid"], res["value"], d.m.msg) == (t0, 1, [0xA0, 0xA1]), "RECV after PEEK: the same message"
    assert d.ok(Act.QUEUE_RECV, q, PEEK)["value"] == 1 and d.m.msg == [0xB0, 0xB1]
    d.ok(Act.QUEUE_RECV, q)
    # Empty: PEEK with bit 0 waits exactly as RECV, wait_ptr = b & ~3.
    d.ok(Act.THREAD_SET_STATE, t0, State.SUSPENDED)
    d.run(t1)
    assert d.ok(Act.QUEUE_RECV, q, 0x2000_0040 | PEEK | BLOCK)["blocked"] == 1
    assert d.m.threads[t1].wait_ptr == 0x2000_0040
    d.m.write2(MSG0, 0xC0, 0xC1)
    d.ok(Act.THREAD_SET_STATE, t0, State.READY)
    d.run(t0)
    res = d.ok(Act.QUEUE_SEND, q)
    assert (res["tid"], res["value"]) == (t1, 0) and d.m.copy == d.m.copies[-1]
    assert d.m.copy is not None and (d.m.copy.dst, d.m.copy.words) == (0x2000_0040, (0xC0, 0xC1))
    d.fails(Act.QUEUE_RECV, q, PEEK, Status.BUSY)
    d.fails(Act.QUEUE_RECV, 1, PEEK, Status.NO_ID)


def test_queue_reset() -> None:
    """RESET drops the stored messages and wakes the best waiting sender (highest eprio, then
    first to wait); receivers keep waiting; not refused during a copy; NO_ID for a bad id."""
    d = Drv(MsgWords=1, QueueDepth=2, NumQueue=2)
    lo, hi_a, hi_b, rcv = d.add(1, 1, False), d.add(2, 4, False), d.add(3, 4, False), d.add(4, 2, False)
    q = d.ok(Act.QUEUE_ALLOC, 1, 2)["tid"]
    for id_ in (2, 7, 0x100, 0xFFFF_FFFF, 1):  # 1: in range, not allocated
        d.fails(Act.QUEUE_RESET, id_, 0, Status.NO_ID)
    res = d.ok(Act.QUEUE_RESET, q)
    assert (res["tid"], res["value"]) == (NONE, 0), "an empty queue without waiters"
    _send(d, q, 1)
    _send(d, q, 2)
    for t in (hi_b, lo, hi_a):  # they block in this order; hi_a has the lowest TID of the best
        d.ok(Act.THREAD_SET_STATE, t, State.READY)
        d.run(t)
        assert d.ok(Act.QUEUE_SEND, q, BLOCK)["blocked"] == 1
    res = d.ok(Act.QUEUE_RESET, q, BLOCK | FRONT)
    assert (res["tid"], res["value"], res["blocked"]) == (hi_b, 0, 0), "the first of the best to wait"
    d.ok(Act.THREAD_SET_STATE, hi_b, State.SUSPENDED)
    assert d.ok(Act.QUEUE_INFO, q)["value"] == 0 and d.ok(Act.QUEUE_INFO, q)["tid"] == 2
    d.fails(Act.QUEUE_RECV, q, 0, Status.QUEUE_EMPTY)
    # Senders and a receiver wait together: RESET wakes one sender, the receiver keeps waiting.
    d.ok(Act.THREAD_SET_STATE, rcv, State.READY)
    d.run(rcv)
    assert d.ok(Act.QUEUE_RECV, q, 0x800 | BLOCK)["blocked"] == 1
    assert d.m.queues[q].senders == {lo, hi_a} and d.m.queues[q].receivers == {rcv}
    res = d.ok(Act.QUEUE_RESET, q)
    assert res["tid"] == hi_a and d.info(hi_a)[2:] == (State.READY, Wait.NONE, 0)
    assert d.info(rcv)[2:] == (State.WAITING, Wait.QUEUE_RECV, q) and d.m.threads[rcv].wait_ptr == 0x800
    # A copy in flight: RESET still works (the copy's message was never stored).
    d.m.write(MSG0, 0x55)
    d.ok(Act.QUEUE_SEND, q)
    assert d.m.copy is not None and d.m.copy.words == (0x55,)
    assert d.ok(Act.QUEUE_RESET, q)["tid"] == lo
    assert d.ok(Act.QUEUE_RESET, q)["tid"] == NONE, "no sender left"
    d.m.copy_done(err=False)
    assert d.m.status_word() & 3 == 0
    # After a reset the ring starts empty, in both directions.
    _send(d, q, 3)
    _send(d, q, 4, FRONT)
    d.ok(Act.QUEUE_RESET, q)
    _send(d, q, 5)
    _send(d, q, 6, FRONT)
    assert [_recv(d, q)[1] for _ in range(2)] == [6, 5]


def test_handoff_0_wakes_and_leaves_it_in_the_object() -> None:
    """HANDOFF 0 (FreeRTOS's rule): a give, send or unlock with waiters keeps the count, the
    message or the free mutex in the object and only wakes the best waiter; a thread that runs
    first takes it; a lock of a free mutex that still has waiters inherits from them."""
    d = Drv()
    lo, w1, w2 = d.add(0x10, 1), d.add(0x20, 2), d.add(0x30, 2, ready=False)
    d.fails(Act.HANDOFF, 2, 0, Status.BAD_ARG)
    d.ok(Act.HANDOFF, 0)
    s = d.ok(Act.SEM_ALLOC, 0, 1)["tid"]
    d.run(w1)
    assert d.ok(Act.SEM_TAKE, s, BLOCK)["blocked"] == 1
    d.run(lo)
    res = d.ok(Act.SEM_GIVE, s)
    assert (res["tid"], res["value"], res["preempt"]) == (w1, 1, 1)
    assert d.info(w1)[2] == State.READY and not d.m.sems[s].waiters
    d.fails(Act.SEM_GIVE, s, 0, Status.BAD_ARG, 1)  # at max: refused, wakes nobody
    assert d.ok(Act.SEM_TAKE, s)["value"] == 0, "the giver, running first, takes the count"

    q = d.ok(Act.QUEUE_ALLOC, 1, 2)["tid"]
    d.run(w1)
    assert d.ok(Act.QUEUE_RECV, q, 0x1000 | BLOCK)["blocked"] == 1
    d.run(lo)
    d.m.msg[0] = 7
    res = d.ok(Act.QUEUE_SEND, q)
    assert (res["tid"], res["value"]) == (w1, 1) and d.m.copy is None, "stored, no copy"
    d.run(w1)
    d.m.msg[0] = 0
    assert d.ok(Act.QUEUE_RECV, q)["value"] == 0 and d.m.msg[0] == 7

    m = d.ok(Act.MUTEX_ALLOC)["tid"]
    d.ok(Act.MUTEX_LOCK, m)  # w1 owns it
    d.ok(Act.THREAD_SET_STATE, w2, State.READY)
    d.ok(Act.THREAD_SET_STATE, w1, State.SUSPENDED)
    d.run(w2)
    assert d.ok(Act.MUTEX_LOCK, m, BLOCK)["blocked"] == 1
    d.ok(Act.THREAD_SET_STATE, w1, State.READY)
    d.run(w1)
    res = d.ok(Act.MUTEX_UNLOCK, m)
    assert res["tid"] == w2 and d.ok(Act.MUTEX_INFO, m)["tid"] == NONE, "unlocked, w2 woken"
    d.ok(Act.MUTEX_LOCK, m)  # w1 locks it again first
    assert d.ok(Act.MUTEX_INFO, m)["tid"] == w1
    # w2 and a higher w3 wait; the unlock wakes w3 and leaves w2 waiting on the free mutex; lo,
    # running before both, locks it and inherits w2's priority.
    w3 = d.add(0x40, 3, ready=False)
    d.run(w2)
    assert d.ok(Act.MUTEX_LOCK, m, BLOCK)["blocked"] == 1
    d.ok(Act.THREAD_SET_STATE, w3, State.READY)
    d.run(w3)
    assert d.ok(Act.MUTEX_LOCK, m, BLOCK)["blocked"] == 1
    d.run(w1)
    assert d.ok(Act.MUTEX_UNLOCK, m)["tid"] == w3
    assert d.m.mutexes[m].waiters == {w2} and d.ok(Act.MUTEX_INFO, m)["tid"] == NONE
    d.ok(Act.THREAD_SET_STATE, w3, State.SUSPENDED)
    d.ok(Act.THREAD_SET_STATE, w1, State.SUSPENDED)
    d.run(lo)
    assert d.eprio(lo) == 1
    d.ok(Act.MUTEX_LOCK, m)
    assert d.eprio(lo) == 2, "the new owner inherits from the waiter left on the free mutex"
    d.ok(Act.HANDOFF, 1)


def test_handoff_1_needs_room_in_the_queue() -> None:
    """Receivers left waiting on a full queue (HANDOFF 0 woke another, whose message stays stored):
    after a change to HANDOFF 1 a send has no free slot to hold its message during a copy, so it
    is refused as on any full queue, and the stored message is received intact."""
    d = Drv()
    lo, r1, r2 = d.add(0x10, 1), d.add(0x20, 2), d.add(0x30, 2)
    q = d.ok(Act.QUEUE_ALLOC, 1, 1)["tid"]
    for r, buf in ((r1, 0x1000), (r2, 0x2000)):
        d.run(r)
        assert d.ok(Act.QUEUE_RECV, q, buf | BLOCK)["blocked"] == 1
    d.ok(Act.HANDOFF, 0)
    d.run(lo)
    d.m.msg[0] = 7
    assert d.ok(Act.QUEUE_SEND, q)["value"] == 1, "stored: the queue is full"
    assert d.m.queues[q].receivers, "one receiver still waits on the full queue"
    d.ok(Act.HANDOFF, 1)
    d.m.msg[0] = 8
    d.fails(Act.QUEUE_SEND, q, 0, Status.QUEUE_FULL, 1)
    assert d.m.copy is None
    d.m.msg[0] = 0
    assert d.ok(Act.QUEUE_RECV, q)["value"] == 0 and d.m.msg[0] == 7


def test_mutex_errors_and_table() -> None:
    d = Drv(NumMutex=2)
    m0, m1 = d.ok(Act.MUTEX_ALLOC)["tid"], d.ok(Act.MUTEX_ALLOC)["tid"]
    d.fails(Act.MUTEX_ALLOC, 0, 0, Status.TABLE_FULL)
    d.fails(Act.MUTEX_LOCK, m0, 0, Status.NO_CALLER)
    d.fails(Act.MUTEX_UNLOCK, m0, 0, Status.NO_CALLER)
    d.fails(Act.MUTEX_LOCK, 2, 0, Status.NO_ID)
    t0, t1 = d.add(1, 1), d.add(2, 1)
    d.run(t0)
    d.fails(Act.MUTEX_UNLOCK, m0, 0, Status.NOT_OWNER)  # unlocked
    d.ok(Act.MUTEX_LOCK, m0)
    d.fails(Act.MUTEX_LOCK, m0, BLOCK, Status.BAD_ARG)  # held by the caller
    d.fails(Act.THREAD_REMOVE, t0, 0, Status.BUSY)
    d.run(t1)
    d.fails(Act.MUTEX_LOCK, m0, 0, Status.UNAVAILABLE)
    d.fails(Act.MUTEX_UNLOCK, m0, 0, Status.NOT_OWNER)
    d.ok(Act.MUTEX_LOCK, m1)
    d.ok(Act.MUTEX_LOCK, m0, BLOCK)  # t1 waits on m0 (owned by t0) while owning m1
    s = d.ok(Act.SEM_ALLOC, 0, 1)["tid"]
    d.fails(Act.SEM_TAKE, s, BLOCK, Status.BAD_ARG)  # cur t1 already WAITING: no second wait
    d.run(t0)
    with pytest.raises(Unspecified):  # t0 waiting on m1 would close a wait cycle
        d.m.call(Act.MUTEX_LOCK, m1, BLOCK)
    d.fails(Act.MUTEX_LOCK, m1, 0, Status.UNAVAILABLE)
    d.fails(Act.MUTEX_FREE, m0, 0, Status.BUSY)  # t1 waits on it
    res = d.ok(Act.MUTEX_UNLOCK, m0)
    assert res["tid"] == t1 and d.ok(Act.MUTEX_INFO, m0)["tid"] == t1
    # A locked mutex nobody waits on may be freed (an OS deletes a held mutex): t1 owns nothing.
    d.ok(Act.MUTEX_FREE, m0)
    d.fails(Act.MUTEX_INFO, m0, 0, Status.NO_ID)
    d.ok(Act.MUTEX_FREE, m1)
    d.ok(Act.THREAD_REMOVE, t1)


def test_os_inheritance_leaves_every_priority_to_the_os() -> None:
    """MUTEX_INHERIT 0: THREAD_SET_PRIO sets eprio itself, no wait or unlock changes one (FreeRTOS's
    kernels do their own inheritance); refused while a mutex is locked; 1 again restores it."""
    d = Drv()
    d.fails(Act.MUTEX_INHERIT, 2, 0, Status.BAD_ARG)
    lo, hi = d.add(1, 1), d.add(2, 5, ready=False)
    m = d.ok(Act.MUTEX_ALLOC)["tid"]
    d.run(lo)
    d.ok(Act.MUTEX_LOCK, m)
    d.fails(Act.MUTEX_INHERIT, 0, 0, Status.BUSY)
    d.ok(Act.MUTEX_UNLOCK, m)
    d.ok(Act.MUTEX_INHERIT, 0)
    d.ok(Act.MUTEX_LOCK, m)
    d.ok(Act.THREAD_SET_STATE, hi, State.READY)
    d.run(hi)
    assert d.ok(Act.MUTEX_LOCK, m, BLOCK)["blocked"] == 1
    assert d.eprio(lo) == 1, "no inheritance by the accelerator"
    d.ok(Act.THREAD_SET_PRIO, lo, 5)  # the OS's inheritance
    assert d.info(lo)[:3] == (5, 5, State.READY) and d.m.ready[5] == [lo]
    d.run(lo)
    assert d.ok(Act.MUTEX_UNLOCK, m)["tid"] == hi
    assert d.eprio(lo) == 5, "an unlock leaves the OS's priority"
    d.ok(Act.THREAD_SET_PRIO, lo, 1)
    d.run(hi)
    d.ok(Act.MUTEX_UNLOCK, m)
    d.ok(Act.MUTEX_INHERIT, 1)
    d.ok(Act.MUTEX_LOCK, m)
    d.ok(Act.THREAD_SET_STATE, hi, State.SUSPENDED)
    d.run(lo)
    d.ok(Act.MUTEX_LOCK, m, BLOCK)
    d.ok(Act.THREAD_SET_PRIO, lo, 7)
    assert d.eprio(hi) == 7, "the accelerator's inheritance is back"
    no_pi = Drv(PrioInherit=0)
    no_pi.fails(Act.MUTEX_INHERIT, 1, 0, Status.BAD_ARG)
    no_pi.ok(Act.MUTEX_INHERIT, 0)
    # THREAD_SET_PRIO moves a READY thread only when its eprio changes.
    a, b = no_pi.add(1, 3), no_pi.add(2, 3)
    no_pi.ok(Act.THREAD_SET_PRIO, a, 3)
    assert no_pi.m.ready[3] == [a, b]
    no_pi.ok(Act.THREAD_SET_PRIO, a, 4)
    no_pi.ok(Act.THREAD_SET_PRIO, a, 3)
    assert no_pi.m.ready[3] == [b, a]


def test_removing_a_waiter_and_set_state_errors() -> None:
    d = Drv()
    t0, t1 = d.add(1, 1), d.add(2, 5, ready=False)
    m = d.ok(Act.MUTEX_ALLOC)["tid"]
    d.run(t0)
    d.ok(Act.MUTEX_LOCK, m)
    d.ok(Act.THREAD_SET_STATE, t1, State.READY)
    d.run(t1)
    d.ok(Act.MUTEX_LOCK, m, BLOCK)
    assert d.eprio(t0) == 5
    d.fails(Act.THREAD_SET_STATE, t1, 1, Status.BAD_ARG)
    d.fails(Act.THREAD_SET_STATE, t1, 4, Status.BAD_ARG)
    d.fails(Act.THREAD_SET_PRIO, t1, 8, Status.BAD_ARG)
    res = d.ok(Act.THREAD_REMOVE, t1)
    assert d.m.cur is None and res["preempt"] == 1
    assert d.eprio(t0) == 1 and d.ok(Act.MUTEX_INFO, m)["value"] == 0


def test_command_layer() -> None:
    m = RtosModel(Params(MsgWords=4))
    assert m.command(OP_READ, CONFIG) == (Params(MsgWords=4).config_word, False)
    assert Params().config_word == 8 | 8 << 5 | 1 << 10 | 1 << 11 | 4 << 12 | 4 << 16 | 4 << 20 | 16 << 24 | 3 << 29
    for op, index in ((OP_READ, 4), (OP_WRITE, 4), (OP_WRITE, STATUS), (OP_WRITE, CONFIG), (OP_WRITE, CALL0),
                      (OP_READ, 0x14), (OP_READ, 0x3F), (OP_EXEC, 0x0A), (OP_EXEC, 0x7F), (OP_READ, CALL0 + 0x0A),
                      (OP_WRITE2, 3), (OP_WRITE2, ARG_B), (4, 0), (7, CALL0)):
        assert m.command(op, index, 1, 2) == (0, True), f"op {op} index {index:#x}"
    assert m.command(OP_WRITE2, 2, 5, 6) == (0, False) and m.msg == [0, 0, 5, 6]
    assert m.command(OP_WRITE2, ARG_A, 0x1234, 0x100 | 3) == (0, False)
    assert m.command(OP_READ, ARG_B) == (0x103, False)
    res = decode_result(m.command(OP_READ, CALL0 + Act.THREAD_ADD)[0])
    assert res["tid"] == 0 and m.threads[0].tcb == 0x1234
    assert m.command(OP_READ, CALL0 + Act.SCHEDULE) == (0x1234, False)
    assert m.command(OP_READ, STATUS) == (0 << 8, False)
    with pytest.raises(CommandError):
        m.call(0x26)


def test_random_run_keeps_invariants() -> None:
    """Thousands of random actions: the model's own invariants hold and eprio follows its
    definition after every one (the same generator style as the lockstep test)."""
    rng = random.Random(1234)
    for params in (Params(), Params(MaxThreads=4, NumPrio=3, PrioAscending=0, NumMutex=3, MsgWords=2, QueueDepth=1)):
        m = RtosModel(params)
        acts = list(Act)
        for _ in range(4000):
            act = rng.choice(acts)
            a = rng.randrange(params.MaxThreads + 1) if rng.random() < 0.9 else rng.getrandbits(32)
            b = rng.choice([0, 1, 2, 3, ADD_READY | rng.randrange(16), rng.randrange(params.NumPrio)])
            snapshot = copy.deepcopy(m)
            try:
                m.call(act, a, b)
            except Unspecified:
                m = snapshot
            m.check_invariants()
            if m.copy is not None and rng.random() < 0.3:
                m.copy_done(rng.random() < 0.2)
