"""cocotb tests of couplet_aes_core, built once per architecture (ROLLED, PARTIAL, UNROLLED).

The golden model is pycryptodome's AES in ECB mode, keyed with the key bytes sampled from the
design's key port (byte i = key_i[8*i +: 8]; only the first 16/24/32 bytes count, which the
testbench holds from key_valid_i until the next key or clear, as the core requires; the rest
carries junk). A per-cycle checker (`CoreChecker`) follows every handshake and checks, on every
cycle of every test:
  - each result against the model, in order, and that out_data_o is held while stalled;
  - key expansion timing: with key_valid_i in cycle c, key_ready_o is low in cycles c+1 ..
    c+N-1 and high from cycle c+N (N = 10, 8, 7 for 128, 192, 256 bits), until the next
    key_valid_i or clear_i;
  - busy_o = expansion running, or a block accepted and its result not yet taken;
  - in_ready_o only with a ready key; ROLLED/PARTIAL: exactly when the key is ready and no
    block is in flight or, with Handover, the one in flight leaves in this cycle
    (out_valid_o && out_ready_i);
    UNROLLED: always when the key is ready and out_ready_i is high;
  - block latency (in handshake to out_valid_o): at most Nr (ROLLED) or Nr/2 (PARTIAL),
    at least Nr (UNROLLED, more only after back-pressure); the timing test wants it exact.
The FIPS-197 Appendix C vectors are typed in from the standard, independent of the model.

Run: .venv/bin/python -m pytest hw/ip/aes/test/test_aes_core.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import FallingEdge, RisingEdge
from Crypto.Cipher import AES

from couplet.model.regs import load_ip_regs
from couplet.tools.cocotb_run import run_cocotb
from testsupport.obi_bfm import ClockedTb, Monitor

ARCH_ENV = "COUPLET_AES_CORE_ARCH"  # the build's Arch, passed from the pytest side
HANDOVER_ENV = "COUPLET_AES_CORE_HANDOVER"  # the build's Handover (1 or 0)
# The engine's build parameter Arch, as hw/ip/aes/data/aes.toml describes it.
ARCH_SET = load_ip_regs("aes").enum("arch")
ARCHS = {v.name: v.value for v in ARCH_SET.values}
ROLLED, PARTIAL, UNROLLED = (ARCHS[name] for name in ("rolled", "partial", "unrolled"))
RTL_DIR = Path(__file__).resolve().parents[1] / "rtl"
RTL_FILES = ("autogen/aes_reg_pkg.sv", "couplet_aes_pkg.sv", "couplet_aes_sbox.sv",
             "couplet_aes_round.sv", "couplet_aes_key_step.sv", "couplet_aes_key_expand.sv", "couplet_aes_core.sv")


@dataclass(frozen=True)
class KeyLen:
    bits: int
    code: int  # key_len_i
    rounds: int  # Nr
    expand_cycles: int  # spec: Nk words per cycle

    @property
    def nbytes(self) -> int:
        return self.bits // 8


KEY_LENS = {
    bits: KeyLen(bits, load_ip_regs("aes").value("key_len", str(bits)), rounds, cycles)
    for bits, rounds, cycles in ((128, 10, 10), (192, 12, 8), (256, 14, 7))
}
KEY_BY_CODE = {k.code: k for k in KEY_LENS.values()}

# FIPS-197 Appendix C: (key, plaintext, ciphertext), bytes in FIPS order.
FIPS197_PLAIN = "00112233445566778899aabbccddeeff"
FIPS197_C = {
    128: ("000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"),
    192: ("000102030405060708090a0b0c0d0e0f1011121314151617", "dda97ca4864cdfe06eaf70a0ec0d7191"),
    256: ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
          "8ea2b7ca516745bfeafc49904b496089"),
}


def arch() -> int:
    return int(os.environ[ARCH_ENV])


def handover() -> bool:
    return os.environ[HANDOVER_ENV] == "1"


def to_int(data: bytes) -> int:
    """Byte i of `data` goes to bits [8*i +: 8]."""
    return int.from_bytes(data, "little")


def to_bytes(value: int, nbytes: int = 16) -> bytes:
    return value.to_bytes(nbytes, "little")


def latency_bound(arch_value: int, key: KeyLen) -> int:
    return key.rounds // 2 if arch_value == PARTIAL else key.rounds


SBOX = [0] * 256


def _sbox() -> None:
    """The AES S-box from its definition (inverse in GF(2^8), then the affine map)."""
    def mul(a: int, b: int) -> int:
        r = 0
        while b:
            if b & 1:
                r ^= a
            a = ((a << 1) ^ 0x11B) if a & 0x80 else a << 1
            b >>= 1
        return r
    for x in range(256):
        inv = next((y for y in range(1, 256) if mul(x, y) == 1), 0)
        s = inv
        for shift in range(1, 5):
            s ^= ((inv << shift) | (inv >> (8 - shift))) & 0xFF
        SBOX[x] = s ^ 0x63


_sbox()


def key_schedule(key: bytes) -> list[int]:
    """FIPS-197 5.2: the 4*(Nr+1) words of `key`'s schedule, word i = bytes 4i..4i+3 as a
    little-endian int (column order of the design's round keys)."""
    nk = len(key) // 4
    total = 4 * (KEY_LENS[len(key) * 8].rounds + 1)
    words = [int.from_bytes(key[4 * i:4 * i + 4], "little") for i in range(nk)]
    rcon = 1
    for i in range(nk, total):
        t = words[i - 1]
        if i % nk == 0:
            t = (t >> 8) | ((t & 0xFF) << 24)  # RotWord: byte 0 moves to the top
            t = int.from_bytes(bytes(SBOX[b] for b in t.to_bytes(4, "little")), "little") ^ rcon
            rcon = (rcon << 1) ^ (0x11B if rcon & 0x80 else 0)
        elif nk == 8 and i % nk == 4:
            t = int.from_bytes(bytes(SBOX[b] for b in t.to_bytes(4, "little")), "little")
        words.append(words[i - nk] ^ t)
    return words


BANKS = 8  # couplet_aes_key_expand's banked schedule: word p in bank p % 8 at address p / 8
BANK_DEPTH = 8


def stored_words(dut) -> list[int]:
    """What the banked schedule's RAM holds, word p at index p."""
    expand = dut.gen_key_stored.u_key_expand.gen_banked
    return [int(expand.gen_bank[p % BANKS].mem[p // BANKS].value) for p in range(BANKS * BANK_DEPTH)]


@dataclass
class Block:
    expected: int
    in_cycle: int
    decrypt: bool
    key: KeyLen
    valid_cycle: int | None = None


@dataclass
class Stats:
    latencies: dict[tuple[int, bool], set[int]] = field(default_factory=dict)
    expand_cycles: dict[int, set[int]] = field(default_factory=dict)
    blocks: int = 0


class CoreChecker:
    """Per-cycle golden model of the core's handshakes, timing and results (see module doc)."""

    def __init__(self, dut, arch_value: int) -> None:
        self.dut = dut
        self.arch = arch_value
        self.cipher = None
        self.key: KeyLen | None = None
        self.key_valid_cycle = 0
        self.ready_at: int | None = None  # cycle from which key_ready_o must be high
        self.key_bytes = b""  # key_i's key bytes, held from key_valid_i on
        self.pending: deque[Block] = deque()
        self.held: int | None = None  # out_data_o of a stalled result
        self.stats = Stats()
        self.results: list[int] = []
        self.stall_seen = False  # back-pressure while a block was in flight (UNROLLED latency)

    def _expanding(self, cycle: int) -> bool:
        return self.ready_at is not None and cycle < self.ready_at

    def _key_ready(self, cycle: int) -> bool:
        return self.ready_at is not None and cycle >= self.ready_at

    def sample(self, cycle: int) -> None:
        dut = self.dut
        v = {name: int(getattr(dut, name).value) for name in (
            "key_valid_i", "key_ready_o", "clear_i", "in_valid_i", "in_ready_o", "decrypt_i",
            "out_valid_o", "out_ready_i", "busy_o")}
        where = f"cycle {cycle}"
        key_ready = self._key_ready(cycle)
        if self.ready_at is not None and cycle == self.ready_at:
            self.stats.expand_cycles.setdefault(self.key.bits, set()).add(cycle - self.key_valid_cycle)
        assert v["key_ready_o"] == key_ready, f"{where}: key_ready_o {v['key_ready_o']}, expected {int(key_ready)}"
        busy = self._expanding(cycle) or bool(self.pending)
        assert v["busy_o"] == busy, f"{where}: busy_o {v['busy_o']}, expected {int(busy)}"
        if self.key is not None and not v["key_valid_i"]:
            held = to_bytes(int(dut.key_i.value), 32)[: self.key.nbytes]
            assert held == self.key_bytes, f"{where}: testbench changed key_i's key bytes"
        if v["in_ready_o"]:
            assert key_ready, f"{where}: in_ready_o without a ready key"
        if self.arch == UNROLLED:
            if key_ready and v["out_ready_i"]:
                assert v["in_ready_o"], f"{where}: UNROLLED refuses a block although out_ready_i"
        else:
            leaving = handover() and len(self.pending) == 1 and v["out_valid_o"] and v["out_ready_i"]
            free = key_ready and not self._expanding(cycle) and (not self.pending or leaving)
            assert v["in_ready_o"] == free, f"{where}: in_ready_o {v['in_ready_o']}, expected {int(free)}"

        # Results
        if self.held is not None:
            assert v["out_valid_o"], f"{where}: out_valid_o dropped before the result was taken"
        if v["out_valid_o"]:
            assert self.pending, f"{where}: out_valid_o with no block in flight"
            head = self.pending[0]
            data = int(dut.out_data_o.value)
            if self.held is not None:
                assert data == self.held, f"{where}: out_data_o changed while stalled"
            if head.valid_cycle is None:
                head.valid_cycle = cycle
                self._check_latency(head, cycle)
            if v["out_ready_i"]:
                assert data == head.expected, (
                    f"{where}: {'decrypt' if head.decrypt else 'encrypt'} AES-{head.key.bits} result "
                    f"{to_bytes(data).hex()}, expected {to_bytes(head.expected).hex()}")
                self.pending.popleft()
                self.results.append(data)
                self.stats.blocks += 1
                self.held = None
            else:
                self.held = data
                self.stall_seen = True
        elif self.pending and not v["out_ready_i"]:
            self.stall_seen = True

        # Inputs and key commands of this cycle take effect after the checks above.
        if v["in_valid_i"] and v["in_ready_o"]:
            assert self.cipher is not None
            data = to_bytes(int(dut.in_data_i.value))
            decrypt = bool(v["decrypt_i"])
            out = self.cipher.decrypt(data) if decrypt else self.cipher.encrypt(data)
            self.pending.append(Block(to_int(out), cycle, decrypt, self.key))
        if v["clear_i"]:
            assert not v["busy_o"], f"{where}: testbench cleared while busy"
            self.cipher, self.key, self.ready_at = None, None, None
        elif v["key_valid_i"]:
            assert not v["busy_o"], f"{where}: testbench loaded a key while busy"
            self.key = KEY_BY_CODE[int(dut.key_len_i.value)]
            key = to_bytes(int(dut.key_i.value), 32)[: self.key.nbytes]
            self.cipher = AES.new(key, AES.MODE_ECB)
            self.key_bytes = key
            self.key_valid_cycle = cycle
            self.ready_at = cycle + self.key.expand_cycles

    def _check_latency(self, block: Block, cycle: int) -> None:
        latency = cycle - block.in_cycle
        self.stats.latencies.setdefault((block.key.bits, block.decrypt), set()).add(latency)
        bound = latency_bound(self.arch, block.key)
        what = f"cycle {cycle}: AES-{block.key.bits} {'decrypt' if block.decrypt else 'encrypt'} latency {latency}"
        if self.arch == UNROLLED:
            assert latency >= bound, f"{what}, expected at least {bound}"
            if not self.stall_seen:
                assert latency == bound, f"{what} without back-pressure, expected {bound}"
        else:
            assert latency <= bound, f"{what}, expected at most {bound}"


class Stream:
    """Drives blocks on the input port (with random gaps) and out_ready_i (random stalls)."""

    def __init__(self, dut, rng) -> None:
        self.dut = dut
        self.rng = rng
        self.queue: deque[tuple[int, bool]] = deque()
        self.current: tuple[int, bool] | None = None
        self.accepted = False
        self.gap_prob = 0.0
        self.stall_prob = 0.0

    def reset_values(self) -> None:
        self.dut.in_valid_i.value = 0
        self.dut.in_data_i.value = 0
        self.dut.decrypt_i.value = 0
        self.dut.out_ready_i.value = 1

    def sample(self, cycle: int) -> None:
        self.accepted = bool(int(self.dut.in_valid_i.value) and int(self.dut.in_ready_o.value))

    def drive(self, cycle: int) -> None:
        if self.accepted:
            self.current = None
        if self.current is None and self.queue and self.rng.random() >= self.gap_prob:
            self.current = self.queue.popleft()
        dut = self.dut
        if self.current is None:
            # Junk while idle: the design must sample data and direction only with in_valid_i.
            dut.in_valid_i.value = 0
            dut.in_data_i.value = self.rng.getrandbits(128)
            dut.decrypt_i.value = self.rng.getrandbits(1)
        else:
            dut.in_valid_i.value = 1
            dut.in_data_i.value = self.current[0]
            dut.decrypt_i.value = int(self.current[1])
        dut.out_ready_i.value = int(self.rng.random() >= self.stall_prob)

    @property
    def idle(self) -> bool:
        return not self.queue and self.current is None


class AesCoreTb(ClockedTb):
    def __init__(self, dut) -> None:
        super().__init__(dut)
        self.arch = arch()
        self.checker = CoreChecker(dut, self.arch)
        self.stream = Stream(dut, self.rng)
        self.add(self.stream, Monitor(self.checker.sample))

    async def start(self) -> None:
        dut = self.dut
        dut.key_valid_i.value = 0
        dut.key_i.value = 0
        dut.key_len_i.value = 0
        dut.clear_i.value = 0
        await self.reset()
        await self.sample_point()
        for name in ("key_ready_o", "in_ready_o", "out_valid_o", "busy_o"):
            assert int(getattr(dut, name).value) == 0, f"{name} high after reset"

    async def _pulse(self, signals: dict[str, int], idle: dict[str, int]) -> None:
        """Drive `signals` for one cycle, just after a rising edge, once busy_o is low."""
        for _ in range(10_000):
            await FallingEdge(self.clk)
            if not int(self.dut.busy_o.value) and self.stream.idle:
                break
        else:
            raise AssertionError("the core stayed busy")
        await RisingEdge(self.clk)
        for name, value in signals.items():
            getattr(self.dut, name).value = value
        await RisingEdge(self.clk)
        for name, value in idle.items():
            getattr(self.dut, name).value = value

    async def load_key(self, key: bytes, *, wait: bool = True) -> None:
        """Expand `key`; the unused upper bytes of key_i carry junk the core must ignore, new junk
        from the next cycle on, while the key bytes are held."""
        bits = len(key) * 8
        mask = (1 << bits) - 1
        await self._pulse(
            {"key_valid_i": 1, "key_i": to_int(key) | (self.rng.getrandbits(256) & ~mask),
             "key_len_i": KEY_LENS[bits].code},
            {"key_valid_i": 0, "key_i": to_int(key) | (self.rng.getrandbits(256) & ~mask),
             "key_len_i": self.rng.randrange(3)},
        )
        if wait:
            await self.wait_key_ready()

    async def clear(self) -> None:
        await self._pulse({"clear_i": 1}, {"clear_i": 0})

    async def wait_key_ready(self) -> None:
        for _ in range(20):
            await self.sample_point()
            if int(self.dut.key_ready_o.value):
                await RisingEdge(self.clk)  # the checker has seen this cycle too
                return
        raise AssertionError("key_ready_o not raised")

    async def run_blocks(self, blocks: list[tuple[int, bool]], *, gap: float = 0.0,
                         stall: float = 0.0) -> list[int]:
        """Send `blocks` (data, decrypt); return their results once all have been taken."""
        start = len(self.checker.results)
        self.stream.gap_prob, self.stream.stall_prob = gap, stall
        self.stream.queue.extend(blocks)
        limit = 100 + len(blocks) * 40 * (1 + int(10 * (gap + stall)))
        for _ in range(limit):
            await self.sample_point()
            if self.stream.idle and not self.checker.pending:
                break
        else:
            raise AssertionError(f"{len(self.checker.pending)} blocks not finished in {limit} cycles")
        self.stream.stall_prob = 0.0
        return self.checker.results[start:]

    def random_blocks(self, count: int, decrypt: bool | None = None) -> list[tuple[int, bool]]:
        return [(self.rng.getrandbits(128), self.rng.random() < 0.5 if decrypt is None else decrypt)
                for _ in range(count)]

    def log_stats(self) -> None:
        stats = self.checker.stats
        latencies = {f"{bits}{'d' if dec else 'e'}": f"{min(v)}..{max(v)}" if len(v) > 1 else min(v)
                     for (bits, dec), v in sorted(stats.latencies.items())}
        self.dut._log.info("blocks checked: %d; key expansion cycles: %s; latencies (e/d): %s",
                           stats.blocks, dict(sorted(stats.expand_cycles.items())), latencies)


@cocotb.test()
async def aes_core_fips197(dut):
    """FIPS-197 C.1-C.3 (AES-128/192/256): encrypt, decrypt, and both as one stream."""
    tb = AesCoreTb(dut)
    await tb.start()
    plain = to_int(bytes.fromhex(FIPS197_PLAIN))
    for bits, (key_hex, cipher_hex) in FIPS197_C.items():
        cipher = to_int(bytes.fromhex(cipher_hex))
        await tb.load_key(bytes.fromhex(key_hex))
        got = await tb.run_blocks([(plain, False), (cipher, True), (plain, False), (cipher, True)])
        want = [cipher, plain, cipher, plain]
        assert got == want, f"AES-{bits}: got {[to_bytes(g).hex() for g in got]}"
    tb.log_stats()


@cocotb.test()
async def aes_core_timing(dut):
    """Key expansion takes 10/8/7 cycles; one block's latency is Nr (Nr/2 for PARTIAL) cycles;
    a stream takes a block every cycle (UNROLLED) or every Nr (Nr/2) cycles (one more without
    Handover)."""
    tb = AesCoreTb(dut)
    await tb.start()
    for key in KEY_LENS.values():
        await tb.load_key(tb.rng.randbytes(key.nbytes))
        assert tb.checker.stats.expand_cycles[key.bits] == {key.expand_cycles}
        for decrypt in (False, True):
            tb.checker.stall_seen = False
            await tb.run_blocks(tb.random_blocks(3, decrypt))
            want = latency_bound(tb.arch, key)
            got = tb.checker.stats.latencies[(key.bits, decrypt)]
            assert got == {want}, f"AES-{key.bits} decrypt={decrypt}: latencies {got}, spec {want}"
        await stream_throughput(tb, key)
    tb.log_stats()


async def stream_throughput(tb: AesCoreTb, key: KeyLen) -> None:
    """A back-to-back stream of mixed blocks without back-pressure: UNROLLED has an in and an out
    handshake in every cycle; ROLLED and PARTIAL with Handover take the next block in the cycle
    the previous result leaves, so a block every Nr (Nr/2) cycles, and without it a cycle later."""
    count = 64
    ins: list[int] = []
    outs: list[int] = []

    def watch(cycle: int) -> None:
        dut = tb.dut
        if int(dut.in_valid_i.value) and int(dut.in_ready_o.value):
            ins.append(cycle)
        if int(dut.out_valid_o.value) and int(dut.out_ready_i.value):
            outs.append(cycle)

    tb.add(Monitor(watch))
    tb.checker.stall_seen = False
    await tb.run_blocks(tb.random_blocks(count))
    tb.models.pop()
    latency = latency_bound(tb.arch, key)
    step = 1 if tb.arch == UNROLLED else latency + (0 if handover() else 1)
    assert ins == list(range(ins[0], ins[0] + step * count, step)), (
        f"AES-{key.bits}: input handshakes not {step} cycle(s) apart: {ins[:4]}...")
    assert outs == [c + latency for c in ins], f"AES-{key.bits}: outputs not {latency} cycles after inputs"


@cocotb.test()
async def aes_core_random(dut):
    """Differential test against pycryptodome: 16 keys of every length, mixed directions,
    random input gaps and back-pressure; UNROLLED also gets gap-free streams."""
    tb = AesCoreTb(dut)
    await tb.start()
    per_key = 200 if tb.arch == UNROLLED else 130
    lengths = [128, 192, 256] * 5 + [tb.rng.choice((128, 192, 256))]
    tb.rng.shuffle(lengths)
    for index, bits in enumerate(lengths):
        await tb.load_key(tb.rng.randbytes(bits // 8))
        gap = tb.rng.choice((0.0, 0.0, 0.2, 0.6)) if tb.arch == UNROLLED else tb.rng.choice((0.0, 0.5))
        stall = (0.0, 0.3, 0.7)[index % 3]
        direction = (None, None, False, True)[index % 4]  # mixed, or one direction per key
        await tb.run_blocks(tb.random_blocks(per_key, direction), gap=gap, stall=stall)
    for bits in KEY_LENS:
        for decrypt in (False, True):
            assert (bits, decrypt) in tb.checker.stats.latencies, f"AES-{bits} decrypt={decrypt} untested"
    tb.log_stats()


def check_schedule(tb: AesCoreTb, key: bytes | None, what: str) -> None:
    """The stored schedule is `key`'s (None: all zero) and nothing else: every word past it is
    zero. The banks leave out round key 0 (key_i) and keep round key Nr in a register too."""
    dut = tb.dut
    words = key_schedule(key) if key is not None else []
    if tb.arch == UNROLLED:
        got = int(dut.gen_key_stored.u_key_expand.round_keys_o.value)
        want = sum(w << (32 * i) for i, w in enumerate(words))
        assert got == want, f"{what}: round keys {got:x}, expected {want:x}"
        return
    want_words = [0] * 4 + words[4:] + [0] * (BANKS * BANK_DEPTH - max(len(words), 4))
    got_words = stored_words(dut)
    wrong = [p for p in range(BANKS * BANK_DEPTH) if got_words[p] != want_words[p]]
    assert not wrong, f"{what}: schedule words {wrong} hold {[hex(got_words[p]) for p in wrong]}"
    last = int(dut.gen_key_stored.u_key_expand.gen_banked.last_key_q.value)
    want_last = sum(w << (32 * i) for i, w in enumerate(words[-4:])) if words else 0
    assert last == want_last, f"{what}: round key Nr {last:x}, expected {want_last:x}"


async def wipe_done(tb: AesCoreTb) -> None:
    """Wait out the banked schedule's wipe after clear_i (BANK_DEPTH cycles), checking that the
    core looks idle and cleared meanwhile."""
    dut = tb.dut
    for _ in range(BANK_DEPTH):
        await tb.sample_point()
        for name in ("key_ready_o", "in_ready_o", "out_valid_o", "busy_o"):
            assert int(getattr(dut, name).value) == 0, f"{name} high after clear"
        assert int(dut.out_data_o.value) == 0, "out_data_o not zeroed by clear"


@cocotb.test()
async def aes_core_clear(dut):
    """clear_i drops key_ready_o and in_ready_o, zeroes the schedule (the banks within their
    wipe's BANK_DEPTH cycles) and the result register; a new key works afterwards. A key can be
    replaced by another of a different length."""
    tb = AesCoreTb(dut)
    await tb.start()
    await wipe_done(tb)
    check_schedule(tb, None, "after reset")
    for bits in (256, 128):
        await tb.load_key(tb.rng.randbytes(bits // 8))
        await tb.run_blocks(tb.random_blocks(20), stall=0.3)
        await tb.clear()
        await wipe_done(tb)
        check_schedule(tb, None, f"AES-{bits} cleared")
    # A shorter key replacing a longer one must not inherit any of its round keys.
    await tb.load_key(tb.rng.randbytes(32))
    key_hex, cipher_hex = FIPS197_C[192]
    await tb.load_key(bytes.fromhex(key_hex))
    got = await tb.run_blocks([(to_int(bytes.fromhex(FIPS197_PLAIN)), False)])
    assert got == [to_int(bytes.fromhex(cipher_hex))]
    tb.log_stats()


@cocotb.test()
async def aes_core_schedule_storage(dut):
    """The stored schedule is exactly the last key's, with zeros past it: after each key length
    following each other (longest first, so that a shorter one must overwrite the rest), and after
    a key loaded while the wipe of a clear_i is still running."""
    tb = AesCoreTb(dut)
    await tb.start()
    for bits in (256, 192, 128, 256, 128, 192, 256):
        key = tb.rng.randbytes(bits // 8)
        await tb.load_key(key)
        check_schedule(tb, key, f"AES-{bits}")
        await tb.run_blocks(tb.random_blocks(4))
    for bits in (128, 192, 256):
        await tb.load_key(tb.rng.randbytes(32))
        await tb.clear()
        key = tb.rng.randbytes(bits // 8)
        await tb.load_key(key)  # the next cycle: the wipe has just begun
        check_schedule(tb, key, f"AES-{bits} loaded during the wipe")
        await tb.run_blocks(tb.random_blocks(4))
    tb.log_stats()


# ------------------------------------------------------------------------------- pytest side


# Every datapath with Handover (the default), and ROLLED without it (the smallest engine's).
BUILDS = [(name, True) for name in ARCHS] + [("rolled", False)]


@pytest.mark.parametrize(("arch_name", "with_handover"), BUILDS)
def test_aes_core(arch_name: str, with_handover: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ARCH_ENV, str(ARCHS[arch_name]))
    monkeypatch.setenv(HANDOVER_ENV, str(int(with_handover)))
    run_cocotb(
        toplevel="couplet_aes_core",
        sources=[RTL_DIR / name for name in RTL_FILES],
        test_file=__file__,
        build_name=f"aes_core_{arch_name}{'' if with_handover else '_no_handover'}",
        parameters={"Arch": f"{ARCH_SET.width}'d{ARCHS[arch_name]}", "Handover": f"1'b{int(with_handover)}"},
    )
