"""Authenticated encryption in the SoC: AES-CCM, CCM*, AES-GCM and AES-CMAC (couplet/aes_aead.h) on
every AES backend of the default configuration and of the encrypt-only AES-128 engine, against the
NIST CAVP sample, pycryptodome's CCM* frames and the software backend (sw/apps/test_aead, whose
vectors testsupport/cavp_aead.py writes)."""

from __future__ import annotations

import re
from collections.abc import Callable

from app_summary import backend_counts
from couplet.model.config import AES_BACKENDS, AesConfig, SocConfig, load_config
from couplet.tools import firmware, simulator
from couplet.tools.simulator import SimResult
from testsupport import cavp_aead
from testsupport.cavp import KEY_BITS

RunApp = Callable[..., SimResult]

# The backends that drive the accelerator's engine, which refuses the key sizes it was built
# without (as in tests/test_aes_firmware.py); soft and zkn take every key.
ENGINE_BACKENDS = ("tight", "mem", "mmio", "mmio_irq", "dma")

SUMMARY = r"cavp (\d+)/(\d+) ccm_star (\d+)/(\d+) stream (\d+)/(\d+) errors ok refused (\d+)"


def test_aead_vectors_file_is_up_to_date() -> None:
    cavp_aead.assert_up_to_date()


def test_aead_firmware_sample_covers_every_file_key_size_and_outcome() -> None:
    sample = cavp_aead.firmware_sample()
    for bits in KEY_BITS:
        keyed = [v for v in sample if len(v.key) * 8 == bits]
        ccm = [v for v in keyed if v.kind == "CCM"]
        for name in cavp_aead.CCM_FILES:
            assert any(v.source.startswith(f"{name}{bits}.rsp#") for v in ccm), (name, bits)
        # A refused tag must zero a whole output: a failing record with a message.
        assert any(v.decrypt and not v.passes and v.ciphertext for v in ccm), bits
        gcm = [v for v in keyed if v.kind == "GCM"]
        encrypt, decrypt = [v for v in gcm if not v.decrypt], [v for v in gcm if v.decrypt]
        assert {len(v.nonce) for v in encrypt} >= {1, 12, 128} and min(len(v.tag) for v in encrypt) == 4
        assert any(v.passes and len(v.nonce) != 12 for v in decrypt)
        assert any(not v.passes and len(v.nonce) != 12 for v in decrypt)
        assert any(not v.passes and len(v.nonce) == 12 for v in decrypt)
        assert sum(v.kind == "CMAC" for v in keyed) == 4  # every SP 800-38B example
    # Messages of 0 to about 100 bytes keep the simulation short.
    assert max(v.length for v in sample) <= 100
    star = cavp_aead.ccm_star_sample()
    assert [v.level for v in star] == list(range(1, 8))
    level7 = star[-1]
    assert len(level7.header) + len(level7.payload) + len(level7.mic) + cavp_aead.FCS_BYTES == 127


def refusals(aes: AesConfig, backend: str) -> int:
    """How many set_key calls of sw/apps/test_aead `backend` refuses in a SoC with `aes`, counted
    from the configuration (the app asks the C API, couplet_aes_backend_supports): one per CAVP
    record, CCM* level and streamed message whose key size the engine lacks."""
    if backend not in ENGINE_BACKENDS:
        return 0
    keys = [len(v.key) for v in cavp_aead.firmware_sample()]
    keys += [len(v.key) for v in cavp_aead.ccm_star_sample()]
    keys += [cavp_aead.stream_key_bytes(r) for r in range(cavp_aead.STREAM_MESSAGES)]
    return sum(key_bytes * 8 not in aes.key_sizes for key_bytes in keys)


def check_every_backend_passes(result: SimResult, config: SocConfig) -> None:
    assert config.aes is not None
    records = len(cavp_aead.firmware_sample())
    levels = len(cavp_aead.ccm_star_sample())
    summaries = backend_counts(result, config.aes.backends, SUMMARY)
    for backend, (cavp_passed, cavp_run, star_passed, star_run, stream_passed, stream_run, refused) in summaries.items():
        assert cavp_passed == cavp_run == records, backend
        assert star_passed == star_run == levels, backend
        assert stream_passed == stream_run == cavp_aead.STREAM_MESSAGES, backend
        assert refused == refusals(config.aes, backend), backend
    for backend in set(AES_BACKENDS) - set(config.aes.backends):
        assert re.search(rf"^backend {backend}\s+absent in this SoC$", result.console or "", flags=re.M), backend


def test_aead_every_backend_in_the_soc(run_app: RunApp) -> None:
    result = run_app("test_aead", max_cycles=40_000_000)
    config = load_config("default")
    check_every_backend_passes(result, config)
    # With a GHASH multiplier the engine backends run GCM in the engine's GCM and GHASH modes (and
    # CCM, CMAC in its CBC_MAC mode); aes128_enc has none, and their GHASH runs in C.
    assert config.aes is not None and config.aes.ghash_bits > 0


def test_aead_encrypt_only_128_engine_in_the_soc() -> None:
    """The smallest engine (configs/aes128_enc.toml, no GHASH multiplier): CCM, CCM*, GCM and
    CMAC need only the forward cipher, so every backend that drives it does everything with
    128-bit keys, and refuses the 192- and 256-bit keys at set_key with
    COUPLET_ERR_UNSUPPORTED_KEY_SIZE; the software backend still does everything."""
    config = load_config("aes128_enc")
    assert config.aes is not None and not config.aes.decrypt and config.aes.key_sizes == (128,)
    elf = firmware.build_app(config, "test_aead")
    result = simulator.simulate(config, elf, max_cycles=40_000_000, capture=True)
    check_every_backend_passes(result, config)
    assert refusals(config.aes, "mmio") > 0 and refusals(config.aes, "soft") == 0
