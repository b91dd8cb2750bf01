"""RTL source lists: the CV32E40X core from its PyPI package and couplet's own files."""

from __future__ import annotations

from pathlib import Path

from couplet import paths

# Verification-only parts of the core package: the RVFI tracer and its wrapper.
_CORE_EXCLUDE = ("cv32e40x_wrapper.sv", "cv32e40x_rvfi", "rvfi_sim_trace.sv", "cv32e40x_sim_clock_gate.sv")


def core_root() -> Path:
    import pythondata_cpu_cv32e40x  # pinned in requirements.txt

    return Path(pythondata_cpu_cv32e40x.data_location)


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
    """An IP's RTL: generated packages first, then its modules."""
    ip_dir = paths.IP_DIR / ip / "rtl"
    return sorted((ip_dir / "autogen").glob("*_pkg.sv")) + sorted(ip_dir.glob("*.sv"))


SOC_IPS = ("obi", "sram", "clint", "simctrl")


def soc_sources(config_pkg: Path) -> list[Path]:
    """couplet's RTL for the SoC top (not the core), in compile order."""
    sources = [config_pkg]
    for ip in SOC_IPS:
        sources += ip_sources(ip)
    sources += sorted((paths.HW_DIR / "soc" / "rtl").glob("*.sv"))
    return sources


def sim_top_sources() -> list[Path]:
    return [paths.SIM_DIR / "rtl" / "couplet_sim_top.sv"]
