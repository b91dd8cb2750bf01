"""cocotb tests of couplet_aes_zkn (the aes32esi/esmi/dsi/dsmi unit), against a Python model.

The model follows the Sail code of RISC-V Cryptography Extensions Vol. I v1.0.1 (3.3-3.6):
rd = rs1 ^ rol32(f(byte bs of rs2), 8*bs), with f the S-box (esi), the S-box and the MixColumns
column {02,01,01,03} (esmi), the inverse S-box (dsi), or the inverse S-box and the InvMixColumns
column {0e,09,0d,0b} (dsmi). The S-box is computed here from the GF(2^8) inverse and the affine
map (FIPS-197 5.1.1), not typed in; `aes_*_model` run whole AES blocks out of aes32 operations
and are checked against pycryptodome, which ties the model to an independent AES.

The command port carries the instruction raw: op = funct3, index = funct7 = {bs, funct5}, op_a =
rs1, op_b = rs2. A driver presents commands with random idle cycles and random rsp_ready, and a
per-cycle monitor checks the handshake (cmd_ready = !rsp_valid || rsp_ready), the timing (the
response is valid in the cycle after the command was taken), the stability of a stalled
response, and every response against the model.

Run: .venv/bin/python -m pytest hw/ip/aes/test/test_aes_zkn.py -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable, Sequence

import cocotb

from testsupport.accel_port_bfm import StatelessUnitTb
from testsupport.obi_bfm import MASK32

# ------------------------------------------------------------------------------------ model
OPCODE_OP = 0b0110011
FUNCT5_ESI = 0b10001
FUNCT5_ESMI = 0b10011
FUNCT5_DSI = 0b10101
FUNCT5_DSMI = 0b10111
FUNCT5S = (FUNCT5_ESI, FUNCT5_ESMI, FUNCT5_DSI, FUNCT5_DSMI)
NAMES = {FUNCT5_ESI: "aes32esi", FUNCT5_ESMI: "aes32esmi", FUNCT5_DSI: "aes32dsi", FUNCT5_DSMI: "aes32dsmi"}


def funct7(funct5: int, bs: int) -> int:
    return (bs & 3) << 5 | funct5


def encode(funct5: int, bs: int, rd: int, rs1: int, rs2: int) -> int:
    """The 32-bit instruction word (R-type on opcode OP, funct3 000)."""
    return funct7(funct5, bs) << 25 | rs2 << 20 | rs1 << 15 | 0b000 << 12 | rd << 7 | OPCODE_OP


def xtime(b: int) -> int:
    b <<= 1
    return (b ^ 0x11B) if b & 0x100 else b


def gf_mul(a: int, b: int) -> int:
    product = 0
    while b:
        if b & 1:
            product ^= a
        a, b = xtime(a), b >> 1
    return product


def gf_inv(a: int) -> int:
    """a^254 = a^-1 in GF(2^8) (0 maps to 0)."""
    result, power = 1, a
    for bit in range(8):
        if 254 >> bit & 1:
            result = gf_mul(result, power)
        power = gf_mul(power, power)
    return result


def rol8(x: int, n: int) -> int:
    return (x << n | x >> (8 - n)) & 0xFF


def affine(b: int) -> int:
    """The affine map of SubBytes (FIPS-197 5.1.1)."""
    return b ^ rol8(b, 1) ^ rol8(b, 2) ^ rol8(b, 3) ^ rol8(b, 4) ^ 0x63


SBOX = tuple(affine(gf_inv(x)) for x in range(256))
INV_SBOX = tuple(SBOX.index(y) for y in range(256))


def rol32(x: int, n: int) -> int:
    n %= 32
    return (x << n | x >> (32 - n)) & MASK32 if n else x & MASK32


def mix_byte_fwd(s: int) -> int:
    return gf_mul(s, 3) << 24 | s << 16 | s << 8 | gf_mul(s, 2)


def mix_byte_inv(s: int) -> int:
    return gf_mul(s, 0x0B) << 24 | gf_mul(s, 0x0D) << 16 | gf_mul(s, 0x09) << 8 | gf_mul(s, 0x0E)


def aes32(funct5: int, bs: int, rs1: int, rs2: int) -> int:
    shamt = 8 * bs
    si = rs2 >> shamt & 0xFF
    if funct5 == FUNCT5_ESI:
        mixed = SBOX[si]
    elif funct5 == FUNCT5_ESMI:
        mixed = mix_byte_fwd(SBOX[si])
    elif funct5 == FUNCT5_DSI:
        mixed = INV_SBOX[si]
    elif funct5 == FUNCT5_DSMI:
        mixed = mix_byte_inv(INV_SBOX[si])
    else:
        raise ValueError(f"funct5 {funct5:#x} is not an aes32 instruction")
    return (rs1 ^ rol32(mixed, shamt)) & MASK32


def command_response(op: int, index: int, op_a: int, op_b: int) -> tuple[int, bool]:
    """(data, err) of a command: the aes32 result, or (0, True) for any other op/index."""
    if op == 0 and index & 0x1F in FUNCT5S:
        return aes32(index & 0x1F, index >> 5, op_a, op_b), False
    return 0, True


# --------------------------------------------------------------- AES out of aes32 operations
# An Aes32 runs a batch of independent operations (funct7, rs1, rs2) and returns their rd, so the
# same cipher code drives the model and the DUT (where a batch goes back to back).
Aes32 = Callable[[Sequence[tuple[int, int, int]]], Awaitable[list[int]]]
RCON = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)


async def model_ops(ops: Sequence[tuple[int, int, int]]) -> list[int]:
    return [aes32(f7 & 0x1F, f7 >> 5, a, b) for f7, a, b in ops]


def words(data: bytes) -> list[int]:
    return [int.from_bytes(data[i : i + 4], "little") for i in range(0, len(data), 4)]


def to_bytes(ws: Sequence[int]) -> bytes:
    return b"".join(w.to_bytes(4, "little") for w in ws)


async def sub_word(run: Aes32, acc: int, w: int) -> int:
    """acc ^ SubWord(w), four chained aes32esi."""
    for bs in range(4):
        (acc,) = await run([(funct7(FUNCT5_ESI, bs), acc, w)])
    return acc


async def expand_key(run: Aes32, key: bytes) -> list[int]:
    nk = len(key) // 4
    nr = nk + 6
    w = words(key)
    for i in range(nk, 4 * (nr + 1)):
        temp = w[i - 1]
        if i % nk == 0:
            temp = await sub_word(run, RCON[i // nk - 1], rol32(temp, 24))  # RotWord = rotr 8
        elif nk > 6 and i % nk == 4:
            temp = await sub_word(run, 0, temp)
        w.append(w[i - nk] ^ temp)
    return w


async def cipher_round(run: Aes32, funct5: int, state: list[int], rk: Sequence[int], shift: int) -> list[int]:
    """One round: column j takes row r from column (j + shift*r) % 4, one aes32 per byte."""
    acc = list(rk)
    for bs in range(4):
        acc = await run([(funct7(funct5, bs), acc[j], state[(j + shift * bs) % 4]) for j in range(4)])
    return acc


async def encrypt_block(run: Aes32, rk: Sequence[int], block: bytes) -> bytes:
    nr = len(rk) // 4 - 1
    state = [s ^ k for s, k in zip(words(block), rk[0:4])]
    for rnd in range(1, nr):
        state = await cipher_round(run, FUNCT5_ESMI, state, rk[4 * rnd : 4 * rnd + 4], 1)
    state = await cipher_round(run, FUNCT5_ESI, state, rk[4 * nr : 4 * nr + 4], 1)
    return to_bytes(state)


async def inv_mix_column(run: Aes32, w: int) -> int:
    """InvMixColumns(w) = aes32dsmi over SubWord(w): InvSubBytes undoes the S-box."""
    s = await sub_word(run, 0, w)
    acc = 0
    for bs in range(4):
        (acc,) = await run([(funct7(FUNCT5_DSMI, bs), acc, s)])
    return acc


async def decrypt_block(run: Aes32, rk: Sequence[int], block: bytes) -> bytes:
    """The equivalent inverse cipher (FIPS-197 5.3.5) with InvMixColumns'd middle round keys."""
    nr = len(rk) // 4 - 1
    state = [s ^ k for s, k in zip(words(block), rk[4 * nr : 4 * nr + 4])]
    for rnd in range(nr - 1, 0, -1):
        dk = [await inv_mix_column(run, w) for w in rk[4 * rnd : 4 * rnd + 4]]
        state = await cipher_round(run, FUNCT5_DSMI, state, dk, -1)
    state = await cipher_round(run, FUNCT5_DSI, state, rk[0:4], -1)
    return to_bytes(state)


def check_blocks_with_model(rng: random.Random, key_len: int, count: int) -> None:
    from Crypto.Cipher import AES

    for _ in range(count):
        key, block = rng.randbytes(key_len), rng.randbytes(16)
        want = AES.new(key, AES.MODE_ECB).encrypt(block)
        rk = asyncio.run(expand_key(model_ops, key))
        got = asyncio.run(encrypt_block(model_ops, rk, block))
        assert got == want, f"model AES-{8 * key_len} encrypt {block.hex()}: {got.hex()} != {want.hex()}"
        back = asyncio.run(decrypt_block(model_ops, rk, want))
        assert back == block, f"model AES-{8 * key_len} decrypt {want.hex()}: {back.hex()} != {block.hex()}"


# ------------------------------------------------------------------------------ testbench
class ZknTb(StatelessUnitTb):
    def __init__(self, dut, *, idle_prob: float = 0.0, ready_prob: float = 1.0) -> None:
        super().__init__(dut, command_response, idle_prob=idle_prob, ready_prob=ready_prob)

    async def run_ops(self, ops: Sequence[tuple[int, int, int]]) -> list[int]:
        cmds = [self.port.issue(0, f7, a, b) for f7, a, b in ops]
        await self.wait_all(cmds, timeout_cycles=100 * len(cmds))
        return [cmd.data for cmd in cmds]  # type: ignore[misc]


def random_word(rng: random.Random) -> int:
    """Mostly uniform, sometimes all-zero/all-one bytes."""
    if rng.random() < 0.1:
        return rng.choice((0, MASK32, 0x0000_00FF, 0xFF00_0000, 0x8080_8080))
    return rng.getrandbits(32)


@cocotb.test()
async def zkn_every_byte(dut):
    """All four instructions, all bs, every byte value 0..255 in the selected byte; random rest."""
    tb = ZknTb(dut)
    await tb.start()
    cmds = []
    for funct5 in FUNCT5S:
        for bs in range(4):
            for value in range(256):
                rs2 = random_word(tb.rng) & ~(0xFF << 8 * bs) | value << 8 * bs
                cmds.append(tb.port.issue(0, funct7(funct5, bs), random_word(tb.rng), rs2))
    await tb.wait_all(cmds, timeout_cycles=3 * len(cmds))
    # Back to back with rsp_ready high: one command per cycle.
    cycles = cmds[-1].accept_cycle - cmds[0].accept_cycle + 1  # type: ignore[operator]
    assert cycles == len(cmds), f"{len(cmds)} commands took {cycles} cycles"
    # Model-free spot checks: FIPS-197 S-box entries S(53) = ed, S(09) = 01, S(01) = 7c, and
    # the columns of {01}: MixColumns {02, 01, 01, 03}, InvMixColumns {0e, 09, 0d, 0b} from row
    # 0 up, rotated to row bs.
    checks = [
        ((0, funct7(FUNCT5_ESI, 0), 0, 0x00), 0x0000_0063),
        ((0, funct7(FUNCT5_ESI, 3), 0x1111_1111, 0x5300_0000), 0x1111_1111 ^ 0xED00_0000),
        ((0, funct7(FUNCT5_DSI, 1), 0, 0x0000_6300), 0x0000_0000),
        ((0, funct7(FUNCT5_ESMI, 0), 0, 0x0000_0009), 0x0301_0102),
        ((0, funct7(FUNCT5_ESMI, 1), 0, 0x0000_0900), 0x0101_0203),
        ((0, funct7(FUNCT5_DSMI, 2), 0, 0x007C_0000), 0x090E_0B0D),  # InvS(7c) = 01
    ]
    for (op, index, a, b), want in checks:
        cmd = tb.port.issue(op, index, a, b)
        await tb.wait_all([cmd], timeout_cycles=10)
        assert cmd.data == want, f"{cmd.describe()}: {cmd.data:#010x} != {want:#010x}"


@cocotb.test()
async def zkn_every_encoding(dut):
    """Every op (funct3) and index (funct7): only the 16 aes32 encodings exist, the rest err."""
    tb = ZknTb(dut, idle_prob=0.2, ready_prob=0.7)
    await tb.start()
    cmds = []
    for op in range(8):
        for index in range(128):
            for _ in range(2):
                cmds.append(tb.port.issue(op, index, random_word(tb.rng), random_word(tb.rng)))
    await tb.wait_all(cmds, timeout_cycles=10 * len(cmds))
    valid = sum(not cmd.err for cmd in cmds)
    assert valid == 2 * 16, f"{valid} commands answered without err, expected 32"


@cocotb.test()
async def zkn_backpressure(dut):
    """Random rsp_ready and idle gaps; a stalled response holds and blocks the next command."""
    tb = ZknTb(dut, idle_prob=0.3, ready_prob=0.4)
    await tb.start()
    cmds = []
    for _ in range(1500):
        index = funct7(tb.rng.choice(FUNCT5S), tb.rng.randrange(4))
        if tb.rng.random() < 0.05:
            index = tb.rng.randrange(128)
        cmds.append(tb.port.issue(0, index, random_word(tb.rng), random_word(tb.rng)))
    await tb.wait_all(cmds, timeout_cycles=20 * len(cmds))
    assert tb.port.stall_cycles > 100, f"only {tb.port.stall_cycles} stalled cycles"
    await tb.check_held_response_blocks((0, funct7(FUNCT5_ESMI, 2), 0x0123_4567, 0x89AB_CDEF),
                                        (0, funct7(FUNCT5_DSMI, 1), 0x7654_3210, 0xFEDC_BA98))


@cocotb.test()
async def zkn_aes_blocks(dut):
    """AES-128/192/256 key expansion, encryption and decryption made of DUT aes32 operations
    reproduce pycryptodome (and so does the model, by the same code)."""
    from Crypto.Cipher import AES

    tb = ZknTb(dut, idle_prob=0.1, ready_prob=0.8)
    await tb.start()
    for key_len in (16, 16, 24, 32):
        key, block = tb.rng.randbytes(key_len), tb.rng.randbytes(16)
        want = AES.new(key, AES.MODE_ECB).encrypt(block)
        rk = await expand_key(tb.run_ops, key)
        assert rk == await expand_key(model_ops, key)
        got = await encrypt_block(tb.run_ops, rk, block)
        assert got == want, f"AES-{8 * key_len} DUT encrypt: {got.hex()} != {want.hex()}"
        assert await encrypt_block(model_ops, rk, block) == want
        back = await decrypt_block(tb.run_ops, rk, want)
        assert back == block, f"AES-{8 * key_len} DUT decrypt: {back.hex()} != {block.hex()}"


# ----------------------------------------------------------------------------- pytest side
def test_model_against_pycryptodome() -> None:
    """The model alone: S-box spot values from FIPS-197 and whole blocks for every key size."""
    assert (SBOX[0x00], SBOX[0x53], SBOX[0xFF], INV_SBOX[0x63]) == (0x63, 0xED, 0x16, 0x00)
    assert sorted(SBOX) == list(range(256))
    rng = random.Random(1)
    for key_len in (16, 24, 32):
        check_blocks_with_model(rng, key_len, count=3)


# The X-IF port's mask/match for this unit (hw/ip/aes/doc/zkn.md): funct7 = xx10xx1, funct3 = 000,
# opcode OP.
PORT_MASK = 0x3200_707F
PORT_MATCH = 0x2200_0033


def test_port_mask_match() -> None:
    """The one mask/match pair claims exactly the 16 aes32 encodings among all funct7/funct3."""
    for f7 in range(128):
        for f3 in range(8):
            instr = f7 << 25 | 0b01010 << 20 | 0b01011 << 15 | f3 << 12 | 0b01100 << 7 | OPCODE_OP
            claimed = instr & PORT_MASK == PORT_MATCH
            assert claimed == (f3 == 0 and f7 & 0x1F in FUNCT5S), f"funct7={f7:#x} funct3={f3}"
    assert (encode(FUNCT5_ESI, 0, 10, 11, 12) ^ OPCODE_OP | 0b0010011) & PORT_MASK != PORT_MATCH  # OP-IMM


def test_encodings_match_assembler() -> None:
    """The funct7 values are those GNU as assembles for -march=rv32i_zkne_zknd (if installed)."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    gas = shutil.which("riscv64-unknown-elf-as")
    objdump = shutil.which("riscv64-unknown-elf-objdump")
    if gas is None or objdump is None:
        import pytest

        pytest.skip("riscv64-unknown-elf binutils not installed")
    lines, want = [], []
    for funct5 in FUNCT5S:
        for bs in range(4):
            lines.append(f"{NAMES[funct5]} a0, a1, a2, {bs}")
            want.append(encode(funct5, bs, rd=10, rs1=11, rs2=12))
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = Path(tmp) / "zkn.s", Path(tmp) / "zkn.o"
        src.write_text("\n".join(lines) + "\n")
        subprocess.run([gas, "-march=rv32i_zkne_zknd", str(src), "-o", str(obj)], check=True)
        dump = subprocess.run([objdump, "-d", str(obj)], check=True, capture_output=True, text=True).stdout
    got = [int(m.group(1), 16) for m in re.finditer(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", dump, re.M)]
    assert got == want, [f"{g:08x}/{w:08x}" for g, w in zip(got, want)]


def test_aes_zkn() -> None:
    from couplet import paths
    from couplet.model import rtl
    from couplet.tools.cocotb_run import run_cocotb

    aes_rtl = paths.IP_DIR / "aes" / "rtl"
    run_cocotb(
        toplevel="couplet_aes_zkn",
        sources=[
            *rtl.accel_port_sources(),
            aes_rtl / "autogen" / "aes_reg_pkg.sv",
            aes_rtl / "couplet_aes_pkg.sv",
            aes_rtl / "couplet_aes_sbox.sv",
            aes_rtl / "couplet_aes_zkn.sv",
        ],
        test_file=__file__,
        build_name="aes_zkn",
    )
