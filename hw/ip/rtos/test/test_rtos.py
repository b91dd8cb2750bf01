"""cocotb tests of couplet_rtos (hardware RTOS kernel services), in lockstep with the reference
model of rtos_model.py (written from hw/ip/rtos/README.md without the RTL).

The testbench drives the command port and plays the DMA engine, one model per port, all run by the
per-cycle task of `ClockedTb`:

- `CmdPort` issues commands with optional idle cycles and response back-pressure and checks one
  stable response per command, in order, never in the cycle the command is taken;
- `CopyDma` answers the job port and takes the output word stream like the DMA engine does for a
  message copy (job src 0, in_len 0, dst = the receiver's buffer, out_len = 4 * words), with random
  job_ready / out_ready, into a Python memory. It ends the job (job_done_i) only when the test says
  so, after every word or, with an injected bus error, after a random number of words
  (job_done + job_err + dma_abort, as couplet_dma does), so copies stay in flight across commands.

Every command's answer (data and err) is compared with the model as it is answered: result words,
SCHEDULE's tcb, STATUS, MSG, CONFIG reads; every copy job and the words it wrote; irq_o; and the
latency (README: 2 cycles for an action, plus one per priority-inheritance step, at most
3 + NumMutex for any command). Actions are issued in both couplings' shapes: EXEC index=k with
op_a/op_b (X-IF), and WRITE ARG_A / ARG_B (or WRITE2) + READ CALL[k] (memory-mapped).

Tests: reset state, a randomized lockstep run of thousands of operations, priority-inheritance
chains, full tables and errors, every (op, index) pair, message copies with errors. Builds: the
default parameters, a second parameter set and a tiny one (see BUILDS). On a mismatch the failure
names the last commands (the sequence to replay).

Run: .venv/bin/python -m pytest hw/ip/rtos/test/test_rtos.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import cocotb
import pytest

from couplet.model import rtl
from couplet.tools.cocotb_run import run_cocotb
from testsupport.accel_port_bfm import MEM_REQ, MEM_RSP, CmdPort
from testsupport.obi_bfm import MASK32, ClockedTb
from testsupport.struct_port import StructPort
from hw.ip.rtos.test.rtos_model import (
    ADD_READY, ARG_A, ARG_B, BLOCK, CALL0, CONFIG, FRONT, MSG0, NONE, OP_EXEC, OP_READ, OP_WRITE, OP_WRITE2, PEEK,
    STATUS, Act, Params, RtosModel, State, Status, Unspecified, decode_result,
)

HW_DIR = Path(__file__).resolve().parents[3]
IP_DIR = HW_DIR / "ip" / "rtos"
PARAMS_ENV = "COUPLET_RTOS_PARAMS"  # the build's parameters, as JSON, from the pytest side
BUILDS = {
    "default": {},
    "wide": {"MaxThreads": 16, "NumPrio": 16, "PrioAscending": 0, "PrioInherit": 0, "NumMutex": 2, "NumSem": 1,
             "NumQueue": 2, "MsgWords": 4, "QueueDepth": 2},
    # The smallest tables, and descending priorities with inheritance (the other builds pair them
    # the other way round).
    "tiny": {"MaxThreads": 2, "NumPrio": 2, "PrioAscending": 0, "NumMutex": 2, "NumSem": 1, "NumQueue": 1,
             "MsgWords": 1, "QueueDepth": 1},
}
RANDOM_OPS = 4000  # per build
# Actions that may run a priority-inheritance walk (README "Priority inheritance").
WALK_ACTIONS = frozenset({Act.THREAD_REMOVE, Act.THREAD_SET_STATE, Act.THREAD_SET_PRIO, Act.THREAD_UNBLOCK,
                          Act.MUTEX_LOCK, Act.MUTEX_UNLOCK})
ACTION_LATENCY = 2


def rtl_files() -> list[Path]:
    """The accelerator port's sources, then the files rtos.core lists, in its order."""
    files = rtl.accel_port_sources()
    for line in (IP_DIR / "rtos.core").read_text().splitlines():
        line = line.strip()
        if line.startswith("- ") and line.endswith(".sv"):
            files.append(IP_DIR / line[2:].strip())
    return files


def build_params() -> Params:
    return Params(**json.loads(os.environ.get(PARAMS_ENV, "{}")))


# --------------------------------------------------------------------------------- port models
@dataclass
class CopyJob:
    dst: int
    out_len: int
    src: int
    in_len: int
    accept_cycle: int
    words: list[int] = field(default_factory=list)
    done_cycle: int | None = None
    err: bool = False


class CopyDma:
    """The DMA engine's side of the job port and the output word stream, for message copies."""

    def __init__(self, dut: object, rng: random.Random) -> None:
        self.dut = dut
        self.mem_req = StructPort(dut, "mem_req_o", MEM_REQ)
        self.mem_rsp = StructPort(dut, "mem_rsp_i", MEM_RSP)
        self.rng = rng
        self.job_ready_prob = 0.5
        self.out_ready_prob = 0.6
        self.stray_abort_prob = 0.01
        self.memory: dict[int, int] = {}
        self.jobs: list[CopyJob] = []
        self.active: CopyJob | None = None
        self.end_request: tuple[bool, int] | None = None  # (err, words before the error)
        self._ready = 0
        self._out_ready = 0
        self._pulse: tuple[int, int, int] = (0, 0, 0)  # (done, err, abort) for the next cycle
        self._held: int | None = None

    def reset_values(self) -> None:
        for name in ("job_ready", "job_done", "job_err", "job_abort", "out_ready", "in_valid", "in_data"):
            self.mem_rsp[name].value = 0

    def drive(self, cycle: int) -> None:
        dut = self.dut
        self._ready = int(self.active is None and self.rng.random() < self.job_ready_prob)
        self.mem_rsp.job_ready.value = self._ready
        stopped = self._pulse != (0, 0, 0) or self.active is None
        self._out_ready = int(not stopped and self.rng.random() < self.out_ready_prob)
        self.mem_rsp.out_ready.value = self._out_ready
        done, err, abort = self._pulse
        if self.active is None and not self._ready and self.rng.random() < self.stray_abort_prob:
            abort = 1  # another job's abort (README: ignored while no copy job was taken)
        self.mem_rsp.job_done.value = done
        self.mem_rsp.job_err.value = err if done else self.rng.getrandbits(1)  # only meaningful with done
        self.mem_rsp.job_abort.value = abort
        self.mem_rsp.in_valid.value = 0
        self.mem_rsp.in_data.value = self.rng.getrandbits(32)
        if done:
            assert self.active is not None
            self.active.done_cycle = cycle
            self.active.err = bool(err)
            self.active = None
        self._pulse = (0, 0, 0)

    def sample(self, cycle: int) -> None:
        dut = self.dut
        job = self.active
        if job is not None and self._out_ready and int(self.mem_req.out_valid.value):
            assert len(job.words) < job.out_len // 4, f"cycle {cycle}: more words than out_len {job.out_len}"
            word = int(self.mem_req.out_data.value)
            self.memory[(job.dst + 4 * len(job.words)) & MASK32] = word
            job.words.append(word)
        if job is not None and self.end_request is not None and self._pulse == (0, 0, 0):
            err, after = self.end_request
            if err and len(job.words) >= after:
                self._pulse = (1, 1, 1)
                self.end_request = None
            elif not err and len(job.words) == job.out_len // 4:
                self._pulse = (1, 0, 0)
                self.end_request = None
        if int(self.mem_req.job_valid.value):
            value = int(self.mem_req.job.value)
            assert self._held is None or value == self._held, f"cycle {cycle}: job_o changed while waiting"
            self._held = None if self._ready else value
            if self._ready:
                assert self.active is None
                job = CopyJob(src=value >> 96, dst=value >> 64 & MASK32, in_len=value >> 32 & MASK32,
                              out_len=value & MASK32, accept_cycle=cycle)
                self.jobs.append(job)
                self.active = job
        else:
            assert self._held is None, f"cycle {cycle}: job_valid fell without job_ready"


# ---------------------------------------------------------------------------------- testbench
class Mismatch(AssertionError):
    pass


class RtosTb(ClockedTb):
    def __init__(self, dut: object) -> None:
        super().__init__(dut)
        self.params = build_params()
        self.model = RtosModel(self.params)
        self.cmd = CmdPort(dut, self.rng, wait_cycles=200)
        self.dma = CopyDma(dut, self.rng)
        self.history: deque[str] = deque(maxlen=40)
        self.latencies: dict[str, set[int]] = {}
        self.check_latency = True
        self.count = 0
        self.add(self.cmd, self.dma)

    async def start(self) -> None:
        await self.reset()
        await self.cycles(2)
        self.expect_quiet("after reset")
        assert int(self.dut.irq_o.value) == 0, "irq_o after reset"

    def expect_quiet(self, what: str) -> None:
        """No copy in flight (by the model): no job offered, no word on the output stream."""
        if self.model.copy is None and self.dma.active is None:
            for name in ("job_valid", "out_valid"):
                assert self.dma.mem_req[name].value == 0, f"{name} high {what} with no copy in flight"

    def fail(self, text: str) -> None:
        trail = "\n  ".join(self.history)
        raise Mismatch(f"{text}\nlast commands (oldest first):\n  {trail}")

    # -- one command in lockstep with the model
    async def command(self, op: int, index: int, a: int = 0, b: int = 0, what: str = "") -> tuple[int, bool]:
        a &= MASK32
        b &= MASK32
        expected = self.model.command(op, index, a, b)
        cmd = await self.cmd.request(op, index, a, b)
        assert cmd.data is not None and cmd.err is not None
        got = (cmd.data, cmd.err)
        self.count += 1
        line = f"op={op} index=0x{index:02x} a=0x{a:08x} b=0x{b:08x} {what}-> data=0x{cmd.data:08x} err={int(cmd.err)}"
        self.history.append(line)
        if got != expected:
            self.fail(f"mismatch: {line}; model: data=0x{expected[0]:08x} err={int(expected[1])}"
                      f"{self.explain(op, index, expected[0], cmd.data)}")
        self.check_timing(op, index, cmd.latency)
        return got

    def explain(self, op: int, index: int, want: int, got: int) -> str:
        action = index if op == OP_EXEC else index - CALL0 if op == OP_READ and index >= CALL0 else None
        if action is None or action in (Act.SCHEDULE, Act.THREAD_TCB) or action not in {int(x) for x in Act}:
            return ""
        pad = " " * len(Act(action).name)
        return f"\n  {Act(action).name}: model {decode_result(want)}\n  {pad}  RTL   {decode_result(got)}"

    def check_timing(self, op: int, index: int, latency: int) -> None:
        p = self.params
        action = index if op == OP_EXEC else index - CALL0 if op == OP_READ and index >= CALL0 else None
        name = Act(action).name if action is not None and action in {int(x) for x in Act} else f"op{op}"
        if not self.check_latency:  # back-pressure phase: the latency includes stalls
            return
        self.latencies.setdefault(name, set()).add(latency)
        if not 1 <= latency <= 3 + p.NumMutex:
            self.fail(f"{name}: answered {latency} cycles after it was taken (README: 1..{3 + p.NumMutex})")
        if name in Act.__members__ and Act[name] not in WALK_ACTIONS and latency != ACTION_LATENCY:
            self.fail(f"{name}: answered after {latency} cycles, README: {ACTION_LATENCY} (no inheritance walk)")
        # A walk after THREAD_SET_PRIO of a waiting thread recomputes the thread itself and then up
        # to NumMutex owners, so its bound is the command bound, 3 + NumMutex, not 2 + NumMutex.
        if name in Act.__members__ and latency < ACTION_LATENCY:
            self.fail(f"{name}: answered after {latency} cycles, README: 2 + walk steps")

    async def action(self, act: Act, a: int = 0, b: int = 0, shape: str | None = None) -> int:
        """Runs an action in one of the two couplings' shapes (random by default); returns its answer."""
        shape = shape or self.rng.choice(("exec", "exec", "regs", "regs2"))
        if shape == "exec":
            data, err = await self.command(OP_EXEC, act, a, b, f"[{act.name}] ")
        else:
            if shape == "regs2":
                await self.command(OP_WRITE2, ARG_A, a, b)
            else:
                await self.command(OP_WRITE, ARG_A, a)
                await self.command(OP_WRITE, ARG_B, b)
            data, err = await self.command(OP_READ, CALL0 + act, what=f"[{act.name}] ")
        assert not err
        return data

    async def ok(self, act: Act, a: int = 0, b: int = 0) -> dict[str, int]:
        res = decode_result(await self.action(act, a, b))
        assert res["status"] == Status.OK, f"{act.name}({a:#x}, {b:#x}) refused: {Status(res['status']).name}"
        return res

    async def read(self, index: int) -> int:
        data, _ = await self.command(OP_READ, index)
        return data

    # -- copies
    async def end_copy(self, err: bool) -> None:
        """Let the DMA end the copy in flight (after all words, or with a bus error after a random
        number of them), then check the job and the words it wrote."""
        want = self.model.copy
        assert want is not None
        self.dma.end_request = (err, self.rng.randint(0, len(want.words)))
        for _ in range(2000):
            await self.sample_point()
            if self.dma.end_request is None and self.dma.active is None:
                break
        else:
            self.fail(f"copy to 0x{want.dst:08x} never ended (job offered: {bool(self.dma.jobs)}, "
                      f"words {len(self.dma.active.words) if self.dma.active else '-'})")
        await self.cycles(2)
        job = self.dma.jobs[-1]
        self.model.copy_done(err)
        self.history.append(f"copy to 0x{want.dst:08x} ended{' with a bus error' if err else ''}")
        got = (job.src, job.in_len, job.dst, job.out_len)
        if got != (0, 0, want.dst, 4 * len(want.words)):
            self.fail(f"copy job (src, in_len, dst, out_len) = {got}, "
                      f"expected (0, 0, {want.dst:#x}, {4 * len(want.words)})")
        n = len(job.words) if err else len(want.words)
        if job.words[:n] != list(want.words[:n]) or (not err and len(job.words) != n):
            self.fail(f"copied words {job.words}, expected {list(want.words)}")
        if not err and [self.dma.memory[(want.dst + 4 * i) & MASK32] for i in range(n)] != list(want.words):
            self.fail("memory after the copy")
        self.expect_quiet("after the copy ended")
        self.expect_irq()

    def expect_irq(self) -> None:
        if int(self.dut.irq_o.value) != int(self.model.irq):
            self.fail(f"irq_o={int(self.dut.irq_o.value)}, model {int(self.model.irq)}")

    async def read_status(self) -> int:
        status = await self.read(STATUS)
        await self.cycles(1)
        self.expect_irq()
        return status

    async def audit(self) -> None:
        """Every observable of the state, through commands compared with the model."""
        p = self.params
        for t in range(p.MaxThreads):
            await self.action(Act.THREAD_INFO, t)
            await self.action(Act.THREAD_TCB, t)
        for act, n in ((Act.MUTEX_INFO, p.NumMutex), (Act.SEM_INFO, p.NumSem), (Act.QUEUE_INFO, p.NumQueue)):
            for i in range(n):
                await self.action(act, i)
        await self.action(Act.CURRENT)
        for i in range(p.MsgWords):
            await self.read(MSG0 + i)
        await self.read_status()

    # -- priorities by rank, so tests read the same in both orders
    def prio(self, rank: int) -> int:
        rank = max(0, min(rank, self.params.NumPrio - 1))
        return rank if self.params.PrioAscending else self.params.NumPrio - 1 - rank

    async def add_thread(self, tcb: int, rank: int, ready: bool = True) -> int:
        return (await self.ok(Act.THREAD_ADD, tcb, self.prio(rank) | (ADD_READY if ready else 0)))["tid"]

    async def run(self, tid: int) -> None:
        """SCHEDULE until `tid` runs (the test made it the highest READY thread)."""
        for _ in range(2 * self.params.MaxThreads + 2):
            await self.action(Act.SCHEDULE)
            if self.model.cur == tid:
                return
        raise AssertionError(f"TID {tid} never scheduled")


# ------------------------------------------------------------------------- random operations
class Generator:
    """Random commands weighted to be meaningful: mostly valid ids, blocking calls, SCHEDULE
    often, some errors. It looks at the model only to pick arguments."""

    WEIGHTS = {
        Act.SCHEDULE: 14, Act.THREAD_ADD: 5, Act.THREAD_REMOVE: 1.5, Act.THREAD_SET_STATE: 5,
        Act.THREAD_SET_PRIO: 3, Act.THREAD_INFO: 2, Act.THREAD_TCB: 1, Act.THREAD_FIND: 1.5,
        Act.THREAD_UNBLOCK: 2, Act.CURRENT: 1, Act.MUTEX_ALLOC: 1.5, Act.MUTEX_FREE: 0.7, Act.MUTEX_LOCK: 8,
        Act.MUTEX_UNLOCK: 7, Act.MUTEX_INFO: 1, Act.MUTEX_INHERIT: 0.6, Act.SEM_ALLOC: 1.2, Act.SEM_FREE: 0.5, Act.SEM_TAKE: 5,
        Act.SEM_GIVE: 5, Act.SEM_INFO: 0.7, Act.QUEUE_ALLOC: 1.2, Act.QUEUE_FREE: 0.5, Act.QUEUE_SEND: 6,
        Act.QUEUE_RECV: 6, Act.QUEUE_INFO: 0.7, Act.QUEUE_RESET: 0.8, Act.HANDOFF: 0.8,
    }
    REG_OPS = {"msg_write": 5, "msg_write2": 3, "msg_read": 2, "status": 3, "config": 0.3, "arg_read": 0.5,
               "bad": 1.0}

    def __init__(self, rng: random.Random, model: RtosModel) -> None:
        self.rng = rng
        self.m = model
        self.p = model.p
        self.choices = [(k, w) for k, w in self.WEIGHTS.items()] + [(k, w) for k, w in self.REG_OPS.items()]
        self.popular = rng.sample(range(model.p.NumPrio), 2)

    def pick(self) -> Act | str:
        keys, weights = zip(*self.choices)
        while True:
            kind: Act | str = self.rng.choices(keys, weights)[0]
            if not self.full(kind) or self.rng.random() < 0.2:  # a full table: mostly pick again
                return kind

    def full(self, kind: Act | str) -> bool:
        m = self.m
        if not isinstance(kind, Act):
            return False
        table = {Act.THREAD_ADD: [th.valid for th in m.threads], Act.MUTEX_ALLOC: [x.alloc for x in m.mutexes],
                 Act.SEM_ALLOC: [x.alloc for x in m.sems], Act.QUEUE_ALLOC: [x.alloc for x in m.queues]}.get(kind)
        return table is not None and all(table)

    def some_id(self, n: int, good: list[int]) -> int:
        r = self.rng.random()
        if good and r < 0.85:
            return self.rng.choice(good)
        if r < 0.95:
            return self.rng.randrange(n + 1)
        return self.rng.choice([n, n + 1, 0x100, 0x8000_0000 | self.rng.randrange(n), MASK32, self.rng.getrandbits(32)])

    def tid(self) -> int:
        return self.some_id(self.p.MaxThreads, [t for t, th in enumerate(self.m.threads) if th.valid])

    def prio(self) -> int:
        r = self.rng.random()
        if r < 0.5:  # two favourite priorities, so that waiters and ready queues often tie
            return self.rng.choice(self.popular)
        if r < 0.95:
            return self.rng.randrange(self.p.NumPrio)
        return self.rng.choice([self.p.NumPrio, 15, 16, 0x100 | self.rng.randrange(self.p.NumPrio)])

    def tcb(self) -> int:
        used = [th.tcb for th in self.m.threads if th.valid]
        if used and self.rng.random() < 0.1:
            return self.rng.choice(used)
        return 0x2000_0000 | self.rng.randrange(0x10000) << 4

    def args(self, act: Act) -> tuple[int, int]:
        rng, p, m = self.rng, self.p, self.m
        block = int(rng.random() < 0.7)
        mutexes = [i for i, x in enumerate(m.mutexes) if x.alloc]
        sems = [i for i, x in enumerate(m.sems) if x.alloc]
        queues = [i for i, x in enumerate(m.queues) if x.alloc]
        if act == Act.THREAD_ADD:
            b = self.prio() & 0xF | (ADD_READY if rng.random() < 0.8 else 0)
            if rng.random() < 0.05:
                b |= rng.getrandbits(4) << 4  # bits outside 3:0 and 8 mean nothing
            return self.tcb(), b
        if act == Act.THREAD_SET_STATE:
            bad = rng.random() < 0.1
            return self.tid(), rng.choice([1, 4, rng.getrandbits(32)] if bad else [0, 2, 3])
        if act == Act.THREAD_SET_PRIO:
            return self.tid(), self.prio()
        if act == Act.THREAD_FIND:
            return self.tcb(), 0
        if act in (Act.THREAD_REMOVE, Act.THREAD_INFO, Act.THREAD_TCB):
            return self.tid(), 0
        if act == Act.THREAD_UNBLOCK:
            waiting = [t for t, th in enumerate(m.threads) if th.valid and th.state == State.WAITING]
            return (rng.choice(waiting) if waiting and rng.random() < 0.8 else self.tid()), 0
        if act == Act.MUTEX_UNLOCK:
            mine = [i for i, x in enumerate(m.mutexes) if x.alloc and x.owner is not None and x.owner == m.cur]
            return (rng.choice(mine) if mine and rng.random() < 0.85 else self.some_id(p.NumMutex, mutexes)), 0
        if act in (Act.MUTEX_FREE, Act.MUTEX_LOCK, Act.MUTEX_INFO):
            return self.some_id(p.NumMutex, mutexes), block
        if act == Act.MUTEX_INHERIT:  # mostly refused (BUSY) while mutexes are locked
            return rng.choice([0, 1, 1, 2, rng.getrandbits(32)]), 0
        if act == Act.HANDOFF:  # both rules about equally often, so that each meets waiters
            return rng.choice([0, 0, 1, 1, 2, rng.getrandbits(32)]), 0
        if act == Act.SEM_ALLOC:
            if rng.random() < 0.9:
                top = rng.randint(1, 4)
                return rng.randint(0, top), top
            return rng.choice([(0, 0), (3, 2), (0, 0x10000), (0xFFFF, 0xFFFF),
                               (rng.getrandbits(32), rng.getrandbits(32))])
        if act in (Act.SEM_FREE, Act.SEM_TAKE, Act.SEM_GIVE, Act.SEM_INFO):
            return self.some_id(p.NumSem, sems), block
        if act == Act.QUEUE_ALLOC:
            if rng.random() < 0.9:
                return rng.randint(1, p.MsgWords), rng.randint(1, p.QueueDepth)
            return rng.choice([(0, 1), (p.MsgWords + 1, 1), (1, 0), (1, p.QueueDepth + 1), (rng.getrandbits(32), 1)])
        if act == Act.QUEUE_RECV:  # b[1] is PEEK
            ptr = 0x1000_0000 | rng.randrange(0x4000) << 2
            return self.some_id(p.NumQueue, queues), ptr | block | rng.getrandbits(1) << 1
        if act == Act.QUEUE_SEND:  # b[1] is FRONT
            return self.some_id(p.NumQueue, queues), block | rng.getrandbits(1) << 1
        if act == Act.QUEUE_RESET:  # b means nothing
            return self.some_id(p.NumQueue, queues), rng.getrandbits(32) if rng.random() < 0.3 else 0
        if act in (Act.QUEUE_FREE, Act.QUEUE_INFO):
            return self.some_id(p.NumQueue, queues), block
        return rng.getrandbits(32) if rng.random() < 0.3 else 0, rng.getrandbits(32) if rng.random() < 0.3 else 0

    def register_op(self, kind: str) -> tuple[int, int, int, int]:
        rng, p = self.rng, self.p
        if kind == "msg_write":
            return OP_WRITE, rng.randrange(p.MsgWords), rng.getrandbits(32), rng.getrandbits(32)
        if kind == "msg_write2":
            return OP_WRITE2, rng.randrange(max(1, p.MsgWords - 1)), rng.getrandbits(32), rng.getrandbits(32)
        if kind == "msg_read":
            return OP_READ, rng.randrange(p.MsgWords), 0, 0
        if kind == "status":
            return OP_READ, STATUS, 0, 0
        if kind == "config":
            return OP_READ, CONFIG, 0, 0
        if kind == "arg_read":
            return OP_READ, rng.choice([ARG_A, ARG_B]), 0, 0
        # Commands that do not exist (or MSG words beyond MsgWords, WRITE2 across the end).
        op = rng.choice([OP_READ, OP_WRITE, OP_WRITE2, OP_EXEC, 4, 5, 6, 7])
        index = rng.choice([p.MsgWords, 15, 0x14, 0x3F, STATUS, CONFIG, CALL0 + 0x0A, CALL0 + 0x3F, 0x26, 0x7F,
                            ARG_B, rng.randrange(128)])
        return op, index, rng.getrandbits(32), rng.getrandbits(32)


async def random_run(tb: RtosTb, ops: int) -> dict[str, int]:
    gen = Generator(tb.rng, tb.model)
    counts: dict[str, int] = {}
    skipped = 0
    for n in range(ops):
        if n % 500 == 250:  # phases of command-port back-pressure (latency then includes stalls)
            stall = tb.rng.random() < 0.5
            tb.cmd.rsp_ready_prob = 0.6 if stall else 1.0
            tb.cmd.idle_prob = 0.3 if stall else 0.0
            tb.check_latency = not stall
        if n % 200 == 199:
            await tb.audit()
        if tb.model.copy is not None and tb.rng.random() < 0.12:
            await tb.end_copy(err=tb.rng.random() < 0.2)
            counts["copy"] = counts.get("copy", 0) + 1
        tb.expect_quiet(f"before command {tb.count}")
        kind = gen.pick()
        if isinstance(kind, Act):
            a, b = gen.args(kind)
            trial = copy.deepcopy(tb.model)
            try:
                trial.call(kind, a, b)
            except Unspecified:
                skipped += 1
                continue
            res = await tb.action(kind, a, b)
            name = kind.name
            if kind not in (Act.SCHEDULE, Act.THREAD_TCB):
                name += "/" + Status(res & 0xF).name + ("/blocked" if res >> 4 & 1 else "")
        else:
            op, index, a, b = gen.register_op(kind)
            await tb.command(op, index, a, b)
            if index == STATUS and op == OP_READ:
                await tb.cycles(1)
                tb.expect_irq()
            name = kind
        counts[name] = counts.get(name, 0) + 1
    counts["skipped (unspecified)"] = skipped
    return counts


# ------------------------------------------------------------------------------------- tests
@cocotb.test()
async def rtos_reset_and_config(dut):
    """After reset: STATUS = cur none, nothing busy, CONFIG = the build's parameters, all tables
    empty (every info action answers NO_ID), irq low."""
    tb = RtosTb(dut)
    await tb.start()
    assert await tb.read_status() == NONE << 8
    assert await tb.read(CONFIG) == tb.params.config_word
    await tb.audit()
    assert await tb.action(Act.SCHEDULE) == 0


@cocotb.test()
async def rtos_random_lockstep(dut):
    """Thousands of random operations in lockstep with the model: every answer, SCHEDULE's tcb,
    STATUS, MSG, every copy job and its words, irq_o and the latency."""
    tb = RtosTb(dut)
    await tb.start()
    counts = await random_run(tb, RANDOM_OPS)
    while tb.model.copy is not None:
        await tb.end_copy(err=False)
    await tb.audit()
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    dut._log.info("%d commands; %s", tb.count, summary)
    dut._log.info("latencies: %s", {k: sorted(v) for k, v in sorted(tb.latencies.items())})
    ok = [k for k in counts if k.endswith("/OK/blocked")]
    assert len(ok) >= 2 or tb.params.MaxThreads < 4, f"too few blocking calls: {summary}"
    assert counts.get("copy", 0) > 0 or tb.params.MaxThreads < 4, "no message copy ended"


@cocotb.test()
async def rtos_priority_inheritance(dut):
    """A chain of min(3, NumMutex) mutexes: each thread owns one and waits on the previous owner's,
    the top waiter's priority rises through the whole chain (SET_PRIO raises and lowers it), a
    THREAD_UNBLOCK of the top waiter lowers the chain, unlocks restore every owner. With
    PrioInherit 0 the same sequence leaves eprio = bprio (checked by the model through INFO)."""
    tb = RtosTb(dut)
    await tb.start()
    p = tb.params
    depth = min(3, p.NumMutex, p.MaxThreads - 1)
    mutexes = [(await tb.ok(Act.MUTEX_ALLOC))["tid"] for _ in range(depth)]
    owners = [await tb.add_thread(0x3000 + 16 * i, i, ready=(i == 0)) for i in range(depth)]
    top = await tb.add_thread(0x3FF0, depth + 2, ready=False)
    for i, t in enumerate(owners):
        if i:
            await tb.ok(Act.THREAD_SET_STATE, t, State.READY)
        await tb.run(t)
        await tb.ok(Act.MUTEX_LOCK, mutexes[i], BLOCK)
        if i:
            res = await tb.ok(Act.MUTEX_LOCK, mutexes[i - 1], BLOCK)
            assert res["blocked"] == 1
        await tb.audit()
    await tb.ok(Act.THREAD_SET_STATE, top, State.READY)
    await tb.run(top)
    assert (await tb.ok(Act.MUTEX_LOCK, mutexes[-1], BLOCK))["blocked"] == 1
    await tb.audit()
    if p.PrioInherit and p.NumPrio > depth + 1:
        assert all(tb.model.threads[t].eprio == tb.model.threads[top].bprio for t in owners), "chain raised"
    for rank in (depth + 3, 0, depth + 2):
        await tb.ok(Act.THREAD_SET_PRIO, top, tb.prio(rank))
        await tb.audit()
    # The OS times out the top waiter: the chain falls back; it waits again.
    await tb.ok(Act.THREAD_UNBLOCK, top)
    await tb.audit()
    await tb.run(top)
    await tb.ok(Act.MUTEX_LOCK, mutexes[-1], BLOCK)
    # Unlock from the bottom: each owner gets its base priority back.
    for i, t in enumerate(owners):
        await tb.run(t)
        res = await tb.ok(Act.MUTEX_UNLOCK, mutexes[i])
        await tb.audit()
        if i + 1 < depth:
            assert res["tid"] == owners[i + 1]
            await tb.run(owners[i + 1])
            await tb.ok(Act.MUTEX_UNLOCK, mutexes[i])
    await tb.audit()
    assert all(th.eprio == th.bprio for th in tb.model.threads if th.valid)


@cocotb.test()
async def rtos_os_inheritance(dut):
    """MUTEX_INHERIT 0 (an OS with its own inheritance rules): the chain of
    rtos_priority_inheritance raises nobody, THREAD_SET_PRIO sets the OS's priority at once (no
    walk: answered in ACTION_LATENCY), an unlock leaves it; a mutex a thread waits on cannot be
    freed. Then 1 again, and the accelerator's inheritance is back."""
    tb = RtosTb(dut)
    await tb.start()
    p = tb.params
    await tb.ok(Act.MUTEX_INHERIT, 0)
    m = (await tb.ok(Act.MUTEX_ALLOC))["tid"]
    lo = await tb.add_thread(0x3100, 0)
    hi = await tb.add_thread(0x3200, p.NumPrio - 1, ready=False)
    await tb.run(lo)
    await tb.ok(Act.MUTEX_LOCK, m, BLOCK)
    await tb.ok(Act.THREAD_SET_STATE, hi, State.READY)
    await tb.run(hi)
    assert (await tb.ok(Act.MUTEX_LOCK, m, BLOCK))["blocked"] == 1
    await tb.audit()
    assert tb.model.threads[lo].eprio == tb.prio(0), "the accelerator raised the owner"
    await tb.ok(Act.THREAD_SET_PRIO, lo, tb.prio(p.NumPrio - 1))
    assert tb.latencies["THREAD_SET_PRIO"] == {ACTION_LATENCY}
    await tb.action(Act.MUTEX_FREE, m)  # BUSY: hi waits on it
    await tb.run(lo)
    assert (await tb.ok(Act.MUTEX_UNLOCK, m))["tid"] == hi
    await tb.audit()
    assert tb.model.threads[lo].eprio == tb.prio(p.NumPrio - 1), "the unlock changed the OS's priority"
    await tb.ok(Act.THREAD_SET_PRIO, lo, tb.prio(0))
    await tb.run(hi)
    await tb.ok(Act.MUTEX_UNLOCK, m)
    await tb.action(Act.MUTEX_INHERIT, 1)
    await tb.audit()
    assert tb.model.inherit == bool(p.PrioInherit)


@cocotb.test()
async def rtos_tables_and_errors(dut):
    """Full tables (threads, mutexes, semaphores, queues), queue full and empty, semaphore at max,
    unknown ids (out of range, free, huge), NO_CALLER, NOT_OWNER, BUSY, BAD_ARG."""
    tb = RtosTb(dut)
    await tb.start()
    p = tb.params
    for t in range(p.MaxThreads):
        await tb.add_thread(0x4000 + 4 * t, t % p.NumPrio, ready=t % 3 != 2)
    assert decode_result(await tb.action(Act.THREAD_ADD, 0x5000, ADD_READY))["status"] == Status.TABLE_FULL
    for act, n, a, b in ((Act.MUTEX_ALLOC, p.NumMutex, 0, 0), (Act.SEM_ALLOC, p.NumSem, 1, 1),
                         (Act.QUEUE_ALLOC, p.NumQueue, p.MsgWords, p.QueueDepth)):
        for _ in range(n + 1):
            await tb.action(act, a, b)
    # A bad argument with a full table (which of the two codes wins).
    for act, a, b in ((Act.THREAD_ADD, 0x5000, 0xF), (Act.SEM_ALLOC, 2, 1), (Act.SEM_ALLOC, 0, 0),
                      (Act.QUEUE_ALLOC, 0, 1), (Act.QUEUE_ALLOC, 1, p.QueueDepth + 1)):
        await tb.action(act, a, b)
    for act in (Act.THREAD_INFO, Act.THREAD_REMOVE, Act.THREAD_SET_STATE, Act.THREAD_SET_PRIO, Act.THREAD_UNBLOCK,
                Act.THREAD_TCB, Act.MUTEX_INFO, Act.MUTEX_LOCK, Act.MUTEX_UNLOCK, Act.MUTEX_FREE, Act.SEM_INFO,
                Act.SEM_TAKE, Act.SEM_GIVE, Act.SEM_FREE, Act.QUEUE_INFO, Act.QUEUE_SEND, Act.QUEUE_RECV,
                Act.QUEUE_FREE, Act.QUEUE_RESET):
        for bad in (p.MaxThreads, 8, 16, 0x100, 0x8000_0001, MASK32):
            await tb.action(act, bad, 0)
    await tb.action(Act.MUTEX_LOCK, 0, BLOCK)  # NO_CALLER
    await tb.action(Act.MUTEX_UNLOCK, 0)
    await tb.action(Act.SEM_TAKE, 0, BLOCK)
    await tb.action(Act.SCHEDULE)  # the highest READY thread runs
    # Semaphore 0 (count 1, max 1): GIVE at max, TAKE to empty, UNAVAILABLE.
    for act, b in ((Act.SEM_GIVE, 0), (Act.SEM_TAKE, 0), (Act.SEM_TAKE, 0), (Act.SEM_GIVE, 0), (Act.SEM_GIVE, 0)):
        await tb.action(act, 0, b)
    # Queue 0: fill to depth, QUEUE_FULL, drain, QUEUE_EMPTY; each message checked through MSG.
    for _ in range(p.QueueDepth + 1):
        for w in range(p.MsgWords):
            await tb.command(OP_WRITE, MSG0 + w, tb.rng.getrandbits(32))
        await tb.action(Act.QUEUE_SEND, 0, 0)
    for _ in range(p.QueueDepth + 1):
        await tb.action(Act.QUEUE_RECV, 0, 0x100)
        for w in range(p.MsgWords):
            await tb.read(MSG0 + w)
    # Mutex 0 by the running thread: lock, lock again (BAD_ARG), remove owner (BUSY), MUTEX_INHERIT
    # (BUSY while locked); mutex 1 too, then freed while locked (no waiters: OK).
    if tb.model.cur is not None:
        await tb.action(Act.MUTEX_LOCK, 0, BLOCK)
        await tb.action(Act.MUTEX_LOCK, 0, BLOCK)
        await tb.action(Act.THREAD_REMOVE, tb.model.cur)
        await tb.action(Act.MUTEX_INHERIT, 0)
        await tb.action(Act.MUTEX_UNLOCK, 0)
        await tb.action(Act.MUTEX_UNLOCK, 0)  # NOT_OWNER (unlocked)
        if p.NumMutex > 1:
            await tb.action(Act.MUTEX_LOCK, 1, 0)
            await tb.action(Act.MUTEX_FREE, 1)
            await tb.action(Act.MUTEX_INFO, 1)  # NO_ID
            await tb.ok(Act.MUTEX_ALLOC)
    for a in (2, 0x8000_0001, MASK32, 1, 0, 1):  # BAD_ARG, then (1 without PrioInherit: BAD_ARG) OK
        await tb.action(Act.MUTEX_INHERIT, a)
    for b in (1, 4, 0x100, MASK32):
        await tb.action(Act.THREAD_SET_STATE, 0, b)
    for b in (p.NumPrio, 0x10, MASK32):
        await tb.action(Act.THREAD_SET_PRIO, 0, b)
    await tb.audit()
    # Free everything, then the tables fill again from id 0.
    for t in range(p.MaxThreads):
        await tb.action(Act.THREAD_REMOVE, t)
    for act, n in ((Act.MUTEX_FREE, p.NumMutex), (Act.SEM_FREE, p.NumSem), (Act.QUEUE_FREE, p.NumQueue)):
        for i in reversed(range(n)):
            await tb.action(act, i)
    await tb.audit()
    assert (await tb.ok(Act.MUTEX_ALLOC))["tid"] == 0


@cocotb.test()
async def rtos_every_command(dut):
    """Every op (0..7) at every index (0..127), in both shapes where they apply: err exactly for
    the commands that do not exist; the rest answered as the model answers."""
    tb = RtosTb(dut)
    await tb.start()
    await tb.add_thread(0x6000, 1)
    await tb.action(Act.SCHEDULE)
    await tb.command(OP_WRITE2, ARG_A, 0, 0)
    for op in range(8):
        for index in range(128):
            a, b = (0x10, 0) if op == OP_EXEC else (tb.rng.getrandbits(32), tb.rng.getrandbits(32))
            if op == OP_WRITE and index in (ARG_A, ARG_B):
                a = 0  # keep CALL[k]'s arguments harmless for the reads that follow
            if op == OP_WRITE2 and index in (ARG_A - 1, ARG_A, ARG_B):
                a = b = 0
            trial = copy.deepcopy(tb.model)
            try:
                trial.command(op, index, a, b)
            except Unspecified:
                continue
            await tb.command(op, index, a, b)
    await tb.audit()


async def put_msg(tb: RtosTb, words: list[int]) -> None:
    """MSG[0..len-1] = words, two at a time."""
    for w in range(0, len(words) - 1, 2):
        await tb.command(OP_WRITE2, MSG0 + w, words[w], words[w + 1])
    if len(words) % 2:
        await tb.command(OP_WRITE, MSG0 + len(words) - 1, words[-1])


async def get_msg(tb: RtosTb, n: int) -> list[int]:
    return [await tb.read(MSG0 + w) for w in range(n)]


async def queue_front_peek_reset(tb: RtosTb, q: int, t_a: int, t_b: int) -> None:
    """FRONT, PEEK and RESET on queue q (empty, no waiters; t_a READY, t_b SUSPENDED, both of rank
    0). The messages are checked against a plain deque of this test, besides the model."""
    p, rng = tb.params, tb.rng
    words, depth = p.MsgWords, p.QueueDepth
    zeros = [0] * words
    expected: deque[list[int]] = deque()

    async def send(b: int = 0) -> dict[str, int]:
        msg = [rng.getrandbits(32) for _ in range(words)]
        await put_msg(tb, msg)
        res = await tb.ok(Act.QUEUE_SEND, q, b)
        if not res["blocked"] and res["tid"] == NONE:  # stored, not handed to a receiver
            expected.appendleft(msg) if b & FRONT else expected.append(msg)
        assert res["value"] == len(expected)
        return res

    async def peek_then_recv() -> dict[str, int]:
        await put_msg(tb, zeros)
        res = await tb.ok(Act.QUEUE_RECV, q, PEEK)
        assert (res["tid"], res["value"]) == (NONE, len(expected)), "PEEK keeps the message, wakes nobody"
        assert await get_msg(tb, words) == expected[0], "PEEK copies the head"
        await put_msg(tb, zeros)
        res = await tb.ok(Act.QUEUE_RECV, q)
        assert await get_msg(tb, words) == expected.popleft(), "RECV after PEEK: the same message"
        assert res["value"] == len(expected)
        return res

    # Order with FRONT, sends and receives interleaved so that rd goes round the ring.
    for _ in range(4 * depth + 4):
        if len(expected) < depth and (not expected or rng.random() < 0.55):
            await send(FRONT if rng.random() < 0.5 else 0)
        else:
            await peek_then_recv()
    while expected:
        await peek_then_recv()

    # PEEK on a full queue with a waiting sender wakes nobody; the RECV after it does.
    while len(expected) < depth:
        await send(rng.choice((0, FRONT)))
    await tb.run(t_a)
    assert (await send(BLOCK | FRONT))["blocked"] == 1
    await put_msg(tb, zeros)
    assert (await tb.ok(Act.QUEUE_RECV, q, PEEK | BLOCK))["tid"] == NONE
    assert tb.model.threads[t_a].state == State.WAITING
    assert await get_msg(tb, words) == expected[0]
    assert (await peek_then_recv())["tid"] == t_a, "RECV wakes the sender"

    # RESET drops the messages and wakes one of two waiting senders (equal eprio: the lower TID).
    await send()
    await tb.run(t_a)
    assert (await send(BLOCK))["blocked"] == 1
    await tb.ok(Act.THREAD_SET_STATE, t_b, State.READY)
    await tb.run(t_b)
    assert (await send(BLOCK | FRONT))["blocked"] == 1
    first, second = min(t_a, t_b), max(t_a, t_b)
    res = await tb.ok(Act.QUEUE_RESET, q)
    expected.clear()
    assert (res["tid"], res["value"]) == (first, 0)
    assert decode_result(await tb.action(Act.QUEUE_RECV, q, PEEK))["status"] == Status.QUEUE_EMPTY
    # The woken one waits as a receiver (a PEEK with bit 0 waits as RECV); RESET wakes the other
    # sender and leaves the receiver waiting.
    await tb.run(first)
    dst = 0x2000_F000
    assert (await tb.ok(Act.QUEUE_RECV, q, dst | PEEK | BLOCK))["blocked"] == 1
    res = await tb.ok(Act.QUEUE_RESET, q, BLOCK)
    assert res["tid"] == second
    assert tb.model.threads[first].state == State.WAITING and tb.model.queues[q].receivers == {first}
    # The receiver gets the next message by a copy; RESET during the copy is not refused.
    await tb.run(second)
    assert (await send(FRONT))["tid"] == first
    assert (await tb.ok(Act.QUEUE_RESET, q))["tid"] == NONE
    await tb.end_copy(err=False)
    # After RESET the ring starts again from an empty queue.
    await send()
    await tb.ok(Act.QUEUE_RESET, q)
    expected.clear()
    for _ in range(min(2, depth)):
        await send(rng.choice((0, FRONT)))
    while expected:
        await peek_then_recv()


@cocotb.test()
async def rtos_message_copies(dut):
    """Receivers waiting with their buffers, senders waking them: the copy job and its words; queue
    actions answer BUSY while the copy is in flight (other actions run); a copy ending with a bus
    error sets STATUS[1] and irq_o until STATUS is read; a new copy clears it. Then FRONT, PEEK and
    RESET (queue_front_peek_reset): order against a plain deque, PEEK then RECV give the same
    message, PEEK wakes no sender, RESET with a waiting sender and a waiting receiver."""
    tb = RtosTb(dut)
    await tb.start()
    p = tb.params
    tb.dma.out_ready_prob = 0.3
    q = (await tb.ok(Act.QUEUE_ALLOC, p.MsgWords, p.QueueDepth))["tid"]
    receiver = await tb.add_thread(0x7000, 0)
    sender = await tb.add_thread(0x7100, 0, ready=False)
    for round_ in range(12):
        await tb.run(receiver)
        dst = 0x2000_0000 + 0x100 * round_
        assert (await tb.ok(Act.QUEUE_RECV, q, dst | BLOCK))["blocked"] == 1
        await tb.ok(Act.THREAD_SET_STATE, sender, State.READY)
        await tb.run(sender)
        await put_msg(tb, [tb.rng.getrandbits(32) for _ in range(p.MsgWords)])
        await tb.ok(Act.QUEUE_SEND, q)
        for w in range(p.MsgWords):  # MSG may be rewritten at once: the copy has its own snapshot
            await tb.command(OP_WRITE, MSG0 + w, tb.rng.getrandbits(32))
        for act, a, b in ((Act.QUEUE_SEND, q, 0), (Act.QUEUE_RECV, q, 0), (Act.QUEUE_SEND, 7, 0),
                          (Act.QUEUE_SEND, q, FRONT), (Act.QUEUE_RECV, q, PEEK), (Act.QUEUE_INFO, q, 0),
                          (Act.CURRENT, 0, 0), (Act.SEM_ALLOC, 0, 1)):
            await tb.action(act, a, b)
        await tb.read_status()
        await tb.end_copy(err=round_ % 3 == 1)
        await tb.read_status()
        await tb.read_status()
        await tb.ok(Act.THREAD_SET_STATE, sender, State.SUSPENDED)
    await tb.audit()
    await queue_front_peek_reset(tb, q, receiver, sender)
    await tb.audit()


@cocotb.test()
async def rtos_handoff_needs_room(dut):
    """A receiver left waiting on a full queue (HANDOFF 0 woke the other one, whose message stays
    stored): after a change to HANDOFF 1 a send is refused as on any full queue (no free slot
    holds a message during a copy), no copy starts, and the stored message is received intact."""
    tb = RtosTb(dut)
    await tb.start()
    q = (await tb.ok(Act.QUEUE_ALLOC, 1, 1))["tid"]
    r1 = await tb.add_thread(0x7000, 0)
    r2 = await tb.add_thread(0x7100, 0)
    for r, dst in ((r1, 0x2000_0000), (r2, 0x2000_0100)):
        await tb.run(r)
        assert (await tb.ok(Act.QUEUE_RECV, q, dst | BLOCK))["blocked"] == 1
    await tb.ok(Act.HANDOFF, 0)
    stored = tb.rng.getrandbits(32)
    await put_msg(tb, [stored])
    res = await tb.ok(Act.QUEUE_SEND, q)
    woken = res["tid"]
    assert res["value"] == 1 and woken in (r1, r2) and tb.model.queues[q].receivers, \
        "stored and one receiver woken; the other still waits on the full queue"
    await tb.ok(Act.HANDOFF, 1)
    await put_msg(tb, [stored ^ 0xFFFF_FFFF])
    res = decode_result(await tb.action(Act.QUEUE_SEND, q))
    assert (res["status"], res["tid"], res["value"]) == (Status.QUEUE_FULL, NONE, 1)
    await tb.cycles(4)
    assert not tb.dma.jobs, "no copy job"
    tb.expect_quiet("after a send refused on a full queue")
    await tb.run(woken)
    assert (await tb.ok(Act.QUEUE_RECV, q))["value"] == 0
    assert await get_msg(tb, 1) == [stored], "the stored message, intact"
    await tb.audit()


@cocotb.test()
async def rtos_waiter_choice(dut):
    """Waiters of every kind (mutex, semaphore, queue receivers with buffers, queue senders) with
    tied priorities, blocking in reverse TID order: each wake picks the highest eprio, then the
    first to wait (not the lowest TID); a THREAD_UNBLOCK takes one out of the middle."""
    tb = RtosTb(dut)
    await tb.start()
    p = tb.params
    k = min(5, p.MaxThreads - 1)
    owner = await tb.add_thread(0x8000, 0)
    waiters = [await tb.add_thread(0x8100 + 16 * i, (1, 2, 1, 2, 1)[i], ready=False) for i in range(k)]
    m = (await tb.ok(Act.MUTEX_ALLOC))["tid"]
    s = (await tb.ok(Act.SEM_ALLOC, 0, 1))["tid"]
    q = (await tb.ok(Act.QUEUE_ALLOC, p.MsgWords, 1))["tid"]
    await tb.run(owner)
    await tb.ok(Act.MUTEX_LOCK, m)
    await tb.ok(Act.THREAD_SET_STATE, owner, State.SUSPENDED)

    async def block(act: Act, a: int, b: int) -> None:
        """Each waiter in turn is the only READY thread, runs and blocks."""
        for i, t in enumerate(reversed(waiters)):
            await tb.ok(Act.THREAD_SET_STATE, t, State.READY)
            await tb.run(t)
            dst = 0x3000_0000 + 0x40 * i if act == Act.QUEUE_RECV else 0
            assert (await tb.ok(act, a, b | dst | BLOCK))["blocked"] == 1
        if k > 2:
            await tb.ok(Act.THREAD_UNBLOCK, waiters[1])
            await tb.ok(Act.THREAD_SET_STATE, waiters[1], State.SUSPENDED)
        await tb.audit()

    async def park(res: dict[str, int]) -> None:
        """Suspend the thread an action woke, so that one thread at most is READY."""
        assert res["tid"] != NONE
        await tb.ok(Act.THREAD_SET_STATE, res["tid"], State.SUSPENDED)

    await block(Act.SEM_TAKE, s, 0)
    while tb.model.sems[s].waiters:
        await park(await tb.ok(Act.SEM_GIVE, s))
    await block(Act.QUEUE_RECV, q, 0)
    while tb.model.queues[q].receivers:
        await park(await tb.ok(Act.QUEUE_SEND, q))
        await tb.end_copy(err=False)
    await tb.ok(Act.QUEUE_SEND, q)  # the queue (depth 1) is full: senders wait
    await block(Act.QUEUE_SEND, q, 0)
    while tb.model.queues[q].senders:
        await park(await tb.ok(Act.QUEUE_RECV, q))
        await tb.ok(Act.QUEUE_SEND, q)
    await block(Act.MUTEX_LOCK, m, 0)
    holder = owner
    while tb.model.mutexes[m].waiters:
        await tb.ok(Act.THREAD_SET_STATE, holder, State.READY)
        await tb.run(holder)
        res = await tb.ok(Act.MUTEX_UNLOCK, m)
        await tb.ok(Act.THREAD_SET_STATE, holder, State.SUSPENDED)
        holder = res["tid"]
    await tb.audit()


@pytest.mark.parametrize("build", list(BUILDS))
def test_rtos(build: str, monkeypatch: pytest.MonkeyPatch) -> None:
    params = BUILDS[build]
    monkeypatch.setenv(PARAMS_ENV, json.dumps(params))
    run_cocotb(
        toplevel="couplet_rtos",
        sources=rtl_files(),
        test_file=__file__,
        build_name=f"rtos_{build}",
        parameters=params,
    )
