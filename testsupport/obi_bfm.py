"""OBI bus models shared by the IP testbenches: a master driver, a memory-backed slave and the
golden memory model both of them check against.

Timing convention (the same for every model, so nothing races the clock edge): a model drives
its inputs to the design just after a rising edge and samples the design just before the next
one, at the falling edge. A handshake (req && gnt) sampled at the falling edge of cycle c
completes at the rising edge that ends cycle c; a slave response with latency L is driven
during cycle c + L. One task in `ClockedTb` calls every model's `sample()` and `drive()` once a
cycle, which is much cheaper than one task per model.

OBI request fields follow OpenHW OBI 1.x as the CV32E40X uses it: req with addr/we/be/wdata/atop
held stable until gnt; responses (rvalid with rdata/err/exokay) in request order, at least one
cycle after the grant. atop[5] marks an atomic or exclusive access and atop[4:0] carries the
RISC-V AMO funct5 code.
"""

from __future__ import annotations

import os
import random
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import IntEnum

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import Event, FallingEdge, RisingEdge, SimTimeoutError, with_timeout

from couplet import paths
from couplet.tools.cocotb_run import SEED_ENV
from testsupport.struct_port import PORT_LAYOUTS, StructField, StructLayout, assert_values

MASK32 = 0xFFFF_FFFF
ATOP_EXCL = 0x20  # atop[5]

# Values that exercise the signed and unsigned comparisons of AMOMIN/AMOMAX and the carry of AMOADD.
CORNER_WORDS = (0x0000_0000, 0x0000_0001, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF, 0xFFFF_FFFE)


class Amo(IntEnum):
    """OBI atop[4:0] codes (RISC-V AMO funct5)."""

    ADD = 0b00000
    SWAP = 0b00001
    LR = 0b00010
    SC = 0b00011
    XOR = 0b00100
    OR = 0b01000
    AND = 0b01100
    MIN = 0b10000
    MAX = 0b10100
    MINU = 0b11000
    MAXU = 0b11100


AMO_RMW_OPS = (Amo.ADD, Amo.SWAP, Amo.XOR, Amo.OR, Amo.AND, Amo.MIN, Amo.MAX, Amo.MINU, Amo.MAXU)


def atop(op: int) -> int:
    """The atop value of an atomic or exclusive access."""
    return ATOP_EXCL | (int(op) & 0x1F)


def signed32(value: int) -> int:
    value &= MASK32
    return value - (1 << 32) if value & 0x8000_0000 else value


def amo_new_value(op: int, old: int, operand: int) -> int:
    """The word an AMO leaves in memory; an unknown code leaves the word unchanged."""
    old &= MASK32
    operand &= MASK32
    if op == Amo.ADD:
        return (old + operand) & MASK32
    if op == Amo.SWAP:
        return operand
    if op == Amo.XOR:
        return old ^ operand
    if op == Amo.OR:
        return old | operand
    if op == Amo.AND:
        return old & operand
    if op == Amo.MIN:
        return old if signed32(old) < signed32(operand) else operand
    if op == Amo.MAX:
        return old if signed32(old) > signed32(operand) else operand
    if op == Amo.MINU:
        return min(old, operand)
    if op == Amo.MAXU:
        return max(old, operand)
    return old


def byte_mask(be: int) -> int:
    """The 32-bit mask of the byte lanes enabled in `be`."""
    return sum(0xFF << (8 * lane) for lane in range(4) if be >> lane & 1)


def merge(old: int, new: int, be: int) -> int:
    mask = byte_mask(be)
    return (old & ~mask | new & mask) & MASK32


@dataclass
class Response:
    """What a slave answers; None in rdata means "don't care" (writes)."""

    rdata: int | None = 0
    err: bool = False
    exokay: bool = False


class MemoryModel:
    """Golden model of a word memory behind an OBI slave port.

    Plain writes honour the byte enables; AMOs return the old word and write the new one; LR sets
    the single reservation (one word), SC succeeds only on the reserved word and always clears the
    reservation, and answers exokay = success with rdata 0 on success and 1 on failure (the value
    RISC-V writes to rd); any write or AMO to the reserved word clears it. Words never written read
    as `init(word_address)`.
    """

    def __init__(self, init: Callable[[int], int] | None = None, size: int | None = None) -> None:
        self.words: dict[int, int] = {}
        self.init = init or (lambda _addr: 0)
        self.size = size  # addresses wrap at this many bytes, as in a RAM with fewer address bits
        self.reservation: int | None = None

    def _word(self, addr: int) -> int:
        addr &= ~3 & MASK32
        return addr % self.size if self.size else addr

    def peek(self, addr: int) -> int:
        waddr = self._word(addr)
        return self.words.get(waddr, self.init(waddr) & MASK32)

    def poke(self, addr: int, data: int, be: int = 0xF) -> None:
        waddr = self._word(addr)
        self.words[waddr] = merge(self.peek(waddr), data, be)
        if self.reservation == waddr:
            self.reservation = None

    def access(self, addr: int, we: bool, be: int = 0xF, wdata: int = 0, atop_value: int = 0) -> Response:
        """Apply one request in bus order and return its response."""
        waddr = self._word(addr)
        if atop_value & ATOP_EXCL:
            op = atop_value & 0x1F
            if op == Amo.LR:
                self.reservation = waddr
                return Response(rdata=self.peek(waddr), exokay=True)
            if op == Amo.SC:
                success = self.reservation == waddr
                self.reservation = None
                if success:
                    self.poke(waddr, wdata, be)
                # rdata carries the SC result as RISC-V rd wants it (0 = success), next to exokay.
                return Response(rdata=0 if success else 1, exokay=success)
            old = self.peek(waddr)
            self.poke(waddr, amo_new_value(op, old, wdata))
            return Response(rdata=old, exokay=True)
        if we:
            self.poke(waddr, wdata, be)
            return Response(rdata=None)
        return Response(rdata=self.peek(waddr))


# ------------------------------------------------------------------------------------- signals
OBI_PKG = paths.IP_DIR / "obi" / "rtl" / "couplet_obi_pkg.sv"


OBI_REQ = StructLayout.from_package("obi_req_t", OBI_PKG)
OBI_RSP = StructLayout.from_package("obi_rsp_t", OBI_PKG)
# The OBI struct ports the IP tests name in checks (`obi_rsp_o.rvalid`, `s_req_o[1].req`).
PORT_LAYOUTS.update({name: OBI_REQ for name in ("obi_req_i", "m_req_o", "s_req_o")})
PORT_LAYOUTS.update({name: OBI_RSP for name in ("obi_rsp_o", "m_rsp_i", "m_rsp_o", "a_rsp_o", "b_rsp_o")})


class ObiPort:
    """The fields of one OBI port of the design: the struct pair `<prefix>req_*`, `<prefix>rsp_*`
    (couplet_obi_pkg), entry `index` of it if the port is an array.

    The design is the slave (req_i, rsp_o) or the master (req_o, rsp_i) of the port, whichever
    it has, so the same class serves both sides. Each field (req, gnt, addr, ...) is a
    StructField that the models read and drive like a signal handle.
    """

    def __init__(self, dut: object, prefix: str = "", index: int | None = None) -> None:
        self.name = (prefix.rstrip("_") or "obi") + ("" if index is None else f"[{index}]")
        req, req_is_input = self._handle(dut, f"{prefix}req")
        rsp, rsp_is_input = self._handle(dut, f"{prefix}rsp")
        if req_is_input == rsp_is_input:
            raise AttributeError(f"OBI port {prefix!r}: req and rsp go the same way")
        for layout, handle, is_input in ((OBI_REQ, req, req_is_input), (OBI_RSP, rsp, rsp_is_input)):
            for name in layout.fields:
                setattr(self, name, StructField(handle, layout, name, index or 0, writable=is_input))

    @staticmethod
    def _handle(dut: object, name: str) -> tuple[object, bool]:
        for suffix, is_input in (("_i", True), ("_o", False)):
            try:
                return getattr(dut, f"{name}{suffix}"), is_input
            except AttributeError:
                continue
        raise AttributeError(f"the design has no OBI struct port {name}_i or {name}_o")


def read(handle: object | None, default: int = 0) -> int:
    return default if handle is None else int(handle.value)


def drive(handle: object | None, value: int) -> None:
    if handle is not None:
        handle.value = value


# --------------------------------------------------------------------------------- transaction
@dataclass(eq=False)
class ObiTxn:
    addr: int
    we: bool = False
    be: int = 0xF
    wdata: int = 0
    atop: int = 0
    expected: Response | None = None  # filled in by whoever knows what the answer must be
    # Filled in by the master.
    rdata: int | None = None
    err: bool | None = None
    exokay: bool | None = None
    present_cycle: int | None = None
    accept_cycle: int | None = None
    resp_cycle: int | None = None
    done: Event = field(default_factory=Event)

    def describe(self) -> str:
        kind = "write" if self.we else "read"
        text = f"{kind} addr=0x{self.addr:08x} be=0x{self.be:x}"
        if self.we:
            text += f" wdata=0x{self.wdata:08x}"
        if self.atop:
            text += f" atop=0x{self.atop:02x}"
        return text

    def check(self, expected: Response | None = None, what: str = "") -> None:
        """Compare the response with `expected` (or self.expected); rdata None is not compared."""
        exp = expected or self.expected
        assert exp is not None, "no expected response"
        assert self.done.is_set(), f"{self.describe()}: no response"
        where = f"{what}{': ' if what else ''}{self.describe()}"
        got = f"got rdata=0x{self.rdata:08x} err={self.err} exokay={self.exokay}"
        assert self.err == exp.err, f"{where}: err expected {exp.err}, {got}"
        assert self.exokay == exp.exokay, f"{where}: exokay expected {exp.exokay}, {got}"
        if exp.rdata is not None:
            assert self.rdata == exp.rdata, f"{where}: rdata expected 0x{exp.rdata:08x}, {got}"


# -------------------------------------------------------------------------------------- master
class ObiMaster:
    """Drives requests on a design's OBI slave port and collects the responses in order.

    `issue()` queues a request and returns its ObiTxn at once; `request()` also waits for the
    response. With `idle_prob` the master leaves random idle cycles between requests; while idle it
    drives random values on the request fields (they are don't-care without req). The master fails
    the test (an exception in the clock task) if a request waits longer than `gnt_timeout` cycles
    for its grant or a response takes longer than `resp_timeout` cycles.
    """

    def __init__(
        self,
        port: ObiPort,
        rng: random.Random,
        *,
        idle_prob: float = 0.0,
        junk_when_idle: bool = True,
        gnt_timeout: int = 1000,
        resp_timeout: int = 1000,
    ) -> None:
        self.port = port
        self.rng = rng
        self.idle_prob = idle_prob
        self.junk_when_idle = junk_when_idle
        self.gnt_timeout = gnt_timeout
        self.resp_timeout = resp_timeout
        self.queue: deque[ObiTxn] = deque()
        self.current: ObiTxn | None = None
        self.outstanding: deque[ObiTxn] = deque()
        self.max_outstanding = 0
        self.accepted = 0
        self.completed = 0
        self.on_accept: list[Callable[[ObiTxn, int], None]] = []
        self.on_response: list[Callable[[ObiTxn, int], None]] = []
        self.accepted_now: ObiTxn | None = None  # accepted in the cycle just sampled
        self._idle_event = Event()
        self._idle_event.set()

    # -- test-facing API
    def issue(self, addr: int, we: bool = False, be: int = 0xF, wdata: int = 0, atop: int = 0,
              expected: Response | None = None) -> ObiTxn:
        txn = ObiTxn(addr=addr & MASK32, we=we, be=be, wdata=wdata & MASK32, atop=atop, expected=expected)
        self.queue.append(txn)
        self._idle_event.clear()
        return txn

    async def wait(self, txn: ObiTxn, timeout_cycles: int = 100, period_ns: int = 10) -> ObiTxn:
        try:
            await with_timeout(txn.done.wait(), timeout_cycles * period_ns, "ns")
        except SimTimeoutError:
            raise AssertionError(
                f"{self.port.name}: no response to {txn.describe()} within {timeout_cycles} cycles"
            ) from None
        return txn

    async def request(self, addr: int, we: bool = False, be: int = 0xF, wdata: int = 0, atop: int = 0,
                      timeout_cycles: int = 100) -> ObiTxn:
        return await self.wait(self.issue(addr, we, be, wdata, atop), timeout_cycles)

    async def read(self, addr: int, **kwargs: int) -> ObiTxn:
        return await self.request(addr, we=False, **kwargs)

    async def write(self, addr: int, wdata: int, be: int = 0xF, **kwargs: int) -> ObiTxn:
        return await self.request(addr, we=True, be=be, wdata=wdata, **kwargs)

    async def drain(self, timeout_cycles: int, period_ns: int = 10) -> None:
        """Wait until every issued request has its response."""
        try:
            await with_timeout(self._idle_event.wait(), timeout_cycles * period_ns, "ns")
        except SimTimeoutError:
            raise AssertionError(
                f"{self.port.name}: {len(self.queue) + len(self.outstanding)} requests unanswered "
                f"after {timeout_cycles} cycles"
            ) from None

    # -- clock-task hooks
    def reset_values(self) -> None:
        drive(self.port.req, 0)
        for name in ("addr", "we", "be", "wdata", "atop"):
            drive(getattr(self.port, name), 0)

    def drive(self, cycle: int) -> None:
        port = self.port
        if self.current is None and self.queue and self.rng.random() >= self.idle_prob:
            self.current = self.queue.popleft()
            self.current.present_cycle = cycle
        txn = self.current
        if txn is None:
            drive(port.req, 0)
            if self.junk_when_idle:
                drive(port.addr, self.rng.getrandbits(32))
                drive(port.we, self.rng.getrandbits(1))
                drive(port.be, self.rng.getrandbits(4))
                drive(port.wdata, self.rng.getrandbits(32))
                drive(port.atop, self.rng.getrandbits(6))
            return
        drive(port.req, 1)
        drive(port.addr, txn.addr)
        drive(port.we, int(txn.we))
        drive(port.be, txn.be)
        drive(port.wdata, txn.wdata)
        drive(port.atop, txn.atop)

    def sample(self, cycle: int) -> None:
        port = self.port
        self.accepted_now = None
        if read(port.rvalid):
            if not self.outstanding:
                raise AssertionError(f"{port.name}: rvalid in cycle {cycle} with no request outstanding")
            txn = self.outstanding.popleft()
            txn.rdata = read(port.rdata)
            txn.err = bool(read(port.err))
            txn.exokay = bool(read(port.exokay))
            txn.resp_cycle = cycle
            txn.done.set()
            self.completed += 1
            for callback in self.on_response:
                callback(txn, cycle)
        txn = self.current
        if txn is not None and read(port.gnt):
            txn.accept_cycle = cycle
            self.current = None
            self.outstanding.append(txn)
            self.accepted += 1
            self.accepted_now = txn
            self.max_outstanding = max(self.max_outstanding, len(self.outstanding))
            for callback in self.on_accept:
                callback(txn, cycle)
        elif txn is not None and cycle - txn.present_cycle >= self.gnt_timeout:
            raise AssertionError(f"{port.name}: {txn.describe()} not granted within {self.gnt_timeout} cycles")
        if self.outstanding and cycle - self.outstanding[0].accept_cycle >= self.resp_timeout:
            raise AssertionError(
                f"{port.name}: no response to {self.outstanding[0].describe()} "
                f"within {self.resp_timeout} cycles"
            )
        if self.current is None and not self.queue and not self.outstanding:
            self._idle_event.set()


# --------------------------------------------------------------------------------------- slave
@dataclass
class SlaveRequest:
    cycle: int
    addr: int
    we: bool
    be: int
    wdata: int
    atop: int


class ObiSlave:
    """A memory-backed OBI slave on a design's master port, with back-pressure and latency.

    Each cycle gnt is high with probability `gnt_prob` (independent of req, as OBI allows); each
    accepted request is answered after a random latency in `latency` (cycles, at least 1), in
    order. The slave checks the master's side of the protocol: a request not yet granted must stay
    up with the same fields. `atomics=False` makes any request with atop[5] a violation (the
    demultiplexer must never forward one). Violations are collected in `violations`.
    """

    def __init__(
        self,
        port: ObiPort,
        rng: random.Random,
        memory: MemoryModel,
        *,
        gnt_prob: float = 1.0,
        latency: tuple[int, int] = (1, 1),
        atomics: bool = True,
    ) -> None:
        self.port = port
        self.rng = rng
        self.memory = memory
        self.gnt_prob = gnt_prob
        self.latency = latency
        self.atomics = atomics
        self.log: list[SlaveRequest] = []
        self.req_cycles = 0
        self.violations: list[str] = []
        self.pending: deque[tuple[int, Response]] = deque()  # (cycle to answer in, response)
        self.outstanding = 0
        self.max_outstanding = 0
        self._gnt = 0
        self._rvalid = 0
        self._waiting: SlaveRequest | None = None  # request seen without grant last cycle

    def reset_values(self) -> None:
        for name in ("gnt", "rvalid", "rdata", "err", "exokay"):
            drive(getattr(self.port, name), 0)

    def drive(self, cycle: int) -> None:
        self._gnt = int(self.rng.random() < self.gnt_prob)
        drive(self.port.gnt, self._gnt)
        if self.pending and self.pending[0][0] <= cycle:
            response = self.pending[0][1]
            self._rvalid = 1
            drive(self.port.rvalid, 1)
            drive(self.port.rdata, self.rng.getrandbits(32) if response.rdata is None else response.rdata)
            drive(self.port.err, int(response.err))
            drive(self.port.exokay, int(response.exokay))
        else:
            self._rvalid = 0
            drive(self.port.rvalid, 0)
            drive(self.port.rdata, self.rng.getrandbits(32))
            drive(self.port.err, self.rng.getrandbits(1))
            drive(self.port.exokay, self.rng.getrandbits(1))

    def sample(self, cycle: int) -> None:
        port = self.port
        if self._rvalid:
            self.pending.popleft()
            self.outstanding -= 1
        if not read(port.req):
            if self._waiting is not None:
                self.violations.append(f"cycle {cycle}: req dropped before gnt ({self._waiting})")
            self._waiting = None
            return
        self.req_cycles += 1
        req = SlaveRequest(cycle, read(port.addr), bool(read(port.we)), read(port.be, 0xF),
                           read(port.wdata), read(port.atop))
        if not self.atomics and req.atop & ATOP_EXCL:
            self.violations.append(f"cycle {cycle}: atomic request reached a slave without atomics ({req})")
        if self._waiting is not None:
            held = (self._waiting.addr, self._waiting.we, self._waiting.be, self._waiting.wdata, self._waiting.atop)
            if held != (req.addr, req.we, req.be, req.wdata, req.atop):
                self.violations.append(f"cycle {cycle}: request changed before gnt ({self._waiting} -> {req})")
        if not self._gnt:
            self._waiting = req
            return
        self._waiting = None
        self.log.append(req)
        response = self.memory.access(req.addr, req.we, req.be, req.wdata, req.atop)
        lat = self.rng.randint(*self.latency)
        when = cycle + lat
        if self.pending:
            when = max(when, self.pending[-1][0] + 1)
        self.pending.append((when, response))
        self.outstanding += 1
        self.max_outstanding = max(self.max_outstanding, self.outstanding)


# ---------------------------------------------------------------------------------- testbench
class ClockedTb:
    """Owns the clock, the reset and the per-cycle task that runs the bus models.

    Models are objects with `sample(cycle)` (read-only, at the falling edge) and `drive(cycle)`
    (write-only, after the rising edge); `reset_values()` is called before the reset if present.
    `self.rng` is seeded from cocotb's per-test seed, which the pytest side sets from
    COUPLET_TEST_SEED (see `regression_seed`).
    """

    PERIOD_NS = 10

    def __init__(self, dut: object) -> None:
        self.dut = dut
        self.clk = dut.clk_i
        self.cycle = 0
        self.models: list[object] = []
        self.seed = cocotb.RANDOM_SEED  # cocotb derives it from the regression seed and the test name
        self.rng = random.Random(self.seed)
        regression = os.environ.get("COCOTB_RANDOM_SEED", "?")
        dut._log.info("regression seed %s (rerun with %s=%s)", regression, SEED_ENV, regression)

    def add(self, *models: object) -> None:
        self.models.extend(models)

    async def reset(self, cycles: int = 3) -> None:
        """Drive rst_ni high, then low for `cycles` cycles, then high; start the clock task."""
        for model in self.models:
            if hasattr(model, "reset_values"):
                model.reset_values()
        self.dut.rst_ni.value = 1
        Clock(self.clk, self.PERIOD_NS, unit="ns").start(start_high=False)
        await FallingEdge(self.clk)
        self.dut.rst_ni.value = 0
        for _ in range(cycles):
            await FallingEdge(self.clk)
        self.dut.rst_ni.value = 1
        cocotb.start_soon(self._run())
        await RisingEdge(self.clk)

    async def _run(self) -> None:
        while True:
            await FallingEdge(self.clk)
            for model in self.models:
                model.sample(self.cycle)
            await RisingEdge(self.clk)
            self.cycle += 1
            for model in self.models:
                if hasattr(model, "drive"):
                    model.drive(self.cycle)

    async def cycles(self, count: int) -> None:
        """Wait `count` cycles; returns just after the falling edge (a sampling point)."""
        for _ in range(count):
            await FallingEdge(self.clk)

    async def sample_point(self) -> None:
        await FallingEdge(self.clk)

    async def assert_idle(self, expected: dict[str, int], cycles: int) -> None:
        """Check `expected` at each of the next `cycles` sampling points: idle cycles change nothing."""
        for cycle in range(cycles):
            await self.sample_point()
            assert_values(self.dut, expected, f"idle cycle {cycle}")


class Monitor:
    """A model with only a sample hook, for per-cycle checks written as a function."""

    def __init__(self, func: Callable[[int], None]) -> None:
        self.func = func

    def sample(self, cycle: int) -> None:
        self.func(cycle)


def assert_no_violations(slaves: Iterable[ObiSlave]) -> None:
    for slave in slaves:
        assert not slave.violations, f"{slave.port.name}: " + "; ".join(slave.violations[:5])


# ------------------------------------------------------------------------------- pytest side
