"""cocotb tests of couplet_simctrl: the console byte stream and the sticky exit register.

`SimctrlModel` is the golden model: a write to CONSOLE or EXIT needs byte lane 0 (it carries the
payload), anything else is answered with err; reads of the two registers return 0 without error.
A granted console write sets console_valid_o with its byte on console_data_o in the next cycle; the
byte stays until a cycle with console_ready_i high takes it (with ready always high: a one-cycle
pulse per write). A console write is not granted while a byte is pending and console_ready_i is
low; every other access is granted at once. The first exit write sets exit_valid_o and exit_code_o
for good. A per-cycle monitor compares gnt_o and the four outputs with the model and records the
console stream as the consumer sees it (bytes taken on valid && ready).

Run: .venv/bin/python -m pytest hw/ip/simctrl/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import cocotb

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import (
    ClockedTb,
    Monitor,
    ObiMaster,
    ObiPort,
    ObiTxn,
    Response,
    assert_values,
)

CONSOLE = 0x0
EXIT = 0x4
UNMAPPED = (0x1, 0x2, 0x3, 0x5, 0x8, 0xC, 0x10, 0x1000, 0x8000_0000, 0xFFFF_FFFC)
IDLE_OUTPUTS = {"obi_rsp_o.rvalid": 0, "obi_rsp_o.err": 0, "console_valid_o": 0, "exit_valid_o": 0,
                "exit_code_o": 0, "console_data_o": 0}


class SimctrlModel:
    def __init__(self) -> None:
        self.console_valid = 0
        self.console_data = 0
        self.exit_valid = 0
        self.exit_code = 0

    @staticmethod
    def response(txn: ObiTxn) -> Response:
        mapped = txn.addr in (CONSOLE, EXIT)
        lane0 = bool(txn.be & 1)
        return Response(rdata=0, err=not mapped or (txn.we and not lane0))

    def is_console_write(self, txn: ObiTxn) -> bool:
        return txn.we and txn.addr == CONSOLE and not self.response(txn).err

    def grant(self, txn: ObiTxn, ready: int) -> int:
        """gnt_o for `txn` presented in a cycle where console_ready_i is `ready`."""
        return int(not (self.is_console_write(txn) and self.console_valid and not ready))

    def step(self, txn: ObiTxn | None, ready: int) -> None:
        """Advance over one clock edge with `txn` granted in the cycle before it (or None)."""
        ok = txn is not None and txn.we and not self.response(txn).err
        if ok and txn.addr == CONSOLE:
            self.console_valid, self.console_data = 1, txn.wdata & 0xFF
        elif ready:
            self.console_valid = 0
        if ok and txn.addr == EXIT and not self.exit_valid:
            self.exit_valid, self.exit_code = 1, txn.wdata & 0xFF


class ReadyDriver:
    """Drives console_ready_i: always high (the simulator's harness), or a random pattern of
    single-cycle gaps and stalls of up to `max_stall` cycles (a UART whose FIFO fills up)."""

    def __init__(self, dut, rng, *, ready_prob: float = 1.0, max_stall: int = 0) -> None:
        self.handle = dut.console_ready_i
        self.rng = rng
        self.ready_prob = ready_prob
        self.max_stall = max_stall
        self.stall = 0

    def reset_values(self) -> None:
        self.handle.value = 1

    def sample(self, cycle: int) -> None:
        pass

    def drive(self, cycle: int) -> None:
        if self.stall == 0 and self.max_stall and self.rng.random() < 0.05:
            self.stall = self.rng.randint(1, self.max_stall)
        if self.stall:
            self.stall -= 1
            self.handle.value = 0
        else:
            self.handle.value = int(self.rng.random() < self.ready_prob)


class SimctrlTb(ClockedTb):
    def __init__(self, dut, *, idle_prob: float = 0.0, ready_prob: float = 1.0, max_stall: int = 0) -> None:
        super().__init__(dut)
        self.bus = ObiMaster(ObiPort(dut, "obi_"), self.rng, idle_prob=idle_prob, resp_timeout=20, gnt_timeout=200)
        self.ready = ReadyDriver(dut, self.rng, ready_prob=ready_prob, max_stall=max_stall)
        self.model = SimctrlModel()
        self.console: list[int] = []  # bytes taken from console_valid_o/console_data_o (valid && ready)
        self.stalled_cycles = 0  # cycles a request was presented and not granted
        self.bus.on_response.append(lambda txn, cycle: txn.check())
        self.add(self.bus, self.ready, Monitor(self._cycle))

    def _cycle(self, cycle: int) -> None:
        dut, model = self.dut, self.model
        outputs = (dut.console_valid_o, dut.console_data_o, dut.exit_valid_o, dut.exit_code_o)
        got = tuple(int(sig.value) for sig in outputs)
        want = (model.console_valid, model.console_data, model.exit_valid, model.exit_code)
        assert got == want, (
            f"cycle {cycle}: (console_valid, console_data, exit_valid, exit_code) = {got}, expected {want}"
        )
        ready = int(dut.console_ready_i.value)
        if got[0] and ready:
            self.console.append(got[1])
        presented = self.bus.accepted_now or self.bus.current
        if int(self.bus.port.req.value):
            assert presented is not None
            gnt, want_gnt = int(self.bus.port.gnt.value), model.grant(presented, ready)
            assert gnt == want_gnt, f"cycle {cycle}: gnt = {gnt} for {presented.describe()}, expected {want_gnt}"
            self.stalled_cycles += 1 - gnt
        txn = self.bus.accepted_now
        if txn is not None:
            txn.expected = model.response(txn)
        model.step(txn, ready)

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, IDLE_OUTPUTS)


@cocotb.test()
async def simctrl_reset_idle(dut):
    """After reset and while idle: no response, no console byte, no exit."""
    tb = SimctrlTb(dut)
    await tb.start()
    await tb.assert_idle(IDLE_OUTPUTS, 16)


@cocotb.test()
async def simctrl_console(dut):
    """Word, half-word and byte writes each put one byte on the console, in order, one cycle each."""
    tb = SimctrlTb(dut)
    await tb.start()
    message = b"Hello from couplet!\n\x00\xff\x7f"
    txns = []
    for i, byte in enumerate(message):
        be = (0xF, 0x1, 0x3, 0x5)[i % 4]
        junk = tb.rng.getrandbits(24) << 8  # upper lanes are ignored
        txns.append(tb.bus.issue(CONSOLE, we=True, be=be, wdata=junk | byte))
    await tb.bus.drain(timeout_cycles=10 * len(message))
    await tb.cycles(2)
    assert bytes(tb.console) == message, f"console got {bytes(tb.console)!r}"
    assert all(not t.err for t in txns)
    # Back to back, the pulses are consecutive cycles: one per write, none extra.
    valid_cycles = []
    tb.add(Monitor(lambda cycle: valid_cycles.append(cycle) if int(dut.console_valid_o.value) else None))
    tb.console.clear()
    txns = [tb.bus.issue(CONSOLE, we=True, wdata=c) for c in b"abc"]
    await tb.bus.drain(timeout_cycles=20)
    await tb.cycles(3)
    assert bytes(tb.console) == b"abc"
    assert valid_cycles == [t.accept_cycle + 1 for t in txns], f"valid in {valid_cycles}"
    # With a gap, the pulse lasts exactly one cycle.
    valid_cycles.clear()
    await tb.bus.write(CONSOLE, ord("z"), be=0x1)
    await tb.cycles(3)
    assert len(valid_cycles) == 1


@cocotb.test()
async def simctrl_exit(dut):
    """The first exit code sticks; later exit writes change nothing; the console keeps working."""
    tb = SimctrlTb(dut)
    await tb.start()
    txn = await tb.bus.write(EXIT, 0xDEAD_BE2A)
    assert not txn.err
    assert (int(dut.exit_valid_o.value), int(dut.exit_code_o.value)) == (1, 0x2A)
    for code in (0x55, 0x00, 0xFF):
        await tb.bus.write(EXIT, code, be=0x1)
        assert (int(dut.exit_valid_o.value), int(dut.exit_code_o.value)) == (1, 0x2A), "exit code not sticky"
    read = await tb.bus.read(EXIT)
    assert (read.err, read.rdata) == (False, 0)
    await tb.bus.write(CONSOLE, ord("!"))
    await tb.cycles(2)
    assert tb.console == [ord("!")]
    assert (int(dut.exit_valid_o.value), int(dut.exit_code_o.value)) == (1, 0x2A)


@cocotb.test()
async def simctrl_errors(dut):
    """Writes without byte lane 0 and unknown offsets get err and do nothing; reads of the registers don't."""
    tb = SimctrlTb(dut)
    await tb.start()
    for addr in (CONSOLE, EXIT):
        for be in (0b0000, 0b0010, 0b0100, 0b1000, 0b1110):
            txn = await tb.bus.write(addr, 0x41, be=be)
            assert txn.err, f"write to 0x{addr:x} with be=0b{be:04b} not answered with err"
        txn = await tb.bus.read(addr)
        assert (txn.err, txn.rdata) == (False, 0), f"read of 0x{addr:x}: err={txn.err} rdata=0x{txn.rdata:x}"
    for addr in UNMAPPED:
        for we in (False, True):
            txn = await tb.bus.request(addr, we=we, wdata=0x41, timeout_cycles=10)
            assert (txn.err, txn.rdata) == (True, 0), f"0x{addr:x}: err={txn.err}"
    await tb.cycles(2)
    assert tb.console == [], "a refused write reached the console"
    assert int(dut.exit_valid_o.value) == 0, "a refused write set exit"


@cocotb.test()
async def simctrl_random(dut):
    """A random stream of reads and writes (all offsets, all byte enables) against the model."""
    tb = SimctrlTb(dut, idle_prob=0.3)
    await tb.start()
    for _ in range(1000):
        addr = tb.rng.choice((CONSOLE, CONSOLE, CONSOLE, EXIT, *UNMAPPED[:3]))
        tb.bus.issue(addr, we=tb.rng.random() < 0.7, be=tb.rng.randrange(16), wdata=tb.rng.getrandbits(32))
    await tb.bus.drain(timeout_cycles=5000)
    assert len(tb.console) > 100  # about 150 expected: 3/7 console, 70 % writes, half with lane 0


@cocotb.test()
async def simctrl_console_backpressure(dut):
    """With a random console_ready_i pattern every console byte arrives once, in order, and every
    access completes: console writes wait while a byte is pending, nothing else ever waits."""
    tb = SimctrlTb(dut, idle_prob=0.2, ready_prob=0.6, max_stall=25)
    await tb.start()
    sent = []
    for _ in range(1500):
        addr = tb.rng.choice((CONSOLE, CONSOLE, CONSOLE, CONSOLE, EXIT, *UNMAPPED[:3]))
        we = tb.rng.random() < 0.8
        be = tb.rng.choice((0xF, 0x1, 0xF, 0x3, tb.rng.randrange(16)))
        wdata = tb.rng.getrandbits(32)
        tb.bus.issue(addr, we=we, be=be, wdata=wdata)
        if addr == CONSOLE and we and be & 1:
            sent.append(wdata & 0xFF)
    await tb.bus.drain(timeout_cycles=40 * len(sent) + 5000)
    for _ in range(200):  # the last byte leaves at the consumer's pace
        if len(tb.console) == len(sent):
            break
        await tb.cycles(1)
    await tb.cycles(30)
    assert tb.console == sent, f"console got {len(tb.console)} bytes, {len(sent)} sent, first difference at " + str(
        next((i for i, (a, b) in enumerate(zip(tb.console, sent)) if a != b), min(len(tb.console), len(sent))))
    assert len(sent) > 400  # about 540 expected: 1500 x 4/8 console x 0.8 writes x 0.9 with lane 0
    assert tb.stalled_cycles > 100, f"only {tb.stalled_cycles} stalled cycles: back-pressure not exercised"
    assert int(dut.console_valid_o.value) == 0
    dut._log.info("%d console bytes, %d stalled request cycles", len(sent), tb.stalled_cycles)


def test_simctrl() -> None:
    run_ip_cocotb(__file__, "simctrl", ["obi", "simctrl"])
