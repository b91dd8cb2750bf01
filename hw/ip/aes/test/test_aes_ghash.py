"""cocotb tests of couplet_aes_ghash (S <= (S xor X) * H in GF(2^128)), one build per BitsPerCycle.

The golden model is GCM's multiplication written here from SP 800-38D section 6.3 (Algorithm 1,
bit by bit), on blocks as bytes in memory order; a port carries byte i in bits [8*i +: 8]. The
model is anchored without the design: by the GHASH of the McGrew-Viega GCM test case 2, by
pycryptodome's AES-GCM tags (tag = GHASH xor AES_K(J0)) and by a product worked out by hand
(x^127 * x = x^7 + x^2 + x + 1, the block R).

A per-cycle checker (`GhashChecker`) follows every handshake and S write and checks, on every
cycle of every test:
  - with a handshake in cycle c, busy_o is high in cycles c+1 .. c+N (N = 128 / BitsPerCycle)
    and low otherwise, unless the next block is taken in cycle c+N;
  - in_ready_o is high exactly when busy_o is low and in a block's last busy cycle (c+N), so
    blocks go back to back at one every N cycles;
  - s_o equals the model's S in every cycle with busy_o low (so right when busy_o falls);
  - the testbench holds h_i while busy_o (the module's contract).
s_we_i in a handshake cycle is lost (the block absorbs into the S before it), as documented.

Run: .venv/bin/python -m pytest hw/ip/aes/test/test_aes_ghash.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import os
import random
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import cocotb
import pytest
from Crypto.Cipher import AES

from couplet.tools.cocotb_run import run_cocotb
from testsupport.obi_bfm import ClockedTb, Monitor

BITS_ENV = "COUPLET_AES_GHASH_BITS"  # the build's BitsPerCycle, passed from the pytest side
BUILDS = (1, 8, 16, 128)
RTL_DIR = Path(__file__).resolve().parents[1] / "rtl"
RTL_FILES = ("couplet_aes_ghash.sv",)

R = 0xE1 << 120  # x^7 + x^2 + x + 1 in GCM's reflected bit order (SP 800-38D 6.3)

# McGrew-Viega GCM test case 2 (K = 0^128, P = 0^128, IV = 0^96): H, C and GHASH(H, {}, C).
TC2_H = "66e94bd4ef8a2c3b884cfa59ca342b2e"
TC2_C = "0388dace60b6a392f328c2b971b2fe78"
TC2_GHASH = "f38cbb1ad69223dcc3457ae5b6b0f885"


# ------------------------------------------------------------------------------- golden model
def gf_mult(x: bytes, y: bytes, r: int = R) -> bytes:
    """X * Y in GF(2^128), SP 800-38D Algorithm 1: bit i of a block is bit 7 - i % 8 of byte
    i // 8, the coefficient of x^i; V = Y * x^i, and V * x is a right shift in this order, with
    R added when the coefficient of x^127 (bit 127, the last) falls off. `r` is only for showing
    that a test tells a wrong reduction."""
    xi, v, z = int.from_bytes(x, "big"), int.from_bytes(y, "big"), 0
    for i in range(128):
        if (xi >> (127 - i)) & 1:
            z ^= v
        v = (v >> 1) ^ (r if v & 1 else 0)
    return z.to_bytes(16, "big")


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(p ^ q for p, q in zip(a, b))


def ghash(h: bytes, blocks: list[bytes], s: bytes = bytes(16)) -> bytes:
    for block in blocks:
        s = gf_mult(xor(s, block), h)
    return s


def gcm_ghash_input(aad: bytes, ct: bytes) -> list[bytes]:
    """GCM's GHASH input: A and C each padded to whole blocks, then [len(A)]64 || [len(C)]64."""
    def padded(data: bytes) -> bytes:
        return data + bytes(-len(data) % 16)
    data = padded(aad) + padded(ct) + (8 * len(aad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big")
    return [data[i:i + 16] for i in range(0, len(data), 16)]


def to_int(block: bytes) -> int:
    """Byte i of the block goes to bits [8*i +: 8] (the project's port order)."""
    return int.from_bytes(block, "little")


def to_bytes(value: int) -> bytes:
    return value.to_bytes(16, "little")


def monomial(degree: int) -> bytes:
    """The block of x^degree: bit 7 - degree % 8 of byte degree // 8."""
    block = bytearray(16)
    block[degree // 8] = 0x80 >> (degree % 8)
    return bytes(block)


# Products that need the reduction, as (X, H, X * H). x^127 * x = x^128 = x^7 + x^2 + x + 1, the
# block R; the others have H's coefficient of x^127 (the top bit) set and come from the model.
def reduction_vectors(rng: random.Random) -> list[tuple[bytes, bytes, bytes]]:
    vectors = [(monomial(1), monomial(127), bytes.fromhex("e1" + "00" * 15))]
    tops = [monomial(127), bytes([0xFF] * 16)]
    tops += [bytes(rng.randbytes(15)) + bytes([rng.randrange(256) | 0x01]) for _ in range(6)]
    for h in tops:
        for x in (monomial(1), monomial(127), bytes([0xFF] * 16), rng.randbytes(16)):
            vectors.append((x, h, gf_mult(x, h)))
    return vectors


def test_model_known_answer() -> None:
    """GHASH of GCM test case 2 (A empty, C one block, then the length block); x^127 * x = R."""
    h = bytes.fromhex(TC2_H)
    assert AES.new(bytes(16), AES.MODE_ECB).encrypt(bytes(16)) == h
    assert ghash(h, gcm_ghash_input(b"", bytes.fromhex(TC2_C))) == bytes.fromhex(TC2_GHASH)
    assert gf_mult(monomial(1), monomial(127)) == bytes.fromhex("e1" + "00" * 15)
    assert gf_mult(monomial(0), monomial(127)) == monomial(127)  # 1 is the unit: bit 0 is byte 0's MSB


def test_model_against_pycryptodome() -> None:
    """The model's GHASH of GCM's input gives pycryptodome's tag: tag = GHASH xor AES_K(J0)."""
    rng = random.Random(0x6C4)
    for _ in range(12):
        key = rng.randbytes(rng.choice((16, 24, 32)))
        nonce = rng.randbytes(12)
        aad, text = rng.randbytes(rng.randrange(0, 50)), rng.randbytes(rng.randrange(1, 80))
        cipher = AES.new(key, AES.MODE_GCM, nonce=nonce)
        cipher.update(aad)
        ct, tag = cipher.encrypt_and_digest(text)
        ecb = AES.new(key, AES.MODE_ECB)
        h, ek_j0 = ecb.encrypt(bytes(16)), ecb.encrypt(nonce + b"\x00\x00\x00\x01")
        assert xor(ghash(h, gcm_ghash_input(aad, ct)), ek_j0) == tag


def test_reduction_vectors_detect_a_wrong_reduction() -> None:
    """Every polynomial one term away from P gives different products on reduction_vectors, so
    the RTL test that uses them fails on such a reduction (and on none at all)."""
    vectors = reduction_vectors(random.Random(1))
    for wrong in [0, *(R ^ (1 << (127 - t)) for t in range(8))]:
        assert any(gf_mult(x, h, wrong) != want for x, h, want in vectors), f"R = {wrong:#x} undetected"


# ------------------------------------------------------------------------------- testbench
def bits_per_cycle() -> int:
    return int(os.environ[BITS_ENV])


@dataclass
class Stats:
    blocks: int = 0
    back_to_back: int = 0  # blocks taken in the last busy cycle of the one before
    writes: int = 0
    lost_writes: int = 0  # s_we_i with a handshake in the same cycle
    hs_cycles: list[int] = field(default_factory=list)


class GhashChecker:
    """Per-cycle golden model of the multiplier's handshake, busy_o and S (see module doc)."""

    def __init__(self, dut, steps: int) -> None:
        self.dut = dut
        self.steps = steps
        self.s = bytes(16)  # S after every block taken so far and every write
        self.busy_to: int | None = None  # the last busy cycle of the block in flight
        self.block_h: int | None = None
        self.stats = Stats()

    def busy(self, cycle: int) -> bool:
        return self.busy_to is not None and cycle <= self.busy_to

    def sample(self, cycle: int) -> None:
        dut = self.dut
        v = {name: int(getattr(dut, name).value) for name in ("in_valid_i", "in_ready_o", "s_we_i", "busy_o")}
        where = f"cycle {cycle}"
        busy = self.busy(cycle)
        assert v["busy_o"] == busy, f"{where}: busy_o {v['busy_o']}, expected {int(busy)}"
        ready = not busy or cycle == self.busy_to
        assert v["in_ready_o"] == ready, f"{where}: in_ready_o {v['in_ready_o']}, expected {int(ready)}"
        h = int(dut.h_i.value)
        if busy:
            assert h == self.block_h, f"{where}: testbench changed h_i while busy"
        else:
            got = to_bytes(int(dut.s_o.value))
            assert got == self.s, f"{where}: s_o {got.hex()}, expected {self.s.hex()}"

        # This cycle's handshake and write take effect after the checks above.
        if v["in_valid_i"] and v["in_ready_o"]:
            if self.busy_to == cycle:
                self.stats.back_to_back += 1
            if v["s_we_i"]:
                self.stats.lost_writes += 1
            x = to_bytes(int(dut.in_data_i.value))
            self.s = gf_mult(xor(self.s, x), to_bytes(h))
            self.busy_to = cycle + self.steps
            self.block_h = h
            self.stats.blocks += 1
            self.stats.hs_cycles.append(cycle)
        elif v["s_we_i"]:
            assert not busy, f"{where}: testbench wrote S while busy"
            self.s = to_bytes(int(dut.s_i.value))
            self.stats.writes += 1


@dataclass
class Item:
    """One thing for the driver to do: a block (x), an S write (s), both in one cycle, or a new H."""

    x: int | None = None
    s: int | None = None
    h: int | None = None


class Driver:
    """Drives blocks with random gaps, S writes and H changes, only in cycles the contract
    allows: a write or a new H only in a cycle with busy_o low, H held while busy."""

    def __init__(self, dut, rng: random.Random) -> None:
        self.dut = dut
        self.rng = rng
        self.queue: deque[Item] = deque()
        self.current: int | None = None  # the block on in_data_i, until taken
        self.accepted = False
        self.idle_next = True  # busy_o will be low in the next cycle
        self.gap_prob = 0.0

    def reset_values(self) -> None:
        dut = self.dut
        dut.in_valid_i.value = 0
        dut.in_data_i.value = 0
        dut.s_we_i.value = 0
        dut.s_i.value = 0
        dut.h_i.value = 0

    def sample(self, cycle: int) -> None:
        dut = self.dut
        valid, ready, busy = (int(getattr(dut, n).value) for n in ("in_valid_i", "in_ready_o", "busy_o"))
        self.accepted = bool(valid and ready)
        # busy_o next cycle: a block taken now, or one still with steps left (not ready).
        self.idle_next = not (self.accepted or (busy and not ready))

    def drive(self, cycle: int) -> None:
        dut = self.dut
        if self.accepted:
            self.current = None
        write: int | None = None
        if self.current is None and self.queue and self.rng.random() >= self.gap_prob:
            head = self.queue[0]
            if head.s is None and head.h is None:
                self.current = self.queue.popleft().x
            elif self.idle_next:
                self.queue.popleft()
                if head.h is not None:
                    dut.h_i.value = head.h
                write = head.s
                self.current = head.x
        # Junk on the data ports whenever they are not valid: sampled only with their strobes.
        dut.s_we_i.value = int(write is not None)
        dut.s_i.value = write if write is not None else self.rng.getrandbits(128)
        dut.in_valid_i.value = int(self.current is not None)
        dut.in_data_i.value = self.current if self.current is not None else self.rng.getrandbits(128)

    @property
    def idle(self) -> bool:
        return not self.queue and self.current is None


class GhashTb(ClockedTb):
    def __init__(self, dut) -> None:
        super().__init__(dut)
        self.bits = bits_per_cycle()
        self.steps = 128 // self.bits
        self.checker = GhashChecker(dut, self.steps)
        self.driver = Driver(dut, self.rng)
        self.add(self.driver, Monitor(self.checker.sample))

    async def start(self) -> None:
        await self.reset()
        await self.sample_point()
        dut = self.dut
        assert int(dut.busy_o.value) == 0, "busy_o high after reset"
        assert int(dut.in_ready_o.value) == 1, "in_ready_o low after reset"
        assert int(dut.s_o.value) == 0, "S not zero after reset"

    async def run(self, items: list[Item], gap: float = 0.0) -> None:
        """Queue `items` and wait until the last block is done (busy_o low)."""
        self.driver.gap_prob = gap
        self.driver.queue.extend(items)
        limit = 50 + len(items) * (self.steps + 2) * (1 + int(10 * gap))
        for _ in range(limit):
            await self.sample_point()
            if self.driver.idle and not self.checker.busy(self.cycle):
                return
        raise AssertionError(f"items not done in {limit} cycles")

    def s(self) -> bytes:
        return to_bytes(int(self.dut.s_o.value))

    def log_stats(self) -> None:
        st = self.checker.stats
        self.dut._log.info("BitsPerCycle %d: %d blocks (%d back to back), %d S writes, %d writes lost to a block",
                           self.bits, st.blocks, st.back_to_back, st.writes, st.lost_writes)


def blocks(values: list[bytes]) -> list[Item]:
    return [Item(x=to_int(v)) for v in values]


@cocotb.test()
async def aes_ghash_known_answer(dut):
    """GCM test case 2's GHASH through the RTL, from S = 0 after reset, then again after an S write."""
    tb = GhashTb(dut)
    await tb.start()
    h = bytes.fromhex(TC2_H)
    data = gcm_ghash_input(b"", bytes.fromhex(TC2_C))
    await tb.run([Item(h=to_int(h))] + blocks(data))
    assert tb.s() == bytes.fromhex(TC2_GHASH), f"GHASH {tb.s().hex()}"
    await tb.run([Item(s=0)] + blocks(data), gap=0.5)
    assert tb.s() == bytes.fromhex(TC2_GHASH), f"GHASH after a write of S {tb.s().hex()}"
    tb.log_stats()


@cocotb.test()
async def aes_ghash_reduction(dut):
    """Products that need the reduction (H with its x^127 coefficient set); x^127 * x gives R.
    A wrong reduction polynomial fails these (test_reduction_vectors_detect_a_wrong_reduction)."""
    tb = GhashTb(dut)
    await tb.start()
    for x, h, want in reduction_vectors(random.Random(1)):
        await tb.run([Item(h=to_int(h), s=0), Item(x=to_int(x))])
        assert tb.s() == want, f"X {x.hex()} * H {h.hex()}: got {tb.s().hex()}, expected {want.hex()}"
    tb.log_stats()


@cocotb.test()
async def aes_ghash_back_to_back(dut):
    """A gap-free stream is taken at exactly one block every 128 / BitsPerCycle cycles."""
    tb = GhashTb(dut)
    await tb.start()
    count = 12
    await tb.run([Item(h=tb.rng.getrandbits(128), s=tb.rng.getrandbits(128))] +
                 blocks([tb.rng.randbytes(16) for _ in range(count)]))
    hs = tb.checker.stats.hs_cycles
    assert hs == list(range(hs[0], hs[0] + count * tb.steps, tb.steps)), f"handshakes in cycles {hs}"
    assert tb.checker.stats.back_to_back == count - 1
    tb.log_stats()


@cocotb.test()
async def aes_ghash_random(dut):
    """Random H, S writes and blocks, with random gaps and back to back; a write in the cycle of
    a handshake now and then (lost, as documented). Every result is checked against the model."""
    tb = GhashTb(dut)
    await tb.start()
    rng = tb.rng
    blocks_per_run = max(12, 1024 // tb.steps)
    for run in range(6):
        items = [Item(h=rng.getrandbits(128)), Item(s=rng.getrandbits(128))]
        for _ in range(blocks_per_run):
            choice = rng.random()
            if choice < 0.08:
                items.append(Item(s=rng.getrandbits(128)))
            elif choice < 0.12:
                items.append(Item(x=rng.getrandbits(128), s=rng.getrandbits(128)))
            items.append(Item(x=rng.getrandbits(128)))
        items.insert(rng.randrange(2, len(items)), Item(x=rng.getrandbits(128), s=rng.getrandbits(128)))
        await tb.run(items, gap=(0.0, 0.3, 0.8)[run % 3])
    st = tb.checker.stats
    assert st.back_to_back > 0 and st.lost_writes > 0 and st.writes > 0, f"stimulus too thin: {st}"
    tb.log_stats()


# ------------------------------------------------------------------------------- pytest side


@pytest.mark.parametrize("bits", BUILDS)
def test_aes_ghash(bits: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BITS_ENV, str(bits))
    run_cocotb(
        toplevel="couplet_aes_ghash",
        sources=[RTL_DIR / name for name in RTL_FILES],
        test_file=__file__,
        build_name=f"aes_ghash_{bits}",
        parameters={"BitsPerCycle": bits},
    )
