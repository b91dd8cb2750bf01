"""Peripheral register maps, each described once in ``hw/ip/<ip>/data/<ip>.toml``.

From that description ``couplet gen`` writes the SystemVerilog offset package used by the
RTL, the C header used by the firmware and the Markdown table in the IP's doc.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from couplet import paths

ACCESS = {"rw": "read/write", "ro": "read-only", "wo": "write-only (reads return 0)"}


class RegsError(Exception):
    """A register description is malformed."""


@dataclass(frozen=True)
class Reg:
    name: str
    offset: int
    access: str
    description: str


@dataclass(frozen=True)
class IpRegs:
    ip: str
    description: str
    span: int
    regs: tuple[Reg, ...]


def load_ip_regs(ip: str) -> IpRegs:
    path = paths.IP_DIR / ip / "data" / f"{ip}.toml"
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise RegsError(f"{path}: {err}") from err
    head = doc.get("ip", {})
    span = int(head.get("span", 0))
    regs = []
    for entry in doc.get("reg", []):
        reg = Reg(entry["name"], int(entry["offset"]), entry["access"], entry["description"])
        if reg.access not in ACCESS:
            raise RegsError(f"{path}: register {reg.name}: access must be one of {', '.join(ACCESS)}")
        if reg.offset % 4 or reg.offset + 4 > span:
            raise RegsError(f"{path}: register {reg.name}: offset 0x{reg.offset:x} unaligned or beyond span")
        regs.append(reg)
    offsets = [r.offset for r in regs]
    if len(set(offsets)) != len(offsets):
        raise RegsError(f"{path}: two registers share an offset")
    if head.get("name") != ip or not regs:
        raise RegsError(f"{path}: [ip].name must be '{ip}' and at least one [[reg]] is needed")
    return IpRegs(ip, head.get("description", ""), span, tuple(regs))
