"""cocotb tests of couplet_dma: job port, ping-pong descriptor slots, bus errors, throughput.

The memory behind the DMA's OBI master is an ObiSlave (random back-pressure and latency) over a
MemoryModel that answers err in chosen address windows. The accelerator on the word streams is
a Python model (`StreamAccel`) in one of two modes:
- "block": takes 4 words, and `latency` cycles later offers f(block) = each word XOR KEY, in
  reverse order; up to `capacity` blocks in flight, so the next block's input overlaps the
  previous block's computation and output (like a pipelined cipher);
- "emit": logs every word it takes and offers words the test queued, so input and output
  lengths are independent (absorb-only and generate-only jobs).
It drops everything on job_abort. The golden model is a second MemoryModel: each job, in the order
it ran, reads its input words from it and writes the accelerator's function of them back; the
words the accelerator received and the final memory are compared with it.

Run: .venv/bin/python -m pytest hw/ip/dma/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import Event

from couplet.model.regs import load_ip_regs
from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import (
    MASK32,
    ClockedTb,
    MemoryModel,
    Monitor,
    ObiMaster,
    ObiPort,
    ObiSlave,
    Response,
    assert_no_violations,
    assert_values,
    read,
)
from testsupport.accel_port_bfm import MEM_REQ, MEM_RSP
from testsupport.struct_port import PORT_LAYOUTS, StructPort

# The DMA's side of an accelerator's memory side: it takes accel_mem_req_t, gives accel_mem_rsp_t.
PORT_LAYOUTS.update({"accel_req_i": MEM_REQ, "accel_rsp_o": MEM_RSP})

# Build parameters (the defaults of couplet_dma).
IN_FIFO_DEPTH = 8
MAX_OUTSTANDING = 4

# Registers and fields: the IP's description (hw/ip/dma/data/dma.toml). Slot k's registers and
# STATUS bits are slot 0's, k strides further.
REGS = load_ip_regs("dma")
SRC, DST, LEN, OUT_LEN = (REGS.reg(f"slot0_{name}").offset for name in ("src", "dst", "len", "out_len"))
SLOT_STRIDE = REGS.reg("slot1_src").offset - SRC
CTRL, STATUS, IRQ_ENABLE = (REGS.reg(name).offset for name in ("ctrl", "status", "irq_enable"))
CTRL_ABORT = REGS.field("ctrl", "abort_all").mask
GO0, GO1 = REGS.field("ctrl", "go0").mask, REGS.field("ctrl", "go1").mask
IRQ0, IRQ1 = REGS.field("irq_enable", "slot0").mask, REGS.field("irq_enable", "slot1").mask
ARMED, BUSY, DONE, ERR, REFUSED = (
    REGS.field("status", f"slot0_{name}").mask for name in ("armed", "busy", "done", "err", "refused"))
STATUS_STRIDE = REGS.field("status", "slot1_armed").lsb - REGS.field("status", "slot0_armed").lsb
PORT_BUSY = REGS.field("status", "port_busy").mask
UNMAPPED = (0x2C, 0x30, 0x40, 0x100, 0xFFC, 0x1000, 0x1, 0x22, 0x8000_0000, 0xFFFF_FFFC)

KEY = 0x5A5A_C3C3
MEM_BASE = 0x8000_0000
MEM_SIZE = 0x1_0000


def slot_reg(slot: int, reg: int) -> int:
    return slot * SLOT_STRIDE + reg


def st(slot: int, bits: int) -> int:
    """STATUS bits of a slot."""
    return bits << (STATUS_STRIDE * slot)


def init_word(waddr: int) -> int:
    return (waddr * 0x9E37_79B1 ^ 0x0BAD_F00D) & MASK32


def transform(block: list[int]) -> list[int]:
    return [w ^ KEY for w in reversed(block)]


class ErrMemory(MemoryModel):
    """A MemoryModel that answers err, and changes nothing, inside the windows in `err_windows`."""

    def __init__(self) -> None:
        super().__init__(init=init_word)
        self.err_windows: list[tuple[int, int]] = []
        self.writes = 0
        self.reads = 0

    def access(self, addr: int, we: bool, be: int = 0xF, wdata: int = 0, atop_value: int = 0) -> Response:
        assert be == 0xF and atop_value == 0, f"DMA access with be={be:#x} atop={atop_value:#x}"
        assert addr & 3 == 0, f"unaligned DMA access 0x{addr:08x}"
        if any(lo <= addr < hi for lo, hi in self.err_windows):
            return Response(rdata=0, err=True)
        self.writes += we
        self.reads += not we
        return super().access(addr, we, be, wdata, atop_value)


# ------------------------------------------------------------------------------- accelerator
class StreamAccel:
    """The accelerator side of the word streams (see the module docstring)."""

    def __init__(self, dut, rng, *, mode: str = "block", latency: int = 5, capacity: int = 2,
                 in_ready_prob: float = 1.0, out_valid_prob: float = 1.0) -> None:
        self.dut = dut
        self.req = StructPort(dut, "accel_req_i", MEM_REQ)
        self.rsp = StructPort(dut, "accel_rsp_o", MEM_RSP)
        self.rng = rng
        self.mode = mode
        self.latency = latency
        self.capacity = capacity
        self.in_ready_prob = in_ready_prob
        self.out_valid_prob = out_valid_prob
        self.taken: list[int] = []        # every word received
        self.given: list[int] = []        # every word handed to the DMA
        self.emit: deque[int] = deque()   # "emit" mode: words to offer
        self.cur: list[int] = []
        self.pipe: deque[tuple[int, list[int]]] = deque()
        self.outq: deque[int] = deque()
        self.aborts: list[int] = []       # cycles of job_abort
        self._in_ready = 0
        self._out_valid = 0

    def flush(self) -> None:
        self.cur.clear()
        self.pipe.clear()
        self.outq.clear()
        self.emit.clear()

    def reset_values(self) -> None:
        for name in ("in_ready", "out_valid", "out_data"):
            self.req[name].value = 0

    def _blocks_held(self) -> int:
        return len(self.pipe) + -(-len(self.outq) // 4)

    def drive(self, cycle: int) -> None:
        while self.pipe and self.pipe[0][0] <= cycle:
            self.outq.extend(self.pipe.popleft()[1])
        room = self.mode == "emit" or self._blocks_held() < self.capacity
        self._in_ready = int(room and self.rng.random() < self.in_ready_prob)
        self.req.in_ready.value = self._in_ready
        source = self.outq if self.mode == "block" else self.emit
        # Valid, once raised, stays up with the same word until taken (or until job_abort).
        if source and (self._out_valid or self.rng.random() < self.out_valid_prob):
            self._out_valid = 1
            self.req.out_data.value = source[0]
        else:
            self._out_valid = 0
            self.req.out_data.value = self.rng.getrandbits(32)
        self.req.out_valid.value = self._out_valid

    def sample(self, cycle: int) -> None:
        rsp = self.rsp
        if self._in_ready and rsp.in_valid.value:
            word = rsp.in_data.value
            self.taken.append(word)
            if self.mode == "block":
                self.cur.append(word)
                if len(self.cur) == 4:
                    self.pipe.append((cycle + self.latency, transform(self.cur)))
                    self.cur = []
        if self._out_valid and rsp.out_ready.value:
            source = self.outq if self.mode == "block" else self.emit
            self.given.append(source.popleft())
            self._out_valid = 0 if not source else self._out_valid
        if rsp.job_abort.value:
            self.aborts.append(cycle)
            self.flush()
            self._out_valid = 0


# ---------------------------------------------------------------------------------- job port
@dataclass(eq=False)
class Job:
    src: int
    dst: int
    in_len: int
    out_len: int
    slot: int | None = None  # None: from the job port
    start_cycle: int | None = None
    done_cycle: int | None = None
    err: bool | None = None
    taken: tuple[int, int] = (0, 0)  # slice of StreamAccel.taken that belongs to this job
    done: Event = field(default_factory=Event)

    def packed(self) -> int:
        return (self.src << 96) | (self.dst << 64) | (self.in_len << 32) | self.out_len


class JobPort:
    """Drives job_valid_i/job_i, and pairs each job_done_o pulse with the oldest running job."""

    def __init__(self, dut, rng, accel: StreamAccel) -> None:
        self.dut = dut
        self.req = accel.req
        self.rsp = accel.rsp
        self.rng = rng
        self.accel = accel
        self.queue: deque[Job] = deque()
        self.current: Job | None = None
        self.running: deque[Job] = deque()

    def reset_values(self) -> None:
        self.req.job_valid.value = 0
        self.req.job.value = 0

    def drive(self, cycle: int) -> None:
        if self.current is None and self.queue:
            self.current = self.queue.popleft()
        if self.current is None:
            self.req.job_valid.value = 0
            self.req.job.value = self.rng.getrandbits(128)
        else:
            self.req.job_valid.value = 1
            self.req.job.value = self.current.packed()

    def sample(self, cycle: int) -> None:
        rsp = self.rsp
        if rsp.job_err.value:
            assert rsp.job_done.value, f"cycle {cycle}: job_err without job_done"
        if rsp.job_done.value:
            assert self.running, f"cycle {cycle}: job_done with no job from the port running"
            job = self.running.popleft()
            job.done_cycle = cycle
            job.err = bool(rsp.job_err.value)
            job.taken = (job.taken[0], len(self.accel.taken))
            job.done.set()
        if self.current is not None and self.req.job_valid.value and rsp.job_ready.value:
            job = self.current
            job.start_cycle = cycle
            job.taken = (len(self.accel.taken), 0)
            self.running.append(job)
            self.current = None


# ------------------------------------------------------------------------------------ bench
class DmaTb(ClockedTb):
    def __init__(self, dut, *, gnt_prob: float = 1.0, latency: tuple[int, int] = (1, 1),
                 mode: str = "block", accel_latency: int = 5, in_ready_prob: float = 1.0,
                 out_valid_prob: float = 1.0, strict_streams: bool = True) -> None:
        super().__init__(dut)
        self.regs = ObiMaster(ObiPort(dut, "obi_"), self.rng, resp_timeout=20)
        self.memory = ErrMemory()
        self.mem = ObiSlave(ObiPort(dut, "m_"), self.rng, self.memory, gnt_prob=gnt_prob,
                            latency=latency, atomics=False)
        self.golden = MemoryModel(init=init_word)
        self.accel = StreamAccel(dut, self.rng, mode=mode, latency=accel_latency,
                                 in_ready_prob=in_ready_prob, out_valid_prob=out_valid_prob)
        self.port = JobPort(dut, self.rng, self.accel)
        self.strict_streams = strict_streams
        self.max_in_flight = 0
        self.busy_cycles = 0
        self._last_in: tuple[int, int] | None = None
        self.add(self.regs, self.mem, self.accel, self.port, Monitor(self._cycle))

    def _cycle(self, cycle: int) -> None:
        dut = self.dut
        self.max_in_flight = max(self.max_in_flight, self.mem.outstanding)
        assert self.mem.outstanding <= MAX_OUTSTANDING, f"cycle {cycle}: {self.mem.outstanding} accesses in flight"
        self.busy_cycles += read(self.mem.port.req) and read(self.mem.port.gnt)
        # Input stream: a word offered and not taken stays offered, unless the job ends in error.
        valid, data = self.accel.rsp.in_valid.value, self.accel.rsp.in_data.value
        if self.strict_streams and self._last_in is not None:
            assert valid and data == self._last_in[1], (
                f"cycle {cycle}: in_valid/in_data dropped or changed before in_ready"
            )
        taken = valid and self.accel._in_ready
        self._last_in = (valid, data) if valid and not taken else None

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, {"m_req_o.req": 0, "accel_rsp_o.in_valid": 0, "accel_rsp_o.out_ready": 0,
                                 "accel_rsp_o.job_done": 0, "irq_o": 0, "accel_rsp_o.job_abort": 0,
                                 "obi_rsp_o.rvalid": 0})

    async def write(self, addr: int, value: int, be: int = 0xF) -> None:
        txn = await self.regs.write(addr, value, be)
        assert not txn.err, f"register write 0x{addr:x} answered err"

    async def read(self, addr: int) -> int:
        txn = await self.regs.read(addr)
        assert not txn.err, f"register read 0x{addr:x} answered err"
        return txn.rdata

    # -- jobs and the golden model
    def rand_addr(self, words: int, avoid: list[tuple[int, int]]) -> int:
        """A word address in memory whose `words`-long range overlaps none in `avoid`."""
        for _ in range(1000):
            addr = MEM_BASE + 4 * self.rng.randrange(0, MEM_SIZE // 4 - words)
            if all(addr + 4 * words <= lo or addr >= hi for lo, hi in avoid):
                return addr
        raise AssertionError("no free address range")

    def rand_job(self, in_words: int, out_words: int, *, junk_low_bits: bool = True) -> Job:
        src = self.rand_addr(in_words, [])
        dst = self.rand_addr(out_words, [(src, src + 4 * in_words)])
        junk = (lambda: self.rng.randrange(4)) if junk_low_bits else (lambda: 0)
        return Job(src + junk(), dst + junk(), 4 * in_words + junk(), 4 * out_words + junk())

    def expected_output(self, job: Job, words: list[int]) -> list[int]:
        if self.accel.mode == "block":
            return [w for i in range(0, len(words), 4) for w in transform(words[i:i + 4])]
        return []

    def apply_golden(self, job: Job, out_words: list[int]) -> list[int]:
        """Apply a finished, error-free job to the golden memory; return the input words it read."""
        src, dst = job.src & ~3, job.dst & ~3
        words = [self.golden.peek(src + 4 * i) for i in range(job.in_len // 4)]
        if self.accel.mode == "block":
            out_words = self.expected_output(job, words)
        assert len(out_words) == job.out_len // 4
        for i, word in enumerate(out_words):
            self.golden.poke(dst + 4 * i, word)
        return words

    def check_job(self, job: Job, out_words: list[int] | None = None) -> None:
        assert job.done.is_set(), f"job {job} not done"
        assert not job.err, f"job src=0x{job.src:08x} dst=0x{job.dst:08x} ended with err"
        words = self.apply_golden(job, out_words or [])
        got = self.accel.taken[job.taken[0]:job.taken[1]]
        assert got == words, (
            f"job src=0x{job.src:08x} len {job.in_len}: accelerator received {len(got)} words, "
            f"{sum(a != b for a, b in zip(got, words))} differ from memory"
        )

    def check_memory(self) -> None:
        addrs = set(self.golden.words) | set(self.memory.words)
        bad = [a for a in sorted(addrs) if self.memory.peek(a) != self.golden.peek(a)]
        assert not bad, f"{len(bad)} memory words differ from the golden model, first at 0x{bad[0]:08x}"
        assert_no_violations([self.mem])

    async def run_port_job(self, job: Job, timeout: int = 20_000) -> Job:
        self.port.queue.append(job)
        await self.wait_job(job, timeout)
        return job

    async def wait_job(self, job: Job, timeout: int = 20_000) -> None:
        for _ in range(timeout):
            if job.done.is_set():
                return
            await self.sample_point()
        raise AssertionError(f"job src=0x{job.src:08x} in_len={job.in_len} out_len={job.out_len} hangs")

    # -- slots
    async def program_slot(self, slot: int, job: Job) -> None:
        job.slot = slot
        await self.write(slot_reg(slot, SRC), job.src)
        await self.write(slot_reg(slot, DST), job.dst)
        await self.write(slot_reg(slot, LEN), job.in_len)
        if job.out_len & ~3 != job.in_len & ~3:
            await self.write(slot_reg(slot, OUT_LEN), job.out_len)

    async def wait_for(self, signal: str, value: int = 1, timeout: int = 20_000) -> int:
        for _ in range(timeout):
            await self.sample_point()
            if read(getattr(self.dut, signal)) == value:
                return self.cycle
        raise AssertionError(f"{signal} not {value} within {timeout} cycles")


class SlotMonitor:
    """Follows STATUS.BUSY edges of the slots to learn when each slot job started and ended."""

    def __init__(self, tb: DmaTb) -> None:
        self.tb = tb
        self.running: Job | None = None
        self.armed: deque[Job] = deque()  # slot jobs in arming order
        self.finished: list[Job] = []

    def arm(self, job: Job) -> None:
        self.armed.append(job)

    def sample(self, cycle: int) -> None:
        dut, tb = self.tb.dut, self.tb
        # The engine's start and end are visible on the bus side only; use the RTL's slot state.
        # BUSY changes at the edge after the engine's start or end: date both one cycle back,
        # as the job port's handshake and job_done_o are dated.
        busy = read(dut.u_regs.busy_q)
        if self.running is not None and not busy >> self.running.slot & 1:
            job = self.running
            job.done_cycle = cycle - 1
            job.err = bool(read(dut.u_regs.err_q) >> job.slot & 1)
            job.taken = (job.taken[0], len(tb.accel.taken))
            job.done.set()
            self.finished.append(job)
            self.running = None
        if self.running is None and busy:
            slot = 0 if busy & 1 else 1
            assert self.armed and self.armed[0].slot == slot, (
                f"cycle {cycle}: slot {slot} started, expected {self.armed[0].slot if self.armed else None}"
            )
            self.running = self.armed.popleft()
            self.running.start_cycle = cycle - 1
            self.running.taken = (len(tb.accel.taken), 0)


# ------------------------------------------------------------------------------------ tests
@cocotb.test()
async def dma_registers(dut):
    """Reset values, read-back with masked low bits and byte enables, LEN sets OUT_LEN, unmapped offsets."""
    tb = DmaTb(dut)
    await tb.start()
    for offset in (*(slot_reg(s, r) for s in (0, 1) for r in (SRC, DST, LEN, OUT_LEN)), CTRL, STATUS, IRQ_ENABLE):
        assert await tb.read(offset) == 0, f"register 0x{offset:x} not 0 after reset"
    model = {slot_reg(s, r): 0 for s in (0, 1) for r in (SRC, DST, LEN, OUT_LEN)}
    for _ in range(120):
        offset = tb.rng.choice(sorted(model))
        value, be = tb.rng.getrandbits(32), tb.rng.choice((0xF, 0xF, tb.rng.randint(1, 15)))
        await tb.write(offset, value, be)
        mask = sum(0xFF << (8 * i) for i in range(4) if be >> i & 1)
        model[offset] = (model[offset] & ~mask | value & mask) & 0xFFFF_FFFC
        if offset % SLOT_STRIDE == LEN:
            model[offset + 4] = model[offset]
        for check in (offset, tb.rng.choice(sorted(model))):
            assert await tb.read(check) == model[check], f"register 0x{check:x}"
    await tb.write(IRQ_ENABLE, 0xFFFF_FFFF)
    assert await tb.read(IRQ_ENABLE) == IRQ0 | IRQ1
    await tb.write(IRQ_ENABLE, 0x0, be=0b1110)
    assert await tb.read(IRQ_ENABLE) == IRQ0 | IRQ1
    await tb.write(IRQ_ENABLE, IRQ1)
    assert await tb.read(IRQ_ENABLE) == IRQ1
    await tb.write(STATUS, 0xFFFF_FFFF)  # W1C of nothing; no job starts
    assert await tb.read(STATUS) == 0
    assert await tb.read(CTRL) == 0
    for offset in UNMAPPED:
        for we in (False, True):
            txn = await tb.regs.request(offset, we=we, wdata=0xFFFF_FFFF, timeout_cycles=10)
            assert txn.err and txn.rdata == 0, f"offset 0x{offset:x} we={we}: err={txn.err} rdata={txn.rdata:#x}"
    assert await tb.read(STATUS) == 0, "an unmapped write armed a slot"
    for offset, value in model.items():
        assert await tb.read(offset) == value
    await tb.cycles(10)
    assert tb.mem.req_cycles == 0, "the DMA accessed memory without a job"


@cocotb.test()
async def dma_port_jobs(dut):
    """Job-port jobs with random addresses and lengths (0 allowed, independent in/out) under bus stress."""
    tb = DmaTb(dut, gnt_prob=0.7, latency=(1, 4), mode="emit", in_ready_prob=0.7, out_valid_prob=0.7)
    await tb.start()
    sizes = [(0, 0), (0, 5), (7, 0), (1, 1)] + [(tb.rng.randrange(0, 40), tb.rng.randrange(0, 40)) for _ in range(30)]
    for i, (in_words, out_words) in enumerate(sizes):
        if i % 10 == 5:
            tb.mem.gnt_prob, tb.mem.latency = tb.rng.choice(((1.0, (1, 1)), (0.4, (1, 8)), (0.9, (3, 3))))
            tb.accel.in_ready_prob = tb.rng.choice((1.0, 0.3, 0.8))
        job = tb.rand_job(in_words, out_words)
        out = [tb.rng.getrandbits(32) for _ in range(out_words)]
        tb.accel.emit.extend(out)
        await tb.run_port_job(job)
        tb.check_job(job, out)
        if out_words:
            assert tb.accel.given[-out_words:] == out
        assert not tb.accel.emit, "the DMA took fewer output words than out_len"
    # An accelerator that offers more words than out_len: the job takes exactly out_len bytes,
    # the rest wait on the stream for the next job.
    tb.mem.gnt_prob, tb.mem.latency = 0.8, (1, 2)
    extra = [tb.rng.getrandbits(32) for _ in range(5)]
    tb.accel.emit.extend(extra)
    first = tb.rand_job(2, 3)
    await tb.run_port_job(first)
    tb.check_job(first, extra[:3])
    await tb.cycles(10)
    assert list(tb.accel.emit) == extra[3:], "the DMA took words beyond out_len"
    second = tb.rand_job(0, 2)
    await tb.run_port_job(second)
    tb.check_job(second, extra[3:])
    assert not tb.accel.emit
    # Block mode, several jobs queued back to back on the port.
    tb.accel.mode = "block"
    tb.mem.gnt_prob, tb.mem.latency = 0.8, (1, 3)
    jobs = [tb.rand_job(n, n) for n in (4, 32, 8, 64, 4, 20)]
    for job in jobs:
        tb.port.queue.append(job)
    for job in jobs:
        await tb.wait_job(job)
    for job in jobs:
        tb.check_job(job)
    tb.check_memory()
    assert tb.max_in_flight > 1, "never more than one access in flight"
    assert not tb.accel.aborts


@cocotb.test()
async def dma_throughput(dut):
    """Ideal memory, fast accelerator: a 4 KiB job (4 KiB in, 4 KiB out) runs at the bus limit."""
    tb = DmaTb(dut, mode="block", accel_latency=5)
    await tb.start()
    results = []
    for size, latency in ((4096, 1), (4096, 2), (256, 1)):
        tb.mem.latency = (latency, latency)
        words = size // 4
        job = tb.rand_job(words, words, junk_low_bits=False)
        busy_before = tb.busy_cycles
        await tb.run_port_job(job)
        tb.check_job(job)
        cycles = job.done_cycle - job.start_cycle
        ideal = size // 16 * 8  # one access per cycle: 4 reads and 4 writes per 16 bytes
        results.append((size, latency, cycles, ideal, tb.busy_cycles - busy_before))
        dut._log.info("%d bytes, memory latency %d: %d cycles from job accept to job_done_o "
                      "(bus limit %d, %.3f of it; %d bus accesses)", size, latency, cycles, ideal,
                      cycles / ideal, tb.busy_cycles - busy_before)
        assert tb.busy_cycles - busy_before == 2 * words
        # The brief's bound is 1.2 * ideal + a constant; the design does much better, so hold it to that.
        bound = 1.05 * ideal + 24
        assert cycles <= bound, f"{size} B took {cycles} cycles, bound {bound:.0f}"
    tb.check_memory()


@cocotb.test()
async def dma_ping_pong(dut):
    """Double buffering through the slots: arm both, re-arm on each DONE interrupt, many buffers."""
    tb = DmaTb(dut, gnt_prob=0.8, latency=(1, 3), mode="block", in_ready_prob=0.9)
    slots = SlotMonitor(tb)
    tb.add(slots)
    await tb.start()
    await tb.write(IRQ_ENABLE, IRQ0 | IRQ1)
    buffers = []
    for _ in range(16):
        words = 4 * tb.rng.randint(1, 16)
        buffers.append(tb.rand_job(words, words))
    pending = deque(buffers)
    expected_slot = 0
    armed_order: list[int] = []

    async def arm(slot: int) -> None:
        job = pending.popleft()
        await tb.program_slot(slot, job)
        slots.arm(job)
        armed_order.append(slot)
        await tb.write(CTRL, GO0 << slot)

    await arm(0)
    await arm(1)
    done_count = 0
    while done_count < len(buffers):
        await tb.wait_for("irq_o")
        status = await tb.read(STATUS)
        assert status & st(expected_slot, DONE), f"irq with STATUS 0x{status:05x}, expected slot {expected_slot} DONE"
        assert not status & st(expected_slot, ERR | ARMED | BUSY)
        assert not status & st(1 - expected_slot, DONE), f"both slots done at once (STATUS 0x{status:05x})"
        if done_count + 1 < len(buffers):
            # The other slot was armed before this one ended: it runs (or already ran) without a gap.
            assert status & st(1 - expected_slot, ARMED | BUSY), f"STATUS 0x{status:05x}: other slot idle"
        await tb.write(STATUS, st(expected_slot, DONE))
        irq_after = read(dut.irq_o)  # in the cycle after the W1C took effect
        status = await tb.read(STATUS)
        assert not status & st(expected_slot, DONE), "W1C did not clear DONE"
        if irq_after:  # only the other slot's DONE may hold irq_o up; DONE is sticky, so it shows now
            assert status & st(1 - expected_slot, DONE), "irq_o stays up after W1C"
        done_count += 1
        if pending:
            await arm(expected_slot)
        expected_slot = 1 - expected_slot
    for job in buffers:
        tb.check_job(job)
    tb.check_memory()
    assert [job.slot for job in slots.finished] == armed_order
    gaps = [b.start_cycle - a.done_cycle for a, b in zip(slots.finished, slots.finished[1:])]
    dut._log.info("ping-pong: %d buffers, gaps between jobs %s cycles", len(buffers), gaps)
    assert min(gaps) <= 3, "no job followed its predecessor directly"
    # IRQ_ENABLE gates irq_o, DONE stays set regardless.
    await tb.write(IRQ_ENABLE, IRQ0)
    job = tb.rand_job(8, 8)
    await tb.program_slot(1, job)
    slots.arm(job)
    await tb.write(CTRL, GO1)
    await tb.wait_job(job)
    await tb.cycles(2)
    assert await tb.read(STATUS) == st(1, DONE)
    assert read(dut.irq_o) == 0, "irq_o with DONE1 but slot 1 disabled"
    await tb.write(IRQ_ENABLE, IRQ1)
    assert read(dut.irq_o) == 1
    await tb.write(STATUS, st(1, DONE))
    assert read(dut.irq_o) == 0
    tb.check_job(job)
    tb.check_memory()


@cocotb.test()
async def dma_refused_and_arbitration(dut):
    """Re-arming an armed slot and writing its registers are refused; slots and the job port alternate."""
    tb = DmaTb(dut, mode="block", in_ready_prob=0.0)  # the accelerator takes nothing at first
    slots = SlotMonitor(tb)
    tb.add(slots)
    await tb.start()
    a, b, c = tb.rand_job(8, 8), tb.rand_job(4, 4), tb.rand_job(12, 12)
    await tb.program_slot(0, a)
    slots.arm(a)
    await tb.write(CTRL, GO0)
    await tb.cycles(3)
    assert await tb.read(STATUS) == st(0, BUSY), "slot 0 does not run"
    await tb.program_slot(1, b)
    slots.arm(b)
    await tb.write(CTRL, GO1)
    assert await tb.read(STATUS) == st(0, BUSY) | st(1, ARMED)
    # Refused: GO on the armed slot, and writes to its registers; its job is unchanged.
    await tb.write(CTRL, GO1)
    assert await tb.read(STATUS) == st(0, BUSY) | st(1, ARMED | REFUSED), "GO on an armed slot not refused"
    await tb.write(STATUS, st(1, REFUSED))
    assert await tb.read(STATUS) == st(0, BUSY) | st(1, ARMED)
    await tb.write(slot_reg(1, SRC), 0x1234_5678)
    await tb.write(slot_reg(1, LEN), 0x40)
    assert await tb.read(slot_reg(1, SRC)) == b.src & ~3
    assert await tb.read(slot_reg(1, LEN)) == b.in_len & ~3
    assert await tb.read(STATUS) == st(0, BUSY) | st(1, ARMED | REFUSED)
    # Slot 0 runs but is not armed: it can be reprogrammed and re-armed; it runs after slot 1.
    await tb.program_slot(0, c)
    slots.arm(c)
    await tb.write(CTRL, GO0)
    assert await tb.read(STATUS) == st(0, BUSY | ARMED) | st(1, ARMED | REFUSED)
    # A job on the port waits too; after slot 0's job it goes first (the slots ran last).
    p = tb.rand_job(4, 4)
    tb.port.queue.append(p)
    await tb.cycles(20)
    assert p.start_cycle is None and not a.done.is_set()
    await tb.write(STATUS, st(1, REFUSED))
    assert await tb.read(STATUS) == st(0, BUSY | ARMED) | st(1, ARMED)
    tb.accel.in_ready_prob = 1.0
    for job in (a, p, b, c):
        await tb.wait_job(job)
    assert a.done_cycle < p.start_cycle < p.done_cycle < b.start_cycle < b.done_cycle < c.start_cycle, (
        "order: slot 0, port, slot 1 (armed first), slot 0 again"
    )
    for job in (a, p, b, c):
        tb.check_job(job)
    await tb.cycles(2)
    assert await tb.read(STATUS) == st(0, DONE) | st(1, DONE)
    await tb.write(STATUS, st(0, DONE) | st(1, DONE))
    tb.check_memory()
    # Arming order, the other way round: slot 1 runs, slot 0 is armed, slot 1 is re-armed.
    tb.accel.in_ready_prob = 0.0
    d, e, f = tb.rand_job(4, 4), tb.rand_job(8, 8), tb.rand_job(4, 4)
    for slot, job in ((1, d), (0, e), (1, f)):
        await tb.program_slot(slot, job)
        slots.arm(job)
        await tb.write(CTRL, GO0 << slot)
    assert await tb.read(STATUS) == st(0, ARMED) | st(1, BUSY | ARMED)
    # A port job runs; then a slot is armed and another port job waits: the slot goes first.
    tb.accel.in_ready_prob = 1.0
    await tb.wait_job(f)
    tb.accel.in_ready_prob = 0.0
    q1, q2, g = tb.rand_job(4, 4), tb.rand_job(4, 4), tb.rand_job(4, 4)
    tb.port.queue.append(q1)
    await tb.cycles(5)
    assert q1.start_cycle is not None
    tb.port.queue.append(q2)
    await tb.program_slot(0, g)
    slots.arm(g)
    await tb.write(CTRL, GO0)
    assert await tb.read(STATUS) == st(0, ARMED | DONE) | st(1, DONE) | PORT_BUSY
    tb.accel.in_ready_prob = 1.0
    for job in (q1, g, q2):
        await tb.wait_job(job)
    assert d.done_cycle < e.start_cycle < e.done_cycle < f.start_cycle, "order: slot 1, slot 0, slot 1"
    assert q1.done_cycle < g.start_cycle < g.done_cycle < q2.start_cycle, "order: port, slot 0, port"
    for job in (d, e, f, q1, g, q2):
        tb.check_job(job)
    tb.check_memory()


@cocotb.test()
async def dma_bus_errors(dut):
    """An err response ends the job promptly with an error and job_abort; later jobs are unaffected."""
    tb = DmaTb(dut, gnt_prob=0.7, latency=(1, 4), mode="block", in_ready_prob=0.8, strict_streams=False)
    slots = SlotMonitor(tb)
    tb.add(slots)
    await tb.start()
    await tb.write(IRQ_ENABLE, IRQ0 | IRQ1)
    for trial in range(16):
        words = 4 * tb.rng.randint(2, 24)
        job = tb.rand_job(words, words)
        side = tb.rng.choice(("src", "dst"))
        base = (job.src if side == "src" else job.dst) & ~3
        first = base + 4 * tb.rng.randrange(words)
        tb.memory.err_windows = [(first, first + 4 * tb.rng.randint(1, 8))]
        snapshot = {a: tb.memory.peek(a) for a in range(job.dst & ~3, (job.dst & ~3) + 4 * words, 4)}
        aborts = len(tb.accel.aborts)
        use_slot = trial % 2 == 1
        if use_slot:
            await tb.program_slot(trial % 4 // 2, job)
            slots.arm(job)
            await tb.write(CTRL, GO0 << job.slot)
            await tb.wait_job(job, timeout=2000)
        else:
            await tb.run_port_job(job, timeout=2000)
        assert job.err, f"trial {trial}: {side} error window not reported"
        assert job.done_cycle - job.start_cycle < 20 * words + 100
        await tb.cycles(2)
        assert len(tb.accel.aborts) == aborts + 1, "no job_abort pulse (or more than one)"
        assert tb.accel.aborts[-1] == job.done_cycle, "job_abort not in the cycle the job ended"
        if use_slot:
            status = await tb.read(STATUS)
            assert status == st(job.slot, DONE | ERR), f"STATUS 0x{status:05x}"
            assert read(dut.irq_o)
            await tb.write(STATUS, st(job.slot, DONE | ERR))
        # Only the destination range may have changed, and only to the values the job would write.
        tb.memory.err_windows = []
        src_words = [tb.golden.peek((job.src & ~3) + 4 * i) for i in range(words)]
        expected = [w for i in range(0, words, 4) for w in transform(src_words[i:i + 4])]
        for i, addr in enumerate(sorted(snapshot)):
            now = tb.memory.peek(addr)
            assert now in (snapshot[addr], expected[i]), f"trial {trial}: 0x{addr:08x} holds a wrong word"
            tb.golden.poke(addr, now)
        # A clean job right after works (no word of the failed job leaks into it).
        good = tb.rand_job(8, 8)
        await tb.run_port_job(good)
        tb.check_job(good)
    tb.check_memory()
    # ABORT of a running slot job (accelerator stalled), with the other slot armed: both end, no hang.
    tb.accel.in_ready_prob = 0.0
    a, b = tb.rand_job(16, 16), tb.rand_job(4, 4)
    await tb.program_slot(0, a)
    slots.arm(a)
    await tb.write(CTRL, GO0)
    await tb.program_slot(1, b)
    await tb.write(CTRL, GO1)
    await tb.cycles(10)
    assert await tb.read(STATUS) == st(0, BUSY) | st(1, ARMED)
    aborts = len(tb.accel.aborts)
    await tb.write(CTRL, CTRL_ABORT | GO0 | GO1)  # GO bits with ABORT are ignored
    await tb.wait_job(a, timeout=50)
    assert a.err
    await tb.cycles(3)
    assert await tb.read(STATUS) == st(0, DONE | ERR), "slot 1 still armed after ABORT"
    assert len(tb.accel.aborts) == aborts + 1
    # ABORT while idle: just the job_abort pulse, the soft reset of the accelerator's stream state.
    await tb.write(CTRL, CTRL_ABORT)
    await tb.cycles(3)
    assert len(tb.accel.aborts) == aborts + 2
    await tb.write(STATUS, 0xFFFF_FFFF)
    assert await tb.read(STATUS) == 0
    tb.accel.in_ready_prob = 1.0
    for _ in range(4):  # the engine and the accelerator are clean again
        words = tb.rng.randint(1, 8) * 4
        good = tb.rand_job(words, words)
        await tb.run_port_job(good)
        tb.check_job(good)
    tb.check_memory()


def test_dma() -> None:
    run_ip_cocotb(__file__, "dma", ["obi", "accel", "dma"])
