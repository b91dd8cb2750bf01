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
    """One register, or with count > 1 an array of count words at offset, offset + 4, ..."""

    name: str
    offset: int
    access: str
    description: str
    count: int = 1

    @property
    def end(self) -> int:
        """The first byte offset after the register (or array)."""
        return self.offset + 4 * self.count


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
        reg = Reg(entry["name"], int(entry["offset"]), entry["access"], entry["description"],
                  int(entry.get("count", 1)))
        if reg.access not in ACCESS:
            raise RegsError(f"{path}: register {reg.name}: access must be one of {', '.join(ACCESS)}")
        if reg.count < 1:
            raise RegsError(f"{path}: register {reg.name}: count must be at least 1")
        if reg.offset % 4 or reg.end > span:
            raise RegsError(f"{path}: register {reg.name}: offset 0x{reg.offset:x} unaligned or beyond span")
        regs.append(reg)
    offsets = [r.offset + 4 * i for r in regs for i in range(r.count)]
    if len(set(offsets)) != len(offsets):
        raise RegsError(f"{path}: two registers share an offset")
    if head.get("name") != ip or not regs:
        raise RegsError(f"{path}: [ip].name must be '{ip}' and at least one [[reg]] is needed")
    return IpRegs(ip, head.get("description", ""), span, tuple(regs))
