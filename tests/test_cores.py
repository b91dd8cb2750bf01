"""FuseSoC core files (couplet/gen/cores.py): up to date, valid for FuseSoC, and complete.

FuseSoC itself (pinned in requirements.txt) parses every core and sets the SoC up; Verilator
then lints the file list FuseSoC made, so a core that lists a file too few, or in an order that
does not compile, fails here and not in a user's flow.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fusesoc.capi2.coreparser import Core2Parser

from couplet import paths
from couplet.errors import CoupletError
from couplet.flows import lint
from couplet.gen import cores
from couplet.model import rtl

FUSESOC = Path(sys.executable).parent / "fusesoc"


def test_core_files_are_up_to_date() -> None:
    stale = [str(p.relative_to(paths.ROOT)) for p, text in cores.core_outputs().items()
             if not p.exists() or p.read_text() != text]
    assert not stale, f"run `couplet gen` and commit: {stale}"


@pytest.mark.parametrize("core", sorted(cores.core_outputs()), ids=lambda p: p.parent.name)
def test_fusesoc_schema_accepts_core(core: Path) -> None:
    data = Core2Parser().read(str(core))
    assert data["name"].startswith("couplet:")
    listed = [f for fs in data["filesets"].values() for f in fs["files"]]
    assert listed and all((core.parent / f).is_file() for f in listed)


def test_ip_core_lists_exactly_the_build_s_rtl_and_its_dependencies() -> None:
    data = Core2Parser().read(str(paths.IP_DIR / "aes" / "aes.core"))
    assert data["filesets"]["rtl"]["files"] == [str(p.relative_to(paths.IP_DIR / "aes")) for p in rtl.ip_sources("aes")]
    assert data["filesets"]["rtl"]["depend"] == ["couplet:ip:accel"]
    assert rtl.ip_dependencies("obi") == []


def test_an_instantiated_module_makes_its_ip_a_dependency() -> None:
    # The tile instantiates couplet_dma but uses no DMA package: a core pulled alone still needs it.
    data = Core2Parser().read(str(paths.IP_DIR / "coupling" / "coupling.core"))
    assert "couplet:ip:dma" in data["filesets"]["rtl"]["depend"]
    assert rtl.ip_dependencies("coupling") == ["accel", "aes", "dma", "keccak", "obi", "rtos"]


def test_a_package_nothing_provides_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "toy" / "rtl").mkdir(parents=True)
    (tmp_path / "toy" / "rtl" / "toy.sv").write_text("module toy; localparam int A = nowhere_pkg::B; endmodule\n")
    monkeypatch.setattr(paths, "IP_DIR", tmp_path)
    with pytest.raises(rtl.DependencyError, match="nowhere_pkg"):
        rtl.ip_dependencies("toy")


def test_module_sources_are_what_the_module_instantiates_and_imports(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    rtl_dir = tmp_path / "toy" / "rtl"
    (rtl_dir / "autogen").mkdir(parents=True)
    files = {
        "autogen/toy_reg_pkg.sv": "package toy_reg_pkg; localparam int W = 8; endpackage\n",
        "toy_pkg.sv": "package toy_pkg; localparam int N = toy_reg_pkg::W; endpackage\n",
        "unused_pkg.sv": "package unused_pkg; localparam int U = 1; endpackage\n",
        "toy_top.sv": "module toy_top;\n  toy_leaf u_leaf ();\nendmodule\n",
        "toy_leaf.sv": "module toy_leaf;\n  localparam int N = toy_pkg::N;\nendmodule\n",
        "toy_other.sv": "module toy_other;\n  localparam int U = unused_pkg::U;\nendmodule\n",
    }
    for name, text in files.items():
        (rtl_dir / name).write_text(text)
    monkeypatch.setattr(paths, "IP_DIR", tmp_path)
    # Packages first (generated, then the IP's own), each package once, nothing the top never reaches.
    assert [p.stem for p in rtl.module_sources("toy", "toy_top")] == ["toy_reg_pkg", "toy_pkg", "toy_leaf", "toy_top"]
    assert [p.stem for p in rtl.module_sources("toy", "toy_other")] == ["unused_pkg", "toy_other"]
    with pytest.raises(CoupletError, match="defines no module toy_missing.*toy_leaf, toy_other, toy_top"):
        rtl.module_sources("toy", "toy_missing")


def test_fusesoc_sets_up_the_soc_and_its_file_list_lints(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=f"{FUSESOC.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(
        [str(FUSESOC), "--cores-root", str(paths.HW_DIR), "run", "--build-root", str(tmp_path), "--setup",
         "--target", "default", "--tool", "verilator", cores.SOC_VLNV.rsplit(":", 1)[0]],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (file_list,) = tmp_path.glob("*/default-verilator/*.vc")
    sources = [line for line in file_list.read_text().splitlines() if line and not line.startswith("-")]
    # The generator's package sets typed parameters of the IPs' packages: it follows every IP and
    # precedes the SoC top.
    names = [Path(s).name for s in sources]
    cfg = names.index("couplet_soc_cfg_pkg.sv")
    assert max(names.index(f"{ip}_reg_pkg.sv") for ip in ("aes", "keccak", "rtos")) < cfg
    assert names.index("couplet_tile_pkg.sv") < cfg < names.index("couplet_soc.sv")
    assert any(s.endswith("cv32e40x_core.sv") for s in sources)
    lint_proc = subprocess.run(
        lint.verilator_command("couplet_soc", [Path(s) for s in sources], []),
        capture_output=True, text=True, env=paths.verilator_env(), cwd=file_list.parent, timeout=600,
    )
    assert lint_proc.returncode == 0, lint_proc.stderr[-4000:]
