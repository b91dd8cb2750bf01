"""Host tests of the AES front end and the software backend (sw/lib/aes/aes.c, aes_soft.c).

The two files and sw/lib/status.c are compiled natively with the SDK's warning flags into the
driver tests/aes_host/aes_driver.c, which reads commands on stdin and answers one line each, so
one process runs all the vectors of a test. Expected values come from the published vectors
(FIPS-197 Appendix C, SP 800-38A Appendix F, the NIST CAVP AESAVS files of the
`cryptography_vectors` package) and from pycryptodome as an independent model; error codes from
the contract in sw/include/couplet/aes.h.

The package ships no Monte Carlo (MCT) files, so the AESAVS Monte Carlo procedure for ECB and
CBC runs in the driver through the public API and is checked against the same procedure written
here on pycryptodome.

A second build stands in for every hardware backend (FAKE_BACKENDS in the driver: each marks
itself as using the accelerator and computes with the software backend), to check the backend
table, the default backend and the accelerator lock, which the software backend alone never
takes. Further tests compile the files for the SoC (rv32imac, the SDK's flags) to catch
target-specific warnings and check the lock's atomic and the absence of library calls and tables.

Run: .venv/bin/python -m pytest tests/test_aes_host.py -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from pathlib import Path

import cryptography_vectors
import pytest
from Crypto.Cipher import AES

from couplet import paths
from couplet.model.regs import load_ip_regs
from testsupport import cavp
from host_c import (DriverBatch, Expectation, build_host_driver, cross_compile, driver_fixtures, hex_or_null,
                    status_codes, undefined_symbols)

AES_DIR = paths.SW_DIR / "lib" / "aes"
AES_SOURCES = (AES_DIR / "aes.c", AES_DIR / "aes_soft.c")
DRIVER_SOURCE = Path(__file__).resolve().parent / "aes_host" / "aes_driver.c"
VECTORS_DIR = Path(cryptography_vectors.__file__).resolve().parent / "ciphers" / "AES"

# couplet_aes_mode_t: the accelerator's CTRL.mode values.
ECB, CBC, CTR, CFB, OFB = (load_ip_regs("aes").value("mode", m) for m in ("ecb", "cbc", "ctr", "cfb", "ofb"))
MODES = (ECB, CBC, CTR, CFB, OFB)
MODE_NAMES = {ECB: "ECB", CBC: "CBC", CTR: "CTR", CFB: "CFB", OFB: "OFB"}
KEY_LENGTHS = (16, 24, 32)
BACKENDS = ("soft", "tight", "mem", "mmio", "mmio_irq", "dma", "zkn")  # couplet_aes_backend_id_t
SOFT = 0
UNTOUCHED = 0xEE  # the driver fills the output buffer with this before each call

# Stand-ins for the generated couplet/soc_config.h.
SOC_CONFIG_NO_AES = "// stand-in: a SoC without the AES accelerator\n"
SOC_CONFIG_ALL_AES = "".join(
    f"#define COUPLET_AES_HAS_{name} 1\n" for name in ("TIGHT", "MEM", "MMIO", "DMA", "ZKN")
) + "#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_TIGHT\n"


STATUS = status_codes()
OK = STATUS["OK"]


# ---------------------------------------------------------------------------------------------
# Building and driving


@dataclass(frozen=True)
class Result:
    status: int
    out: bytes | None
    iv: bytes | None


def parse_result(line: str) -> Result:
    status, out, iv = line.split(" ")
    decode = {"-": None, "=": b""}
    return Result(int(status), decode[out] if out in decode else bytes.fromhex(out),
                  decode[iv] if iv in decode else bytes.fromhex(iv))


def crypt_cmd(ctx: int | None, mode: int, decrypt: bool, iv: bytes | None, data: bytes | None,
              *options: str) -> str:
    ctx_text = "-" if ctx is None else str(ctx)
    return " ".join(
        ["crypt", ctx_text, str(mode), str(int(decrypt)), hex_or_null(iv), hex_or_null(data), *options])


class Batch(DriverBatch):
    """Commands for one driver run; an expectation may also be a Result, compared parsed."""

    def check(self, expect: Expectation, line: str) -> None:
        if isinstance(expect, Result):
            got = parse_result(line)
            assert got == expect, f"got {got}, expected {expect}"
        else:
            super().check(expect, line)


driver, fake_driver = driver_fixtures("aes", DRIVER_SOURCE, AES_DIR, AES_SOURCES, SOC_CONFIG_NO_AES, SOC_CONFIG_ALL_AES)


# ---------------------------------------------------------------------------------------------
# The reference: pycryptodome, and SP 800-38A's definitions for the chaining value after a call


def reference(mode: int, decrypt: bool, key: bytes, iv: bytes | None, data: bytes) -> tuple[bytes, bytes | None]:
    """Output and the chaining value (CTR: the counter) a call leaves in iv."""
    if mode == ECB:
        ecb = AES.new(key, AES.MODE_ECB)
        return (ecb.decrypt(data) if decrypt else ecb.encrypt(data)), None
    assert iv is not None
    if mode == CTR:
        # SP 800-38A B.1: the whole block is the counter; a call consumes ceil(len/16) values.
        start = int.from_bytes(iv, "big")
        count = -(-len(data) // 16)
        counters = b"".join(((start + i) % 2**128).to_bytes(16, "big") for i in range(count))
        keystream = AES.new(key, AES.MODE_ECB).encrypt(counters)
        return bytes(a ^ b for a, b in zip(data, keystream)), ((start + count) % 2**128).to_bytes(16, "big")
    if not data:
        return b"", iv
    cipher: Any
    if mode == CBC:
        cipher = AES.new(key, AES.MODE_CBC, iv=iv)
    elif mode == CFB:
        cipher = AES.new(key, AES.MODE_CFB, iv=iv, segment_size=128)
    else:
        cipher = AES.new(key, AES.MODE_OFB, iv=iv)
    out = cipher.decrypt(data) if decrypt else cipher.encrypt(data)
    if mode == OFB:
        return out, bytes(a ^ b for a, b in zip(out[-16:], data[-16:]))  # the last keystream block
    ciphertext = data if decrypt else out
    return out, ciphertext[-16:]


def expect_ok(mode: int, decrypt: bool, key: bytes, iv: bytes | None, data: bytes) -> Result:
    out, next_iv = reference(mode, decrypt, key, iv, data)
    return Result(OK, out if data else b"", next_iv)


# ---------------------------------------------------------------------------------------------
# Published vectors

FIPS197_APPENDIX_C = (  # key, plaintext, ciphertext
    ("000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a"),
    ("000102030405060708090a0b0c0d0e0f1011121314151617", "00112233445566778899aabbccddeeff",
     "dda97ca4864cdfe06eaf70a0ec0d7191"),
    ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "00112233445566778899aabbccddeeff",
     "8ea2b7ca516745bfeafc49904b496089"),
)

SP800_38A_KEYS = {
    16: "2b7e151628aed2a6abf7158809cf4f3c",
    24: "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
    32: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
}
SP800_38A_PLAINTEXT = (
    "6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710"
)
SP800_38A_IV = "000102030405060708090a0b0c0d0e0f"
SP800_38A_COUNTER = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
SP800_38A_CIPHERTEXT = {  # (mode, key length): F.1.1 ... F.5.5
    (ECB, 16): "3ad77bb40d7a3660a89ecaf32466ef97" "f5d3d58503b9699de785895a96fdbaaf"
               "43b1cd7f598ece23881b00e3ed030688" "7b0c785e27e8ad3f8223207104725dd4",
    (ECB, 24): "bd334f1d6e45f25ff712a214571fa5cc" "974104846d0ad3ad7734ecb3ecee4eef"
               "ef7afd2270e2e60adce0ba2face6444e" "9a4b41ba738d6c72fb16691603c18e0e",
    (ECB, 32): "f3eed1bdb5d2a03c064b5a7e3db181f8" "591ccb10d410ed26dc5ba74a31362870"
               "b6ed21b99ca6f4f9f153e7b1beafed1d" "23304b7a39f9f3ff067d8d8f9e24ecc7",
    (CBC, 16): "7649abac8119b246cee98e9b12e9197d" "5086cb9b507219ee95db113a917678b2"
               "73bed6b8e3c1743b7116e69e22229516" "3ff1caa1681fac09120eca307586e1a7",
    (CBC, 24): "4f021db243bc633d7178183a9fa071e8" "b4d9ada9ad7dedf4e5e738763f69145a"
               "571b242012fb7ae07fa9baac3df102e0" "08b0e27988598881d920a9e64f5615cd",
    (CBC, 32): "f58c4c04d6e5f1ba779eabfb5f7bfbd6" "9cfc4e967edb808d679f777bc6702c7d"
               "39f23369a9d9bacfa530e26304231461" "b2eb05e2c39be9fcda6c19078c6a9d1b",
    (CFB, 16): "3b3fd92eb72dad20333449f8e83cfb4a" "c8a64537a0b3a93fcde3cdad9f1ce58b"
               "26751f67a3cbb140b1808cf187a4f4df" "c04b05357c5d1c0eeac4c66f9ff7f2e6",
    (CFB, 24): "cdc80d6fddf18cab34c25909c99a4174" "67ce7f7f81173621961a2b70171d3d7a"
               "2e1e8a1dd59b88b1c8e60fed1efac4c9" "c05f9f9ca9834fa042ae8fba584b09ff",
    (CFB, 32): "dc7e84bfda79164b7ecd8486985d3860" "39ffed143b28b1c832113c6331e5407b"
               "df10132415e54b92a13ed0a8267ae2f9" "75a385741ab9cef82031623d55b1e471",
    (OFB, 16): "3b3fd92eb72dad20333449f8e83cfb4a" "7789508d16918f03f53c52dac54ed825"
               "9740051e9c5fecf64344f7a82260edcc" "304c6528f659c77866a510d9c1d6ae5e",
    (OFB, 24): "cdc80d6fddf18cab34c25909c99a4174" "fcc28b8d4c63837c09e81700c1100401"
               "8d9a9aeac0f6596f559c6d4daf59a5f2" "6d9f200857ca6c3e9cac524bd9acc92a",
    (OFB, 32): "dc7e84bfda79164b7ecd8486985d3860" "4febdc6740d20b3ac88f6ad82a4fb08d"
               "71ab47a086e86eedf39d1c5bba97c408" "0126141d67f37be8538f5a8be740e484",
    (CTR, 16): "874d6191b620e3261bef6864990db6ce" "9806f66b7970fdff8617187bb9fffdff"
               "5ae4df3edbd5d35e5b4f09020db03eab" "1e031dda2fbe03d1792170a0f3009cee",
    (CTR, 24): "1abc932417521ca24f2b0459fe7e6e0b" "090339ec0aa6faefd5ccc2c6f4ce8e94"
               "1e36b26bd1ebc670d1bd1d665620abf7" "4f78a7f6d29809585a97daec58c6b050",
    (CTR, 32): "601ec313775789a5b7a7f504bbf3d228" "f443e3ca4d62b59aca84e990cacaf5c5"
               "2b0930daa23de94ce87017ba2d84988d" "dfc9c58db67aada613c2dd08457941a6",
}


def published_vectors(batch: Batch, ctx: int, options: tuple[str, ...] = ()) -> None:
    """FIPS-197 Appendix C and SP 800-38A Appendix F, both directions, on context `ctx`."""
    for key_hex, plaintext_hex, ciphertext_hex in FIPS197_APPENDIX_C:
        batch.add(f"key {ctx} {key_hex} {len(key_hex) // 2}", OK)
        batch.add(crypt_cmd(ctx, ECB, False, None, bytes.fromhex(plaintext_hex), *options),
                  Result(OK, bytes.fromhex(ciphertext_hex), None))
        batch.add(crypt_cmd(ctx, ECB, True, None, bytes.fromhex(ciphertext_hex), *options),
                  Result(OK, bytes.fromhex(plaintext_hex), None))
    plaintext = bytes.fromhex(SP800_38A_PLAINTEXT)
    for (mode, key_len), text in SP800_38A_CIPHERTEXT.items():
        ciphertext = bytes.fromhex(text)
        iv = None if mode == ECB else bytes.fromhex(SP800_38A_COUNTER if mode == CTR else SP800_38A_IV)
        # The chaining value after the last block, by the mode's definition.
        next_iv: bytes | None
        if mode == ECB:
            next_iv = None
        elif mode == CTR:
            next_iv = (int(SP800_38A_COUNTER, 16) + 4).to_bytes(16, "big")
        elif mode == OFB:
            next_iv = bytes(a ^ b for a, b in zip(plaintext[-16:], ciphertext[-16:]))
        else:
            next_iv = ciphertext[-16:]
        batch.add(f"key {ctx} {SP800_38A_KEYS[key_len]} {key_len}", OK)
        batch.add(crypt_cmd(ctx, mode, False, iv, plaintext, *options), Result(OK, ciphertext, next_iv))
        batch.add(crypt_cmd(ctx, mode, True, iv, ciphertext, *options), Result(OK, plaintext, next_iv))


def test_fips197_and_sp800_38a_vectors(driver: Path) -> None:
    batch = Batch()
    batch.add("init 0 0", OK)
    published_vectors(batch, 0)
    published_vectors(batch, 0, ("api",))  # the same through the named wrappers
    batch.run(driver)


CAVP_FILES = {  # mode: file name patterns (CFB-128 only: CFB1 and CFB8 are other modes)
    ECB: "ECB/ECB*.rsp",
    CBC: "CBC/CBC*.rsp",
    CFB: "CFB/CFB128*.rsp",
    OFB: "OFB/OFB*.rsp",
    CTR: "CTR/aes-*-ctr.txt",
}


def test_cavp_known_answer_and_multiblock_files(driver: Path) -> None:
    batch = Batch()
    batch.add("init 0 0", OK)
    files = 0
    for mode, pattern in CAVP_FILES.items():
        paths_found = sorted(VECTORS_DIR.glob(pattern))
        kinds = {re.sub(r"\d+$", "", p.stem.removeprefix(MODE_NAMES[mode]).removeprefix("128")) for p in paths_found}
        if mode != CTR:
            assert {"GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"} <= kinds, (mode, kinds)
        for path in paths_found:
            files += 1
            for vector in cavp.parse(path, MODE_NAMES[mode]):
                key, decrypt = vector.key, vector.decrypt
                iv = vector.iv if mode != ECB else None
                plaintext, ciphertext = vector.plaintext, vector.ciphertext
                given, wanted = (ciphertext, plaintext) if decrypt else (plaintext, ciphertext)
                batch.add(f"key 0 {key.hex()} {len(key)}", OK)
                batch.add(crypt_cmd(0, mode, decrypt, iv, given), output_is(wanted))
                if mode == CTR:  # RFC 3686 gives encryptions only; CTR decrypts with the same keystream
                    batch.add(crypt_cmd(0, mode, True, iv, ciphertext), output_is(plaintext))
    assert files == 15 * 4 + 3
    assert len(batch.commands) > 8000
    batch.run(driver)


def output_is(wanted: bytes) -> Callable[[str], None]:
    """Checks the status and the output only (the files do not give the next chaining value)."""

    def check(line: str) -> None:
        got = parse_result(line)
        assert got.status == OK and got.out == wanted, f"got {got}, expected output {wanted.hex()}"

    return check


# ---------------------------------------------------------------------------------------------
# Monte Carlo tests (AESAVS 6.4), ECB and CBC


def mct_reference(cbc: bool, decrypt: bool, key: bytes, iv: bytes, text: bytes, outer: int) -> list[bytes]:
    outputs = []
    for _ in range(outer):
        cipher = AES.new(key, AES.MODE_CBC, iv=iv) if cbc else AES.new(key, AES.MODE_ECB)
        step = cipher.decrypt if decrypt else cipher.encrypt
        block, previous, output = text, b"", b""
        for j in range(1000):
            previous, output = output, step(block)
            if cbc:
                block = iv if j == 0 else previous  # the next input: IV first, then the output before last
            else:
                block = output
        outputs.append(output)
        material = previous + output
        key = bytes(a ^ b for a, b in zip(key, material[-len(key):]))
        if cbc:
            iv, text = output, previous
        else:
            text = output
    return outputs


def test_monte_carlo_ecb_cbc(driver: Path, rng: random.Random) -> None:
    outer = 10  # of AESAVS's 100 outer rounds, each 1000 chained calls
    batch = Batch()
    for cbc in (False, True):
        for decrypt in (False, True):
            for key_len in KEY_LENGTHS:
                key, iv, text = rng.randbytes(key_len), rng.randbytes(16), rng.randbytes(16)
                expected = " ".join(b.hex() for b in mct_reference(cbc, decrypt, key, iv, text, outer))
                mode = "cbc" if cbc else "ecb"
                batch.add(f"mct {mode} {int(decrypt)} {key.hex()} {iv.hex() if cbc else '-'} {text.hex()} {outer}",
                          expected)
    batch.run(driver)


# ---------------------------------------------------------------------------------------------
# Error codes and states


def test_error_codes_and_states(driver: Path) -> None:
    s = STATUS
    key = bytes(range(16))
    block = bytes(range(32))
    iv = bytes(16)

    def refused(status: int, n: int = 32, iv_after: bytes | None = iv) -> Result:
        """An error: the output buffer and the iv are as they were."""
        return Result(status, untouched(n), iv_after)

    b = Batch()

    # Backend table of a SoC without the accelerator: only the software backend.
    for index, name in enumerate(BACKENDS):
        b.add(f"name {index}", name)
        b.add(f"avail {index}", int(index == SOFT))
    for bad in (len(BACKENDS), -1, 1000):
        b.add(f"name {bad}", "unknown")
        b.add(f"avail {bad}", 0)

    # init
    b.add("init - 0", s["ERR_NULL"])
    b.add("init - d", s["ERR_NULL"])
    for index in range(1, len(BACKENDS)):  # every hardware backend: not in this SoC
        b.add(f"init 0 {index}", s["ERR_UNSUPPORTED"])
        b.add("which 0", -1)
    b.add(crypt_cmd(0, ECB, False, None, block), refused(s["ERR_STATE"], iv_after=None))
    b.add("init 0 7", s["ERR_ARG"])
    b.add("init 0 -1", s["ERR_ARG"])
    b.add("init 0 d", OK)
    b.add("which 0", SOFT)  # no default in the stand-in config: the software backend

    # Uninitialised contexts: garbage and zeroed memory.
    for fill in ("0xa5", "0"):
        b.add(f"fill 1 {fill}", 0)
        b.add(f"key 1 {key.hex()} 16", s["ERR_STATE"])
        b.add(f"key 1 {key.hex()} 15", s["ERR_STATE"])  # state before key length
        b.add(crypt_cmd(1, CBC, False, iv, block), refused(s["ERR_STATE"]))
        b.add("zeroize 1", s["ERR_STATE"])

    # Initialised, no key yet.
    b.add("init 2 0", OK)
    b.add("state 2", "0 0 1")
    for mode in MODES:
        b.add(crypt_cmd(2, mode, False, None if mode == ECB else iv, block),
              refused(s["ERR_STATE"], iv_after=None if mode == ECB else iv))
    b.add(crypt_cmd(2, ECB, False, None, block[:15]), refused(s["ERR_STATE"], 15, None))  # state before length
    b.add("zeroize 2", OK)

    # set_key arguments: NULL first, then state, then length.
    b.add(f"key - {key.hex()} 16", s["ERR_NULL"])
    b.add("key 2 - 16", s["ERR_NULL"])
    b.add("key 2 - 15", s["ERR_NULL"])
    for bad_len in (0, 1, 8, 15, 17, 20, 23, 25, 31, 33, 48, 64):
        b.add(f"key 2 {bytes(64).hex()} {bad_len}", s["ERR_KEY_LEN"])
    b.add("state 2", "0 0 1")

    # A refused key leaves the previous one in place.
    b.add(f"key 0 {key.hex()} 16", OK)
    b.add(f"key 0 {bytes(64).hex()} 17", s["ERR_KEY_LEN"])
    b.add(crypt_cmd(0, ECB, False, None, block), expect_ok(ECB, False, key, None, block))

    # crypt: NULL pointers (in/out may be NULL only when len == 0).
    b.add(crypt_cmd(None, ECB, False, None, block), refused(s["ERR_NULL"], iv_after=None))
    b.add(crypt_cmd(0, ECB, False, None, None, "len=32"), refused(s["ERR_NULL"], iv_after=None))
    b.add(crypt_cmd(0, ECB, False, None, block, "outnull"), refused(s["ERR_NULL"], iv_after=None))
    for mode in (CBC, CTR, CFB, OFB):
        b.add(crypt_cmd(0, mode, False, None, block), refused(s["ERR_NULL"], iv_after=None))
        b.add(crypt_cmd(0, mode, False, None, block, "api"), refused(s["ERR_NULL"], iv_after=None))
    b.add(crypt_cmd(0, ECB, False, None, None, "len=0", "outnull"), Result(OK, b"", None))
    b.add(crypt_cmd(0, CTR, False, iv, None, "len=0", "outnull"), Result(OK, b"", iv))
    b.add(crypt_cmd(None, ECB, False, None, None, "len=0", "outnull"), Result(s["ERR_NULL"], b"", None))
    b.add(crypt_cmd(2, ECB, False, None, None, "len=0", "outnull"), Result(s["ERR_STATE"], b"", None))
    b.add(crypt_cmd(1, CBC, False, None, block), refused(s["ERR_NULL"], iv_after=None))  # NULL before state

    # Lengths: multiples of 16 except CTR; 0 does nothing.
    for mode in (ECB, CBC, CFB, OFB):
        mode_iv = None if mode == ECB else iv
        for length in (1, 15, 17, 31, 33):
            for decrypt in (False, True):
                b.add(crypt_cmd(0, mode, decrypt, mode_iv, block[:length] + bytes(max(0, length - 32))),
                      refused(s["ERR_LEN"], length, mode_iv))
        b.add(crypt_cmd(0, mode, False, mode_iv, b""), Result(OK, b"", mode_iv))
    for length in (0, 1, 15, 16, 17, 31, 33, 47):
        data = bytes(range(length))
        b.add(crypt_cmd(0, CTR, False, iv, data), expect_ok(CTR, False, key, iv, data))

    # Mode validity comes last.
    for bad_mode in (5, 7, 255, -1):
        b.add(crypt_cmd(0, bad_mode, False, iv, block), refused(s["ERR_ARG"]))
        b.add(crypt_cmd(0, bad_mode, False, iv, block[:15]), refused(s["ERR_LEN"], 15))
        b.add(crypt_cmd(0, bad_mode, False, None, block), refused(s["ERR_NULL"], iv_after=None))
        b.add(crypt_cmd(2, bad_mode, False, iv, block), refused(s["ERR_STATE"]))

    # zeroize: wipes the key, keeps the backend, the context needs a new key.
    b.add("zeroize -", s["ERR_NULL"])
    b.add(f"key 3 {key.hex()} 16", s["ERR_STATE"])
    b.add("init 3 0", OK)
    b.add(f"key 3 {bytes(range(32)).hex()} 32", OK)
    b.add("state 3", lambda line: _expect_key_state(line, 32))
    b.add("zeroize 3", OK)
    b.add("state 3", "0 0 1")
    b.add("which 3", SOFT)
    for mode in MODES:
        mode_iv = None if mode == ECB else iv
        b.add(crypt_cmd(3, mode, True, mode_iv, block), refused(s["ERR_STATE"], iv_after=mode_iv))
    b.add("zeroize 3", OK)  # again: harmless
    b.add(f"key 3 {key.hex()} 16", OK)
    b.add(crypt_cmd(3, CBC, False, iv, block), expect_ok(CBC, False, key, iv, block))

    # Re-initialising a context drops its key.
    b.add("init 3 0", OK)
    b.add("state 3", "0 0 1")
    b.add(crypt_cmd(3, ECB, False, None, block), refused(s["ERR_STATE"], iv_after=None))
    b.run(driver)


def untouched(n: int) -> bytes:
    return bytes([UNTOUCHED]) * n


def _expect_key_state(line: str, key_len: int) -> None:
    length, key_id, wiped = line.split()
    assert int(length) == key_len and int(key_id) != 0 and wiped == "0", line


def test_key_ids_are_nonzero_and_unique(driver: Path) -> None:
    ids: list[int] = []
    b = Batch()
    for ctx in range(4):
        b.add(f"init {ctx} 0", OK)
    for i in range(64):
        ctx = i % 4
        b.add(f"key {ctx} {(bytes([i]) * 16).hex()} 16", OK)
        b.add(f"state {ctx}", lambda line: ids.append(int(line.split()[1])))
    b.run(driver)
    assert len(ids) == 64 and 0 not in ids and len(set(ids)) == 64, ids


# ---------------------------------------------------------------------------------------------
# Data handling: chaining, in place, alignment, several contexts, random differential


def keys_of_each_length(b: Batch, rng: random.Random) -> Iterator[bytes]:
    """Context 0 initialised, then given a random key of each length in turn."""
    b.add("init 0 0", OK)
    for key_len in KEY_LENGTHS:
        key = rng.randbytes(key_len)
        b.add(f"key 0 {key.hex()} {key_len}", OK)
        yield key


def modes_and_directions(rng: random.Random) -> Iterator[tuple[int, bool, bytes | None]]:
    """Each mode, encrypting and decrypting, with a random iv (None for ECB)."""
    for mode in MODES:
        for decrypt in (False, True):
            yield mode, decrypt, None if mode == ECB else rng.randbytes(16)


def test_chaining_across_calls(driver: Path, rng: random.Random) -> None:
    """Two calls continue one message: the same as one call (CTR: each call starts a block)."""
    b = Batch()
    for key in keys_of_each_length(b, rng):
        for mode, decrypt, iv in modes_and_directions(rng):
            blocks = rng.randint(2, 9)
            data = rng.randbytes(16 * blocks)
            split = 16 * rng.randint(1, blocks - 1)
            whole = expect_ok(mode, decrypt, key, iv, data)
            first = expect_ok(mode, decrypt, key, iv, data[:split])
            second = expect_ok(mode, decrypt, key, first.iv, data[split:])
            assert first.out is not None and second.out is not None
            assert first.out + second.out == whole.out and second.iv == whole.iv  # the model agrees
            b.add(crypt_cmd(0, mode, decrypt, iv, data), whole)
            b.add(crypt_cmd(0, mode, decrypt, iv, data[:split]), first)
            b.add(crypt_cmd(0, mode, decrypt, first.iv, data[split:]), second)
        # CTR with a partial block: the next call starts at the next counter value.
        counter = rng.randbytes(16)
        data = rng.randbytes(40)
        first = expect_ok(CTR, False, key, counter, data[:20])
        assert first.iv == ((int.from_bytes(counter, "big") + 2) % 2**128).to_bytes(16, "big")
        b.add(crypt_cmd(0, CTR, False, counter, data[:20]), first)
        b.add(crypt_cmd(0, CTR, False, first.iv, data[20:]), expect_ok(CTR, False, key, first.iv, data[20:]))
    # The counter is all 128 bits and wraps to zero.
    key = rng.randbytes(16)
    b.add(f"key 0 {key.hex()} 16", OK)
    for start in ("ff" * 16, "ff" * 15 + "fe", "00" * 8 + "ff" * 8, "00" * 4 + "ff" * 12):
        counter = bytes.fromhex(start)
        data = rng.randbytes(50)
        b.add(crypt_cmd(0, CTR, False, counter, data), expect_ok(CTR, False, key, counter, data))
    b.run(driver)


def random_call(rng: random.Random, key: bytes, mode: int, ctx: int) -> tuple[str, Result]:
    decrypt = rng.random() < 0.5
    iv = None if mode == ECB else rng.randbytes(16)
    if mode == CTR:
        length = rng.choice((rng.randint(0, 48), rng.randint(0, 300)))
    else:
        length = 16 * rng.choice((rng.randint(0, 3), rng.randint(0, 20)))
    data = rng.randbytes(length)
    options = []
    if rng.random() < 0.3:
        options.append("inplace")
    options.append(f"ioff={rng.randint(0, 7)}")
    options.append(f"ooff={rng.randint(0, 7)}")
    if rng.random() < 0.3:
        options.append("api")
    return crypt_cmd(ctx, mode, decrypt, iv, data, *options), expect_ok(mode, decrypt, key, iv, data)


def test_random_differential(driver: Path, rng: random.Random) -> None:
    """Random keys, modes, lengths, alignments and in-place calls against pycryptodome."""
    b = Batch()
    b.add("init 0 0", OK)
    for _ in range(500):
        key = rng.randbytes(rng.choice(KEY_LENGTHS))
        b.add(f"key 0 {key.hex()} {len(key)}", OK)
        for _ in range(2):
            b.add(*random_call(rng, key, rng.choice(MODES), 0))
    b.run(driver)


def test_in_place_and_unaligned_every_mode(driver: Path, rng: random.Random) -> None:
    b = Batch()
    for key in keys_of_each_length(b, rng):
        for mode, decrypt, iv in modes_and_directions(rng):
            data = rng.randbytes(16 * 5 + (7 if mode == CTR else 0))  # odd and even block counts
            for offset in range(4):
                expected = expect_ok(mode, decrypt, key, iv, data)
                b.add(crypt_cmd(0, mode, decrypt, iv, data, "inplace", f"ooff={offset}"), expected)
                b.add(crypt_cmd(0, mode, decrypt, iv, data, f"ioff={offset}", f"ooff={3 - offset}"), expected)
                b.add(crypt_cmd(0, mode, decrypt, iv, data[:16], f"ioff={offset}", f"ooff={offset}"),
                      expect_ok(mode, decrypt, key, iv, data[:16]))
    b.run(driver)


def test_interleaved_contexts(driver: Path, rng: random.Random) -> None:
    """Several contexts with different keys, used in turn, each continuing its own message."""
    b = Batch()
    contexts = []
    for ctx, key_len in enumerate((16, 24, 32, 16, 32)):
        key = rng.randbytes(key_len)
        mode = MODES[ctx % len(MODES)]
        b.add(f"init {ctx} 0", OK)
        b.add(f"key {ctx} {key.hex()} {key_len}", OK)
        contexts.append(Stream(ctx, key, mode, rng.random() < 0.5, None if mode == ECB else rng.randbytes(16)))
    for _ in range(200):
        stream = rng.choice(contexts)
        data = rng.randbytes(16 * rng.randint(0, 4) + (rng.randint(0, 15) if stream.mode == CTR else 0))
        expected = expect_ok(stream.mode, stream.decrypt, stream.key, stream.iv, data)
        b.add(crypt_cmd(stream.ctx, stream.mode, stream.decrypt, stream.iv, data), expected)
        stream.iv = expected.iv
    b.run(driver)


@dataclass
class Stream:
    """One message in progress on one context."""

    ctx: int
    key: bytes
    mode: int
    decrypt: bool
    iv: bytes | None


# ---------------------------------------------------------------------------------------------
# Hardware backends stood in for: backend table, default backend, accelerator lock


def test_backend_table_and_lock_with_stand_in_hardware_backends(fake_driver: Path, rng: random.Random) -> None:
    s = STATUS
    key, key2 = rng.randbytes(16), rng.randbytes(32)
    block = rng.randbytes(32)
    iv = rng.randbytes(16)
    b = Batch()
    for index, name in enumerate(BACKENDS):
        b.add(f"avail {index}", 1)
        b.add(f"name {index}", name)
    b.add(f"avail {len(BACKENDS)}", 0)
    b.add("init 0 d", OK)
    b.add("which 0", 1)  # the stand-in config's default: TIGHT
    for index in range(len(BACKENDS)):
        b.add(f"init 0 {index}", OK)
        b.add("which 0", index)
        published_vectors(b, 0)
        b.add(f"key 0 {key.hex()} 16", OK)
        for mode in MODES:
            b.add(*random_call(rng, key, mode, 0))

    # While a call holds the accelerator, every other accelerator call is refused at once with
    # BUSY and changes nothing; software contexts do not take the lock.
    b.add("init 0 1", OK)
    b.add(f"key 0 {key.hex()} 16", OK)
    b.add("init 1 3", OK)
    b.add(f"key 1 {key2.hex()} 32", OK)
    b.add("init 2 0", OK)
    b.add(f"key 2 {key2.hex()} 32", OK)
    busy = f"1 {s['ERR_BUSY']} {s['ERR_BUSY']} {s['ERR_BUSY']}"
    b.add("probe 1", 0)
    b.add(crypt_cmd(0, CBC, False, iv, block), expect_ok(CBC, False, key, iv, block))
    b.add("probed", busy)
    b.add("probe 1", 0)
    b.add(f"key 0 {key.hex()} 16", OK)
    b.add("probed", busy)
    b.add(crypt_cmd(1, ECB, False, None, block), expect_ok(ECB, False, key2, None, block))  # lock free, key kept
    b.add("probe 2", 0)
    b.add(crypt_cmd(0, ECB, False, None, block), expect_ok(ECB, False, key, None, block))
    b.add("probed", f"1 {OK} {OK} {OK}")  # the software context went ahead
    b.add("which 2", SOFT)

    # A backend error is returned and releases the lock; a failed CTR tail writes nothing.
    b.add(f"fail {s['ERR_HW']}", 0)
    b.add(crypt_cmd(0, ECB, False, None, block), Result(s["ERR_HW"], untouched(32), None))
    b.add(f"fail {s['ERR_TIMEOUT']}", 0)
    b.add(crypt_cmd(0, CTR, False, iv, block[:15]), Result(s["ERR_TIMEOUT"], untouched(15), iv))
    b.add(crypt_cmd(0, CTR, False, iv, block[:15]), expect_ok(CTR, False, key, iv, block[:15]))

    # Calls into the backend: CTR with a tail is two, length 0 is none.
    calls: list[tuple[int, ...]] = []
    record = lambda line: calls.append(tuple(int(x) for x in line.split()))  # noqa: E731
    b.add("counts", record)
    b.add(crypt_cmd(0, CTR, False, iv, block[:17]), expect_ok(CTR, False, key, iv, block[:17]))
    b.add("counts", record)
    b.add(crypt_cmd(0, CTR, False, iv, block[:16]), expect_ok(CTR, False, key, iv, block[:16]))
    b.add("counts", record)
    b.add(crypt_cmd(0, CTR, False, iv, b""), Result(OK, b"", iv))
    b.add("counts", record)

    # zeroize calls the backend's zeroize under the lock, while key_id still names the key.
    key_ids: list[int] = []
    b.add("state 0", lambda line: key_ids.append(int(line.split()[1])))
    b.add("probe 1", 0)
    b.add("zeroize 0", OK)
    b.add("probed", busy)
    b.add("counts", record)
    b.add("state 0", "0 0 1")
    b.add(crypt_cmd(0, ECB, False, None, block), Result(s["ERR_STATE"], untouched(32), None))
    b.run(fake_driver)

    crypt_calls = [c[1] for c in calls]
    assert crypt_calls[1] - crypt_calls[0] == 2 and crypt_calls[2] - crypt_calls[1] == 1
    assert crypt_calls[3] == crypt_calls[2]
    assert calls[4][2] == calls[3][2] + 1 and calls[4][3] == key_ids[0] != 0


# An engine built encrypt-only with AES-128 alone (configs/aes128_enc.toml), as soc_config.h says it.
SOC_CONFIG_ENC128 = (SOC_CONFIG_ALL_AES + "#define COUPLET_AES_ENGINE_DECRYPT 0\n"
                     f"#define COUPLET_AES_ENGINE_KEY_SIZES 0x{1 << load_ip_regs('aes').value('key_len', '128'):x}u\n")
ENGINE_BACKENDS = range(1, 6)  # tight, mem, mmio, mmio_irq, dma: the ones that drive the engine


@pytest.fixture(scope="session")
def enc128_driver() -> Path:
    return build_host_driver(DRIVER_SOURCE, AES_DIR, AES_SOURCES, "aes_fake_enc128", SOC_CONFIG_ENC128,
                             ("-DFAKE_BACKENDS",))


def test_engine_without_decryption_and_long_keys_refuses_before_the_backend(enc128_driver: Path,
                                                                            rng: random.Random) -> None:
    """Each backend that drives the engine answers ECB/CBC decryption with UNSUPPORTED_MODE and
    192/256-bit keys with UNSUPPORTED_KEY_SIZE, writing no output and never calling the backend;
    what the engine has works; soft does everything. (The stand-in zkn takes the accelerator lock,
    so it counts as driving the engine here; the real one has its own unit.)"""
    s = STATUS
    key, long_key, data, iv = rng.randbytes(16), rng.randbytes(32), rng.randbytes(32), rng.randbytes(16)
    b = Batch()
    counts: list[tuple[int, ...]] = []
    record = lambda line: counts.append(tuple(int(x) for x in line.split()))  # noqa: E731
    for index in (SOFT, *ENGINE_BACKENDS):
        engine = index in ENGINE_BACKENDS
        b.add(f"init 0 {index}", OK)
        b.add("counts", record)
        for key_len in (24, 32):
            b.add(f"key 0 {long_key.hex()} {key_len}", s["ERR_UNSUPPORTED_KEY_SIZE"] if engine else OK)
        b.add(f"key 0 {key.hex()} 16", OK)
        b.add("counts", record)
        for mode in MODES:
            for decrypt in (False, True):
                mode_iv = None if mode == ECB else iv
                if engine and decrypt and mode in (ECB, CBC):
                    b.add(crypt_cmd(0, mode, decrypt, mode_iv, data),
                          Result(s["ERR_UNSUPPORTED_MODE"], untouched(32), mode_iv))
                else:
                    b.add(crypt_cmd(0, mode, decrypt, mode_iv, data), expect_ok(mode, decrypt, key, mode_iv, data))
        b.add("counts", record)
    b.run(enc128_driver)
    for index in ENGINE_BACKENDS:
        start, keyed, crypted = counts[3 * index:3 * index + 3]  # soft's first
        assert keyed[0] == start[0] + 1, f"{BACKENDS[index]}: a refused key reached the backend"
        assert crypted[1] == keyed[1] + 2 * len(MODES) - 2, f"{BACKENDS[index]}: a refused call reached the backend"


# ---------------------------------------------------------------------------------------------
# The SoC build: warnings of the target, the lock's atomic, no library calls, no tables


@pytest.fixture(scope="session")
def soc_objects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """aes.o and aes_soft.o built for a SoC without the accelerator."""
    return cross_compile(tmp_path_factory.mktemp("aes_rv32"), SOC_CONFIG_NO_AES, AES_SOURCES)


def test_cross_compile_for_the_soc(soc_objects: dict[str, Path], tmp_path: Path) -> None:
    objects = soc_objects
    # No calls into libgcc or picolibc (no libatomic, no __bswapsi2, no byte-wise memcpy/memset).
    assert undefined_symbols(objects["aes_soft"]) == set()
    assert undefined_symbols(objects["aes"]) == {"couplet_aes_backend_soft"}
    # The try-lock is one AMO with acquire ordering (an exchange on a word: amoswap.w.aq).
    disassembly = subprocess.run([paths.cross_tool("objdump"), "-d", str(objects["aes"])], capture_output=True,
                                 text=True, check=True).stdout
    assert re.search(r"\tamoswap\.w\.aq(rl)?\s", disassembly), "no AMO for the accelerator lock"
    assert "lr.w" not in disassembly

    # With every coupling, the table references every hardware backend (linked only then).
    objects = cross_compile(tmp_path / "all_aes", SOC_CONFIG_ALL_AES, AES_SOURCES)
    assert undefined_symbols(objects["aes"]) == {f"couplet_aes_backend_{name}" for name in BACKENDS}


def test_software_backend_has_no_lookup_tables(soc_objects: dict[str, Path]) -> None:
    """The constant-time argument (top of aes_soft.c) rests on there being no table to index: the
    read-only data of the object (backend descriptor, switch jump table, zero key) is smaller
    than one 256-entry S-box, and no state is kept in writable data."""
    source = (AES_DIR / "aes_soft.c").read_text()
    code = re.sub(r"//[^\n]*", "", source)
    for size in re.findall(r"\[\s*(\d+)u?\s*\]", code):
        assert int(size) < 64, f"an array of {size} entries in aes_soft.c"
    assert not re.search(r"\{\s*(0x[0-9a-fA-F]+u?\s*,\s*){16,}", code), "a table of constants in aes_soft.c"
    sections = subprocess.run([paths.cross_tool("objdump"), "-h", str(soc_objects["aes_soft"])],
                              capture_output=True, text=True, check=True).stdout
    sizes: dict[str, int] = {}
    for name, size in re.findall(r"^\s*\d+\s+(\S+)\s+([0-9a-f]{8})\s", sections, re.MULTILINE):
        kind = "rodata" if "rodata" in name else "data" if re.match(r"\.s?(data|bss)", name) else "other"
        sizes[kind] = sizes.get(kind, 0) + int(size, 16)
    assert 0 < sizes.get("rodata", 0) < 256, sizes
    assert sizes.get("data", 0) == 0, sizes
