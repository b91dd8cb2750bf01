"""Each IP's FuseSoC core file lists exactly the RTL the couplet build uses."""

from __future__ import annotations

import re

import pytest

from couplet import paths, rtl


# Every IP folder, not only those in the SoC today: an IP is held to the layout from its
# first commit.
ALL_IPS = sorted(p.name for p in paths.IP_DIR.iterdir() if (p / "rtl").is_dir())


def test_every_soc_ip_has_a_folder() -> None:
    assert set(rtl.SOC_IPS) <= set(ALL_IPS)


@pytest.mark.parametrize("ip", ALL_IPS)
def test_ip_core_file_lists_its_rtl(ip: str) -> None:
    core = paths.IP_DIR / ip / f"{ip}.core"
    listed = re.findall(r"^\s+- (rtl/\S+\.sv)$", core.read_text(), flags=re.M)
    used = [str(p.relative_to(paths.IP_DIR / ip)) for p in rtl.ip_sources(ip)]
    # Same files; the order may differ (a .core may list modules bottom-up) as long as every
    # package comes before the modules that import it.
    assert sorted(listed) == sorted(used)
    packages = [i for i, f in enumerate(listed) if f.endswith("_pkg.sv")]
    modules = [i for i, f in enumerate(listed) if not f.endswith("_pkg.sv")]
    assert not packages or not modules or max(packages) < min(modules), listed
    assert (paths.IP_DIR / ip / "README.md").is_file(), f"{ip} has no README.md"
