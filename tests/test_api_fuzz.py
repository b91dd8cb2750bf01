"""Abuse of the C API (issue 21): the AES and SHA-3 libraries on the host under AddressSanitizer and
UndefinedBehaviorSanitizer, driven by random call sequences with random and bad arguments
(tests/fuzz_host/api_fuzz.c, built and run by couplet/flows/fuzz.py, as `couplet fuzz` does).

The fuzzer checks each call against a model of the headers' contract (named errors, nothing
changed by a refused call, results equal to an independent computation) and stops at the first
breach or sanitizer report. The first tests run it from a seed (COUPLET_TEST_SEED=<n> reruns one)
for a SoC with every backend and for one without some backends and with a reduced AES engine,
and check that every kind of call and of refusal happened; others plant a bug of each kind in
the backend stand-ins and check that the fuzzer reports it where it happened, and run
`couplet fuzz` itself.

Run: .venv/bin/python -m pytest tests/test_api_fuzz.py -q
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from couplet import cli, paths
from couplet.flows import fuzz
from couplet.tools.cocotb_run import regression_seed
from host_c import status_codes

ITERATIONS = 600_000  # about 10 s on one core
PLANT_ITERATIONS = 100_000

# Every kind of call the fuzzer makes (the summary's names), each of which must also succeed.
KINDS = (
    "aes_init", "aes_set_key", "aes_zeroize", "aes_crypt", "aes_ecb", "aes_cbc", "aes_ctr", "aes_cfb", "aes_ofb",
    "aes_hold", "aes_held_crypt", "aes_release", "aes_backend_supports",
    "sha3_init", "sha3_update", "sha3_final", "shake_final", "shake_squeeze", "sha3", "shake", "sha3_using",
    "shake_using", "sha3_hold", "sha3_release", "sha3_held", "shake_held",
)
# The refusals that must have been exercised, by the kind of call that got them: each error the
# headers name for it (ERR_UNSUPPORTED needs a backend the SoC lacks: tests/test_*_host.py), and
# the stand-ins' hardware failures.
REFUSALS = {
    "aes_init": ("ERR_NULL", "ERR_ARG"),
    "aes_set_key": ("ERR_NULL", "ERR_STATE", "ERR_KEY_LEN", "ERR_BUSY"),
    "aes_zeroize": ("ERR_NULL", "ERR_STATE", "ERR_BUSY"),
    "aes_crypt": ("ERR_NULL", "ERR_STATE", "ERR_LEN", "ERR_ARG", "ERR_BUSY"),
    "aes_ctr": ("ERR_NULL", "ERR_STATE", "ERR_BUSY"),
    "aes_cbc": ("ERR_NULL", "ERR_STATE", "ERR_LEN", "ERR_BUSY"),
    "aes_hold": ("ERR_NULL", "ERR_STATE", "ERR_ARG", "ERR_BUSY"),
    "aes_held_crypt": ("ERR_NULL", "ERR_STATE", "ERR_LEN"),
    "aes_release": ("ERR_NULL", "ERR_STATE"),
    "aes_backend_supports": ("ERR_ARG",),
    # The fixed case of the software hold revived by a new key (aes_api_fuzz.c).
    "aes_regression": ("ERR_STATE",),
    "sha3_init": ("ERR_NULL", "ERR_ARG"),
    "sha3_update": ("ERR_NULL", "ERR_STATE", "ERR_BUSY", "ERR_HW", "ERR_TIMEOUT"),
    "sha3_final": ("ERR_NULL", "ERR_STATE", "ERR_LEN", "ERR_BUSY", "ERR_HW", "ERR_TIMEOUT"),
    "shake_final": ("ERR_NULL", "ERR_STATE", "ERR_BUSY", "ERR_HW", "ERR_TIMEOUT"),
    "shake_squeeze": ("ERR_NULL", "ERR_STATE", "ERR_BUSY", "ERR_HW", "ERR_TIMEOUT"),
    "sha3_using": ("ERR_NULL", "ERR_ARG", "ERR_LEN", "ERR_BUSY"),
    "shake_using": ("ERR_NULL", "ERR_ARG", "ERR_BUSY"),
    "sha3": ("ERR_NULL", "ERR_ARG", "ERR_LEN", "ERR_BUSY"),
    "sha3_hold": ("ERR_NULL", "ERR_ARG", "ERR_BUSY"),
    "sha3_release": ("ERR_NULL", "ERR_STATE"),
    "sha3_held": ("ERR_NULL", "ERR_ARG", "ERR_STATE", "ERR_LEN"),
    "shake_held": ("ERR_NULL", "ERR_ARG", "ERR_STATE"),
}


# The refusals only a SoC without some backends and with a reduced engine gives ("reduced").
REDUCED_REFUSALS = {
    "aes_init": ("ERR_UNSUPPORTED",),
    "aes_backend_supports": ("ERR_UNSUPPORTED", "ERR_UNSUPPORTED_MODE", "ERR_UNSUPPORTED_KEY_SIZE"),
    "aes_set_key": ("ERR_UNSUPPORTED_KEY_SIZE",),
    "aes_crypt": ("ERR_UNSUPPORTED_MODE",),
    "aes_ecb": ("ERR_UNSUPPORTED_MODE",),
    "aes_cbc": ("ERR_UNSUPPORTED_MODE",),
    "aes_hold": ("ERR_UNSUPPORTED_MODE",),
    "sha3_init": ("ERR_UNSUPPORTED",),
    "sha3_using": ("ERR_UNSUPPORTED",),
    "shake_using": ("ERR_UNSUPPORTED",),
    "sha3_hold": ("ERR_UNSUPPORTED",),
}


def unexercised(calls: dict[str, dict[str, int]], refusals: dict[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    return [(kind, error) for kind, errors in refusals.items() for error in errors
            if calls.get(kind, {}).get(error, 0) == 0]


@pytest.fixture(scope="session")
def fuzzer() -> Path:
    return fuzz.build("full")


@pytest.fixture(scope="session")
def reduced_fuzzer() -> Path:
    return fuzz.build("reduced")


@pytest.fixture(scope="session")
def planted_fuzzer() -> Path:
    """With the stand-ins' planted bugs built in (FAKE_PLANT), chosen by the environment."""
    return fuzz.build("full", ("-DFAKE_PLANT",), variant="full_planted")


def test_random_call_sequences_keep_the_contract_without_sanitizer_findings(fuzzer: Path) -> None:
    seed = regression_seed()
    result = fuzz.run(fuzzer, seed, ITERATIONS, timeout=600)
    assert result.completed, result.describe()
    assert result.sanitizer == [] and result.failure is None
    missing = [kind for kind in KINDS if result.calls.get(kind, {}).get("OK", 0) == 0]
    assert not missing, f"never a good call of {missing}"
    assert not unexercised(result.calls, REFUSALS), "refusals never exercised"
    assert all(error in status_codes() for errors in REFUSALS.values() for error in errors)
    # Each call is one iteration at most (a hold the model skips makes none).
    assert ITERATIONS * 0.9 <= result.total_calls <= ITERATIONS + 16
    assert result.refused > result.total_calls // 4


def test_a_soc_without_some_backends_and_engine_features_refuses_as_documented(reduced_fuzzer: Path) -> None:
    """No mem or dma backend and an encrypt-only AES-128 engine: UNSUPPORTED, UNSUPPORTED_MODE and
    UNSUPPORTED_KEY_SIZE where the headers say, besides everything the first test checks."""
    result = fuzz.run(reduced_fuzzer, regression_seed(), ITERATIONS // 3, timeout=600)
    assert result.completed, result.describe()
    assert not unexercised(result.calls, REDUCED_REFUSALS), "refusals never exercised"
    assert not unexercised(result.calls, REFUSALS), "refusals never exercised"
    assert all(error in status_codes() for errors in REDUCED_REFUSALS.values() for error in errors)


def test_summary_line_is_parsed_per_kind_and_status() -> None:
    text = "api_fuzz: summary seed=7 iterations=3 aes_init=OK:2,ERR_ARG:1 sha3_final=ERR_LEN:4\n"
    assert fuzz.parse_summary(text) == {"aes_init": {"OK": 2, "ERR_ARG": 1}, "sha3_final": {"ERR_LEN": 4}}
    assert fuzz.parse_summary("no summary\n") == {}


@pytest.mark.parametrize(
    "plant, finding",
    [
        # Past the caller's output (heap) or the front end's CTR keystream block (stack).
        (1, "-buffer-overflow"),
        (2, "runtime error: signed integer overflow"),
        (3, "differs from the model"),
    ],
    ids=["overrun", "undefined", "wrong-result"],
)
def test_fuzzer_reports_a_planted_bug(planted_fuzzer: Path, plant: int, finding: str) -> None:
    """FAKE_PLANT in tests/aes_host/aes_fake_backends.h: a stand-in writes past its output, overflows
    an int, or gets the second block wrong. The run stops at it, non-zero, with the report."""
    seed = regression_seed()
    planted = {"FAKE_PLANT": str(plant)}
    result = fuzz.run(planted_fuzzer, seed, PLANT_ITERATIONS, timeout=300, extra_env=planted)
    assert result.returncode != 0 and not result.completed
    assert result.calls == {}, "a run that found something prints no summary"
    if plant == 3:
        assert result.sanitizer == []
        assert result.failure is not None and finding in result.failure
        assert f"seed={seed} iteration=" in result.failure and "call=" in result.failure
        # The same seed stops at the same call: the report is enough to reproduce it.
        again = fuzz.run(planted_fuzzer, seed, PLANT_ITERATIONS, timeout=300, extra_env=planted)
        assert again.failure == result.failure
    else:
        assert result.failure is None
        assert len(result.sanitizer) == 1 and finding in result.sanitizer[0], result.stderr[-2000:]
        assert ("ERROR: AddressSanitizer:" if plant == 1 else "runtime error:") in result.sanitizer[0]
        assert "aes_fake_backends.h" in result.stderr  # the report points at the planted line


def test_couplet_fuzz_prints_the_table_and_writes_the_report(fuzzer: Path, reduced_fuzzer: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`couplet fuzz` through the CLI (the fuzzer already built; the report in a scratch folder)."""
    built = {"full": fuzzer, "reduced": reduced_fuzzer}
    monkeypatch.setattr(fuzz, "build", lambda config: built[config])
    monkeypatch.setattr(paths, "BUILD_DIR", tmp_path)
    assert cli.main(["fuzz", "--iterations", "20000", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "aes_set_key" in out and "sanitizer findings" in out and "NOT met" not in out
    runs = json.loads((tmp_path / "reports" / "fuzz.json").read_text())["runs"]
    assert set(runs) == {"full", "reduced"}
    for run in runs.values():
        assert run["seed"] == 5 and run["iterations"] == 20000 and run["completed"]
        assert run["sanitizer_findings"] == [] and run["failure"] is None
        assert run["total_calls"] == sum(sum(by.values()) for by in run["calls"].values())
    assert "| aes_crypt |" in (tmp_path / "reports" / "fuzz.md").read_text()
