"""NIST CAVP response files from the PyPI package ``cryptography_vectors``: AES and SHA-3.

Every response file is a sequence of bracketed section headers (``[ENCRYPT]``, ``[L = 256]``)
and records of ``NAME = VALUE`` lines; ``records()`` reads that structure once for both
families.

AES: the AESAVS files (KAT: GFSbox, KeySbox, VarKey, VarTxt; MMT) of ECB, CBC, CFB-128 and OFB
are ``[ENCRYPT]``/``[DECRYPT]`` sections of ``COUNT/KEY/IV/PLAINTEXT/CIPHERTEXT`` records; the
CTR files are RFC 3686's vectors in the same record format. This module reads them and writes
the sample the in-SoC firmware test runs (``sw/apps/test_aes/cavp_vectors.c``, committed and
checked by tests/test_aes_firmware.py to match a fresh generation; `python -m testsupport.cavp`
rewrites it and its SHA-3 counterpart).

AES-CCM (CCMVS: DVPT, VADT, VNT, VPT, VTT), AES-GCM (GCMVS: gcmEncryptExtIV, gcmDecrypt) and the
SP 800-38B CMAC examples: ``parse_ccm``, ``parse_gcm`` and ``parse_cmac`` (tests/test_aead_host.py).
CCMVS files give some fields once for the records after them (the key, and in some the nonce
and the lengths, before a section or outside any), and list several lengths in one header
(``[Alen = 0, Plen = 0, Nlen = 7, Tlen = 4]``); GCMVS decryption records that must fail say
``FAIL`` in place of their plaintext.

SHA-3 (SHA3VS): ShortMsg and LongMsg files of ``Len/Msg/MD`` (SHA3-*) or ``Len/Msg/Output``
(SHAKE, output length in the ``[Outputlen = N]`` section) records, SHAKE VariableOut files of
``COUNT/Outputlen/Msg/Output`` records, and Monte Carlo files: a ``Seed`` (SHA3-*) or ``Msg``
(SHAKE) followed by the 100 checkpoints ``COUNT/MD`` or ``COUNT/Outputlen/Output``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from couplet import paths
from couplet.model.regs import load_ip_regs

MODES = ("ECB", "CBC", "CTR", "CFB", "OFB")  # the mode value set of hw/ip/aes/data/aes.toml
KEY_BITS = (128, 192, 256)
# Files per mode: the CFB-128 ones carry a "128" after the mode name.
_PREFIX = {"ECB": "ECB", "CBC": "CBC", "CFB": "CFB128", "OFB": "OFB"}
KAT_KINDS = ("GFSbox", "KeySbox", "VarKey", "VarTxt")


@dataclass(frozen=True)
class AesVector:
    source: str  # file name and COUNT, for messages
    mode: str
    decrypt: bool
    key: bytes
    iv: bytes  # empty for ECB
    plaintext: bytes
    ciphertext: bytes

    @property
    def data_in(self) -> bytes:
        return self.ciphertext if self.decrypt else self.plaintext

    @property
    def data_out(self) -> bytes:
        return self.plaintext if self.decrypt else self.ciphertext


def _package_dir() -> Path:
    import cryptography_vectors  # pinned in requirements.txt

    return Path(cryptography_vectors.__file__).parent


def vectors_dir() -> Path:
    return _package_dir() / "ciphers" / "AES"


def cavp_file(mode: str, kind: str, key_bits: int) -> Path:
    if mode == "CTR":
        return vectors_dir() / "CTR" / f"aes-{key_bits}-ctr.txt"
    return vectors_dir() / mode / f"{_PREFIX[mode]}{kind}{key_bits}.rsp"


@dataclass(frozen=True)
class Record:
    """One record of a response file and the section headers in effect for it."""

    sections: Mapping[str, str]  # "[L = 256]" gives {"L": "256"}; a bare "[ENCRYPT]" {"": "ENCRYPT"};
    # "[Alen = 0, Plen = 24]" {"Alen": "0", "Plen": "24"}
    fields: Mapping[str, str]  # NAME = VALUE lines, in the file's spelling


def records(path: Path, starts: tuple[str, ...] = ("COUNT",)) -> list[Record]:
    """Every record of a response file, in file order. A record runs from a field named in
    `starts` (or from the file's or a section's first field) to the next such field or section
    header; comments (#) and lines without "=" are skipped. Records that have no field at all
    are left out."""
    found: list[Record] = []
    sections: dict[str, str] = {}
    fields: dict[str, str] = {}

    def flush() -> None:
        if fields:
            found.append(Record(dict(sections), dict(fields)))
        fields.clear()

    for raw in path.read_text().splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            flush()
            inner = line[1:-1]
            parts = inner.split(",") if all("=" in part for part in inner.split(",")) else [inner]
            for part in parts:
                name, _, value = part.partition("=")
                if value:
                    sections[name.strip()] = value.strip()
                else:
                    sections[""] = name.strip()
        elif "=" in line and not line.startswith("#"):
            key, value = (part.strip() for part in line.split("=", 1))
            if key in starts:
                flush()
            fields[key] = value
    flush()
    return found


def parse(path: Path, mode: str) -> list[AesVector]:
    """Every record of a response file, in file order."""
    vectors: list[AesVector] = []
    for record in records(path):
        fields = record.fields
        if "KEY" not in fields:
            continue
        decrypt = record.sections.get("") == "DECRYPT"
        vectors.append(
            AesVector(
                source=f"{path.name}#{'dec' if decrypt else 'enc'}{fields.get('COUNT', '?')}",
                mode=mode,
                decrypt=decrypt,
                key=bytes.fromhex(fields["KEY"]),
                iv=bytes.fromhex(fields.get("IV", "")),
                plaintext=bytes.fromhex(fields["PLAINTEXT"]),
                ciphertext=bytes.fromhex(fields["CIPHERTEXT"]),
            )
        )
    return vectors


def firmware_sample() -> list[AesVector]:
    """What the in-SoC test runs on every backend: per mode and key size, the first three MMT
    records of each direction (1, 2 and 3 blocks), the first GFSbox record of each direction,
    and all RFC 3686 CTR records (which include a partial final block)."""
    sample: list[AesVector] = []
    for mode in MODES:
        for bits in KEY_BITS:
            if mode == "CTR":
                sample += parse(cavp_file(mode, "", bits), mode)
                continue
            mmt = parse(cavp_file(mode, "MMT", bits), mode)
            gfsbox = parse(cavp_file(mode, "GFSbox", bits), mode)
            for decrypt in (False, True):
                sample += [v for v in mmt if v.decrypt == decrypt][:3]
                sample += [v for v in gfsbox if v.decrypt == decrypt][:1]
    return sample


def _c_bytes(data: bytes) -> str:
    return "{" + ", ".join(f"0x{b:02x}" for b in data) + "}"


# One vector of a cavp_vectors.c: its source, the leading numbers of its table row, and its byte
# arrays by name, which the row points to in order (an empty one is not written: NULL).
CVector = tuple[str, list[int], dict[str, bytes]]


def _vectors_c(generator: str, test: str, table_type: str, vectors: list[CVector]) -> str:
    """A cavp_vectors.c: its banner, each vector's byte arrays, and the table of rows."""
    arrays, rows = [], []
    for i, (source, numbers, data) in enumerate(vectors):
        arrays.append(f"// {source}")
        arrays += [f"static const uint8_t {name}_{i}[] = {_c_bytes(value)};" for name, value in data.items() if value]
        pointers = [f"{name}_{i}" if value else "NULL" for name, value in data.items()]
        rows.append(f'    {{"{source}", {", ".join([*map(str, numbers), *pointers])}}},')
    return "\n".join([
        f"// Generated by testsupport/cavp.py ({generator}) from the NIST CAVP files of the PyPI package",
        f"// cryptography_vectors. Do not edit: {test} checks it is up to date; `python -m testsupport.cavp` rewrites it.",
        "",
        '#include "cavp_vectors.h"',
        "",
        *arrays,
        "",
        f"const {table_type} cavp_vectors[] = {{",
        *rows,
        "};",
        "",
        f"const size_t cavp_vector_count = {len(rows)};",
        "",
    ])


def firmware_source(vectors: list[AesVector]) -> str:
    mode_set = load_ip_regs("aes").enum("mode")
    return _vectors_c("firmware_source", "tests/test_aes_firmware.py", "aes_test_vector_t", [
        (v.source, [mode_set.value(v.mode.lower()), int(v.decrypt), len(v.key), len(v.data_in)],
         {"key": v.key, "iv": v.iv, "in": v.data_in, "out": v.data_out})
        for v in vectors
    ])


FIRMWARE_VECTORS = paths.SW_DIR / "apps" / "test_aes" / "cavp_vectors.c"


# ---------------------------------------------------------------------------------------------
# Authenticated encryption (CCMVS, GCMVS) and CMAC


@dataclass(frozen=True)
class AeadVector:
    """One CCM or GCM record. `plaintext` is None for a decryption record that must fail (its
    ciphertext or tag was changed)."""

    source: str  # file name and Count
    key: bytes
    nonce: bytes  # the CCM nonce or the GCM IV
    aad: bytes
    plaintext: bytes | None
    ciphertext: bytes
    tag: bytes
    decrypt: bool  # a decryption-verification record (DVPT, gcmDecrypt)


@dataclass(frozen=True)
class CmacVector:
    source: str
    key: bytes
    message: bytes
    tag: bytes


def aead_dir(mode: str) -> Path:
    """The CCM or GCM folder of the package."""
    return vectors_dir() / mode


def cmac_files() -> list[Path]:
    return sorted((_package_dir() / "CMAC").glob("nist-800-38b-aes*.txt"))


def _first_bytes(text: str, length: int, what: str) -> bytes:
    """The first `length` bytes of a hex field (CCMVS writes "00" for an empty one)."""
    data = bytes.fromhex(text)
    if len(data) < length:
        raise ValueError(f"{what}: {len(data)} bytes, {length} announced")
    return data[:length]


def parse_ccm(path: Path) -> list[AeadVector]:
    """Every record of a CCMVS response file (DVPT: decryption with Result = Pass or Fail; the
    others: generation-encryption), in file order. Fields given before a record (the key, and in
    VADT/VPT/VTT the nonce and the lengths) carry on to the records after them."""
    vectors: list[AeadVector] = []
    carried: dict[str, str] = {}
    decrypt = path.name.startswith("DVPT")
    for record in records(path, starts=("Count",)):
        if "Count" not in record.fields:
            carried.update(record.fields)
            continue
        values = {**carried, **record.sections, **record.fields}
        source = f"{path.name}#{values['Count']}"
        a_len, p_len, n_len, t_len = (int(values[name]) for name in ("Alen", "Plen", "Nlen", "Tlen"))
        ct = bytes.fromhex(values["CT"])
        if len(ct) != p_len + t_len:
            raise ValueError(f"{source}: CT of {len(ct)} bytes, Plen + Tlen = {p_len + t_len}")
        nonce = bytes.fromhex(values["Nonce"])
        if len(nonce) != n_len:
            raise ValueError(f"{source}: nonce of {len(nonce)} bytes, Nlen = {n_len}")
        passes = values.get("Result", "Pass").startswith("Pass")
        plaintext = _first_bytes(values["Payload"], p_len, source) if passes else None
        vectors.append(AeadVector(source, bytes.fromhex(values["Key"]), nonce,
                                  _first_bytes(values["Adata"], a_len, source), plaintext, ct[:p_len], ct[p_len:],
                                  decrypt))
    return vectors


def parse_gcm(path: Path) -> list[AeadVector]:
    """Every record of a GCMVS response file (gcmEncryptExtIV*: encryption; gcmDecrypt*:
    decryption, FAIL records without a plaintext), in file order."""
    vectors: list[AeadVector] = []
    decrypt = "Decrypt" in path.name
    for record in records(path, starts=("Count",)):
        fields = record.fields
        if "Key" not in fields:
            continue
        source = f"{path.name}#{record.sections['Keylen']}/{record.sections['IVlen']}/" \
                 f"{record.sections['PTlen']}/{record.sections['AADlen']}/{record.sections['Taglen']}#{fields['Count']}"
        vector = AeadVector(source, bytes.fromhex(fields["Key"]), bytes.fromhex(fields["IV"]),
                            bytes.fromhex(fields["AAD"]), bytes.fromhex(fields["PT"]) if "PT" in fields else None,
                            bytes.fromhex(fields["CT"]), bytes.fromhex(fields["Tag"]), decrypt)
        for name, value in (("Keylen", vector.key), ("IVlen", vector.nonce), ("AADlen", vector.aad),
                            ("PTlen", vector.ciphertext), ("Taglen", vector.tag)):
            if 8 * len(value) != int(record.sections[name]):
                raise ValueError(f"{source}: {name} does not match the data")
        if not decrypt and vector.plaintext is None:
            raise ValueError(f"{source}: an encryption record without a plaintext")
        vectors.append(vector)
    return vectors


def parse_cmac(path: Path) -> list[CmacVector]:
    """The SP 800-38B examples (COUNT, KEY, MESSAGE, OUTPUT: the full 16-byte MAC)."""
    return [CmacVector(f"{path.name}#{r.fields['COUNT']}", bytes.fromhex(r.fields["KEY"]),
                       bytes.fromhex(r.fields["MESSAGE"]), bytes.fromhex(r.fields["OUTPUT"]))
            for r in records(path, starts=("COUNT",)) if "KEY" in r.fields]


# ---------------------------------------------------------------------------------------------
# SHA-3 and SHAKE (SHA3VS)

HASH_ALGS = ("SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHAKE128", "SHAKE256")  # index = couplet_sha3_alg_t
HASH_KINDS = ("ShortMsg", "LongMsg", "VariableOut", "Monte")  # VariableOut: SHAKE only


@dataclass(frozen=True)
class HashVector:
    source: str  # file name and Len or COUNT, for messages
    alg: str
    message: bytes
    output: bytes  # the digest, or the first len(output) bytes of the SHAKE output


@dataclass(frozen=True)
class HashMonteCarlo:
    """A Monte Carlo file: the seed message and the output at each of the 100 checkpoints."""

    source: str
    alg: str
    seed: bytes
    outputs: tuple[bytes, ...]
    min_out_bits: int  # SHAKE: the range the output length is drawn from; SHA3-*: the digest size
    max_out_bits: int


def is_shake(alg: str) -> bool:
    return alg.startswith("SHAKE")


def hash_file(alg: str, kind: str) -> Path:
    """The response file of `alg` ("SHA3-256", "SHAKE128", ...) and `kind` (HASH_KINDS)."""
    hashes = _package_dir() / "hashes"
    if is_shake(alg):
        return hashes / "SHAKE" / f"{alg}{kind}.rsp"
    return hashes / "SHA3" / f"{alg.replace('-', '_')}{kind}.rsp"


def _bits_to_bytes(bits: str, what: str) -> int:
    value = int(bits)
    if value % 8 != 0:
        raise ValueError(f"{what}: {value} bits is not whole bytes")
    return value // 8


def parse_hash(path: Path, alg: str) -> list[HashVector]:
    """The records of a ShortMsg, LongMsg or VariableOut file, in file order. The message is the
    first Len bits of Msg (a zero-length message is written "Msg = 00"); VariableOut messages are
    all of Msg."""
    vectors: list[HashVector] = []
    for record in records(path, starts=("COUNT", "Len")):
        fields = record.fields
        if "Msg" not in fields:
            continue
        message = bytes.fromhex(fields["Msg"])
        if "Len" in fields:
            message = message[: _bits_to_bytes(fields["Len"], f"{path.name} Len")]
        output = bytes.fromhex(fields["Output" if is_shake(alg) else "MD"])
        out_bits = fields.get("Outputlen") or record.sections.get("Outputlen") or record.sections["L"]
        if len(output) != _bits_to_bytes(out_bits, f"{path.name} output length"):
            raise ValueError(f"{path.name}: output of {len(output)} bytes, {out_bits} bits announced")
        tag = f"Len{fields['Len']}" if "Len" in fields else f"COUNT{fields.get('COUNT', '?')}"
        vectors.append(HashVector(f"{path.name}#{tag}", alg, message, output))
    return vectors


def parse_hash_monte(path: Path, alg: str) -> HashMonteCarlo:
    """A Monte Carlo file: the seed record first, then COUNT 0..99 in order."""
    found = records(path, starts=("COUNT",))
    seed_fields = found[0].fields
    seed = bytes.fromhex(seed_fields["Msg" if is_shake(alg) else "Seed"])
    checkpoints = found[1:]
    if [r.fields.get("COUNT") for r in checkpoints] != [str(i) for i in range(len(checkpoints))]:
        raise ValueError(f"{path.name}: checkpoints out of order")
    outputs = []
    for record in checkpoints:
        output = bytes.fromhex(record.fields["Output" if is_shake(alg) else "MD"])
        if is_shake(alg) and len(output) != _bits_to_bytes(record.fields["Outputlen"], path.name):
            raise ValueError(f"{path.name}: COUNT {record.fields['COUNT']} has the wrong output length")
        outputs.append(output)
    sections = found[0].sections
    if is_shake(alg):
        low, high = (int(sections[f"{end} Output Length (bits)"]) for end in ("Minimum", "Maximum"))
    else:
        low = high = int(sections["L"])
    return HashMonteCarlo(path.name, alg, seed, tuple(outputs), low, high)


# ---------------------------------------------------------------------------------------------
# The SHA-3 sample the in-SoC firmware test runs (sw/apps/test_sha3/cavp_vectors.c)

HASH_RATE = {"SHA3-224": 144, "SHA3-256": 136, "SHA3-384": 104, "SHA3-512": 72, "SHAKE128": 168, "SHAKE256": 136}


def _first_with_length(vectors: list[HashVector], length: int) -> HashVector:
    return next(v for v in vectors if len(v.message) == length)


def sha3_firmware_sample() -> list[HashVector]:
    """What the in-SoC test runs on every SHA-3 backend, per algorithm: ShortMsg records of 0, 3,
    rate - 1 and rate bytes (and rate + 1 where the file has it: SHAKE128's goes to two blocks);
    the first LongMsg record (two whole blocks and a partial one, three for SHA3-512); for
    SHAKE, VariableOut records with the shortest and the longest output and the one closest to
    the rate (a squeeze across a block boundary where the file reaches past the rate)."""
    sample: list[HashVector] = []
    for alg in HASH_ALGS:
        rate = HASH_RATE[alg]
        short = parse_hash(hash_file(alg, "ShortMsg"), alg)
        lengths = [0, 3, rate - 1, rate] + ([rate + 1] if any(len(v.message) == rate + 1 for v in short) else [])
        sample += [_first_with_length(short, n) for n in lengths]
        long = parse_hash(hash_file(alg, "LongMsg"), alg)
        sample.append(long[0])
        if is_shake(alg):
            variable = parse_hash(hash_file(alg, "VariableOut"), alg)
            by_out = sorted(variable, key=lambda v: len(v.output))
            near_rate = min(variable, key=lambda v: (abs(len(v.output) - rate), len(v.output)))
            for v in (by_out[0], by_out[-1], near_rate):
                if v not in sample:
                    sample.append(v)
    return sample


def sha3_firmware_source(vectors: list[HashVector]) -> str:
    return _vectors_c("sha3_firmware_source", "tests/test_sha3_firmware.py", "sha3_test_vector_t", [
        (v.source, [HASH_ALGS.index(v.alg), len(v.message), len(v.output)], {"msg": v.message, "out": v.output})
        for v in vectors
    ])


SHA3_FIRMWARE_VECTORS = paths.SW_DIR / "apps" / "test_sha3" / "cavp_vectors.c"


# The committed firmware sources and how each is made from the package's files.
GENERATED: dict[Path, Callable[[], str]] = {
    FIRMWARE_VECTORS: lambda: firmware_source(firmware_sample()),
    SHA3_FIRMWARE_VECTORS: lambda: sha3_firmware_source(sha3_firmware_sample()),
}


def assert_up_to_date(path: Path) -> None:
    assert path.read_text() == GENERATED[path](), f"{path}: stale, rewrite it with `python -m testsupport.cavp`"


if __name__ == "__main__":
    for generated, make in GENERATED.items():
        generated.write_text(make())
