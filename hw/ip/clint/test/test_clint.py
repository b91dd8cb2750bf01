"""cocotb tests of couplet_clint, built once per MtimeDivider value.

`ClintModel` is a cycle-accurate golden model of the registers: mtime starts at 0 when reset is
released and advances once every MtimeDivider cycles (on the MtimeDivider-th edge after reset, then
every MtimeDivider edges); mtimecmp resets to all ones; msip to 0. A write replaces the enabled bytes
of the addressed 32-bit half with merge(current half, wdata, be); the other half of mtime advances as
usual in that cycle. A per-cycle monitor compares mtime_o, timer_irq_o (mtime >= mtimecmp) and
soft_irq_o with the model and predicts every bus response, so each test checks all of them on every
cycle; the directed tests add explicit, model-free checks of the same behaviour.

Run: .venv/bin/python -m pytest hw/ip/clint/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import os

import cocotb
import pytest

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import (
    MASK32,
    ClockedTb,
    Monitor,
    ObiMaster,
    ObiPort,
    ObiTxn,
    Response,
    assert_values,
    merge,
)

MSIP = 0x0
MTIMECMP_LO = 0x4000
MTIMECMP_HI = 0x4004
MTIME_LO = 0xBFF8
MTIME_HI = 0xBFFC
REGISTERS = (MSIP, MTIMECMP_LO, MTIMECMP_HI, MTIME_LO, MTIME_HI)
UNMAPPED = (0x4, 0x8, 0x3FFC, 0x4008, 0xBFF4, 0xC000, 0x4001, 0x4002, 0xBFF9, 0x1_0000, 0x1_4000,
            0x8000_BFF8, 0xFFFF_FFFC)
MASK64 = (1 << 64) - 1
DIVIDER_ENV = "COUPLET_CLINT_DIVIDER"  # the build's MtimeDivider, passed from the pytest side
DIVIDERS = (1, 3)


def mtime_divider() -> int:
    return int(os.environ[DIVIDER_ENV])


class ClintModel:
    def __init__(self, divider: int) -> None:
        self.divider = divider
        self.mtime = 0
        self.prescale = 0
        self.mtimecmp = MASK64
        self.msip = 0

    def read(self, addr: int) -> Response:
        values = {
            MSIP: self.msip,
            MTIMECMP_LO: self.mtimecmp & MASK32,
            MTIMECMP_HI: self.mtimecmp >> 32,
            MTIME_LO: self.mtime & MASK32,
            MTIME_HI: self.mtime >> 32,
        }
        if addr not in values:
            return Response(rdata=0, err=True)
        return Response(rdata=values[addr])

    def step(self, txn: ObiTxn | None) -> None:
        """Advance over one clock edge, with `txn` accepted in the cycle before it (or None)."""
        tick = self.prescale == self.divider - 1
        self.prescale = 0 if tick else self.prescale + 1
        mtime = (self.mtime + tick) & MASK64
        if txn is not None and txn.we:
            if txn.addr == MSIP and txn.be & 1:
                self.msip = txn.wdata & 1
            elif txn.addr in (MTIMECMP_LO, MTIMECMP_HI):
                shift = 0 if txn.addr == MTIMECMP_LO else 32
                half = merge(self.mtimecmp >> shift & MASK32, txn.wdata, txn.be)
                self.mtimecmp = self.mtimecmp & ~(MASK32 << shift) & MASK64 | half << shift
            elif txn.addr in (MTIME_LO, MTIME_HI):
                shift = 0 if txn.addr == MTIME_LO else 32
                half = merge(self.mtime >> shift & MASK32, txn.wdata, txn.be)
                mtime = mtime & ~(MASK32 << shift) & MASK64 | half << shift
        self.mtime = mtime


class ClintTb(ClockedTb):
    def __init__(self, dut, *, idle_prob: float = 0.0) -> None:
        super().__init__(dut)
        self.divider = mtime_divider()
        self.bus = ObiMaster(ObiPort(dut, "obi_"), self.rng, idle_prob=idle_prob, resp_timeout=20)
        self.model = ClintModel(self.divider)
        self.model.step(None)  # ClockedTb.reset() returns after the first edge with reset released
        self.bus.on_response.append(lambda txn, cycle: txn.check())
        self.add(self.bus, Monitor(self._cycle))

    def _cycle(self, cycle: int) -> None:
        model, dut = self.model, self.dut
        got = (int(dut.mtime_o.value), int(dut.timer_irq_o.value), int(dut.soft_irq_o.value))
        want = (model.mtime, int(model.mtime >= model.mtimecmp), model.msip)
        assert got == want, (
            f"cycle {cycle}: (mtime_o, timer_irq_o, soft_irq_o) = ({got[0]:#x}, {got[1]}, {got[2]}), "
            f"expected ({want[0]:#x}, {want[1]}, {want[2]}) with mtimecmp {model.mtimecmp:#x}"
        )
        txn = self.bus.accepted_now
        if txn is not None:
            txn.expected = model.read(txn.addr)
            if txn.we and not txn.expected.err:
                txn.expected.rdata = None  # don't care for writes
        model.step(txn)

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, {"obi_rsp_o.rvalid": 0, "obi_rsp_o.err": 0, "timer_irq_o": 0, "soft_irq_o": 0})

    async def read(self, addr: int) -> int:
        txn = await self.bus.read(addr)
        assert not txn.err, f"read of 0x{addr:x} got err"
        return txn.rdata

    async def write(self, addr: int, value: int, be: int = 0xF) -> ObiTxn:
        txn = await self.bus.write(addr, value, be)
        assert not txn.err, f"write of 0x{addr:x} got err"
        return txn

    async def irq_cycle(self, limit: int) -> int:
        """The first cycle (from now) in which timer_irq_o is high."""
        for _ in range(limit):
            await self.sample_point()
            if int(self.dut.timer_irq_o.value):
                return self.cycle
        raise AssertionError(f"timer_irq_o not raised within {limit} cycles")


@cocotb.test()
async def clint_reset(dut):
    """mtime starts at 0, mtimecmp at all ones, msip at 0; no interrupt."""
    tb = ClintTb(dut)
    await tb.start()
    await tb.sample_point()
    # The first sample follows the first edge after reset: mtime is 1 // divider.
    assert int(dut.mtime_o.value) == (tb.cycle + 1) // tb.divider
    assert await tb.read(MTIMECMP_LO) == MASK32
    assert await tb.read(MTIMECMP_HI) == MASK32
    assert await tb.read(MSIP) == 0
    assert await tb.read(MTIME_HI) == 0
    await tb.assert_idle({"obi_rsp_o.rvalid": 0, "timer_irq_o": 0, "soft_irq_o": 0}, 10)


@cocotb.test()
async def clint_mtime_counts(dut):
    """mtime_o advances by one every MtimeDivider cycles, and a bus read returns the same count."""
    tb = ClintTb(dut)
    await tb.start()
    await tb.sample_point()
    previous, steps = int(dut.mtime_o.value), []
    for _ in range(12 * tb.divider):
        await tb.sample_point()
        now = int(dut.mtime_o.value)
        assert now - previous in (0, 1), f"mtime jumped from {previous} to {now}"
        steps.append(now - previous)
        previous = now
    ticks = [i for i, step in enumerate(steps) if step]
    assert len(ticks) == 12, f"{len(ticks)} increments in {12 * tb.divider} cycles, expected 12"
    assert all(b - a == tb.divider for a, b in zip(ticks, ticks[1:])), f"increments at {ticks}"
    for _ in range(8):
        txn = tb.bus.issue(MTIME_LO)  # the monitor predicts the value of the grant cycle
        await tb.bus.wait(txn)
        assert txn.rdata == (txn.accept_cycle + 1) // tb.divider


@cocotb.test()
async def clint_register_writes(dut):
    """mtime and mtimecmp halves take byte-enable writes; mtime keeps counting from the new value."""
    tb = ClintTb(dut)
    await tb.start()
    for addr in (MTIMECMP_LO, MTIMECMP_HI, MTIME_LO, MTIME_HI):
        for be in range(1, 16):
            await tb.write(addr, tb.rng.getrandbits(32), be)
            await tb.read(addr)  # compared with the model
    # Model-free: mtimecmp keeps exactly what was written.
    await tb.write(MTIMECMP_LO, 0x1122_3344)
    await tb.write(MTIMECMP_LO, 0xAABB_CCDD, be=0b0101)
    assert await tb.read(MTIMECMP_LO) == 0x11BB_33DD
    await tb.write(MTIMECMP_HI, 0x5566_7788, be=0b1000)
    assert (await tb.read(MTIMECMP_HI)) >> 24 == 0x55
    # The carry from mtime_lo into mtime_hi.
    await tb.write(MTIME_HI, 0x0000_0007)
    await tb.write(MTIME_LO, 0xFFFF_FFF8)
    await tb.cycles(10 * tb.divider)
    assert await tb.read(MTIME_HI) == 8
    assert await tb.read(MTIME_LO) < 0x100
    # A write with only the upper lanes of mtime_lo leaves the counting low bytes alone.
    lo_before = int(dut.mtime_o.value) & 0xFFFF
    await tb.write(MTIME_LO, 0xABCD_0000, be=0b1100)
    assert (await tb.read(MTIME_LO)) >> 16 == 0xABCD
    assert int(dut.mtime_o.value) & 0xFFFF >= lo_before


@cocotb.test()
async def clint_timer_irq(dut):
    """timer_irq_o rises in exactly the cycle mtime reaches mtimecmp, and follows mtimecmp writes."""
    tb = ClintTb(dut)
    await tb.start()
    for distance in (1, 2, 7, 20):
        await tb.write(MTIMECMP_LO, MASK32)  # lower half first, so mtimecmp never dips below mtime
        await tb.write(MTIMECMP_HI, 0)
        await tb.sample_point()
        now, cycle = int(dut.mtime_o.value), tb.cycle
        target = now + distance + 5  # room for the write itself
        txn = await tb.write(MTIMECMP_LO, target)
        assert txn.accept_cycle < cycle + 5
        # mtime counts up from `now` in `cycle`: it reaches `target` `distance + 5` ticks later.
        phase = (cycle + 1) % tb.divider  # cycles since the last tick, as the prescaler counts
        expected = cycle + (distance + 5) * tb.divider - phase
        got = await tb.irq_cycle(limit=200)
        assert got == expected, f"timer_irq_o rose in cycle {got}, expected {expected}"
        assert int(dut.mtime_o.value) == target
        await tb.write(MTIMECMP_HI, MASK32)  # far away again: the irq drops
        await tb.sample_point()
        assert int(dut.timer_irq_o.value) == 0
    # The comparison is 64 bits wide and unsigned.
    await tb.write(MTIME_HI, 1)
    await tb.write(MTIMECMP_HI, 0)
    await tb.write(MTIMECMP_LO, MASK32)
    await tb.sample_point()
    assert int(dut.timer_irq_o.value) == 1, "mtime 0x1_xxxxxxxx >= mtimecmp 0x0_ffffffff"
    await tb.write(MTIMECMP_HI, 1)
    await tb.sample_point()
    assert int(dut.timer_irq_o.value) == 0, "mtime 0x1_000000xx < mtimecmp 0x1_ffffffff"
    await tb.write(MTIMECMP_HI, 0x8000_0000)
    await tb.write(MTIME_HI, 0x7FFF_FFFF)
    await tb.sample_point()
    assert int(dut.timer_irq_o.value) == 0, "unsigned: 0x7fffffff_... < 0x80000000_..."
    await tb.write(MTIMECMP_HI, 0)
    await tb.write(MTIMECMP_LO, 0)
    await tb.sample_point()
    assert int(dut.timer_irq_o.value) == 1, "mtimecmp 0: always pending"


@cocotb.test()
async def clint_msip(dut):
    """msip bit 0 drives soft_irq_o; writes need byte lane 0; other bits read as 0."""
    tb = ClintTb(dut)
    await tb.start()
    await tb.write(MSIP, 0xFFFF_FFFF)
    assert int(dut.soft_irq_o.value) == 1
    assert await tb.read(MSIP) == 1
    await tb.write(MSIP, 0, be=0b1110)  # no lane 0: unchanged
    assert int(dut.soft_irq_o.value) == 1
    await tb.write(MSIP, 0xFFFF_FFFE)
    assert int(dut.soft_irq_o.value) == 0
    assert await tb.read(MSIP) == 0
    await tb.write(MSIP, 1, be=0b0001)
    assert int(dut.soft_irq_o.value) == 1


@cocotb.test()
async def clint_unmapped(dut):
    """Any offset without a register answers err = 1 and rdata = 0, and changes nothing."""
    tb = ClintTb(dut)
    await tb.start()
    for addr in UNMAPPED:
        for we in (False, True):
            txn = await tb.bus.request(addr, we=we, wdata=tb.rng.getrandbits(32), timeout_cycles=10)
            assert (txn.err, txn.rdata) == (True, 0), f"0x{addr:x}: err={txn.err} rdata=0x{txn.rdata:x}"
    assert await tb.read(MTIMECMP_LO) == MASK32
    assert await tb.read(MTIMECMP_HI) == MASK32
    assert await tb.read(MSIP) == 0


@cocotb.test()
async def clint_random(dut):
    """Random reads and writes of every register (and unmapped offsets) against the model."""
    tb = ClintTb(dut, idle_prob=0.3)
    await tb.start()
    for _ in range(1500):
        addr = tb.rng.choice(REGISTERS) if tb.rng.random() < 0.9 else tb.rng.choice(UNMAPPED)
        we = tb.rng.random() < 0.5
        wdata = tb.rng.getrandbits(32)
        if addr in (MTIMECMP_HI, MTIME_HI) and tb.rng.random() < 0.7:
            wdata &= 0x3  # keep mtime and mtimecmp close, so the interrupt toggles
        tb.bus.issue(addr, we=we, be=tb.rng.randint(1, 15), wdata=wdata)
    await tb.bus.drain(timeout_cycles=10_000)
    assert tb.bus.completed >= 1500


@pytest.mark.parametrize("divider", DIVIDERS)
def test_clint(divider: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DIVIDER_ENV, str(divider))
    run_ip_cocotb(__file__, "clint", ["obi", "clint"], build_name=f"clint_div{divider}",
                  parameters={"MtimeDivider": divider})
