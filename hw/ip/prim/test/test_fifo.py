"""cocotb tests of couplet_fifo: every output, every cycle, against a Python deque.

The users' benches (dma, uart, accel) never read count_o, nor build a FIFO of one entry or of a
depth that is not a power of two; this bench does. Random pushes, pops and flushes (legal ones
only: the FIFO's assertions stop the run on a push while full or a pop while empty) drive the
design and the model; at each falling edge count_o, full_o and empty_o must equal the model's
and data_o its head.

Run: .venv/bin/python -m pytest hw/ip/prim/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import os
from collections import deque

import cocotb
import pytest
from cocotb.triggers import FallingEdge

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import ClockedTb

PARAM_ENV = "COUPLET_FIFO_PARAMS"  # "Width,Depth" of the build, passed from the pytest side
# A single entry, a depth that is not a power of two, and one that is.
BUILDS = [(1, 1), (8, 3), (32, 4)]


class FifoTb(ClockedTb):
    def __init__(self, dut) -> None:
        super().__init__(dut)
        self.width, self.depth = (int(x) for x in os.environ[PARAM_ENV].split(","))
        self.model: deque[int] = deque()
        self.seen_full = self.seen_empty_after_full = self.flushed_full = False

    def check(self) -> None:
        d, m = self.dut, self.model
        assert int(d.count_o.value) == len(m), f"cycle {self.cycle}: count_o {int(d.count_o.value)}, model {len(m)}"
        assert int(d.full_o.value) == (len(m) == self.depth), f"cycle {self.cycle}: full_o with {len(m)} entries"
        assert int(d.empty_o.value) == (not m), f"cycle {self.cycle}: empty_o with {len(m)} entries"
        if m:
            assert int(d.data_o.value) == m[0], f"cycle {self.cycle}: data_o {int(d.data_o.value):#x}, head {m[0]:#x}"

    async def run(self, cycles: int, push_prob: float, pop_prob: float, flush_prob: float) -> None:
        d, m = self.dut, self.model
        for _ in range(cycles):
            await FallingEdge(d.clk_i)
            self.check()
            flush = self.rng.random() < flush_prob
            push = self.rng.random() < push_prob and (len(m) < self.depth or flush)
            pop = self.rng.random() < pop_prob and (bool(m) or flush)
            data = self.rng.getrandbits(self.width)
            d.flush_i.value, d.push_i.value, d.pop_i.value, d.data_i.value = int(flush), int(push), int(pop), data
            # The edge to come: a flush wins over everything; otherwise pop the head, push at the tail.
            if flush:
                self.flushed_full |= len(m) == self.depth
                m.clear()
                continue
            if pop:
                m.popleft()
            if push:
                m.append(data)
            self.seen_full |= len(m) == self.depth
            self.seen_empty_after_full |= self.seen_full and not m

    async def start(self) -> None:
        self.dut.flush_i.value = self.dut.push_i.value = self.dut.pop_i.value = 0
        self.dut.data_i.value = 0
        await self.reset()


@cocotb.test()
async def fifo_after_reset(dut):
    """Empty out of reset: count 0, empty, not full."""
    tb = FifoTb(dut)
    await tb.start()
    await FallingEdge(dut.clk_i)
    tb.check()
    assert int(dut.empty_o.value) == 1 and int(dut.full_o.value) == 0 and int(dut.count_o.value) == 0


@cocotb.test()
async def fifo_random(dut):
    """Random traffic in three moods (filling, draining, balanced), with and without flushes:
    every output matches the model in every cycle, and the FIFO has been full, emptied after it,
    and flushed while full."""
    tb = FifoTb(dut)
    await tb.start()
    for push, pop in ((0.9, 0.2), (0.2, 0.9), (0.6, 0.6)):
        await tb.run(300, push, pop, 0.0)
        await tb.run(300, push, pop, 0.05)
    for _ in range(3):  # fill it, then flush it: a flush of a full FIFO is seen at least here
        await tb.run(4 * tb.depth, 1.0, 0.0, 0.0)
        await tb.run(1, 0.5, 0.5, 1.0)
    await tb.run(2, 0.0, 0.0, 0.0)
    assert tb.seen_full and tb.seen_empty_after_full and tb.flushed_full


@cocotb.test()
async def fifo_first_word_falls_through(dut):
    """A word pushed into an empty FIFO is on data_o in the next cycle; pushes fill it to
    exactly Depth; a push and a pop in the same cycle keep the count."""
    tb = FifoTb(dut)
    await tb.start()
    await tb.run(1, 1.0, 0.0, 0.0)
    await FallingEdge(dut.clk_i)
    tb.check()
    assert int(dut.empty_o.value) == 0 and int(dut.count_o.value) == 1
    dut.push_i.value = 0
    await tb.run(tb.depth - 1, 1.0, 0.0, 0.0)
    await FallingEdge(dut.clk_i)
    tb.check()
    assert int(dut.full_o.value) == 1 and int(dut.count_o.value) == tb.depth
    dut.push_i.value = 0
    # From full: one pop (a push while full is a caller bug), then a push and a pop each cycle.
    await tb.run(20, 1.0, 1.0, 0.0)
    await FallingEdge(dut.clk_i)
    tb.check()
    if tb.depth > 1:
        assert int(dut.count_o.value) == tb.depth - 1 and int(dut.full_o.value) == 0


@pytest.mark.parametrize(("width", "depth"), BUILDS, ids=[f"w{w}d{d}" for w, d in BUILDS])
def test_fifo(width: int, depth: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PARAM_ENV, f"{width},{depth}")
    run_ip_cocotb(__file__, "fifo", ["prim"], build_name=f"fifo_w{width}d{depth}",
                  parameters={"Width": width, "Depth": depth})
