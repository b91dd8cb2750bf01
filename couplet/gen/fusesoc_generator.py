"""FuseSoC generator of the SoC core (hw/soc/soc.core): what a configuration makes.

FuseSoC runs it as `python3 fusesoc_generator.py <input.yml>` in an empty folder, with the
generator input (its `parameters` hold `config`, a name from configs/ or a .toml path, and `vlnv`
the name the generated core must have). It writes the configuration's SoC package and the CV32E40X
sources with couplet's patches (as `couplet gen` and the simulation build do) and a core file
listing them. FuseSoC may run it with a Python that lacks couplet's pinned packages: it then runs
itself again with the checkout's .venv (./bootstrap.sh setup makes it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _reexec_in_venv() -> None:
    venv_python = ROOT / ".venv" / "bin" / "python"
    if not venv_python.exists() or Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():
        sys.exit(f"couplet's FuseSoC generator needs couplet's packages: run {ROOT}/bootstrap.sh setup")
    os.execv(str(venv_python), [str(venv_python), __file__, *sys.argv[1:]])


def _read_input(path: Path) -> dict[str, object]:
    import yaml  # PyYAML, pinned in requirements.txt (FuseSoC needs it too)

    loaded = yaml.safe_load(path.read_text())
    if not isinstance(loaded, dict):
        sys.exit(f"{path}: not a FuseSoC generator input")
    return loaded


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.exit("usage: fusesoc_generator.py <generator input .yml>")
    sys.path.insert(0, str(ROOT))
    try:
        import pythondata_cpu_cv32e40x  # noqa: F401  (only whether couplet's packages are here)
    except ImportError:
        _reexec_in_venv()
    from couplet.errors import CoupletError
    from couplet.gen import cores
    from couplet.gen.generate import write_config_outputs
    from couplet.model import rtl
    from couplet.model.config import ConfigError, load_config

    data = _read_input(Path(argv[1]))
    params = data.get("parameters") or {}
    if not isinstance(params, dict):
        sys.exit("generator parameters must be a mapping")
    vlnv = str(data.get("vlnv", "couplet:soc:config"))
    try:
        config = load_config(str(params.get("config", "default")))
        out = Path.cwd()
        config_pkg = write_config_outputs(config, out)["sv_pkg"]
        core = cores.generated_core(vlnv, config_pkg, rtl.core_sources(simulation=True))
    except (ConfigError, CoupletError) as err:
        sys.exit(f"couplet: {err}")
    (out / f"{vlnv.split(':')[2]}.core").write_text(core)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
