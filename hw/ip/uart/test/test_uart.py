"""cocotb tests of couplet_uart_tx: 8N1 frames on tx_o, the byte FIFO and its ready_o.

The design is built once with ClkHz = 1 MHz and Baud = 115200: ClkHz / Baud = 8.68, so a divider
truncated instead of rounded (8) fails the exact bit-time check. `LineDecoder` is an independent
receiver: it waits for a falling edge, then checks that each of the ten bits of the frame (start 0,
eight data bits LSB first, stop 1) holds its value for exactly `Divider` cycles, takes the data from
the middle of each bit as a real receiver would, and goes back to looking for the next start bit.
`StreamDriver` offers random bytes with random gaps, holding a byte stable while ready_o is low. The
per-cycle check of ready_o uses a FIFO occupancy model: bytes accepted minus frames started, with
ready_o = occupancy < Depth.

Run: .venv/bin/python -m pytest hw/ip/uart/test -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import os
import random
from collections import deque

import cocotb
import pytest

from couplet.tools.cocotb_run import run_ip_cocotb
from testsupport.obi_bfm import ClockedTb, Monitor

CLK_HZ = 1_000_000
BAUD = 115_200
DEPTH = 16
FRAME_BITS = 10
PARAM_ENV = "COUPLET_UART_PARAMS"  # "ClkHz,Baud,Depth" of the build, passed from the pytest side


def build_params() -> tuple[int, int, int]:
    clk_hz, baud, depth = (int(x) for x in os.environ[PARAM_ENV].split(","))
    return clk_hz, baud, depth


def divider(clk_hz: int, baud: int) -> int:
    """Clock cycles per bit: ClkHz / Baud rounded to the nearest integer."""
    return round(clk_hz / baud)


class LineDecoder:
    """A receiver on tx_o that checks every frame bit for bit and cycle for cycle."""

    def __init__(self, dut, bit_cycles: int) -> None:
        self.tx = dut.tx_o
        self.bit_cycles = bit_cycles
        self.frame: list[int] | None = None  # tx_o samples of the frame being received
        self.start_cycle = 0
        self.bytes: list[int] = []
        self.starts: list[int] = []  # cycle of each start bit's first sample
        self.ends: list[int] = []  # first cycle after each stop bit

    def sample(self, cycle: int) -> None:
        level = int(self.tx.value)
        if self.frame is None:
            if level == 0:
                self.frame, self.start_cycle = [level], cycle
                self.starts.append(cycle)
            return
        self.frame.append(level)
        if len(self.frame) == FRAME_BITS * self.bit_cycles:
            self._finish(cycle + 1)

    def _finish(self, end_cycle: int) -> None:
        d, frame = self.bit_cycles, self.frame
        bits = []
        for k in range(FRAME_BITS):
            chunk = frame[k * d:(k + 1) * d]
            assert len(set(chunk)) == 1, (
                f"frame from cycle {self.start_cycle}: bit {k} not stable for {d} cycles: {chunk}"
            )
            bits.append(frame[k * d + d // 2])  # mid-bit sample
        assert bits[0] == 0, f"frame from cycle {self.start_cycle}: start bit {bits[0]}"
        assert bits[-1] == 1, f"frame from cycle {self.start_cycle}: stop bit missing (framing error)"
        self.bytes.append(sum(bit << i for i, bit in enumerate(bits[1:9])))
        self.ends.append(end_cycle)
        self.frame = None

    @property
    def idle(self) -> bool:
        return self.frame is None


class StreamDriver:
    """Offers bytes on valid_i/data_i with random gaps; a byte stays until ready_o takes it."""

    def __init__(self, dut, rng: random.Random, *, gap_prob: float = 0.0, max_gap: int = 1) -> None:
        self.dut = dut
        self.rng = rng
        self.gap_prob = gap_prob
        self.max_gap = max_gap
        self.queue: deque[int] = deque()
        self.current: int | None = None
        self.gap = 0
        self.sent: list[int] = []
        self.accepted_now = False
        self.blocked_cycles = 0  # cycles with valid_i high and ready_o low

    def reset_values(self) -> None:
        self.dut.valid_i.value = 0
        self.dut.data_i.value = 0

    def sample(self, cycle: int) -> None:
        self.accepted_now = False
        if self.current is None:
            return
        if int(self.dut.ready_o.value):
            self.sent.append(self.current)
            self.current = None
            self.accepted_now = True
        else:
            self.blocked_cycles += 1

    def drive(self, cycle: int) -> None:
        if self.current is None and self.queue:
            if self.gap == 0 and self.rng.random() < self.gap_prob:
                self.gap = self.rng.randint(1, self.max_gap)
            if self.gap:
                self.gap -= 1
            else:
                self.current = self.queue.popleft()
        if self.current is None:
            self.dut.valid_i.value = 0
            self.dut.data_i.value = self.rng.getrandbits(8)  # don't-care without valid
        else:
            self.dut.valid_i.value = 1
            self.dut.data_i.value = self.current


class UartTb(ClockedTb):
    def __init__(self, dut, **driver_args: float) -> None:
        super().__init__(dut)
        self.clk_hz, self.baud, self.depth = build_params()
        self.bit_cycles = divider(self.clk_hz, self.baud)
        self.line = LineDecoder(dut, self.bit_cycles)
        self.stream = StreamDriver(dut, self.rng, **driver_args)
        self.max_level = 0
        # The decoder sees this cycle's start bit before ready_o is checked: the FIFO gave that
        # byte up at the edge that began the cycle.
        self.add(self.line, self.stream, Monitor(self._check_ready))

    def _check_ready(self, cycle: int) -> None:
        accepted = len(self.stream.sent) - int(self.stream.accepted_now)  # accepted before this cycle
        level = accepted - len(self.line.starts)
        assert 0 <= level <= self.depth, f"cycle {cycle}: FIFO level model {level} out of range"
        self.max_level = max(self.max_level, level)
        ready = int(self.dut.ready_o.value)
        assert ready == int(level < self.depth), f"cycle {cycle}: ready_o = {ready} with {level} bytes queued"

    async def start(self) -> None:
        await self.reset()
        await self.sample_point()
        assert int(self.dut.tx_o.value) == 1, "tx_o not idle high after reset"
        assert int(self.dut.ready_o.value) == 1, "ready_o low after reset"

    async def send(self, data: bytes | list[int], slack_frames: int = 2) -> None:
        """Queue `data` and wait until the decoder has received all of it (bounded)."""
        self.stream.queue.extend(data)
        target = len(self.line.bytes) + len(data)
        budget = (len(data) + slack_frames) * (FRAME_BITS * self.bit_cycles + 4 * self.stream.max_gap)
        for _ in range(budget):
            if len(self.line.bytes) >= target:
                return
            await self.cycles(1)
        raise AssertionError(f"only {len(self.line.bytes)} of {target} bytes received within {budget} cycles")


@cocotb.test()
async def uart_idle(dut):
    """After reset, with nothing to send, the line stays high and ready_o stays high."""
    tb = UartTb(dut)
    await tb.start()
    for _ in range(5 * FRAME_BITS * tb.bit_cycles):
        await tb.sample_point()
        assert int(dut.tx_o.value) == 1
    assert tb.line.starts == []


@cocotb.test()
async def uart_random_stream(dut):
    """Random bytes with random gaps: every byte arrives once, in order, in a clean 8N1 frame."""
    tb = UartTb(dut, gap_prob=0.3, max_gap=3 * FRAME_BITS * divider(*build_params()[:2]))
    await tb.start()
    data = [tb.rng.getrandbits(8) for _ in range(150)] + [0x00, 0xFF, 0x55, 0xAA, 0x01, 0x80]
    await tb.send(data, slack_frames=len(data))
    await tb.cycles(3 * tb.bit_cycles)
    assert tb.line.bytes == data, f"received {bytes(tb.line.bytes)!r}, sent {bytes(data)!r}"
    assert tb.stream.sent == data
    assert tb.line.idle and int(dut.tx_o.value) == 1


@cocotb.test()
async def uart_fifo_full(dut):
    """A burst longer than the FIFO: ready_o drops when Depth bytes wait (one more is on the
    line), the writer is held, and the frames then follow each other with no idle bit."""
    tb = UartTb(dut)
    await tb.start()
    data = [tb.rng.getrandbits(8) for _ in range(tb.depth + 12)]
    await tb.send(data)
    await tb.cycles(2)
    assert tb.line.bytes == data
    assert tb.max_level == tb.depth, f"FIFO held at most {tb.max_level} bytes, Depth is {tb.depth}"
    assert tb.stream.blocked_cycles > 0, "ready_o never dropped"
    frame = FRAME_BITS * tb.bit_cycles
    gaps = [start - end for start, end in zip(tb.line.starts[1:], tb.line.ends)]
    assert gaps == [0] * (len(data) - 1), f"idle cycles between back-to-back frames: {gaps}"
    assert tb.line.ends[-1] - tb.line.starts[0] == len(data) * frame
    # Once drained, the FIFO takes a full burst again without blocking.
    tb.stream.blocked_cycles = 0
    await tb.send([0x0A] * tb.depth)
    assert tb.stream.blocked_cycles == 0, "a burst of Depth bytes into an empty FIFO was held"


def test_uart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PARAM_ENV, f"{CLK_HZ},{BAUD},{DEPTH}")
    run_ip_cocotb(__file__, "uart_tx", ["uart"], build_name="uart",
                  parameters={"ClkHz": CLK_HZ, "Baud": BAUD, "Depth": DEPTH})
