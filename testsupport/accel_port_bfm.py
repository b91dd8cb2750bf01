"""Models of an accelerator's side of the coupling layer (docs/coupling.md), for the cocotb
tests of each accelerator (hw/ip/aes, hw/ip/keccak, hw/ip/rtos): a command-port master that
checks ordering, response stability and a response bound, the word-stream source and sink, and
the master of a stateless instruction unit; and the testbenches built on them (AccelRegsTb,
StatelessUnitTb). The adapters' own tests use accel_model.CmdMaster, which randomises the
traffic instead.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cocotb.triggers import Event, FallingEdge, SimTimeoutError, with_timeout

from couplet import paths
from couplet.model.regs import IpRegs
from testsupport.obi_bfm import MASK32, ClockedTb
from testsupport.struct_port import PORT_LAYOUTS, StructLayout, StructPort, assert_values

ACCEL_PKG = paths.IP_DIR / "accel" / "rtl" / "couplet_accel_pkg.sv"
CMD = StructLayout.from_package("accel_cmd_t", ACCEL_PKG)
RSP = StructLayout.from_package("accel_rsp_t", ACCEL_PKG)
CMD_REQ = StructLayout.from_package("accel_cmd_req_t", ACCEL_PKG)
CMD_RSP = StructLayout.from_package("accel_cmd_rsp_t", ACCEL_PKG)
MEM_REQ = StructLayout.from_package("accel_mem_req_t", ACCEL_PKG)
MEM_RSP = StructLayout.from_package("accel_mem_rsp_t", ACCEL_PKG)
PORT_LAYOUTS.update({"cmd_req_i": CMD_REQ, "cmd_rsp_o": CMD_RSP, "mem_req_o": MEM_REQ, "mem_rsp_i": MEM_RSP})
OP_READ, OP_WRITE, OP_WRITE2, OP_EXEC = 0, 1, 2, 3  # accel_cmd_t's op (docs/coupling.md)

# The answer a stateless unit must give to (op, index, op_a, op_b): (data, err).
UnitModel = Callable[[int, int, int, int], tuple[int, bool]]


def to_words(data: bytes) -> list[int]:
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def from_words(words: list[int]) -> bytes:
    return b"".join(w.to_bytes(4, "little") for w in words)


@dataclass(eq=False)
class Cmd:
    op: int
    index: int
    a: int = 0
    b: int = 0
    data: int | None = None
    err: bool | None = None
    accept_cycle: int | None = None
    resp_cycle: int | None = None
    done: Event = field(default_factory=Event)

    def packed(self) -> int:
        """Its accel_cmd_t bits."""
        return CMD.pack(op=self.op, index=self.index, op_a=self.a, op_b=self.b)

    def describe(self) -> str:
        return f"op={self.op} index=0x{self.index:02x} a=0x{self.a:08x} b=0x{self.b:08x}"

    @property
    def latency(self) -> int:
        assert self.accept_cycle is not None and self.resp_cycle is not None
        return self.resp_cycle - self.accept_cycle


def unpack_rsp(bits: int) -> tuple[int, bool]:
    """(data, err) of accel_rsp_t bits."""
    return RSP.get(bits, "data"), bool(RSP.get(bits, "err"))


class CmdPortSignals:
    """The command port of a design (docs/coupling.md): the request it takes (cmd_req_i), its
    cmd_ready_o and its response (cmd_rsp_o)."""

    def __init__(self, dut: object) -> None:
        self.req = StructPort(dut, "cmd_req_i", CMD_REQ)
        self.ready = dut.cmd_ready_o
        self.rsp = StructPort(dut, "cmd_rsp_o", CMD_RSP)


class CmdPort(CmdPortSignals):
    """Master of the command port: in-order commands, one response each, within `resp_timeout`;
    a response waiting for rsp_ready must not change."""

    def __init__(self, dut: object, rng: random.Random, wait_cycles: int = 200) -> None:
        super().__init__(dut)
        self.dut = dut
        self.rng = rng
        self.wait_cycles = wait_cycles  # default bound of wait() and request()
        self.idle_prob = 0.0
        self.rsp_ready_prob = 1.0
        self.resp_timeout = 100
        self.queue: deque[Cmd] = deque()
        self.current: Cmd | None = None
        self.outstanding: deque[Cmd] = deque()
        self.log: list[Cmd] = []
        self._rsp_ready = 1
        self._held: int | None = None  # response seen without rsp_ready

    def issue(self, op: int, index: int, a: int = 0, b: int = 0) -> Cmd:
        cmd = Cmd(op, index, a & MASK32, b & MASK32)
        self.queue.append(cmd)
        return cmd

    async def wait(self, cmd: Cmd, timeout_cycles: int | None = None) -> Cmd:
        timeout_cycles = self.wait_cycles if timeout_cycles is None else timeout_cycles
        try:
            await with_timeout(cmd.done.wait(), timeout_cycles * ClockedTb.PERIOD_NS, "ns")
        except SimTimeoutError:
            raise AssertionError(f"no response to {cmd.describe()} within {timeout_cycles} cycles") from None
        return cmd

    async def request(self, op: int, index: int, a: int = 0, b: int = 0,
                      timeout_cycles: int | None = None) -> Cmd:
        return await self.wait(self.issue(op, index, a, b), timeout_cycles)

    def forget(self) -> None:
        """Drop every command not answered (a reset)."""
        self.queue.clear()
        self.current = None
        self.outstanding.clear()
        self._held = None

    def reset_values(self) -> None:
        self.req.valid.value = 0
        self.req.cmd.value = 0
        self.req.rsp_ready.value = 1

    def drive(self, cycle: int) -> None:
        if self.current is None and self.queue and self.rng.random() >= self.idle_prob:
            self.current = self.queue.popleft()
        self._rsp_ready = int(self.rng.random() < self.rsp_ready_prob)
        self.req.rsp_ready.value = self._rsp_ready
        cmd = self.current
        if cmd is None:
            self.req.valid.value = 0
            self.req.cmd.value = self.rng.getrandbits(CMD.width)  # don't-care without valid
            return
        self.req.valid.value = 1
        self.req.cmd.value = cmd.packed()

    def sample(self, cycle: int) -> None:
        if self.rsp.rsp_valid.value:
            rsp = self.rsp.rsp.value
            assert self._held is None or rsp == self._held, f"cycle {cycle}: response changed while waiting"
            if self._rsp_ready:
                assert self.outstanding, f"cycle {cycle}: response without a command"
                cmd = self.outstanding.popleft()
                (cmd.data, cmd.err), cmd.resp_cycle = unpack_rsp(rsp), cycle
                cmd.done.set()
                self._held = None
            else:
                self._held = rsp
        else:
            assert self._held is None, f"cycle {cycle}: rsp_valid fell without rsp_ready"
        if self.current is not None and int(self.ready.value):
            self.current.accept_cycle = cycle
            self.outstanding.append(self.current)
            self.log.append(self.current)
            self.current = None
        if self.outstanding:
            age = cycle - self.outstanding[0].accept_cycle
            assert age < self.resp_timeout, f"no response to {self.outstanding[0].describe()} in {age} cycles"


class AccelRegsTb(ClockedTb):
    """A testbench of an accelerator behind the command port (`self.cmd`), with its register
    commands, each checked for a clean answer; STATUS and its write-1-to-clear bits come from the
    IP's description `regs`."""

    def __init__(self, dut: object, regs: IpRegs, wait_cycles: int = 200) -> None:
        super().__init__(dut)
        self.cmd = CmdPort(dut, self.rng, wait_cycles=wait_cycles)
        status = regs.reg("status")
        self.status_index = status.offset // 4
        self.status_sticky = sum(f.mask for f in status.fields if f.access == "w1c")

    async def read(self, index: int) -> int:
        cmd = await self.cmd.request(OP_READ, index)
        assert not cmd.err, f"read of 0x{index:02x} answered err"
        return cmd.data

    async def write(self, index: int, value: int) -> None:
        cmd = await self.cmd.request(OP_WRITE, index, value)
        assert not cmd.err and cmd.data == 0, f"write of 0x{index:02x}: err={cmd.err} data={cmd.data}"

    async def write2(self, index: int, a: int, b: int) -> None:
        cmd = await self.cmd.request(OP_WRITE2, index, a, b)
        assert not cmd.err and cmd.data == 0, f"write2 of 0x{index:02x}: err={cmd.err} data={cmd.data}"

    async def action(self, index: int, a: int = 0, b: int = 0, timeout_cycles: int | None = None) -> int:
        """EXEC `index`; its result code (the port's wait bound unless `timeout_cycles`)."""
        cmd = await self.cmd.request(OP_EXEC, index, a, b, timeout_cycles)
        assert not cmd.err, f"action {index} answered err"
        return cmd.data

    async def status(self) -> int:
        return await self.read(self.status_index)

    async def clear_status(self) -> None:
        await self.write(self.status_index, self.status_sticky)

    async def expect_status(self, mask: int, value: int, what: str) -> int:
        status = await self.status()
        assert status & mask == value, f"{what}: STATUS 0x{status:02x}, expected 0x{value:02x} under 0x{mask:02x}"
        return status


class StreamSource:
    """Drives the input word stream (mem_rsp_i.in_*); `gap_prob` leaves in_valid low in random
    cycles."""

    def __init__(self, dut: object, rng: random.Random) -> None:
        self.dut = dut
        self.mem_rsp = StructPort(dut, "mem_rsp_i", MEM_RSP)
        self.mem_req = StructPort(dut, "mem_req_o", MEM_REQ)
        self.rng = rng
        self.gap_prob = 0.0
        self.queue: deque[int] = deque()
        self.current: int | None = None
        self.accepted = 0
        self.accept_cycles: list[int] = []
        self.first_accept: int | None = None  # cleared by a test to time from the next word

    def push(self, words: list[int]) -> None:
        self.queue.extend(words)

    def flush(self) -> None:
        self.queue.clear()
        self.current = None

    def reset_values(self) -> None:
        self.mem_rsp.in_valid.value = 0
        self.mem_rsp.in_data.value = 0

    def drive(self, cycle: int) -> None:
        if self.current is None and self.queue and self.rng.random() >= self.gap_prob:
            self.current = self.queue.popleft()
        self.mem_rsp.in_valid.value = int(self.current is not None)
        self.mem_rsp.in_data.value = self.rng.getrandbits(32) if self.current is None else self.current

    def sample(self, cycle: int) -> None:
        if self.current is not None and self.mem_req.in_ready.value:
            self.current = None
            self.accepted += 1
            self.accept_cycles.append(cycle)
            if self.first_accept is None:
                self.first_accept = cycle

    @property
    def idle(self) -> bool:
        return self.current is None and not self.queue

    async def wait_idle(self, timeout_cycles: int = 20_000) -> None:
        """Wait until every pushed word was taken; with gaps or back-pressure that takes a
        random number of cycles, so a test must not count them."""
        for _ in range(timeout_cycles):
            if self.idle:
                return
            await FallingEdge(self.dut.clk_i)
        raise AssertionError(f"the input stream was not drained in {timeout_cycles} cycles")


class StreamSink:
    """Takes output words (mem_req_o.out_*); out_ready is high with probability `ready_prob` each
    cycle."""

    def __init__(self, dut: object, rng: random.Random) -> None:
        self.dut = dut
        self.mem_rsp = StructPort(dut, "mem_rsp_i", MEM_RSP)
        self.mem_req = StructPort(dut, "mem_req_o", MEM_REQ)
        self.rng = rng
        self.ready_prob = 1.0
        self.words: list[int] = []
        self.last_cycle: int | None = None
        self._ready = 1

    def reset_values(self) -> None:
        self.mem_rsp.out_ready.value = 1

    def drive(self, cycle: int) -> None:
        self._ready = int(self.rng.random() < self.ready_prob)
        self.mem_rsp.out_ready.value = self._ready

    def sample(self, cycle: int) -> None:
        if self._ready and self.mem_req.out_valid.value:
            self.words.append(self.mem_req.out_data.value)
            self.last_cycle = cycle


class StatelessUnitPort(CmdPortSignals):
    """Master of a stateless instruction unit (couplet_aes_zkn, couplet_keccak_ise): drives
    commands with random idle cycles and random rsp_ready, and checks every cycle that at most one
    command is in flight, its answer comes the next cycle, equals `model` and holds while
    stalled, and that cmd_ready_o = !rsp_valid || rsp_ready."""

    def __init__(self, dut: object, rng: random.Random, model: UnitModel) -> None:
        super().__init__(dut)
        self.dut, self.rng, self.model = dut, rng, model
        self.idle_prob = 0.0
        self.ready_prob = 1.0
        self.queue: deque[Cmd] = deque()
        self.current: Cmd | None = None
        self.pending: deque[Cmd] = deque()
        self.stalled: tuple[int, int] | None = None  # the response seen last cycle with rsp_ready low
        self.stall_cycles = 0

    def reset_values(self) -> None:
        self.req.valid.value = 0
        self.req.cmd.value = 0
        self.req.rsp_ready.value = 0

    def drive(self, cycle: int) -> None:
        if self.current is None and self.queue and self.rng.random() >= self.idle_prob:
            self.current = self.queue.popleft()
        self.req.valid.value = int(self.current is not None)
        # Fields are random while invalid, so the DUT cannot depend on them.
        self.req.cmd.value = self.current.packed() if self.current else self.rng.getrandbits(CMD.width)
        self.req.rsp_ready.value = int(self.rng.random() < self.ready_prob)

    def sample(self, cycle: int) -> None:
        cmd_valid, cmd_ready = self.req.valid.value, int(self.ready.value)
        rsp_valid, rsp_ready = self.rsp.rsp_valid.value, self.req.rsp_ready.value
        assert cmd_ready == int(not rsp_valid or rsp_ready), (
            f"cycle {cycle}: cmd_ready_o={cmd_ready} with rsp_valid={rsp_valid} rsp_ready={rsp_ready}"
        )
        if self.pending and self.pending[0].accept_cycle == cycle - 1:
            assert rsp_valid, f"cycle {cycle}: no response in the cycle after {self.pending[0].describe()}"
        if rsp_valid:
            self.check_response(cycle, rsp_ready)
        if cmd_valid and cmd_ready:
            assert self.current is not None
            self.current.accept_cycle = cycle
            self.pending.append(self.current)
            self.current = None
        assert len(self.pending) <= 1, f"cycle {cycle}: {len(self.pending)} commands in flight"

    def check_response(self, cycle: int, rsp_ready: int) -> None:
        assert self.pending, f"cycle {cycle}: rsp_valid without a command"
        data, err = unpack_rsp(self.rsp.rsp.value)
        got = (data, int(err))
        if self.stalled is not None:
            assert got == self.stalled, f"cycle {cycle}: stalled response changed {self.stalled} -> {got}"
        cmd = self.pending[0]
        data, err = self.model(cmd.op, cmd.index, cmd.a, cmd.b)
        assert got == (data, int(err)), (
            f"cycle {cycle}: {cmd.describe()}: got data={got[0]:#010x} err={got[1]}, "
            f"expected data={data:#010x} err={int(err)}"
        )
        if rsp_ready:
            self.pending.popleft()
            cmd.data, cmd.err, cmd.resp_cycle = got[0], bool(got[1]), cycle
            cmd.done.set()
            self.stalled = None
        else:
            self.stalled = got
            self.stall_cycles += 1

    def issue(self, op: int, index: int, op_a: int, op_b: int) -> Cmd:
        """funct3, funct7, rs1, rs2 of a custom instruction."""
        cmd = Cmd(op, index, op_a & MASK32, op_b & MASK32)
        self.queue.append(cmd)
        return cmd


class StatelessUnitTb(ClockedTb):
    """A testbench of a stateless instruction unit (couplet_aes_zkn, couplet_keccak_ise): the
    master of its port, whose answers `model` gives, with idle gaps and rsp_ready back-pressure
    at the given rates."""

    def __init__(self, dut: object, model: UnitModel, *, idle_prob: float = 0.0, ready_prob: float = 1.0) -> None:
        super().__init__(dut)
        self.port = StatelessUnitPort(dut, self.rng, model)
        self.port.idle_prob, self.port.ready_prob = idle_prob, ready_prob
        self.add(self.port)

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, {"cmd_rsp_o.rsp_valid": 0, "cmd_ready_o": 1})

    async def wait_all(self, cmds: Sequence[Cmd], timeout_cycles: int) -> None:
        for _ in range(timeout_cycles):
            if all(cmd.done.is_set() for cmd in cmds):
                return
            await self.sample_point()
        raise AssertionError(f"{sum(not c.done.is_set() for c in cmds)} commands unanswered")

    async def check_held_response_blocks(self, first_cmd: tuple[int, int, int, int],
                                         second_cmd: tuple[int, int, int, int]) -> None:
        """Two commands (op, index, op_a, op_b) with rsp_ready low for a while: cmd_ready must stay
        low and the first response stay put (the port checks that every cycle); once it is taken,
        the second command is accepted in the same cycle."""
        self.port.idle_prob, self.port.ready_prob = 0.0, 0.0
        first = self.port.issue(*first_cmd)
        second = self.port.issue(*second_cmd)
        await self.cycles(8)
        assert not first.done.is_set() and second.accept_cycle is None
        assert int(self.port.ready.value) == 0 and self.port.rsp.rsp_valid.value == 1
        self.port.ready_prob = 1.0
        await self.wait_all([first, second], timeout_cycles=10)
        assert second.accept_cycle == first.resp_cycle, (second.accept_cycle, first.resp_cycle)
