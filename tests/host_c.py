"""Building the SDK's C libraries outside the SoC, shared by the host tests of each library
(tests/test_aes_host.py, tests/test_sha3_host.py): for the host with a test driver (one command
per line on stdin, tests/*_host/*_driver.c), and for the SoC with the SDK's flags to inspect the
objects.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from couplet import paths
from couplet.tools import firmware

HOST_DIR = paths.BUILD_DIR / "host"
HOST_CFLAGS = ["-O2", *firmware.WARN_CFLAGS]


def status_codes() -> dict[str, int]:
    """couplet_status_t's names (OK, ERR_...) and values, read from status.h."""
    text = (paths.SW_DIR / "include" / "couplet" / "status.h").read_text()
    return {name: int(value) for name, value in re.findall(r"COUPLET_(OK|ERR_\w+) = (\d+)", text)}


def write_soc_config(include_dir: Path, text: str) -> None:
    """A stand-in couplet/soc_config.h (only rewritten when it changes)."""
    header = include_dir / "couplet" / "soc_config.h"
    header.parent.mkdir(parents=True, exist_ok=True)
    if not header.exists() or header.read_text() != text:
        header.write_text(text)


def build_host_driver(driver_source: Path, lib_dir: Path, sources: tuple[Path, ...], variant: str,
                      soc_config: str, defines: tuple[str, ...] = ()) -> Path:
    """The library's `sources` and the driver, built with the host gcc and the SDK's warnings."""
    out_dir = HOST_DIR / variant
    write_soc_config(out_dir / "include", soc_config)
    exe = out_dir / driver_source.stem
    cmd = [
        "gcc", *HOST_CFLAGS, *defines,
        f"-I{paths.SW_DIR / 'include'}", f"-I{out_dir / 'include'}", f"-I{lib_dir}",
        *map(str, sources), str(paths.SW_DIR / "lib" / "status.c"), str(driver_source),
        "-o", str(exe),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, f"{' '.join(cmd)}\n{proc.stderr}"
    return exe


def driver_fixtures(name: str, driver_source: Path, lib_dir: Path, sources: tuple[Path, ...], soc_without: str,
                    soc_with_all: str) -> tuple[Any, Any]:
    """A library's two session fixtures `driver` and `fake_driver`: its host driver built for a SoC
    without the accelerator (`soc_without`, the software backend alone), and built with
    FAKE_BACKENDS for a SoC with every backend (`soc_with_all`). Assign them to those names."""

    @pytest.fixture(scope="session")
    def driver() -> Path:
        return build_host_driver(driver_source, lib_dir, sources, f"{name}_soft", soc_without)

    @pytest.fixture(scope="session")
    def fake_driver() -> Path:
        return build_host_driver(driver_source, lib_dir, sources, f"{name}_fake_hw", soc_with_all, ("-DFAKE_BACKENDS",))

    return driver, fake_driver


def hex_or_null(data: bytes | None) -> str:
    """The driver's spelling of a byte string: "-" is a NULL pointer, "=" the empty string."""
    if data is None:
        return "-"
    return data.hex() or "="


def cross_compile(tmp_path: Path, soc_config: str, sources: tuple[Path, ...]) -> dict[str, Path]:
    """Each source compiled for the SoC (rv32, the SDK's flags), by stem; no warning allowed."""
    include = tmp_path / "include"
    write_soc_config(include, soc_config)
    flags = [*firmware.COMMON_CFLAGS, *firmware.OPT_CFLAGS, *firmware.WARN_CFLAGS,
             f"-I{paths.SW_DIR / 'include'}", f"-I{include}"]
    objects = {}
    for source in sources:
        obj = tmp_path / (source.stem + ".o")
        cmd = [paths.cross_tool("gcc"), *flags, "-c", str(source), "-o", str(obj)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0 and not proc.stderr, f"{' '.join(cmd)}\n{proc.stderr}"
        objects[source.stem] = obj
    return objects


def undefined_symbols(obj: Path) -> set[str]:
    out = subprocess.run([paths.cross_tool("nm"), "-u", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


# What an answer line must be: the exact text (or number), or a callable that raises on a bad
# line; a library's test may add kinds of its own by extending DriverBatch.check.
Expectation = object


@dataclass
class DriverBatch:
    """Commands for one run of a host driver, each with the check of its answer line."""

    commands: list[str] = field(default_factory=list)
    checks: list[tuple[str, Expectation]] = field(default_factory=list)

    def add(self, command: str, expect: Expectation) -> None:
        self.commands.append(command)
        self.checks.append((command, expect))

    def check(self, expect: Expectation, line: str) -> None:
        if callable(expect):
            expect(line)
        else:
            assert line == str(expect), f"got {line[:300]!r}, expected {str(expect)[:300]!r}"

    def run(self, exe: Path) -> None:
        """One driver process for all the commands; every failed check is reported at the end."""
        proc = subprocess.run([str(exe)], input="\n".join(self.commands) + "\n", capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, f"driver failed: {proc.stderr}"
        lines = proc.stdout.splitlines()
        assert len(lines) == len(self.commands), f"{len(lines)} answers to {len(self.commands)} commands"
        failures = []
        for (command, expect), line in zip(self.checks, lines):
            try:
                self.check(expect, line)
            except AssertionError as error:
                failures.append(f"{command[:200]}: {error}")
        assert not failures, f"{len(failures)} of {len(lines)} checks failed:\n" + "\n".join(failures[:20])
