"""The YoWASP tools on files under /tmp, which their runtime replaces with a private folder.

A checkout cloned under /tmp, or a build folder there, must build like any other: the mounts
couplet.yowasp adds make those folders visible at their own paths.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from couplet import paths
from couplet.errors import BuildError
from couplet.tools import yowasp


def module(name: str) -> str:
    return f"module {name}(input a, output b); assign b = ~a; endmodule\n"


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    # Not pytest's tmp_path: whether that is under /tmp depends on the machine.
    folder = Path(tempfile.mkdtemp(prefix="couplet-yowasp-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_yosys_reads_and_writes_under_tmp(under_tmp: Path) -> None:
    other = Path(tempfile.mkdtemp(prefix="couplet-yowasp-out-", dir="/tmp"))
    try:
        cwd = under_tmp / "work" / "deep"
        cwd.mkdir(parents=True)
        (under_tmp / "src").mkdir()
        (under_tmp / "src" / "by_path.v").write_text(module("by_path"))
        (under_tmp / "work" / "by_parent.v").write_text(module("by_parent"))
        (cwd / "by_name.v").write_text(module("by_name"))
        # The build folder: outside /tmp here, under it when the checkout is.
        build = paths.BUILD_DIR / "test_yowasp"
        build.mkdir(parents=True, exist_ok=True)
        (build / "in_build.v").write_text(module("in_build"))
        script = "; ".join([
            f"read_verilog {under_tmp / 'src' / 'by_path.v'}", "read_verilog ../by_parent.v",
            "read_verilog by_name.v", f"read_verilog {build / 'in_build.v'}",
            f"write_json {under_tmp / 'src' / 'netlist.json'}", "write_json here.json",
        ])
        # -o names a file in another folder under /tmp, seen only through the arguments.
        yowasp.run("yosys", ["-q", "-o", str(other / "on_exit.json"), "-p", script], cwd / "yosys.log", cwd=cwd)
        names = ["by_name", "by_parent", "by_path", "in_build"]
        for netlist in (under_tmp / "src" / "netlist.json", cwd / "here.json", other / "on_exit.json"):
            assert sorted(json.loads(netlist.read_text())["modules"]) == names, netlist
    finally:
        shutil.rmtree(other, ignore_errors=True)


def test_mounts_left_to_the_runtime_away_from_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "ROOT", Path("/opt/couplet"))
    monkeypatch.setattr(paths, "BUILD_DIR", Path("/opt/couplet/build"))
    monkeypatch.delenv("YOWASP_MOUNT", raising=False)
    assert yowasp.mounts(Path("/"), ["/usr/share/x.v"]) is None


def test_mounts_keep_the_users_own_last(monkeypatch: pytest.MonkeyPatch, under_tmp: Path) -> None:
    monkeypatch.setenv("YOWASP_MOUNT", "/data=/usr")
    mount = yowasp.mounts(under_tmp, [])
    assert mount is not None
    entries = mount.split(":")
    # Theirs replaces the runtime's top-level folders (as without couplet) and wins a tie.
    assert entries[-1] == "/data=/usr" and "/usr=/usr" not in entries
    assert f"{under_tmp}={under_tmp}" in entries and f"/={under_tmp.resolve()}" in entries


def test_files_directly_in_tmp_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "BUILD_DIR", Path("/opt/couplet/build"))
    with pytest.raises(BuildError, match=r"^/tmp/couplet-loose\.bit: .* directly in /tmp"):
        yowasp.mounts(Path("/opt"), ["--bit", "/tmp/couplet-loose.bit"])
    with pytest.raises(BuildError, match=r"^/tmp: .* directly in /tmp"):
        yowasp.mounts(Path("/tmp"), [])
