"""Host tests of the authenticated layer (sw/lib/aes/aes_aead.c, aes_ghash.c): AES-CMAC, AES-CCM,
CCM* (IEEE 802.15.4) and AES-GCM of couplet/aes_aead.h, on every backend.

As tests/test_aes_host.py: the library's files and sw/lib/status.c are compiled natively with the
SDK's warning flags into a driver (tests/aes_host/aead_driver.c) that answers one line per
command on stdin. Two builds: the software backend alone, and FAKE_BACKENDS, where every
hardware backend is a stand-in (tests/aes_host/aes_fake_backends.h). The stand-ins of the
engine's couplings (tight, mem, mmio, mmio_irq, dma) take the engine's CBC_MAC, GCM and GHASH
modes, written in the stand-in from aes_backend.h's contract with a bit-serial GHASH, apart from
aes_aead.c and aes_ghash.c: on them aes_aead.c takes its engine path; on soft and zkn its generic
one (CBC into a scratch, CTR split where the 32-bit counter wraps, GHASH in C).

Expected values: every record of the NIST CAVP files of the `cryptography_vectors` package (CCMVS:
DVPT, VADT, VNT, VPT, VTT; GCMVS: gcmEncryptExtIV, gcmDecrypt, with their failing records; all on
every backend, but for GCM a quarter each on four of the five alike stand-ins), the SP
800-38B CMAC examples, the IEEE 802.15.4 Annex C.2 frames (key C0..CF: beacon MIC-64, data ENC,
command ENC-MIC-64, as published in 802.15.4-2006/-2015 Annex C and cross-checked here against
pycryptodome), and pycryptodome as an independent model of random calls; error codes from the
contract in sw/include/couplet/aes_aead.h. Further tests compile the files for the SoC and check
they call no library function and have no table in memory (the constant-time GHASH).

Run: .venv/bin/python -m pytest tests/test_aead_host.py -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import functools
import random
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from Crypto.Cipher import AES
from Crypto.Hash import CMAC

from couplet import paths
from host_c import DriverBatch, cross_compile, driver_fixtures, hex_or_null, status_codes, undefined_symbols
from testsupport import cavp

AES_DIR = paths.SW_DIR / "lib" / "aes"
SOURCES = (AES_DIR / "aes.c", AES_DIR / "aes_soft.c", AES_DIR / "aes_aead.c", AES_DIR / "aes_ghash.c")
DRIVER_SOURCE = Path(__file__).resolve().parent / "aes_host" / "aead_driver.c"

BACKENDS = ("soft", "tight", "mem", "mmio", "mmio_irq", "dma", "zkn")  # couplet_aes_backend_id_t
SOFT, TIGHT, MMIO, ZKN = 0, 1, 3, 6
STAND_INS = (1, 2, 3, 4, 5)  # with the engine's modes: aes_aead.c's engine path
KEY_LENGTHS = (16, 24, 32)
# crypt's modes (couplet/autogen/aes_regs.h), as the stand-ins count them.
ECB, CBC, CTR, CBC_MAC, GCM, GHASH = 0, 1, 2, 5, 6, 7

SOC_CONFIG_NO_AES = "// stand-in: a SoC without the AES accelerator\n"
SOC_CONFIG_ALL_AES = "".join(
    f"#define COUPLET_AES_HAS_{name} 1\n" for name in ("TIGHT", "MEM", "MMIO", "DMA", "ZKN")
) + "#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_TIGHT\n"

STATUS = status_codes()
OK, AUTH, BUSY, HW = STATUS["OK"], STATUS["ERR_AUTH"], STATUS["ERR_BUSY"], STATUS["ERR_HW"]
NULL, STATE, ARG, LEN = STATUS["ERR_NULL"], STATUS["ERR_STATE"], STATUS["ERR_ARG"], STATUS["ERR_LEN"]
FILL = 0xEE  # the driver fills output and tag buffers with this before each call
SIZE_MAX = 2**64 - 1  # the host's
ONE = b"\x01"  # XORed into a tag or data to spoil it

driver, fake_driver = driver_fixtures("aead", DRIVER_SOURCE, AES_DIR, SOURCES, SOC_CONFIG_NO_AES, SOC_CONFIG_ALL_AES)


@dataclass(frozen=True)
class Build:
    name: str
    exe: Path
    backends: tuple[int, ...]

    @property
    def fake(self) -> bool:
        return self.name == "stand_ins"


@pytest.fixture(params=("soft_only", "stand_ins"))
def build(request: pytest.FixtureRequest) -> Build:
    """Each test on both builds: the software backend alone, and every backend with stand-ins."""
    if request.param == "soft_only":
        return Build("soft_only", request.getfixturevalue("driver"), (SOFT,))
    return Build("stand_ins", request.getfixturevalue("fake_driver"), tuple(range(len(BACKENDS))))


class Batch(DriverBatch):
    def run_on(self, build: Build) -> None:
        if build.fake:  # no stand-in was ever asked for a mode it does not list
            self.add("modes", lambda line: _expect(line.split()[-1] == "0", f"violations: {line}"))
        self.run(build.exe)


def _expect(condition: bool, message: str) -> None:
    assert condition, message


# ---------------------------------------------------------------------------------------------
# Answers and the reference


def hx(data: bytes | None) -> str:
    return hex_or_null(data)


def tag16(tag: bytes) -> str:
    """The 16-byte tag buffer after a call that wrote `tag`."""
    return (tag + bytes([FILL]) * (16 - len(tag))).hex()


UNTOUCHED_TAG = tag16(b"")


def untouched(n: int) -> str:
    return hx(bytes([FILL]) * n)


def sealed(out: bytes, tag: bytes) -> str:
    return f"{OK} {hx(out)} {tag16(tag)}"


def opened(plaintext: bytes) -> str:
    return f"{OK} {hx(plaintext)}"


def rejected(n: int) -> str:
    """A failed decryption: COUPLET_ERR_AUTH and all n bytes of the output zero."""
    return f"{AUTH} {hx(bytes(n))}"


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def ccm_ref(key: bytes, nonce: bytes, aad: bytes, plaintext: bytes, tag_len: int) -> tuple[bytes, bytes]:
    cipher = AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=tag_len)
    cipher.update(aad)
    return cipher.encrypt_and_digest(plaintext)


def gcm_ref(key: bytes, iv: bytes, aad: bytes, plaintext: bytes, tag_len: int) -> tuple[bytes, bytes]:
    cipher = AES.new(key, AES.MODE_GCM, nonce=iv, mac_len=tag_len)
    cipher.update(aad)
    return cipher.encrypt_and_digest(plaintext)


def cmac_ref(key: bytes, message: bytes, tag_len: int) -> bytes:
    return CMAC.new(key, message, ciphermod=AES).digest()[:tag_len]


def ccm_star_mic_len(level: int) -> int:
    return (0, 4, 8, 16)[level & 3]


def ctr_from_a1(key: bytes, nonce: bytes, data: bytes) -> bytes:
    """CCM* with M = 0 (802.15.4 level 4), written out: CTR with A_i = 0x01 || nonce || [i]_2 from i = 1."""
    ecb = AES.new(key, AES.MODE_ECB)
    blocks = (len(data) + 15) // 16
    keystream = b"".join(ecb.encrypt(bytes([1]) + nonce + i.to_bytes(2, "big")) for i in range(1, blocks + 1))
    return xor(data, keystream)


def ccm_star_ref(key: bytes, level: int, nonce: bytes, a: bytes, m: bytes) -> tuple[bytes, bytes]:
    """Output and MIC of a CCM* frame: levels 5..7 are CCM (header as associated data), level 4
    CTR from A1, levels 1..3 CCM over header || payload as associated data (payload copied)."""
    mic_len = ccm_star_mic_len(level)
    if level & 4:
        return ccm_ref(key, nonce, a, m, mic_len) if mic_len else (ctr_from_a1(key, nonce, m), b"")
    return m, ccm_ref(key, nonce, a + m, b"", mic_len)[1]


R = 0xE1 << 120


def gf_mul(x: int, y: int) -> int:
    """SP 800-38D Algorithm 1."""
    z, v = 0, y
    for i in range(128):
        if (x >> (127 - i)) & 1:
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1
    return z


def ghash_ref(s: bytes, h: bytes, data: bytes) -> bytes:
    acc, key = int.from_bytes(s, "big"), int.from_bytes(h, "big")
    for i in range(0, len(data), 16):
        acc = gf_mul(acc ^ int.from_bytes(data[i:i + 16], "big"), key)
    return acc.to_bytes(16, "big")


def pad16(data: bytes) -> bytes:
    return data + bytes(-len(data) % 16)


def gcm_from_counter(key: bytes, j0: bytes, ctr: bytes, aad: bytes, plaintext: bytes) -> tuple[bytes, bytes]:
    """GCM written out, with the message's counter blocks from `ctr` (inc32) and the tag mask
    AES(j0): a stream whose counter was set by hand."""
    ecb = AES.new(key, AES.MODE_ECB)
    keystream = b""
    for _ in range((len(plaintext) + 15) // 16):
        keystream += ecb.encrypt(ctr)
        ctr = ctr[:12] + ((int.from_bytes(ctr[12:], "big") + 1) % 2**32).to_bytes(4, "big")
    ciphertext = xor(plaintext, keystream)
    lengths = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ciphertext)).to_bytes(8, "big")
    s = ghash_ref(bytes(16), ecb.encrypt(bytes(16)), pad16(aad) + pad16(ciphertext) + lengths)
    return ciphertext, xor(s, ecb.encrypt(j0))


def pieces(rng: random.Random, data: bytes) -> list[bytes]:
    """`data` cut at random places (empty pieces too, and pieces across block boundaries)."""
    cuts = sorted(rng.randint(0, len(data)) for _ in range(rng.randint(0, 6)))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def keyed(b: Batch, backend: int, key: bytes, ctx: int = 0) -> None:
    b.add(f"init {ctx} {backend}", OK)
    b.add(f"key {ctx} {key.hex()}", OK)


# ---------------------------------------------------------------------------------------------
# NIST CAVP files

CCM_FILES = sorted(cavp.aead_dir("CCM").glob("*.rsp"))
GCM_FILES = sorted(cavp.aead_dir("GCM").glob("*.rsp"))


@functools.cache
def ccm_vectors() -> dict[str, list[cavp.AeadVector]]:
    return {path.name: cavp.parse_ccm(path) for path in CCM_FILES}


@functools.cache
def gcm_vectors() -> dict[str, list[cavp.AeadVector]]:
    return {path.name: cavp.parse_gcm(path) for path in GCM_FILES}


def test_cavp_files_are_all_there() -> None:
    ccm = ccm_vectors()
    kinds = ("DVPT", "VADT", "VNT", "VPT", "VTT")
    assert sorted(ccm) == [f"{kind}{bits}.rsp" for kind in kinds for bits in (128, 192, 256)]
    assert sum(map(len, ccm.values())) == 2880
    assert sum(v.plaintext is None for vs in ccm.values() for v in vs) == 480  # DVPT's Result = Fail
    gcm = gcm_vectors()
    assert sorted(gcm) == [f"gcm{kind}{bits}.rsp" for kind in ("Decrypt", "EncryptExtIV") for bits in (128, 192, 256)]
    assert all(len(vs) == 7875 for vs in gcm.values())
    assert {len(v.nonce) for vs in gcm.values() for v in vs} == {1, 12, 128}
    assert {len(v.tag) for vs in gcm.values() for v in vs} == {4, 8, 12, 13, 14, 15, 16}
    fails = sum(v.plaintext is None for vs in gcm.values() for v in vs)
    assert 11000 < fails < 13000
    assert [len(cavp.parse_cmac(p)) for p in cavp.cmac_files()] == [4, 4, 4]
    # The parser agrees with an independent implementation on the generation records.
    for vs in ccm.values():
        for v in vs[:20]:
            if v.plaintext is not None:
                assert ccm_ref(v.key, v.nonce, v.aad, v.plaintext, len(v.tag)) == (v.ciphertext, v.tag), v.source
    for vs in gcm.values():
        for v in vs[::500]:
            if v.plaintext is not None:
                assert gcm_ref(v.key, v.nonce, v.aad, v.plaintext, len(v.tag)) == (v.ciphertext, v.tag), v.source


def add_aead_vector(b: Batch, mode: str, v: cavp.AeadVector) -> None:
    """The record's key, then its decryption, and for generation records also its encryption."""
    b.add(f"key 0 {v.key.hex()}", OK)
    head = f"0 {v.nonce.hex()} {hx(v.aad)}"
    if v.plaintext is None:
        b.add(f"{mode}_dec {head} {hx(v.ciphertext)} {v.tag.hex()}", rejected(len(v.ciphertext)))
        return
    if not v.decrypt:
        b.add(f"{mode}_enc {head} {hx(v.plaintext)} {len(v.tag)}", sealed(v.ciphertext, v.tag))
    b.add(f"{mode}_dec {head} {hx(v.ciphertext)} {v.tag.hex()}", opened(v.plaintext))


def test_cavp_ccm_every_record_on_every_backend(build: Build) -> None:
    b = Batch()
    for backend in build.backends:
        b.add(f"init 0 {backend}", OK)
        for vectors in ccm_vectors().values():
            for v in vectors:
                add_aead_vector(b, "ccm", v)
    b.run_on(build)


def gcm_share(backend: int) -> slice:
    """The GCM records a backend runs: all on soft, zkn (the C GHASH) and tight (the engine's GCM
    and GHASH modes); a different quarter on each of the other four stand-ins, which run the same
    stand-in code as tight (47250 records take about 2 s per backend)."""
    others = [index for index in STAND_INS if index != TIGHT]
    return slice(others.index(backend), None, len(others)) if backend in others else slice(None)


def test_cavp_gcm_every_record_on_every_path(build: Build) -> None:
    b = Batch()
    for backend in build.backends:
        b.add(f"init 0 {backend}", OK)
        for vectors in gcm_vectors().values():
            for v in vectors[gcm_share(backend)]:
                add_aead_vector(b, "gcm", v)
    b.run_on(build)


def test_cavp_cmac_examples_and_truncated_tags(build: Build) -> None:
    b = Batch()
    for backend in build.backends:
        b.add(f"init 0 {backend}", OK)
        for path in cavp.cmac_files():
            for v in cavp.parse_cmac(path):
                b.add(f"key 0 {v.key.hex()}", OK)
                for tag_len in (16, 15, 8, 4, 1):
                    b.add(f"cmac 0 {hx(v.message)} {tag_len}", f"{OK} {tag16(v.tag[:tag_len])}")
                b.add(f"cmac_start 0 0", OK)
                b.add(f"cmac_update 0 {hx(v.message)}", OK)
                b.add(f"cmac_verify 0 {v.tag[:12].hex()}", OK)
                b.add(f"cmac_start 0 0", OK)
                b.add(f"cmac_update 0 {hx(v.message)}", OK)
                b.add(f"cmac_verify 0 {xor(v.tag, bytes(15) + ONE).hex()}", AUTH)
    b.run_on(build)


# ---------------------------------------------------------------------------------------------
# IEEE 802.15.4 Annex C.2: CCM* frames (key C0 C1 ... CF, source address ACDE480000000001,
# frame counter 5)

ANNEX_C_KEY = bytes(range(0xC0, 0xD0))
ANNEX_C_SOURCE = bytes.fromhex("acde480000000001") + bytes.fromhex("00000005")
ANNEX_C = (  # (section, level, header a, payload m, secured payload c, MIC)
    ("C.2.1 beacon, MIC-64", 2,
     bytes.fromhex("08d08421430100000000" "48deac" "02" "05000000"), bytes.fromhex("55cf000051525354"),
     bytes.fromhex("55cf000051525354"), bytes.fromhex("223bc1ec841ab553")),
    ("C.2.2 data, ENC", 4,
     bytes.fromhex("69dc842143020000000048deac01000000" "0048deac" "04" "05000000"), bytes.fromhex("61626364"),
     bytes.fromhex("d43e022b"), b""),
    ("C.2.3 command, ENC-MIC-64", 6,
     bytes.fromhex("2bdc842143020000000048deacffff01000000" "0048deac" "06" "05000000" "01"), bytes.fromhex("ce"),
     bytes.fromhex("d8"), bytes.fromhex("4fde529061f9c6f1")),
)


def test_ieee_802154_annex_c_frames(build: Build) -> None:
    b = Batch()
    for section, level, a, m, c, mic in ANNEX_C:
        assert ccm_star_ref(ANNEX_C_KEY, level, ANNEX_C_SOURCE + bytes([level]), a, m) == (c, mic), section
    for backend in build.backends:
        keyed(b, backend, ANNEX_C_KEY)
        for section, level, a, m, c, mic in ANNEX_C:
            nonce = (ANNEX_C_SOURCE + bytes([level])).hex()
            b.add(f"star_enc 0 {level} {nonce} {a.hex()} {m.hex()}", sealed(c, mic))
            b.add(f"star_dec 0 {level} {nonce} {a.hex()} {c.hex()} {hx(mic)}", opened(m))
            b.add(f"star_enc 0 {level} {nonce} {a.hex()} {m.hex()} inplace", sealed(c, mic))
            if mic:
                bad = xor(mic, b"\x80" + bytes(len(mic) - 1))
                b.add(f"star_dec 0 {level} {nonce} {a.hex()} {c.hex()} {bad.hex()}", rejected(len(m)))
                b.add(f"star_dec 0 {level} {nonce} {(xor(a, ONE) + a[1:]).hex()} {c.hex()} {mic.hex()} inplace",
                      rejected(len(m)))
        # Levels 1..3 authenticate header and payload as one: any split gives the same MIC.
        section, level, a, m, c, mic = ANNEX_C[0]
        whole = a + m
        nonce = (ANNEX_C_SOURCE + bytes([level])).hex()
        b.add(f"star_enc 0 2 {nonce} {whole.hex()} =", sealed(b"", mic))
        b.add(f"star_enc 0 2 {nonce} = {whole.hex()}", sealed(whole, mic))
    b.run_on(build)


def test_ccm_star_every_level_against_the_model(build: Build, rng: random.Random) -> None:
    b = Batch()
    for backend in build.backends:
        key = rng.randbytes(rng.choice(KEY_LENGTHS))
        keyed(b, backend, key)
        for level in range(1, 8):
            for _ in range(6):
                nonce, a, m = rng.randbytes(13), rng.randbytes(rng.randint(0, 40)), rng.randbytes(rng.randint(0, 70))
                out, mic = ccm_star_ref(key, level, nonce, a, m)
                opts = f"ioff={rng.randint(0, 7)} ooff={rng.randint(0, 7)}"
                b.add(f"star_enc 0 {level} {nonce.hex()} {hx(a)} {hx(m)} {opts}", sealed(out, mic))
                b.add(f"star_dec 0 {level} {nonce.hex()} {hx(a)} {hx(out)} {hx(mic)} {opts}", opened(m))
                if level == 4:  # no MIC: a changed header goes unnoticed, the MIC may be NULL
                    b.add(f"star_dec 0 4 {nonce.hex()} {hx(rng.randbytes(5))} {hx(out)} - inplace", opened(m))
                else:
                    bad = bytearray(mic)
                    bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
                    b.add(f"star_dec 0 {level} {nonce.hex()} {hx(a)} {hx(out)} {bytes(bad).hex()}", rejected(len(m)))
    b.run_on(build)


# ---------------------------------------------------------------------------------------------
# Random calls against pycryptodome: one-shot, streaming in random pieces, in place, misaligned


def data_len(rng: random.Random) -> int:
    return rng.choice((0, rng.randint(0, 17), rng.randint(0, 300), 16 * rng.randint(1, 8)))


def buffer_options(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return f"inplace ooff={rng.randint(0, 7)}"
    return f"ioff={rng.randint(0, 7)} ooff={rng.randint(0, 7)}"


def corrupt(rng: random.Random, data: bytes) -> bytes:
    bad = bytearray(data)
    bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
    return bytes(bad)


def one_shot(b: Batch, rng: random.Random, mode: str, key: bytes) -> None:
    aad, plaintext = rng.randbytes(data_len(rng)), rng.randbytes(data_len(rng))
    if mode == "ccm":
        nonce, tag_len = rng.randbytes(rng.randint(7, 13)), rng.choice((4, 6, 8, 10, 12, 14, 16))
        ciphertext, tag = ccm_ref(key, nonce, aad, plaintext, tag_len)
    else:
        nonce = rng.randbytes(rng.choice((12, 12, 12, rng.randint(1, 70))))
        tag_len = rng.randint(4, 16)
        ciphertext, tag = gcm_ref(key, nonce, aad, plaintext, tag_len)
    head = f"0 {nonce.hex()} {hx(aad)}"
    b.add(f"{mode}_enc {head} {hx(plaintext)} {tag_len} {buffer_options(rng)}", sealed(ciphertext, tag))
    b.add(f"{mode}_dec {head} {hx(ciphertext)} {tag.hex()} {buffer_options(rng)}", opened(plaintext))
    # A changed tag, ciphertext or associated data: rejected, the output zeroed.
    what = rng.choice(("tag", "ciphertext", "aad") if ciphertext and aad else ("tag",))
    bad_tag, bad_ct, bad_aad = (corrupt(rng, tag) if what == "tag" else tag,
                                corrupt(rng, ciphertext) if what == "ciphertext" else ciphertext,
                                corrupt(rng, aad) if what == "aad" else aad)
    b.add(f"{mode}_dec 0 {nonce.hex()} {hx(bad_aad)} {hx(bad_ct)} {bad_tag.hex()} {buffer_options(rng)}",
          rejected(len(plaintext)))
    # A GCM tag is a prefix of the full one: a shorter prefix verifies. A CCM tag's length is in
    # B0: a shorter one is another tag.
    if tag_len > 4:
        shorter = tag[:-1] if mode == "gcm" else tag[:-2]
        b.add(f"{mode}_dec {head} {hx(ciphertext)} {shorter.hex()}",
              opened(plaintext) if mode == "gcm" else rejected(len(plaintext)))


def streamed(b: Batch, rng: random.Random, mode: str, key: bytes) -> None:
    """One message through the streaming calls in random pieces, each piece's output checked."""
    aad, plaintext = rng.randbytes(data_len(rng)), rng.randbytes(data_len(rng))
    decrypt = rng.random() < 0.5
    s = rng.randrange(4)
    if mode == "ccm":
        nonce, tag_len = rng.randbytes(rng.randint(7, 13)), rng.choice((4, 6, 8, 10, 12, 14, 16))
        ciphertext, tag = ccm_ref(key, nonce, aad, plaintext, tag_len)
        b.add(f"ccm_start {s} 0 {nonce.hex()} {len(aad)} {len(plaintext)} {tag_len}", OK)
    else:
        nonce, tag_len = rng.randbytes(rng.choice((12, rng.randint(1, 40)))), rng.randint(4, 16)
        ciphertext, tag = gcm_ref(key, nonce, aad, plaintext, tag_len)
        b.add(f"gcm_start {s} 0 {nonce.hex()}", OK)
    for piece in pieces(rng, aad):
        b.add(f"{mode}_aad {s} {hx(piece)}", OK)
    given, wanted = (ciphertext, plaintext) if decrypt else (plaintext, ciphertext)
    at = 0
    for piece in pieces(rng, given):
        b.add(f"{mode}_{'d' if decrypt else 'e'}upd {s} {hx(piece)} {buffer_options(rng)}",
              f"{OK} {hx(wanted[at:at + len(piece)])}")
        at += len(piece)
    end = "" if mode == "ccm" else f" {tag_len}"
    if not decrypt:
        b.add(f"{mode}_finish {s}{end}", f"{OK} {tag16(tag)}")
    elif rng.random() < 0.7:
        b.add(f"{mode}_verify {s} {tag.hex()}", OK)
    else:
        b.add(f"{mode}_verify {s} {corrupt(rng, tag).hex()}", AUTH)
    b.add(f"snap {mode} {s}", lambda line: _expect(set(line) == {"0"}, f"context not wiped: {line}"))


def cmac_rounds(b: Batch, rng: random.Random, key: bytes) -> None:
    message, tag_len = rng.randbytes(data_len(rng)), rng.randint(1, 16)
    tag = cmac_ref(key, message, tag_len)
    b.add(f"cmac 0 {hx(message)} {tag_len}", f"{OK} {tag16(tag)}")
    s = rng.randrange(4)
    b.add(f"cmac_start {s} 0", OK)
    for piece in pieces(rng, message):
        b.add(f"cmac_update {s} {hx(piece)}", OK)
    if rng.random() < 0.5:
        b.add(f"cmac_finish {s} {tag_len}", f"{OK} {tag16(tag)}")
    else:
        b.add(f"cmac_verify {s} {tag.hex()}", OK)
    b.add(f"snap cmac {s}", lambda line: _expect(set(line) == {"0"}, f"context not wiped: {line}"))


def test_random_calls_against_pycryptodome(build: Build, rng: random.Random) -> None:
    b = Batch()
    for backend in build.backends:
        b.add(f"init 0 {backend}", OK)
        for _ in range(120):
            key = rng.randbytes(rng.choice(KEY_LENGTHS))
            b.add(f"key 0 {key.hex()}", OK)
            kind = rng.choice(("ccm", "gcm", "cmac"))
            if kind == "cmac":
                cmac_rounds(b, rng, key)
            else:
                one_shot(b, rng, kind, key)
                streamed(b, rng, kind, key)
    b.run_on(build)


def test_streams_interleaved_on_several_contexts(build: Build, rng: random.Random) -> None:
    """Streams of different keys and backends advance in turns: each keeps its own state, and
    every stand-in reloads its key (a second stand-in context takes the accelerator between)."""
    b = Batch()
    backends = build.backends
    keys = [rng.randbytes(rng.choice(KEY_LENGTHS)) for _ in range(4)]
    for ctx, key in enumerate(keys):
        keyed(b, rng.choice(backends), key, ctx)
    plans = []
    for s in range(4):
        aad, plaintext = rng.randbytes(rng.randint(0, 50)), rng.randbytes(rng.randint(1, 200))
        iv = rng.randbytes(12)
        ciphertext, tag = gcm_ref(keys[s], iv, aad, plaintext, 16)
        b.add(f"gcm_start {s} {s} {iv.hex()}", OK)
        b.add(f"gcm_aad {s} {hx(aad)}", OK)
        plans.append((pieces(rng, plaintext), ciphertext, tag))
    done = [0, 0, 0, 0]
    at = [0, 0, 0, 0]
    while any(done[s] < len(plans[s][0]) for s in range(4)):
        s = rng.choice([s for s in range(4) if done[s] < len(plans[s][0])])
        piece = plans[s][0][done[s]]
        b.add(f"gcm_eupd {s} {hx(piece)}", f"{OK} {hx(plans[s][1][at[s]:at[s] + len(piece)])}")
        done[s] += 1
        at[s] += len(piece)
    for s in range(4):
        b.add(f"gcm_finish {s} 16", f"{OK} {tag16(plans[s][2])}")
    b.run_on(build)


def test_long_messages_and_the_ccm_length_encodings(build: Build, rng: random.Random) -> None:
    """Associated data of 0xFEFF bytes (2-byte length) and 0xFF00 (0xFFFE form), a 65535-byte
    message under a 13-byte nonce (the largest its 2-byte field holds), streaming and one-shot."""
    b = Batch()
    for backend in (SOFT, TIGHT) if build.fake else build.backends:
        key = rng.randbytes(16)
        keyed(b, backend, key)
        for aad_len, msg_len in ((0xFEFF, 20), (0xFF00, 33), (0x10000 + 5, 0)):
            aad, plaintext, nonce = rng.randbytes(aad_len), rng.randbytes(msg_len), rng.randbytes(13)
            ciphertext, tag = ccm_ref(key, nonce, aad, plaintext, 16)
            b.add(f"ccm_enc 0 {nonce.hex()} {aad.hex()} {hx(plaintext)} 16", sealed(ciphertext, tag))
            b.add(f"ccm_start 1 0 {nonce.hex()} {aad_len} {msg_len} 16", OK)
            for piece in (aad[:7], aad[7:40000], aad[40000:]):
                b.add(f"ccm_aad 1 {hx(piece)}", OK)
            b.add(f"ccm_dupd 1 {hx(ciphertext)}", opened(plaintext))
            b.add(f"ccm_verify 1 {tag.hex()}", OK)
        plaintext, nonce = rng.randbytes(65535), rng.randbytes(13)
        ciphertext, tag = ccm_ref(key, nonce, b"", plaintext, 8)
        b.add(f"ccm_enc 0 {nonce.hex()} = {plaintext.hex()} 8", sealed(ciphertext, tag))
        b.add(f"ccm_dec 0 {nonce.hex()} = {ciphertext.hex()} {tag.hex()} inplace", opened(plaintext))
        iv, aad = rng.randbytes(60), rng.randbytes(70000)
        ciphertext, tag = gcm_ref(key, iv, aad, plaintext, 16)
        b.add(f"gcm_enc 0 {iv.hex()} {aad.hex()} {plaintext.hex()} 16", sealed(ciphertext, tag))
        data = rng.randbytes(70000)
        b.add(f"cmac 0 {data.hex()} 16", f"{OK} {tag16(cmac_ref(key, data, 16))}")
    b.run_on(build)


def test_gcm_counter_wraps_in_its_low_32_bits(build: Build, rng: random.Random) -> None:
    """GCM's counter is inc32: past 0xFFFFFFFF its low word goes to 0 and bytes 0..11 stay. A
    stream's next counter block is set near the wrap (the context's ctr), as an IV whose J0 ends
    there would; one call then spans the wrap, and so do pieces of a stream."""
    b = Batch()
    for backend in build.backends:
        key = rng.randbytes(16)
        keyed(b, backend, key)
        for low in (0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0x7FFFFFFF):
            iv, aad = rng.randbytes(12), rng.randbytes(rng.randint(0, 20))
            j0 = iv + b"\x00\x00\x00\x01"
            upper = b"\xff" * 12 if low == 0xFFFFFFFF else iv
            ctr = upper + low.to_bytes(4, "big")
            plaintext = rng.randbytes(16 * 5 + rng.randint(0, 15))
            ciphertext, tag = gcm_from_counter(key, j0, ctr, aad, plaintext)
            for decrypt in (False, True):
                b.add(f"gcm_start 0 0 {iv.hex()}", OK)
                b.add(f"gcm_ctr 0 {ctr.hex()}", "0")
                b.add(f"gcm_aad 0 {hx(aad)}", OK)
                given, wanted = (ciphertext, plaintext) if decrypt else (plaintext, ciphertext)
                cut = rng.choice((0, 7, 16, 33))
                b.add(f"gcm_{'d' if decrypt else 'e'}upd 0 {hx(given[:cut])}", f"{OK} {hx(wanted[:cut])}")
                b.add(f"gcm_{'d' if decrypt else 'e'}upd 0 {hx(given[cut:])}", f"{OK} {hx(wanted[cut:])}")
                if decrypt:
                    b.add(f"gcm_verify 0 {tag.hex()}", OK)
                else:
                    b.add("gcm_finish 0 16", f"{OK} {tag16(tag)}")
    # The model is GCM itself where the counter is J0's successor.
    key, iv, aad, plaintext = rng.randbytes(16), rng.randbytes(12), rng.randbytes(9), rng.randbytes(50)
    j0 = iv + b"\x00\x00\x00\x01"
    assert gcm_from_counter(key, j0, iv + b"\x00\x00\x00\x02", aad, plaintext) == gcm_ref(key, iv, aad, plaintext, 16)
    b.run_on(build)


# ---------------------------------------------------------------------------------------------
# The C GHASH


def test_c_ghash_against_the_bit_serial_definition(build: Build, rng: random.Random) -> None:
    b = Batch()
    edges = (bytes(16), b"\xff" * 16, b"\x80" + bytes(15), bytes(15) + b"\x01", b"\xe1" + bytes(15))
    cases = [(s, h, d) for s in edges for h in edges for d in (b"", b"\x01" * 16)]
    for _ in range(150):
        cases.append((rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * rng.randint(1, 4))))
    for s, h, data in cases:
        b.add(f"ghash {s.hex()} {h.hex()} {hx(data) if data else '='}", ghash_ref(s, h, data).hex())
    b.run_on(build)


# ---------------------------------------------------------------------------------------------
# Errors: codes, their order, and that a refused call changes nothing


def snapshot(b: Batch, kind: str, s: int, into: list[str]) -> None:
    b.add(f"snap {kind} {s}", into.append)


def test_errors_of_the_one_shot_calls(build: Build) -> None:
    b = Batch()
    key = bytes(range(16))
    data = bytes(range(40))
    n13, n12 = bytes(13), bytes(12)
    for backend in (SOFT, TIGHT, ZKN) if build.fake else build.backends:
        keyed(b, backend, key)
        b.add(f"init 1 {backend}", OK)  # no key
        b.add("fill 2 0xa5", "0")  # never initialised
        b.add("fill 3 0", "0")
        nokey = (1, 2, 3)
        # CMAC: NULL, then STATE, then ARG (tag_len 1..16).
        b.add(f"cmac - {data.hex()} 16", f"{NULL} {UNTOUCHED_TAG}")
        b.add("cmac 0 - 16 len=5", f"{NULL} {UNTOUCHED_TAG}")
        b.add(f"cmac 0 {data.hex()} 16 tagnull", f"{NULL} {UNTOUCHED_TAG}")
        b.add("cmac 1 - 16 len=5", f"{NULL} {UNTOUCHED_TAG}")  # NULL before STATE
        for ctx in nokey:
            b.add(f"cmac {ctx} {data.hex()} 16", f"{STATE} {UNTOUCHED_TAG}")
            b.add(f"cmac {ctx} {data.hex()} 0", f"{STATE} {UNTOUCHED_TAG}")  # STATE before ARG
        for tag_len in (0, 17, 100):
            b.add(f"cmac 0 {data.hex()} {tag_len}", f"{ARG} {UNTOUCHED_TAG}")
        b.add(f"cmac 0 {data.hex()} 0 tagnull", f"{ARG} {UNTOUCHED_TAG}")  # NULL with length 0 is allowed
        b.add("cmac 0 - 16 len=0", f"{OK} {tag16(cmac_ref(key, b'', 16))}")

        for mode, nonce in (("ccm", n13), ("gcm", n12)):
            good_tag = (ccm_ref(key, n13, b"", data, 16) if mode == "ccm" else gcm_ref(key, n12, b"", data, 16))[1]
            enc = f"{mode}_enc"
            dec = f"{mode}_dec"
            refused_enc: Callable[[int], str] = lambda status: f"{status} {untouched(len(data))} {UNTOUCHED_TAG}"
            refused_dec: Callable[[int], str] = lambda status: f"{status} {untouched(len(data))}"
            # NULL pointers (each with a nonzero length), before everything else.
            for args, opts in ((f"- {nonce.hex()} =", ""), (f"0 - =", f"nlen={len(nonce)}"),
                               (f"0 {nonce.hex()} -", "alen=3"), (f"0 {nonce.hex()} =", "outnull"),
                               (f"2 {nonce.hex()} -", "alen=1")):
                shown = "-" if "outnull" in opts else untouched(len(data))
                b.add(f"{enc} {args} {data.hex()} 16 {opts}", f"{NULL} {shown} {UNTOUCHED_TAG}")
                b.add(f"{dec} {args} {data.hex()} {good_tag.hex()} {opts}", f"{NULL} {shown}")
            b.add(f"{enc} 0 {nonce.hex()} = - 16 len=5", f"{NULL} {untouched(0)} {UNTOUCHED_TAG}")
            b.add(f"{enc} 0 {nonce.hex()} = {data.hex()} 16 tagnull", refused_enc(NULL))
            b.add(f"{dec} 0 {nonce.hex()} = {data.hex()} {good_tag.hex()} tagnull", refused_dec(NULL))
            # NULL with a zero length is allowed.
            ct0, tag0 = ccm_ref(key, n13, b"", b"", 16) if mode == "ccm" else gcm_ref(key, n12, b"", b"", 16)
            b.add(f"{enc} 0 {nonce.hex()} - - 16 outnull", f"{OK} - {tag16(tag0)}")
            b.add(f"{dec} 0 {nonce.hex()} - - {tag0.hex()} outnull", f"{OK} -")
            # STATE: no key; before ARG and LEN.
            for ctx in nokey:
                b.add(f"{enc} {ctx} {nonce.hex()} = {data.hex()} 16", refused_enc(STATE))
                b.add(f"{enc} {ctx} {nonce.hex()} = {data.hex()} 3", refused_enc(STATE))
                b.add(f"{dec} {ctx} {nonce.hex()} = {data.hex()} {good_tag.hex()}", refused_dec(STATE))
            # ARG: nonce / IV and tag lengths.
            bad_tags = (0, 2, 3, 5, 7, 9, 15, 17, 18) if mode == "ccm" else (0, 1, 2, 3, 17, 32)
            for tag_len in bad_tags:
                b.add(f"{enc} 0 {nonce.hex()} = {data.hex()} {tag_len}", refused_enc(ARG))
                b.add(f"{dec} 0 {nonce.hex()} = {data.hex()} {bytes(16).hex()} tlen={tag_len}", refused_dec(ARG))
            bad_nonces = (0, 1, 6, 14, 16) if mode == "ccm" else (0,)
            for nonce_len in bad_nonces:
                b.add(f"{enc} 0 {bytes(20).hex()} = {data.hex()} 16 nlen={nonce_len}", refused_enc(ARG))
                b.add(f"{dec} 0 {bytes(20).hex()} = {data.hex()} {good_tag.hex()} nlen={nonce_len}", refused_dec(ARG))
                b.add(f"{enc} 0 {bytes(20).hex()} = {data.hex()} 16 nlen={nonce_len} len=70000", refused_enc(ARG))
            b.add(f"{enc} 0 - = {data.hex()} 16 nlen=0", refused_enc(ARG))  # NULL with length 0: ARG
            # AUTH: a wrong tag zeroes the whole output, in place too.
            bad_tag = xor(good_tag, ONE) + good_tag[1:]
            b.add(f"{dec} 0 {nonce.hex()} = {data.hex()} {bad_tag.hex()}", rejected(len(data)))
            b.add(f"{dec} 0 {nonce.hex()} = {data.hex()} {bad_tag.hex()} inplace", rejected(len(data)))
        # LEN: beyond what the mode encodes; never overflowing near SIZE_MAX.
        for nonce_len, length in ((13, 65536), (13, SIZE_MAX), (12, 1 << 24), (8, 1 << 56), (8, SIZE_MAX)):
            b.add(f"ccm_enc 0 {bytes(nonce_len).hex()} = {data.hex()} 16 len={length}",
                  f"{LEN} {untouched(len(data))} {UNTOUCHED_TAG}")
            b.add(f"ccm_dec 0 {bytes(nonce_len).hex()} = {data.hex()} {bytes(16).hex()} len={length}",
                  f"{LEN} {untouched(len(data))}")
        for length, aad_len in (((1 << 36) - 31, 0), (SIZE_MAX, 0), (0, 1 << 61), (0, SIZE_MAX)):
            b.add(f"gcm_enc 0 {n12.hex()} {data.hex()} {data.hex()} 16 len={length} alen={aad_len}",
                  f"{LEN} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"gcm_enc 0 {n12.hex()} = {data.hex()} 16 nlen={1 << 61}", f"{ARG} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"gcm_enc 0 {n12.hex()} = {data.hex()} 16 nlen={SIZE_MAX}", f"{ARG} {untouched(len(data))} {UNTOUCHED_TAG}")

        # CCM*: levels 1..7 only; the MIC pointer needed unless level 4; lengths of 2 bytes.
        star = f"{n13.hex()} {data[:10].hex()} {data.hex()}"
        for level in (0, 8, 9, 255):
            b.add(f"star_enc 0 {level} {star}", f"{ARG} {untouched(len(data))} {UNTOUCHED_TAG}")
            b.add(f"star_dec 0 {level} {star} {bytes(16).hex()}", f"{ARG} {untouched(len(data))}")
        b.add(f"star_enc - 5 {star}", f"{NULL} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"star_enc 0 5 - {data[:10].hex()} {data.hex()}", f"{NULL} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"star_enc 0 5 {star} tagnull", f"{NULL} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"star_dec 0 1 {star} {bytes(4).hex()} tagnull", f"{NULL} {untouched(len(data))}")
        b.add(f"star_enc 1 5 {star}", f"{STATE} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"star_enc 1 0 {star}", f"{STATE} {untouched(len(data))} {UNTOUCHED_TAG}")  # STATE before ARG
        out4, _ = ccm_star_ref(key, 4, n13, data[:10], data)
        b.add(f"star_enc 0 4 {star} tagnull", sealed(out4, b""))
        for level in (4, 5, 6, 7):
            b.add(f"star_enc 0 {level} {star} len=65536", f"{LEN} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"star_enc 0 1 {star} alen={SIZE_MAX}", f"{LEN} {untouched(len(data))} {UNTOUCHED_TAG}")
        b.add(f"star_enc 0 2 {star} alen={SIZE_MAX - len(data) + 1}", f"{LEN} {untouched(len(data))} {UNTOUCHED_TAG}")
    b.run_on(build)


def test_errors_and_phases_of_the_streaming_calls(build: Build) -> None:
    """Each streaming call's errors in order, calls in the wrong phase, a changed key; a refused
    call leaves the context byte for byte as it was."""
    b = Batch()
    key, key2 = bytes(range(16)), bytes(range(1, 33))
    data = bytes(range(40))
    for backend in (SOFT, MMIO, ZKN) if build.fake else build.backends:
        keyed(b, backend, key)
        b.add(f"init 1 {backend}", OK)
        for kind in ("cmac", "ccm", "gcm"):
            b.add(f"fill {kind} 0 0", "0")
        # Not started (zeroed contexts).
        b.add("cmac_update 0 00", STATE)
        b.add("cmac_finish 0 16", f"{STATE} {UNTOUCHED_TAG}")
        b.add("cmac_verify 0 00000000", STATE)
        b.add("ccm_aad 0 00", STATE)
        b.add("ccm_eupd 0 00", f"{STATE} {untouched(1)}")
        b.add("ccm_finish 0", f"{STATE} {UNTOUCHED_TAG}")
        b.add("ccm_verify 0 00000000", STATE)
        b.add("gcm_aad 0 00", STATE)
        b.add("gcm_dupd 0 00", f"{STATE} {untouched(1)}")
        b.add("gcm_finish 0 16", f"{STATE} {UNTOUCHED_TAG}")
        b.add("gcm_verify 0 00000000", STATE)
        # start: NULL, STATE, ARG, LEN.
        b.add("cmac_start - 0", NULL)
        b.add("cmac_start 0 -", NULL)
        b.add("cmac_start 0 1", STATE)
        b.add(f"ccm_start - 0 {bytes(13).hex()} 0 0 16", NULL)
        b.add("ccm_start 0 0 - 0 0 16 nlen=13", NULL)
        b.add(f"ccm_start 0 1 {bytes(13).hex()} 0 0 16", STATE)
        b.add(f"ccm_start 0 1 {bytes(13).hex()} 0 0 3", STATE)
        b.add(f"ccm_start 0 0 {bytes(13).hex()} 0 0 3", ARG)
        b.add(f"ccm_start 0 0 {bytes(14).hex()} 0 0 16", ARG)
        b.add(f"ccm_start 0 0 {bytes(13).hex()} 0 65536 16", LEN)
        b.add(f"ccm_start 0 0 {bytes(8).hex()} 0 {1 << 56} 16", LEN)
        b.add(f"ccm_start 0 0 {bytes(7).hex()} {SIZE_MAX} {SIZE_MAX} 16", OK)  # 8-byte fields hold any size_t
        b.add(f"gcm_start 0 - {bytes(12).hex()}", NULL)
        b.add("gcm_start 0 0 - nlen=12", NULL)
        b.add(f"gcm_start 0 1 {bytes(12).hex()}", STATE)
        b.add("gcm_start 0 0 =", ARG)
        b.add("gcm_start 0 0 - nlen=0", ARG)
        for kind in ("cmac", "gcm"):
            b.add(f"fill {kind} 0 0", "0")

        # CMAC: refused calls change nothing; a changed key ends the stream.
        snaps: list[str] = []
        b.add("cmac_start 0 0", OK)
        b.add(f"cmac_update 0 {data[:20].hex()}", OK)
        snapshot(b, "cmac", 0, snaps)
        b.add("cmac_update 0 - len=3", NULL)
        b.add("cmac_finish 0 0", f"{ARG} {UNTOUCHED_TAG}")
        b.add("cmac_finish 0 17", f"{ARG} {UNTOUCHED_TAG}")
        b.add("cmac_finish 0 16 tagnull", f"{NULL} {UNTOUCHED_TAG}")
        b.add("cmac_verify 0 - tlen=4", NULL)
        b.add("cmac_verify 0 = tlen=0", ARG)
        b.add("cmac_update 0 - len=0", OK)
        snapshot(b, "cmac", 0, snaps)
        b.add("cmac_finish 0 16", f"{OK} {tag16(cmac_ref(key, data[:20], 16))}")
        b.add("cmac_update 0 00", STATE)  # ended
        b.add("cmac_finish 0 16", f"{STATE} {UNTOUCHED_TAG}")
        b.add("cmac_start 0 0", OK)
        b.add(f"key 0 {key2.hex()}", OK)
        b.add("cmac_update 0 00", STATE)
        b.add("cmac_start 0 0", OK)
        b.add("zeroize 0", OK)
        b.add("cmac_finish 0 16", f"{STATE} {UNTOUCHED_TAG}")
        b.add(f"key 0 {key.hex()}", OK)

        # CCM: the phases (AAD, then the message, then finish or verify), its lengths.
        nonce = bytes(range(13))
        aad, msg = data[:10], data[:33]
        ct, tag = ccm_ref(key, nonce, aad, msg, 8)
        b.add(f"ccm_start 0 0 {nonce.hex()} {len(aad)} {len(msg)} 8", OK)
        b.add(f"ccm_eupd 0 {msg.hex()}", f"{STATE} {untouched(len(msg))}")  # before all of the AAD
        b.add("ccm_finish 0", f"{STATE} {UNTOUCHED_TAG}")
        b.add(f"ccm_aad 0 {aad[:4].hex()}", OK)
        b.add(f"ccm_aad 0 {aad[4:].hex()}00", LEN)  # beyond aad_len
        snaps_ccm: list[str] = []
        snapshot(b, "ccm", 0, snaps_ccm)
        b.add("ccm_aad 0 - len=2", NULL)
        b.add(f"ccm_dupd 0 {msg.hex()}", f"{STATE} {untouched(len(msg))}")
        snapshot(b, "ccm", 0, snaps_ccm)
        b.add(f"ccm_aad 0 {aad[4:].hex()}", OK)
        b.add("ccm_aad 0 00", LEN)  # all of the AAD is in
        b.add("ccm_aad 0 =", OK)
        b.add(f"ccm_eupd 0 {msg[:20].hex()}", opened(ct[:20]))
        b.add("ccm_aad 0 =", STATE)  # the message has begun
        b.add(f"ccm_dupd 0 {msg[20:].hex()}", f"{STATE} {untouched(13)}")  # one direction per stream
        b.add("ccm_verify 0 00000000", STATE)
        b.add(f"ccm_eupd 0 {msg[20:].hex()}00", f"{LEN} {untouched(14)}")  # beyond msg_len
        b.add("ccm_finish 0", f"{STATE} {UNTOUCHED_TAG}")  # before all of the message
        b.add(f"ccm_eupd 0 {msg[20:].hex()} outnull", f"{NULL} -")
        b.add("ccm_finish 0 tagnull", f"{NULL} {UNTOUCHED_TAG}")
        b.add(f"ccm_eupd 0 {msg[20:].hex()}", opened(ct[20:]))
        b.add("ccm_finish 0", f"{OK} {tag16(tag)}")
        b.add("ccm_finish 0", f"{STATE} {UNTOUCHED_TAG}")
        b.add(f"ccm_start 1 0 {nonce.hex()} 0 {len(msg)} 8", OK)
        b.add(f"ccm_start 2 0 {nonce.hex()} {len(aad)} {len(msg)} 8", OK)
        b.add(f"ccm_aad 2 {aad.hex()}", OK)
        b.add(f"ccm_dupd 2 {ct.hex()}", opened(msg))
        b.add("ccm_finish 2", f"{STATE} {UNTOUCHED_TAG}")
        b.add("ccm_verify 2 -", NULL)
        b.add(f"ccm_verify 2 {(xor(tag, ONE) + tag[1:]).hex()}", AUTH)
        b.add(f"ccm_verify 2 {tag.hex()}", STATE)  # ended by the failed verify
        b.add(f"key 0 {key2.hex()}", OK)
        b.add(f"ccm_eupd 1 {msg.hex()}", f"{STATE} {untouched(len(msg))}")  # the key changed
        b.add(f"key 0 {key.hex()}", OK)

        # GCM: AAD only before the message, one direction, finish for encryption and verify for
        # decryption, tag lengths at the end.
        iv = bytes(range(12))
        ct, tag = gcm_ref(key, iv, aad, msg, 16)
        snaps_gcm: list[str] = []
        b.add(f"gcm_start 0 0 {iv.hex()}", OK)
        b.add(f"gcm_aad 0 {aad.hex()}", OK)
        b.add("gcm_aad 0 = len=" + str(1 << 61), LEN)
        b.add("gcm_aad 0 - len=1", NULL)
        b.add(f"gcm_eupd 0 {msg[:5].hex()}", opened(ct[:5]))
        snapshot(b, "gcm", 0, snaps_gcm)
        b.add("gcm_aad 0 00", STATE)
        b.add(f"gcm_dupd 0 {msg[5:].hex()}", f"{STATE} {untouched(len(msg) - 5)}")
        b.add("gcm_verify 0 " + tag.hex(), STATE)
        b.add(f"gcm_eupd 0 {msg[5:].hex()} len={1 << 36}", f"{LEN} {untouched(len(msg) - 5)}")
        b.add("gcm_finish 0 3", f"{ARG} {UNTOUCHED_TAG}")
        b.add("gcm_finish 0 17", f"{ARG} {UNTOUCHED_TAG}")
        b.add("gcm_finish 0 16 tagnull", f"{NULL} {UNTOUCHED_TAG}")
        b.add("gcm_eupd 0 - len=0", opened(b""))
        snapshot(b, "gcm", 0, snaps_gcm)
        b.add(f"gcm_eupd 0 {msg[5:].hex()}", opened(ct[5:]))
        b.add("gcm_finish 0 16", f"{OK} {tag16(tag)}")
        b.add("gcm_eupd 0 00", f"{STATE} {untouched(1)}")
        b.add(f"gcm_start 0 0 {iv.hex()}", OK)
        b.add(f"gcm_aad 0 {aad.hex()}", OK)
        b.add(f"gcm_dupd 0 {ct.hex()}", opened(msg))
        b.add("gcm_finish 0 16", f"{STATE} {UNTOUCHED_TAG}")
        b.add(f"gcm_verify 0 {tag[:3].hex()}", ARG)
        b.add(f"gcm_verify 0 {tag[:12].hex()}", OK)  # a truncated tag of 12 bytes
        b.add(f"gcm_start 0 0 {iv.hex()}", OK)
        b.add("zeroize 0", OK)
        b.add(f"gcm_aad 0 {aad.hex()}", STATE)
        b.add(f"key 0 {key.hex()}", OK)
        b.add(f"gcm_start 0 0 {iv.hex()}", OK)
        b.add("gcm_verify 0 " + gcm_ref(key, iv, b"", b"", 16)[1].hex(), OK)  # a MAC of nothing (GMAC)

    def all_equal(snaps: list[str]) -> Callable[[str], None]:
        def check(_: str) -> None:
            assert len(snaps) >= 2 and len(set(snaps)) == 1, "a refused call changed the context"
        return check

    b.add("snap cmac 0", all_equal(snaps))
    b.add("snap ccm 0", all_equal(snaps_ccm))
    b.add("snap gcm 0", all_equal(snaps_gcm))
    b.run_on(build)


# ---------------------------------------------------------------------------------------------
# The accelerator: BUSY, backend failures, which modes each path uses


def test_busy_while_another_call_holds_the_accelerator(fake_driver: Path, rng: random.Random) -> None:
    """From inside a call on a stand-in, as another thread would: every AEAD call on another
    stand-in context gets COUPLET_ERR_BUSY with nothing written and its stream unchanged; calls
    on a software context go ahead; after the call the accelerator is free again."""
    build = Build("stand_ins", fake_driver, tuple(range(len(BACKENDS))))
    key, key2 = rng.randbytes(16), rng.randbytes(32)
    data, iv, nonce = rng.randbytes(40), rng.randbytes(12), rng.randbytes(13)
    b = Batch()
    keyed(b, TIGHT, key, 0)
    keyed(b, MMIO, key2, 1)
    keyed(b, ZKN, key2, 2)
    keyed(b, SOFT, key2, 3)
    # Streams on context 1, paused in each phase.
    b.add("cmac_start 1 1", OK)
    b.add(f"cmac_update 1 {data[:20].hex()}", OK)
    b.add(f"ccm_start 1 1 {nonce.hex()} 10 {len(data)} 16", OK)
    b.add(f"gcm_start 1 1 {iv.hex()}", OK)
    b.add(f"gcm_aad 1 {data[:5].hex()}", OK)
    before: dict[str, list[str]] = {kind: [] for kind in ("cmac", "ccm", "gcm")}
    for kind in before:
        snapshot(b, kind, 1, before[kind])
    ct, tag = gcm_ref(key2, iv, b"", data, 16)
    busy_calls = (
        (f"gcm_enc 1 {iv.hex()} = {data.hex()} 16", f"{BUSY} {untouched(len(data))} {UNTOUCHED_TAG}"),
        (f"gcm_dec 1 {iv.hex()} = {ct.hex()} {tag.hex()}", f"{BUSY} {untouched(len(data))}"),
        (f"ccm_enc 2 {nonce.hex()} = {data.hex()} 16", f"{BUSY} {untouched(len(data))} {UNTOUCHED_TAG}"),
        (f"ccm_dec 1 {nonce.hex()} = {data.hex()} {tag.hex()} inplace", f"{BUSY} {hx(data)}"),
        (f"star_enc 1 6 {nonce.hex()} {data[:5].hex()} {data.hex()}", f"{BUSY} {untouched(len(data))} {UNTOUCHED_TAG}"),
        (f"star_dec 2 2 {nonce.hex()} {data[:5].hex()} {data.hex()} {tag[:8].hex()}", f"{BUSY} {untouched(len(data))}"),
        (f"cmac 1 {data.hex()} 16", f"{BUSY} {UNTOUCHED_TAG}"),
        ("cmac_start 2 1", str(BUSY)),
        (f"cmac_update 1 {data.hex()}", str(BUSY)),
        ("cmac_finish 1 16", f"{BUSY} {UNTOUCHED_TAG}"),
        ("cmac_verify 1 " + tag.hex(), str(BUSY)),
        (f"ccm_start 2 1 {nonce.hex()} 0 0 16", str(BUSY)),
        (f"ccm_aad 1 {data[:10].hex()}", str(BUSY)),
        (f"gcm_start 2 1 {iv.hex()}", str(BUSY)),
        (f"gcm_aad 1 {data.hex()}", str(BUSY)),
        (f"gcm_eupd 1 {data.hex()}", f"{BUSY} {untouched(len(data))}"),
        (f"gcm_dupd 1 {data.hex()} inplace", f"{BUSY} {hx(data)}"),
        ("gcm_finish 1 16", f"{BUSY} {UNTOUCHED_TAG}"),
        ("gcm_verify 1 " + tag.hex(), str(BUSY)),
    )
    outer = f"gcm_enc 0 {iv.hex()} = {data.hex()} 16"
    outer_answer = sealed(*gcm_ref(key, iv, b"", data, 16))
    for inner, expected in busy_calls:
        b.add(f"probe {inner}", "0")
        b.add(outer, outer_answer)
        b.add("probed", f"1 {expected}")
    # Within an AEAD call on a software backend context, nothing is held.
    soft_ct, soft_tag = gcm_ref(key2, iv, b"", data, 16)
    b.add(f"probe gcm_enc 3 {iv.hex()} = {data.hex()} 16", "0")
    b.add(outer, outer_answer)
    b.add("probed", f"1 {sealed(soft_ct, soft_tag)}")
    # A call on the zkn stand-in (the generic path) holds it the same way.
    b.add(f"probe cmac 1 {data.hex()} 16", "0")
    b.add(f"ccm_enc 2 {nonce.hex()} = {data.hex()} 4", sealed(*ccm_ref(key2, nonce, b"", data, 4)))
    b.add("probed", f"1 {BUSY} {UNTOUCHED_TAG}")
    for kind in before:
        snapshot(b, kind, 1, before[kind])
    # The paused streams go on as if nothing happened.
    b.add(f"cmac_update 1 {data[20:].hex()}", OK)
    b.add("cmac_finish 1 16", f"{OK} {tag16(cmac_ref(key2, data, 16))}")
    ct_ccm, tag_ccm = ccm_ref(key2, nonce, data[:10], data, 16)
    b.add(f"ccm_aad 1 {data[:10].hex()}", OK)
    b.add(f"ccm_eupd 1 {data.hex()}", opened(ct_ccm))
    b.add("ccm_finish 1", f"{OK} {tag16(tag_ccm)}")
    ct_gcm, tag_gcm = gcm_ref(key2, iv, data[:5], data, 16)
    b.add(f"gcm_eupd 1 {data.hex()}", opened(ct_gcm))
    b.add("gcm_finish 1 16", f"{OK} {tag16(tag_gcm)}")

    def unchanged(kind: str) -> Callable[[str], None]:
        def check(_: str) -> None:
            assert len(before[kind]) == 2 and before[kind][0] == before[kind][1], f"{kind} stream changed while BUSY"
        return check

    for kind in before:
        b.add(f"snap {kind} 0", unchanged(kind))
    b.run_on(build)


def test_backend_failures_end_the_call_and_zero_its_output(fake_driver: Path, rng: random.Random) -> None:
    """A stand-in's crypt returns ERR_HW at the first, second or third backend call of a one-shot
    call: the status comes back and the output is all zeros; a failing stream is wiped and ended."""
    build = Build("stand_ins", fake_driver, tuple(range(len(BACKENDS))))
    key, data, iv, nonce = rng.randbytes(16), rng.randbytes(70), rng.randbytes(12), rng.randbytes(11)
    b = Batch()
    for backend in (TIGHT, ZKN):
        keyed(b, backend, key)
        gct, gtag = gcm_ref(key, iv, data[:20], data, 16)
        cct, ctag = ccm_ref(key, nonce, data[:20], data, 16)
        for skip in range(3):  # the failure at the (skip + 1)-th backend call of the call
            b.add(f"fail {HW} {skip}", "0")
            b.add(f"gcm_dec 0 {iv.hex()} {data[:20].hex()} {gct.hex()} {gtag.hex()}", f"{HW} {hx(bytes(len(data)))}")
            b.add(f"fail {HW} {skip}", "0")
            b.add(f"ccm_dec 0 {nonce.hex()} {data[:20].hex()} {cct.hex()} {ctag.hex()} inplace",
                  f"{HW} {hx(bytes(len(data)))}")
            b.add(f"fail {HW} {skip}", "0")
            b.add(f"gcm_enc 0 {iv.hex()} = {data.hex()} 16", f"{HW} {hx(bytes(len(data)))} {UNTOUCHED_TAG}")
            b.add(f"fail {HW} {skip}", "0")
            b.add(f"cmac 0 {data.hex()} 16", f"{HW} {UNTOUCHED_TAG}")
        # Streams: the failing call returns the status, the context is wiped and not started.
        b.add(f"gcm_start 1 0 {iv.hex()}", OK)
        b.add(f"gcm_aad 1 {data[:20].hex()}", OK)
        b.add(f"fail {STATUS['ERR_TIMEOUT']}", "0")
        b.add(f"gcm_eupd 1 {data.hex()}", lambda line: _expect(line.split()[0] == str(STATUS["ERR_TIMEOUT"]), line))
        b.add("snap gcm 1", lambda line: _expect(set(line) == {"0"}, "a failed stream was not wiped"))
        b.add(f"gcm_eupd 1 {data.hex()}", f"{STATE} {untouched(len(data))}")
        b.add("cmac_start 1 0", OK)
        b.add(f"fail {HW}", "0")
        b.add(f"cmac_update 1 {data.hex()}", HW)
        b.add("cmac_finish 1 16", f"{STATE} {UNTOUCHED_TAG}")
        # And then everything works again (the lock was given back).
        b.add(f"gcm_dec 0 {iv.hex()} {data[:20].hex()} {gct.hex()} {gtag.hex()}", opened(data))
    b.run_on(build)


def test_each_backend_takes_its_path(fake_driver: Path, rng: random.Random) -> None:
    """The engine stand-ins run MACs in CBC_MAC mode and GCM in its GCM and GHASH modes, never
    CBC or CTR for them; soft is outside the count, zkn's stand-in (no engine modes) uses CBC for
    MACs and CTR for GCM and CCM. Counted by the stand-ins, per mode."""
    build = Build("stand_ins", fake_driver, tuple(range(len(BACKENDS))))
    key, data, iv, nonce = rng.randbytes(16), rng.randbytes(100), rng.randbytes(12), rng.randbytes(13)
    counts: list[list[int]] = []
    record = lambda line: counts.append([int(x) for x in line.split()])  # noqa: E731
    b = Batch()
    for backend in (TIGHT, ZKN):
        keyed(b, backend, key)
        ops = (
            (f"cmac 0 {data.hex()} 16", f"{OK} {tag16(cmac_ref(key, data, 16))}"),
            (f"ccm_enc 0 {nonce.hex()} {data[:30].hex()} {data.hex()} 16",
             sealed(*ccm_ref(key, nonce, data[:30], data, 16))),
            (f"gcm_enc 0 {iv.hex()} {data[:30].hex()} {data.hex()} 16", sealed(*gcm_ref(key, iv, data[:30], data, 16))),
            (f"gcm_enc 0 {data[:20].hex()} {data[:30].hex()} {data.hex()} 16",
             sealed(*gcm_ref(key, data[:20], data[:30], data, 16))),
        )
        for command, expected in ops:
            b.add("modes", record)
            b.add(command, expected)
        b.add("modes", record)
    b.run_on(build)
    deltas = [[after - before for before, after in zip(counts[i], counts[i + 1])] for i in (0, 1, 2, 3, 5, 6, 7, 8)]
    cmac_t, ccm_t, gcm_t, gcm_t_long, cmac_z, ccm_z, gcm_z, gcm_z_long = deltas
    assert cmac_t[CBC_MAC] >= 1 and cmac_t[CBC] == 0 and cmac_t[ECB] == 1  # ECB: the subkey L
    assert ccm_t[CBC_MAC] >= 1 and ccm_t[CTR] >= 1 and ccm_t[CBC] == 0
    assert gcm_t[GCM] == 1 and gcm_t[GHASH] >= 1 and gcm_t[CTR] == 0 and gcm_t[CBC] == 0
    assert gcm_t_long[GHASH] >= 3  # the IV's blocks and length block, then the AAD and lengths
    for delta in (cmac_z, ccm_z, gcm_z, gcm_z_long):
        assert delta[CBC_MAC] == delta[GCM] == delta[GHASH] == 0
    assert cmac_z[CBC] >= 1 and ccm_z[CBC] >= 1 and ccm_z[CTR] >= 1 and gcm_z[CTR] >= 1
    assert all(c[-1] == 0 for c in counts), "a stand-in was asked for a mode it does not list"


# ---------------------------------------------------------------------------------------------
# The SoC build: warnings of the target, no library calls, no tables


@pytest.fixture(scope="module")
def soc_objects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return cross_compile(tmp_path_factory.mktemp("aead_rv32"), SOC_CONFIG_ALL_AES,
                         (AES_DIR / "aes_aead.c", AES_DIR / "aes_ghash.c"))


def test_cross_compile_calls_only_the_session_api(soc_objects: dict[str, Path], tmp_path: Path) -> None:
    assert undefined_symbols(soc_objects["aes_ghash"]) == set()
    assert undefined_symbols(soc_objects["aes_aead"]) == {
        "couplet_aes_session_begin", "couplet_aes_session_crypt", "couplet_aes_session_end", "couplet_aes_ghash"}
    # And for a SoC without the accelerator; aes.c still references only the soft backend there.
    objects = cross_compile(tmp_path, SOC_CONFIG_NO_AES, (AES_DIR / "aes_aead.c", AES_DIR / "aes.c"))
    assert "memcpy" not in undefined_symbols(objects["aes_aead"])
    assert undefined_symbols(objects["aes"]) == {"couplet_aes_backend_soft"}


def section_sizes(obj: Path) -> dict[str, int]:
    sections = subprocess.run([paths.cross_tool("objdump"), "-h", str(obj)], capture_output=True, text=True,
                              check=True).stdout
    sizes: dict[str, int] = {}
    for name, size in re.findall(r"^\s*\d+\s+(\S+)\s+([0-9a-f]{8})\s", sections, re.MULTILINE):
        kind = "rodata" if "rodata" in name else "data" if re.match(r"\.s?(data|bss)", name) else "other"
        sizes[kind] = sizes.get(kind, 0) + int(size, 16)
    return sizes


def test_c_ghash_and_the_layer_have_no_table(soc_objects: dict[str, Path]) -> None:
    """The constant-time argument of aes_ghash.c rests on there being no table indexed by data:
    neither object has read-only or writable data at all, and the sources declare no array of
    constants. The multiply is the integer multiplier's: 144 mul and 144 mulhu per block."""
    for stem in ("aes_ghash", "aes_aead"):
        sizes = section_sizes(soc_objects[stem])
        assert sizes.get("rodata", 0) == 0 and sizes.get("data", 0) == 0, (stem, sizes)
        code = re.sub(r"//[^\n]*", "", (AES_DIR / f"{stem}.c").read_text())
        assert not re.search(r"\bstatic\s+const\b[^;(]*\[", code), f"a table in {stem}.c"
        assert not re.search(r"\{\s*(0x[0-9a-fA-F]+u?\s*,\s*){8,}", code), f"a table of constants in {stem}.c"
    disassembly = subprocess.run([paths.cross_tool("objdump"), "-d", str(soc_objects["aes_ghash"])],
                                 capture_output=True, text=True, check=True).stdout
    assert len(re.findall(r"\tmulhu\s", disassembly)) == 144 and len(re.findall(r"\tmul\s", disassembly)) == 144
