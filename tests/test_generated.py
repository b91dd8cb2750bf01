"""Generated files: committed ones are up to date, per-config ones carry the config's values."""

from __future__ import annotations

import re
from pathlib import Path

from couplet import paths
from couplet.gen.generate import committed_outputs, write_config_outputs
from couplet.model.config import SocConfig


def test_generated_committed_files_are_up_to_date(config: SocConfig) -> None:
    stale = [
        str(path.relative_to(paths.ROOT))
        for path, text in committed_outputs(config).items()
        if not path.exists() or path.read_text() != text
    ]
    assert not stale, f"run `couplet gen` and commit: {stale}"


def test_generated_c_header_matches_config(config: SocConfig, tmp_path: Path) -> None:
    outputs = write_config_outputs(config, tmp_path)
    header = outputs["c_header"].read_text()
    defines = dict(re.findall(r"#define (COUPLET_\w+) (0x[0-9A-F]+|\d+)u", header))
    assert int(defines["COUPLET_SRAM_BASE"], 16) == config.sram.base
    assert int(defines["COUPLET_SRAM_SIZE"], 16) == config.sram.size
    for region in config.peripherals:
        assert int(defines[f"COUPLET_{region.name.upper()}_BASE"], 16) == region.base
    assert int(defines["COUPLET_CLOCK_HZ"]) == config.clock_hz


def test_generated_sv_package_matches_config(config: SocConfig, tmp_path: Path) -> None:
    package = write_config_outputs(config, tmp_path)["sv_pkg"].read_text()
    values = dict(re.findall(r"localparam \S+ (?:\[31:0\] )?(\w+)\s*= (?:32'h)?([0-9A-F]+);", package))
    assert int(values["SramBase"], 16) == config.sram.base
    assert int(values["BootAddr"], 16) == config.boot_addr
    # The decoder's arrays list the highest port first; port order is the config's region order.
    bases = re.search(r"DataBase = \{(.*)\};", package)
    sizes = re.search(r"DataSize = \{(.*)\};", package)
    assert bases and sizes
    parsed_bases = [int(v.split("'h")[1], 16) for v in reversed(bases[1].split(", "))]
    parsed_sizes = [int(v.split("'h")[1], 16) for v in reversed(sizes[1].split(", "))]
    assert parsed_bases == [r.base for r in config.regions]
    assert parsed_sizes == [r.size for r in config.regions]


def test_generated_linker_script_places_sram(config: SocConfig, tmp_path: Path) -> None:
    script = write_config_outputs(config, tmp_path)["linker"].read_text()
    assert f"ORIGIN = 0x{config.sram.base:08X}, LENGTH = 0x{config.sram.size:08X}" in script
    assert f"__stack_size = 0x{config.stack_size:08X};" in script


def test_generated_memory_map_lists_every_region(config: SocConfig) -> None:
    page = (paths.DOCS_DIR / "memory-map.md").read_text()
    for region in config.regions:
        assert f"| {region.name} | `0x{region.base:08X}`" in page
