"""The configuration loader accepts the shipped configs and rejects inconsistent ones by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from config_doc import DELETE, assert_rejected, default_doc, edited
from couplet import paths
from couplet.model.config import ConfigError, load_config


def test_config_default_loads() -> None:
    config = load_config("default")
    assert config.name == "default"
    assert config.sram.base == 0x8000_0000 and config.sram.size == 256 * 1024
    assert config.peripheral("clint").base == 0x0200_0000
    assert config.mtime_hz == config.clock_hz // config.mtime_divider


def test_config_every_shipped_config_loads() -> None:
    shipped = sorted(paths.CONFIGS_DIR.glob("*.toml"))
    assert shipped, "configs/ holds no configuration"
    for path in shipped:
        assert load_config(path).path == path.resolve()


def test_config_unknown_name_lists_known() -> None:
    with pytest.raises(ConfigError, match=r"no configuration 'nope'.*known: .*default"):
        load_config("nope")


def test_config_overlap_rejected() -> None:
    clint_base = default_doc()["peripheral"]["clint"]["base"]
    assert_rejected(edited({"peripheral.simctrl.base": clint_base}),
                    r"'clint'.*'simctrl'.*overlap|'simctrl'.*'clint'.*overlap")


def test_config_stack_larger_than_half_sram_rejected() -> None:
    sram_size = default_doc()["memory"]["sram"]["size"]
    assert_rejected(edited({"memory.sram.stack_size": sram_size}), r"stack_size.*less than half")


# Edits of the default configuration that break one rule each, and the error that names it.
REJECTED: dict[str, tuple[dict[str, object], str]] = {
    "sram_too_small": ({"memory.sram.size": 0x1000, "memory.sram.stack_size": 0x400},
                       r"memory.sram\].size: 0x1000 bytes is too small"),
    "sram_too_large": ({"memory.sram.base": 0x8000_0000, "memory.sram.size": 0x4000_0000},  # 1 GiB
                       r"more than the 16 MiB"),
    "unaligned_region": ({"memory.sram.size": 0x30000}, r"'sram' must have a power-of-two size"),  # not 2^n
    "peripheral_window_smaller_than_registers": (
        {"peripheral.clint.size": 0x1000}, r"clint\].size: 0x1000 is smaller than the clint register span"),
    "boot_address_outside_sram": (
        {"core.boot_addr": 0x0}, r"boot_addr: 0x0 must be a 4-byte aligned address inside the SRAM"),
    "mtvec_not_128_byte_aligned": ({"core.mtvec_addr": 0x8000_0040}, r"mtvec_addr.*128-byte aligned"),
    "typo": ({"soc.clock_hz_typo": 1}, r"unknown key\(s\) clock_hz_typo"),
    "wrong_type": ({"soc.clock_hz": "fast"}, r"clock_hz: expected int"),
    "missing_table": ({"peripheral.clint": DELETE}, r"missing table \[peripheral.clint\]"),
    "divider_not_dividing_clock": ({"soc.mtime_divider": 7}, r"mtime_divider: must be >= 1 and divide clock_hz"),
}


@pytest.mark.parametrize(("edits", "message"), list(REJECTED.values()), ids=list(REJECTED))
def test_config_rejected(edits: dict[str, object], message: str) -> None:
    assert_rejected(edited(edits), message)


def test_config_invalid_toml_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[soc\nname = 1\n")
    with pytest.raises(ConfigError, match=r"not valid TOML"):
        load_config(bad)
