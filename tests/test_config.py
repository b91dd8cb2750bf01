"""The configuration loader accepts the shipped configs and rejects inconsistent ones by name."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from couplet import paths
from couplet.model.config import ConfigError, load_config, parse_config


def default_doc() -> dict[str, Any]:
    return tomllib.loads((paths.CONFIGS_DIR / "default.toml").read_text())


def parse(doc: dict[str, Any]) -> None:
    parse_config(doc, Path("test.toml"))


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
    doc = default_doc()
    doc["peripheral"]["simctrl"]["base"] = doc["peripheral"]["clint"]["base"]
    with pytest.raises(ConfigError, match=r"'clint'.*'simctrl'.*overlap|'simctrl'.*'clint'.*overlap"):
        parse(doc)


def test_config_sram_too_small_rejected() -> None:
    doc = default_doc()
    doc["memory"]["sram"]["size"] = 0x1000
    doc["memory"]["sram"]["stack_size"] = 0x400
    with pytest.raises(ConfigError, match=r"memory.sram\].size: 0x1000 bytes is too small"):
        parse(doc)


def test_config_stack_larger_than_half_sram_rejected() -> None:
    doc = default_doc()
    doc["memory"]["sram"]["stack_size"] = doc["memory"]["sram"]["size"]
    with pytest.raises(ConfigError, match=r"stack_size.*less than half"):
        parse(doc)


def test_config_unaligned_region_rejected() -> None:
    doc = default_doc()
    doc["memory"]["sram"]["size"] = 0x30000  # not a power of two
    with pytest.raises(ConfigError, match=r"'sram' must have a power-of-two size"):
        parse(doc)


def test_config_peripheral_window_smaller_than_registers_rejected() -> None:
    doc = default_doc()
    doc["peripheral"]["clint"]["size"] = 0x1000
    with pytest.raises(ConfigError, match=r"clint\].size: 0x1000 is smaller than the clint register span"):
        parse(doc)


def test_config_boot_address_outside_sram_rejected() -> None:
    doc = default_doc()
    doc["core"]["boot_addr"] = 0x0
    with pytest.raises(ConfigError, match=r"boot_addr: 0x0 must be a 4-byte aligned address inside the SRAM"):
        parse(doc)


def test_config_mtvec_must_be_128_byte_aligned() -> None:
    doc = default_doc()
    doc["core"]["mtvec_addr"] = 0x8000_0040
    with pytest.raises(ConfigError, match=r"mtvec_addr.*128-byte aligned"):
        parse(doc)


def test_config_typo_rejected() -> None:
    doc = default_doc()
    doc["soc"]["clock_hz_typo"] = 1
    with pytest.raises(ConfigError, match=r"unknown key\(s\) clock_hz_typo"):
        parse(doc)


def test_config_wrong_type_rejected() -> None:
    doc = default_doc()
    doc["soc"]["clock_hz"] = "fast"
    with pytest.raises(ConfigError, match=r"clock_hz: expected int"):
        parse(doc)


def test_config_missing_table_rejected() -> None:
    doc = default_doc()
    del doc["peripheral"]["clint"]
    with pytest.raises(ConfigError, match=r"missing table \[peripheral.clint\]"):
        parse(doc)


def test_config_divider_must_divide_clock() -> None:
    doc = default_doc()
    doc["soc"]["mtime_divider"] = 7
    with pytest.raises(ConfigError, match=r"mtime_divider: must be >= 1 and divide clock_hz"):
        parse(doc)


def test_config_invalid_toml_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[soc\nname = 1\n")
    with pytest.raises(ConfigError, match=r"not valid TOML"):
        load_config(bad)


def test_config_sram_too_large_rejected() -> None:
    doc = default_doc()
    doc["memory"]["sram"]["base"] = 0x8000_0000
    doc["memory"]["sram"]["size"] = 0x4000_0000  # 1 GiB
    with pytest.raises(ConfigError, match=r"more than the 16 MiB"):
        parse(doc)
