"""Each IP has its folder, with its RTL and a README."""

from __future__ import annotations

import pytest

from couplet import paths
from couplet.model import rtl

# Every IP folder, not only those in the SoC today: an IP is held to the layout from its
# first commit.
ALL_IPS = rtl.all_ips()


def test_every_soc_ip_has_a_folder() -> None:
    assert set(rtl.SOC_IPS) <= set(ALL_IPS)


@pytest.mark.parametrize("ip", ALL_IPS)
def test_ip_has_a_readme(ip: str) -> None:
    # Its title is the IP's summary in its FuseSoC core (couplet/gen/cores.py, tests/test_cores.py).
    readme = paths.IP_DIR / ip / "README.md"
    assert readme.is_file(), f"{ip} has no README.md"
    assert readme.read_text().startswith("# "), f"{readme}: the first line is the title"
