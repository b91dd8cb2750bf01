"""cocotb tests of couplet_obi_arbiter, built with three masters, in front of one slave.

Each master port is driven by an ObiMaster, the shared port by a memory-backed ObiSlave with
random back-pressure and latency. Every master works in its own address window, so its expected
responses follow from a private MemoryModel in its own request order; a window that answers
with err is shared by all. A per-cycle golden model of the arbiter (round-robin among the
requesting masters, a request held until granted, a FIFO of the granted masters' indices,
s_req_o.req low while MaxOutstanding accesses are in flight) predicts s_req_o.req, the forwarded
request fields, every gnt and every rvalid, so a misrouted or delayed cycle fails at once.

Run: .venv/bin/python -m pytest hw/ip/obi/test/test_obi_arbiter.py -q
"""

from __future__ import annotations

import bisect
from collections import deque

import cocotb

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import (
    AMO_RMW_OPS,
    MASK32,
    ClockedTb,
    MemoryModel,
    Monitor,
    ObiMaster,
    ObiPort,
    ObiSlave,
    ObiTxn,
    Response,
    assert_no_violations,
    atop,
    read,
)

NUM_MASTERS = 3
MAX_OUTSTANDING = 3  # the parameters this module builds with
WINDOW = 0x1000  # master i uses [i * WINDOW, (i + 1) * WINDOW)
ERR_BASE = 0xE000_0000  # [ERR_BASE, ERR_BASE + WINDOW) answers err for every master
REQ_FIELDS = ("addr", "we", "be", "wdata", "atop")


def init_word(waddr: int) -> int:
    return (waddr * 0x9E37_79B1 + 0x1234_5678) & MASK32


class ErrWindowMemory(MemoryModel):
    """A memory whose accesses in [ERR_BASE, ERR_BASE + WINDOW) answer err and change nothing."""

    def access(self, addr: int, we: bool, be: int = 0xF, wdata: int = 0, atop_value: int = 0) -> Response:
        if ERR_BASE <= addr < ERR_BASE + WINDOW:
            return Response(rdata=0, err=True)
        return super().access(addr, we, be, wdata, atop_value)


class ArbiterModel:
    """Cycle-accurate reference of the arbiter, checked against the design every cycle."""

    def __init__(self, tb: ArbiterTb) -> None:
        self.tb = tb
        self.rr = 0
        self.lock: int | None = None
        self.owners: deque[int] = deque()
        self.grants: list[tuple[int, int]] = []  # (cycle, master)
        self.full_cycles = 0
        self.contended_cycles = 0

    def check(self, cycle: int) -> None:
        tb, dut = self.tb, self.tb.dut
        reqs = [read(port.req) for port in tb.mports]
        if self.lock is not None:
            assert reqs[self.lock], f"cycle {cycle}: master {self.lock} dropped req before gnt"
            winner = self.lock
        else:
            order = [(self.rr + k) % NUM_MASTERS for k in range(NUM_MASTERS)]
            winner = next((i for i in order if reqs[i]), self.rr)
        full = len(self.owners) == MAX_OUTSTANDING
        self.full_cycles += full
        self.contended_cycles += sum(reqs) > 1
        s_req = int(reqs[winner] and not full)
        assert read(tb.sport.req) == s_req, f"cycle {cycle}: s_req_o.req {read(tb.sport.req)}, expected {s_req}"
        if s_req:
            for name in REQ_FIELDS:
                got, want = read(getattr(tb.sport, name)), read(getattr(tb.mports[winner], name))
                assert got == want, f"cycle {cycle}: s_req_o.{name} 0x{got:x}, master {winner} drives 0x{want:x}"
        accept = bool(s_req and read(tb.sport.gnt))
        rvalid = bool(read(tb.sport.rvalid))
        for i, port in enumerate(tb.mports):
            assert read(port.gnt) == int(accept and i == winner), (
                f"cycle {cycle}: m_rsp_o[{i}].gnt {read(port.gnt)} (winner {winner}, accept {accept})"
            )
            want_rvalid = int(rvalid and bool(self.owners) and self.owners[0] == i)
            assert read(port.rvalid) == want_rvalid, f"cycle {cycle}: m_rsp_o[{i}].rvalid {read(port.rvalid)}"
            if want_rvalid:
                for name in ("rdata", "err", "exokay"):
                    assert read(getattr(port, name)) == read(getattr(tb.sport, name)), f"cycle {cycle}: m{i} {name}"
        if tb.alone is not None:
            # A master alone on the bus sees the slave port as it is: the cycle-exact transparency check.
            port = tb.mports[tb.alone]
            assert not full, f"cycle {cycle}: response FIFO full with a single master"
            assert read(port.gnt) == (read(port.req) & read(tb.sport.gnt)), f"cycle {cycle}: gnt not transparent"
            assert read(port.rvalid) == read(tb.sport.rvalid), f"cycle {cycle}: rvalid not transparent"
        if rvalid:
            assert self.owners, f"cycle {cycle}: response with nothing outstanding"
            self.owners.popleft()
        if accept:
            self.owners.append(winner)
            self.grants.append((cycle, winner))
            self.rr = (winner + 1) % NUM_MASTERS
        self.lock = winner if s_req and not accept else None


class ArbiterTb(ClockedTb):
    def __init__(self, dut, *, idle_prob: float = 0.0, gnt_prob: float = 1.0,
                 latency: tuple[int, int] = (1, 1)) -> None:
        super().__init__(dut)
        self.mports = [ObiPort(dut, "m_", i) for i in range(NUM_MASTERS)]
        self.sport = ObiPort(dut, "s_")
        self.masters = [ObiMaster(port, self.rng, idle_prob=idle_prob, resp_timeout=500, gnt_timeout=500)
                        for port in self.mports]
        self.slave = ObiSlave(self.sport, self.rng, ErrWindowMemory(init=init_word),
                              gnt_prob=gnt_prob, latency=latency)
        self.golden = [MemoryModel(init=init_word) for _ in range(NUM_MASTERS)]
        self.alone: int | None = None  # set when only this master issues requests
        self.issuer: dict[int, int] = {}  # id(txn) -> master
        self.model = ArbiterModel(self)
        self.add(*self.masters, self.slave, Monitor(self.model.check))

    def issue(self, master: int, offset: int, *, we: bool = False, be: int = 0xF, wdata: int = 0,
              atop_value: int = 0, err_window: bool = False) -> ObiTxn:
        if err_window:
            addr, expected = ERR_BASE + offset, Response(rdata=0, err=True)
        else:
            addr = master * WINDOW + offset
            expected = self.golden[master].access(addr, we, be, wdata, atop_value)
        txn = self.masters[master].issue(addr, we, be, wdata, atop_value, expected=expected)
        self.issuer[id(txn)] = master
        return txn

    def random_txn(self, master: int) -> ObiTxn:
        offset = self.rng.randrange(0, 64, 4) + self.rng.randrange(4)
        roll = self.rng.random()
        if roll < 0.05:
            return self.issue(master, offset & ~3, we=self.rng.random() < 0.5, err_window=True)
        if roll < 0.15:
            op = self.rng.choice(AMO_RMW_OPS)
            return self.issue(master, offset & ~3, we=True, wdata=self.rng.getrandbits(32), atop_value=atop(op))
        if roll < 0.55:
            return self.issue(master, offset, we=True, be=self.rng.randint(1, 15), wdata=self.rng.getrandbits(32))
        return self.issue(master, offset, be=self.rng.randint(1, 15))

    async def drain(self, cycles: int) -> None:
        for master in self.masters:
            await master.drain(timeout_cycles=cycles)

    def finish(self, txns: list[ObiTxn]) -> None:
        for txn in txns:
            txn.check(what="arbiter")
        assert_no_violations([self.slave])


@cocotb.test()
async def obi_arbiter_idle(dut):
    """After reset and without requests nothing is forwarded, granted or answered."""
    tb = ArbiterTb(dut)
    await tb.reset()
    await tb.cycles(20)
    assert tb.slave.req_cycles == 0
    assert not tb.model.grants


@cocotb.test()
async def obi_arbiter_single_master(dut):
    """A master alone sees zero added latency: granted in its first cycle, answered as the slave answers."""
    tb = ArbiterTb(dut)
    await tb.reset()
    txns: list[ObiTxn] = []
    for alone in (0, 2, 1):
        tb.alone = alone
        # An ideal slave: every request granted at once and answered in the next cycle.
        tb.slave.gnt_prob, tb.slave.latency = 1.0, (1, 1)
        burst = [tb.random_txn(alone) for _ in range(60)]
        await tb.drain(400)
        for txn in burst:
            assert txn.accept_cycle == txn.present_cycle, f"master {alone}: {txn.describe()} granted late"
            assert txn.resp_cycle == txn.accept_cycle + 1, f"master {alone}: {txn.describe()} answered late"
        # Back-pressure and latency 1..2 (never MaxOutstanding in flight): the per-cycle monitor
        # checks that gnt and rvalid equal the slave's, cycle by cycle.
        tb.slave.gnt_prob, tb.slave.latency = 0.6, (1, 2)
        tb.masters[alone].idle_prob = 0.2
        burst += [tb.random_txn(alone) for _ in range(150)]
        await tb.drain(2000)
        tb.masters[alone].idle_prob = 0.0
        txns += burst
        await tb.cycles(3)
    tb.alone = None
    tb.finish(txns)


@cocotb.test()
async def obi_arbiter_random(dut):
    """Three masters at once, random idle, back-pressure and latency: right data, right master, in order, fair."""
    tb = ArbiterTb(dut)
    await tb.reset()
    phases = [  # (master idle probability, slave gnt probability, latency range, requests per master)
        (0.0, 1.0, (1, 1), 300),
        (0.3, 0.6, (1, 6), 300),
        (0.0, 0.8, (2, 5), 300),
        (0.6, 0.9, (1, 3), 200),
    ]
    txns: list[ObiTxn] = []
    for idle, gnt, latency, count in phases:
        for master in tb.masters:
            master.idle_prob = idle
        tb.slave.gnt_prob, tb.slave.latency = gnt, latency
        for _ in range(count):
            for i in range(NUM_MASTERS):
                txns.append(tb.random_txn(i))
        await tb.drain(60 * count)
    tb.finish(txns)
    assert tb.slave.max_outstanding == MAX_OUTSTANDING, f"at most {tb.slave.max_outstanding} in flight"
    assert tb.model.full_cycles > 0 and tb.model.contended_cycles > 0
    assert len(tb.model.grants) == len(txns)
    # Round-robin: while a request waits, every other master is granted at most once.
    grant_cycles = [cycle for cycle, _ in tb.model.grants]
    owners = [master for _, master in tb.model.grants]
    worst = 0
    for txn in txns:
        mine = tb.issuer[id(txn)]
        lo = bisect.bisect_left(grant_cycles, txn.present_cycle)
        hi = bisect.bisect_left(grant_cycles, txn.accept_cycle)
        others = sum(1 for m in owners[lo:hi] if m != mine)
        worst = max(worst, others)
        assert others <= NUM_MASTERS - 1, f"master {mine}: {txn.describe()} waited for {others} other grants"
    counts = [owners.count(i) for i in range(NUM_MASTERS)]
    dut._log.info("%d transactions in %d cycles; grants per master %s; worst wait %d grants",
                  len(txns), tb.cycle, counts, worst)


def test_obi_arbiter() -> None:
    run_ip_cocotb(__file__, "obi_arbiter", ["obi"],
                  parameters={"NumMasters": NUM_MASTERS, "MaxOutstanding": MAX_OUTSTANDING})
