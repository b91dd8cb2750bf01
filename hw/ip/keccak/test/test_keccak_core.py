"""cocotb tests of couplet_keccak_core, built once per RoundsPerCycle (1, 2, 24).

The golden model is a Keccak-f[1600] written here from FIPS 202 on 25 64-bit lanes (lane
x + 5*y); its round constants come from the spec's LFSR and its rho offsets from the spec's
(x, y) walk, not from tables. `test_keccak_model_matches_hashlib` checks the model on its own
by running SHA3-256, SHA3-512 and SHAKE128 sponges with it against hashlib, and the cocotb
test `keccak_core_sponge` runs the same sponges with the design as the permutation, which
checks the byte order (byte i of the FIPS 202 string = state bits [8*i +: 8]) against hashlib
without the model. States reach the core through its write port (two words a cycle), as the
accelerator writes them.

A per-cycle checker (`CoreChecker`) runs in every test and checks, on every cycle:
  - busy_o, done_o and start_refused_o against their spec: with an accepted start in cycle 0,
    busy_o is high in cycles 1 .. N-1 and done_o in cycle N (N = 24 / RoundsPerCycle);
    start_refused_o exactly when start_i arrives while busy;
  - state_o: in cycle k of a permutation the state after k * RoundsPerCycle rounds (so the
    result in cycle N); while idle, the last value with the writes and clears of the cycles since
    applied (none while busy or with an accepted start); zero from the first clock edge in reset
    (the state flops have no asynchronous reset; busy_o, done_o and start_refused_o do).
The directed tests add explicit, checker-free assertions of the behaviour they are named for.

Run: .venv/bin/python -m pytest hw/ip/keccak/test/test_keccak_core.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import cocotb
import pytest
from cocotb.triggers import FallingEdge, RisingEdge

from couplet.tools.cocotb_run import run_cocotb
from testsupport.obi_bfm import ClockedTb, Monitor

RPC_ENV = "COUPLET_KECCAK_ROUNDS_PER_CYCLE"  # the build's RoundsPerCycle, from the pytest side
BUILDS = (1, 2, 24)
ROUNDS = 24
STATE_BITS = 1600
STATE_BYTES = STATE_BITS // 8
MASK64 = (1 << 64) - 1
RANDOM_STATES = 300  # per build, in the differential test

# ------------------------------------------------------------------------------- golden model


def rc_bit(t: int) -> int:
    """rc(t) of FIPS 202 Algorithm 5: an LFSR over GF(2)[x] / (x^8 + x^6 + x^5 + x^4 + 1)."""
    r = [1, 0, 0, 0, 0, 0, 0, 0]
    for _ in range(t % 255):
        r = [0] + r
        for tap in (0, 4, 5, 6):
            r[tap] ^= r[8]
        r = r[:8]
    return r[0]


def round_constant(i: int) -> int:
    """RC of round i (Algorithm 6): bit 2^j - 1 is rc(j + 7i)."""
    return sum(rc_bit(j + 7 * i) << ((1 << j) - 1) for j in range(7))


def rho_offsets() -> tuple[int, ...]:
    """rho's offsets by lane index x + 5y (Algorithm 2's walk from (1, 0))."""
    offsets = [0] * 25
    x, y = 1, 0
    for t in range(24):
        offsets[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return tuple(offsets)


RC = tuple(round_constant(i) for i in range(ROUNDS))
RHO = rho_offsets()


def rotl(value: int, n: int) -> int:
    n %= 64
    return ((value << n) | (value >> (64 - n))) & MASK64


def keccak_round(a: list[int], index: int) -> list[int]:
    c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
    d = [c[(x - 1) % 5] ^ rotl(c[(x + 1) % 5], 1) for x in range(5)]
    a = [rotl(a[i] ^ d[i % 5], RHO[i]) for i in range(25)]  # theta, then rho
    b = [a[(x + 3 * y) % 5 + 5 * x] for y in range(5) for x in range(5)]  # pi
    a = [b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y] & MASK64)
         for y in range(5) for x in range(5)]  # chi
    a[0] ^= RC[index]  # iota
    return a


def to_lanes(state: int) -> list[int]:
    return [(state >> (64 * i)) & MASK64 for i in range(25)]


def from_lanes(lanes: list[int]) -> int:
    return sum(lane << (64 * i) for i, lane in enumerate(lanes))


def keccak_trace(state: int) -> list[int]:
    """The state after 0, 1, ..., 24 rounds of Keccak-f[1600]."""
    lanes = to_lanes(state)
    trace = [state]
    for index in range(ROUNDS):
        lanes = keccak_round(lanes, index)
        trace.append(from_lanes(lanes))
    return trace


def keccak_f(state: int) -> int:
    return keccak_trace(state)[-1]


# --------------------------------------------------------------------------- sponge (FIPS 202)


@dataclass(frozen=True)
class Sponge:
    name: str
    rate: int  # bytes
    suffix: int  # domain bits and the first padding bit, as in FIPS 202 section 6
    out_len: int

    def reference(self, msg: bytes) -> bytes:
        h = hashlib.new(self.name, msg)
        return h.digest(self.out_len) if self.name.startswith("shake") else h.digest()

    def blocks(self, msg: bytes) -> list[int]:
        """pad10*1 after the suffix; each block as a state value (byte i at bits [8*i +: 8])."""
        padded = bytearray(msg) + bytes([self.suffix])
        padded += bytes(-len(padded) % self.rate)
        padded[-1] |= 0x80
        return [int.from_bytes(padded[i:i + self.rate], "little")
                for i in range(0, len(padded), self.rate)]

    async def run(self, msg: bytes, permute: Callable[[int], Awaitable[int]]) -> bytes:
        state = 0
        for block in self.blocks(msg):
            state = await permute(state ^ block)
        out = b""
        while True:
            out += state.to_bytes(STATE_BYTES, "little")[: self.rate]
            if len(out) >= self.out_len:
                return out[: self.out_len]
            state = await permute(state)


SPONGES = (
    Sponge("sha3_256", 136, 0x06, 32),
    Sponge("sha3_512", 72, 0x06, 64),
    Sponge("shake128", 168, 0x1F, 400),  # three squeeze blocks
)


def messages(rate: int) -> list[bytes]:
    """Lengths around the block boundaries, with a fixed byte pattern."""
    lengths = (0, 1, 3, rate - 1, rate, rate + 1, 2 * rate + 7)
    return [bytes((7 * i + length) & 0xFF for i in range(length)) for length in lengths]


async def model_permute(state: int) -> int:
    return keccak_f(state)


def run_sync(coro: Awaitable[bytes]) -> bytes:
    """Run a coroutine that never suspends (the model's sponge) without an event loop."""
    it = coro.__await__()
    try:
        next(it)
    except StopIteration as done:
        return done.value
    raise AssertionError("the model's sponge suspended")


def test_keccak_model_matches_hashlib() -> None:
    """The golden model itself, against hashlib: multi-block absorbing and squeezing."""
    for sponge in SPONGES:
        for msg in messages(sponge.rate):
            got = run_sync(sponge.run(msg, model_permute))
            assert got == sponge.reference(msg), f"model {sponge.name} of {len(msg)} bytes"


# ------------------------------------------------------------------------------ testbench


def rounds_per_cycle() -> int:
    return int(os.environ[RPC_ENV])


@dataclass
class Job:
    start_cycle: int
    trace: list[int]


WORDS = STATE_BITS // 32
WORD_MASK = (1 << 32) - 1


@dataclass(frozen=True)
class Write:
    """One cycle of the write port: wr_i (a bit per word), clear_i, the even and odd buses."""

    words: int = 0
    clear: int = 0
    even: int = 0
    odd: int = 0

    def apply(self, state: int) -> int:
        if self.clear:
            return 0
        for w in range(WORDS):
            if self.words >> w & 1:
                data = self.odd if w % 2 else self.even
                state = (state & ~(WORD_MASK << (32 * w))) | (data << (32 * w))
        return state


CLEAR = Write(0, 1)


def write_of(dut: object) -> Write:
    bus = int(dut.wr_data_i.value)  # type: ignore[attr-defined]
    return Write(int(dut.wr_i.value), int(dut.clear_i.value),  # type: ignore[attr-defined]
                 bus & WORD_MASK, bus >> 32)


@dataclass
class CoreChecker:
    """Per-cycle model of the core's outputs (see the module doc)."""

    dut: object
    rpc: int
    job: Job | None = None
    held: int = 0  # state_o while idle
    errors: list[str] = field(default_factory=list)
    done: list[tuple[int, int]] = field(default_factory=list)  # (input state, result) per job
    refused: list[int] = field(default_factory=list)  # cycles with start_refused_o
    ignored_writes: int = 0
    in_reset: bool = False  # the previous sample was in reset: the state is cleared since

    @property
    def latency(self) -> int:
        return ROUNDS // self.rpc

    def expect(self, cond: bool, msg: str) -> None:
        if not cond and len(self.errors) < 20:
            self.errors.append(msg)

    def sample(self, cycle: int) -> None:
        dut = self.dut
        v = {name: int(getattr(dut, name).value) for name in (
            "rst_ni", "start_i", "busy_o", "done_o", "start_refused_o")}
        state = int(dut.state_o.value)  # type: ignore[attr-defined]
        where = f"cycle {cycle}"
        if not v["rst_ni"]:
            self.job, self.held = None, 0
            for name in ("busy_o", "done_o", "start_refused_o"):
                self.expect(v[name] == 0, f"{where}: {name} high in reset")
            if self.in_reset:
                self.expect(state == 0, f"{where}: state_o not zero after a clock edge in reset")
            self.in_reset = True
            return
        self.in_reset = False

        k = cycle - self.job.start_cycle if self.job else None
        busy = k is not None and k < self.latency
        done = k == self.latency
        self.expect(v["busy_o"] == busy, f"{where}: busy_o {v['busy_o']}, expected {int(busy)}")
        self.expect(v["done_o"] == done, f"{where}: done_o {v['done_o']}, expected {int(done)}")
        refused = bool(v["start_i"]) and busy
        self.expect(v["start_refused_o"] == refused,
                    f"{where}: start_refused_o {v['start_refused_o']}, expected {int(refused)}")
        if refused:
            self.refused.append(cycle)
        if k is not None and self.job is not None:
            want = self.job.trace[k * self.rpc]
            what = "result" if done else f"state after {k * self.rpc} rounds"
            self.expect(state == want, f"{where}: state_o is not the {what} (start in cycle "
                        f"{self.job.start_cycle}; {diff_lanes(state, want)})")
            if done:
                self.done.append((self.job.trace[0], state))
                self.held, self.job = want, None
        else:
            self.expect(state == self.held, f"{where}: state_o is not the idle state "
                        f"({diff_lanes(state, self.held)})")

        # This cycle's inputs take effect at the end of the cycle.
        write = write_of(dut)
        if v["start_i"] and not busy:
            self.job = Job(cycle, keccak_trace(self.held))
            self.ignored_writes += write.words != 0
        elif busy:
            self.ignored_writes += write.words != 0 or write.clear != 0
        else:
            self.held = write.apply(self.held)


def diff_lanes(got: int, want: int) -> str:
    lanes = [i for i, (g, w) in enumerate(zip(to_lanes(got), to_lanes(want))) if g != w]
    return f"lanes (x+5y) differing: {lanes}" if lanes else "equal"


@dataclass
class Outputs:
    busy: int
    done: int
    refused: int
    state: int


class KeccakTb(ClockedTb):
    def __init__(self, dut) -> None:
        super().__init__(dut)
        self.rpc = rounds_per_cycle()
        self.latency = ROUNDS // self.rpc
        self.checker = CoreChecker(dut, self.rpc)
        self.add(Monitor(self.checker.sample))

    async def start(self) -> None:
        dut = self.dut
        dut.start_i.value = 0
        self.drive(Write())
        await self.reset()
        await FallingEdge(self.clk)
        assert int(dut.busy_o.value) == 0, "busy_o high after reset"
        assert int(dut.done_o.value) == 0, "done_o high after reset"

    def outputs(self) -> Outputs:
        dut = self.dut
        return Outputs(int(dut.busy_o.value), int(dut.done_o.value),
                       int(dut.start_refused_o.value), int(dut.state_o.value))

    def drive(self, write: Write) -> None:
        self.dut.wr_i.value = write.words
        self.dut.clear_i.value = write.clear
        self.dut.wr_data_i.value = (write.odd << 32) | write.even

    def junk(self) -> Write:
        """Random data on the buses with no word written."""
        return Write(0, 0, self.rng.getrandbits(32), self.rng.getrandbits(32))

    def random_write(self) -> Write:
        """Random words written with random data; one in ten also clears (clear wins)."""
        return Write(self.rng.getrandbits(WORDS), int(self.rng.random() < 0.1), self.rng.getrandbits(32),
                     self.rng.getrandbits(32))

    async def cycle_with(self, *, start: int = 0, write: Write | None = None) -> Outputs:
        """Drive the inputs of the next cycle (junk on the buses unless a write is given) and
        return the outputs at its sampling point."""
        await RisingEdge(self.clk)
        self.dut.start_i.value = start
        self.drive(self.junk() if write is None else write)
        await FallingEdge(self.clk)
        return self.outputs()

    async def load(self, state: int) -> None:
        """Write `state` into the idle core, two words a cycle."""
        for pair in range(WORDS // 2):
            want = (state >> (64 * pair)) & MASK64
            out = await self.cycle_with(write=Write(3 << (2 * pair), 0, want & WORD_MASK, want >> 32))
            assert out.busy == 0, "load while busy"

    async def permute(self, state: int) -> int:
        """Load `state` (once idle), start a permutation on it and return state_o at done_o."""
        out = await self.cycle_with()
        while out.busy:
            out = await self.cycle_with()
        await self.load(state)
        out = await self.cycle_with(start=1, write=self.random_write())
        for _ in range(self.latency):
            out = await self.cycle_with()
        assert out.done, f"done_o not {self.latency} cycles after start"
        return out.state

    def check(self) -> None:
        assert not self.checker.errors, "; ".join(self.checker.errors)

    def random_state(self) -> int:
        kind = self.rng.randrange(8)
        if kind == 0:  # sparse: a few set bits
            return sum(1 << self.rng.randrange(STATE_BITS) for _ in range(self.rng.randrange(4)))
        if kind == 1:  # dense: a few cleared bits
            mask = sum(1 << self.rng.randrange(STATE_BITS) for _ in range(self.rng.randrange(4)))
            return ((1 << STATE_BITS) - 1) & ~mask
        return self.rng.getrandbits(STATE_BITS)


# ----------------------------------------------------------------------------------- tests


@cocotb.test()
async def keccak_core_reset(dut):
    """Idle after reset; a reset in the middle of a permutation leaves it idle and zeroed,
    with no done_o."""
    tb = KeccakTb(dut)
    await tb.start()
    for _ in range(3):
        out = await tb.cycle_with()
        assert (out.busy, out.done, out.refused, out.state) == (0, 0, 0, 0), f"not idle: {out}"
    for delay in (1, tb.latency):  # the cycle after the start, and the done cycle
        await tb.load(tb.random_state())
        await tb.cycle_with(start=1)
        for _ in range(delay - 1):
            await tb.cycle_with()
        await RisingEdge(tb.clk)
        dut.start_i.value = 0
        dut.rst_ni.value = 0
        await FallingEdge(tb.clk)
        assert (int(dut.busy_o.value), int(dut.done_o.value)) == (0, 0), \
            "busy_o, done_o not cleared by the asynchronous reset"
        await RisingEdge(tb.clk)
        await FallingEdge(tb.clk)
        assert int(dut.state_o.value) == 0, "state_o not cleared at the first clock edge in reset"
        await RisingEdge(tb.clk)
        dut.rst_ni.value = 1
        for _ in range(tb.latency + 3):
            out = await tb.cycle_with()
            assert (out.busy, out.done, out.state) == (0, 0, 0), f"not idle after reset: {out}"
    tb.check()


@cocotb.test()
async def keccak_core_sponge(dut):
    """SHA3-256, SHA3-512 and SHAKE128 with the design as the permutation, against hashlib."""
    tb = KeccakTb(dut)
    await tb.start()
    for sponge in SPONGES:
        for msg in messages(sponge.rate)[::2]:
            got = await sponge.run(msg, tb.permute)
            assert got == sponge.reference(msg), f"{sponge.name} of {len(msg)} bytes through the core"
    tb.check()


@cocotb.test()
async def keccak_core_random(dut):
    """Differential: random states (some sparse or dense) against the model, each loaded after
    the previous permutation, or the previous result permuted again from its done cycle; now and
    then a refused start or an ignored write while busy, and random writes while idle."""
    tb = KeccakTb(dut)
    await tb.start()
    chance = tb.rng.random
    await tb.load(tb.random_state())
    out = await tb.cycle_with(start=1)
    for job in range(RANDOM_STATES):
        for _ in range(tb.latency - 1):
            poke = chance()
            out = await tb.cycle_with(start=int(poke < 0.05),
                                      write=tb.random_write() if 0.05 <= poke < 0.15 else None)
        last = job == RANDOM_STATES - 1
        if not last and chance() < 0.3:
            out = await tb.cycle_with(start=1, write=tb.random_write())  # done cycle, next start
            assert out.done
            continue
        out = await tb.cycle_with()  # done cycle
        assert out.done
        if last:
            break
        for _ in range(tb.rng.randrange(3)):
            await tb.cycle_with(write=tb.random_write())
        await tb.load(tb.random_state())
        await tb.cycle_with(start=1, write=tb.random_write() if chance() < 0.2 else None)
    tb.check()
    assert len(tb.checker.done) == RANDOM_STATES, f"{len(tb.checker.done)} permutations checked"
    tb.dut._log.info("%d permutations checked; %d refused starts, %d ignored writes",
                     len(tb.checker.done), len(tb.checker.refused), tb.checker.ignored_writes)


@cocotb.test()
async def keccak_core_timing(dut):
    """done_o exactly 24 / RoundsPerCycle cycles after start_i, busy_o high in between, both low
    otherwise; state_o holds the result until the next start or write. The second and third
    permutations start in the done cycle of the one before, on its result."""
    tb = KeccakTb(dut)
    await tb.start()
    plan = [(tb.random_state(), back_to_back) for back_to_back in (False, True, True, False)]
    prev = 0
    for index, (state, back_to_back) in enumerate(plan):
        if back_to_back:
            state = prev
        else:
            for _ in range(tb.rng.randrange(1, 5)):
                out = await tb.cycle_with()
                assert (out.busy, out.done, out.state) == (0, 0, prev), f"idle: {out}"
            await tb.load(state)
            out = await tb.cycle_with(start=1)  # cycle 0
            assert (out.busy, out.done, out.refused) == (0, 0, 0), f"cycle 0: {out}"
        want = keccak_f(state)
        for k in range(1, tb.latency):
            out = await tb.cycle_with()
            assert (out.busy, out.done) == (1, 0), f"cycle {k}: busy_o {out.busy}, done_o {out.done}"
        follow = plan[index + 1] if index + 1 < len(plan) else None
        if follow is not None and follow[1]:
            out = await tb.cycle_with(start=1)
            assert out.refused == 0, "a start in the done cycle refused"
        else:
            out = await tb.cycle_with()
        assert (out.busy, out.done) == (0, 1), f"cycle {tb.latency}: busy_o {out.busy}, done_o {out.done}"
        assert out.state == want, f"result: {diff_lanes(out.state, want)}"
        prev = want
    for _ in range(tb.rng.randrange(5, 20)):
        out = await tb.cycle_with()
        assert (out.busy, out.done, out.state) == (0, 0, prev), "state_o not held after done_o"
    tb.check()


@cocotb.test()
async def keccak_core_start_while_busy(dut):
    """A start while busy pulses start_refused_o in that cycle and leaves the running
    permutation untouched; a start in the done cycle is accepted. With 24 rounds per cycle the
    core is never busy: a start in every cycle is taken and none is refused."""
    tb = KeccakTb(dut)
    await tb.start()
    if tb.latency == 1:
        state = tb.random_state()
        await tb.load(state)
        results = []
        for _ in range(20):
            out = await tb.cycle_with(start=1, write=tb.random_write())
            assert (out.busy, out.refused) == (0, 0), f"start refused: {out}"
            results.append(out.state)
        out = await tb.cycle_with()
        results.append(out.state)
        want = [state]
        for _ in range(20):
            want.append(keccak_f(want[-1]))
        assert results == want, "back-to-back results"
        tb.check()
        return
    for _ in range(10):
        state = tb.random_state()
        await tb.load(state)
        out = await tb.cycle_with(start=1)
        assert out.refused == 0, "an idle start refused"
        pokes = sorted(tb.rng.sample(range(1, tb.latency), tb.rng.randrange(1, tb.latency)))
        for k in range(1, tb.latency):
            out = await tb.cycle_with(start=int(k in pokes), write=tb.random_write())
            assert out.refused == int(k in pokes), f"cycle {k}: start_refused_o {out.refused}"
            assert out.busy == 1
        out = await tb.cycle_with(start=1)  # the done cycle
        assert (out.done, out.refused) == (1, 0), f"done cycle: {out}"
        assert out.state == keccak_f(state), "a refused start disturbed the permutation"
        for _ in range(tb.latency):
            out = await tb.cycle_with()  # let the start from the done cycle finish
    tb.check()
    assert len(tb.checker.refused) >= 10


@cocotb.test()
async def keccak_core_write(dut):
    """While idle, a write replaces each written word by the bus of its parity from the next
    cycle, and clear_i zeroes the state (over any write). Writes and clears while busy, or with
    an accepted start, are ignored and leave the result as it is."""
    tb = KeccakTb(dut)
    await tb.start()
    for _ in range(4):
        state = tb.random_state()
        assert await tb.permute(state) == keccak_f(state)
        held = keccak_f(state)
        for _ in range(6):
            write = tb.random_write()
            out = await tb.cycle_with(write=write)
            assert out.state == held, "a write acted in its own cycle"
            held = write.apply(held)
        out = await tb.cycle_with()
        assert out.state == held, f"writes: {diff_lanes(out.state, held)}"
        out = await tb.cycle_with(write=CLEAR)
        for _ in range(3):
            out = await tb.cycle_with()
            assert (out.busy, out.done, out.state) == (0, 0, 0), f"not cleared: {out}"
        # Write in every cycle of a permutation, including the start cycle.
        state = tb.random_state()
        await tb.load(state)
        await tb.cycle_with(start=1, write=CLEAR)
        for _ in range(tb.latency - 1):
            await tb.cycle_with(write=tb.random_write())
        out = await tb.cycle_with()
        assert out.done and out.state == keccak_f(state), "a write while busy changed the result"
    tb.check()
    assert tb.checker.ignored_writes >= 4


# ------------------------------------------------------------------------------- pytest side


@pytest.mark.parametrize("rpc", BUILDS)
def test_keccak_core(rpc: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from couplet.model import rtl

    monkeypatch.setenv(RPC_ENV, str(rpc))
    run_cocotb(
        toplevel="couplet_keccak_core",
        # The engine alone: the accelerator and the instruction unit in the same folder need
        # the coupling layer's package, the engine does not.
        sources=rtl.module_sources("keccak", "couplet_keccak_core"),
        test_file=__file__,
        build_name=f"keccak_core_r{rpc}",
        parameters={"RoundsPerCycle": rpc},
    )
