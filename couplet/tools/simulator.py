"""Runs the Verilator model of a configuration on an ELF and collects what it reports."""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from couplet.errors import EXIT_TOOL_ERROR, SimulationError
from couplet.model.config import SocConfig
from couplet.tools import simbuild


@dataclass(frozen=True)
class SimResult:
    status: str  # "exit" or "timeout"
    exit_code: int
    cycles: int
    instret: int
    seconds: float
    cycles_per_second: float
    console: str | None  # the console text when captured


def trace_format(trace: Path | None) -> str:
    if trace is None:
        return ""
    suffix = trace.suffix.lower().lstrip(".")
    if suffix not in ("fst", "vcd"):
        raise SimulationError(f"--trace {trace}: the file name must end in .fst or .vcd")
    return suffix


def simulate(
    config: SocConfig,
    elf: Path,
    *,
    max_cycles: int = 100_000_000,
    trace: Path | None = None,
    capture: bool = False,
    coverage: Path | None = None,
) -> SimResult:
    """Simulate `elf`; the console goes to our stdout, or into the result when `capture`. With
    `coverage`, the toggle-coverage model runs and writes every bit's toggle counts there
    (Verilator's coverage.dat format; couplet/flows/energy.py reads it)."""
    if max_cycles <= 0:
        raise SimulationError("--max-cycles must be positive")
    if not elf.is_file():
        raise SimulationError(f"{elf}: no such file")
    if coverage is not None and trace is not None:
        raise SimulationError("--trace and coverage need different models: use one at a time")
    binary = simbuild.build_sim(config, "toggle" if coverage is not None else trace_format(trace))
    with tempfile.TemporaryDirectory(prefix="couplet-sim-") as tmp:
        stats_file = Path(tmp) / "stats.json"
        command = [str(binary), "--max-cycles", str(max_cycles), "--stats", str(stats_file)]
        if trace is not None:
            command += ["--trace", str(trace)]
        if coverage is not None:
            command += ["--coverage", str(coverage)]
        command.append(str(elf))
        proc = subprocess.run(command, stdout=subprocess.PIPE if capture else None, text=True)
        if proc.returncode == EXIT_TOOL_ERROR and not stats_file.exists():
            # The harness refused its input and said why on stderr.
            raise SimulationError(f"the simulator refused {elf} (see the message above)")
        if not stats_file.exists():
            raise SimulationError(f"the simulator ended with status {proc.returncode} and wrote no statistics")
        stats = json.loads(stats_file.read_text())
    return SimResult(
        status=stats["status"],
        exit_code=int(stats["exit_code"]),
        cycles=int(stats["cycles"]),
        instret=int(stats["instret"]),
        seconds=float(stats["seconds"]),
        cycles_per_second=float(stats["cycles_per_second"]),
        console=proc.stdout if capture else None,
    )
