"""The register slice in the SoC (docs/coupling.md, "Register slice"): the default SoC with
`register_slice = true` on all three accelerators, so that every coupling of every tile goes
through couplet_accel_cmd_slice, lints clean and passes the accelerators' self-checking apps on
every backend, as the default SoC does (the same checks as test_aes_firmware, test_sha3_firmware
and test_rtos_soc). The slice's own timing and the paths it cuts are hw/ip/accel/test's."""

from __future__ import annotations

import pytest

from config_doc import edited, parse
from couplet.flows import lint
from couplet.gen.generate import tiles
from couplet.model.config import SocConfig
from couplet.tools import firmware, simulator
from couplet.tools.simulator import SimResult
from test_aes_firmware import check_every_backend_passes as check_aes
from test_rtos_soc import check_every_coupling_passes as check_rtos
from test_sha3_firmware import check_every_backend_passes as check_sha3


@pytest.fixture(scope="module")
def sliced() -> SocConfig:
    config = parse(edited({"soc.name": "default_sliced", "accelerator.aes.register_slice": True,
                           "accelerator.keccak.register_slice": True, "accelerator.rtos.register_slice": True}))
    assert [t.name for t in tiles(config) if t.slice] == ["aes", "keccak", "rtos"]
    return config


def run(config: SocConfig, app: str, defines: dict[str, str] | None = None) -> SimResult:
    elf = firmware.build_app(config, app, defines=defines or {})
    return simulator.simulate(config, elf, max_cycles=60_000_000, capture=True)


def test_sliced_soc_lints_clean(sliced: SocConfig) -> None:
    assert lint.lint(sliced, fpga=True) == 0


def test_sliced_soc_aes_every_backend(sliced: SocConfig) -> None:
    # A third of the random messages: the engine and the C paths are the default SoC's.
    check_aes(run(sliced, "test_aes", {"RANDOM_MESSAGES": "8"}), sliced, 8)


def test_sliced_soc_sha3_every_backend(sliced: SocConfig) -> None:
    check_sha3(run(sliced, "test_sha3"), sliced)


def test_sliced_soc_rtos_every_coupling(sliced: SocConfig) -> None:
    check_rtos(run(sliced, "test_rtos_hw"), sliced)
