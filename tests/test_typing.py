"""The couplet package type-checks under mypy --strict (settings in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from couplet import paths


def test_typing_couplet_package_is_strictly_typed() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(paths.ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=paths.ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
