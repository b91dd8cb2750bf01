"""Golden model of tb_accel_regfile (the test accelerator) and helpers shared by the coupling tests.

The register convention of docs/coupling.md on 8 registers: READ/WRITE of index 0..7, WRITE2 of
index 0..6 (index and index + 1), EXEC action 0 returns op_a + op_b; every other op or index is
answered with err = 1 and data 0 and has no effect. Commands take effect in the order the
accelerator takes them.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from testsupport.accel_port_bfm import CMD_REQ, CMD_RSP
from testsupport.struct_port import PORT_LAYOUTS, StructPort

MASK32 = 0xFFFF_FFFF
NUM_REGS = 8

OP_READ, OP_WRITE, OP_WRITE2, OP_EXEC = 0, 1, 2, 3


@dataclass(frozen=True)
class Cmd:
    op: int
    index: int
    op_a: int
    op_b: int

    def describe(self) -> str:
        return f"op={self.op} index={self.index} op_a=0x{self.op_a:08x} op_b=0x{self.op_b:08x}"


@dataclass(frozen=True)
class Rsp:
    data: int
    err: bool


class AccelModel:
    def __init__(self) -> None:
        self.regs = [0] * NUM_REGS

    def execute(self, cmd: Cmd) -> Rsp:
        op, index = cmd.op, cmd.index
        if op == OP_READ and index < NUM_REGS:
            return Rsp(self.regs[index], False)
        if op == OP_WRITE and index < NUM_REGS:
            self.regs[index] = cmd.op_a & MASK32
            return Rsp(0, False)
        if op == OP_WRITE2 and index < NUM_REGS - 1:
            self.regs[index] = cmd.op_a & MASK32
            self.regs[index + 1] = cmd.op_b & MASK32
            return Rsp(0, False)
        if op == OP_EXEC and index == 0:
            return Rsp((cmd.op_a + cmd.op_b) & MASK32, False)
        return Rsp(0, True)


def random_cmd(rng: random.Random, err_prob: float = 0.1) -> Cmd:
    """A command that mostly exists (reads, writes, pairs, ADD) and sometimes does not."""
    a, b = rng.getrandbits(32), rng.getrandbits(32)
    if rng.random() < err_prob:
        choice = rng.randrange(4)
        if choice == 0:
            return Cmd(rng.randrange(4, 8), rng.randrange(128), a, b)      # no such op
        if choice == 1:
            return Cmd(rng.randrange(2), rng.randrange(NUM_REGS, 128), a, b)  # no such register
        if choice == 2:
            return Cmd(OP_WRITE2, NUM_REGS - 1, a, b)                      # pair past the end
        return Cmd(OP_EXEC, rng.randrange(1, 128), a, b)                   # no such action
    roll = rng.random()
    if roll < 0.35:
        return Cmd(OP_READ, rng.randrange(NUM_REGS), a, b)
    if roll < 0.65:
        return Cmd(OP_WRITE, rng.randrange(NUM_REGS), a, b)
    if roll < 0.8:
        return Cmd(OP_WRITE2, rng.randrange(NUM_REGS - 1), a, b)
    return Cmd(OP_EXEC, 0, a, b)


class AccelKnobs:
    """Drives the test accelerators' stall and latency inputs from the test's random stream."""

    def __init__(self, dut: object, rng: random.Random, ports: int, cmd_stall_prob: float = 0.0,
                 rsp_stall_prob: float = 0.0, latency: tuple[int, int] = (0, 0)) -> None:
        self.dut = dut
        self.rng = rng
        self.ports = ports
        self.cmd_stall_prob = cmd_stall_prob
        self.rsp_stall_prob = rsp_stall_prob
        self.latency = latency

    def reset_values(self) -> None:
        self.dut.cmd_stall_i.value = 0
        self.dut.rsp_stall_i.value = 0
        self.dut.exec_latency_i.value = 0

    def sample(self, cycle: int) -> None:
        pass

    def drive(self, cycle: int) -> None:
        cmd_stall = sum(1 << k for k in range(self.ports) if self.rng.random() < self.cmd_stall_prob)
        rsp_stall = sum(1 << k for k in range(self.ports) if self.rng.random() < self.rsp_stall_prob)
        self.dut.cmd_stall_i.value = cmd_stall
        self.dut.rsp_stall_i.value = rsp_stall
        self.dut.exec_latency_i.value = self.rng.randint(*self.latency)


# The testbenches' command ports (tb_reg_mux.sv, tb_xif_adapter.sv), for checks by name.
PORT_LAYOUTS.update({"ra_req_o": CMD_REQ, "acc_req_o": CMD_REQ, "raw_req_i": CMD_REQ,
                     "ra_rsp_o": CMD_RSP, "acc_rsp_o": CMD_RSP, "acc_rsp_i": CMD_RSP, "raw_rsp_o": CMD_RSP})


def _read(handle: object) -> int:
    return int(handle.value)  # type: ignore[attr-defined]


def bit(handle: object, index: int) -> Callable[[], int]:
    """A reader of bit `index` of a design output."""
    return lambda: _read(handle) >> index & 1


def cmd_of(req: StructPort) -> Cmd:
    return Cmd(req["cmd.op"].value, req["cmd.index"].value, req["cmd.op_a"].value, req["cmd.op_b"].value)


class CmdMaster:
    """Drives one command port of a design: the request `req` it takes, its `ready` and its
    response `rsp` (accel_cmd_req_t / cmd_ready / accel_cmd_rsp_t).

    Commands queued with `send()` are presented in order, with random idle cycles between them
    (random junk on the payload while idle), and held until cmd_ready. rsp_ready is random. Each
    response is compared with `expected`, which the testbench fills when it sees the command
    reach the accelerator.
    """

    def __init__(self, req: StructPort, ready: Callable[[], int], rsp: StructPort, rng: random.Random, *,
                 idle_prob: float = 0.0, rsp_ready_prob: float = 1.0, timeout: int = 2000) -> None:
        self.name = req.name
        self.req, self.ready, self.rsp = req, ready, rsp
        self.rng = rng
        self.idle_prob = idle_prob
        self.rsp_ready_prob = rsp_ready_prob
        self.timeout = timeout
        self.queue: deque[Cmd] = deque()
        self.current: Cmd | None = None
        self.present_cycle = 0
        self.taken_now: Cmd | None = None       # command handshaked in the cycle just sampled
        self.waiting_cycles = 0                 # cycles the current command has waited
        self.expected: deque[Rsp] = deque()
        self.outstanding = 0
        # (command, response, cycle offered, cycle taken, cycle answered)
        self.responses: list[tuple[Cmd, Rsp, int, int, int]] = []
        self._sent: deque[tuple[Cmd, int, int]] = deque()
        self._rsp_ready = 0

    def send(self, cmd: Cmd) -> None:
        self.queue.append(cmd)

    @property
    def idle(self) -> bool:
        return not self.queue and self.current is None and self.outstanding == 0

    def reset_values(self) -> None:
        for name in ("valid", "cmd", "rsp_ready"):
            self.req[name].value = 0

    def drive(self, cycle: int) -> None:
        req, rng = self.req, self.rng
        if self.current is None and self.queue and rng.random() >= self.idle_prob:
            self.current = self.queue.popleft()
            self.present_cycle = cycle
        cmd = self.current
        req.valid.value = int(cmd is not None)
        req["cmd.op"].value = cmd.op if cmd else rng.getrandbits(3)
        req["cmd.index"].value = cmd.index if cmd else rng.getrandbits(7)
        req["cmd.op_a"].value = cmd.op_a if cmd else rng.getrandbits(32)
        req["cmd.op_b"].value = cmd.op_b if cmd else rng.getrandbits(32)
        self._rsp_ready = int(rng.random() < self.rsp_ready_prob)
        req.rsp_ready.value = self._rsp_ready

    def sample(self, cycle: int) -> None:
        self.taken_now = None
        if self.current is not None:
            if self.ready():
                self.taken_now = self.current
                self._sent.append((self.current, self.present_cycle, cycle))
                self.outstanding += 1
                self.current = None
            elif cycle - self.present_cycle > self.timeout:
                raise AssertionError(f"{self.name}: command not taken within {self.timeout} cycles")
        if self.rsp.rsp_valid.value and self._rsp_ready:
            assert self._sent and self.expected, f"cycle {cycle}: {self.name}: response with none due"
            cmd, present_cycle, cmd_cycle = self._sent.popleft()
            want = self.expected.popleft()
            got = Rsp(self.rsp["rsp.data"].value, bool(self.rsp["rsp.err"].value))
            assert got == want, f"cycle {cycle}: {self.name}: {cmd.describe()} answered {got}, expected {want}"
            assert cycle > cmd_cycle, f"cycle {cycle}: {self.name}: response in the command's cycle"
            self.responses.append((cmd, got, present_cycle, cmd_cycle, cycle))
            self.outstanding -= 1


class AccelSlave:
    """A model of an accelerator on a design's command port output: the request `req` the design
    gives, the `ready` input it takes and the response `rsp` it takes.

    Takes commands with probability `ready_prob` per cycle while it holds fewer than
    `max_outstanding`; `on_cmd(cmd, cycle)` returns each command's response, which is presented
    `latency` cycles later (at least one, in order) and held until rsp_ready. Checks that a
    command shown and not taken stays the same until it is taken.
    """

    def __init__(self, req: StructPort, ready: object, rsp: StructPort, rng: random.Random, on_cmd, *,
                 ready_prob: float = 1.0, latency: tuple[int, int] = (1, 1), max_outstanding: int = 4) -> None:
        self.req, self.ready, self.rsp = req, ready, rsp
        self.rng = rng
        self.on_cmd = on_cmd
        self.ready_prob = ready_prob
        self.latency = latency
        self.max_outstanding = max_outstanding
        self.pending: deque[tuple[int, Rsp]] = deque()
        self.taken: list[tuple[Cmd, int]] = []
        self.max_seen = 0
        self._ready = 0
        self._rsp_valid = 0
        self._held: Cmd | None = None

    def reset_values(self) -> None:
        self.ready.value = 0  # type: ignore[attr-defined]
        self.rsp.rsp_valid.value = 0
        self.rsp.rsp.value = 0

    def drive(self, cycle: int) -> None:
        rsp_port, rng = self.rsp, self.rng
        self._ready = int(len(self.pending) < self.max_outstanding and rng.random() < self.ready_prob)
        self.ready.value = self._ready  # type: ignore[attr-defined]
        if self.pending and self.pending[0][0] <= cycle:
            rsp = self.pending[0][1]
            self._rsp_valid = 1
            rsp_port.rsp_valid.value = 1
            rsp_port["rsp.data"].value = rsp.data
            rsp_port["rsp.err"].value = int(rsp.err)
        else:
            self._rsp_valid = 0
            rsp_port.rsp_valid.value = 0
            rsp_port["rsp.data"].value = rng.getrandbits(32)
            rsp_port["rsp.err"].value = rng.getrandbits(1)

    def sample(self, cycle: int) -> None:
        if self._rsp_valid and self.req.rsp_ready.value:
            self.pending.popleft()
        if not self.req.valid.value:
            assert self._held is None, f"cycle {cycle}: cmd_valid withdrawn before the command was taken"
            return
        cmd = cmd_of(self.req)
        if self._held is not None:
            assert cmd == self._held, f"cycle {cycle}: command changed before it was taken: {self._held} -> {cmd}"
        if not self._ready:
            self._held = cmd
            return
        self._held = None
        self.taken.append((cmd, cycle))
        rsp = self.on_cmd(cmd, cycle)
        when = cycle + self.rng.randint(*self.latency)
        if self.pending:
            when = max(when, self.pending[-1][0])
        self.pending.append((when, rsp))
        self.max_seen = max(self.max_seen, len(self.pending))
