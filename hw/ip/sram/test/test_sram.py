"""cocotb tests of couplet_sram: port B reads/writes/atomics, port A fetches.

Two golden views of the memory are kept:
- `golden` (MemoryModel) applies port B requests in bus order, with byte enables, AMOs and the
  LR/SC reservation; it gives the expected port B response.
- `visible` is the RAM content cycle by cycle as the header of couplet_sram.sv describes it: a
  port B write lands at the edge that ends its grant cycle, an AMO writes one cycle later (its
  second cycle, in which port B takes no request), and a read, on either port, sees the content at
  the start of its grant cycle. Port A reads are checked against it.
Every response is checked when it arrives, and must come exactly one cycle after the grant.

Run: .venv/bin/python -m pytest hw/ip/sram/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import cocotb

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import (
    AMO_RMW_OPS,
    ATOP_EXCL,
    CORNER_WORDS,
    Amo,
    ClockedTb,
    MemoryModel,
    Monitor,
    ObiMaster,
    ObiPort,
    ObiTxn,
    Response,
    assert_values,
    atop,
    merge,
)

SIZE_BYTES = 1024  # SizeBytes of this build
WORDS = SIZE_BYTES // 4
IDLE_OUTPUTS = {"a_rsp_o.rvalid": 0, "a_rsp_o.err": 0, "b_rsp_o.rvalid": 0, "b_rsp_o.err": 0,
                "b_rsp_o.exokay": 0, "a_rsp_o.gnt": 1, "b_rsp_o.gnt": 1}


class SramTb(ClockedTb):
    def __init__(self, dut, *, idle_prob: float = 0.0) -> None:
        super().__init__(dut)
        self.a = ObiMaster(ObiPort(dut, "a_"), self.rng, idle_prob=idle_prob, resp_timeout=20)
        self.b = ObiMaster(ObiPort(dut, "b_"), self.rng, idle_prob=idle_prob, resp_timeout=20)
        self.golden = MemoryModel(size=SIZE_BYTES)
        self.visible = [0] * WORDS
        self.amo_write: tuple[int, int, int] | None = None  # (cycle, word index, value)
        self.checked = 0
        for master in (self.a, self.b):
            master.on_response.append(self._check_response)
        self.add(self.a, self.b, Monitor(self._cycle))

    def _cycle(self, cycle: int) -> None:
        """After both masters sampled cycle `cycle`: predict responses and update `visible`."""
        # Port B's gnt is low exactly in the second cycle of an AMO.
        busy = self.amo_write is not None and self.amo_write[0] == cycle
        gnt = int(self.b.port.gnt.value)
        assert gnt == (0 if busy else 1), f"cycle {cycle}: b_rsp_o.gnt = {gnt}, AMO second cycle: {busy}"
        a_txn = self.a.accepted_now
        if a_txn is not None:
            if a_txn.we:
                a_txn.expected = Response(rdata=None, err=True)
            else:
                a_txn.expected = Response(rdata=self.visible[a_txn.addr // 4 % WORDS])
        if busy:
            _, index, value = self.amo_write
            self.visible[index] = value
            self.amo_write = None
        b_txn = self.b.accepted_now
        if b_txn is not None:
            b_txn.expected = self.golden.access(b_txn.addr, b_txn.we, b_txn.be, b_txn.wdata, b_txn.atop)
            index = b_txn.addr // 4 % WORDS
            op = b_txn.atop & 0x1F
            if b_txn.atop & ATOP_EXCL and op not in (Amo.LR, Amo.SC):
                self.amo_write = (cycle + 1, index, self.golden.peek(b_txn.addr))
            elif b_txn.we:
                self.visible[index] = self.golden.peek(b_txn.addr)

    def _check_response(self, txn: ObiTxn, cycle: int) -> None:
        assert txn.resp_cycle == txn.accept_cycle + 1, (
            f"{txn.describe()}: response {txn.resp_cycle - txn.accept_cycle} cycles after the grant"
        )
        txn.check()
        self.checked += 1

    async def start(self, fill: bool = True) -> None:
        await self.reset()
        assert_values(self.dut, IDLE_OUTPUTS)
        if fill:  # known contents (the RAM is not reset and earlier tests wrote to it)
            for index in range(WORDS):
                self.b.issue(4 * index, we=True, wdata=self.rng.getrandbits(32))
            await self.b.drain(timeout_cycles=2 * WORDS + 10)

    async def b_req(self, addr: int, we: bool = False, be: int = 0xF, wdata: int = 0, atop_value: int = 0) -> ObiTxn:
        return await self.b.request(addr, we, be, wdata, atop_value)

    async def lr(self, addr: int) -> ObiTxn:
        return await self.b_req(addr, atop_value=atop(Amo.LR))

    async def sc(self, addr: int, wdata: int, be: int = 0xF) -> ObiTxn:
        return await self.b_req(addr, we=True, be=be, wdata=wdata, atop_value=atop(Amo.SC))


@cocotb.test()
async def sram_reset_idle(dut):
    """After reset no response is valid, both ports grant, and idle cycles change nothing."""
    tb = SramTb(dut)
    await tb.start(fill=False)
    await tb.assert_idle(IDLE_OUTPUTS, 16)


@cocotb.test()
async def sram_byte_enables(dut):
    """Port B writes honour every byte-enable pattern; reads return the whole word on both ports."""
    tb = SramTb(dut)
    await tb.start()
    for be in range(16):
        addr = 4 * tb.rng.randrange(WORDS)
        base = tb.rng.getrandbits(32)
        data = tb.rng.getrandbits(32)
        await tb.b_req(addr, we=True, wdata=base)
        await tb.b_req(addr, we=True, be=be, wdata=data)
        for read_be in (0xF, tb.rng.randint(1, 15)):
            rd = await tb.b_req(addr, be=read_be)
            assert rd.rdata == merge(base, data, be), (
                f"be=0x{be:x}: read 0x{rd.rdata:08x}, expected 0x{merge(base, data, be):08x}"
            )
        fetched = await tb.a.read(addr)
        assert fetched.rdata == merge(base, data, be)
    # Sub-word addresses pick the same word.
    addr = 4 * tb.rng.randrange(WORDS)
    await tb.b_req(addr + 2, we=True, be=0b1100, wdata=0xA5A5_0000)
    rd = await tb.b_req(addr + 1)
    assert rd.rdata >> 16 == 0xA5A5
    assert tb.checked > 50


@cocotb.test()
async def sram_port_a(dut):
    """Port A reads what port B wrote (also in the same cycle: old data); a port A write gets err."""
    tb = SramTb(dut)
    await tb.start()
    # Every word through port A, back to back.
    txns = [tb.a.issue(4 * index) for index in range(WORDS)]
    await tb.a.drain(timeout_cycles=WORDS + 10)
    assert [t.rdata for t in txns] == [tb.golden.peek(4 * i) for i in range(WORDS)]
    # A write on port A is an error and changes nothing.
    addr = 4 * tb.rng.randrange(WORDS)
    before = tb.golden.peek(addr)
    wr = await tb.a.request(addr, we=True, wdata=~before & 0xFFFF_FFFF)
    assert wr.err, "port A write not answered with err"
    assert (await tb.b_req(addr)).rdata == before
    assert (await tb.a.read(addr)).rdata == before
    # Both ports at once on a few words, so reads collide with writes in the same cycle.
    hot = [4 * tb.rng.randrange(WORDS) for _ in range(4)]
    for _ in range(400):
        tb.b.issue(tb.rng.choice(hot), we=tb.rng.random() < 0.7, be=tb.rng.randint(1, 15),
                   wdata=tb.rng.getrandbits(32))
        tb.a.issue(tb.rng.choice(hot), we=tb.rng.random() < 0.05)
    await tb.a.drain(timeout_cycles=2000)
    await tb.b.drain(timeout_cycles=2000)
    assert tb.checked > 1000


@cocotb.test()
async def sram_amo(dut):
    """Every AMO op against the model, with corner values; port B is busy in each AMO's second cycle."""
    tb = SramTb(dut)
    await tb.start()
    for op in AMO_RMW_OPS:
        pairs = [(old, operand) for old in CORNER_WORDS for operand in CORNER_WORDS]
        pairs += [(tb.rng.getrandbits(32), tb.rng.getrandbits(32)) for _ in range(16)]
        for old, operand in pairs:
            addr = 4 * tb.rng.randrange(WORDS)
            tb.b.issue(addr, we=True, wdata=old)
            tb.b.issue(addr, we=True, wdata=operand, atop=atop(op))
            tb.b.issue(addr)  # the new word, checked against the model
        await tb.b.drain(timeout_cycles=10_000)
    # Independent of the golden model: spot-check the signed and unsigned corners by hand.
    by_hand = [
        (Amo.MIN, 0x8000_0000, 0x7FFF_FFFF, 0x8000_0000),
        (Amo.MAX, 0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF),
        (Amo.MINU, 0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF),
        (Amo.MAXU, 0x8000_0000, 0x7FFF_FFFF, 0x8000_0000),
        (Amo.MIN, 0xFFFF_FFFF, 0x0000_0000, 0xFFFF_FFFF),
        (Amo.MAXU, 0xFFFF_FFFF, 0x0000_0000, 0xFFFF_FFFF),
        (Amo.ADD, 0xFFFF_FFFF, 0x0000_0002, 0x0000_0001),
        (Amo.SWAP, 0x1234_5678, 0x9ABC_DEF0, 0x9ABC_DEF0),
        (Amo.XOR, 0xFF00_FF00, 0x0FF0_0FF0, 0xF0F0_F0F0),
        (Amo.OR, 0xFF00_0000, 0x0000_00FF, 0xFF00_00FF),
        (Amo.AND, 0xFF00_FF00, 0x0FF0_0FF0, 0x0F00_0F00),
    ]
    for op, old, operand, new in by_hand:
        addr = 4 * tb.rng.randrange(WORDS)
        await tb.b_req(addr, we=True, wdata=old)
        amo = await tb.b_req(addr, we=True, be=tb.rng.randint(1, 15), wdata=operand, atop_value=atop(op))
        assert (amo.rdata, amo.exokay) == (old, True), f"{op.name}: returned 0x{amo.rdata:08x} exokay={amo.exokay}"
        got = (await tb.b_req(addr)).rdata
        assert got == new, f"{op.name}(0x{old:08x}, 0x{operand:08x}) left 0x{got:08x}, expected 0x{new:08x}"
    # An atop[5] code that is no AMO leaves the word as it was.
    for code in (0b00101, 0b11111):
        addr = 4 * tb.rng.randrange(WORDS)
        before = tb.golden.peek(addr)
        await tb.b_req(addr, we=True, wdata=tb.rng.getrandbits(32), atop_value=ATOP_EXCL | code)
        assert (await tb.b_req(addr)).rdata == before
    # Back-to-back AMOs with port A reading the same word meanwhile (the monitor checks gnt and data).
    addr = 4 * tb.rng.randrange(WORDS)
    for _ in range(200):
        tb.b.issue(addr, we=True, wdata=tb.rng.getrandbits(32), atop=atop(tb.rng.choice(AMO_RMW_OPS)))
        tb.a.issue(addr)
    await tb.b.drain(timeout_cycles=1000)
    await tb.a.drain(timeout_cycles=1000)
    assert tb.checked > 9 * 65 * 3


@cocotb.test()
async def sram_lrsc(dut):
    """LR/SC: success, SC without LR, and every way the reservation must be lost."""
    tb = SramTb(dut)
    await tb.start()
    x, y = 0x40, 0x80

    async def expect_sc(addr: int, ok: bool, what: str, be: int = 0xF) -> None:
        before = tb.golden.peek(addr)
        value = tb.rng.getrandbits(32)
        sc = await tb.sc(addr, value, be)
        assert sc.exokay == ok, f"{what}: SC exokay {sc.exokay}, expected {ok}"
        assert sc.rdata == (0 if ok else 1), f"{what}: SC rdata {sc.rdata}, expected {0 if ok else 1}"
        assert not sc.err
        got = (await tb.b_req(addr)).rdata
        want = merge(before, value, be) if ok else before
        assert got == want, f"{what}: memory 0x{got:08x} after SC, expected 0x{want:08x}"

    await expect_sc(x, False, "SC without LR after reset")
    lr = await tb.lr(x)
    assert lr.exokay and lr.rdata == tb.golden.peek(x), "LR must return the word with exokay"
    await expect_sc(x, True, "LR; SC")
    await expect_sc(x, False, "SC again (reservation used up)")

    await tb.lr(x)
    await tb.b_req(x, we=True, be=0b0010, wdata=tb.rng.getrandbits(32))
    await expect_sc(x, False, "LR; byte store to the word; SC")

    await tb.lr(x)
    await tb.b_req(y, we=True, wdata=tb.rng.getrandbits(32))
    await expect_sc(x, True, "LR; store to another word; SC")

    await tb.lr(x)
    await tb.b_req(x, we=True, wdata=1, atop_value=atop(Amo.ADD))
    await expect_sc(x, False, "LR; AMO to the word; SC")

    await tb.lr(x)
    await tb.lr(y)
    await expect_sc(x, False, "LR x; LR y; SC x")
    await expect_sc(y, False, "... then SC y (the failed SC cleared the reservation)")

    await tb.lr(x)
    await expect_sc(y, False, "LR x; SC y")
    await expect_sc(x, False, "LR x; SC y; SC x")

    await tb.lr(x)
    await tb.b_req(x)
    await tb.a.read(x)
    await expect_sc(x, True, "LR; loads on both ports; SC")

    await tb.lr(x + 2)  # the reservation covers the word
    await expect_sc(x, True, "LR on a sub-word address; SC", be=0b0110)


@cocotb.test()
async def sram_random(dut):
    """A random mix on port B (reads, writes, AMOs, LR, SC) with port A fetching alongside."""
    tb = SramTb(dut, idle_prob=0.2)
    await tb.start()
    window = [4 * tb.rng.randrange(WORDS) for _ in range(12)]  # few words, so accesses collide
    codes = [*AMO_RMW_OPS, Amo.LR, Amo.SC, Amo.SC]
    for _ in range(3000):
        addr = tb.rng.choice(window) + tb.rng.randrange(4) * (tb.rng.random() < 0.1)
        roll = tb.rng.random()
        if roll < 0.25:
            op = tb.rng.choice(codes)
            wdata = tb.rng.choice(CORNER_WORDS) if tb.rng.random() < 0.3 else tb.rng.getrandbits(32)
            tb.b.issue(addr, we=op != Amo.LR, be=tb.rng.randint(1, 15), wdata=wdata, atop=atop(op))
        elif roll < 0.6:
            tb.b.issue(addr, we=True, be=tb.rng.randint(1, 15), wdata=tb.rng.getrandbits(32))
        else:
            tb.b.issue(addr, be=tb.rng.randint(1, 15))
        if tb.rng.random() < 0.5:
            tb.a.issue(tb.rng.choice(window), we=tb.rng.random() < 0.02)
    await tb.b.drain(timeout_cycles=20_000)
    await tb.a.drain(timeout_cycles=20_000)
    assert tb.checked > 4000
    dut._log.info("%d responses checked in %d cycles", tb.checked, tb.cycle)


def test_sram() -> None:
    run_ip_cocotb(__file__, "sram", ["obi", "sram"], parameters={"SizeBytes": SIZE_BYTES})
