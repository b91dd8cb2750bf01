"""Host tests of the SHA-3 front end and the software backend (sw/lib/sha3/sha3.c, sha3_soft.c).

The two files and sw/lib/status.c are compiled natively with the SDK's warning flags into the
driver tests/sha3_host/sha3_driver.c, which reads commands on stdin and answers one line each, so
one process runs all the vectors of a test. Expected values come from Python's hashlib (an
independent implementation of FIPS 202) and from the NIST CAVP SHA3VS response files of the
`cryptography_vectors` package (ShortMsg, LongMsg, VariableOut and the Monte Carlo files, whose
procedure runs in the driver through the public API); error codes from the contract in
sw/include/couplet/sha3.h.

A second build stands in for every hardware backend (FAKE_BACKENDS in the driver: each keeps
the state "in the accelerator" between its first operation of a call and release, and marks
itself as using the accelerator), to check the backend table, the default backend, the
load/release protocol of sha3_backend.h and the accelerator lock, which the software backend
alone never exercises, and the held level of sw/include/couplet/sha3_held.h through each of
them (vectors, argument errors in order, and the lock while held). Further tests compile the files, and the hardware backends, for the SoC
(rv32imac, the SDK's flags) to catch target-specific warnings and check the absence of library
calls and data tables, and the opcodes and register indexes the hardware backends use.

Run: .venv/bin/python -m pytest tests/test_sha3_host.py -q   (COUPLET_TEST_SEED=<n> reruns a seed)
"""

from __future__ import annotations

import hashlib
import random
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from couplet import paths
from testsupport import cavp
from host_c import (DriverBatch, Expectation, cross_compile, driver_fixtures, hex_or_null, status_codes,
                    undefined_symbols)

SHA3_DIR = paths.SW_DIR / "lib" / "sha3"
SHA3_SOURCES = (SHA3_DIR / "sha3.c", SHA3_DIR / "sha3_soft.c")
DRIVER_SOURCE = Path(__file__).resolve().parent / "sha3_host" / "sha3_driver.c"

SHA3_224, SHA3_256, SHA3_384, SHA3_512, SHAKE128, SHAKE256 = range(6)  # couplet_sha3_alg_t
SHA3_ALGS = (SHA3_224, SHA3_256, SHA3_384, SHA3_512)
SHAKE_ALGS = (SHAKE128, SHAKE256)
ALGS = SHA3_ALGS + SHAKE_ALGS
HASHLIB_NAMES = ("sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256")
RATE = (144, 136, 104, 72, 168, 136)
DIGEST = (28, 32, 48, 64, 0, 0)
BACKENDS = ("soft", "ise", "tight", "mem", "mmio", "dma")  # couplet_sha3_backend_id_t
SOFT = 0
UNTOUCHED = 0xEE  # the driver fills output buffers with this before each call

# Stand-ins for the generated couplet/soc_config.h.
SOC_CONFIG_NO_SHA3 = "// stand-in: a SoC without the Keccak accelerator\n"
SOC_CONFIG_ALL_SHA3 = "".join(
    f"#define COUPLET_SHA3_HAS_{name.upper()} 1\n" for name in BACKENDS[1:]
) + "#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_MMIO\n"
DEFAULT_IN_ALL_SHA3 = BACKENDS.index("mmio")


STATUS = status_codes()
OK = STATUS["OK"]


def reference(alg: int, message: bytes, out_len: int | None = None) -> bytes:
    """hashlib's digest (SHA3-*) or first out_len output bytes (SHAKE)."""
    h = hashlib.new(HASHLIB_NAMES[alg], message)
    if alg in SHAKE_ALGS:
        assert out_len is not None
        return h.digest(out_len)  # type: ignore[call-arg]
    return h.digest()


# ---------------------------------------------------------------------------------------------
# Building and driving


def result(status: int, out: bytes | None) -> str:
    """An answer line "STATUS OUT"."""
    return f"{status} {hex_or_null(out)}"


def ok(out: bytes) -> str:
    return result(OK, out)


def untouched(n: int) -> bytes:
    return bytes([UNTOUCHED]) * n


def refused(status: int, n: int) -> str:
    """An output call that failed and wrote nothing to its n-byte buffer."""
    return result(status, untouched(n))


class Batch(DriverBatch):
    """Commands for one driver run, with the check that a call leaves its context unchanged."""

    def unchanged(self, ctx: int, *calls: tuple[str, Expectation]) -> None:
        """Runs `calls` on ctx, each between two snapshots of it that must be equal."""
        for command, expect in calls:
            snaps: list[str] = []
            self.add(f"snap {ctx}", snaps.append)
            self.add(command, expect)
            self.add(f"snap {ctx}", _same_as(snaps, command))


def _same_as(snaps: list[str], command: str) -> Callable[[str], None]:
    def check(after: str) -> None:
        assert snaps[0] == after, f"the context changed across {command[:80]!r}"

    return check


driver, fake_driver = driver_fixtures("sha3", DRIVER_SOURCE, SHA3_DIR, SHA3_SOURCES, SOC_CONFIG_NO_SHA3, SOC_CONFIG_ALL_SHA3)


def pieces(rng: random.Random, n: int, rate: int) -> list[int]:
    """Random lengths that add up to n: small ones, empty ones, ones around the rate."""
    sizes: list[int] = []
    while n > 0:
        size = min(n, rng.choice((0, 1, rng.randint(1, 7), rng.randint(1, rate), rate - 1, rate, rate + 1,
                                  rng.randint(rate, 3 * rate))))
        sizes.append(size)
        n -= size
    return sizes


def interleaved_messages(b: Batch, rng: random.Random, algs: tuple[int, ...], backends: tuple[int, ...],
                         calls: int, most_blocks: int, out_len: int) -> None:
    """Contexts 0, 1, ... (algs[i] on backends[i]) each hash their own message, updated in `calls`
    random turns of up to `most_blocks` blocks; a SHAKE context squeezes out_len bytes."""
    streams = []
    for ctx, (alg, backend) in enumerate(zip(algs, backends)):
        b.add(f"init {ctx} {alg} {backend}", OK)
        streams.append((ctx, alg, bytearray()))
    for _ in range(calls):
        ctx, alg, so_far = rng.choice(streams)
        data = rng.randbytes(rng.randint(0, most_blocks * RATE[alg]))
        b.add(f"update {ctx} {hex_or_null(data)}", OK)
        so_far += data
    for ctx, alg, so_far in streams:
        if alg in SHA3_ALGS:
            b.add(f"final {ctx} {DIGEST[alg]}", ok(reference(alg, bytes(so_far))))
        else:
            b.add(f"sfinal {ctx}", OK)
            b.add(f"squeeze {ctx} {out_len}", ok(reference(alg, bytes(so_far), out_len)))


def hash_in_pieces(b: Batch, rng: random.Random, ctx: int, alg: int, message: bytes, out_len: int,
                   backend: str = "d") -> None:
    """init, update in random pieces (random alignments), then final or SHAKE squeezes in random
    pieces: the output must be hashlib's."""
    b.add(f"init {ctx} {alg} {backend}", OK)
    done = 0
    for size in pieces(rng, len(message), RATE[alg]):
        b.add(f"update {ctx} {hex_or_null(message[done:done + size])} off={rng.randint(0, 7)}", OK)
        done += size
    if alg in SHA3_ALGS:
        buffer = DIGEST[alg] + rng.choice((0, 0, 1, 9))
        digest = reference(alg, message)
        b.add(f"final {ctx} {buffer} off={rng.randint(0, 7)}", ok(digest + untouched(buffer - len(digest))))
        return
    expected = reference(alg, message, out_len)
    b.add(f"sfinal {ctx}", OK)
    done = 0
    for size in pieces(rng, out_len, RATE[alg]) + [0]:
        b.add(f"squeeze {ctx} {size} off={rng.randint(0, 7)}", ok(expected[done:done + size]))
        done += size


# ---------------------------------------------------------------------------------------------
# Random messages against hashlib


def boundary_lengths(alg: int) -> list[int]:
    """0..600 (every length through the first rate boundaries) and k * rate - 1, +0, +1 beyond."""
    rate = RATE[alg]
    return list(range(601)) + [k * rate + d for k in range(600 // rate + 1, 9) for d in (-1, 0, 1)]


def test_every_length_one_shot_against_hashlib(driver: Path, rng: random.Random) -> None:
    """couplet_sha3/couplet_shake on random messages of every length 0..600 and around later rate
    multiples, from random alignments; SHAKE with output lengths around the rate multiples."""
    b = Batch()
    for alg in ALGS:
        rate = RATE[alg]
        for length in boundary_lengths(alg):
            message = rng.randbytes(length)
            off = rng.randint(0, 7)
            if alg in SHA3_ALGS:
                b.add(f"sha3 {alg} {hex_or_null(message)} {DIGEST[alg]} off={off}", ok(reference(alg, message)))
            else:
                out_len = rng.choice((length, rng.randint(0, 3 * rate), rate * rng.randint(1, 3) + rng.randint(-1, 1)))
                b.add(f"shake {alg} {hex_or_null(message)} {out_len} off={off}", ok(reference(alg, message, out_len)))
    b.run(driver)


def test_incremental_updates_and_squeezes_in_random_pieces(driver: Path, rng: random.Random) -> None:
    """update in random pieces (empty ones too), SHAKE squeezed in random pieces: the same output
    as one call (hashlib's); several contexts interleaved."""
    b = Batch()
    for alg in ALGS:
        for length in boundary_lengths(alg)[:: 3] + [rng.randint(1000, 3000) for _ in range(5)]:
            out_len = rng.randint(0, 4 * RATE[alg]) if alg in SHAKE_ALGS else 0
            hash_in_pieces(b, rng, rng.randint(0, 5), alg, rng.randbytes(length), out_len)
    # Long squeezes, in pieces and in one call.
    for alg in SHAKE_ALGS:
        message = rng.randbytes(rng.randint(0, 300))
        hash_in_pieces(b, rng, 0, alg, message, 5000)
        b.add(f"shake {alg} {hex_or_null(message)} 5000", ok(reference(alg, message, 5000)))
    b.run(driver)

    # Interleaved: every context continues its own message.
    b = Batch()
    interleaved_messages(b, rng, ALGS, (SOFT,) * len(ALGS), calls=300, most_blocks=2, out_len=400)
    b.run(driver)


def test_backend_extract_any_length_and_alignment(driver: Path) -> None:
    """The backend contract allows any extract length 1..rate (the front end only asks for whole
    words): right after shake_final the state's first `rate` bytes are the first output block."""
    b = Batch()
    for ctx, alg in enumerate(SHAKE_ALGS):
        block = reference(alg, b"couplet", RATE[alg])
        b.add(f"init {ctx} {alg} 0", OK)
        b.add(f"update {ctx} {b'couplet'.hex()}", OK)
        b.add(f"sfinal {ctx}", OK)
        for length in range(1, RATE[alg] + 1):
            b.add(f"extract {ctx} {length} off={length % 4}", ok(block[:length]))
    b.run(driver)


# ---------------------------------------------------------------------------------------------
# NIST CAVP (SHA3VS) response files


def test_cavp_vectors(driver: Path, rng: random.Random) -> None:
    """Every record of the ShortMsg, LongMsg and VariableOut files, one-shot; the LongMsg
    records also in random pieces."""
    b = Batch()
    count = 0
    for alg in ALGS:
        name = cavp.HASH_ALGS[alg]
        kinds = ("ShortMsg", "LongMsg") + (("VariableOut",) if alg in SHAKE_ALGS else ())
        for kind in kinds:
            vectors = cavp.parse_hash(cavp.hash_file(name, kind), name)
            assert len(vectors) >= 70, (name, kind)
            for v in vectors:
                call = "shake" if alg in SHAKE_ALGS else "sha3"
                b.add(f"{call} {alg} {hex_or_null(v.message)} {len(v.output)}", ok(v.output))
                if kind == "LongMsg":
                    hash_in_pieces(b, rng, 1, alg, v.message, len(v.output))
                count += 1
    assert count == 4042  # what cryptography_vectors ships: a parser that drops records fails here
    b.run(driver)


def test_cavp_monte_carlo(driver: Path) -> None:
    """The SHA3VS Monte Carlo tests (100 x 1000 chained hashes each) through the public API."""
    b = Batch()
    for alg in ALGS:
        name = cavp.HASH_ALGS[alg]
        mct = cavp.parse_hash_monte(cavp.hash_file(name, "Monte"), name)
        assert len(mct.outputs) == 100
        expected = " ".join(out.hex() for out in mct.outputs)
        if alg in SHA3_ALGS:
            b.add(f"mct {alg} {mct.seed.hex()}", expected)
        else:
            b.add(f"xmct {alg} {mct.seed.hex()} {mct.min_out_bits} {mct.max_out_bits}", expected)
    b.run(driver)


# ---------------------------------------------------------------------------------------------
# Errors: one per case of the contract in sha3.h, each changing nothing


def test_errors_change_nothing(driver: Path, rng: random.Random) -> None:
    s = STATUS
    b = Batch()
    block = rng.randbytes(200)
    # Backends and sizes.
    for index, name in enumerate(BACKENDS):
        b.add(f"name {index}", name)
        b.add(f"avail {index}", int(index == SOFT))
    for bad in (len(BACKENDS), 99, -1):
        b.add(f"name {bad}", "unknown")
        b.add(f"avail {bad}", 0)
    for alg in ALGS:
        b.add(f"size {alg}", DIGEST[alg])
    for bad in (6, 7, -1, 1000):
        b.add(f"size {bad}", 0)

    # init: NULL, bad algorithm, bad or missing backend. A failed init leaves the context
    # uninitialised, refused by every call.
    b.add(f"init - {SHA3_256} 0", s["ERR_NULL"])
    b.add("init - 99 99", s["ERR_NULL"])
    for alg, backend, status in ((6, "0", "ERR_ARG"), (-1, "0", "ERR_ARG"), (100, "d", "ERR_ARG"),
                                 (SHA3_256, "6", "ERR_ARG"), (SHA3_256, "-1", "ERR_ARG"),
                                 (SHA3_256, "1", "ERR_UNSUPPORTED"), (SHAKE128, "5", "ERR_UNSUPPORTED")):
        b.add(f"init 0 {SHA3_256} 0", OK)
        b.add(f"update 0 {block[:10].hex()}", OK)
        b.add(f"init 0 {alg} {backend}", s[status])
        b.add("which 0", -1)
        b.unchanged(0, (f"update 0 {block.hex()}", s["ERR_STATE"]), ("update 0 =", s["ERR_STATE"]),
                    ("final 0 64", refused(s["ERR_STATE"], 64)), ("sfinal 0", s["ERR_STATE"]),
                    ("squeeze 0 5", refused(s["ERR_STATE"], 5)))
    # Zeroed, garbage and corrupted contexts are refused.
    for byte in (0, 0xA5, 0xFF):
        b.add(f"fill 1 {byte}", 0)
        b.unchanged(1, (f"update 1 {block.hex()}", s["ERR_STATE"]), ("final 1 64", refused(s["ERR_STATE"], 64)),
                    ("sfinal 1", s["ERR_STATE"]), ("squeeze 1 5", refused(s["ERR_STATE"], 5)))
    for alg, field_name, value in ((SHA3_256, "buf_len", 136), (SHA3_256, "buf_len", 1 << 20),
                                   (SHA3_256, "rate", 168), (SHA3_256, "rate", 0), (SHA3_256, "alg", SHAKE128),
                                   (SHA3_256, "alg", 6), (SHA3_256, "phase", 0), (SHA3_256, "phase", 7),
                                   (SHAKE128, "squeezed", 169)):
        b.add(f"init 1 {alg} 0", OK)
        b.add(f"poke 1 {field_name} {value}", 0)
        b.unchanged(1, (f"update 1 {block.hex()}", s["ERR_STATE"]), ("update 1 01", s["ERR_STATE"]),
                    ("final 1 64", refused(s["ERR_STATE"], 64)), ("sfinal 1", s["ERR_STATE"]),
                    ("squeeze 1 500", refused(s["ERR_STATE"], 500)))

    # update: NULL context, NULL data with a length; NULL data with length 0 is fine.
    message = rng.randbytes(50)
    b.add(f"init 2 {SHA3_384} 0", OK)
    b.add(f"update 2 {message.hex()}", OK)
    b.add("update - 00", s["ERR_NULL"])
    b.add("update - =", s["ERR_NULL"])
    b.unchanged(2, ("update 2 - len=1", s["ERR_NULL"]), ("update 2 - len=500", s["ERR_NULL"]),
                ("update 2 - len=0", OK), ("update 2 =", OK))
    # sha3_final: NULL, too small a buffer, the SHAKE calls on a SHA3-* context.
    b.add(f"final - 64", refused(s["ERR_NULL"], 64))
    b.unchanged(2, ("final 2 48 null", result(s["ERR_NULL"], None)), ("final 2 47", refused(s["ERR_LEN"], 47)),
                ("final 2 0", refused(s["ERR_LEN"], 0)), ("final 2 0 null", result(s["ERR_NULL"], None)),
                ("sfinal 2", s["ERR_STATE"]), ("squeeze 2 10", refused(s["ERR_STATE"], 10)),
                ("squeeze 2 0", refused(s["ERR_STATE"], 0)))
    # Still absorbing after all that: the message continues.
    b.add(f"update 2 {message.hex()}", OK)
    b.add("final 2 50", ok(reference(SHA3_384, message + message) + untouched(2)))
    # Finished: every call is refused and the context is wiped.
    b.add("snap 2", _state_and_buffer_wiped)
    b.unchanged(2, ("update 2 00", s["ERR_STATE"]), ("update 2 =", s["ERR_STATE"]),
                ("final 2 64", refused(s["ERR_STATE"], 64)), ("sfinal 2", s["ERR_STATE"]),
                ("squeeze 2 3", refused(s["ERR_STATE"], 3)))
    # Every SHA3-* digest size: one byte short is refused, any larger buffer gets the digest only.
    for alg in SHA3_ALGS:
        b.add(f"init 3 {alg} 0", OK)
        b.unchanged(3, (f"final 3 {DIGEST[alg] - 1}", refused(s["ERR_LEN"], DIGEST[alg] - 1)))
        b.add(f"final 3 {DIGEST[alg] + 3}", ok(reference(alg, b"") + untouched(3)))

    # SHAKE: squeeze before shake_final, sha3_final on SHAKE, update and shake_final after it.
    b.add(f"init 4 {SHAKE256} 0", OK)
    b.add(f"update 4 {message.hex()}", OK)
    b.unchanged(4, ("squeeze 4 10", refused(s["ERR_STATE"], 10)), ("squeeze 4 0", refused(s["ERR_STATE"], 0)),
                ("final 4 64", refused(s["ERR_STATE"], 64)), ("sfinal -", s["ERR_NULL"]))
    b.add("sfinal 4", OK)
    stream = reference(SHAKE256, message, 300)
    b.add("squeeze 4 7", ok(stream[:7]))
    b.unchanged(4, ("sfinal 4", s["ERR_STATE"]), ("update 4 00", s["ERR_STATE"]), ("update 4 =", s["ERR_STATE"]),
                ("final 4 64", refused(s["ERR_STATE"], 64)), ("squeeze 4 10 null", result(s["ERR_NULL"], None)),
                ("squeeze - 10", refused(s["ERR_NULL"], 10)), ("squeeze 4 0 null", result(OK, None)),
                ("squeeze 4 0", ok(b"")))
    b.add("squeeze 4 293", ok(stream[7:]))  # the stream continues where it was

    # One-shot calls: NULL pointers, the other family, bad algorithms, too small a digest.
    b.add("sha3 1 - 32 len=1", refused(s["ERR_NULL"], 32))
    b.add("sha3 1 - 32", ok(reference(SHA3_256, b"")))
    b.add("sha3 1 - 32 len=0", ok(reference(SHA3_256, b"")))
    b.add("sha3 1 00 32 null", result(s["ERR_NULL"], None))
    b.add("sha3 1 - 0 null", result(s["ERR_NULL"], None))  # NULL comes first, then ARG, then LEN
    b.add("sha3 4 - 0 len=1", refused(s["ERR_NULL"], 0))
    b.add("sha3 4 00 0", refused(s["ERR_ARG"], 0))
    for bad in (SHAKE128, SHAKE256, 6, -1):
        b.add(f"sha3 {bad} 00 64", refused(s["ERR_ARG"], 64))
    for alg in SHA3_ALGS:
        b.add(f"sha3 {alg} 00 {DIGEST[alg] - 1}", refused(s["ERR_LEN"], DIGEST[alg] - 1))
        b.add(f"sha3 {alg} 00 {DIGEST[alg] + 1}", ok(reference(alg, b"\0") + untouched(1)))
    b.add("shake 4 - 16 len=3", refused(s["ERR_NULL"], 16))
    b.add("shake 1 - 16 len=3", refused(s["ERR_NULL"], 16))
    b.add("shake 4 00 16 null", result(s["ERR_NULL"], None))
    b.add("shake 4 00 0 null", result(OK, None))
    b.add("shake 5 - 0 len=0", ok(b""))
    for bad in SHA3_ALGS + (6, -1):
        b.add(f"shake {bad} 00 16", refused(s["ERR_ARG"], 16))
    b.run(driver)


def _state_and_buffer_wiped(snap: str) -> None:
    data = bytes.fromhex(snap)
    assert data[:200 + 168] == bytes(368), "state or buffer not wiped after final"


# ---------------------------------------------------------------------------------------------
# Hardware backends stood in for: table, default, load/release protocol, lock, backend errors


def test_backend_table_protocol_and_lock_with_stand_in_backends(fake_driver: Path, rng: random.Random) -> None:
    s = STATUS
    b = Batch()
    for index, name in enumerate(BACKENDS):
        b.add(f"avail {index}", 1)
        b.add(f"name {index}", name)
    b.add(f"init 0 {SHA3_256} d", OK)
    b.add("which 0", DEFAULT_IN_ALL_SHA3)
    b.add("sha3 1 616263 32", ok(reference(SHA3_256, b"abc")))  # the one-shot calls take the default
    # Every backend through the protocol: random messages in pieces, squeezes in pieces.
    for index in range(len(BACKENDS)):
        for alg in ALGS:
            message = rng.randbytes(rng.choice((0, RATE[alg] - 1, RATE[alg], rng.randint(0, 700))))
            hash_in_pieces(b, rng, index % 4, alg, message, rng.randint(0, 700), backend=str(index))
    # Several contexts in turn on one accelerator: the state is carried in each context.
    interleaved_messages(b, rng, (SHA3_224, SHA3_512, SHAKE128, SHAKE256), (1, 2, 3, 4), calls=100, most_blocks=3,
                         out_len=900)

    # While a call holds the accelerator, every other call that needs it is refused with BUSY
    # and changes nothing; a software context goes ahead.
    busy = f"1 {s['ERR_BUSY']} {s['ERR_BUSY']} {s['ERR_STATE']} 1 {s['ERR_BUSY']} {s['ERR_BUSY']}"
    block = rng.randbytes(400)
    b.add(f"init 0 {SHA3_256} 2", OK)
    b.add(f"init 1 {SHA3_256} 3", OK)
    b.add(f"update 1 {block[:5].hex()}", OK)
    b.add(f"init 2 {SHAKE128} 4", OK)
    b.add("sfinal 2", OK)
    b.add("squeeze 2 3", ok(reference(SHAKE128, b"", 3)))
    b.add(f"init 3 {SHA3_256} 0", OK)
    b.add("probe 1", 0)
    b.add(f"update 0 {block.hex()}", OK)
    b.add("probed", busy)
    b.add("probe 1", 0)
    b.add("final 0 32", ok(reference(SHA3_256, block)))
    b.add("probed", busy)
    b.add("probe 2", 0)  # squeezing context: its squeeze needs the accelerator and is refused
    b.add(f"init 0 {SHAKE256} 5", OK)
    b.add("sfinal 0", OK)
    b.add("probed", f"1 {s['ERR_STATE']} {s['ERR_STATE']} {s['ERR_BUSY']} 1 {s['ERR_BUSY']} {s['ERR_BUSY']}")
    b.add("probe 3", 0)
    b.add(f"update 0 {block.hex()}", s["ERR_STATE"])  # refused before the backend: not fired
    b.add("squeeze 0 500", ok(reference(SHAKE256, b"", 500)))
    # The software context went ahead (the one-shot call on tight, and the hold, found the lock).
    b.add("probed", f"1 {OK} {OK} {s['ERR_STATE']} 0 {s['ERR_BUSY']} {s['ERR_BUSY']}")
    b.add("final 1 32", ok(reference(SHA3_256, block[:5])))  # ctx 1 was left as it was
    b.add("squeeze 2 5", ok(reference(SHAKE128, b"", 8)[3:]))

    # A backend error is returned, releases the lock and ends the message: the context is wiped
    # and refuses further calls; other contexts carry on.
    for call, status in ((f"update 0 {block.hex()}", s["ERR_HW"]), ("final 0 32", s["ERR_TIMEOUT"]),
                         ("sfinal 0", s["ERR_HW"]), ("squeeze 0 300", s["ERR_TIMEOUT"])):
        alg = SHAKE128 if call.startswith(("sfinal", "squeeze")) else SHA3_256
        b.add(f"init 0 {alg} 4", OK)
        b.add(f"update 0 {block[:10].hex()}", OK)
        if call.startswith("squeeze"):
            b.add("sfinal 0", OK)
        b.add(f"fail {status}", 0)
        expect: Expectation = status if not call.startswith(("final", "squeeze")) else _status_is(status)
        b.add(call, expect)
        b.add("snap 0", _state_and_buffer_wiped)
        b.add(f"update 0 {block.hex()}", s["ERR_STATE"])
        b.add("squeeze 0 4", refused(s["ERR_STATE"], 4))
        b.add(f"init 1 {SHA3_256} 4", OK)
        b.add(f"update 1 {block.hex()}", OK)  # the lock was released
        b.add("final 1 32", ok(reference(SHA3_256, block)))

    # Calls into the backend: a short update none; one release per call that used it.
    counts: list[tuple[int, ...]] = []
    record = lambda line: counts.append(tuple(int(x) for x in line.split()))  # noqa: E731
    b.add("counts", record)
    b.add(f"init 0 {SHAKE128} 3", OK)
    b.add(f"update 0 {block[:100].hex()}", OK)  # buffered
    b.add("counts", record)
    b.add(f"update 0 {block[:300].hex()}", OK)  # 100 + 300 = two blocks (168) and 64 into the state
    b.add("counts", record)
    b.add("sfinal 0", OK)  # the last block (its bytes in the state already) + extract
    b.add("counts", record)
    b.add("squeeze 0 168", lambda line: None)  # from the buffer
    b.add("counts", record)
    b.add("squeeze 0 400", lambda line: None)  # 2 whole blocks + part of a third
    b.add("counts", record)
    b.add(f"init 1 {SHA3_256} 2", OK)
    b.add(f"update 1 {block[:10].hex()}", OK)  # buffered
    b.add("counts", record)
    b.add("final 1 32", ok(reference(SHA3_256, block[:10])))  # the buffered bytes and the padding
    b.add("counts", record)
    b.run(fake_driver)

    absorb, permute, extract, release, loads, violations, part, last = (list(c) for c in zip(*counts))
    assert violations[-1] == 0, "the front end broke the backend protocol (see FAKE_BACKENDS in the driver)"
    assert release == loads, "one release per call that loaded the state"
    assert absorb[1] == absorb[0] and release[1] == release[0] and part[1] == part[0]
    # The buffered block, one more whole block, and the last 64 bytes straight into the state.
    assert absorb[2] - absorb[1] == 2 and part[2] - part[1] == 1 and release[2] - release[1] == 1
    assert absorb[3] == absorb[2] and last[3] - last[2] == 1
    assert extract[3] - extract[2] == 1 and release[3] - release[2] == 1
    assert release[4] == release[3]
    assert permute[5] - permute[4] == 3 and extract[5] - extract[4] == 3 and release[5] - release[4] == 1
    assert release[6] == release[5] and last[6] == last[5]
    assert last[7] - last[6] == 1 and absorb[7] == absorb[6] and release[7] - release[6] == 1


# ---------------------------------------------------------------------------------------------
# The held calls (couplet/sha3_held.h)


def held_vectors(b: Batch, rng: random.Random, handle: int) -> None:
    """Held hashes of random messages (every algorithm, lengths around the rate, odd alignments,
    SHAKE outputs of several blocks) through `handle`: hashlib's output, nothing past it."""
    for alg in ALGS:
        rate = RATE[alg]
        for length in (0, 1, rate - 1, rate, rate + 1, 2 * rate + 3, rng.randint(0, 3 * rate)):
            message = rng.randbytes(length)
            off = rng.randint(0, 7)
            if alg in SHA3_ALGS:
                extra = rng.choice((0, 3))
                b.add(f"held {handle} {alg} {hex_or_null(message)} {DIGEST[alg] + extra} off={off}",
                      ok(reference(alg, message) + untouched(extra)))
            else:
                out_len = rng.choice((0, 1, 32, rate, rate + 5, 3 * rate + 1))
                b.add(f"sheld {handle} {alg} {hex_or_null(message)} {out_len} off={off}",
                      ok(reference(alg, message, out_len)))


def test_held_calls_with_the_software_backend(driver: Path, rng: random.Random) -> None:
    """Without an accelerator the held calls work unchanged on the software backend; holding an
    absent backend is refused; a released handle is refused."""
    s = STATUS
    b = Batch()
    b.add("hold 0 2", s["ERR_UNSUPPORTED"])
    b.add("held 0 1 00 32", refused(s["ERR_STATE"], 32))  # never held
    b.add(f"hold 0 {SOFT}", OK)
    b.add(f"hold 1 {SOFT}", OK)  # software holds take nothing shared: any number at once
    held_vectors(b, rng, 0)
    b.add("release 1", OK)
    b.add("release 1", s["ERR_STATE"])
    b.add("held 1 1 00 32", refused(s["ERR_STATE"], 32))
    b.add("sha3 1 616263 32", ok(reference(SHA3_256, b"abc")))  # the one-shot calls still work
    b.add("release 0", OK)
    b.run(driver)


def test_held_calls_errors_and_lock_with_stand_in_backends(fake_driver: Path, rng: random.Random) -> None:
    """Every backend held in turn, against hashlib. While the accelerator is held, every other
    call that needs it (contexts, one-shot calls, a second hold) gets BUSY and changes nothing,
    the software backend goes on; after the release everything works again. Each error of the
    held calls, in the contract's order, with nothing written."""
    s = STATUS
    b = Batch()
    # hold: NULL, ARG, and every backend (stand-ins) against hashlib.
    b.add(f"hold - {BACKENDS.index('tight')}", s["ERR_NULL"])
    for bad in (len(BACKENDS), 99, -1):
        b.add(f"hold 0 {bad}", s["ERR_ARG"])
    for index in range(len(BACKENDS)):
        b.add(f"hold 0 {index}", OK)
        held_vectors(b, rng, 0)
        b.add("release 0", OK)

    # While held: a second hold, the contexts, the one-shot calls on an accelerator get BUSY.
    message = rng.randbytes(300)
    tight, mem, mmio = BACKENDS.index("tight"), BACKENDS.index("mem"), BACKENDS.index("mmio")
    b.add(f"init 2 {SHA3_256} {mem}", OK)
    b.add(f"update 2 {message[:5].hex()}", OK)
    b.add(f"init 3 {SHA3_256} {SOFT}", OK)
    b.add(f"hold 0 {tight}", OK)
    b.add("hcopy 0 3", 0)  # a copy of the handle, kept past the release
    b.add(f"hold 1 {mmio}", s["ERR_BUSY"])
    b.add(f"hold 1 {tight}", s["ERR_BUSY"])
    b.unchanged(2, (f"update 2 {message.hex()}", s["ERR_BUSY"]), ("final 2 32", refused(s["ERR_BUSY"], 32)))
    b.add(f"update 2 {message[5:10].hex()}", OK)  # only fills the buffer: no accelerator needed
    b.add("sha3 1 616263 32", refused(s["ERR_BUSY"], 32))  # the default backend (mmio) is held
    b.add(f"hold 1 {SOFT}", OK)  # software goes on
    b.add(f"held 1 {SHA3_256} 616263 32", ok(reference(SHA3_256, b"abc")))
    b.add("release 1", OK)
    b.add(f"update 3 {message.hex()}", OK)
    b.add("final 3 32", ok(reference(SHA3_256, message)))
    b.add(f"held 0 {SHA3_384} {message.hex()} 48", ok(reference(SHA3_384, message)))

    # Errors of the held calls: NULL, then ARG, then STATE, then LEN; nothing written.
    b.add(f"held - {SHA3_256} 00 32", refused(s["ERR_NULL"], 32))
    b.add(f"held 0 {SHA3_256} 00 32 null", result(s["ERR_NULL"], None))
    b.add(f"held 0 {SHA3_256} - 32 len=1", refused(s["ERR_NULL"], 32))
    b.add(f"held 0 {SHA3_256} - 32 len=0", ok(reference(SHA3_256, b"")))
    b.add(f"held 2 {SHA3_256} - 32 len=1", refused(s["ERR_NULL"], 32))  # NULL before STATE
    for bad in (SHAKE128, SHAKE256, 6, -1):
        b.add(f"held 0 {bad} 00 64", refused(s["ERR_ARG"], 64))
        b.add(f"held 2 {bad} 00 64", refused(s["ERR_ARG"], 64))  # ARG before STATE
    for bad in SHA3_ALGS + (6, -1):
        b.add(f"sheld 0 {bad} 00 16", refused(s["ERR_ARG"], 16))
    b.add(f"sheld - {SHAKE128} 00 16", refused(s["ERR_NULL"], 16))
    b.add(f"sheld 0 {SHAKE128} 00 16 null", result(s["ERR_NULL"], None))
    b.add(f"sheld 0 {SHAKE128} 00 0 null", result(OK, None))
    b.add(f"held 2 {SHA3_256} 00 31", refused(s["ERR_STATE"], 31))  # STATE before LEN (never held)
    for alg in SHA3_ALGS:
        b.add(f"held 0 {alg} 00 {DIGEST[alg] - 1}", refused(s["ERR_LEN"], DIGEST[alg] - 1))

    # Release: then the handle (and its copy) are refused, and everything else works again.
    b.add("release 0", OK)
    b.add("release 0", s["ERR_STATE"])
    b.add("release 3", s["ERR_STATE"])
    b.add("release -", s["ERR_NULL"])
    b.add(f"held 0 {SHA3_256} 00 32", refused(s["ERR_STATE"], 32))
    b.add(f"held 3 {SHA3_256} 00 32", refused(s["ERR_STATE"], 32))
    b.add(f"sheld 3 {SHAKE128} 00 32", refused(s["ERR_STATE"], 32))
    b.add(f"update 2 {message[10:].hex()}", OK)
    b.add("final 2 32", ok(reference(SHA3_256, message[:5] + message[5:10] + message[10:])))
    b.add("sha3 1 616263 32", ok(reference(SHA3_256, b"abc")))
    b.add(f"hold 1 {mmio}", OK)
    b.add(f"hold 0 {tight}", s["ERR_BUSY"])
    b.add("release 1", OK)
    b.add("counts", lambda line: None)
    b.add("counts", lambda line: _no_violations(line))
    b.run(fake_driver)


def _no_violations(line: str) -> None:
    assert int(line.split()[5]) == 0, f"the front end broke the backend protocol: {line}"


def _status_is(status: int) -> Callable[[str], None]:
    def check(line: str) -> None:
        assert int(line.split()[0]) == status, line

    return check


# ---------------------------------------------------------------------------------------------
# The SoC build: warnings of the target, no library calls, no data tables, a tight permutation


def objdump(obj: Path, *options: str) -> str:
    return subprocess.run([paths.cross_tool("objdump"), *options, str(obj)], capture_output=True, text=True,
                          check=True).stdout


def test_cross_compile_for_the_soc(tmp_path: Path) -> None:
    objects = cross_compile(tmp_path / "no_sha3", SOC_CONFIG_NO_SHA3, SHA3_SOURCES)
    # No calls into libgcc or picolibc (no libatomic, no byte-wise memcpy/memset).
    assert undefined_symbols(objects["sha3_soft"]) == set()
    assert undefined_symbols(objects["sha3"]) == {"couplet_sha3_backend_soft"}
    # The try-lock is one AMO with acquire ordering.
    disassembly = objdump(objects["sha3"], "-d")
    assert re.search(r"\tamoswap\.w\.aq(rl)?\s", disassembly), "no AMO for the accelerator lock"

    # No table but the round constants (192 bytes) in the backend: no data-indexed lookups; no
    # writable data.
    sizes: dict[str, int] = {}
    for name, size in re.findall(r"^\s*\d+\s+(\S+)\s+([0-9a-f]{8})\s", objdump(objects["sha3_soft"], "-h"),
                                 re.MULTILINE):
        kind = "rodata" if "rodata" in name else "data" if re.match(r"\.s?(data|bss)", name) else "other"
        sizes[kind] = sizes.get(kind, 0) + int(size, 16)
    assert 192 <= sizes.get("rodata", 0) < 256, sizes
    assert sizes.get("data", 0) == 0, sizes

    # The permutation's round loop stays tight: ~590 instructions per round and no spills (the
    # only stack accesses save and restore the 12 callee-saved registers). A regression here
    # (a compiler or code change that spills) costs 20% or more.
    body = re.search(r"<keccak_f1600>:\n(.*?)\n\n", objdump(objects["sha3_soft"], "-d", "--no-show-raw-insn"),
                     re.DOTALL)
    assert body is not None
    instructions = [line for line in body.group(1).splitlines() if re.match(r"\s+[0-9a-f]+:\t", line)]
    stack = [line for line in instructions if "(sp)" in line]
    assert len(instructions) < 650, len(instructions)
    assert len(stack) <= 26, "\n".join(stack)

    # With every coupling, the table references every hardware backend (linked only then), and
    # the one-shot calls each accelerator backend's whole hash (the ise one is the front end's).
    objects = cross_compile(tmp_path / "all_sha3", SOC_CONFIG_ALL_SHA3, SHA3_SOURCES)
    assert undefined_symbols(objects["sha3"]) == {f"couplet_sha3_backend_{name}" for name in BACKENDS} | {
        f"couplet_sha3_hash_{name}" for name in BACKENDS[2:]}


# The hardware backends, compiled for the SoC with a stand-in of the generated header of a SoC
# that has every coupling (the macros of couplet gen for [accelerator.keccak]).
HW_SOURCES = tuple(SHA3_DIR / f"sha3_{name}.c" for name in ("hw", "ise", "tight", "mem", "mmio", "dma"))
SOC_CONFIG_KECCAK = SOC_CONFIG_ALL_SHA3 + """\
#define COUPLET_KECCAK_PRESENT 1
#define COUPLET_KECCAK_ROUNDS_PER_CYCLE 1
#define COUPLET_KECCAK_CUSTOM_OPCODE 0x5b
#define COUPLET_KECCAK_ISE_OPCODE 0x2b
#define COUPLET_KECCAK_BASE 0x11002000u
#define COUPLET_KECCAK_SIZE 0x00001000u
#define COUPLET_KECCAK_DMA_BASE 0x11003000u
#define COUPLET_KECCAK_DMA_SIZE 0x00001000u
#define COUPLET_IRQ_KECCAK 18u
#define COUPLET_IRQ_KECCAK_DMA 19u
"""


def defined_symbols(obj: Path) -> set[str]:
    out = subprocess.run([paths.cross_tool("nm"), "--defined-only", str(obj)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def test_hardware_backends_cross_compile_for_the_soc(tmp_path: Path) -> None:
    """Every hardware backend compiles warning-free with the SDK's flags; together with the front
    end and the soft backend they define every backend the table references and call nothing in
    libgcc or picolibc; the custom instructions use only the configured opcodes. Without the
    Keccak macros the files compile to nothing."""
    objects = cross_compile(tmp_path / "keccak", SOC_CONFIG_KECCAK, SHA3_SOURCES + HW_SOURCES)
    defined = set().union(*(defined_symbols(o) for o in objects.values()))
    undefined = set().union(*(undefined_symbols(o) for o in objects.values()))
    assert {f"couplet_sha3_backend_{name}" for name in BACKENDS} <= defined
    assert undefined <= defined, f"calls outside the SHA-3 library: {sorted(undefined - defined)}"
    opcodes = {"ise": {0x2B}, "tight": {0x5B}, "mem": set(), "mmio": set(), "dma": set(), "hw": set()}
    for name, expected in opcodes.items():
        words = re.findall(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", objdump(objects[f"sha3_{name}"], "-d"), re.M)
        custom = {int(w, 16) & 0x7F for w in words} & {0x0B, 0x2B, 0x5B, 0x7B}
        assert custom == expected, f"sha3_{name}: custom opcodes {custom}"
    # The tight backend's indexes are the register map's: STATE_XOR pairs for the blocks, STATE
    # reads for the digest, the three actions.
    tight = {(int(w, 16) >> 12 & 7, int(w, 16) >> 25)
             for w in re.findall(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s", objdump(objects["sha3_tight"], "-d"), re.M)
             if int(w, 16) & 0x7F == 0x5B}
    assert {(2, 0x40 + 2 * k) for k in range(21)} <= tight
    assert {(2, 2 * k) for k in range(25)} <= tight and {(0, w) for w in range(50)} <= tight
    assert {(3, 0), (3, 1), (3, 2), (1, 0x32), (1, 0x34)} <= tight

    empty = cross_compile(tmp_path / "no_keccak", SOC_CONFIG_NO_SHA3, HW_SOURCES)
    for name, obj in empty.items():
        assert not {s for s in defined_symbols(obj) if s.startswith(("couplet_", "sha3_"))}, name
