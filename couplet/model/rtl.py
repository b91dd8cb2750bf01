"""RTL source lists: the CV32E40X core from its PyPI package and couplet's own files.

Which IPs a build compiles is read from the RTL, not written down: a reference to
``<name>_pkg::`` (or an ``import``) names the IP that defines that package, an instance the IP
that defines the module, so a top names the IPs it builds on and the rest follows (a new
primitive reaches every build, core file and test bench that needs it). The few packages that
come from outside the IPs (the CPU's, the configuration's) are listed in EXTERNAL_PACKAGES with
what provides them, so a new dependency cannot slip into an IP unnoticed.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from couplet import paths
from couplet.errors import BuildError, CoupletError

# Verification-only parts of the core package: the RVFI tracer and its wrapper.
_CORE_EXCLUDE = ("cv32e40x_wrapper.sv", "cv32e40x_rvfi", "rvfi_sim_trace.sv", "cv32e40x_sim_clock_gate.sv")


CORE_PATCHES_DIR = paths.HW_DIR / "vendor" / "cv32e40x" / "patches"


def installed_core_root() -> Path:
    import pythondata_cpu_cv32e40x  # pinned in requirements.txt

    return Path(pythondata_cpu_cv32e40x.data_location)


def core_root() -> Path:
    """The core's RTL: a copy of the installed package with our patches applied.

    Each patch in hw/vendor/cv32e40x/patches/ says what it fixes and why. The copy is redone
    when the package or a patch changes; the installed package is never modified.
    """
    import pythondata_cpu_cv32e40x

    source = installed_core_root()
    patches = sorted(CORE_PATCHES_DIR.glob("*.patch"))
    digest = hashlib.sha256(pythondata_cpu_cv32e40x.version_str.encode())
    for patch in patches:
        digest.update(patch.read_bytes())
    stamp = digest.hexdigest()
    # The folder name keeps "pythondata_cpu_cv32e40x" so the third-party lint waiver applies.
    copy = paths.BUILD_DIR / "vendor" / "pythondata_cpu_cv32e40x" / "system_verilog"
    stamp_file = copy.parent / "patched.stamp"
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        return copy
    if copy.exists():
        shutil.rmtree(copy)
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("docs", "tb", "__pycache__"))
    for patch in patches:
        proc = subprocess.run(["git", "apply", str(patch)], cwd=copy, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"core patch {patch.name} does not apply to {source}:\n{proc.stderr}")
    stamp_file.write_text(stamp)
    return copy


def core_include_dirs() -> list[Path]:
    return [core_root() / "rtl" / "include"]


def core_sources(simulation: bool = True) -> list[Path]:
    """The core's files in manifest order; the behavioural clock gate only for simulation."""
    root = core_root()
    rtl_dir = root / "rtl"
    sources = []
    for line in (root / "cv32e40x_manifest.flist").read_text().splitlines():
        line = line.strip()
        if not line.startswith("${DESIGN_RTL_DIR}"):
            continue
        path = Path(line.replace("${DESIGN_RTL_DIR}", str(rtl_dir))).resolve()
        if any(part in path.name for part in _CORE_EXCLUDE):
            continue
        sources.append(path)
    if simulation:
        sources.append((root / "bhv" / "cv32e40x_sim_clock_gate.sv").resolve())
    return sources


def ip_sources(ip: str) -> list[Path]:
    """An IP's RTL: generated packages first, then its own packages, then its modules."""
    ip_dir = paths.IP_DIR / ip / "rtl"
    packages = sorted(ip_dir.glob("*_pkg.sv"))
    modules = sorted(p for p in ip_dir.glob("*.sv") if p not in packages)
    return sorted((ip_dir / "autogen").glob("*_pkg.sv")) + packages + modules


# Packages an IP may use that no IP defines, with where they come from.
# Interfaces count as packages here: the X-IF adapter's ports are the CPU's if_xif modports.
EXTERNAL_PACKAGES = {
    "cv32e40x_pkg": "the CV32E40X core (the SoC core's generator provides it)",
    "if_xif": "the CV32E40X core's X-IF interface (the SoC core's generator provides it)",
    "couplet_soc_cfg_pkg": "a SoC configuration (the SoC core's generator writes it)",
}

_PACKAGE_DEF = re.compile(r"^\s*package\s+(\w+)\s*;", re.M)
_PACKAGE_USE = re.compile(r"\b(\w+_pkg)::|^\s*(if_xif)\.", re.M)
_MODULE_DEF = re.compile(r"^\s*module\s+(\w+)", re.M)
# An instance: `name #(` or `name u_x (` at the start of a line. A statement of another shape that
# matches (`return f(...)`) names no module, so it is never taken for one.
_INSTANCE = re.compile(r"^\s*(\w+)\s*(?:#\s*\(|\w+\s*\()", re.M)


class DependencyError(CoupletError):
    """An IP's RTL uses a package that nothing provides, or IPs depend on each other in a circle."""


def all_ips() -> list[str]:
    """Every IP folder with RTL, in the SoC or not (an IP is held to the layout from its start)."""
    return sorted(p.name for p in paths.IP_DIR.iterdir() if (p / "rtl").is_dir())


def packages_used(src: Path) -> set[str]:
    return {pkg or iface for pkg, iface in _PACKAGE_USE.findall(src.read_text())}


def _packages_defined(ip: str) -> set[str]:
    return {name for src in ip_sources(ip) for name in _PACKAGE_DEF.findall(src.read_text())}


def _modules_defined(ip: str) -> set[str]:
    return {name for src in ip_sources(ip) for name in _MODULE_DEF.findall(src.read_text())}


def ip_dependencies(ip: str) -> list[str]:
    """The other IPs whose packages `ip` uses or whose modules it instantiates, by name."""
    providers = {pkg: other for other in all_ips() for pkg in _packages_defined(other)}
    module_providers = {mod: other for other in all_ips() if other != ip for mod in _modules_defined(other)}
    own = _packages_defined(ip)
    needed: set[str] = set()
    for src in ip_sources(ip):
        text = src.read_text()
        for pkg in packages_used(src) - own:
            if pkg in providers:
                needed.add(providers[pkg])
            elif pkg not in EXTERNAL_PACKAGES:
                raise DependencyError(f"{src}: uses {pkg}, which no IP defines and EXTERNAL_PACKAGES does not list")
        needed |= {module_providers[m] for m in _INSTANCE.findall(text) if m in module_providers}
    return sorted(needed)


def with_dependencies(ips: Iterable[str]) -> list[str]:
    """`ips` and every IP they depend on, in compile order: each after the IPs it depends on,
    otherwise in the order given."""
    order: list[str] = []

    def visit(ip: str, path: tuple[str, ...]) -> None:
        if ip in path:
            raise DependencyError(f"IPs depend on each other in a circle: {' -> '.join((*path, ip))}")
        if ip in order:
            return
        for dep in ip_dependencies(ip):
            visit(dep, (*path, ip))
        order.append(ip)

    for ip in ips:
        visit(ip, ())
    return order


def sources_with_dependencies(ips: Iterable[str]) -> list[Path]:
    """The RTL of `ips` and of every IP they depend on, in compile order."""
    return [p for ip in with_dependencies(ips) for p in ip_sources(ip)]


def module_sources(ip: str, top: str) -> list[Path]:
    """The files of `ip` that its module `top` needs, in compile order: the top's file, the files of
    the modules it instantiates and of the IP's packages they use, transitively. A unit test or a
    lint of one module compiles just these (a package compiled but not imported would report its
    unused parameters); what the module needs of other IPs the caller adds."""
    sources = ip_sources(ip)
    texts = {src: src.read_text() for src in sources}
    module_file = {name: src for src, text in texts.items() for name in _MODULE_DEF.findall(text)}
    package_file = {name: src for src, text in texts.items() for name in _PACKAGE_DEF.findall(text)}
    if top not in module_file:
        raise CoupletError(f"IP '{ip}' defines no module {top} (it defines: {', '.join(sorted(module_file))})")
    needed: set[Path] = set()
    todo = [module_file[top]]
    while todo:
        src = todo.pop()
        if src in needed:
            continue
        needed.add(src)
        todo += [module_file[m] for m in _INSTANCE.findall(texts[src]) if m in module_file]
        todo += [package_file[p] for p in packages_used(src) if p in package_file]
    return [src for src in sources if src in needed]


def accel_port_sources() -> list[Path]:
    """What an accelerator needs of the coupling layer on its own: the command port's types, the
    response side and register front end every accelerator shares, and the checkers of their
    rules (for a unit test of the accelerator without the adapters)."""
    rtl_dir = paths.IP_DIR / "accel" / "rtl"
    return [rtl_dir / "couplet_accel_pkg.sv", rtl_dir / "couplet_handshake_assert.sv",
            rtl_dir / "couplet_accel_port_assert.sv", rtl_dir / "couplet_accel_responder.sv",
            rtl_dir / "couplet_accel_frontend.sv"]


# In compile order: the bus package (obi) and the coupling layer's port types (accel) before the
# IPs that import them, and the tiles (coupling), which name every engine and whose package types
# the engines' parameters, after the engines. What these build on (prim) joins by
# with_dependencies.
SOC_IPS = ("obi", "sram", "clint", "simctrl", "accel", "dma", "aes", "keccak", "rtos", "coupling")
# What an accelerator tile (hw/ip/coupling/rtl/couplet_accel_tile.sv) is built from, in compile
# order: it names every kind's engine, and its bus ports are OBI.
TILE_IPS = ("obi", "accel", "dma", "aes", "keccak", "rtos", "coupling")


def soc_sources(config_pkg: Path, extra_ips: Iterable[str] = ()) -> list[Path]:
    """couplet's RTL for the SoC top (not the core), in compile order: the configuration's package
    sets typed parameters of the IPs' packages, so it follows them. `extra_ips` are IPs a board's
    top uses beside the SoC; what they share with it is compiled once."""
    sources = sources_with_dependencies((*SOC_IPS, *extra_ips))
    sources += [config_pkg, *sorted((paths.HW_DIR / "soc" / "rtl").glob("*.sv"))]
    return sources


def tile_sources(config_pkg: Path) -> list[Path]:
    """A configuration's tiles on their own (couplet_fmax_tile builds one from the package)."""
    return [*sources_with_dependencies(TILE_IPS), config_pkg]


def sim_top_sources() -> list[Path]:
    return [paths.SIM_DIR / "rtl" / "couplet_sim_top.sv"]
