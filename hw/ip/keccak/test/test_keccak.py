"""cocotb tests of couplet_keccak (the Keccak/SHA-3 accelerator), built for RoundsPerCycle 1 and 24.

The testbench drives the command port, the input word stream and the DMA job port from Python,
one model per port, all run by the per-cycle task of `ClockedTb`:

- `CmdPort` issues commands (op, index, op_a, op_b) with optional idle cycles and response
  back-pressure, checks one stable response per command in order within a bound, and records the
  cycle each command was taken and answered;
- `StreamSource` feeds the input stream with random gaps and records the cycle of every word;
- `DmaModel` answers job_valid like the DMA engine for an absorb-only job: it streams the job's
  words from a Python memory and pulses job_done once all were taken, or aborts the job
  (dma_abort + job_err) after a given number of words.

Golden models: hashlib (SHA3-224/256/384/512, SHAKE128/256) for digests, and the Keccak-f[1600]
of the engine's test (`test_keccak_core.keccak_f`, written from FIPS 202 and checked there against
hashlib) for whole states, odd rates and single permutations. Padding is done here, as the
software driver does it. The register indexes come from `hw/ip/keccak/data/keccak.toml`, so the
RTL's decoder is checked against the register map.

Run: .venv/bin/python -m pytest hw/ip/keccak/test/test_keccak.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass

import cocotb
import pytest
from cocotb.triggers import RisingEdge

from couplet.model import rtl
from couplet.model.regs import load_ip_regs
from couplet.tools.cocotb_run import run_cocotb
from testsupport.accel_port_bfm import (OP_EXEC, OP_READ, OP_WRITE, OP_WRITE2, AccelRegsTb, Cmd, StreamSource,
                                        from_words, to_words)
from hw.ip.keccak.test.test_keccak_core import keccak_f
from testsupport.dma_job_bfm import DmaJobModel, Job
from testsupport.struct_port import assert_values
from testsupport.obi_bfm import MASK32, Monitor

RTL_FILES = [*rtl.accel_port_sources(), *rtl.ip_sources("keccak")]

RPC_ENV = "COUPLET_KECCAK_ROUNDS_PER_CYCLE"  # the build's RoundsPerCycle, from the pytest side
BUILDS = (1, 24)
STATE_WORDS = 50

# Register map, fields, actions and result codes: the IP's description (data/keccak.toml).
REGS = load_ip_regs("keccak")
_REGS = {reg.name: reg.offset // 4 for reg in REGS.regs}
STATE0, XOR0 = _REGS["state"], _REGS["state_xor"]
CTRL, STATUS, LEN, CMD = _REGS["ctrl"], _REGS["status"], _REGS["len"], _REGS["cmd"]
KNOWN = {reg.offset // 4 + w for reg in REGS.regs for w in range(reg.count)}
ACT_PERMUTE, ACT_ZEROIZE, ACT_ABSORB = (REGS.value("action", n) for n in ("permute", "zeroize", "absorb"))
CODE_OK, CODE_BUSY, CODE_BAD_LEN, CODE_BUS_ERR = (
    REGS.value("result", n) for n in ("ok", "busy", "bad_len", "bus_error"))
ST_BUSY, ST_DONE, ST_REFUSED, ST_JOB_ERR, ST_BAD_LEN = (
    REGS.field("status", n).mask for n in ("busy", "done", "refused_busy", "job_error", "bad_len"))
ST_STICKY = sum(f.mask for f in REGS.reg("status").fields if f.access == "w1c")
CTRL_IRQ_EN = REGS.field("ctrl", "irq_enable").mask
CMD_PERMUTE, CMD_ZEROIZE = (REGS.field("cmd", n).mask for n in ("permute", "zeroize"))
MAX_JOB = REGS.const("max_job_bytes")
MAX_RATE = REGS.const("max_rate")


def rounds_per_cycle() -> int:
    return int(os.environ[RPC_ENV])


# ------------------------------------------------------------------------------- golden models
@dataclass(frozen=True)
class Fn:
    """A Keccak sponge: `rate` in 32-bit words, the domain suffix with the first padding bit."""

    name: str
    rate: int
    suffix: int
    out_len: int

    def reference(self, msg: bytes) -> bytes | None:
        """hashlib's digest, or None for a rate hashlib does not offer."""
        if self.name not in hashlib.algorithms_available:
            return None
        h = hashlib.new(self.name, msg)
        return h.digest(self.out_len) if self.name.startswith("shake") else h.digest()

    def blocks(self, msg: bytes) -> list[list[int]]:
        """pad10*1 after the suffix, as words, one list per block."""
        rate_bytes = 4 * self.rate
        padded = bytearray(msg) + bytes([self.suffix])
        padded += bytes(-len(padded) % rate_bytes)
        padded[-1] |= 0x80
        words = to_words(bytes(padded))
        return [words[i:i + self.rate] for i in range(0, len(words), self.rate)]


SHA3_224 = Fn("sha3_224", 36, 0x06, 28)
SHA3_256 = Fn("sha3_256", 34, 0x06, 32)
SHA3_384 = Fn("sha3_384", 26, 0x06, 48)
SHA3_512 = Fn("sha3_512", 18, 0x06, 64)
SHAKE128 = Fn("shake128", 42, 0x1F, 200)  # longer than one rate block: squeezes twice
SHAKE256 = Fn("shake256", 34, 0x1F, 64)
KECCAK_R21 = Fn("keccak_r21", 21, 0x01, 40)  # an odd rate, checked against the model only
FNS = (SHA3_224, SHA3_256, SHA3_384, SHA3_512, SHAKE128, SHAKE256, KECCAK_R21)


def state_int(words: list[int]) -> int:
    return sum(w << (32 * i) for i, w in enumerate(words))


def state_words(state: int) -> list[int]:
    return [(state >> (32 * i)) & MASK32 for i in range(STATE_WORDS)]


def model_absorb(fn: Fn, msg: bytes, state: int = 0) -> int:
    """The state after absorbing `msg` (padded) into `state`."""
    for block in fn.blocks(msg):
        state = keccak_f(state ^ state_int(block))
    return state


def model_digest(fn: Fn, msg: bytes) -> bytes:
    state, out = model_absorb(fn, msg), b""
    while len(out) < fn.out_len:
        out += from_words(state_words(state)[:fn.rate])
        state = keccak_f(state)
    return out[:fn.out_len]


def test_keccak_register_map() -> None:
    """The toml describes two 50-word arrays and four control registers at the README's indexes."""
    assert (STATE0, XOR0, CTRL, STATUS, LEN, CMD) == (0x00, 0x40, 0x32, 0x33, 0x34, 0x35)
    assert REGS.reg("state").count == REGS.reg("state_xor").count == STATE_WORDS
    assert len(KNOWN) == 2 * STATE_WORDS + 4


def test_keccak_model_digests() -> None:
    """The driver's padding and squeezing with the model permutation reproduce hashlib."""
    for fn in FNS:
        for length in (0, 4 * fn.rate - 1, 4 * fn.rate, 8 * fn.rate + 5):
            msg = bytes((3 * i + length) & 0xFF for i in range(length))
            ref = fn.reference(msg)
            if ref is not None:
                assert model_digest(fn, msg) == ref, f"{fn.name} of {length} bytes"


# --------------------------------------------------------------------------------- port models
class DmaModel(DmaJobModel):
    """The DMA engine's side of the job port for absorb-only jobs: done once every word was taken."""

    def progress(self, cycle: int, job: Job) -> None:
        if not self.aborted() and self.taken == job.in_len // 4 and self._pulse == (0, 0, 0):
            job.last_word_cycle = self.src.accept_cycles[-1]
            self._pulse = (1, 0, 0)


# ---------------------------------------------------------------------------------- testbench
class KeccakTb(AccelRegsTb):
    def __init__(self, dut: object) -> None:
        super().__init__(dut, REGS, wait_cycles=500)
        self.rpc = rounds_per_cycle()
        self.latency = 24 // self.rpc  # cycles of one permutation
        self.src = StreamSource(dut, self.rng)
        self.dma = DmaModel(dut, self.rng, self.src)
        self.irq_cycles: list[int] = []
        self.add(self.cmd, self.src, self.dma, Monitor(self.per_cycle))

    def per_cycle(self, cycle: int) -> None:
        """The output stream never carries a word; note the cycles with irq_o."""
        assert self.dma.mem_req.out_valid.value == 0, f"cycle {cycle}: out_valid"
        if int(self.dut.irq_o.value):
            self.irq_cycles.append(cycle)

    async def start(self) -> None:
        await self.reset()
        await self.expect_idle("after reset")

    async def expect_idle(self, what: str) -> None:
        assert_values(self.dut, {"cmd_rsp_o.rsp_valid": 0, "mem_req_o.job_valid": 0, "mem_req_o.out_valid": 0,
                                 "irq_o": 0, "mem_req_o.in_ready": 1, "cmd_ready_o": 1}, what)
        assert await self.read(STATUS) == 0, f"STATUS {what}"
        assert await self.read(CTRL) == 0, f"CTRL {what}"
        assert await self.read(LEN) == 0, f"LEN {what}"
        assert await self.read_state() == 0, f"state {what}"

    async def hard_reset(self) -> None:
        """Assert rst_ni for two cycles wherever the design is; pending commands are dropped."""
        await RisingEdge(self.clk)
        self.dut.rst_ni.value = 0
        self.cmd.forget()
        self.src.flush()
        self.dma.forget()
        await self.cycles(2)
        await RisingEdge(self.clk)
        self.dut.rst_ni.value = 1
        await self.sample_point()

    # -- commands
    async def read_state(self, index0: int = STATE0) -> int:
        """All 50 state words, issued back to back."""
        reads = [self.cmd.issue(OP_READ, index0 + w) for w in range(STATE_WORDS)]
        for cmd in reads:
            await self.cmd.wait(cmd)
            assert not cmd.err
        return state_int([cmd.data for cmd in reads])

    async def write_state(self, state: int) -> None:
        words = state_words(state)
        cmds = [self.cmd.issue(OP_WRITE2, STATE0 + w, words[w], words[w + 1]) for w in range(0, STATE_WORDS, 2)]
        for cmd in cmds:
            await self.cmd.wait(cmd)
            assert not cmd.err and cmd.data == 0

    # -- hashing, the three ways software does it
    async def squeeze(self, fn: Fn) -> bytes:
        """Read the digest from the rate words, permuting between rate blocks (SHAKE)."""
        out: list[Cmd] = []
        words = -(-fn.out_len // 4)
        while True:
            take = min(words - len(out), fn.rate)
            out += [self.cmd.issue(OP_READ, STATE0 + w) for w in range(take)]
            if len(out) == words:
                break
            permute = self.cmd.issue(OP_EXEC, ACT_PERMUTE)
        for cmd in out:
            await self.cmd.wait(cmd)
            assert not cmd.err
        if words > fn.rate:
            assert permute.data == CODE_OK, "squeeze PERMUTE refused"
        return from_words([cmd.data for cmd in out])[:fn.out_len]

    async def hash_commands(self, fn: Fn, msg: bytes) -> bytes:
        """As the tight coupling does it: WRITE2 into STATE_XOR (WRITE for an odd last word) and
        PERMUTE per block, issued back to back, then READ of the digest words."""
        await self.write(CTRL, fn.rate)
        assert await self.action(ACT_ZEROIZE) == CODE_OK
        permutes = []
        for block in fn.blocks(msg):
            for w in range(0, fn.rate - 1, 2):
                self.cmd.issue(OP_WRITE2, XOR0 + w, block[w], block[w + 1])
            if fn.rate % 2:
                self.cmd.issue(OP_WRITE, XOR0 + fn.rate - 1, block[-1])
            permutes.append(self.cmd.issue(OP_EXEC, ACT_PERMUTE))
        digest = await self.squeeze(fn)  # issued right behind the last PERMUTE
        assert all(p.data == CODE_OK and not p.err for p in permutes), "a PERMUTE was refused"
        return digest

    async def hash_stream(self, fn: Fn, msg: bytes) -> bytes:
        """As a DMA descriptor job does it: the padded words on the input stream."""
        await self.write(CTRL, fn.rate)
        assert await self.action(ACT_ZEROIZE) == CODE_OK
        self.src.push([w for block in fn.blocks(msg) for w in block])
        await self.src.wait_idle()
        return await self.squeeze(fn)  # the first read waits for the last permutation

    async def hash_absorb(self, fn: Fn, msg: bytes, src: int, zeroize: bool = True) -> tuple[bytes, Cmd]:
        """As the mem coupling does it: the padded message in memory, LEN, one ABSORB. Without
        `zeroize` the state is cleared by STATE writes, which leave the word counter alone."""
        padded = from_words([w for block in fn.blocks(msg) for w in block])
        self.dma.load(src, padded)
        await self.write(CTRL, fn.rate)
        await self.write(LEN, len(padded))
        if zeroize:
            assert await self.action(ACT_ZEROIZE) == CODE_OK
        else:
            await self.write_state(0)
        before = len(self.dma.jobs)
        junk = self.rng.getrandbits(32)  # op_b means nothing to ABSORB
        cmd = await self.cmd.request(OP_EXEC, ACT_ABSORB, src, junk, timeout_cycles=20_000)
        assert not cmd.err and cmd.data == CODE_OK, f"ABSORB answered {cmd.data} err={cmd.err}"
        assert len(self.dma.jobs) == before + 1, "ABSORB must issue exactly one job"
        job = self.dma.jobs[-1]
        assert (job.src, job.dst, job.in_len, job.out_len) == (src, 0, len(padded), 0), f"job {job}"
        # LEN / 4 is divided by the rate in 19 cycles before the job is offered.
        offered = job.offer_cycle - cmd.accept_cycle
        assert offered == 20, f"job offered {offered} cycles after ABSORB"
        return await self.squeeze(fn), cmd


def random_message(rng: random.Random, fn: Fn) -> bytes:
    """Lengths from 0 to a bit over three blocks, often at a block boundary."""
    rate_bytes = 4 * fn.rate
    length = rng.choice((0, 1, rate_bytes - 1, rate_bytes, rate_bytes + 1, 2 * rate_bytes - 1,
                         rng.randrange(3 * rate_bytes + 9)))
    return rng.randbytes(length)


def check_digest(fn: Fn, msg: bytes, got: bytes, what: str) -> None:
    ref = fn.reference(msg)
    want = model_digest(fn, msg) if ref is None else ref
    assert got == want, f"{what}: {fn.name} of {len(msg)} bytes: got {got.hex()}, expected {want.hex()}"


# ------------------------------------------------------------------------------------- tests
@cocotb.test()
async def keccak_registers(dut):
    """Reset values; every STATE word written and read back (also through the STATE_XOR indexes);
    STATE_XOR writes XOR; CTRL/LEN read back; unknown commands answer err and change nothing; W1C."""
    tb = KeccakTb(dut)
    await tb.start()
    tb.cmd.idle_prob, tb.cmd.rsp_ready_prob = 0.2, 0.7
    state = tb.rng.getrandbits(1600)
    await tb.write_state(state)
    assert await tb.read_state() == state, "STATE read back"
    assert await tb.read_state(XOR0) == state, "STATE through the STATE_XOR indexes"
    # Single WRITEs, and WRITE2 at an odd index.
    words = state_words(state)
    for w in tb.rng.sample(range(STATE_WORDS), 10):
        words[w] = tb.rng.getrandbits(32)
        await tb.write(STATE0 + w, words[w])
    await tb.write2(STATE0 + 7, 0x0123_4567, 0x89AB_CDEF)
    words[7:9] = [0x0123_4567, 0x89AB_CDEF]
    assert await tb.read_state() == state_int(words), "single WRITEs"
    # STATE_XOR: WRITE2 pairs and single WRITEs XOR into the state.
    state = state_int(words)
    mask = tb.rng.getrandbits(1600)
    mw = state_words(mask)
    for w in range(0, STATE_WORDS - 1, 2):
        tb.cmd.issue(OP_WRITE2, XOR0 + w, mw[w], mw[w + 1])
    await tb.write(XOR0 + 49, 0)  # the last word once more with a zero: unchanged
    assert await tb.read_state() == state ^ mask, "STATE_XOR by WRITE2"
    await tb.write(XOR0 + 13, 0xFFFF_FFFF)
    assert await tb.read(STATE0 + 13) == (state_words(state ^ mask)[13] ^ 0xFFFF_FFFF), "STATE_XOR by WRITE"
    state = await tb.read_state()
    # WRITE2 across STATE49 and CTRL.
    await tb.write2(STATE0 + 49, 0x5555_AAAA, 34 | CTRL_IRQ_EN)
    assert await tb.read(STATE0 + 49) == 0x5555_AAAA
    assert await tb.read(CTRL) == 34 | CTRL_IRQ_EN
    state = (state & ~(MASK32 << (32 * 49))) | (0x5555_AAAA << (32 * 49))
    # CTRL keeps 7 bits, any rate value (illegal ones too); LEN all 32.
    for value in (0xFFFF_FFFF, 0, 43, 63 | CTRL_IRQ_EN, 18):
        await tb.write(CTRL, value)
        assert await tb.read(CTRL) == value & 0x7F, f"CTRL {value:#x}"
    for value in (0xFFFF_FFFF, 0x100, 1, 0):
        await tb.write(LEN, value)
        assert await tb.read(LEN) == value, f"LEN {value:#x}"
    assert await tb.read(CMD) == 0, "CMD reads 0"
    # Unknown op or index: err, data 0, answered the cycle after, nothing changes.
    tb.cmd.idle_prob, tb.cmd.rsp_ready_prob = 0.0, 1.0
    unknown = [i for i in range(128) if i not in KNOWN]
    bad = [(OP_READ, i) for i in unknown] + [(OP_WRITE, i) for i in tb.rng.sample(unknown, 12)]
    bad += [(OP_WRITE2, i) for i in (STATE0 - 1 + 0x80, CMD, XOR0 - 1, XOR0 + 49, 0x7F)]
    bad += [(OP_EXEC, i) for i in (3, 4, 0x35, 0x40, 0x7F)] + [(op, i) for op in (4, 5, 6, 7) for i in (0, 0x40)]
    for op, index in bad:
        cmd = await tb.cmd.request(op, index, tb.rng.getrandbits(32) | 3, tb.rng.getrandbits(32) | 3)
        assert cmd.err and cmd.data == 0, f"op {op} index {index:#x}: err={cmd.err} data={cmd.data}"
        assert cmd.latency == 1
    assert await tb.read_state() == state, "err commands changed the state"
    assert await tb.read(CTRL) == 18 and await tb.read(LEN) == 0
    await tb.expect_status(0x1F, 0, "err commands")
    # W1C: make every sticky bit, clear them one at a time.
    assert await tb.action(ACT_PERMUTE) == CODE_OK  # done
    assert await tb.action(ACT_ABSORB, 0x100) == CODE_BAD_LEN  # LEN is 0
    tb.src.push([1])  # a partial stream block: PERMUTE is refused
    await tb.src.wait_idle()
    assert await tb.action(ACT_PERMUTE) == CODE_BUSY
    assert await tb.action(ACT_ZEROIZE) == CODE_OK  # ends the partial block
    tb.dma.fail_after = 1
    await tb.write(LEN, 4 * 18)
    assert await tb.action(ACT_ABSORB, 0x100) == CODE_BUS_ERR
    await tb.expect_status(0x1F, ST_STICKY, "every sticky bit")
    remaining = ST_STICKY
    for bit in tb.rng.sample([ST_DONE, ST_REFUSED, ST_JOB_ERR, ST_BAD_LEN], 4):
        await tb.write(STATUS, bit | ST_BUSY | 0xFFFF_FFE0)  # busy and unused bits are read-only
        remaining &= ~bit
        await tb.expect_status(0x1F, remaining, f"W1C of {bit:#x}")
    # ABSORB's bus error started a job: the state changed; ZEROIZE for the next test.
    assert tb.dma.jobs and tb.dma.jobs[-1].in_len == 4 * 18


@cocotb.test()
async def keccak_digests_by_commands(dut):
    """SHA3-224/256/384/512, SHAKE128/256 and an odd rate, driven as the tight coupling does it,
    against hashlib; the whole state after absorbing against the model."""
    tb = KeccakTb(dut)
    await tb.start()
    for round_ in range(2):
        tb.cmd.idle_prob, tb.cmd.rsp_ready_prob = ((0.0, 1.0), (0.3, 0.6))[round_]
        for fn in FNS:
            msg = random_message(tb.rng, fn)
            got = await tb.hash_commands(fn, msg)
            check_digest(fn, msg, got, "commands")
            if fn.out_len <= 4 * fn.rate:  # no squeeze permutation: the state is the absorbed one
                assert await tb.read_state() == model_absorb(fn, msg), f"{fn.name}: state after absorbing"
    await tb.expect_status(ST_REFUSED | ST_BAD_LEN | ST_JOB_ERR | ST_BUSY, 0, "after the digests")


@cocotb.test()
async def keccak_digests_by_stream(dut):
    """The same through the input word stream, with random gaps, and with the command port
    reading the digest as soon as the last word is in (the read waits for the permutation)."""
    tb = KeccakTb(dut)
    await tb.start()
    for gap in (0.0, 0.3, 0.8):
        tb.src.gap_prob = gap
        for fn in FNS:
            msg = random_message(tb.rng, fn)
            got = await tb.hash_stream(fn, msg)
            check_digest(fn, msg, got, f"stream, gaps {gap}")
    # Two messages back to back without a ZEROIZE in between continue the sponge.
    fn = SHA3_256
    await tb.write(CTRL, fn.rate)
    assert await tb.action(ACT_ZEROIZE) == CODE_OK
    a, b = tb.rng.randbytes(200), tb.rng.randbytes(50)
    tb.src.push([w for block in fn.blocks(a) + fn.blocks(b) for w in block])
    await tb.src.wait_idle()
    assert await tb.read_state() == model_absorb(fn, b, model_absorb(fn, a)), "chained stream state"
    await tb.expect_status(0x1F & ~ST_DONE, 0, "after the streams")
    # STATE reads mixed into a stream of rate 1 (a permutation after every word): never taken in
    # the cycle a block's permutation starts or while it runs, and each sees the state after the
    # words taken before it (a word in the read's own cycle comes after the read).
    await tb.write(CTRL, 1)
    assert await tb.action(ACT_ZEROIZE) == CODE_OK
    tb.src.gap_prob = 0.5
    words = [tb.rng.getrandbits(32) for _ in range(12)]
    states = [0]
    for word in words:
        states.append(keccak_f(states[-1] ^ word))
    first = len(tb.src.accept_cycles)
    reads = [tb.cmd.issue(OP_READ, STATE0 + tb.rng.randrange(STATE_WORDS)) for _ in range(60)]
    tb.src.push(words)
    await tb.cmd.wait(reads[-1], 2000)
    await tb.src.wait_idle()
    accepts = tb.src.accept_cycles[first:]
    running = {a + k for a in accepts for k in range(1, tb.latency + 1)}
    for read in reads:
        assert read.accept_cycle not in running, f"a STATE read taken in cycle {read.accept_cycle}, words {accepts}"
        seen = sum(a < read.accept_cycle for a in accepts)
        assert read.data == state_words(states[seen])[read.index - STATE0], f"read after {seen} words"
    assert await tb.read_state() == states[-1]


@cocotb.test()
async def keccak_absorb_action(dut):
    """ABSORB: one job {src, 0, LEN, 0}; digests against hashlib; the answer comes exactly when
    the job is done and the last permutation is over; a bus error answers 4."""
    tb = KeccakTb(dut)
    await tb.start()
    tb.cmd.resp_timeout = 20_000
    src = 0x2000_0000
    for fn in FNS:
        tb.src.gap_prob = tb.rng.choice((0.0, 0.2, 0.6))
        msg = random_message(tb.rng, fn)
        got, cmd = await tb.hash_absorb(fn, msg, src)
        check_digest(fn, msg, got, "ABSORB")
        job = tb.dma.jobs[-1]
        # Answer register set in the first cycle after job_done in which no permutation runs:
        # the last word's permutation starts the cycle after it and ends `latency` cycles later.
        answer = max(job.done_cycle + 1, job.last_word_cycle + 1 + tb.latency)
        assert cmd.resp_cycle == answer + 1, (
            f"{fn.name}: ABSORB answered in cycle {cmd.resp_cycle}, job done {job.done_cycle}, "
            f"last word {job.last_word_cycle}, permutation latency {tb.latency}")
        src += 0x1000
    await tb.expect_status(0x1F & ~ST_DONE, 0, "after the ABSORBs")
    # Bus errors: answer 4 and STATUS[3]; the partial block is dropped, so a new hash is exact.
    fn = SHA3_512
    await tb.write(CTRL, fn.rate)
    for fail_after in (1, 5, fn.rate, fn.rate + 3):
        tb.dma.load(src, tb.rng.randbytes(4 * 3 * fn.rate))
        await tb.write(LEN, 4 * 3 * fn.rate)
        tb.dma.fail_after = fail_after
        assert await tb.action(ACT_ABSORB, src, timeout_cycles=5000) == CODE_BUS_ERR, f"error after {fail_after}"
        await tb.expect_status(0x1F & ~ST_DONE, ST_JOB_ERR, f"after the abort at word {fail_after}")
        await tb.clear_status()
        msg = tb.rng.randbytes(100)
        got, _ = await tb.hash_absorb(fn, msg, src + 0x800, zeroize=False)
        check_digest(fn, msg, got, f"ABSORB after an abort at word {fail_after}")


@cocotb.test()
async def keccak_bad_length(dut):
    """LEN not a multiple of 4 * rate, 0 or over 1 MiB, and illegal rates: code 3 and STATUS[4],
    no job, state untouched; legal lengths up to 1 MiB start a job (ended here by a bus error)."""
    tb = KeccakTb(dut)
    await tb.start()
    state = tb.rng.getrandbits(1600)
    await tb.write_state(state)
    src = 0x3000_0000

    async def absorb(rate: int, length: int) -> int:
        await tb.write(CTRL, rate)
        await tb.write(LEN, length)
        jobs = len(tb.dma.jobs)
        tb.dma.fail_after = 2  # a started job ends quickly
        cmd = await tb.cmd.request(OP_EXEC, ACT_ABSORB, src)
        code = cmd.data
        tb.dma.fail_after = None
        what = f"rate {rate} LEN {length:#x}"
        if code == CODE_BAD_LEN:
            assert len(tb.dma.jobs) == jobs, f"{what}: a job after bad length"
            # Rate, zero, size and alignment are checked at once; the multiple of the rate in
            # 19 cycles, one bit of LEN / 4 per cycle.
            at_once = not 1 <= rate <= MAX_RATE or length == 0 or length > MAX_JOB or length % 4
            assert cmd.latency == (1 if at_once else 21), f"{what}: answered after {cmd.latency} cycles"
            await tb.expect_status(0x1F, ST_BAD_LEN, what)
        else:
            assert len(tb.dma.jobs) == jobs + 1 and tb.dma.jobs[-1].in_len == length, f"{what}: job"
            await tb.expect_status(0x1F & ~ST_DONE, ST_JOB_ERR if code == CODE_BUS_ERR else 0, what)
        await tb.clear_status()
        return code

    cases = [(34, 0), (34, 4), (34, 4 * 34 - 4), (34, 4 * 34 + 4), (34, 4 * 34 * 2 + 2), (18, MAX_JOB + 72),
             (18, 0xFFFF_FFB8), (1, MAX_JOB + 4), (0, 4 * 34), (43, 4 * 43), (63, 4 * 63)]
    cases += [(32, MAX_JOB), (1, MAX_JOB), (42, 4 * 42 * (MAX_JOB // 168)), (42, 4 * 42 * (MAX_JOB // 168) + 4),
              (1, 4), (41, 4 * 41 * 41), (37, 4 * 37 * 1000 + 4 * 36)]
    for _ in range(12):  # random rates and word counts, multiples or not
        rate = tb.rng.randint(1, MAX_RATE)
        words = tb.rng.randint(1, MAX_JOB // 4)
        if tb.rng.random() < 0.5:
            words -= words % rate
        cases.append((rate, 4 * max(words, rate)))
    for rate, length in cases:
        legal = 1 <= rate <= MAX_RATE and 0 < length <= MAX_JOB and length % (4 * rate) == 0
        code = await absorb(rate, length)
        started = CODE_BUS_ERR if length >= 8 else CODE_OK  # a one-word job ends before the error
        assert code == (started if legal else CODE_BAD_LEN), f"rate {rate} LEN {length:#x}: code {code}"
        if not legal:
            assert await tb.read_state() == state, f"rate {rate} LEN {length:#x}: state changed"
        else:
            await tb.write_state(state)
    # Stream words with an illegal rate are taken and dropped (flagged), so a DMA job never hangs.
    await tb.write(CTRL, 0)
    tb.src.push([tb.rng.getrandbits(32) for _ in range(9)])
    await tb.cycles(12)
    assert tb.src.idle, "words with an illegal rate were not taken"
    await tb.expect_status(0x1F, ST_BAD_LEN, "stream with rate 0")
    assert await tb.read_state() == state, "words with an illegal rate changed the state"


@cocotb.test()
async def keccak_timing(dut):
    """PERMUTE answered the next cycle; a STATE read right after is taken when the permutation
    ends (24 / RoundsPerCycle cycles after the PERMUTE) and answered the cycle after; STATUS,
    CTRL and LEN are answered at once; irq; stream and command throughput."""
    tb = KeccakTb(dut)
    await tb.start()
    n = tb.latency
    report = []
    for w in (0, 17, 49):
        state = tb.rng.getrandbits(1600)
        await tb.write_state(state)
        permute = tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
        read = tb.cmd.issue(OP_READ, STATE0 + w)
        await tb.cmd.wait(read)
        assert (permute.data, permute.latency) == (CODE_OK, 1), "PERMUTE answered the next cycle"
        assert read.accept_cycle == permute.accept_cycle + n and read.latency == 1, (
            f"STATE read taken {read.accept_cycle - permute.accept_cycle} cycles after PERMUTE, answered "
            f"{read.latency} later (latency {n})")
        assert read.data == state_words(keccak_f(state))[w], f"word {w} of the result"
    report.append(f"PERMUTE + STATE read: read taken {n} cycles after PERMUTE")
    # Control registers are answered at once while the permutation runs.
    await tb.clear_status()
    permute = tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
    status, ctrl, length = (tb.cmd.issue(OP_READ, i) for i in (STATUS, CTRL, LEN))
    await tb.cmd.wait(length)
    c = permute.accept_cycle
    assert [x.accept_cycle for x in (status, ctrl, length)] == [c + 1, c + 2, c + 3]
    assert all(x.latency == 1 for x in (status, ctrl, length))
    assert status.data & (ST_BUSY | ST_DONE) == (ST_BUSY if n > 1 else 0), f"STATUS 0x{status.data:02x} in cycle 1"
    # done and irq: STATUS[1] and irq_o from the cycle after the permutation's last.
    await tb.cycles(n + 2)
    await tb.expect_status(ST_DONE | ST_BUSY, ST_DONE, "done")
    assert not tb.irq_cycles, "irq without CTRL[6]"
    await tb.write(CTRL, CTRL_IRQ_EN | 34)
    assert int(dut.irq_o.value) == 1, "irq_o when enabling with done pending"
    await tb.write(STATUS, ST_DONE)
    assert int(dut.irq_o.value) == 0, "W1C of done drops irq_o"
    tb.irq_cycles.clear()
    permute = await tb.cmd.request(OP_EXEC, ACT_PERMUTE)
    await tb.cycles(n + 3)
    assert tb.irq_cycles and tb.irq_cycles[0] == permute.accept_cycle + n + 1, (
        f"irq_o from cycle {tb.irq_cycles[:1]}, PERMUTE taken in {permute.accept_cycle}")
    await tb.write(CTRL, 34)
    assert int(dut.irq_o.value) == 0, "CTRL[6] cleared"
    await tb.clear_status()
    # Two PERMUTEs back to back: the second is refused while the first runs (never at 24 rounds per
    # cycle), and the state is permuted once (twice).
    state = tb.rng.getrandbits(1600)
    await tb.write_state(state)
    first = tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
    second = tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
    await tb.cmd.wait(second)
    assert second.accept_cycle == first.accept_cycle + 1
    if n > 1:
        assert second.data == CODE_BUSY, "PERMUTE while a permutation runs"
        await tb.expect_status(ST_REFUSED, ST_REFUSED, "refused PERMUTE")
        assert await tb.read_state() == keccak_f(state), "a refused PERMUTE changed the state"
    else:
        assert second.data == CODE_OK
        await tb.expect_status(ST_REFUSED, 0, "back-to-back PERMUTE at 24 rounds per cycle")
        assert await tb.read_state() == keccak_f(keccak_f(state)), "two permutations"
    await tb.clear_status()
    # Stream throughput without gaps: a block of `rate` words every rate + latency cycles.
    for fn in (SHA3_256, SHA3_512):
        await tb.write(CTRL, fn.rate)
        assert await tb.action(ACT_ZEROIZE) == CODE_OK
        blocks = [[tb.rng.getrandbits(32) for _ in range(fn.rate)] for _ in range(3)]
        first = len(tb.src.accept_cycles)
        tb.src.push([w for block in blocks for w in block])
        await tb.src.wait_idle()
        cycles = tb.src.accept_cycles[first:]
        t0 = cycles[0]
        expected = [t0 + b * (fn.rate + n) + j for b in range(3) for j in range(fn.rate)]
        assert cycles == expected, f"rate {fn.rate}: words taken in cycles {[c - t0 for c in cycles]}"
        read = await tb.cmd.request(OP_READ, STATE0)
        assert read.accept_cycle >= cycles[-1] + 1 + n, "a STATE read during the last permutation"
        model = 0
        for block in blocks:
            model = keccak_f(model ^ state_int(block))
        assert await tb.read_state() == model, f"rate {fn.rate}: streamed state"
        report.append(f"stream, rate {fn.rate}: a block every {fn.rate + n} cycles")
    # One SHA3-256 block by commands, back to back: 17 WRITE2, PERMUTE, 8 READs.
    first = len(tb.cmd.log)
    await tb.hash_commands(SHA3_256, b"")
    cmds = tb.cmd.log[first + 2:]  # after CTRL and ZEROIZE
    total = cmds[-1].resp_cycle - cmds[0].accept_cycle + 1
    assert total == 17 + 1 + n + 8, f"one block by commands took {total} cycles"
    report.append(f"SHA3-256 of one block by commands (17 WRITE2, PERMUTE, 8 READ): {total} cycles")
    for line in report:
        dut._log.info("timing (RoundsPerCycle %d): %s", tb.rpc, line)


@cocotb.test()
async def keccak_refusals(dut):
    """PERMUTE, CTRL and LEN writes, and ABSORB are refused while busy (code 1 and STATUS[2]) and
    change nothing; STATE commands wait for a running permutation instead."""
    tb = KeccakTb(dut)
    await tb.start()
    n = tb.latency
    fn = SHA3_384
    await tb.write(CTRL, fn.rate)
    await tb.write(LEN, 4 * fn.rate)
    block = [tb.rng.getrandbits(32) for _ in range(fn.rate)]
    # A partial stream block: busy for PERMUTE, CTRL, LEN, ABSORB.
    state = tb.rng.getrandbits(1600)
    await tb.write_state(state)
    tb.src.push(block[:5])
    await tb.src.wait_idle()
    await tb.expect_status(0x1F, ST_BUSY, "partial block")
    assert await tb.action(ACT_PERMUTE) == CODE_BUSY
    await tb.expect_status(0x1F, ST_BUSY | ST_REFUSED, "PERMUTE during a partial block")
    await tb.clear_status()
    await tb.write(CMD, CMD_PERMUTE)
    await tb.expect_status(ST_REFUSED, ST_REFUSED, "CMD permute during a partial block")
    await tb.write(CTRL, 18)
    await tb.write(LEN, 4 * 18)
    assert await tb.action(ACT_ABSORB, 0x400) == CODE_BUSY
    assert not tb.dma.jobs, "a refused ABSORB issued a job"
    assert await tb.read(CTRL) == fn.rate and await tb.read(LEN) == 4 * fn.rate, "CTRL/LEN written while busy"
    await tb.clear_status()
    # Reading the state mid-block is allowed; the rest of the block completes it exactly.
    partial = state_words(await tb.read_state())
    assert partial == [w ^ (block[i] if i < 5 else 0) for i, w in enumerate(state_words(state))]
    tb.src.push(block[5:])
    await tb.src.wait_idle()
    assert await tb.read_state() == keccak_f(state ^ state_int(block)), "block after the refusals"
    await tb.expect_status(0x1F, ST_DONE, "after the block")
    await tb.clear_status()
    # While a permutation runs (only with more than one cycle per permutation).
    if n > 1:
        state = tb.rng.getrandbits(1600)
        await tb.write_state(state)
        permute = tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
        refused = [tb.cmd.issue(OP_WRITE, CTRL, 18), tb.cmd.issue(OP_WRITE, LEN, 8),
                   tb.cmd.issue(OP_WRITE, CMD, CMD_PERMUTE), tb.cmd.issue(OP_EXEC, ACT_PERMUTE)]
        xor = tb.cmd.issue(OP_WRITE2, XOR0 + 2, 0xDEAD_BEEF, 0x1234_5678)  # waits for the result
        await tb.cmd.wait(xor)
        c = permute.accept_cycle
        assert [r.accept_cycle for r in refused] == [c + 1, c + 2, c + 3, c + 4], "refusals are answered at once"
        assert [r.data for r in refused] == [0, 0, 0, CODE_BUSY]
        assert xor.accept_cycle == max(c + 5, c + n), f"STATE_XOR taken {xor.accept_cycle - c} cycles after PERMUTE"
        want = state_words(keccak_f(state))
        want[2] ^= 0xDEAD_BEEF
        want[3] ^= 0x1234_5678
        assert await tb.read_state() == state_int(want), "XOR into the result"
        await tb.expect_status(0x1F, ST_DONE | ST_REFUSED, "refusals during a permutation")
        assert await tb.read(CTRL) == fn.rate and await tb.read(LEN) == 4 * fn.rate
        await tb.clear_status()


@cocotb.test()
async def keccak_zeroize_and_reset(dut):
    """ZEROIZE (action and CMD[1]) clears the state, also the engine's register, and ends a
    partial stream block; it waits for a running permutation. CMD with both bits only zeroizes.
    Reset in the middle of a permutation and of an ABSORB leaves everything idle."""
    tb = KeccakTb(dut)
    await tb.start()
    n = tb.latency
    for how in ("action", "cmd", "cmd both"):
        await tb.write_state(tb.rng.getrandbits(1600))
        await tb.clear_status()
        if how == "action":
            zeroize = await tb.cmd.request(OP_EXEC, ACT_ZEROIZE)
            assert (zeroize.data, zeroize.latency) == (CODE_OK, 1)
        else:
            await tb.write(CMD, CMD_ZEROIZE | (CMD_PERMUTE if how == "cmd both" else 0))
        assert await tb.read_state() == 0, f"ZEROIZE by {how}"
        await tb.expect_status(0x1F, 0, f"ZEROIZE by {how}: no permutation")
    await tb.write(CMD, CMD_PERMUTE)
    assert await tb.read_state() == keccak_f(0), "CMD[0] permutes"
    # ZEROIZE right after PERMUTE waits for the result, then clears it everywhere.
    await tb.write_state(tb.rng.getrandbits(1600))
    permute = tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
    zeroize = tb.cmd.issue(OP_EXEC, ACT_ZEROIZE)
    await tb.cmd.wait(zeroize)
    assert zeroize.accept_cycle == permute.accept_cycle + n and zeroize.data == CODE_OK
    assert await tb.read_state() == 0
    assert int(dut.u_core.state_o.value) == 0, "the engine's register still holds the result"
    await tb.expect_status(ST_DONE, ST_DONE, "the permutation before ZEROIZE finished")
    # ZEROIZE ends a partial stream block: the next block starts at word 0.
    fn = SHA3_256
    await tb.write(CTRL, fn.rate)
    tb.src.push([tb.rng.getrandbits(32) for _ in range(7)])
    await tb.src.wait_idle()
    assert await tb.action(ACT_ZEROIZE) == CODE_OK
    await tb.expect_status(ST_BUSY, 0, "ZEROIZE ends the partial block")
    msg = tb.rng.randbytes(77)
    check_digest(fn, msg, await tb.hash_stream(fn, msg), "stream after ZEROIZE of a partial block")
    # Reset during a permutation, during a partial block and during an ABSORB.
    for where in ("permutation", "partial block", "absorb"):
        await tb.write(CTRL, fn.rate | CTRL_IRQ_EN)
        await tb.write(LEN, 4 * fn.rate * 2)
        await tb.write_state(tb.rng.getrandbits(1600))
        if where == "permutation":
            tb.cmd.issue(OP_EXEC, ACT_PERMUTE)
            await tb.cycles(1 + n // 2)
        elif where == "partial block":
            tb.src.push([1, 2, 3])
            await tb.src.wait_idle()
        else:
            tb.dma.load(0x5000, tb.rng.randbytes(4 * fn.rate * 2))
            tb.cmd.issue(OP_EXEC, ACT_ABSORB, 0x5000)
            await tb.cycles(40)
        await tb.hard_reset()
        await tb.expect_idle(f"after a reset during a {where}")
        check_digest(fn, msg, await tb.hash_stream(fn, msg), f"stream after a reset during a {where}")
        await tb.clear_status()


@pytest.mark.parametrize("rpc", BUILDS)
def test_keccak(rpc: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RPC_ENV, str(rpc))
    run_cocotb(
        toplevel="couplet_keccak",
        sources=RTL_FILES,
        test_file=__file__,
        build_name=f"keccak_r{rpc}",
        parameters={"RoundsPerCycle": rpc},
    )
