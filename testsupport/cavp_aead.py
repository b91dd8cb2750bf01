"""The sample of authenticated-encryption vectors the in-SoC firmware test runs on every AES
backend (sw/apps/test_aead): ``aead_vectors.c`` and ``aead_vectors.h``, committed and checked by
tests/test_aead_firmware.py to match a fresh generation; ``python -m testsupport.cavp_aead``
rewrites them.

What the sample holds, from the NIST files of the PyPI package ``cryptography_vectors`` (read by
testsupport/cavp.py):

- AES-CCM (CCMVS), per key size: DVPT records of four of its (Alen, Plen, Nlen, Tlen) sections
  that must pass and of two that must fail; the first VADT record at a few associated-data lengths
  (the first block of associated data holds its 2-byte length and 14 bytes), VNT at a few nonce
  lengths, VPT at a few message lengths, VTT at a few tag lengths.
- AES-GCM (GCMVS), per key size: gcmEncryptExtIV records with 96-bit and other IVs (8 and 1024
  bits), empty and partial-block messages and associated data, full and short tags (down to 32
  bits); gcmDecrypt records that pass and records that must fail (FAIL), again with every IV length.
- AES-CMAC: every SP 800-38B example (nist-800-38b-aes*.txt).

And CCM* as IEEE 802.15.4 secures a frame, at every security level 1..7, on one frame of 127 bytes
at level 7 (a 26-byte header with the auxiliary security header, an 83-byte payload, a 16-byte MIC
and the 2-byte FCS), the expected values computed with pycryptodome: levels 5..7 are CCM with an
M-byte tag (4, 8, 16) on the payload with the header as associated data; levels 1..3 are CCM of an
empty message with header || payload as associated data (the payload goes out as it came in);
level 4 is CTR from the counter blocks A_i = flags (0x01) || nonce || i, i = 1, 2, ... .

The app's number of streamed random messages per backend (STREAM_MESSAGES) is written in the header
too, so the test and the app take it from one place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from Crypto.Cipher import AES

from couplet import paths
from testsupport.cavp import KEY_BITS, AeadVector, CmacVector, aead_dir, cmac_files, parse_ccm, parse_cmac, parse_gcm

APP_DIR = paths.SW_DIR / "apps" / "test_aead"
VECTORS_C = APP_DIR / "aead_vectors.c"
VECTORS_H = APP_DIR / "aead_vectors.h"

# Random messages per backend that sw/apps/test_aead streams in random pieces (CCM, GCM and CMAC
# in turn), and the key length of each (make_message of its main.c).
STREAM_MESSAGES = 12


def stream_key_bytes(r: int) -> int:
    """Message r's key: 16, 24 and 32 bytes in turn, each for three messages."""
    return 16 + 8 * ((r // 3) % 3)

# aead_kind_t of aead_vectors.h, in its order.
KINDS = ("CCM", "GCM", "CMAC")
CCM_FILES = ("DVPT", "VADT", "VNT", "VPT", "VTT")


@dataclass(frozen=True)
class SampleVector:
    """One row of the firmware's table: a CCM or GCM record (AeadVector) or a CMAC example."""

    kind: str  # one of KINDS
    source: str
    key: bytes
    nonce: bytes  # the CCM nonce or the GCM IV; empty for CMAC
    aad: bytes
    plaintext: bytes | None  # None for a record whose tag must be refused; CMAC: the message
    ciphertext: bytes  # empty for CMAC
    tag: bytes
    decrypt: bool  # a decryption-verification record (DVPT, gcmDecrypt)

    @property
    def passes(self) -> bool:
        return self.plaintext is not None

    @property
    def length(self) -> int:
        """Bytes of the message: the ciphertext's (CCM, GCM), the MAC's input (CMAC)."""
        return len(self.plaintext or b"") if self.kind == "CMAC" else len(self.ciphertext)


def _from_aead(kind: str, v: AeadVector) -> SampleVector:
    return SampleVector(kind, v.source, v.key, v.nonce, v.aad, v.plaintext, v.ciphertext, v.tag, v.decrypt)


def _from_cmac(v: CmacVector) -> SampleVector:
    return SampleVector("CMAC", v.source, v.key, b"", b"", v.message, b"", v.tag, False)


# (Alen, Plen, Nlen, Tlen) in bytes: the DVPT sections whose first passing record is taken, and
# those whose first failing record is (Plen 24: a refused tag must zero 24 bytes of output).
DVPT_PASS = ((0, 0, 7, 4), (0, 24, 13, 4), (32, 0, 7, 16), (32, 24, 13, 16))
DVPT_FAIL = ((0, 24, 7, 4), (32, 24, 13, 16))
# The first record of each of these lengths: VADT's Alen (around the 14 bytes of associated data
# that share the first block with its length), VNT's Nlen, VPT's Plen, VTT's Tlen. (The other
# files have Alen 32, Nlen 13, Plen 24 and Tlen 16.)
CCM_LENGTHS = {"VADT": (0, 1, 14, 15), "VNT": (7, 10), "VPT": (0, 1, 16, 17), "VTT": (4, 6, 10)}

# GCM sections, (IV, PT, AAD, tag) bytes. Encryption: the first record of each.
GCM_ENCRYPT = ((12, 0, 0, 16), (12, 16, 16, 16), (12, 51, 20, 12), (12, 13, 90, 4), (1, 32, 20, 8),
               (128, 16, 48, 15))
# Decryption: the first passing record of the first ones, the first failing of the others.
GCM_DECRYPT_PASS = ((12, 51, 20, 16), (1, 13, 16, 4), (128, 32, 0, 14))
GCM_DECRYPT_FAIL = ((12, 51, 20, 16), (1, 16, 48, 8), (128, 13, 90, 16))


Shape = tuple[int, int, int, int]


def _ccm_shape(v: AeadVector) -> Shape:
    return len(v.aad), len(v.ciphertext), len(v.nonce), len(v.tag)


def _gcm_shape(v: AeadVector) -> Shape:
    return len(v.nonce), len(v.ciphertext), len(v.aad), len(v.tag)


def _first(vectors: Sequence[AeadVector], what: str, found: Callable[[AeadVector], bool]) -> AeadVector:
    for v in vectors:
        if found(v):
            return v
    raise ValueError(f"no record {what}")


def _first_of_shape(vectors: Sequence[AeadVector], what: str, shape: Callable[[AeadVector], Shape], want: Shape,
                    passes: bool) -> AeadVector:
    """The first record of `want` shape that passes (or fails)."""
    def found(v: AeadVector) -> bool:
        return shape(v) == want and (v.plaintext is not None) == passes

    return _first(vectors, f"{what} {want} that {'passes' if passes else 'fails'}", found)


def ccm_sample() -> list[SampleVector]:
    sample: list[SampleVector] = []
    for bits in KEY_BITS:
        dvpt = parse_ccm(aead_dir("CCM") / f"DVPT{bits}.rsp")
        for shapes, passes in ((DVPT_PASS, True), (DVPT_FAIL, False)):
            sample += [_from_aead("CCM", _first_of_shape(dvpt, f"DVPT{bits}", _ccm_shape, shape, passes))
                       for shape in shapes]
        for name, lengths in CCM_LENGTHS.items():
            field = {"VADT": 0, "VPT": 1, "VNT": 2, "VTT": 3}[name]  # its place in _ccm_shape
            records = parse_ccm(aead_dir("CCM") / f"{name}{bits}.rsp")
            for length in lengths:
                def found(v: AeadVector, n: int = length) -> bool:
                    return _ccm_shape(v)[field] == n

                sample.append(_from_aead("CCM", _first(records, f"{name}{bits} of length {length}", found)))
    return sample


def gcm_sample() -> list[SampleVector]:
    sample: list[SampleVector] = []
    for bits in KEY_BITS:
        encrypt = parse_gcm(aead_dir("GCM") / f"gcmEncryptExtIV{bits}.rsp")
        decrypt = parse_gcm(aead_dir("GCM") / f"gcmDecrypt{bits}.rsp")
        sample += [_from_aead("GCM", _first_of_shape(encrypt, f"gcmEncryptExtIV{bits}", _gcm_shape, shape, True))
                   for shape in GCM_ENCRYPT]
        for shapes, passes in ((GCM_DECRYPT_PASS, True), (GCM_DECRYPT_FAIL, False)):
            sample += [_from_aead("GCM", _first_of_shape(decrypt, f"gcmDecrypt{bits}", _gcm_shape, shape, passes))
                       for shape in shapes]
    return sample


def cmac_sample() -> list[SampleVector]:
    return [_from_cmac(v) for path in cmac_files() for v in parse_cmac(path)]


def firmware_sample() -> list[SampleVector]:
    """The table sw/apps/test_aead runs on every backend, CCM, GCM then CMAC."""
    return [*ccm_sample(), *gcm_sample(), *cmac_sample()]


# ---------------------------------------------------------------------------------------------
# CCM* (IEEE 802.15.4)


@dataclass(frozen=True)
class CcmStarVector:
    level: int  # 1..7
    key: bytes
    nonce: bytes  # 13 bytes: source address, frame counter, level
    header: bytes  # the MAC header with the auxiliary security header: authenticated
    payload: bytes
    out: bytes  # the secured payload: encrypted (levels 4..7) or as it was (1..3)
    mic: bytes  # 0, 4, 8 or 16 bytes (level & 3)

    @property
    def source(self) -> str:
        return f"CCM* level {self.level}"


FRAME_BYTES = 127  # aMaxPHYPacketSize: the frame at level 7, MIC and FCS included
FCS_BYTES = 2
CCM_STAR_KEY = hashlib.shake_128(b"couplet test_aead CCM* key").digest(16)
SOURCE_ADDRESS = bytes.fromhex("acde480000000001")  # extended address, most significant byte first
DEST_ADDRESS = bytes.fromhex("acde480000000002")
PAN_ID = 0x1AAA
FRAME_COUNTER = 0x00000005
SEQUENCE = 0x84


def mic_bytes(level: int) -> int:
    return (0, 4, 8, 16)[level & 3]


def frame_header(level: int) -> bytes:
    """A data frame's MAC header (frame version 2006, security enabled, PAN ID compression, both
    addresses extended), then the auxiliary security header (security control: the level, key
    identifier mode 0; the frame counter). Multi-byte fields little-endian, as sent."""
    frame_control = 0x0001 | 0x0008 | 0x0040 | 0x0C00 | 0x1000 | 0xC000
    return (frame_control.to_bytes(2, "little") + bytes([SEQUENCE]) + PAN_ID.to_bytes(2, "little")
            + DEST_ADDRESS[::-1] + SOURCE_ADDRESS[::-1] + bytes([level]) + FRAME_COUNTER.to_bytes(4, "little"))


def payload_bytes() -> int:
    return FRAME_BYTES - len(frame_header(7)) - mic_bytes(7) - FCS_BYTES


def ccm_star_nonce(level: int) -> bytes:
    return SOURCE_ADDRESS + FRAME_COUNTER.to_bytes(4, "big") + bytes([level])


def ccm_star_ctr(key: bytes, nonce: bytes, data: bytes) -> bytes:
    """Level 4: data XOR AES(A_1) || AES(A_2) || ..., A_i = 0x01 || nonce || i (2 bytes)."""
    ecb = AES.new(key, AES.MODE_ECB)
    stream = b"".join(ecb.encrypt(bytes([0x01]) + nonce + i.to_bytes(2, "big"))
                      for i in range(1, (len(data) + 15) // 16 + 1))
    return bytes(a ^ b for a, b in zip(data, stream))


def ccm_star_secure(level: int, key: bytes, nonce: bytes, header: bytes, payload: bytes) -> tuple[bytes, bytes]:
    """The secured payload and the MIC of `level` (1..7)."""
    if not 1 <= level <= 7:
        raise ValueError(f"security level {level}")
    m = mic_bytes(level)
    if level == 4:
        return ccm_star_ctr(key, nonce, payload), b""
    if level < 4:
        ccm = AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=m, assoc_len=len(header) + len(payload))
        ccm.update(header + payload)
        ccm.encrypt(b"")
        return payload, ccm.digest()
    ccm = AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=m, assoc_len=len(header))
    ccm.update(header)
    out, mic = ccm.encrypt_and_digest(payload)
    return out, mic


def ccm_star_sample() -> list[CcmStarVector]:
    payload = hashlib.shake_128(b"couplet test_aead CCM* payload").digest(payload_bytes())
    vectors = []
    for level in range(1, 8):
        nonce, header = ccm_star_nonce(level), frame_header(level)
        out, mic = ccm_star_secure(level, CCM_STAR_KEY, nonce, header, payload)
        vectors.append(CcmStarVector(level, CCM_STAR_KEY, nonce, header, payload, out, mic))
    return vectors


# ---------------------------------------------------------------------------------------------
# The C files

GENERATED_BY = "testsupport/cavp_aead.py"
BANNER = [
    f"// Generated by {GENERATED_BY} from the NIST CAVP files of the PyPI package cryptography_vectors",
    "// (CCM*: pycryptodome). Do not edit: tests/test_aead_firmware.py checks it is up to date;",
    "// `python -m testsupport.cavp_aead` rewrites it.",
]


def _c_bytes(data: bytes) -> str:
    return "{" + ", ".join(f"0x{b:02x}" for b in data) + "}"


def _table(table_type: str, table: str, rows: list[tuple[str, list[int], dict[str, bytes]]]) -> list[str]:
    """Each row's byte arrays (an empty one is not written: NULL), then the table of rows, each a
    source, numbers and the arrays' addresses in order, and its length."""
    arrays, lines = [], []
    for i, (source, numbers, data) in enumerate(rows):
        arrays.append(f"// {source}")
        arrays += [f"static const uint8_t {table}_{name}_{i}[] = {_c_bytes(value)};"
                   for name, value in data.items() if value]
        pointers = [f"{table}_{name}_{i}" if value else "NULL" for name, value in data.items()]
        lines.append(f'    {{"{source}", {", ".join([*map(str, numbers), *pointers])}}},')
    return [*arrays, "", f"const {table_type} {table}[] = {{", *lines, "};", "",
            f"const size_t {table}_count = {len(rows)};", ""]


def vectors_c(sample: list[SampleVector], star: list[CcmStarVector]) -> str:
    rows = [(v.source, [KINDS.index(v.kind), int(v.decrypt), int(v.passes), len(v.key), len(v.nonce), len(v.tag),
                        len(v.aad), v.length],
             {"key": v.key, "nonce": v.nonce, "aad": v.aad, "plain": v.plaintext or b"", "cipher": v.ciphertext,
              "tag": v.tag})
            for v in sample]
    star_rows = [(v.source, [v.level, len(v.mic), len(v.header), len(v.payload)],
                  {"key": v.key, "nonce": v.nonce, "a": v.header, "in": v.payload, "out": v.out, "mic": v.mic})
                 for v in star]
    return "\n".join([*BANNER, "", '#include "aead_vectors.h"', "",
                      *_table("aead_test_vector_t", "aead_vectors", rows),
                      *_table("ccm_star_test_vector_t", "ccm_star_vectors", star_rows)])


def vectors_h(sample: list[SampleVector]) -> str:
    counts = {kind: sum(v.kind == kind for v in sample) for kind in KINDS}
    return "\n".join([
        *BANNER,
        "//",
        f"// The sample of sw/apps/test_aead ({', '.join(f'{n} {k}' for k, n in counts.items())}) and CCM* at every",
        "// security level of IEEE 802.15.4 on one frame.",
        "",
        "#ifndef TEST_AEAD_AEAD_VECTORS_H_",
        "#define TEST_AEAD_AEAD_VECTORS_H_",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "// Random messages per backend the app streams in random pieces (message r has a key of",
        "// 16 + 8 * (r / 3 % 3) bytes).",
        f"#define AEAD_STREAM_MESSAGES {STREAM_MESSAGES}u",
        "",
        "typedef enum { " + ", ".join(f"AEAD_{kind} = {i}" for i, kind in enumerate(KINDS)) + " } aead_kind_t;",
        "",
        "typedef struct {",
        "  const char *source;     // file#Count (GCM: file#Keylen/IVlen/PTlen/AADlen/Taglen#Count)",
        "  uint8_t kind;           // aead_kind_t",
        "  uint8_t decrypt;        // a decryption-verification record (DVPT, gcmDecrypt)",
        "  uint8_t pass;           // 0: the tag must be refused (COUPLET_ERR_AUTH, output zeroed)",
        "  uint8_t key_len;        // bytes",
        "  uint16_t nonce_len;     // CCM nonce, GCM IV; 0 for CMAC",
        "  uint16_t tag_len;       // CMAC: the full MAC, 16",
        "  uint16_t aad_len;",
        "  uint16_t len;           // bytes of plain and cipher (CMAC: of the message in plain)",
        "  const uint8_t *key;",
        "  const uint8_t *nonce;",
        "  const uint8_t *aad;",
        "  const uint8_t *plain;   // NULL when empty, and for a record that must fail",
        "  const uint8_t *cipher;  // NULL when empty",
        "  const uint8_t *tag;",
        "} aead_test_vector_t;",
        "",
        "typedef struct {",
        "  const char *source;",
        "  uint8_t level;          // IEEE 802.15.4 security level, 1..7",
        "  uint8_t mic_len;        // 0, 4, 8 or 16",
        "  uint16_t a_len;         // the header, authenticated",
        "  uint16_t len;           // the payload",
        "  const uint8_t *key;     // 16 bytes",
        "  const uint8_t *nonce;   // 13 bytes",
        "  const uint8_t *a;",
        "  const uint8_t *in;",
        "  const uint8_t *out;     // the secured payload: encrypted (levels 4..7) or as it was (1..3)",
        "  const uint8_t *mic;     // NULL for level 4",
        "} ccm_star_test_vector_t;",
        "",
        "extern const aead_test_vector_t aead_vectors[];",
        "extern const size_t aead_vectors_count;",
        "extern const ccm_star_test_vector_t ccm_star_vectors[];",
        "extern const size_t ccm_star_vectors_count;",
        "",
        "#endif  // TEST_AEAD_AEAD_VECTORS_H_",
        "",
    ])


# The committed files and how each is made.
GENERATED: dict[Path, Callable[[], str]] = {
    VECTORS_C: lambda: vectors_c(firmware_sample(), ccm_star_sample()),
    VECTORS_H: lambda: vectors_h(firmware_sample()),
}


def assert_up_to_date() -> None:
    for path, make in GENERATED.items():
        assert path.exists() and path.read_text() == make(), \
            f"{path}: stale, rewrite it with `python -m testsupport.cavp_aead`"


if __name__ == "__main__":
    APP_DIR.mkdir(parents=True, exist_ok=True)
    for generated, make in GENERATED.items():
        generated.write_text(make())
