"""cocotb tests of couplet_aes built with the options for small FPGAs (Decrypt, KeySizes), one
build per row of BUILDS: every mode, direction and key size the build has gives the right
output through DIN/DOUT and the word streams; what it lacks (ECB/CBC decryption, an absent key
length) is refused by CTRL as ctrl_legalize says, so a block never comes out decrypted or under a
key length the engine does not have. The testbench and golden model are test_aes.py's.

Run: .venv/bin/python -m pytest hw/ip/aes/test/test_aes_options.py -q   (COUPLET_TEST_SEED=<n>)
"""

from __future__ import annotations

import os

import cocotb
import pytest

from couplet.tools.cocotb_run import run_cocotb
from hw.ip.aes.test.test_aes import (ACT_EXPAND, ARCH_ENV, ARCH_SET, ARCHS, CBC, CFB, CODE_OK, CTR, CTRL,
                                     CTRL_DECRYPT, CTRL_KEY_LEN, DIN0, ECB, KEY0, MODE_NAMES, MODES, OFB, REGS,
                                     RTL_FILES, ST_BUSY, ST_DONE, ST_KEY_READY, ST_REFUSED_BUSY, ST_STICKY, AesTb,
                                     ctrl_word, golden)
from testsupport.accel_port_bfm import OP_WRITE2, to_words

OPTIONS_ENV = "COUPLET_AES_OPTIONS"  # "<decrypt 0|1> <key sizes, bits> <stream handover 0|1>" of the build
KEY_SIZES = REGS.enum("key_len")
# arch, Decrypt, key sizes (bits), StreamHandover: the smallest engines (round keys on the fly, one
# and two rounds per cycle; the smallest of all without the hand-over, as configs/aes128_enc.toml),
# and the stored schedule with subsets.
BUILDS = (("rolled", False, (128,), False), ("partial", False, (128,), True), ("partial", False, (128, 256), True),
          ("unrolled", True, (192,), True))


def options() -> tuple[bool, tuple[int, ...]]:
    decrypt, sizes, _ = os.environ[OPTIONS_ENV].split(" ", 2)
    return decrypt == "1", tuple(int(bits) for bits in sizes.split(","))


def stream_handover() -> bool:
    return os.environ[OPTIONS_ENV].split(" ")[2] == "1"


def has(decrypt: bool, mode: int, decrypting: bool) -> bool:
    """Whether an engine with `decrypt` runs `mode` in that direction: without the inverse cipher
    only CTR, CFB and OFB decrypt (with the forward cipher)."""
    return decrypt or not decrypting or mode in (CTR, CFB, OFB)


@cocotb.test()
async def options_every_supported_combination(dut):
    """Every mode x direction x key size the build has, through DIN/DOUT and the streams."""
    tb = await AesTb.started(dut)
    decrypt, sizes = options()
    for bits in sizes:
        for mode in MODES:
            for decrypting in (False, True):
                if not has(decrypt, mode, decrypting):
                    continue
                what = f"{MODE_NAMES[mode]}-{bits} {'dec' if decrypting else 'enc'}"
                key = await tb.new_key(bits // 8, mode, decrypting)
                assert await tb.read(CTRL) == ctrl_word(mode, decrypting, bits // 8), f"{what}: CTRL readback"
                iv = tb.random_iv()
                await tb.set_iv(iv)
                data = tb.rng.randbytes(32)
                expected, iv_after = golden(key, mode, decrypting, iv, data)
                got = await tb.din_block(data[:16]) + await tb.din_block(data[16:])
                assert got == expected, f"{what} DIN: got {got.hex()}, expected {expected.hex()}"
                assert await tb.read_iv() == iv_after, f"{what}: IV after DIN"
                await tb.set_iv(iv)
                assert await tb.stream(data) == expected, f"{what}: stream"
                await tb.expect_status((ST_STICKY & ~ST_DONE) | ST_BUSY, 0, what)  # DONE: the DIN blocks
                await tb.clear_status()


@cocotb.test()
async def options_refused_settings(dut):
    """A CTRL write asking for what the build lacks keeps the setting it had (read back), and the
    next block runs under that setting: never decrypted, never under an absent key length."""
    tb = await AesTb.started(dut)
    decrypt, sizes = options()
    first = min(sizes)
    reset_ctrl = await tb.read(CTRL)
    assert reset_ctrl == ctrl_word(ECB, False, first // 8), f"CTRL after reset 0x{reset_ctrl:x}: the smallest key"
    key = await tb.new_key(first // 8, CTR, False)
    for value in KEY_SIZES.values:
        bits = int(value.name)
        if bits in sizes:
            continue
        await tb.write(CTRL, ctrl_word(OFB, False, 16) & ~(3 << CTRL_KEY_LEN) | value.value << CTRL_KEY_LEN)
        got = await tb.read(CTRL)
        assert got == ctrl_word(OFB, False, first // 8), f"{bits}-bit key length: CTRL 0x{got:x}"
        await tb.expect_status(ST_KEY_READY, ST_KEY_READY, f"{bits}: the key length did not change")
    if not decrypt:
        for mode in (ECB, CBC):
            for before in (ctrl_word(CFB, True, first // 8), ctrl_word(CTR, False, first // 8)):
                await tb.write(CTRL, before)
                await tb.write(CTRL, ctrl_word(mode, True, first // 8))
                got = await tb.read(CTRL)
                assert got == before, f"{MODE_NAMES[mode]} decrypt after 0x{before:x}: CTRL 0x{got:x}"
            # The block runs CTR as CTRL still says, its output the CTR keystream, not a decryption.
            iv = tb.random_iv()
            await tb.set_iv(iv)
            block = tb.rng.randbytes(16)
            assert await tb.din_block(block) == golden(key, CTR, False, iv, block)[0], MODE_NAMES[mode]
        # Decryption stays settable where the forward cipher serves it.
        await tb.write(CTRL, ctrl_word(CFB, True, first // 8))
        assert await tb.read(CTRL) & CTRL_DECRYPT, "CFB decryption refused"


@cocotb.test()
async def options_key_words_beyond_the_longest_key(dut):
    """KEY words past the longest key length are accepted and ignored: the key is the first Nk."""
    tb = await AesTb.started(dut)
    _, sizes = options()
    longest = max(sizes) // 8
    key = tb.rng.randbytes(longest)
    words = to_words(key + tb.rng.randbytes(32 - longest))
    for i in range(0, 8, 2):
        await tb.write2(KEY0 + i, words[i], words[i + 1])
    tb.key, tb.key_len = key, longest
    await tb.write(CTRL, ctrl_word(ECB, False, longest))
    assert await tb.action(ACT_EXPAND) == CODE_OK
    await tb.expect_status(ST_KEY_READY | ST_BUSY, ST_KEY_READY, "after EXPAND")
    block = tb.rng.randbytes(16)
    assert await tb.din_block(block) == golden(key, ECB, False, bytes(16), block)[0]


@cocotb.test()
async def options_din_write_in_flight(dut):
    """A DIN write while a DIN block is in flight: taken with StreamHandover (the block took its
    input and its XOR value as it entered), refused without it (DIN is the block's input until it
    leaves). Either way the block in flight comes out right."""
    tb = await AesTb.started(dut)
    _, sizes = options()
    key = await tb.new_key(min(sizes) // 8, CTR, False)
    iv = tb.random_iv()
    await tb.set_iv(iv)
    data = tb.rng.randbytes(32)
    second = to_words(data[16:])
    got = await tb.din_block(data[:16], ((OP_WRITE2, DIN0, second[0], second[1]),))
    assert got == golden(key, CTR, False, iv, data)[0][:16], "the block in flight"
    refused = 0 if stream_handover() else ST_REFUSED_BUSY
    await tb.expect_status(ST_STICKY, refused | ST_DONE, "a DIN write in flight")


@pytest.mark.parametrize(("arch_name", "decrypt", "sizes", "with_handover"), BUILDS)
def test_aes_options(arch_name: str, decrypt: bool, sizes: tuple[int, ...], with_handover: bool,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ARCH_ENV, str(ARCHS[arch_name]))
    monkeypatch.setenv(OPTIONS_ENV, f"{int(decrypt)} {','.join(map(str, sizes))} {int(with_handover)}")
    monkeypatch.setenv("MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include CFG_LDLIBS_THREADS=-pthread")  # as test_aes
    mask = sum(1 << KEY_SIZES.value(str(bits)) for bits in sizes)
    run_cocotb(
        toplevel="couplet_aes",
        sources=RTL_FILES,
        test_file=__file__,
        build_name=(f"aes_{arch_name}_{'dec' if decrypt else 'enc'}_{'_'.join(map(str, sizes))}"
                    f"{'' if with_handover else '_no_handover'}"),
        parameters={"Arch": f"{ARCH_SET.width}'d{ARCHS[arch_name]}", "Decrypt": f"1'b{int(decrypt)}",
                    "KeySizes": f"{len(KEY_SIZES.values)}'b{mask:0{len(KEY_SIZES.values)}b}",
                    "StreamHandover": f"1'b{int(with_handover)}"},
    )
