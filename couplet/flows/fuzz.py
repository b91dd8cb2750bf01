"""`couplet fuzz`: the AES and SHA-3 C APIs abused on the host, under AddressSanitizer and
UndefinedBehaviorSanitizer (issue 21, "abuse of the C API").

The libraries (sw/lib/aes, sw/lib/sha3, sw/lib/status.c) are built with the host gcc, the SDK's
warning flags and the sanitizers (no recovery: the first finding ends the run), together with the
stand-ins of every accelerator backend that the host tests use (tests/aes_host/aes_fake_backends.h,
tests/sha3_host/sha3_fake_backends.h) and the fuzzer tests/fuzz_host/api_fuzz.c. From a seed, each
iteration makes one random call with random and bad arguments on contexts and hold handles in any
state, and checks it against a model of the contract in the public headers: the named error for
every bad argument, nothing changed by a refused call, and good results equal to an independent
computation. Every buffer is a heap block of exactly its size, so an overrun is a finding.

It runs for two stand-in SoC configurations (SOC_CONFIGS): every backend, and one without some
backends and with an encrypt-only AES-128 engine, whose refusals the first cannot give.
Reported (build/reports/fuzz.json and fuzz.md): per configuration the iterations and the calls of
each kind by the status they returned, and two goals of 0: sanitizer findings and breaches of
the contract.

Not fuzzed: the RTOS offload layer (couplet/rtos_hw.h). Each of its calls is one custom
instruction or one register access whose arguments the accelerator checks itself (its result
word's BAD_ARG, NO_ID, ...; hw/ip/rtos tests check those against a model); the C layer has no
argument check of its own, and its message copies take the caller's word count (1..16) as given.
A host build would fuzz a stand-in of the accelerator, not the library.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from couplet import log, paths
from couplet.errors import BuildError
from couplet.reports import bench_report
from couplet.tools import firmware

TESTS_DIR = paths.ROOT / "tests"
FUZZ_DIR = TESTS_DIR / "fuzz_host"
AES_DIR = paths.SW_DIR / "lib" / "aes"
SHA3_DIR = paths.SW_DIR / "lib" / "sha3"
LIBRARY_SOURCES = (AES_DIR / "aes.c", AES_DIR / "aes_soft.c", SHA3_DIR / "sha3.c", SHA3_DIR / "sha3_soft.c",
                   paths.SW_DIR / "lib" / "status.c")
FUZZ_SOURCES = (FUZZ_DIR / "api_fuzz.c", FUZZ_DIR / "aes_api_fuzz.c", FUZZ_DIR / "sha3_api_fuzz.c")
SANITIZER_CFLAGS = ("-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    "-fno-omit-frame-pointer")

# Stand-ins for couplet/soc_config.h. "full": every backend of both libraries, full engines.
# "reduced": some backends absent and an encrypt-only AES-128 engine, for the refusals that only
# such a SoC gives (COUPLET_ERR_UNSUPPORTED, _UNSUPPORTED_MODE, _UNSUPPORTED_KEY_SIZE).
SOC_CONFIGS = {
    "full": "// stand-in for the API fuzzer: every AES and SHA-3 backend\n" + "".join(
        f"#define COUPLET_AES_HAS_{name} 1\n" for name in ("TIGHT", "MEM", "MMIO", "DMA", "ZKN")
    ) + "#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_TIGHT\n" + "".join(
        f"#define COUPLET_SHA3_HAS_{name} 1\n" for name in ("ISE", "TIGHT", "MEM", "MMIO", "DMA")
    ) + "#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_MMIO\n",
    "reduced": "// stand-in for the API fuzzer: no mem or dma backend, an encrypt-only AES-128 engine\n" + "".join(
        f"#define COUPLET_AES_HAS_{name} 1\n" for name in ("TIGHT", "MMIO", "ZKN")
    ) + "#define COUPLET_AES_DEFAULT_BACKEND COUPLET_AES_BACKEND_MMIO\n"
    "#define COUPLET_AES_ENGINE_DECRYPT 0\n"
    "#define COUPLET_AES_ENGINE_KEY_SIZES 0x1u  // 1 << AES_KEY_LEN_128\n" + "".join(
        f"#define COUPLET_SHA3_HAS_{name} 1\n" for name in ("ISE", "TIGHT", "MMIO")
    ) + "#define COUPLET_SHA3_DEFAULT_BACKEND COUPLET_SHA3_BACKEND_TIGHT\n",
}

SUMMARY = re.compile(r"^api_fuzz: summary seed=(?P<seed>\d+) iterations=(?P<iterations>\d+)(?P<calls>.*)$", re.M)
FAILURE = re.compile(r"^api_fuzz: FAIL .*$", re.M)
# The first line of each sanitizer report (ASan and LeakSanitizer, UBSan).
SANITIZER = re.compile(r"^.*(ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:).*$", re.M)


@dataclass(frozen=True)
class FuzzResult:
    seed: int
    iterations: int  # asked for
    returncode: int
    seconds: float
    calls: dict[str, dict[str, int]]  # kind -> status name (OK, ERR_NULL, ...) -> calls
    sanitizer: list[str]  # the first line of each sanitizer report
    failure: str | None  # the fuzzer's own "api_fuzz: FAIL ..." line
    stderr: str = field(repr=False)

    @property
    def completed(self) -> bool:
        """The run made every iteration and ended clean."""
        return self.returncode == 0 and not self.sanitizer and self.failure is None and bool(self.calls)

    @property
    def total_calls(self) -> int:
        return sum(sum(by.values()) for by in self.calls.values())

    @property
    def refused(self) -> int:
        return sum(n for by in self.calls.values() for status, n in by.items() if status != "OK")

    def describe(self) -> str:
        """What went wrong, for an error message (empty when nothing did)."""
        if self.completed:
            return ""
        tail = "\n".join(self.stderr.strip().splitlines()[-30:])
        return f"api_fuzz seed {self.seed}, {self.iterations} iterations: exit {self.returncode}\n{tail}"


def parse_summary(stdout: str) -> dict[str, dict[str, int]]:
    """The summary line's calls per kind and status ({} without a summary)."""
    match = SUMMARY.search(stdout)
    if match is None:
        return {}
    calls: dict[str, dict[str, int]] = {}
    for item in match["calls"].split():
        kind, _, counts = item.partition("=")
        calls[kind] = {status: int(n) for status, _, n in (c.partition(":") for c in counts.split(","))}
    return calls


def _stamp(cmd: Sequence[str]) -> str:
    """Of the command and every file the build reads, so that an unchanged build is skipped."""
    digest = hashlib.sha256("\0".join(cmd).encode())
    inputs = [*LIBRARY_SOURCES, *FUZZ_SOURCES, *sorted((paths.SW_DIR / "include").rglob("*.h")),
              *sorted(AES_DIR.glob("*.h")), *sorted(SHA3_DIR.glob("*.h")), *sorted(FUZZ_DIR.glob("*.h")),
              *sorted(TESTS_DIR.glob("*_host/*.h"))]
    for path in inputs:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build(config: str = "full", defines: Sequence[str] = (), variant: str | None = None) -> Path:
    """The fuzzer with the libraries and the stand-ins for a SoC configuration of SOC_CONFIGS, in
    build/fuzz/<variant, by default the configuration's name>/; `defines` are extra -D flags
    (-DFAKE_PLANT: the planted bugs of tests/test_api_fuzz.py)."""
    out_dir = paths.BUILD_DIR / "fuzz" / (variant or config)
    header = out_dir / "include" / "couplet" / "soc_config.h"
    header.parent.mkdir(parents=True, exist_ok=True)
    if not header.exists() or header.read_text() != SOC_CONFIGS[config]:
        header.write_text(SOC_CONFIGS[config])
    exe = out_dir / "api_fuzz"
    cmd = [
        "gcc", *SANITIZER_CFLAGS, *firmware.WARN_CFLAGS, "-DFAKE_BACKENDS", *defines,
        f"-I{paths.SW_DIR / 'include'}", f"-I{out_dir / 'include'}", f"-I{AES_DIR}", f"-I{SHA3_DIR}",
        *map(str, LIBRARY_SOURCES), *map(str, FUZZ_SOURCES), "-o", str(exe),
    ]
    stamp_file = out_dir / "stamp"
    stamp = _stamp(cmd)
    if exe.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return exe
    log.debug(" ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or proc.stderr:
        raise BuildError(f"building the API fuzzer failed:\n{' '.join(cmd)}\n{proc.stderr}")
    stamp_file.write_text(stamp)
    return exe


def run(exe: Path, seed: int, iterations: int, timeout: float | None = None,
        extra_env: Mapping[str, str] | None = None) -> FuzzResult:
    """One run of `iterations` random calls from `seed` (`extra_env`: FAKE_PLANT for the tests)."""
    env = dict(os.environ)
    env.update(extra_env or {})
    # LeakSanitizer on, the report's first line kept for the count, UBSan with its stack.
    env["ASAN_OPTIONS"] = "detect_leaks=1:halt_on_error=1"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    env.pop("API_FUZZ_TRACE", None)
    start = time.monotonic()
    proc = subprocess.run([str(exe), str(seed), str(iterations)], capture_output=True, text=True, env=env,
                          timeout=timeout)
    seconds = time.monotonic() - start
    failure = FAILURE.search(proc.stderr)
    return FuzzResult(seed, iterations, proc.returncode, seconds, parse_summary(proc.stdout),
                      [m.group(0) for m in SANITIZER.finditer(proc.stderr)],
                      failure.group(0) if failure else None, proc.stderr)


def calls_table(result: FuzzResult) -> tuple[list[str], list[list[str]]]:
    rows = []
    for kind in sorted(result.calls):
        by = result.calls[kind]
        total = sum(by.values())
        refusals = ", ".join(f"{status} {n:,}" for status, n in sorted(by.items()) if status != "OK") or "-"
        rows.append([kind, f"{total:,}", f"{by.get('OK', 0):,}", f"{total - by.get('OK', 0):,}", refusals])
    rows.append(["all", f"{result.total_calls:,}", f"{result.total_calls - result.refused:,}", f"{result.refused:,}",
                 ""])
    return ["call", "calls", "good", "refused", "refused with"], rows


def sections(results: dict[str, FuzzResult]) -> list[bench_report.Section]:
    """A summary row per configuration, then the calls of each (each refusal was checked: the
    named error, nothing changed; ERR_HW and ERR_TIMEOUT are failures the fuzzer had a stand-in
    report)."""
    summary = [[name, str(r.seed), f"{r.iterations:,}", f"{r.seconds:.1f}", f"{r.total_calls:,}", f"{r.refused:,}",
                str(len(r.sanitizer)), "0" if r.failure is None else "1"] for name, r in results.items()]
    out: list[bench_report.Section] = [
        ("Runs", ["configuration", "seed", "iterations", "seconds", "calls", "refused", "sanitizer findings",
                  "contract breaches"], summary)]
    for name, result in results.items():
        headers, rows = calls_table(result)
        out.append((f"Calls per kind, {name} configuration (ERR_HW, ERR_TIMEOUT: failures injected in a stand-in)",
                    headers, rows))
    return out


def goal_rows(results: dict[str, FuzzResult]) -> list[list[str]]:
    anchor = "issue 21, abuse of the C API"
    findings = sum(len(r.sanitizer) for r in results.values())
    breaches = sum(r.failure is not None for r in results.values())
    return [
        bench_report.goal_row("sanitizer findings (ASan, UBSan, LSan)", "all", findings, 0, anchor),
        bench_report.goal_row("contract breaches (status, change, result)", "all", breaches, 0, anchor),
    ]


def publish(results: dict[str, FuzzResult]) -> tuple[Path, Path]:
    first = next(iter(results.values()))
    intro = [
        "# API fuzzing of the AES and SHA-3 libraries\n",
        f"`couplet fuzz --iterations {first.iterations} --seed {first.seed}`: random calls on the host "
        f"(gcc {' '.join(SANITIZER_CFLAGS)}) for each stand-in SoC configuration ({', '.join(results)}), every "
        "backend through the FAKE_BACKENDS stand-ins and the software one, each call checked against the contract "
        "of couplet/aes.h, aes_held.h, sha3.h and sha3_held.h (tests/fuzz_host/api_fuzz.c).\n",
    ]
    for name, result in results.items():
        if result.failure or result.sanitizer:
            intro.append(f"{name}: stopped at {result.failure or result.sanitizer[0]}\n")
    data: dict[str, Any] = {
        name: {
            "seed": r.seed,
            "iterations": r.iterations,
            "completed": r.completed,
            "seconds": round(r.seconds, 2),
            "calls": r.calls,
            "total_calls": r.total_calls,
            "refused": r.refused,
            "sanitizer_findings": r.sanitizer,
            "failure": r.failure,
        }
        for name, r in results.items()
    }
    return bench_report.publish("fuzz", intro, sections(results), goal_rows(results), {"runs": data})


def run_cli(iterations: int, seed: int | None) -> int:
    """`couplet fuzz`: build and run each configuration, print and write the report; 1 when
    something was found."""
    if iterations < 1:
        raise BuildError("--iterations must be at least 1")
    seed = secrets.randbits(31) if seed is None else seed
    results: dict[str, FuzzResult] = {}
    for config in SOC_CONFIGS:
        log.info(f"building the API fuzzer for the {config} configuration (ASan, UBSan)")
        exe = build(config)
        log.info(f"fuzzing {iterations:,} calls from seed {seed} (rerun with --seed {seed})")
        results[config] = run(exe, seed, iterations)
    json_path, md_path = publish(results)
    log.info(f"written {json_path} and {md_path}")
    failed = [r for r in results.values() if not r.completed]
    for result in failed:
        log.error(result.describe())
    if not failed:
        log.info(f"{len(results)} x {iterations:,} iterations in {sum(r.seconds for r in results.values()):.1f} s: "
                 "no finding")
    return 1 if failed else 0
