"""Constant time, checked in the SoC (issue 21): every AES and SHA-3 backend of the default
configuration takes the same cycles and retires the same instructions for all-zero, all-ones,
random-looking and one-bit-apart keys and data (sw/apps/test_constant_time), and the measurement
is shown to see a data-dependent branch (its leaky control differs)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from couplet.model.config import SocConfig
from couplet.tools.simulator import SimResult

RunApp = Callable[..., SimResult]

INPUTS = 5
AES_OPS = ("set_key", "ecb_encrypt", "ecb_decrypt", "cbc_encrypt", "cbc_decrypt", "ctr",
           "cfb_encrypt", "cfb_decrypt", "ofb", "ecb_encrypt_odd", "held_cbc_decrypt", "ecb_encrypt_reload", "zeroize")
AES_KEY_BITS = (128, 192, 256)
SHA3_OPS = ("sha3_256_update", "sha3_256_final", "shake128_update", "shake128_final", "shake128_squeeze",
            "sha3_256_one_shot", "shake256_one_shot", "sha3_512_held", "sha3_256_one_shot_odd")

LINE = re.compile(r"^ct (\w+)/(\w+)/(\S+) cycles=([\d,]+) instret=([\d,]+) warmup=(\d+)/(\d+) (equal|differ)$", re.M)


@dataclass(frozen=True)
class Measure:
    """One (suite, backend, measure) line: the counts of each input."""

    cycles: tuple[int, ...]
    instret: tuple[int, ...]
    says_equal: bool

    @property
    def equal(self) -> bool:
        return len(set(self.cycles)) == 1 and len(set(self.instret)) == 1


def parse(console: str) -> dict[tuple[str, str, str], Measure]:
    measures: dict[tuple[str, str, str], Measure] = {}
    for m in LINE.finditer(console):
        suite, backend, measure, cycles, instret, _, _, verdict = m.groups()
        key = (suite, backend, measure)
        assert key not in measures, f"{key} printed twice"
        measures[key] = Measure(tuple(int(c) for c in cycles.split(",")), tuple(int(i) for i in instret.split(",")),
                                verdict == "equal")
    return measures


@pytest.fixture(scope="module")
def measures(run_app: RunApp) -> dict[tuple[str, str, str], Measure]:
    result = run_app("test_constant_time", max_cycles=30_000_000)
    console = result.console or ""
    # The app fails itself (exit 1, FAIL lines) on a difference; the asserts below say which.
    found = parse(console)
    assert found, console
    for key, m in found.items():
        assert len(m.cycles) == len(m.instret) == INPUTS, key
        assert m.says_equal == m.equal, key  # the app and this test judge alike
    return found


def expected(config: SocConfig) -> set[tuple[str, str, str]]:
    """Every measure the app must print for this configuration's backends."""
    assert config.aes is not None and config.keccak is not None
    keys = {("aes", b, f"{op}/{bits}") for b in config.aes.backends for op in AES_OPS for bits in AES_KEY_BITS}
    keys |= {("sha3", b, op) for b in config.keccak.backends for op in SHA3_OPS}
    return keys


def test_every_backend_of_the_soc_is_measured(measures: dict[tuple[str, str, str], Measure],
                                              config: SocConfig) -> None:
    assert config.aes is not None and config.keccak is not None
    # The default SoC has every coupling: all seven AES and six SHA-3 backends.
    assert len(config.aes.backends) == 7 and len(config.keccak.backends) == 6
    library = {key for key in measures if key[0] != "control"}
    assert library == expected(config)


def test_every_backend_is_constant_time(measures: dict[tuple[str, str, str], Measure]) -> None:
    leaks = [f"{'/'.join(key)}: cycles {m.cycles}, instret {m.instret}"
             for key, m in measures.items() if key[0] != "control" and not m.equal]
    assert not leaks, "time depends on the key or data:\n" + "\n".join(leaks)


def test_the_measurement_sees_a_data_dependent_branch(measures: dict[tuple[str, str, str], Measure]) -> None:
    """The control: an early-exit comparison of the secret key with input 2's key differs by
    input (all-zero and all-ones keys leave at the first byte, input 2 runs to the end, input 3
    leaves at its flipped byte 5), and its branch-free form does not."""
    leaky = measures["control", "app", "leaky_compare"]
    assert not leaky.equal
    assert leaky.instret[2] == leaky.instret[4] > leaky.instret[3] > leaky.instret[0] == leaky.instret[1]
    assert leaky.cycles[2] > leaky.cycles[3] > leaky.cycles[0]
    assert measures["control", "app", "ct_compare"].equal


def test_a_difference_in_one_input_is_judged_a_leak() -> None:
    """The judging without the SoC: one count apart in one input, of either counter, is a leak."""
    base = "ct aes/soft/ctr/128 cycles=9,9,9,9,9 instret=7,7,7,7,7 warmup=9/7 equal"
    assert parse(base)["aes", "soft", "ctr/128"].equal
    for line in (base.replace("cycles=9,9,9,9,9", "cycles=9,9,9,10,9"),
                 base.replace("instret=7,7,7,7,7", "instret=7,7,7,7,6")):
        assert not parse(line)["aes", "soft", "ctr/128"].equal
