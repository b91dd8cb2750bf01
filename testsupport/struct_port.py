"""Packed struct ports of a design, seen from cocotb: where each field sits, read from the SV
package that declares the struct, and handles on single fields that the models read and drive
like signals.

Verilator hands a packed struct port (or a packed array of them) to cocotb as one vector, so the
models reach a field by its bit position. The positions come from the package, so the RTL stays
the one place that says what a port holds: couplet_obi_pkg's obi_req_t / obi_rsp_t, and
couplet_accel_pkg's command port and memory side (accel_cmd_req_t, accel_mem_rsp_t, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_TYPEDEF = re.compile(
    r"typedef\s+(?:enum\s+logic\s*(?:\[(?P<emsb>\d+):(?P<elsb>\d+)\])?\s*\{[^}]*\}"
    r"|struct\s+packed\s*\{(?P<members>[^}]*)\})\s*(?P<name>\w+)\s*;"
)
_MEMBER = re.compile(r"\s*(?P<type>\w+)\s*(?:\[(?P<msb>\d+):(?P<lsb>\d+)\])?\s*(?P<name>\w+)\s*")


def _package_types(package: Path) -> dict[str, int | list[tuple[str, str, int]]]:
    """Each enum of the package by its width, each packed struct by its members (name, type,
    width of a `logic` member), first declared first."""
    text = re.sub(r"//[^\n]*", "", package.read_text())
    types: dict[str, int | list[tuple[str, str, int]]] = {}
    for match in _TYPEDEF.finditer(text):
        if match["members"] is None:
            msb, lsb = match["emsb"], match["elsb"]
            types[match["name"]] = 1 if msb is None else int(msb) - int(lsb) + 1
            continue
        members = []
        for decl in match["members"].split(";"):
            if not decl.strip():
                continue
            member = _MEMBER.fullmatch(decl)
            if member is None:
                raise ValueError(f"{package}: {match['name']}: cannot read field {decl.strip()!r}")
            width = 1 if member["msb"] is None else int(member["msb"]) - int(member["lsb"]) + 1
            members.append((member["name"], member["type"], width))
        types[match["name"]] = members
    return types


@dataclass(frozen=True)
class StructLayout:
    """Where each field of a packed struct sits: {name: (lsb, width)} and the struct's width. A
    member that is itself a struct of the package is there whole and by each of its fields,
    `outer.inner`."""

    name: str
    fields: dict[str, tuple[int, int]]
    width: int

    @classmethod
    def from_package(cls, type_name: str, package: Path) -> StructLayout:
        types = _package_types(package)

        def place(name: str, lsb: int, prefix: str, fields: dict[str, tuple[int, int]]) -> int:
            """Put the members of struct `name` from bit `lsb` up; its width."""
            members = types[name]
            assert isinstance(members, list)
            for member, member_type, logic_width in reversed(members):
                path = prefix + member
                if member_type == "logic":
                    width = logic_width
                elif member_type not in types:
                    raise ValueError(f"{package}: {name}.{member}: no type {member_type} in the package")
                elif isinstance(types[member_type], int):
                    width = int(types[member_type])  # an enum
                else:
                    width = place(member_type, lsb, path + ".", fields)
                fields[path] = (lsb, width)
                lsb += width
            return sum(fields[prefix + m][1] for m, _, _ in members)

        if not isinstance(types.get(type_name), list):
            raise ValueError(f"{package}: no packed struct {type_name}")
        fields: dict[str, tuple[int, int]] = {}
        width = place(type_name, 0, "", fields)
        return cls(type_name, fields, width)

    def pack(self, **values: int) -> int:
        """The struct's bits with the given top-level fields set (the others zero)."""
        bits = 0
        for name, value in values.items():
            lsb, width = self.fields[name]
            bits |= (int(value) & ((1 << width) - 1)) << lsb
        return bits

    def get(self, bits: int, name: str) -> int:
        lsb, width = self.fields[name]
        return bits >> lsb & ((1 << width) - 1)


class _Vector:
    """A design input that several fields (and, for a packed array, several models) write.

    cocotb applies a write only when the writing coroutine yields, so reading the handle back to
    change one field would lose the fields written before in the same step. The models therefore
    keep the vector's value here and write it whole each time a field changes; they are its only
    drivers.
    """

    _all: dict[str, _Vector] = {}

    def __init__(self, handle: object) -> None:
        self.handle = handle
        self.bits = 0

    @classmethod
    def of(cls, handle: object) -> _Vector:
        """The one shadow of a design input, whichever handle object names it."""
        key = handle._path
        if key not in cls._all:
            cls._all[key] = cls(handle)
        return cls._all[key]

    def write(self, lsb: int, width: int, value: int) -> None:
        mask = ((1 << width) - 1) << lsb
        self.bits = (self.bits & ~mask) | ((int(value) << lsb) & mask)
        self.handle.value = self.bits


class StructField:
    """One field of a struct port (entry `index` of a packed array of them), used like a handle:
    `.value` reads the field as an int and, on a design input, writes it."""

    def __init__(self, handle: object, layout: StructLayout, name: str, index: int = 0,
                 writable: bool = False) -> None:
        lsb, self.width = layout.fields[name]
        self.lsb = index * layout.width + lsb
        self.handle = handle
        self.vector = _Vector.of(handle) if writable else None

    @property
    def value(self) -> int:
        return int(self.handle.value) >> self.lsb & ((1 << self.width) - 1)

    @value.setter
    def value(self, value: int) -> None:
        if self.vector is None:
            raise AttributeError("an output of the design cannot be driven")
        self.vector.write(self.lsb, self.width, value)


class StructPort:
    """A struct port of the design (`<name>_i` or `<name>_o`, entry `index` of a packed array of
    them): `port.valid`, `port["cmd.op"]` are its fields as StructFields; those of an input can
    be driven."""

    def __init__(self, dut: object, name: str, layout: StructLayout, index: int | None = None) -> None:
        self.name = name + ("" if index is None else f"[{index}]")
        self.layout = layout
        handle = getattr(dut, name)
        writable = name.endswith("_i")
        self._fields = {f: StructField(handle, layout, f, index or 0, writable) for f in layout.fields}

    def __getitem__(self, name: str) -> StructField:
        return self._fields[name]

    def __getattr__(self, name: str) -> StructField:
        try:
            return self.__dict__["_fields"][name]
        except KeyError:
            raise AttributeError(f"{self.name} has no field {name}") from None


# The struct type of each struct port name the testbenches use (`obi_rsp_o`, `cmd_rsp_o`, ...),
# so that a check can name a field as `port.field`; each model adds the ports it knows.
PORT_LAYOUTS: dict[str, StructLayout] = {}


def signal(dut: object, name: str) -> object:
    """A signal of the design by name; `<port>.<field>` or `<port>[i].<field>` names a field of a
    struct port listed in PORT_LAYOUTS (entry i of an array of them)."""
    match = re.fullmatch(r"(\w+)(?:\[(\d+)\])?\.([\w.]+)", name)
    if match is None:
        return getattr(dut, name)
    port, index, field_name = match.groups()
    if port not in PORT_LAYOUTS:
        raise KeyError(f"{port}: not a known struct port (testsupport.struct_port.PORT_LAYOUTS)")
    return StructField(getattr(dut, port), PORT_LAYOUTS[port], field_name, int(index or 0))


def assert_values(dut: object, expected: dict[str, int], when: str = "after reset") -> None:
    for name, value in expected.items():
        got = int(signal(dut, name).value)
        assert got == value, f"{name} {when}: expected {value:#x}, got {got:#x}"
