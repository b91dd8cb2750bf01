"""AES in the SoC: every backend of the default configuration against the NIST CAVP sample
and against the software backend (sw/apps/test_aes), and the benchmark's figures."""

from __future__ import annotations

from collections.abc import Callable

from app_summary import backend_counts
from couplet.flows.bench import aes
from couplet.tools import firmware, simulator
from testsupport import cavp
from couplet.model.config import AesConfig, SocConfig, load_config
from couplet.reports.results import parse_results
from couplet.tools.simulator import SimResult

RunApp = Callable[..., SimResult]


def test_aes_vectors_file_is_up_to_date() -> None:
    cavp.assert_up_to_date(cavp.FIRMWARE_VECTORS)


def test_aes_firmware_sample_covers_every_mode_key_size_and_direction() -> None:
    sample = cavp.firmware_sample()
    seen = {(v.mode, len(v.key), v.decrypt) for v in sample}
    for mode in cavp.MODES:
        for key_len in (16, 24, 32):
            assert (mode, key_len, False) in seen
            if mode != "CTR":
                assert (mode, key_len, True) in seen
    # Multi-block messages are what exercise the chaining of the modes.
    assert any(len(v.data_in) >= 48 for v in sample if v.mode == "CBC")


# The backends that drive the accelerator's engine, which refuses what it was built without.
ENGINE_BACKENDS = ("tight", "mem", "mmio", "mmio_irq", "dma")


def refusals(aes: AesConfig, backend: str, random_messages: int) -> int:
    """How many calls of sw/apps/test_aes `backend` refuses in a SoC with `aes`, counted from the
    configuration (the app asks the C API, couplet_aes_backend_supports)."""
    if backend not in ENGINE_BACKENDS:
        return 0

    def refused(mode: str, decrypt: bool, key_bytes: int) -> bool:
        no_inverse = decrypt and not aes.decrypt and mode in ("ECB", "CBC")
        return key_bytes * 8 not in aes.key_sizes or no_inverse

    count = sum(refused(v.mode, v.decrypt, len(v.key)) for v in cavp.firmware_sample())
    for r in range(random_messages):  # run_random: a mode and key size per message, then back
        mode, key_bytes = cavp.MODES[r % 5], 16 + 8 * ((r // 5) % 3)
        count += refused(mode, mode in ("ECB", "CBC", "CFB"), key_bytes)
    for key_bytes in (16, 24, 32):  # run_held: a refused key once, else each mode both ways
        if key_bytes * 8 not in aes.key_sizes:
            count += 1
        else:
            count += sum(refused(mode, decrypt, key_bytes) for mode in cavp.MODES for decrypt in (False, True))
    return count


def check_every_backend_passes(result: SimResult, config: SocConfig, random_messages: int = 24) -> None:
    assert config.aes is not None
    count = len(cavp.firmware_sample())
    summaries = backend_counts(result, config.aes.backends,
                               r"cavp (\d+)/(\d+) random (\d+)/(\d+) contexts ok errors ok held ok refused (\d+)")
    for backend, (cavp_passed, cavp_run, random_passed, random_run, refused) in summaries.items():
        assert cavp_passed == cavp_run == count
        assert random_passed == random_run == random_messages
        assert refused == refusals(config.aes, backend, random_messages), backend


def test_aes_every_backend_in_the_soc(run_app: RunApp) -> None:
    result = run_app("test_aes", max_cycles=60_000_000)
    check_every_backend_passes(result, load_config("default"))


def test_aes_unrolled_engine_in_the_soc() -> None:
    """The pipelined engine (one block per cycle) behind every coupling: the streaming paths see
    back-pressure the rolled engine never gives. The partial engine differs from the rolled one
    only inside the core, which hw/ip/aes/test checks for every architecture."""
    config = load_config("aes_unrolled")
    assert config.aes is not None and config.aes.arch == "unrolled"
    # A third of the random messages: the engine differs, the C paths are the default SoC's.
    elf = firmware.build_app(config, "test_aes", defines={"RANDOM_MESSAGES": "8"})
    result = simulator.simulate(config, elf, max_cycles=60_000_000, capture=True)
    check_every_backend_passes(result, config, 8)


def test_aes_encrypt_only_128_engine_in_the_soc() -> None:
    """The smallest engine (configs/aes128_enc.toml): every backend that drives it refuses ECB
    and CBC decryption and the 192- and 256-bit keys with the named errors and no output, and
    does everything else right; the software backend still does everything."""
    config = load_config("aes128_enc")
    assert config.aes is not None and not config.aes.decrypt and config.aes.key_sizes == (128,)
    elf = firmware.build_app(config, "test_aes", defines={"RANDOM_MESSAGES": "10"})
    result = simulator.simulate(config, elf, max_cycles=60_000_000, capture=True)
    check_every_backend_passes(result, config, 10)
    assert refusals(config.aes, "mmio", 10) > 0 and refusals(config.aes, "soft", 10) == 0


def test_aes_bench_figures_agree_across_backends() -> None:
    """The bench firmware with 3 runs per measure instead of 10 (a third of the simulation)."""
    config = load_config("default")
    elf = firmware.build_app(config, "bench_aes", defines={"RUNS": "3"})
    result = simulator.simulate(config, elf, max_cycles=400_000_000, capture=True)
    assert result.status == "exit" and result.exit_code == 0, result.console
    stats = aes.summarise(parse_results(result.console or ""))
    aes.check_agreement(stats)
    assert config.aes is not None
    assert set(stats) == set(config.aes.backends)
    soft = stats["soft"]
    for backend, measures in stats.items():
        assert measures["ecb/128/16"].runs == 3
        if backend != "soft":
            # An accelerator that is not faster than software on a whole block is broken.
            assert measures["ecb/128/80"].mean < soft["ecb/128/80"].mean, backend
    # The held call of an inline coupling never costs more than the public one, and no figure is
    # below its floor: a floor above a measurement would be a wrong model of the coupling.
    for backend in ("tight", "mem", "mmio"):
        for size in aes.HELD_BYTES:
            assert stats[backend][f"held/128/{size}"].mean <= stats[backend][f"ecb/128/{size}"].mean, backend
    modelled = 0
    for backend, measures in stats.items():
        for measure, stat in measures.items():
            bound = aes.floor(backend, measure, config.aes.arch)
            if bound is not None:
                modelled += 1
                assert bound.cycles <= stat.mean, f"{backend} {measure}: floor {bound} above {stat.mean}"
    assert modelled > 3 * 30
