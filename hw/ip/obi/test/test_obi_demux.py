"""cocotb tests of couplet_obi_demux, built with three slaves (the map below), atomics on slave 0.

The master side is driven by ObiMaster, each slave port by a memory-backed ObiSlave with its own
back-pressure and latency. Every response is checked against a golden model: the address map
below plus one MemoryModel per slave, applied in request order. A per-cycle monitor checks that
no more than MaxOutstanding transactions are in flight and that only one target (a slave or the
error responder) holds outstanding transactions at a time, which is what keeps responses in order.

Run: .venv/bin/python -m pytest hw/ip/obi/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

from dataclasses import dataclass

import cocotb

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import (
    AMO_RMW_OPS,
    ATOP_EXCL,
    CORNER_WORDS,
    MASK32,
    Amo,
    ClockedTb,
    MemoryModel,
    Monitor,
    ObiMaster,
    ObiPort,
    ObiSlave,
    Response,
    assert_no_violations,
    assert_values,
    atop,
)

MAX_OUTSTANDING = 3  # the parameter this module builds with


@dataclass(frozen=True)
class Region:
    base: int
    size: int
    atomics: bool


# The map the module is built with (`map_parameters`).
SLAVES = (
    Region(0x8000_0000, 0x1_0000, True),
    Region(0x0200_0000, 0x1_0000, False),
    Region(0x1000_0000, 0x0_1000, False),
)
ERR_RESPONSE = Response(rdata=0, err=True, exokay=False)
IDLE_OUTPUTS = {"m_rsp_o.rvalid": 0, "m_rsp_o.gnt": 0, "s_req_o[0].req": 0, "s_req_o[1].req": 0,
                "s_req_o[2].req": 0}


def map_parameters() -> dict[str, str]:
    """SLAVES as the module's packed-array parameters (entry 0 least significant)."""

    def packed(values: list[int], width: int) -> str:
        bits = 0
        for i, value in enumerate(values):
            bits |= value << (i * width)
        return f"{len(values) * width}'h{bits:x}"

    return {
        "NumSlaves": str(len(SLAVES)),
        "SlaveBase": packed([r.base for r in SLAVES], 32),
        "SlaveSize": packed([r.size for r in SLAVES], 32),
        "SlaveAtomics": packed([int(r.atomics) for r in SLAVES], 1),
    }


def slave_init(index: int):
    """Distinct initial contents per slave and word, so a misrouted access reads a wrong value."""
    return lambda waddr: (waddr * 0x9E37_79B1 + (index + 1) * 0x85EB_CA77) & MASK32


def decode(addr: int, atop_value: int = 0) -> tuple[int | None, int]:
    """Golden address decoder: (slave index or None for the error responder, offset)."""
    for index, region in enumerate(SLAVES):
        if addr & ~(region.size - 1) & MASK32 == region.base:
            if atop_value & ATOP_EXCL and not region.atomics:
                return None, addr
            return index, addr - region.base
    return None, addr


class DemuxTb(ClockedTb):
    def __init__(self, dut, *, idle_prob: float = 0.0, gnt_prob: float = 1.0,
                 latency: tuple[int, int] = (1, 1)) -> None:
        super().__init__(dut)
        self.master = ObiMaster(ObiPort(dut, "m_"), self.rng, idle_prob=idle_prob, resp_timeout=200)
        self.slaves = [
            ObiSlave(ObiPort(dut, "s_", i), self.rng, MemoryModel(init=slave_init(i)),
                     gnt_prob=gnt_prob, latency=latency, atomics=region.atomics)
            for i, region in enumerate(SLAVES)
        ]
        self.golden = [MemoryModel(init=slave_init(i)) for i in range(len(SLAVES))]
        self.max_outstanding = MAX_OUTSTANDING
        self.add(self.master, *self.slaves, Monitor(self._check_cycle))

    def _check_cycle(self, cycle: int) -> None:
        in_flight = len(self.master.outstanding)
        assert in_flight <= self.max_outstanding, (
            f"cycle {cycle}: {in_flight} transactions outstanding, MaxOutstanding is {self.max_outstanding}"
        )
        busy = [i for i, slave in enumerate(self.slaves) if slave.outstanding]
        assert len(busy) <= 1, f"cycle {cycle}: slaves {busy} hold outstanding transactions at once"
        if busy:
            # Nothing else (no error response) may be in flight next to a slave's transactions.
            assert self.slaves[busy[0]].outstanding == in_flight, (
                f"cycle {cycle}: slave {busy[0]} holds {self.slaves[busy[0]].outstanding} of {in_flight} "
                "outstanding transactions"
            )

    def expect(self, addr: int, we: bool = False, be: int = 0xF, wdata: int = 0, atop_value: int = 0) -> Response:
        index, offset = decode(addr, atop_value)
        if index is None:
            return ERR_RESPONSE
        return self.golden[index].access(offset, we, be, wdata, atop_value)

    def issue(self, addr: int, we: bool = False, be: int = 0xF, wdata: int = 0, atop_value: int = 0):
        return self.master.issue(addr, we, be, wdata, atop_value,
                                 expected=self.expect(addr, we, be, wdata, atop_value))

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, IDLE_OUTPUTS)

    def finish(self) -> None:
        assert_no_violations(self.slaves)


@cocotb.test()
async def obi_demux_reset_idle(dut):
    """After reset nothing is valid, and without req nothing is granted or forwarded."""
    tb = DemuxTb(dut)
    await tb.start()
    await tb.assert_idle(IDLE_OUTPUTS, 20)
    assert all(slave.req_cycles == 0 for slave in tb.slaves)
    tb.finish()


@cocotb.test()
async def obi_demux_routing(dut):
    """Each region reaches its own slave with the offset address and all request fields."""
    tb = DemuxTb(dut, latency=(1, 3))
    await tb.start()
    for index, region in enumerate(SLAVES):
        offsets = [0, 4, region.size - 4, tb.rng.randrange(0, region.size, 4)]
        for offset in offsets:
            addr = region.base + offset
            be = tb.rng.randint(1, 15)
            wdata = tb.rng.getrandbits(32)
            before = [len(slave.log) for slave in tb.slaves]
            txn = tb.issue(addr, we=True, be=be, wdata=wdata)
            await tb.master.wait(txn)
            txn.check(what="write")
            rd = tb.issue(addr + tb.rng.randrange(4))  # byte address inside the word
            await tb.master.wait(rd)
            rd.check(what="read back")
            got = [len(slave.log) - n for slave, n in zip(tb.slaves, before)]
            assert got == [2 if i == index else 0 for i in range(len(SLAVES))], (
                f"0x{addr:08x}: requests per slave {got}, expected both at slave {index}"
            )
            wr_seen, rd_seen = tb.slaves[index].log[-2:]
            fields = (wr_seen.addr, wr_seen.we, wr_seen.be, wr_seen.wdata, wr_seen.atop)
            assert fields == (offset, True, be, wdata, 0), f"slave {index} saw {wr_seen} for the write to 0x{addr:08x}"
            assert rd_seen.addr & ~3 == offset and not rd_seen.we, f"slave {index} saw {rd_seen}"
    # A slave's err and exokay reach the master unchanged: slave 0 answers LR with exokay = 1.
    lr = tb.issue(SLAVES[0].base + 0x40, atop_value=atop(Amo.LR))
    await tb.master.wait(lr)
    lr.check(what="LR through slave 0")
    assert lr.exokay
    tb.finish()


def unmapped_addresses(tb: DemuxTb, count: int) -> list[int]:
    edges = [0x0000_0000, 0xFFFF_FFFC, 0x7FFF_FFFC, 0xFFFF_FFFF]
    for region in SLAVES:
        edges += [region.base - 4, region.base + region.size, region.base ^ 0x4000_0000]
    while len(edges) < count:
        addr = tb.rng.getrandbits(32)
        if decode(addr)[0] is None:
            edges.append(addr)
    return [addr & MASK32 for addr in edges]


@cocotb.test()
async def obi_demux_unmapped(dut):
    """An address in no region gets err = 1 and rdata = 0 within a few cycles and reaches no slave."""
    tb = DemuxTb(dut)
    await tb.start()
    addresses = unmapped_addresses(tb, 40)
    for addr in addresses:
        assert decode(addr)[0] is None
        for we in (False, True):
            txn = tb.issue(addr, we=we, wdata=tb.rng.getrandbits(32))
            await tb.master.wait(txn, timeout_cycles=10)
            txn.check(what="unmapped")
            # Granted at once, answered in the next cycle.
            assert txn.accept_cycle == txn.present_cycle, "unmapped request not granted at once"
            assert txn.resp_cycle == txn.accept_cycle + 1, (
                f"error response {txn.resp_cycle - txn.accept_cycle} cycles after the grant, expected 1"
            )
    # Back to back: every one answered, in order.
    txns = [tb.issue(addr, we=bool(i & 1)) for i, addr in enumerate(addresses)]
    await tb.master.drain(timeout_cycles=4 * len(txns))
    for txn in txns:
        txn.check(what="back-to-back unmapped")
    assert all(slave.req_cycles == 0 for slave in tb.slaves), "an unmapped request reached a slave"
    tb.finish()


@cocotb.test()
async def obi_demux_atomics(dut):
    """Atomics reach slave 0 unchanged; to slaves without atomics they get err and never leave the demux."""
    tb = DemuxTb(dut, latency=(1, 2))
    await tb.start()
    codes = [*AMO_RMW_OPS, Amo.LR, Amo.SC]
    base0 = SLAVES[0].base
    for op in codes:
        for operand in (tb.rng.choice(CORNER_WORDS), tb.rng.getrandbits(32)):
            offset = tb.rng.randrange(0, 0x100, 4)
            if op == Amo.SC:  # make it succeed
                await tb.master.wait(tb.issue(base0 + offset, atop_value=atop(Amo.LR)))
            txn = tb.issue(base0 + offset, we=op != Amo.LR, wdata=operand, atop_value=atop(op))
            await tb.master.wait(txn)
            txn.check(what=f"{op.name} at slave 0")
            seen = tb.slaves[0].log[-1]
            assert (seen.addr, seen.atop, seen.wdata) == (offset, atop(op), operand), f"slave 0 saw {seen}"
            check = tb.issue(base0 + offset)
            await tb.master.wait(check)
            check.check(what=f"memory after {op.name}")
    for index in (1, 2):
        region = SLAVES[index]
        for op in codes:
            addr = region.base + tb.rng.randrange(0, region.size, 4)
            txn = tb.issue(addr, we=op != Amo.LR, wdata=tb.rng.getrandbits(32), atop_value=atop(op))
            assert txn.expected == ERR_RESPONSE
            await tb.master.wait(txn, timeout_cycles=10)
            txn.check(what=f"{op.name} at slave {index}")
            after = tb.issue(addr)  # the word is untouched
            await tb.master.wait(after)
            after.check(what=f"slave {index} after a refused {op.name}")
        assert all(r.atop == 0 for r in tb.slaves[index].log), f"slave {index} saw an atomic request"
        # atop[5] clear means a plain access, whatever atop[4:0] holds.
        addr = region.base + 0x20
        plain = tb.issue(addr, we=True, wdata=0x1234_5678, atop_value=0x1F)
        await tb.master.wait(plain)
        plain.check(what="plain write with atop[4:0] set")
        assert tb.slaves[index].log[-1].atop == 0x1F
    # An atomic to no region at all is an error as well.
    txn = tb.issue(0x4000_0000, we=True, atop_value=atop(Amo.SWAP))
    await tb.master.wait(txn, timeout_cycles=10)
    txn.check(what="atomic to unmapped")
    tb.finish()  # includes "no atomic request ever raised req on slave 1 or 2"


@cocotb.test()
async def obi_demux_max_outstanding(dut):
    """Back-to-back requests to a slow slave pipeline exactly MaxOutstanding deep, never deeper."""
    tb = DemuxTb(dut, latency=(6, 6))
    await tb.start()
    limit = tb.max_outstanding
    for index, region in enumerate(SLAVES):
        txns = [tb.issue(region.base + 4 * i) for i in range(4 * limit)]
        await tb.master.drain(timeout_cycles=20 * len(txns))
        for txn in txns:
            txn.check(what="pipelined read")
        assert tb.slaves[index].max_outstanding == limit, (
            f"slave {index}: at most {tb.slaves[index].max_outstanding} outstanding, expected {limit}"
        )
    assert tb.master.max_outstanding == limit
    # Switching targets: a request to another slave (or an unmapped one) waits for the drain.
    targets = [SLAVES[0].base, SLAVES[1].base + 8, 0x4000_0000, SLAVES[2].base + 12, SLAVES[0].base + 16]
    txns = [tb.issue(tb.rng.choice(targets), we=tb.rng.random() < 0.5, wdata=tb.rng.getrandbits(32))
            for _ in range(60)]
    await tb.master.drain(timeout_cycles=20 * len(txns))
    for txn in txns:
        txn.check(what="target switch")
    tb.finish()  # the per-cycle monitor enforced the depth and the single-target rule


def random_stream(tb: DemuxTb, count: int) -> list:
    """Queue `count` random requests (reads, byte-enable writes, atomics, unmapped) and return them."""
    txns = []
    windows = []
    for region in SLAVES:
        windows.append([4 * w for w in range(12)] + [region.size - 4 * w for w in range(1, 13)])
    for _ in range(count):
        pick = tb.rng.random()
        if pick < 0.05:
            addr = unmapped_addresses(tb, 13)[tb.rng.randrange(13)]
        else:
            index = tb.rng.randrange(len(SLAVES))
            addr = SLAVES[index].base + tb.rng.choice(windows[index])
        roll = tb.rng.random()
        if roll < 0.1:
            op = tb.rng.choice([*AMO_RMW_OPS, Amo.LR, Amo.SC])
            wdata = tb.rng.choice(CORNER_WORDS) if tb.rng.random() < 0.3 else tb.rng.getrandbits(32)
            txns.append(tb.issue(addr, we=op != Amo.LR, wdata=wdata, atop_value=atop(op)))
        elif roll < 0.55:
            txns.append(tb.issue(addr, we=True, be=tb.rng.randint(1, 15), wdata=tb.rng.getrandbits(32)))
        else:
            txns.append(tb.issue(addr, be=tb.rng.randint(1, 15)))
    return txns


@cocotb.test()
async def obi_demux_stress(dut):
    """Several thousand random requests under random idle, back-pressure and latencies."""
    tb = DemuxTb(dut)
    await tb.start()
    phases = [  # (master idle probability, slave gnt probability, latency range, requests)
        (0.3, 0.5, (1, 6), 1500),
        (0.0, 0.9, (1, 3), 1500),
        (0.1, 0.7, (2, 9), 1000),
    ]
    all_txns = []
    for idle, gnt, latency, count in phases:
        tb.master.idle_prob = idle
        for slave in tb.slaves:
            slave.gnt_prob = gnt
            slave.latency = latency
        all_txns += random_stream(tb, count)
        await tb.master.drain(timeout_cycles=40 * count)
    for txn in all_txns:
        txn.check(what="stress")
    for a, b in zip(all_txns, all_txns[1:]):
        assert a.resp_cycle < b.resp_cycle
    kinds = {decode(t.addr, t.atop)[0] for t in all_txns}
    assert kinds == {0, 1, 2, None}, f"stream missed targets: {kinds}"
    assert tb.master.max_outstanding == tb.max_outstanding
    dut._log.info("%d transactions in %d cycles", len(all_txns), tb.cycle)
    tb.finish()


def test_obi_demux() -> None:
    run_ip_cocotb(__file__, "obi_demux", ["obi"], parameters={**map_parameters(), "MaxOutstanding": MAX_OUTSTANDING})
