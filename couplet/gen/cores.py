"""FuseSoC core files, generated from the source lists the couplet build itself uses.

Each IP gets ``hw/ip/<ip>/<ip>.core`` (its RTL in compile order, and as dependencies the IPs
whose packages it imports or whose modules it instantiates) and the SoC gets
``hw/soc/soc.core``, whose FuseSoC generator (``couplet/gen/fusesoc_generator.py``) writes a
configuration's package and the patched CV32E40X sources. So a user can pull one accelerator with
its coupling layer, or the whole SoC, into their own FuseSoC flow, and the core files can never
list other files than the build compiles.

The dependencies are read from the RTL (``couplet.model.rtl.ip_dependencies``), not written down,
the same way every build finds the IPs it compiles.
"""

from __future__ import annotations

import os
from pathlib import Path

from couplet import __version__, paths
from couplet.gen.generate import banner
from couplet.model import rtl

SOC_CORE = paths.HW_DIR / "soc" / "soc.core"
SOC_VLNV = f"couplet:soc:couplet:{__version__}"
GENERATOR = Path(__file__).resolve().parent / "fusesoc_generator.py"


def ip_vlnv(ip: str) -> str:
    return f"couplet:ip:{ip}:{__version__}"


def ip_name(ip: str) -> str:
    """The name a dependency gives: any version of the IP."""
    return f"couplet:ip:{ip}"


def ip_summary(ip: str) -> str:
    """The IP's one-line summary: the title of its README (`# <ip>: <summary>`)."""
    title = (paths.IP_DIR / ip / "README.md").read_text().splitlines()[0]
    return title.lstrip("# ").split(": ", 1)[-1]


def _external_packages(sources: list[Path]) -> list[str]:
    used = {pkg for src in sources for pkg in rtl.packages_used(src)}
    return sorted(used & rtl.EXTERNAL_PACKAGES.keys())


def _quoted(text: str) -> str:
    # YAML double-quoted scalar: a summary may hold ": " or "#", which plain scalars cannot.
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _core(comments: list[str], vlnv: str, description: str, files: list[str], depends: list[str],
          sections: list[str] | None = None, target: list[str] | None = None) -> str:
    """A CAPI2 core with one fileset `rtl` and a target `default` on it."""
    lines = ["CAPI=2:", *comments, f"name: {vlnv}"]
    if description:
        lines.append(f"description: {_quoted(description)}")
    lines += ["", "filesets:", "  rtl:", "    files:", *[f"      - {name}" for name in files],
              "    file_type: systemVerilogSource"]
    if depends:
        lines += ["    depend:", *[f"      - {dep}" for dep in depends]]
    lines += ["", *(sections or []), "targets:", "  default:", "    filesets: [rtl]", *(target or []), ""]
    return "\n".join(lines)


def _needs_comment(sources: list[Path]) -> list[str]:
    return [f"# Also needs {pkg}: {rtl.EXTERNAL_PACKAGES[pkg]}." for pkg in _external_packages(sources)]


def ip_core(ip: str) -> str:
    sources = rtl.ip_sources(ip)
    comments = [banner("#", "couplet/gen/cores.py and the IP's RTL folder").rstrip("\n"), *_needs_comment(sources)]
    return _core(comments, ip_vlnv(ip), ip_summary(ip), [str(src.relative_to(paths.IP_DIR / ip)) for src in sources],
                 [ip_name(dep) for dep in rtl.ip_dependencies(ip)])


def soc_core() -> str:
    """The SoC: its top-level RTL on the SoC's IPs, with a generator for what a configuration makes."""
    soc_dir = SOC_CORE.parent
    sources = sorted((soc_dir / "rtl").glob("*.sv"))
    generator = Path(os.path.relpath(GENERATOR, soc_dir))
    sections = [
        "# The configuration's package and the CV32E40X sources (from the pinned pythondata package,",
        "# with couplet's patches) come from the generator, which runs couplet from this checkout. They",
        "# go after the IPs (prepend: before this core's own files): the package sets typed parameters",
        "# of the IPs' packages.",
        "generators:",
        "  couplet_soc_config:",
        "    interpreter: python3",
        f"    command: {generator}",
        f"    description: {_quoted('the SoC package of a configs/ file and the CV32E40X sources')}",
        "",
        "generate:",
        "  config:",
        "    generator: couplet_soc_config",
        "    position: prepend",
        "    parameters:",
        "      config: default",
        "",
    ]
    return _core([banner("#", "couplet/gen/cores.py and the SoC's RTL folder").rstrip("\n")], SOC_VLNV,
                 "the couplet SoC: CV32E40X with the accelerators of a configuration",
                 [str(src.relative_to(soc_dir)) for src in sources], [ip_name(ip) for ip in rtl.with_dependencies(rtl.SOC_IPS)],
                 sections, ["    generate: [config]", "    toplevel: couplet_soc"])


def core_outputs() -> dict[Path, str]:
    """Every committed core file, with the text it must have."""
    outputs = {paths.IP_DIR / ip / f"{ip}.core": ip_core(ip) for ip in rtl.all_ips()}
    outputs[SOC_CORE] = soc_core()
    return outputs


def generated_core(vlnv: str, config_pkg: Path, cpu_sources: list[Path]) -> str:
    """The core the generator writes: the CPU's files and the configuration's package."""
    comment = "# Written by couplet's FuseSoC generator (couplet/gen/fusesoc_generator.py) for one configuration."
    return _core([comment], vlnv, "", [str(src) for src in [*cpu_sources, config_pkg]], [])
