"""cocotb tests of couplet_simctrl: the console byte stream and the sticky exit register.

`SimctrlModel` is the golden model: a write to CONSOLE or EXIT needs byte lane 0 (it carries the
payload), anything else is answered with err; reads of the two registers return 0 without error.
A console write pulses console_valid_o for one cycle, in the cycle after its grant, with its byte
on console_data_o; the first exit write sets exit_valid_o and exit_code_o for good. A per-cycle
monitor compares the four outputs with the model and records the console stream as the harness
would see it.

Run: .venv/bin/python -m pytest hw/ip/simctrl/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import cocotb

from couplet.cocotb_run import run_cocotb
from hw.ip.obi.test.obi_bfm import (
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
IDLE_OUTPUTS = {"rvalid_o": 0, "err_o": 0, "console_valid_o": 0, "exit_valid_o": 0, "exit_code_o": 0,
                "console_data_o": 0}


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

    def step(self, txn: ObiTxn | None) -> None:
        """Advance over one clock edge with `txn` granted in the cycle before it (or None)."""
        ok = txn is not None and txn.we and not self.response(txn).err
        self.console_valid = int(ok and txn.addr == CONSOLE)
        if self.console_valid:
            self.console_data = txn.wdata & 0xFF
        if ok and txn.addr == EXIT and not self.exit_valid:
            self.exit_valid, self.exit_code = 1, txn.wdata & 0xFF


class SimctrlTb(ClockedTb):
    def __init__(self, dut, *, idle_prob: float = 0.0) -> None:
        super().__init__(dut)
        self.bus = ObiMaster(ObiPort(dut), self.rng, idle_prob=idle_prob, resp_timeout=20)
        self.model = SimctrlModel()
        self.console: list[int] = []  # bytes seen on console_valid_o/console_data_o
        self.bus.on_response.append(lambda txn, cycle: txn.check())
        self.add(self.bus, Monitor(self._cycle))

    def _cycle(self, cycle: int) -> None:
        dut, model = self.dut, self.model
        outputs = (dut.console_valid_o, dut.console_data_o, dut.exit_valid_o, dut.exit_code_o)
        got = tuple(int(sig.value) for sig in outputs)
        want = (model.console_valid, model.console_data, model.exit_valid, model.exit_code)
        assert got == want, (
            f"cycle {cycle}: (console_valid, console_data, exit_valid, exit_code) = {got}, expected {want}"
        )
        if got[0]:
            self.console.append(got[1])
        txn = self.bus.accepted_now
        if txn is not None:
            txn.expected = model.response(txn)
        model.step(txn)

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, IDLE_OUTPUTS)


@cocotb.test()
async def simctrl_reset_idle(dut):
    """After reset and while idle: no response, no console byte, no exit."""
    tb = SimctrlTb(dut)
    await tb.start()
    for _ in range(16):
        await tb.sample_point()
        assert_values(dut, IDLE_OUTPUTS, "while idle")


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


def test_simctrl() -> None:
    from couplet import rtl

    run_cocotb(
        toplevel="couplet_simctrl",
        sources=rtl.ip_sources("simctrl"),
        test_file=__file__,
        build_name="simctrl",
    )
