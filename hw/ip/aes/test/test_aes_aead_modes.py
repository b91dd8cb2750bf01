"""cocotb tests of couplet_aes's modes for the authenticated layer: CBC_MAC (CCM, CMAC), GCM (CTR
with a 32-bit counter and GHASH over the ciphertext) and GHASH, and the GHASH registers, one build
per row of BUILDS (each architecture with a multiplier width, and one without the multiplier).

Golden models: CBC-MAC is the last block of pycryptodome's CBC encryption; GCM and GHASH come
from pycryptodome's AES-GCM (a message's tag is GHASH xor AES(J0), so the GHASH of any blocks is
checked through a tag), and the counter from SP 800-38D's inc32. The testbench is test_aes.py's.

Run: .venv/bin/python -m pytest hw/ip/aes/test/test_aes_aead_modes.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import os

import cocotb
import pytest
from Crypto.Cipher import AES

from couplet.tools.cocotb_run import run_cocotb
from hw.ip.aes.test.test_aes import (ACT_MEM, ACT_ZEROIZE, ARCH_ENV, ARCH_SET, ARCHS, CODE_OK, CTRL, DIN0, ECB, LEN,
                                     REGS, RTL_FILES, ST_BUSY, ST_STICKY, AesTb, ctrl_word)
from testsupport.accel_port_bfm import OP_READ, OP_WRITE, from_words, to_words

GHASH_ENV = "COUPLET_AES_GHASH_BITS"
CBC_MAC, GCM, GHASH = (REGS.value("mode", name) for name in ("cbc_mac", "gcm", "ghash"))
H0, S0 = (REGS.reg(name).offset // 4 for name in ("ghash_h0", "ghash_s0"))
# arch, GhashBits: each datapath with a multiplier width, and an engine without it.
BUILDS = (("rolled", 8), ("partial", 1), ("unrolled", 16), ("rolled", 0))


def ghash_bits() -> int:
    return int(os.environ[GHASH_ENV])


# ------------------------------------------------------------------------------- golden models
def cbc_mac(key: bytes, iv: bytes, data: bytes) -> bytes:
    return AES.new(key, AES.MODE_CBC, iv=iv).encrypt(data)[-16:]


def gf_mult(x: bytes, y: bytes) -> bytes:
    """GF(2^128) product in GCM's bit order (SP 800-38D 6.3, Algorithm 1)."""
    r = 0xE1 << 120
    xi, v, z = int.from_bytes(x, "big"), int.from_bytes(y, "big"), 0
    for i in range(127, -1, -1):
        if (xi >> i) & 1:
            z ^= v
        v = (v >> 1) ^ (r if v & 1 else 0)
    return z.to_bytes(16, "big")


def ghash(h: bytes, s: bytes, data: bytes) -> bytes:
    for b in range(0, len(data), 16):
        s = gf_mult(bytes(a ^ c for a, c in zip(s, data[b:b + 16])), h)
    return s


def inc32(block: bytes, n: int) -> bytes:
    return block[:12] + ((int.from_bytes(block[12:], "big") + n) % (1 << 32)).to_bytes(4, "big")


def gcm_blocks(key: bytes, ctr: bytes, data: bytes) -> bytes:
    """CTR with inc32 from `ctr` over whole blocks."""
    ecb = AES.new(key, AES.MODE_ECB)
    out = b""
    for b in range(0, len(data), 16):
        ks = ecb.encrypt(inc32(ctr, b // 16))
        out += bytes(a ^ c for a, c in zip(ks, data[b:b + 16]))
    return out


def test_models_against_pycryptodome_gcm() -> None:
    """The GHASH and inc32 models above give pycryptodome's GCM tag and ciphertext (96-bit IV)."""
    import random
    rng = random.Random(7)
    for _ in range(20):
        key, nonce = rng.randbytes(16), rng.randbytes(12)
        aad, text = rng.randbytes(16 * rng.randint(0, 3)), rng.randbytes(16 * rng.randint(1, 4))
        ct, tag = AES.new(key, AES.MODE_GCM, nonce=nonce).encrypt_and_digest(text) if not aad else \
            AES.new(key, AES.MODE_GCM, nonce=nonce).update(aad).encrypt_and_digest(text)
        h = AES.new(key, AES.MODE_ECB).encrypt(bytes(16))
        j0 = nonce + b"\x00\x00\x00\x01"
        assert gcm_blocks(key, inc32(j0, 1), text) == ct
        lens = (8 * len(aad)).to_bytes(8, "big") + (8 * len(text)).to_bytes(8, "big")
        s = ghash(h, bytes(16), aad + ct + lens)
        assert bytes(a ^ b for a, b in zip(s, AES.new(key, AES.MODE_ECB).encrypt(j0))) == tag


# ---------------------------------------------------------------------------------- helpers
async def set_ghash(tb: AesTb, h: bytes, s: bytes) -> None:
    hw, sw = to_words(h), to_words(s)
    await tb.write2(H0, hw[0], hw[1])
    await tb.write2(H0 + 2, hw[2], hw[3])
    await tb.write2(S0, sw[0], sw[1])
    await tb.write2(S0 + 2, sw[2], sw[3])


async def read_s(tb: AesTb) -> bytes:
    return from_words([await tb.read(S0 + i) for i in range(4)])


async def wait_idle(tb: AesTb) -> None:
    """STATUS.busy until it clears, as a driver does after a stream (S read during a stream is
    some block's, not the last one's: a waiting command lets the current block finish first)."""
    for _ in range(200):
        if not await tb.status() & ST_BUSY:
            return
    raise AssertionError("still busy after 200 STATUS reads")


def random_ctr(tb: AesTb) -> bytes:
    ctr = bytearray(tb.rng.randbytes(16))
    if tb.rng.random() < 0.5:  # near the 32-bit wrap, which must not carry into byte 11
        ctr[12:] = (0xFFFF_FFFF - tb.rng.randint(0, 2)).to_bytes(4, "big")
    return bytes(ctr)


# ------------------------------------------------------------------------------------- tests
@cocotb.test()
async def aead_cbc_mac(dut):
    """CBC_MAC through DIN (DOUT and IV are the MAC), the streams (no output word) and MEM (a job
    that reads LEN bytes and writes none), every key length."""
    tb = await AesTb.started(dut)
    tb.cmd.resp_timeout = 5000
    for key_len in (16, 24, 32):
        key = await tb.new_key(key_len, CBC_MAC)
        assert await tb.read(CTRL) == ctrl_word(CBC_MAC, False, key_len), "CTRL takes CBC_MAC"
        iv = tb.rng.randbytes(16)
        await tb.set_iv(iv)
        data = tb.rng.randbytes(48)
        mac = iv
        for b in range(3):
            mac = cbc_mac(key, mac, data[16 * b:16 * b + 16])
            assert await tb.din_block(data[16 * b:16 * b + 16]) == mac, f"AES-{8 * key_len} DIN block {b}"
        assert await tb.read_iv() == cbc_mac(key, iv, data), f"AES-{8 * key_len}: IV holds the MAC"
        await tb.clear_status()  # DONE of the DIN blocks
        # Streams: blocks in, nothing out.
        await tb.set_iv(iv)
        tb.src.push(to_words(data))
        await tb.src.wait_idle()
        await wait_idle(tb)
        assert not tb.sink.words, "CBC_MAC wrote output words"
        assert await tb.read_iv() == cbc_mac(key, iv, data), f"AES-{8 * key_len}: MAC after the stream"
        # MEM: in_len LEN, out_len 0.
        src, dst = 0x1000_0000, 0x2000_0000
        blocks = tb.rng.randint(1, 6)
        msg = tb.rng.randbytes(16 * blocks)
        tb.dma.load(src, msg)
        await tb.set_iv(bytes(16))
        await tb.write(LEN, 16 * blocks)
        assert await tb.action(ACT_MEM, src, dst, timeout_cycles=5000) == CODE_OK
        job = tb.dma.jobs[-1]
        assert (job.in_len, job.out_len) == (16 * blocks, 0), f"MAC job {job}"
        assert await tb.read_iv() == cbc_mac(key, bytes(16), msg), "MAC after the MEM job"
    await tb.expect_status(ST_STICKY | ST_BUSY, 0, "after CBC_MAC")


@cocotb.test()
async def aead_gcm_and_ghash(dut):
    """GCM both ways through DIN, the streams and MEM, with inc32 at its wrap and S chained across
    calls; GHASH blocks through DIN and the streams; the GHASH registers. Without the multiplier
    CTRL refuses GCM and GHASH and the GHASH registers do not exist."""
    tb = await AesTb.started(dut)
    tb.cmd.resp_timeout = 5000
    if ghash_bits() == 0:
        await tb.new_key(16, ECB)
        for mode in (GCM, GHASH):
            await tb.write(CTRL, ctrl_word(mode, False, 16))
            assert await tb.read(CTRL) == ctrl_word(ECB, False, 16), "CTRL kept its mode"
        for index in (H0, S0 + 3):
            for op in (OP_READ, OP_WRITE):
                cmd = await tb.cmd.request(op, index, 1)
                assert cmd.err, f"GHASH register 0x{index:02x} answered without the multiplier"
        return
    src, dst = 0x1000_0000, 0x2000_0000
    for key_len in (16, 24, 32):
        for decrypt in (False, True):
            what = f"GCM-{8 * key_len} {'dec' if decrypt else 'enc'}"
            key = await tb.new_key(key_len, GCM, decrypt)
            assert await tb.read(CTRL) == ctrl_word(GCM, decrypt, key_len), f"{what}: CTRL"
            h = AES.new(key, AES.MODE_ECB).encrypt(bytes(16))
            s0, ctr = tb.rng.randbytes(16), random_ctr(tb)
            await set_ghash(tb, h, s0)
            await tb.set_iv(ctr)
            assert await read_s(tb) == s0, f"{what}: S readback"
            assert await tb.read(H0) == 0, "H is write-only"
            data = tb.rng.randbytes(64)
            expected = gcm_blocks(key, ctr, data)
            ciphertext = data if decrypt else expected
            got = b""
            for b in range(2):  # DIN
                got += await tb.din_block(data[16 * b:16 * b + 16])
            tb.src.gap_prob, tb.sink.ready_prob = tb.rng.choice((0.0, 0.4)), tb.rng.choice((1.0, 0.5))
            got += await tb.stream(data[32:])
            assert got == expected, f"{what}: got {got.hex()}, expected {expected.hex()}"
            assert await tb.read_iv() == inc32(ctr, 4), f"{what}: counter (inc32)"
            assert await read_s(tb) == ghash(h, s0, ciphertext), f"{what}: S over the ciphertext"
            # A MEM job continues the same message.
            more = tb.rng.randbytes(16 * tb.rng.randint(1, 5))
            tb.dma.load(src, more)
            await tb.write(LEN, len(more))
            assert await tb.action(ACT_MEM, src, dst, timeout_cycles=5000) == CODE_OK
            out = gcm_blocks(key, inc32(ctr, 4), more)
            assert tb.dma.dump(dst, len(more)) == out, f"{what}: MEM output"
            assert await read_s(tb) == ghash(h, s0, ciphertext + (more if decrypt else out)), f"{what}: S after MEM"
            tb.sink.words.clear()
    # GHASH: blocks into S only, through DIN (no DOUT read needed) and the streams and MEM.
    key = await tb.new_key(16, GHASH)
    h, s0 = tb.rng.randbytes(16), tb.rng.randbytes(16)
    await set_ghash(tb, h, s0)
    ctr = tb.rng.randbytes(16)
    await tb.set_iv(ctr)
    data = tb.rng.randbytes(80)
    for b in range(2):
        words = to_words(data[16 * b:16 * b + 16])
        await tb.write2(DIN0, words[0], words[1])
        await tb.write2(DIN0 + 2, words[2], words[3])  # DIN3 starts it
    tb.src.push(to_words(data[32:64]))
    await tb.src.wait_idle()
    await wait_idle(tb)
    tb.dma.load(src, data[64:])
    await tb.write(LEN, 16)
    assert await tb.action(ACT_MEM, src, dst, timeout_cycles=5000) == CODE_OK
    assert tb.dma.jobs[-1].out_len == 0, "GHASH job writes nothing"
    assert not tb.sink.words, "GHASH wrote output words"
    assert await read_s(tb) == ghash(h, s0, data), "S after GHASH blocks"
    assert await tb.read_iv() == ctr, "GHASH leaves the counter"
    # A write of S while a block is being absorbed waits for it (commands are held, never refused
    # or applied to a half-computed S).
    block = tb.rng.randbytes(16)
    tb.src.push(to_words(block))
    await tb.src.wait_idle()
    await tb.cycles(2)
    assert not (await tb.cmd.request(OP_WRITE, S0, 0x1234)).err
    expected = bytearray(ghash(h, ghash(h, s0, data), block))
    expected[0:4] = (0x1234).to_bytes(4, "little")
    assert await read_s(tb) == bytes(expected), "S: the block absorbed, then word 0 written"
    # Zeroize clears S and H.
    assert await tb.action(ACT_ZEROIZE) == CODE_OK
    assert await read_s(tb) == bytes(16), "zeroize clears S"
    await tb.clear_status()
    await tb.expect_status(ST_STICKY | ST_BUSY, 0, "after GCM and GHASH")


@pytest.mark.parametrize(("arch_name", "bits"), BUILDS)
def test_aes_aead_modes(arch_name: str, bits: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ARCH_ENV, str(ARCHS[arch_name]))
    monkeypatch.setenv(GHASH_ENV, str(bits))
    monkeypatch.setenv("MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include CFG_LDLIBS_THREADS=-pthread")  # as test_aes
    run_cocotb(
        toplevel="couplet_aes",
        sources=RTL_FILES,
        test_file=__file__,
        build_name=f"aes_aead_{arch_name}_{bits}",
        parameters={"Arch": f"{ARCH_SET.width}'d{ARCHS[arch_name]}", "GhashBits": str(bits)},
    )
