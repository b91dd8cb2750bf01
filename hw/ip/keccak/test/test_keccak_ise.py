"""Tests of couplet_keccak_ise (the kc.* custom instructions of hw/ip/keccak/doc/ise.md).

The Python model of the seven instructions is written from the document. Its interleaving is
checked against bit-string definitions and its rotation rule against 64-bit rotations. A
bit-interleaved Keccak-f[1600] built only from the model's instructions and plain 32-bit XORs
runs the FIPS 202 sponges against hashlib. That shows the instruction set is enough for Keccak
and ties the model to an independent implementation.

The command port carries the instruction raw: op = funct3, index = funct7, op_a = rs1,
op_b = rs2. A driver presents commands with random idle cycles and random rsp_ready. A
per-cycle monitor checks:
  - the handshake (cmd_ready = !rsp_valid || rsp_ready);
  - the timing (a response in the cycle after its command);
  - that a stalled response stays unchanged;
  - every response against the model, including err with data 0 for undefined encodings.
The cocotb test `kc_sha3_on_dut` hashes with every kc.* operation executed by the DUT.

`test_doc_c_example` compiles the library code the document points to (sw/lib/sha3/sha3_ise.c
with the wrappers of keccak_ise.h) for RV32 (encodings and counts) and for the host with C
models of the wrappers (results).

Run: .venv/bin/python -m pytest hw/ip/keccak/test/test_keccak_ise.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import hashlib
import random
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cocotb

from testsupport.accel_port_bfm import StatelessUnitTb
from testsupport.obi_bfm import MASK32

DOC = Path(__file__).resolve().parent.parent / "doc" / "ise.md"
REPO = Path(__file__).resolve().parents[4]
SHA3_LIB = REPO / "sw" / "lib" / "sha3"
ISE_SOURCE = SHA3_LIB / "sha3_ise.c"
# A stand-in for the generated couplet/soc_config.h of a SoC with the kc.* unit.
ISE_SOC_CONFIG = "#define COUPLET_SHA3_HAS_ISE 1\n#define COUPLET_KECCAK_ISE_OPCODE 0x2b\n"

# ------------------------------------------------------------------------------------ model
OPCODE_CUSTOM1 = 0x2B
F3_XROL, F3_ROLX, F3_ANDN, F3_LEAVE = 0, 1, 2, 3
F7_ILEAVE_LO, F7_ILEAVE_HI, F7_DLEAVE_LO, F7_DLEAVE_HI = 0, 1, 2, 3
NUM_DEFINED = 32 + 32 + 1 + 4


def rol32(x: int, n: int) -> int:
    x &= MASK32
    n %= 32
    return (x << n | x >> (32 - n)) & MASK32 if n else x


def kc_xrol(rs1: int, rs2: int, n: int) -> int:
    return rol32(rs1 ^ rs2, n)


def kc_rolx(rs1: int, rs2: int, n: int) -> int:
    return (rs1 ^ rol32(rs2, n)) & MASK32


def kc_andn(rs1: int, rs2: int) -> int:
    return ~rs1 & rs2 & MASK32


def kc_ileave_lo(lo: int, hi: int) -> int:
    """Bit i = bit 2i of the lane {hi, lo}."""
    lane = (hi & MASK32) << 32 | (lo & MASK32)
    return sum((lane >> 2 * i & 1) << i for i in range(32))


def kc_ileave_hi(lo: int, hi: int) -> int:
    """Bit i = bit 2i+1 of the lane {hi, lo}."""
    lane = (hi & MASK32) << 32 | (lo & MASK32)
    return sum((lane >> (2 * i + 1) & 1) << i for i in range(32))


def kc_dleave_lo(even: int, odd: int) -> int:
    """Bit 2i = even[i], bit 2i+1 = odd[i], i < 16."""
    return sum((even >> i & 1) << 2 * i | (odd >> i & 1) << (2 * i + 1) for i in range(16))


def kc_dleave_hi(even: int, odd: int) -> int:
    """Bit 2i = even[16+i], bit 2i+1 = odd[16+i]."""
    return sum((even >> (16 + i) & 1) << 2 * i | (odd >> (16 + i) & 1) << (2 * i + 1) for i in range(16))


LEAVES: dict[int, Callable[[int, int], int]] = {
    F7_ILEAVE_LO: kc_ileave_lo,
    F7_ILEAVE_HI: kc_ileave_hi,
    F7_DLEAVE_LO: kc_dleave_lo,
    F7_DLEAVE_HI: kc_dleave_hi,
}


def execute(funct3: int, funct7: int, rs1: int, rs2: int) -> tuple[int, bool]:
    """(rd, err) of an instruction: err with rd = 0 for anything the document does not define."""
    if funct3 == F3_XROL and funct7 < 32:
        return kc_xrol(rs1, rs2, funct7), False
    if funct3 == F3_ROLX and funct7 < 32:
        return kc_rolx(rs1, rs2, funct7), False
    if funct3 == F3_ANDN and funct7 == 0:
        return kc_andn(rs1, rs2), False
    if funct3 == F3_LEAVE and funct7 in LEAVES:
        return LEAVES[funct7](rs1, rs2), False
    return 0, True


def defined_encodings() -> list[tuple[int, int]]:
    return [(f3, f7) for f3 in range(8) for f7 in range(128) if not execute(f3, f7, 0, 0)[1]]


def encode(funct3: int, funct7: int, rd: int, rs1: int, rs2: int) -> int:
    """The 32-bit R-type instruction word on custom-1."""
    return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | OPCODE_CUSTOM1


# ----------------------------------------------- bit-interleaved Keccak out of kc.* operations
# An Ise runs a batch of independent operations (funct3, funct7, rs1, rs2) and returns their rd,
# so the same Keccak code drives the model and the DUT (where a batch goes back to back).
Op = tuple[int, int, int, int]
Ise = Callable[[Sequence[Op]], Awaitable[list[int]]]
ROUNDS = 24


async def model_ise(ops: Sequence[Op]) -> list[int]:
    results = []
    for op in ops:
        rd, err = execute(*op)
        assert not err, f"the Keccak code used an undefined encoding {op[:2]}"
        results.append(rd)
    return results


def run_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (everything on the model) without an event loop."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    raise AssertionError("the model's coroutine suspended")


def round_constants_64() -> list[int]:
    """RC of each round from FIPS 202's LFSR rc(t) (Algorithms 5 and 6)."""
    def rc_bit(t: int) -> int:
        r = 1
        for _ in range(t % 255):
            r <<= 1
            if r & 0x100:
                r ^= 0x171  # x^8 + x^6 + x^5 + x^4 + 1
        return r & 1

    return [sum(rc_bit(j + 7 * i) << ((1 << j) - 1) for j in range(7)) for i in range(ROUNDS)]


def rho_offsets() -> list[int]:
    """rho's offsets by lane index x + 5y (Algorithm 2's walk from (1, 0))."""
    offsets = [0] * 25
    x, y = 1, 0
    for t in range(24):
        offsets[x + 5 * y] = (t + 1) * (t + 2) // 2 % 64
        x, y = y, (2 * x + 3 * y) % 5
    return offsets


RC64 = round_constants_64()
RHO = rho_offsets()
# The round constants as the software keeps them: a constant table, interleaved once.
RC_IL = [(kc_ileave_lo(rc & MASK32, rc >> 32), kc_ileave_hi(rc & MASK32, rc >> 32)) for rc in RC64]


def rho_ops(a: Sequence[int], d: Sequence[int]) -> list[Op]:
    """theta's A ^= D with rho, in pi's output order: word 10y + 2X (+1) is lane (X, y)."""
    ops: list[Op] = []
    for y in range(5):
        for big_x in range(5):
            x = (big_x + 3 * y) % 5
            i, r = x + 5 * big_x, RHO[x + 5 * big_x]
            if r % 2 == 0:
                ops += [(F3_XROL, r // 2, a[2 * i], d[2 * x]), (F3_XROL, r // 2, a[2 * i + 1], d[2 * x + 1])]
            else:
                ops += [(F3_XROL, (r + 1) // 2, a[2 * i + 1], d[2 * x + 1]),
                        (F3_XROL, (r - 1) // 2, a[2 * i], d[2 * x])]
    return ops


async def keccak_round(run: Ise, a: Sequence[int], rnd: int) -> list[int]:
    """One round on an interleaved state (lane i: even word 2i, odd word 2i+1)."""
    c = [a[w] ^ a[w + 10] ^ a[w + 20] ^ a[w + 30] ^ a[w + 40] for w in range(10)]
    minus, plus = [2 * ((x + 4) % 5) for x in range(5)], [2 * ((x + 1) % 5) for x in range(5)]
    d_even = await run([(F3_ROLX, 1, c[minus[x]], c[plus[x] + 1]) for x in range(5)])
    d = [0] * 10
    for x in range(5):
        d[2 * x], d[2 * x + 1] = d_even[x], c[minus[x] + 1] ^ c[plus[x]]
    b = await run(rho_ops(a, d))
    t = await run([(F3_ANDN, 0, b[10 * y + (w + 2) % 10], b[10 * y + (w + 4) % 10])
                   for y in range(5) for w in range(10)])
    e = [bk ^ tk for bk, tk in zip(b, t)]
    e[0] ^= RC_IL[rnd][0]
    e[1] ^= RC_IL[rnd][1]
    return e


async def keccak_f(run: Ise, state: Sequence[int]) -> list[int]:
    s = list(state)
    for rnd in range(ROUNDS):
        s = await keccak_round(run, s, rnd)
    return s


async def absorb_words(run: Ise, state: Sequence[int], words: Sequence[int]) -> list[int]:
    """XOR plain little-endian lane words (low, high, ...) into the interleaved state."""
    ops: list[Op] = []
    for i in range(len(words) // 2):
        lo, hi = words[2 * i], words[2 * i + 1]
        ops += [(F3_LEAVE, F7_ILEAVE_LO, lo, hi), (F3_LEAVE, F7_ILEAVE_HI, lo, hi)]
    il = await run(ops)
    return [s ^ (il[k] if k < len(il) else 0) for k, s in enumerate(state)]


async def extract_words(run: Ise, state: Sequence[int], lanes: int) -> list[int]:
    ops: list[Op] = []
    for i in range(lanes):
        ops += [(F3_LEAVE, F7_DLEAVE_LO, state[2 * i], state[2 * i + 1]),
                (F3_LEAVE, F7_DLEAVE_HI, state[2 * i], state[2 * i + 1])]
    return await run(ops)


@dataclass(frozen=True)
class Sponge:
    name: str
    rate: int  # bytes
    suffix: int  # domain bits and the first padding bit (FIPS 202 section 6)
    out_len: int

    def reference(self, msg: bytes) -> bytes:
        if self.name.startswith("shake"):
            return hashlib.new(self.name, msg).digest(self.out_len)  # type: ignore[call-arg]
        return hashlib.new(self.name, msg).digest()

    async def digest(self, run: Ise, msg: bytes) -> bytes:
        padded = bytearray(msg) + bytes([self.suffix])
        padded += bytes(-len(padded) % self.rate)
        padded[-1] |= 0x80
        state = [0] * 50
        for at in range(0, len(padded), self.rate):
            block = padded[at : at + self.rate]
            words = [int.from_bytes(block[i : i + 4], "little") for i in range(0, self.rate, 4)]
            state = await keccak_f(run, await absorb_words(run, state, words))
        out = b""
        while True:
            words = await extract_words(run, state, self.rate // 8)
            out += b"".join(w.to_bytes(4, "little") for w in words)
            if len(out) >= self.out_len:
                return out[: self.out_len]
            state = await keccak_f(run, state)


SPONGES = {
    "sha3_224": Sponge("sha3_224", 144, 0x06, 28),
    "sha3_256": Sponge("sha3_256", 136, 0x06, 32),
    "sha3_384": Sponge("sha3_384", 104, 0x06, 48),
    "sha3_512": Sponge("sha3_512", 72, 0x06, 64),
    "shake128": Sponge("shake128", 168, 0x1F, 400),  # three squeeze blocks
    "shake256": Sponge("shake256", 136, 0x1F, 300),
}


def message(length: int) -> bytes:
    return bytes((11 * i + length) & 0xFF for i in range(length))


# ------------------------------------------------------------------------------ testbench
class IseTb(StatelessUnitTb):
    def __init__(self, dut: Any, *, idle_prob: float = 0.0, ready_prob: float = 1.0) -> None:
        super().__init__(dut, execute, idle_prob=idle_prob, ready_prob=ready_prob)

    async def run_ops(self, ops: Sequence[Op]) -> list[int]:
        cmds = [self.port.issue(*op) for op in ops]
        await self.wait_all(cmds, timeout_cycles=50 * len(cmds) + 10)
        assert not any(cmd.err for cmd in cmds)
        return [cmd.data for cmd in cmds]  # type: ignore[misc]


CORNER_WORDS = (0x0000_0000, 0xFFFF_FFFF, 0x0000_0001, 0x8000_0000, 0x5555_5555, 0xAAAA_AAAA, 0x0000_FFFF,
                0xFFFF_0000)


def random_word(rng: random.Random) -> int:
    """Mostly uniform, sometimes a corner value (all-zero, all-one, alternating, one bit)."""
    return rng.choice(CORNER_WORDS) if rng.random() < 0.1 else rng.getrandbits(32)


@cocotb.test()
async def kc_random_differential(dut: Any) -> None:
    """Every defined encoding against the model with random operands, back to back."""
    tb = IseTb(dut)
    await tb.start()
    encodings = [(f3, n) for f3 in (F3_XROL, F3_ROLX) for n in range(32) for _ in range(48)]
    encodings += [(F3_ANDN, 0)] * 600 + [(F3_LEAVE, f7) for f7 in LEAVES for _ in range(300)]
    tb.rng.shuffle(encodings)
    cmds = [tb.port.issue(f3, f7, random_word(tb.rng), random_word(tb.rng)) for f3, f7 in encodings]
    await tb.wait_all(cmds, timeout_cycles=3 * len(cmds))
    accepted = [cmd.accept_cycle for cmd in cmds if cmd.accept_cycle is not None]
    assert len(accepted) == len(cmds)
    cycles = max(accepted) - min(accepted) + 1
    assert cycles == len(cmds), f"{len(cmds)} commands took {cycles} cycles"
    # Model-free spot values, worked out by hand from the document.
    checks = [
        ((F3_XROL, 1, 0x8000_0000, 0x0000_0001), 0x0000_0003),  # rol(0x80000001, 1)
        ((F3_XROL, 4, 0x1234_5678, 0x0000_0000), 0x2345_6781),  # kc.rol32
        ((F3_XROL, 0, 0xF0F0_F0F0, 0xFF00_FF00), 0x0FF0_0FF0),  # n = 0: plain xor
        ((F3_ROLX, 31, 0x0000_000F, 0x0000_0001), 0x8000_000F),
        ((F3_ROLX, 8, 0xFFFF_FFFF, 0x0000_00AB), 0xFFFF_54FF),
        ((F3_ANDN, 0, 0xF0F0_F0F0, 0xFFFF_0000), 0x0F0F_0000),
        ((F3_LEAVE, F7_ILEAVE_LO, 0x5555_5555, 0x5555_5555), 0xFFFF_FFFF),  # all even bits set
        ((F3_LEAVE, F7_ILEAVE_HI, 0x5555_5555, 0x5555_5555), 0x0000_0000),
        ((F3_LEAVE, F7_ILEAVE_LO, 0x0000_0000, 0xFFFF_FFFF), 0xFFFF_0000),  # high word -> bits 16..31
        ((F3_LEAVE, F7_ILEAVE_HI, 0x0000_0002, 0x0000_0000), 0x0000_0001),  # lane bit 1
        ((F3_LEAVE, F7_DLEAVE_LO, 0x0000_FFFF, 0x0000_0000), 0x5555_5555),
        ((F3_LEAVE, F7_DLEAVE_HI, 0x0000_0000, 0xFFFF_0000), 0xAAAA_AAAA),
        ((F3_LEAVE, F7_DLEAVE_HI, 0x0001_0000, 0x0000_0000), 0x0000_0001),  # even bit 16 = lane bit 32
    ]
    for op, want in checks:
        cmd = tb.port.issue(*op)
        await tb.wait_all([cmd], timeout_cycles=10)
        assert cmd.data == want, f"{cmd.describe()}: {cmd.data:#010x} != {want:#010x}"


@cocotb.test()
async def kc_every_encoding(dut: Any) -> None:
    """Every funct3/funct7 pair twice: only the 69 defined encodings answer without err."""
    tb = IseTb(dut, idle_prob=0.2, ready_prob=0.7)
    await tb.start()
    cmds = [tb.port.issue(f3, f7, random_word(tb.rng), random_word(tb.rng))
            for f3 in range(8) for f7 in range(128) for _ in range(2)]
    await tb.wait_all(cmds, timeout_cycles=10 * len(cmds))
    valid = sum(not cmd.err for cmd in cmds)
    assert valid == 2 * NUM_DEFINED, f"{valid} commands answered without err, expected {2 * NUM_DEFINED}"


@cocotb.test()
async def kc_backpressure(dut: Any) -> None:
    """Random rsp_ready and idle gaps; a stalled response holds and blocks the next command."""
    tb = IseTb(dut, idle_prob=0.3, ready_prob=0.4)
    await tb.start()
    encodings = defined_encodings()
    cmds = []
    for _ in range(1500):
        if tb.rng.random() < 0.05:  # mostly defined encodings, some random ones
            f3, f7 = tb.rng.randrange(8), tb.rng.randrange(128)
        else:
            f3, f7 = tb.rng.choice(encodings)
        cmds.append(tb.port.issue(f3, f7, random_word(tb.rng), random_word(tb.rng)))
    await tb.wait_all(cmds, timeout_cycles=20 * len(cmds))
    assert tb.port.stall_cycles > 100, f"only {tb.port.stall_cycles} stalled cycles"
    await tb.check_held_response_blocks((F3_XROL, 13, 0x0123_4567, 0x89AB_CDEF),
                                        (F3_LEAVE, F7_DLEAVE_HI, 0x7654_3210, 0xFEDC_BA98))


@cocotb.test()
async def kc_sha3_on_dut(dut: Any) -> None:
    """SHA3-256 (one and two blocks) and SHAKE128 (two squeezes) with every kc.* operation
    executed by the DUT, against hashlib."""
    tb = IseTb(dut, idle_prob=0.05, ready_prob=0.9)
    await tb.start()
    cases = [(SPONGES["sha3_256"], tb.rng.randbytes(5)), (SPONGES["sha3_256"], tb.rng.randbytes(136)),
             (Sponge("shake128", 168, 0x1F, 200), tb.rng.randbytes(20))]
    for sponge, msg in cases:
        got = await sponge.digest(tb.run_ops, msg)
        want = sponge.reference(msg)
        assert got == want, f"DUT {sponge.name} of {len(msg)} bytes: {got.hex()} != {want.hex()}"


# ------------------------------------------------------------------------- pytest: the model
def test_model_interleaving_definitions() -> None:
    """ileave/dleave against bit strings, and dleave inverting ileave."""
    rng = random.Random(7)
    for _ in range(300):
        lo, hi = rng.getrandbits(32), rng.getrandbits(32)
        bits = format(hi << 32 | lo, "064b")[::-1]  # bits[k] = lane bit k
        even, odd = kc_ileave_lo(lo, hi), kc_ileave_hi(lo, hi)
        assert format(even, "032b")[::-1] == bits[0::2]
        assert format(odd, "032b")[::-1] == bits[1::2]
        assert (kc_dleave_lo(even, odd), kc_dleave_hi(even, odd)) == (lo, hi)


def test_model_rotation_rule() -> None:
    """The doc's rule: a 64-bit rotation by r is two rol32 of the interleaved words."""
    rng = random.Random(8)
    for r in range(64):
        for _ in range(20):
            lane = rng.getrandbits(64)
            want = (lane << r | lane >> (64 - r)) & (1 << 64) - 1 if r else lane
            e, o = kc_ileave_lo(lane & MASK32, lane >> 32), kc_ileave_hi(lane & MASK32, lane >> 32)
            if r % 2 == 0:
                e2, o2 = kc_xrol(e, 0, r // 2), kc_xrol(o, 0, r // 2)
            else:
                e2, o2 = kc_xrol(o, 0, (r + 1) // 2), kc_xrol(e, 0, (r - 1) // 2)
            assert kc_dleave_hi(e2, o2) << 32 | kc_dleave_lo(e2, o2) == want, f"r={r}"


def test_model_defines_69_encodings() -> None:
    assert len(defined_encodings()) == NUM_DEFINED


def test_model_keccak_matches_hashlib() -> None:
    """The interleaved Keccak made of model instructions, in every FIPS 202 sponge."""
    for sponge in SPONGES.values():
        for length in (0, 1, sponge.rate - 1, sponge.rate, sponge.rate + 1, 2 * sponge.rate + 5):
            msg = message(length)
            got = run_sync(sponge.digest(model_ise, msg))
            assert got == sponge.reference(msg), f"model {sponge.name} of {length} bytes"


# The X-IF port's mask/match pairs for this unit (hw/ip/keccak/doc/ise.md).
MASK_WHOLE, MATCH_WHOLE = 0x0000_007F, 0x0000_002B
MASK_TIGHT, MATCH_TIGHT = 0xC000_407F, 0x0000_002B


def test_port_mask_match() -> None:
    """Both pairs claim every defined encoding; the tight one exactly funct3 0..3 with
    funct7[6:5] = 0; neither claims another major opcode."""
    defined = set(defined_encodings())
    for f7 in range(128):
        for f3 in range(8):
            instr = encode(f3, f7, rd=5, rs1=6, rs2=7)
            assert instr & MASK_WHOLE == MATCH_WHOLE
            tight = instr & MASK_TIGHT == MATCH_TIGHT
            assert tight == (f3 < 4 and f7 < 32), f"funct3={f3} funct7={f7:#x}"
            if (f3, f7) in defined:
                assert tight
    for opcode in (0x0B, 0x33, 0x5B, 0x7B):  # custom-0, OP, custom-2, custom-3
        instr = encode(F3_XROL, 1, 5, 6, 7) & ~0x7F | opcode
        assert instr & MASK_WHOLE != MATCH_WHOLE and instr & MASK_TIGHT != MATCH_TIGHT


def cross_tool(name: str) -> str:
    from couplet import paths

    tool = shutil.which(f"{paths.CROSS_PREFIX}{name}")
    if tool is None:
        raise AssertionError(f"{paths.CROSS_PREFIX}{name} not installed: run ./bootstrap.sh")
    return tool


def instruction_words(objdump_text: str) -> dict[str, list[int]]:
    """The 32-bit instruction words of each function in `objdump -d` output."""
    words: dict[str, list[int]] = {}
    current = ""
    for line in objdump_text.splitlines():
        # GCC may clone a function under a suffixed name (kc_extract.constprop.0): count it
        # under the plain name.
        label = re.match(r"^[0-9a-f]+ <([A-Za-z_]\w*)(?:\.[\w.]+)?>:", line)
        if label:
            current = label.group(1)
            words.setdefault(current, [])
            continue
        insn = re.match(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", line)
        if insn and current:
            words[current].append(int(insn.group(1), 16))
    return words


def test_encodings_match_assembler(tmp_path: Path) -> None:
    """The `.insn` forms of the document assemble to the encodings of the model."""
    encodings = defined_encodings()
    lines = [f".insn r 0x2B, {f3}, {f7}, a0, a1, a2" for f3, f7 in encodings]
    src, obj = tmp_path / "kc.s", tmp_path / "kc.o"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cross_tool("as"), "-march=rv32imac", str(src), "-o", str(obj)], check=True)
    dump = subprocess.run([cross_tool("objdump"), "-d", str(obj)], check=True, capture_output=True,
                          text=True).stdout
    got = [int(m.group(1), 16) for m in re.finditer(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", dump, re.M)]
    assert got == [encode(f3, f7, rd=10, rs1=11, rs2=12) for f3, f7 in encodings]


# ------------------------------------------------------------------ pytest: the library's C code
HOST_WRAPPERS_C = r"""
#include <stdint.h>

#define KC_HOST_MODELS 1
#define KC_INLINE static inline

static uint32_t kc_rol32(uint32_t x, unsigned n) {
  n &= 31u;
  return n ? (x << n) | (x >> (32u - n)) : x;
}
KC_INLINE uint32_t kc_xrol(uint32_t rs1, uint32_t rs2, unsigned n) { return kc_rol32(rs1 ^ rs2, n); }
KC_INLINE uint32_t kc_rolx(uint32_t rs1, uint32_t rs2, unsigned n) { return rs1 ^ kc_rol32(rs2, n); }
KC_INLINE uint32_t kc_andn(uint32_t rs1, uint32_t rs2) { return ~rs1 & rs2; }
static uint32_t kc_pick(uint64_t lane, unsigned k) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 32u; ++i) r |= (uint32_t)(lane >> (2u * i + k) & 1u) << i;
  return r;
}
static uint64_t kc_merge(uint32_t even, uint32_t odd) {
  uint64_t r = 0;
  for (unsigned i = 0; i < 32u; ++i) {
    r |= (uint64_t)(even >> i & 1u) << (2u * i) | (uint64_t)(odd >> i & 1u) << (2u * i + 1u);
  }
  return r;
}
KC_INLINE uint32_t kc_ileave_lo(uint32_t lo, uint32_t hi) { return kc_pick((uint64_t)hi << 32 | lo, 0u); }
KC_INLINE uint32_t kc_ileave_hi(uint32_t lo, uint32_t hi) { return kc_pick((uint64_t)hi << 32 | lo, 1u); }
KC_INLINE uint32_t kc_dleave_lo(uint32_t even, uint32_t odd) { return (uint32_t)kc_merge(even, odd); }
KC_INLINE uint32_t kc_dleave_hi(uint32_t even, uint32_t odd) { return (uint32_t)(kc_merge(even, odd) >> 32); }
"""

# Reads 50 plain words (25 lanes, low word first), absorbs them into a zero state, permutes
# twice, and prints the interleaved state and the extracted plain words (out of place, then in
# place as the backend does).
HOST_MAIN_C = r"""
#include <stdio.h>
int main(void) {
  uint32_t in[50], state[50] = {0}, tmp[50], out[50];
  for (unsigned i = 0; i < 50u; ++i) {
    if (scanf("%x", &in[i]) != 1) return 1;
  }
  kc_absorb(state, in, 25u);
  kc_keccak_f1600(state, tmp);
  kc_keccak_f1600(state, tmp);
  for (unsigned i = 0; i < 50u; ++i) printf("%08x\n", state[i]);
  kc_extract(state, out, 25u);
  for (unsigned i = 0; i < 50u; ++i) printf("%08x\n", out[i]);
  kc_extract(state, state, 25u);
  kc_interleave(state);
  for (unsigned i = 0; i < 50u; ++i) printf("%08x\n", state[i]);
  return 0;
}
"""


def library_include_args(tmp_path: Path) -> list[str]:
    """-I flags for the library file: the SDK headers, a stand-in soc_config.h, the library."""
    include = tmp_path / "include"
    (include / "couplet").mkdir(parents=True, exist_ok=True)
    (include / "couplet" / "soc_config.h").write_text(ISE_SOC_CONFIG)
    return [f"-I{REPO / 'sw' / 'include'}", f"-I{include}", f"-I{SHA3_LIB}"]


def used_shift_amounts() -> set[int]:
    """kc.xrol's n over a round: the halves of each nonzero rho offset, without 0."""
    amounts = set()
    for r in RHO:
        amounts |= {r // 2} if r % 2 == 0 else {(r + 1) // 2, (r - 1) // 2}
    return amounts - {0}


def test_doc_c_example(tmp_path: Path) -> None:
    """The library code the document points to (sw/lib/sha3/sha3_ise.c, keccak_ise.h): with the
    SDK's flags for RV32 it uses only defined encodings and the counted ones (47 xrol, 5 rolx and
    50 andn per round); on the host, with C models of the wrappers, absorb + two permutations +
    extract match the Python model, and interleaving in place undoes extracting in place."""
    from couplet.tools.firmware import COMMON_CFLAGS, OPT_CFLAGS, WARN_CFLAGS

    assert "sw/lib/sha3/sha3_ise.c" in DOC.read_text(), "the document must point to the library code"
    includes = library_include_args(tmp_path)
    obj = tmp_path / "sha3_ise_rv32.o"
    proc = subprocess.run([cross_tool("gcc"), *COMMON_CFLAGS, *OPT_CFLAGS, *WARN_CFLAGS, "-Wpedantic", *includes,
                           "-c", str(ISE_SOURCE), "-o", str(obj)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    dump = subprocess.run([cross_tool("objdump"), "-d", str(obj)], check=True, capture_output=True,
                          text=True).stdout
    per_function = {
        name: Counter((w >> 12 & 7, w >> 25) for w in words if w & 0x7F == OPCODE_CUSTOM1)
        for name, words in instruction_words(dump).items()
    }
    defined = set(defined_encodings())
    for name, counts in per_function.items():
        assert set(counts) <= defined, f"{name}: undefined encodings {set(counts) - defined}"
    perm = per_function["kc_keccak_f1600"]
    rounds = perm[(F3_ANDN, 0)] // 50
    assert rounds >= 1 and perm[(F3_ANDN, 0)] == 50 * rounds
    assert sum(v for (f3, _), v in perm.items() if f3 == F3_XROL) == 47 * rounds
    assert perm[(F3_ROLX, 1)] == 5 * rounds and sum(perm.values()) == 102 * rounds
    assert {f7 for f3, f7 in perm if f3 == F3_XROL} == used_shift_amounts()
    assert set(per_function["kc_absorb"]) == {(F3_LEAVE, F7_ILEAVE_LO), (F3_LEAVE, F7_ILEAVE_HI)}
    assert set(per_function["kc_extract"]) == {(F3_LEAVE, F7_DLEAVE_LO), (F3_LEAVE, F7_DLEAVE_HI)}

    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc is not None, "no host C compiler: ./bootstrap.sh installs gcc"
    host_src, host_exe = tmp_path / "kc_host.c", tmp_path / "kc_host"
    host_src.write_text(HOST_WRAPPERS_C + f'#include "{ISE_SOURCE}"\n' + HOST_MAIN_C)
    proc = subprocess.run([cc, "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", *includes, str(host_src), "-o",
                           str(host_exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rng = random.Random(9)
    plain = [rng.getrandbits(32) for _ in range(50)]
    run = subprocess.run([str(host_exe)], input="\n".join(f"{w:08x}" for w in plain), capture_output=True,
                         text=True, check=True)
    got = [int(line, 16) for line in run.stdout.split()]
    state = run_sync(absorb_words(model_ise, [0] * 50, plain))
    state = run_sync(keccak_f(model_ise, run_sync(keccak_f(model_ise, state))))
    assert got[:50] == state, "interleaved state after absorb and two permutations"
    assert got[50:100] == run_sync(extract_words(model_ise, state, 25)), "extracted words"
    assert got[100:] == state, "extract in place, then interleave in place, gives the state back"


# ----------------------------------------------------------------------------- pytest: RTL
def test_keccak_ise() -> None:
    from couplet import paths
    from couplet.model import rtl
    from couplet.tools.cocotb_run import run_cocotb

    run_cocotb(
        toplevel="couplet_keccak_ise",
        sources=[
            *rtl.accel_port_sources(),
            paths.IP_DIR / "keccak" / "rtl" / "couplet_keccak_ise.sv",
        ],
        test_file=__file__,
        build_name="keccak_ise",
    )
