"""The `couplet` command as a user meets it: exit codes, clear errors, traces."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

from conftest import run_couplet

from couplet.errors import EXIT_TIMEOUT, EXIT_TOOL_ERROR

# ELF32 header fields (System V ABI): e_machine at 18, e_phoff at 28, e_phnum at 44;
# program header: p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, ...
E_MACHINE = 18
E_PHOFF = 28
E_PHNUM = 44


def patched(elf: Path, out: Path, patch: Callable[[bytearray], None]) -> Path:
    data = bytearray(elf.read_bytes())
    patch(data)
    out.write_bytes(bytes(data))
    return out


def first_load_header(data: bytearray) -> int:
    phoff = struct.unpack_from("<I", data, E_PHOFF)[0]
    phnum = struct.unpack_from("<H", data, E_PHNUM)[0]
    for i in range(phnum):
        if struct.unpack_from("<I", data, phoff + 32 * i)[0] == 1:
            return phoff + 32 * i
    raise AssertionError("no PT_LOAD segment")


def test_cli_sim_passes_exit_code_and_console(build_app: Callable[[str], Path], sim_binary: Path) -> None:
    elf = build_app("test_exit_code")
    proc = run_couplet("sim", str(elf))
    assert proc.returncode == 42, proc.stderr
    assert "exit code 42 after" in proc.stderr
    assert "instructions retired" in proc.stderr and "M cycles/s" in proc.stderr


def test_cli_sim_rejects_text_file(tmp_path: Path, sim_binary: Path) -> None:
    bogus = tmp_path / "notes.elf"
    bogus.write_text("this is not an ELF\n" * 10)
    proc = run_couplet("sim", str(bogus))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "not an ELF file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_sim_rejects_64_bit_elf(sim_binary: Path) -> None:
    proc = run_couplet("sim", "/bin/true")  # the host's x86-64 executable
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "not a 32-bit ELF" in proc.stderr


def test_cli_sim_rejects_other_architecture(build_app: Callable[[str], Path], tmp_path: Path) -> None:
    elf = patched(build_app("test_exit_code"), tmp_path / "arm.elf", lambda d: struct.pack_into("<H", d, E_MACHINE, 40))
    proc = run_couplet("sim", str(elf))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "not a RISC-V ELF (e_machine 40)" in proc.stderr


def test_cli_sim_rejects_segment_outside_sram(build_app: Callable[[str], Path], tmp_path: Path) -> None:
    def grow(data: bytearray) -> None:
        ph = first_load_header(data)
        struct.pack_into("<I", data, ph + 20, 0x1000_0000)  # p_memsz: 256 MiB

    proc = run_couplet("sim", str(patched(build_app("test_exit_code"), tmp_path / "big.elf", grow)))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "does not fit the SRAM [0x80000000, 0x80040000)" in proc.stderr


def test_cli_sim_rejects_truncated_elf(build_app: Callable[[str], Path], tmp_path: Path) -> None:
    data = build_app("test_exit_code").read_bytes()
    cut = tmp_path / "cut.elf"
    cut.write_bytes(data[:60])
    proc = run_couplet("sim", str(cut))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "outside the file" in proc.stderr or "truncated" in proc.stderr


def test_cli_sim_missing_file(tmp_path: Path) -> None:
    proc = run_couplet("sim", str(tmp_path / "missing.elf"))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "no such file" in proc.stderr


def test_cli_sim_max_cycles_stops_runaway(build_app: Callable[[str], Path], sim_binary: Path) -> None:
    proc = run_couplet("sim", "--max-cycles", "50000", str(build_app("test_runaway")))
    assert proc.returncode == EXIT_TIMEOUT
    assert "no exit after --max-cycles 50000" in proc.stderr
    assert "spinning" in proc.stdout


def test_cli_sim_rejects_unknown_trace_format(build_app: Callable[[str], Path], tmp_path: Path) -> None:
    proc = run_couplet("sim", "--trace", str(tmp_path / "wave.txt"), str(build_app("test_exit_code")))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "must end in .fst or .vcd" in proc.stderr


def test_cli_sim_writes_fst_trace(build_app: Callable[[str], Path], tmp_path: Path) -> None:
    wave = tmp_path / "exit.fst"
    proc = run_couplet("sim", "--trace", str(wave), str(build_app("test_exit_code")))
    assert proc.returncode == 42, proc.stderr
    assert wave.stat().st_size > 1000
    # An FST file starts with a header block (type 0) whose section length is 329 bytes.
    assert wave.read_bytes()[:9] == bytes([0]) + (329).to_bytes(8, "big")


def test_cli_sim_writes_vcd_trace(build_app: Callable[[str], Path], tmp_path: Path) -> None:
    wave = tmp_path / "exit.vcd"
    proc = run_couplet("sim", "--trace", str(wave), str(build_app("test_exit_code")))
    assert proc.returncode == 42, proc.stderr
    text = wave.read_text(errors="replace")
    assert "$enddefinitions" in text and "console_valid_o" in text


def test_cli_run_unknown_app_lists_apps() -> None:
    proc = run_couplet("run", "no_such_app")
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "no app 'no_such_app'" in proc.stderr and "test_printf" in proc.stderr


def test_cli_unknown_config_is_clear() -> None:
    proc = run_couplet("run", "--config", "nope", "demo")
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "no configuration 'nope'" in proc.stderr


def test_cli_build_own_app_outside_tree(tmp_path: Path, sim_binary: Path) -> None:
    """The 'write your own app' path: one C file outside the repository, built and run."""
    source = tmp_path / "hello.c"
    source.write_text(
        '#include <stdio.h>\n#include <couplet/couplet.h>\n'
        'int main(void) { printf("hi %d\\n", 6 * 7); return 3; }\n'
    )
    elf = tmp_path / "hello.elf"
    built = run_couplet("build", str(source), "-o", str(elf))
    assert built.returncode == 0, built.stderr
    proc = run_couplet("sim", str(elf))
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "hi 42\n"


def test_cli_build_reports_compile_errors(tmp_path: Path) -> None:
    source = tmp_path / "broken.c"
    source.write_text("int main(void) { return undefined_symbol; }\n")
    proc = run_couplet("build", str(source), "-o", str(tmp_path / "broken.elf"))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "compiling" in proc.stderr and "undefined_symbol" in proc.stderr


def test_cli_flags_point_at_the_sdk() -> None:
    proc = run_couplet("flags", "--cflags")
    assert proc.returncode == 0, proc.stderr
    assert "-march=rv32imac_zicsr_zifencei" in proc.stdout and "sw/include" in proc.stdout


def test_cli_demo_prints_table_and_writes_report(sim_binary: Path) -> None:
    from couplet import paths

    proc = run_couplet("demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "workload" in proc.stdout and "cycles" in proc.stdout
    report = paths.BUILD_DIR / "reports" / "demo-default.json"
    import json

    data = json.loads(report.read_text())
    assert data["exit_code"] == 0 and data["workloads"]
    assert all(w["cycles"] > 0 for w in data["workloads"])


def test_cli_build_rejects_program_too_large_for_sram(tmp_path: Path) -> None:
    source = tmp_path / "huge.c"
    source.write_text(
        "#include <stdint.h>\n"
        "static volatile uint8_t blob[512 * 1024] = {1};\n"  # twice the default SRAM
        "int main(void) { return blob[12345]; }\n"
    )
    proc = run_couplet("build", str(source), "-o", str(tmp_path / "huge.elf"))
    assert proc.returncode == EXIT_TOOL_ERROR
    assert "linking huge failed" in proc.stderr
    assert "region `sram' overflowed" in proc.stderr or "do not fit in the SRAM" in proc.stderr
    assert not (tmp_path / "huge.elf").exists()
