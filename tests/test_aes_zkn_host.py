"""The "zkn" AES backend (sw/lib/aes/aes_zkn.c) on the host, with the aes32* instructions
replaced by a C model, against FIPS-197 appendix C, SP 800-38A appendix F and pycryptodome.

aes_zkn.c is built natively with COUPLET_AES_ZKN_HOST_MODEL, which turns each instruction into
a call of `couplet_aes_zkn_model(rs1, rs2, funct7)`. That model is written here from the
scalar-crypto spec (S-box from the GF(2^8) inverse and the affine map) and is checked against
the Python model of hw/ip/aes/test/test_aes_zkn.py, which the RTL of couplet_aes_zkn is tested
against: so what passes here runs the same on the SoC. The backend is driven through its
couplet_aes_backend_t (set_key, crypt) by a small shim, from Python with ctypes.

The file is also cross-compiled with the SDK's flags (plus -Wpedantic), with the Zkn backend
on and off, and the object is checked to contain the aes32 encodings.
"""

from __future__ import annotations

import asyncio
import ctypes
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from Crypto.Cipher import AES

from couplet import paths
from couplet.model.regs import load_ip_regs
from hw.ip.aes.test import test_aes_zkn as rtl_model

AES_DIR = paths.SW_DIR / "lib" / "aes"
SOURCE = AES_DIR / "aes_zkn.c"
# couplet_aes_mode_t: the accelerator's CTRL.mode values.
ECB, CBC, CTR, CFB, OFB = (load_ip_regs("aes").value("mode", m) for m in ("ecb", "cbc", "ctr", "cfb", "ofb"))
MODES = (ECB, CBC, CTR, CFB, OFB)
COUPLET_OK, COUPLET_ERR_ARG, COUPLET_ERR_KEY_LEN = 0, 1, 8
BACKEND_ZKN = 6

# The aes32* model the backend runs on in this test (spec: Cryptography Extensions Vol. I
# v1.0.1, 3.3-3.6), and a shim that owns one context.
MODEL_C = r"""
#include <stdint.h>

static uint8_t xt2(uint8_t x) { return (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1b : 0)); }

static uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (; b; b >>= 1, a = xt2(a)) {
    if (b & 1) p ^= a;
  }
  return p;
}

static uint8_t sbox[256], inv_sbox[256];
static int ready;
unsigned long couplet_aes_zkn_model_calls;

static void init(void) {
  for (unsigned x = 0; x < 256; ++x) {
    uint8_t inv = 0;  /* x^254 = x^-1, 0 -> 0 */
    for (unsigned y = 1; y < 256 && x; ++y) {
      if (gf_mul((uint8_t)x, (uint8_t)y) == 1) inv = (uint8_t)y;
    }
    uint8_t s = inv;
    for (unsigned r = 1; r < 5; ++r) s ^= (uint8_t)((inv << r) | (inv >> (8 - r)));
    s ^= 0x63;
    sbox[x] = s;
    inv_sbox[s] = (uint8_t)x;
  }
  ready = 1;
}

uint32_t couplet_aes_zkn_model(uint32_t rs1, uint32_t rs2, uint32_t funct7) {
  if (!ready) init();
  ++couplet_aes_zkn_model_calls;
  unsigned shamt = 8u * (funct7 >> 5 & 3u);
  uint8_t si = (uint8_t)(rs2 >> shamt), so;
  uint32_t mixed;
  switch (funct7 & 0x1fu) {
    case 0x11: mixed = sbox[si]; break;                                    /* aes32esi */
    case 0x13: so = sbox[si];                                              /* aes32esmi */
      mixed = (uint32_t)gf_mul(so, 3) << 24 | (uint32_t)so << 16 | (uint32_t)so << 8 | gf_mul(so, 2);
      break;
    case 0x15: mixed = inv_sbox[si]; break;                                /* aes32dsi */
    case 0x17: so = inv_sbox[si];                                          /* aes32dsmi */
      mixed = (uint32_t)gf_mul(so, 11) << 24 | (uint32_t)gf_mul(so, 13) << 16 |
              (uint32_t)gf_mul(so, 9) << 8 | gf_mul(so, 14);
      break;
    default: return 0xdeadbeefu;  /* not an aes32 encoding: makes any misuse visible */
  }
  return rs1 ^ (shamt ? (mixed << shamt | mixed >> (32u - shamt)) : mixed);
}
"""

SHIM_C = r"""
#include <string.h>
#include "aes_backend.h"

static couplet_aes_ctx_t ctx;

int shim_set_key(const uint8_t *key, uint32_t len) {
  memset(&ctx, 0, sizeof ctx);
  memcpy(ctx.key, key, len <= 32u ? len : 32u);
  ctx.key_len = len;
  ctx.key_id = 1;
  ctx.backend = &couplet_aes_backend_zkn;
  return (int)couplet_aes_backend_zkn.set_key(&ctx);
}

int shim_crypt(int mode, int decrypt, uint8_t *iv, const uint8_t *in, uint8_t *out, uint32_t blocks) {
  return (int)couplet_aes_backend_zkn.crypt(&ctx, (couplet_aes_mode_t)mode, decrypt != 0, iv, in, out,
                                            blocks);
}

const uint32_t *shim_round_keys(void) { return ctx.round_keys; }
int shim_id(void) { return (int)couplet_aes_backend_zkn.id; }
const char *shim_name(void) { return couplet_aes_backend_zkn.name; }
int shim_uses_accelerator(void) { return couplet_aes_backend_zkn.uses_accelerator; }
int shim_has_zeroize(void) { return couplet_aes_backend_zkn.zeroize != NULL; }
"""

HOST_CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-Wpedantic", "-Wshadow", "-Wstrict-prototypes"]


def stand_in_config(folder: Path, has_zkn: int) -> Path:
    """An include folder with the one soc_config.h macro aes_zkn.c reads."""
    (folder / "couplet").mkdir(parents=True, exist_ok=True)
    (folder / "couplet" / "soc_config.h").write_text(f"#define COUPLET_AES_HAS_ZKN {has_zkn}\n")
    return folder


class Backend:
    """The backend built for the host, one context, driven through ctypes."""

    def __init__(self, library: Path) -> None:
        self.lib = ctypes.CDLL(str(library))
        self.lib.shim_name.restype = ctypes.c_char_p
        self.lib.shim_round_keys.restype = ctypes.POINTER(ctypes.c_uint32)
        self.lib.couplet_aes_zkn_model.restype = ctypes.c_uint32
        self.lib.couplet_aes_zkn_model.argtypes = [ctypes.c_uint32] * 3
        self.calls = ctypes.c_ulong.in_dll(self.lib, "couplet_aes_zkn_model_calls")
        self.key_len = 0

    def set_key(self, key: bytes) -> int:
        self.key_len = len(key)
        return int(self.lib.shim_set_key(key, len(key)))

    def round_keys(self) -> list[int]:
        words = self.lib.shim_round_keys()
        return [words[i] for i in range(4 * (self.key_len // 4 + 7))]

    def crypt(self, mode: int, decrypt: bool, iv: bytes | None, data: bytes, *, in_offset: int = 0,
              out_offset: int = 0, in_place: bool = False) -> tuple[int, bytes, bytes | None]:
        """(status, output, updated iv); buffers start `offset` bytes past a word boundary."""
        src = ctypes.create_string_buffer(len(data) + 8)  # malloc'ed: at least 8-byte aligned
        ctypes.memmove(ctypes.addressof(src) + in_offset, data, len(data))
        src_ptr = ctypes.addressof(src) + in_offset
        if in_place:
            dst, dst_ptr = src, src_ptr
        else:
            dst = ctypes.create_string_buffer(len(data) + 8)
            dst_ptr = ctypes.addressof(dst) + out_offset
        iv_buf = ctypes.create_string_buffer(iv, 16) if iv is not None else None
        status = self.lib.shim_crypt(mode, int(decrypt), iv_buf, ctypes.c_void_p(src_ptr),
                                     ctypes.c_void_p(dst_ptr), len(data) // 16)
        out = ctypes.string_at(dst_ptr, len(data))
        return int(status), out, (iv_buf.raw[:16] if iv_buf is not None else None)

    def model(self, rs1: int, rs2: int, funct7: int) -> int:
        return int(self.lib.couplet_aes_zkn_model(rs1, rs2, funct7))


@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise AssertionError("no host C compiler: ./bootstrap.sh installs gcc")
    tmp = tmp_path_factory.mktemp("zkn_host")
    (tmp / "model.c").write_text(MODEL_C)
    (tmp / "shim.c").write_text(SHIM_C)
    include = stand_in_config(tmp / "include", 1)
    library = tmp / "libzkn.so"
    command = [cc, *HOST_CFLAGS, "-shared", "-fPIC", "-DCOUPLET_AES_ZKN_HOST_MODEL",
               f"-I{include}", f"-I{paths.SW_DIR / 'include'}", f"-I{AES_DIR}",
               str(SOURCE), str(tmp / "model.c"), str(tmp / "shim.c"), "-o", str(library)]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    yield Backend(library)


# ------------------------------------------------------------------------------- vectors
# FIPS-197 appendix C: plaintext 00112233..ff, key 000102.. of 16, 24, 32 bytes.
FIPS197_C = {
    16: "69c4e0d86a7b0430d8cdb78070b4c55a",
    24: "dda97ca4864cdfe06eaf70a0ec0d7191",
    32: "8ea2b7ca516745bfeafc49904b496089",
}

# SP 800-38A appendix F: the same four plaintext blocks, keys and IVs for every mode.
SP_PLAINTEXT = bytes.fromhex(
    "6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710"
)
SP_KEYS = {
    16: bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c"),
    24: bytes.fromhex("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"),
    32: bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
}
SP_IV = bytes(range(16))
SP_COUNTER = bytes(range(0xF0, 0x100))
SP_CIPHERTEXT = {
    (ECB, 16): "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
               "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",  # F.1.1
    (ECB, 24): "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eef"
               "ef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",  # F.1.3
    (ECB, 32): "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
               "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",  # F.1.5
    (CBC, 16): "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
               "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",  # F.2.1
    (CBC, 24): "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"
               "571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd",  # F.2.3
    (CBC, 32): "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
               "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",  # F.2.5
    (CFB, 16): "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
               "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6",  # F.3.13
    (CFB, 24): "cdc80d6fddf18cab34c25909c99a417467ce7f7f81173621961a2b70171d3d7a"
               "2e1e8a1dd59b88b1c8e60fed1efac4c9c05f9f9ca9834fa042ae8fba584b09ff",  # F.3.15
    (CFB, 32): "dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407b"
               "df10132415e54b92a13ed0a8267ae2f975a385741ab9cef82031623d55b1e471",  # F.3.17
    (OFB, 16): "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"
               "9740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e",  # F.4.1
    (OFB, 24): "cdc80d6fddf18cab34c25909c99a4174fcc28b8d4c63837c09e81700c1100401"
               "8d9a9aeac0f6596f559c6d4daf59a5f26d9f200857ca6c3e9cac524bd9acc92a",  # F.4.3
    (OFB, 32): "dc7e84bfda79164b7ecd8486985d38604febdc6740d20b3ac88f6ad82a4fb08d"
               "71ab47a086e86eedf39d1c5bba97c4080126141d67f37be8538f5a8be740e484",  # F.4.5
    (CTR, 16): "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
               "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",  # F.5.1
    (CTR, 24): "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
               "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",  # F.5.3
    (CTR, 32): "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
               "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",  # F.5.5
}


# ---------------------------------------------------------------- reference (pycryptodome)
def reference(mode: int, decrypt: bool, key: bytes, iv: bytes | None, data: bytes) -> tuple[bytes, bytes | None]:
    """(output, next iv) as SP 800-38A defines them, computed with pycryptodome."""
    ecb = AES.new(key, AES.MODE_ECB)
    blocks = len(data) // 16
    if mode == ECB:
        return (ecb.decrypt(data) if decrypt else ecb.encrypt(data)), None
    assert iv is not None
    if mode == CTR:
        start = int.from_bytes(iv, "big")
        counters = b"".join(((start + i) % (1 << 128)).to_bytes(16, "big") for i in range(blocks))
        stream = ecb.encrypt(counters)
        out = bytes(a ^ b for a, b in zip(data, stream))
        return out, ((start + blocks) % (1 << 128)).to_bytes(16, "big")
    if mode == CBC:
        cbc = AES.new(key, AES.MODE_CBC, iv=iv)
        out = cbc.decrypt(data) if decrypt else cbc.encrypt(data)
        return out, (data if decrypt else out)[-16:]
    if mode == CFB:
        cfb = AES.new(key, AES.MODE_CFB, iv=iv, segment_size=128)
        out = cfb.decrypt(data) if decrypt else cfb.encrypt(data)
        return out, (data if decrypt else out)[-16:]
    ofb = AES.new(key, AES.MODE_OFB, iv=iv)
    out = ofb.decrypt(data) if decrypt else ofb.encrypt(data)
    return out, bytes(a ^ b for a, b in zip(data[-16:], out[-16:]))  # the last keystream block


# ---------------------------------------------------------------------------------- tests
def test_backend_descriptor(backend: Backend) -> None:
    assert backend.lib.shim_id() == BACKEND_ZKN
    assert backend.lib.shim_name() == b"zkn"
    assert backend.lib.shim_uses_accelerator() == 0
    assert backend.lib.shim_has_zeroize() == 0


def test_c_model_matches_spec_model(backend: Backend, rng: random.Random) -> None:
    """The C stand-in of the instructions equals the Python model the RTL is tested against."""
    for funct5 in rtl_model.FUNCT5S:
        for bs in range(4):
            for _ in range(300):
                rs1, rs2 = rng.getrandbits(32), rng.getrandbits(32)
                f7 = rtl_model.funct7(funct5, bs)
                assert backend.model(rs1, rs2, f7) == rtl_model.aes32(funct5, bs, rs1, rs2), (
                    f"{rtl_model.NAMES[funct5]} bs={bs} rs1={rs1:#x} rs2={rs2:#x}"
                )


@pytest.mark.parametrize("key_len", (16, 24, 32))
def test_fips197_appendix_c(backend: Backend, key_len: int) -> None:
    key = bytes(range(key_len))
    plaintext = bytes.fromhex("00112233445566778899aabbccddeeff")
    assert backend.set_key(key) == COUPLET_OK
    # The schedule equals FIPS-197 5.2 as the Python model computes it with its own aes32.
    assert backend.round_keys() == asyncio.run(rtl_model.expand_key(rtl_model.model_ops, key))
    status, out, _ = backend.crypt(ECB, False, None, plaintext)
    assert (status, out.hex()) == (COUPLET_OK, FIPS197_C[key_len])
    status, out, _ = backend.crypt(ECB, True, None, bytes.fromhex(FIPS197_C[key_len]))
    assert (status, out) == (COUPLET_OK, plaintext)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key_len", (16, 24, 32))
def test_sp800_38a(backend: Backend, mode: int, key_len: int) -> None:
    """F.1-F.5, both directions; once in one call, once split 1 + 3 blocks (iv carried over)."""
    key, ciphertext = SP_KEYS[key_len], bytes.fromhex(SP_CIPHERTEXT[(mode, key_len)])
    iv = None if mode == ECB else SP_COUNTER if mode == CTR else SP_IV
    assert reference(mode, False, key, iv, SP_PLAINTEXT)[0] == ciphertext, "vector typed wrong"
    assert backend.set_key(key) == COUPLET_OK
    for decrypt, data, want in ((False, SP_PLAINTEXT, ciphertext), (True, ciphertext, SP_PLAINTEXT)):
        status, out, next_iv = backend.crypt(mode, decrypt, iv, data)
        assert (status, out.hex()) == (COUPLET_OK, want.hex()), f"decrypt={decrypt}"
        assert next_iv == reference(mode, decrypt, key, iv, data)[1]
        _, head, mid_iv = backend.crypt(mode, decrypt, iv, data[:16])
        _, tail, _ = backend.crypt(mode, decrypt, mid_iv, data[16:])
        assert head + tail == want, f"decrypt={decrypt}, split after one block"


def test_random_messages(backend: Backend, rng: random.Random) -> None:
    """Random keys, messages and alignments; every mode, direction, and in-place or not,
    against pycryptodome (output and updated iv)."""
    cases = [(m, d, p) for m in MODES for d in (False, True) for p in (False, True)] * 6
    for n, (mode, decrypt, in_place) in enumerate(cases):
        key = rng.randbytes((16, 24, 32)[n % 3])
        data = rng.randbytes(16 * rng.randint(1, 12))
        iv = None if mode == ECB else rng.randbytes(16)
        if mode == CTR and n % 2:
            iv = b"\xff" * 15 + bytes([rng.randrange(0xF4, 0x100)])  # carries through all bytes, wraps
        in_offset, out_offset = rng.randrange(4), rng.randrange(4)
        if in_place:
            out_offset = in_offset
        assert backend.set_key(key) == COUPLET_OK
        status, out, next_iv = backend.crypt(mode, decrypt, iv, data, in_offset=in_offset,
                                             out_offset=out_offset, in_place=in_place)
        want, want_iv = reference(mode, decrypt, key, iv, data)
        where = (f"mode {mode} decrypt={decrypt} AES-{8 * len(key)} {len(data)} bytes "
                 f"offsets {in_offset}/{out_offset} in_place={in_place}")
        assert status == COUPLET_OK, where
        assert out == want, where
        assert next_iv == want_iv, where


def test_errors(backend: Backend) -> None:
    for bad in (0, 8, 20, 31):
        assert backend.set_key(bytes(bad)) == COUPLET_ERR_KEY_LEN
    assert backend.set_key(bytes(16)) == COUPLET_OK
    status, _, _ = backend.crypt(7, False, bytes(16), bytes(16))
    assert status == COUPLET_ERR_ARG


@pytest.mark.parametrize("key_len", (16, 24, 32))
def test_instruction_counts(backend: Backend, key_len: int) -> None:
    """aes32 instructions executed: 16 per round, plus 8 per middle round key word for the
    decryption schedule a decrypting call derives (key expansion: 4 per SubWord)."""
    nr = key_len // 4 + 6
    nk = key_len // 4
    start = backend.calls.value
    backend.set_key(bytes(key_len))
    sub_words = sum(i % nk == 0 or (nk == 8 and i % nk == 4) for i in range(nk, 4 * (nr + 1)))
    assert backend.calls.value - start == 4 * sub_words
    for blocks in (1, 5):
        start = backend.calls.value
        backend.crypt(ECB, False, None, bytes(16 * blocks))
        assert backend.calls.value - start == 16 * nr * blocks
        start = backend.calls.value
        backend.crypt(ECB, True, None, bytes(16 * blocks))
        assert backend.calls.value - start == 16 * nr * blocks + 8 * 4 * (nr - 1)


# ------------------------------------------------------------------------- cross compile
SDK_FLAGS = ["-march=rv32imac_zicsr_zifencei", "-mabi=ilp32", "--specs=picolibc.specs", "-std=c11",
             "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wstrict-prototypes", "-Wpedantic", "-O2",
             "-fno-schedule-insns", "-ffunction-sections", "-fdata-sections"]


def aes32_words(objdump_text: str) -> list[int]:
    """The 32-bit words of the disassembly that are aes32 encodings."""
    words = [int(m.group(1), 16) for m in re.finditer(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", objdump_text, re.M)]
    return [w for w in words if w & 0x7F == 0x33 and w >> 12 & 7 == 0 and w >> 25 & 0x1F in rtl_model.FUNCT5S]


def test_cross_compile(tmp_path: Path) -> None:
    """Builds with the SDK's flags (+ -Wpedantic) with the backend on and off; the object holds
    every aes32 encoding the backend uses, and the backend symbol only when enabled."""
    cc = shutil.which(f"{paths.CROSS_PREFIX}gcc")
    if cc is None:
        raise AssertionError("RISC-V cross compiler not installed: run ./bootstrap.sh")
    for has_zkn in (1, 0):
        include = stand_in_config(tmp_path / f"inc{has_zkn}", has_zkn)
        obj = tmp_path / f"aes_zkn{has_zkn}.o"
        proc = subprocess.run([cc, *SDK_FLAGS, f"-I{include}", f"-I{paths.SW_DIR / 'include'}", f"-I{AES_DIR}",
                               "-c", str(SOURCE), "-o", str(obj)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        symbols = subprocess.run([f"{paths.CROSS_PREFIX}nm", str(obj)], capture_output=True, text=True,
                                 check=True).stdout
        assert ("couplet_aes_backend_zkn" in symbols) == bool(has_zkn)
        if has_zkn:
            dump = subprocess.run([f"{paths.CROSS_PREFIX}objdump", "-d", str(obj)], capture_output=True,
                                  text=True, check=True).stdout
            funct7s = {w >> 25 for w in aes32_words(dump)}
            want = {rtl_model.funct7(f5, bs) for f5 in rtl_model.FUNCT5S for bs in range(4)}
            assert funct7s == want, sorted(hex(f) for f in want - funct7s)
