"""The board flow's parts, each against an independent reference (not a whole board build).

- The SRAM image of a real app equals what binutils' objcopy makes of the same ELF (Intel hex,
  which carries its own addresses), word by word over the whole SRAM; bad ELFs give clear errors.
- A small design on the ULX3S's real pins and constraints (the generated PLL, the UART
  transmitter, the LEDs) goes through synthesis, nextpnr and ecppack; ecpunpack reads the
  bitstream back: packed again, its reading gives the very same bytes, every configuration word
  it reads is one nextpnr placed, every LUT nextpnr initialised is there, and the PLL holds the
  dividers ecppll chose.
- The report of that run agrees with nextpnr's own report; a clock the design cannot make is an
  error exit that names the Fmax, with the report written and no bitstream.

The whole SoC takes tens of minutes: that is `couplet fpga --board ulx3s`, not a test.
"""

from __future__ import annotations

import dataclasses
import json
import re
import struct
import subprocess
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import run_couplet

from couplet import paths
from couplet.errors import BuildError, CoupletError
from couplet.flows import fpga
from couplet.model import rtl
from couplet.model.config import SocConfig, load_config
from couplet.tools import boards, elf_image, firmware, simulator, yowasp
from couplet.tools.nextpnr import PnrResult, place_and_route
from couplet.tools.yosys import Design

ULX3S = boards.BOARDS["ulx3s"]
WORK = paths.BUILD_DIR / "test_board"
PROBE_MHZ = 50.0

BOARD_TOP = ULX3S.rtl[-1]


def board_ports() -> str:
    """The port list of the board's top, as its file writes it."""
    match = re.search(r"^module couplet_ulx3s #\(.*?^\) \(\n(.*?)\n\);", BOARD_TOP.read_text(), re.S | re.M)
    assert match, f"no port list in {BOARD_TOP}"
    return match.group(1)


# A design with the board top's ports (so every LOCATE and IOBUF of ulx3s.lpf applies): the
# generated PLL clocks the UART transmitter, which sends a counting byte on the FTDI line.
PROBE_TOP = "\nmodule couplet_ulx3s_probe (\n" + board_ports() + "\n);\n" + """  logic clk, locked, rst_n, ready;
  logic [7:0] data_q;
  couplet_ulx3s_pll u_pll (.clkin(clk_25mhz), .clkout0(clk), .locked(locked));
  assign rst_n = locked && btn_pwr_n;
  couplet_uart_tx #(.ClkHz(50_000_000)) u_tx (
    .clk_i(clk), .rst_ni(rst_n), .valid_i(1'b1), .ready_o(ready), .data_i(data_q), .tx_o(ftdi_rxd));
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) data_q <= 8'h41;
    else if (ready) data_q <= data_q + {7'b0, ftdi_txd};
  end
  assign led = data_q;
  assign wifi_gpio0 = 1'b1;
endmodule
"""


# ---------------------------------------------------------------------------- ELF -> SRAM image

def ihex_image(elf: Path, base: int, size: int) -> bytes:
    """The SRAM's bytes from `objcopy -O ihex` of the ELF: binutils' reading of its segments."""
    hex_path = WORK / f"{elf.stem}.ihex"
    hex_path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([paths.cross_tool("objcopy"), "-O", "ihex", str(elf), str(hex_path)], check=True)
    image = bytearray(size)
    upper = 0
    for line in hex_path.read_text().split():
        record = bytes.fromhex(line[1:])
        count, offset, kind, data = record[0], int.from_bytes(record[1:3], "big"), record[3], record[4:-1]
        assert len(data) == count and sum(record) % 256 == 0, line
        if kind == 0:
            address = upper + offset
            assert base <= address and address + count <= base + size, hex(address)
            image[address - base:address - base + count] = data
        elif kind == 4:
            upper = int.from_bytes(data, "big") << 16
    return bytes(image)


def test_board_elf_image_matches_objcopy(config: SocConfig, build_app: Callable[[str], Path]) -> None:
    elf = build_app("demo")
    base, size = config.sram.base, config.sram.size
    words = elf_image.sram_image(elf, base, size, config.boot_addr)
    expected = struct.unpack(f"<{size // 4}I", ihex_image(elf, base, size))
    assert len(words) == size // 4
    mismatches = [i for i, (a, b) in enumerate(zip(words, expected)) if a != b]
    assert not mismatches, f"{len(mismatches)} words differ, first at byte offset {4 * mismatches[0]:#x}"
    assert sum(1 for w in words if w) > 1000  # the demo's code and data, not an empty image
    # The file the SRAM reads with $readmemh: one word per line, every word of the SRAM.
    hex_file = WORK / "demo_sram.hex"
    hex_file.unlink(missing_ok=True)
    assert elf_image.write_readmemh(words, hex_file)
    assert [int(line, 16) for line in hex_file.read_text().split("\n")[:-1]] == list(expected)
    assert not elf_image.write_readmemh(words, hex_file)  # unchanged: not rewritten


def test_board_elf_image_refuses_bad_input(config: SocConfig, build_app: Callable[[str], Path]) -> None:
    elf = build_app("test_exit_code")
    base, size = config.sram.base, config.sram.size
    blob = elf.read_bytes()
    WORK.mkdir(parents=True, exist_ok=True)

    def variant(name: str, data: bytes) -> Path:
        path = WORK / name
        path.write_bytes(data)
        return path

    cases = [
        (variant("text.elf", b"not an ELF at all\n" * 4), "not an ELF file"),
        (variant("elf64.elf", blob[:4] + b"\x02" + blob[5:]), r"not a 32-bit ELF"),
        (variant("arm.elf", blob[:18] + struct.pack("<H", 40) + blob[20:]), r"not a RISC-V ELF \(e_machine 40\)"),
        (variant("object.elf", blob[:16] + struct.pack("<H", 1) + blob[18:]), r"not an executable"),
    ]
    for path, message in cases:
        with pytest.raises(BuildError, match=message):
            elf_image.sram_image(path, base, size, config.boot_addr)
    with pytest.raises(BuildError, match=r"segment \[0x80000000, 0x[0-9a-f]+\) does not fit the SRAM "
                                         r"\[0x20000000, 0x20010000\)"):
        elf_image.sram_image(elf, 0x2000_0000, 0x1_0000)
    with pytest.raises(BuildError, match=r"larger than the whole SRAM \(256 bytes\)"):
        elf_image.sram_image(elf, base, 256)
    with pytest.raises(BuildError, match=r"entry point 0x80000000 is not the boot address 0x80000100"):
        elf_image.sram_image(elf, base, size, base + 0x100)


def test_board_config_runs_its_app_in_simulation() -> None:
    """The bitstream's program, on the bitstream's SoC: the board configuration (all three
    accelerators, each in the couplings the board carries, 15 MHz, mtime in microseconds) runs the
    demo to its end in simulation, every backend it has checked against its reference value."""
    config = load_config(fpga.DEFAULT_CONFIG)
    assert config.aes and config.keccak and config.rtos, "the board SoC carries all three accelerators"
    result = simulator.simulate(config, firmware.build_app(config, fpga.DEFAULT_APP), max_cycles=5_000_000,
                                capture=True)
    console = result.console or ""
    assert (result.status, result.exit_code) == ("exit", 0), console
    assert "demo: all results match" in console
    rows = ["timer_irq", *(f"aes128_ecb_80B/{c}" for c in config.aes.couplings),
            *(f"sha3_256_4k/{c}" for c in config.keccak.couplings)]
    for row in rows:
        assert f"result {row} " in console, row


def test_board_cli_refuses_unknown_board_and_app() -> None:
    proc = run_couplet("fpga", "--board", "arty")
    assert proc.returncode != 0 and "no board 'arty' (known: ulx3s)" in proc.stderr
    proc = run_couplet("fpga", "--app", "no_such_app")
    assert proc.returncode != 0 and "no_such_app" in proc.stderr
    assert "synthesis" not in proc.stderr  # refused before any tool ran


# ---------------------------------------------------------------------------- pins, PLL, bitstream

@pytest.fixture(scope="module")
def probe() -> tuple[boards.Pll, PnrResult]:
    out = WORK / "probe"
    out.mkdir(parents=True, exist_ok=True)
    top = out / "couplet_ulx3s_probe.sv"
    if not top.is_file() or top.read_text() != PROBE_TOP:
        top.write_text(PROBE_TOP)
    pll = boards.generate_pll(ULX3S, int(PROBE_MHZ * 1e6), out)
    design = Design("test_ulx3s_probe", "couplet_ulx3s_probe", (*rtl.sources_with_dependencies(["uart"]), top),
                    verilog_sources=(pll.verilog,))
    return pll, place_and_route(design, pll.mhz, ULX3S.device, lpf=ULX3S.lpf, placer=ULX3S.placer)


def probe_config(name: str) -> SocConfig:
    return dataclasses.replace(load_config("ulx3s"), name=name)


def trellis_config(path: Path) -> dict[str, set[str]]:
    """{tile: its settings} of a Trellis textual configuration (nextpnr's or ecpunpack's). A
    `.tile_group` (nextpnr writes one for a PLL, whose bits span two tiles) gives its settings to
    each of its tiles."""
    tiles: dict[str, set[str]] = defaultdict(set)
    current: list[str] = []
    for line in path.read_text().splitlines():
        if line.startswith(".tile_group "):
            current = line.split()[1:]
        elif line.startswith(".tile "):
            current = [line.split()[1]]
        elif line.startswith("."):
            current = []  # .device, .comment, .sysconfig, .bram_init: not a tile's settings
        elif line.strip() and current:
            for tile in current:
                tiles[tile].add(line.strip())
    return dict(tiles)


def words(config: dict[str, set[str]]) -> set[tuple[str, str, str]]:
    """(tile, name, bits) of every `word:` setting (LUT contents, PLL dividers, ...)."""
    return {(tile, line.split()[1], line.split()[2]) for tile, lines in config.items() for line in lines
            if line.startswith("word: ")}


def test_board_pll_is_what_ecppll_promises() -> None:
    pll = boards.generate_pll(ULX3S, 50_000_000, WORK / "pll")
    text = pll.verilog.read_text()
    assert pll.mhz == 50 and "module couplet_ulx3s_pll" in text and "EHXPLLL" in text
    # 25 MHz * CLKFB_DIV / CLKI_DIV is the frequency the PLL locks its output to.
    fields = {k: int(text.split(f".{k}(")[1].split(")")[0]) for k in ("CLKI_DIV", "CLKFB_DIV")}
    assert 25 * fields["CLKFB_DIV"] / fields["CLKI_DIV"] == pll.mhz
    with pytest.raises(CoupletError, match=r"cannot make 27\.3 MHz.*nearest it gives is 28\.125 MHz"):
        boards.generate_pll(ULX3S, 27_300_000, WORK / "pll")


def test_board_bitstream_holds_what_nextpnr_placed(probe: tuple[boards.Pll, PnrResult]) -> None:
    pll, pnr = probe
    config = probe_config("test_probe")
    assert fpga.finish(ULX3S, config, "probe", pll, pnr, {}) == 0
    bit = fpga.bitstream_path(ULX3S, config)
    assert bit.is_file() and bit.with_suffix(".svf").is_file()
    unpacked = WORK / "probe.unpacked.config"
    yowasp.run("ecpunpack", [str(bit), str(unpacked)], WORK / "ecpunpack.log", cwd=WORK)
    # ecpunpack's reading is complete: packed again, it gives the same bytes.
    again = WORK / "probe.again.bit"
    yowasp.run("ecppack", ["--compress", "--input", str(unpacked), "--bit", str(again)], WORK / "ecppack.log",
               cwd=WORK)
    assert again.read_bytes() == bit.read_bytes()
    # ...and it is the design nextpnr placed. ecpunpack leaves out settings whose bits are all
    # at their default and names I/O standards by the first of their aliases (LVTTL33 for
    # LVCMOS33), so the comparison is on configuration words, which it reads back exactly.
    placed, read_back = words(trellis_config(pnr.textcfg)), words(trellis_config(unpacked))
    assert read_back <= placed, sorted(read_back - placed)[:5]
    luts = {w for w in placed if w[1].endswith(".INIT") and set(w[2]) == {"0", "1"}}
    assert len(luts) > 20  # the UART's counter and shifter, the probe's byte counter
    assert luts <= read_back, sorted(luts - read_back)[:5]
    # The PLL tiles hold ecppll's dividers (the bitstream stores each divider minus one).
    text = pll.verilog.read_text()
    for name in ("CLKOP_DIV", "CLKFB_DIV"):
        divider = int(text.split(f".{name}(")[1].split(")")[0])
        assert any(n == name and "PLL" in tile and int(b, 2) == divider - 1 for tile, n, b in read_back), name


def test_board_report_agrees_with_nextpnr(probe: tuple[boards.Pll, PnrResult],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    pll, pnr = probe
    config = probe_config("test_probe_report")
    assert fpga.finish(ULX3S, config, "probe", pll, pnr, {"place and route (nextpnr)": 1.0}) == 0
    report = json.loads((paths.BUILD_DIR / "reports" / "fpga-ulx3s-test_probe_report.json").read_text())
    nextpnr = json.loads((pnr.textcfg.parent / "pnr_report.json").read_text())
    achieved = min(float(v["achieved"]) for v in nextpnr["fmax"].values())
    assert report["fmax_mhz"] == achieved and report["timing"] == "PASS" and report["clock_mhz"] == PROBE_MHZ
    # ...and the placer it names is the one that ran (what nextpnr's log says when it starts it).
    started = {"heap": "Running main analytical placer", "static": "Running Static placer"}[ULX3S.placer]
    assert report["placer"] == ULX3S.placer and started in (pnr.textcfg.parent / "nextpnr.log").read_text()
    for bel in ("TRELLIS_FF", "TRELLIS_COMB", "TRELLIS_IO", "EHXPLLL"):
        assert report["utilization"][bel] == {k: nextpnr["utilization"][bel][k] for k in ("used", "available")}
    assert report["utilization"]["TRELLIS_IO"]["used"] == 1 + 1 + 1 + 1 + 8 + 1  # the probe's ports
    assert report["utilization"]["EHXPLLL"]["used"] == 1
    bit = fpga.bitstream_path(ULX3S, config)
    assert report["bitstream_bytes"] == bit.stat().st_size > 10_000
    assert str(bit) in capsys.readouterr().out


def test_board_missed_clock_is_an_error_naming_the_fmax(probe: tuple[boards.Pll, PnrResult],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    pll, pnr = probe
    config = probe_config("test_probe_fail")
    absurd = dataclasses.replace(pll, mhz=1000.0)
    assert fpga.finish(ULX3S, config, "probe", absurd, pnr, {}) == 1
    fmax = f"{pnr.timing.fmax_mhz:.2f} MHz"
    assert f"timing FAILED: the design reaches {fmax}" in capsys.readouterr().err
    report = json.loads((paths.BUILD_DIR / "reports" / "fpga-ulx3s-test_probe_fail.json").read_text())
    assert report["timing"] == "FAIL" and report["bitstream"] is None and report["clock_mhz"] == 1000.0
    assert not fpga.bitstream_path(ULX3S, config).exists()
