"""The [accelerator.*] tables: what each coupling brings, the rules a config must keep, and the
generated wiring of the accelerator tiles (couplet_soc_cfg_pkg) that the SoC top relies on."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from config_doc import DELETE, assert_rejected, default_doc, edited, parse
from couplet.gen.generate import (KECCAK_ISE_MASK, ZKN_MASK, ZKN_MATCH, accel_irqs, c_config_header,
                                  sv_config_package, tiles, xif_ports)
from couplet.model.config import CUSTOM_OPCODES, KECCAK_ISE_CUSTOM, SocConfig, load_config


def test_default_has_every_coupling_of_both_accelerators() -> None:
    config = load_config("default")
    assert config.aes and config.keccak
    assert config.aes.backends == ("soft", "tight", "mem", "mmio", "mmio_irq", "dma", "zkn")
    assert config.keccak.backends == ("soft", "ise", "tight", "mem", "mmio", "dma")
    assert config.peripheral("keccak_dma").description.startswith("Keccak tile's DMA engine")


@pytest.mark.parametrize(
    ("couplings", "backends", "windows"),
    [
        (["ise"], ("soft", "ise"), set()),
        (["mem"], ("soft", "tight", "mem"), set()),
        (["dma"], ("soft", "mmio", "dma"), {"keccak", "keccak_dma"}),
        (["mmio"], ("soft", "mmio"), {"keccak"}),
    ],
)
def test_keccak_coupling_brings_its_backends_and_windows(couplings: list[str], backends: tuple[str, ...],
                                                         windows: set[str]) -> None:
    doc = default_doc()
    doc["accelerator"]["keccak"]["couplings"] = couplings
    doc["accelerator"]["keccak"]["default_backend"] = "soft"
    for window in {"keccak", "keccak_dma"} - windows:
        del doc["peripheral"][window]
    config = parse(doc)
    assert config.keccak and config.keccak.backends == backends
    assert {r.name for r in config.peripherals} & {"keccak", "keccak_dma"} == windows


def test_keccak_window_without_a_coupling_that_uses_it_is_rejected() -> None:
    assert_rejected(edited({"accelerator.keccak.couplings": ["tight"], "accelerator.keccak.default_backend": "tight"}),
                    r"\[peripheral.keccak\] is given but no coupling")


def test_keccak_missing_window_is_named() -> None:
    assert_rejected(edited({"peripheral.keccak_dma": DELETE}), r"missing table \[peripheral.keccak_dma\]")


@pytest.mark.parametrize("rounds", [0, 5, 7, 25, 48])
def test_keccak_rounds_per_cycle_must_divide_24(rounds: int) -> None:
    # The file, the key, the legal values (the divisors of 24) and the description they come from.
    assert_rejected(edited({"accelerator.keccak.rounds_per_cycle": rounds}),
                    rf"\.toml\[accelerator\.keccak\]\.rounds_per_cycle: {rounds} is not one "
                    r"of 1, 2, 3, 4, 6, 8, 12, 24 \(hw/ip/keccak/data/keccak\.toml\)")


def test_keccak_default_backend_must_be_available() -> None:
    assert_rejected(edited({"accelerator.keccak.couplings": ["ise"], "peripheral.keccak": DELETE,
                            "peripheral.keccak_dma": DELETE}),
                    r"default_backend: 'mem' is not available.*available: soft, ise")


def test_keccak_unknown_coupling_and_typo_rejected() -> None:
    assert_rejected(edited({"accelerator.keccak.couplings": ["tight", "rocc"]}),
                    r"'rocc' is not one of ise, tight, mem, mmio, dma")
    assert_rejected(edited({"accelerator.keccak.round_per_cycle": 1}), r"unknown key\(s\) round_per_cycle")


@pytest.mark.parametrize(
    ("aes_custom", "keccak_custom", "message"),
    [
        (2, 2, r"keccak.custom_opcode and aes.custom_opcode both use custom-2"),
        (1, 2, r"keccak ise coupling \(fixed\) and aes.custom_opcode both use custom-1"),
        (0, 1, r"keccak ise coupling \(fixed\) and keccak.custom_opcode both use custom-1"),
    ],
)
def test_custom_opcodes_are_not_shared(aes_custom: int, keccak_custom: int, message: str) -> None:
    assert_rejected(edited({"accelerator.aes.custom_opcode": aes_custom,
                            "accelerator.keccak.custom_opcode": keccak_custom}), message)


def test_aes_rules() -> None:
    assert_rejected(edited({"accelerator.aes.arch": "bitsliced"}),
                    r"arch: 'bitsliced' is not one of rolled, partial, unrolled")
    assert_rejected(edited({"accelerator.aes.couplings": ["zkn", "zkn"]}), r"list each coupling once")
    assert_rejected(edited({"accelerator.aes.custom_opcode": 4}), r"custom_opcode: must be 0..3")


def test_aes_options_default_to_the_full_engine_and_reach_rtl_and_software() -> None:
    """decrypt, key_sizes, ghash_bits and stream_handover may be left out (the full engine without
    GHASH, handing over); set, they are AesConfig's, the tile's typed AccelCfg.aes and the C
    header's COUPLET_AES_ENGINE_*."""
    doc = default_doc()
    assert doc["accelerator"]["aes"].pop("ghash_bits") == 8, "the default SoC has the GHASH multiplier"
    assert not {"decrypt", "key_sizes", "ghash_bits", "stream_handover"} & set(doc["accelerator"]["aes"])
    full = parse(doc)
    assert full.aes and full.aes.decrypt and full.aes.key_sizes == (128, 192, 256) and full.aes.ghash_bits == 0
    assert full.aes.stream_handover
    assert ("aes: '{arch: aes_reg_pkg::AesArchRolled, decrypt: 1'd1, key_sizes: 3'b111, ghash_bits: 6'd0, "
            "stream_handover: 1'd1}" in sv_config_package(full))
    header = c_config_header(full)
    assert "#define COUPLET_AES_ENGINE_DECRYPT 1\n" in header and "#define COUPLET_AES_ENGINE_KEY_SIZES 0x7u\n" in header
    assert "#define COUPLET_AES_ENGINE_GHASH_BITS 0\n" in header
    with_ghash = parse(edited({"accelerator.aes.ghash_bits": 8}))
    assert with_ghash.aes and with_ghash.aes.ghash_bits == 8
    assert "ghash_bits: 6'd8, " in sv_config_package(with_ghash)
    assert "#define COUPLET_AES_ENGINE_GHASH_BITS 8\n" in c_config_header(with_ghash)
    assert_rejected(edited({"accelerator.aes.ghash_bits": 3}), r"ghash_bits")
    small = load_config("aes128_enc")
    assert small.aes and not small.aes.decrypt and small.aes.key_sizes == (128,) and small.aes.arch == "rolled"
    assert ("aes: '{arch: aes_reg_pkg::AesArchRolled, decrypt: 1'd0, key_sizes: 3'b001, ghash_bits: 6'd0, "
            "stream_handover: 1'd0}" in sv_config_package(small))
    assert_rejected(edited({"accelerator.aes.stream_handover": 1}), r"stream_handover")
    header = c_config_header(small)
    assert "#define COUPLET_AES_ENGINE_DECRYPT 0\n" in header and "#define COUPLET_AES_ENGINE_KEY_SIZES 0x1u\n" in header
    two = parse(edited({"accelerator.aes.key_sizes": [128, 256]}))
    assert two.aes and two.aes.key_sizes == (128, 256)
    assert "key_sizes: 3'b101, " in sv_config_package(two)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("decrypt", "no", r"\[accelerator\.aes\]\.decrypt: expected bool, got 'no'"),
        ("decrypt", 0, r"\.decrypt: expected bool, got 0"),
        ("key_sizes", [], r"\.key_sizes: expected a non-empty list, got \[\]"),
        ("key_sizes", 128, r"\.key_sizes: expected a non-empty list, got 128"),
        ("key_sizes", [512], r"\.key_sizes: 512 is not one of 128, 192, 256 \(hw/ip/aes/data/aes\.toml\)"),
        ("key_sizes", ["128"], r"\.key_sizes: '128' is not one of 128, 192, 256"),
        ("key_sizes", [True], r"\.key_sizes: True is not one of"),
        ("key_sizes", [256, 128], r"\.key_sizes: \[256, 128\] is not a non-empty subset of 128, 192, 256, in that order"),
        ("key_sizes", [128, 128], r"\.key_sizes: \[128, 128\] is not a non-empty subset .* with each once"),
    ],
)
def test_aes_option_rules(key: str, value: Any, message: str) -> None:
    assert_rejected(edited({f"accelerator.aes.{key}": value}), message)


def _sv_arrays(package: str) -> dict[str, list[int]]:
    """Packed-array parameters of the generated package, index 0 first."""
    arrays: dict[str, list[int]] = {}
    for name, body in re.findall(r"localparam logic \[\w+-1:0\]\[\d+:0\] (\w+) = \{([^}]*)\};", package):
        arrays[name] = [int(v.split("'h")[1], 16) for v in reversed(body.split(", "))]
    for name, bits in re.findall(r"localparam logic \[TileArrayLen-1:0\] (\w+) = \d+'b([01]+);", package):
        arrays[name] = [int(b) for b in reversed(bits)]
    return arrays


def _variants() -> list[SocConfig]:
    default = default_doc()
    keccak_only = copy.deepcopy(default)
    del keccak_only["accelerator"]["aes"]
    del keccak_only["peripheral"]["aes"], keccak_only["peripheral"]["dma"]
    mem_only = copy.deepcopy(default)
    mem_only["accelerator"]["keccak"].update(couplings=["mem"], default_backend="mem")
    del mem_only["peripheral"]["keccak"], mem_only["peripheral"]["keccak_dma"]
    rtos_tight_only = copy.deepcopy(default)
    rtos_tight_only["accelerator"]["rtos"]["couplings"] = ["tight"]
    del rtos_tight_only["peripheral"]["rtos"]
    return [parse(default), parse(keccak_only), parse(mem_only), parse(rtos_tight_only), load_config("small")]


@pytest.mark.parametrize("config", _variants(),
                         ids=["default", "keccak_only", "keccak_mem_only", "rtos_tight_only", "small"])
def test_generated_tile_wiring_points_at_the_right_ports(config: SocConfig) -> None:
    """Every index in the tile arrays names the port, slave, line and master of its tile."""
    package = sv_config_package(config)
    arrays = _sv_arrays(package)
    tile_list = tiles(config)
    assert f"localparam int unsigned NumTiles = {len(tile_list)};" in package
    assert f"localparam int unsigned NumDmaEngines = {sum(t.dma_engine for t in tile_list)};" in package
    regions = [r.base for r in config.regions]
    ports = xif_ports(config)
    irqs = accel_irqs(config)
    masters: list[int] = []
    for t, tile in enumerate(tile_list):
        if tile.xif:
            mask, match = arrays["XifMask"][arrays["TileXifIdx"][t]], arrays["XifMatch"][arrays["TileXifIdx"][t]]
            # An instruction unit claims its ISA encodings; an engine its accelerator's custom-N.
            units = {"zkn": (ZKN_MASK, ZKN_MATCH), "keccak_ise": (KECCAK_ISE_MASK, CUSTOM_OPCODES[KECCAK_ISE_CUSTOM])}
            expected = units.get(tile.name) or (0x7F, CUSTOM_OPCODES[getattr(config, tile.name).custom])
            assert (mask, match) == expected
            assert ports[arrays["TileXifIdx"][t]][0] == tile.name
        if tile.regs:
            assert arrays["DataBase"][arrays["TileRegsIdx"][t]] == config.peripheral(tile.name).base
            assert irqs[arrays["TileIrqIdx"][t]] == tile.name
        if tile.dma_regs:
            assert arrays["DataBase"][arrays["TileDmaRegsIdx"][t]] == config.peripheral(tile.dma_name).base
        if tile.dma_engine:
            assert irqs[arrays["TileDmaIrqIdx"][t]] == tile.dma_name
            masters.append(arrays["TileMasterIdx"][t])
    assert sorted(masters) == list(range(1, 1 + len(masters))), "masters 1..N, one per engine"
    assert len(arrays["DataBase"]) == len(regions) and arrays["DataBase"] == regions
    # The C header numbers the same lines.
    header = c_config_header(config)
    for index, name in enumerate(irqs):
        assert f"#define COUPLET_IRQ_{name.upper()} {16 + index}u" in header


def test_keccak_c_header_tells_the_sha3_library_its_backends() -> None:
    header = c_config_header(load_config("default"))
    for backend in ("ISE", "TIGHT", "MEM", "MMIO", "DMA"):
        assert f"#define COUPLET_SHA3_HAS_{backend} 1" in header
    assert "#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_MEM" in header
    assert "#define COUPLET_KECCAK_CUSTOM_OPCODE 0x5b" in header
    assert "#define COUPLET_KECCAK_ISE_OPCODE 0x2b" in header
    small = c_config_header(load_config("small"))
    assert "#define COUPLET_SHA3_HAS_MEM 0" in small and "COUPLET_SHA3_DEFAULT_BACKEND" not in small


def test_rtos_parameters_reach_the_tile_typed_and_software_as_its_config_word() -> None:
    config = load_config("default")
    rtos = config.rtos
    assert rtos and rtos.backends == ("soft", "tight", "mmio")
    # The SoC package hands the tiles every parameter under its configuration name, typed.
    package = sv_config_package(config)
    assert (f"rtos: '{{max_threads: 5'd{rtos.max_threads}, priorities: 5'd{rtos.priorities}, "
            f"priority_order: rtos_reg_pkg::RtosPriorityOrderAscending, mutexes: 4'd{rtos.mutexes}, "
            f"semaphores: 4'd{rtos.semaphores}, queues: 4'd{rtos.queues}, message_words: 5'd{rtos.message_words}, "
            f"queue_depth: 4'd{rtos.queue_depth}, priority_inheritance: 1'd1}}") in package
    word = rtos.param_word
    # Field by field, as the CONFIG register of hw/ip/rtos/data/rtos.toml lays them out.
    assert (word & 0x1F, word >> 5 & 0x1F, word >> 10 & 1, word >> 11 & 1) == (
        rtos.max_threads, rtos.priorities, int(rtos.ascending), int(rtos.priority_inheritance))
    assert (word >> 12 & 0xF, word >> 16 & 0xF, word >> 20 & 0xF) == (rtos.mutexes, rtos.semaphores, rtos.queues)
    assert (word >> 24 & 0x1F, (word >> 29) + 1) == (rtos.message_words, rtos.queue_depth)
    rtos_tile = [t for t in tiles(config) if t.name == "rtos"]
    assert len(rtos_tile) == 1 and rtos_tile[0].kind == "AccelKindRtos"
    assert rtos_tile[0].dma_engine and not rtos_tile[0].dma_regs
    header = c_config_header(config)
    assert f"#define COUPLET_RTOS_CONFIG_WORD 0x{word:08x}u" in header
    assert "#define COUPLET_RTOS_CUSTOM_OPCODE 0x7b" in header
    assert "#define COUPLET_RTOS_DEFAULT_BACKEND COUPLET_RTOS_BACKEND_TIGHT" in header
    assert "#define COUPLET_RTOS_PRESENT 0" in c_config_header(load_config("small"))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("max_threads", 17, r"max_threads: 17 is outside 2..16"),
        ("priorities", 1, r"priorities: 1 is outside 2..16"),
        ("mutexes", 0, r"mutexes: 0 is outside 1..8"),
        ("message_words", 32, r"message_words: 32 is outside 1..16"),
        ("queue_depth", 9, r"queue_depth: 9 is outside 1..8"),
        ("priority_order", "sideways", r"priority_order: 'sideways' is not one of ascending, descending"),
        ("priority_inheritance", 1, r"priority_inheritance: expected bool"),
        ("couplings", ["dma"], r"couplings: 'dma' is not one of tight, mmio"),
        ("default_backend", "mem", r"default_backend: 'mem' is not available"),
        ("custom_opcode", 0, r"aes.custom_opcode and rtos.custom_opcode both use custom-0|"
                             r"rtos.custom_opcode and aes.custom_opcode both use custom-0"),
    ],
)
def test_rtos_rules(key: str, value: Any, message: str) -> None:
    assert_rejected(edited({f"accelerator.rtos.{key}": value}), message)


def test_rtos_mmio_window_follows_its_coupling() -> None:
    assert_rejected(edited({"accelerator.rtos.couplings": ["tight"]}), r"\[peripheral.rtos\] is given but no coupling")
    assert_rejected(edited({"peripheral.rtos": DELETE}), r"missing table \[peripheral.rtos\]")


def test_register_slice_reaches_only_the_tiles_that_ask_for_it() -> None:
    # Off unless asked; per accelerator, so that one tile can trade two cycles per command for
    # its clock while the others keep theirs.
    assert not any(t.slice for t in tiles(load_config("default")))
    config = parse(edited({"accelerator.aes.register_slice": True, "accelerator.rtos.register_slice": True}))
    assert config.aes.register_slice and config.rtos.register_slice and not config.keccak.register_slice
    by_name = {t.name: t.slice for t in tiles(config)}
    assert by_name == {"aes": True, "keccak": False, "rtos": True, "zkn": False, "keccak_ise": False}
    arrays = _sv_arrays(sv_config_package(config))
    assert arrays["TileSlice"] == [int(t.slice) for t in tiles(config)]


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ({"accelerator.aes.register_slice": 1}, r"aes\]\.register_slice: expected true or false, got 1"),
        ({"accelerator.rtos.register_slice": "yes"}, r"rtos\]\.register_slice: expected true or false, got 'yes'"),
    ],
)
def test_register_slice_rules(edits: dict[str, Any], message: str) -> None:
    assert_rejected(edited(edits), message)
