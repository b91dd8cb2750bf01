"""SHA-3 in the SoC: every backend of the default configuration against the NIST CAVP SHA3VS
sample and against the software backend (sw/apps/test_sha3: random messages in random pieces
and alignments, SHAKE squeezed in pieces, two contexts in turn, the error codes and the
accelerator lock under an interrupt; the held calls of couplet/sha3_held.h with the same sample,
their errors, and the lock while held: a second hold, other contexts, the one-shot calls and
interrupt handlers get BUSY on an accelerator and change nothing, the software backend works)."""

from __future__ import annotations

from collections.abc import Callable

from app_summary import backend_counts
from testsupport import cavp
from couplet.model.config import SocConfig, load_config
from couplet.tools.simulator import SimResult

RunApp = Callable[..., SimResult]


def test_sha3_vectors_file_is_up_to_date() -> None:
    cavp.assert_up_to_date(cavp.SHA3_FIRMWARE_VECTORS)


def test_sha3_firmware_sample_covers_every_algorithm_and_length_class() -> None:
    sample = cavp.sha3_firmware_sample()
    for alg in cavp.HASH_ALGS:
        rate = cavp.HASH_RATE[alg]
        lengths = {len(v.message) for v in sample if v.alg == alg}
        assert 0 in lengths and rate in lengths, alg
        assert any(0 < n < rate for n in lengths), alg
        assert any(n > rate for n in lengths), alg
        assert any(n >= 2 * rate for n in lengths), f"{alg}: no multi-block message"
        if cavp.is_shake(alg):
            outs = {len(v.output) for v in sample if v.alg == alg}
            assert len(outs) >= 2, f"{alg}: one output length only"
    # A SHAKE output longer than the rate: the squeeze crosses a block.
    assert any(len(v.output) > cavp.HASH_RATE[v.alg] for v in sample if cavp.is_shake(v.alg))


def check_every_backend_passes(result: SimResult, config: SocConfig) -> None:
    assert config.keccak is not None
    backends = config.keccak.backends
    assert backends[0] == "soft"
    count = len(cavp.sha3_firmware_sample())
    summaries = backend_counts(result, backends, r"cavp (\d+)/(\d+) oneshot (\d+)/(\d+) held (\d+)/(\d+) "
                               r"random (\d+)/(\d+) contexts ok errors ok")
    for backend, counts in summaries.items():
        assert counts[0] == counts[1] == count
        # The accelerator backends run every vector one-shot and held, the software ones a quarter.
        sample = count if backend not in ("soft", "ise") else (count + 3) // 4
        assert counts[2] == counts[3] == sample
        assert counts[4] == counts[5] == sample
        assert counts[6] == counts[7] > 0


def test_sha3_every_backend_in_the_soc(run_app: RunApp) -> None:
    result = run_app("test_sha3", max_cycles=20_000_000)
    check_every_backend_passes(result, load_config("default"))
