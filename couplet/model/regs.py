"""Programming interfaces of the IPs, each described once in ``hw/ip/<ip>/data/<ip>.toml``.

A description holds the registers (``[[reg]]``), their fields (``[[reg.field]]``), named
value sets (``[[enum]]`` with ``[[enum.value]]``: actions, result and refusal codes, modes) and
constants (``[[const]]``: limits, marker values) and the build parameters of the IP's engine
(``[[param]]``: each with its type and legal values, which a SoC configuration sets). From
it ``couplet gen`` writes the SystemVerilog package used by the RTL, the C header used by the
firmware and the Markdown tables of the IP's doc; Python tests read it through this module.
docs/ip_description.md describes the format.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from couplet import paths

ACCESS = {"rw": "read/write", "ro": "read-only", "wo": "write-only (reads return 0)"}
FIELD_ACCESS = {
    "rw": "read/write",
    "ro": "read-only",
    "wo": "write-only",
    "w1c": "sticky, write 1 to clear",
    "rc": "cleared by a read",
}
# The field accesses a register of each access may hold.
_FIELD_ACCESS_IN = {"rw": set(FIELD_ACCESS), "ro": {"ro", "rc"}, "wo": {"wo"}}

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_VALUE_NAME = re.compile(r"[a-z0-9][a-z0-9_]*")  # prefixed by its set's name wherever it is used
_BITS = re.compile(r"(\d+)(?::(\d+))?")

_IP_KEYS = {"name", "description", "span"}
_REG_KEYS = {"name", "offset", "access", "description", "count", "field"}
_FIELD_KEYS = {"name", "bits", "access", "reset", "description", "enum", "action"}
_ENUM_KEYS = {"name", "width", "description", "value"}
_VALUE_KEYS = {"name", "value", "description"}
_CONST_KEYS = {"name", "value", "width", "description"}
_PARAM_KEYS = {"name", "description", "engine", "enum", "subset", "type", "min", "max", "values", "default",
               "optional"}

# A subset parameter's value is a tuple of its value set's names, a name that is a number given as one.
ParamValue = int | str | bool | tuple[int | str, ...]


class RegsError(Exception):
    """A register description is malformed."""


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_T = TypeVar("_T", bound=_Named)


def _named(items: tuple[_T, ...], name: str, missing: str) -> _T:
    for item in items:
        if item.name == name:
            return item
    raise KeyError(f"{missing} {name}")


@dataclass(frozen=True)
class EnumValue:
    name: str
    value: int
    description: str


@dataclass(frozen=True)
class Enum:
    """A named set of values: command indexes, result codes, the encodings of a field."""

    name: str
    width: int
    description: str
    values: tuple[EnumValue, ...]

    def value(self, name: str) -> int:
        return _named(self.values, name, f"value set {self.name} has no value").value


@dataclass(frozen=True)
class Const:
    """A number of the interface that is neither an offset nor a code: a limit, a marker value."""

    name: str
    value: int
    width: int
    description: str


@dataclass(frozen=True)
class Param:
    """A build parameter of the IP's engine: a key of the configuration's [accelerator.<ip>] table
    and a field of the generated ``<ip>_cfg_t``. One of: a value of a value set (``enum``), a
    flag (``bool``), a number in ``min..max``, a number from ``values``, or a non-empty subset of a
    value set (``subset``: the engine builds only those, one bit each at its value). An
    ``optional`` one may be left out of a configuration, which then gets its default."""

    name: str
    description: str
    engine: str  # the engine's SystemVerilog parameter it becomes
    default: ParamValue
    enum: Enum | None = None
    is_bool: bool = False
    low: int = 0
    high: int = 0
    values: tuple[int, ...] = ()
    subset: Enum | None = None
    optional: bool = False

    @property
    def width(self) -> int:
        """Bits of the field in ``<ip>_cfg_t``."""
        if self.enum:
            return self.enum.width
        if self.subset:
            return max(v.value for v in self.subset.values) + 1
        return 1 if self.is_bool else max(1, (max(self.values) if self.values else self.high).bit_length())

    @property
    def legal(self) -> str:
        """The legal values, as an error message and the doc table say them."""
        if self.enum:
            return "one of " + ", ".join(v.name for v in self.enum.values)
        if self.subset:
            return "a non-empty subset of " + ", ".join(v.name for v in self.subset.values) + ", in that order"
        if self.is_bool:
            return "true or false"
        return "one of " + ", ".join(map(str, self.values)) if self.values else f"{self.low}..{self.high}"

    def problem(self, value: object) -> str | None:
        """Why `value` is not legal (None when it is), for the configuration's error message."""
        if self.enum:
            ok = isinstance(value, str) and value in {v.name for v in self.enum.values}
        elif self.subset:
            return self._subset_problem(value)
        elif self.is_bool:
            if not isinstance(value, bool):
                return f"expected bool, got {value!r}"
            ok = True
        elif not isinstance(value, int) or isinstance(value, bool):
            return f"expected int, got {value!r}"
        else:
            ok = value in self.values if self.values else self.low <= value <= self.high
        if ok:
            return None
        shown = f"'{value}'" if isinstance(value, str) else str(value)
        return f"{shown} is not {self.legal}" if self.enum or self.values else f"{shown} is outside {self.legal}"

    def _subset_problem(self, value: object) -> str | None:
        assert self.subset
        if not isinstance(value, (list, tuple)) or not value:
            return f"expected a non-empty list, got {value!r}"
        order = [v.name for v in self.subset.values]
        positions = []
        for item in value:
            name = subset_name(item)
            if name not in order:
                return f"{item!r} is not one of {', '.join(order)}"
            positions.append(order.index(name))
        if any(a >= b for a, b in zip(positions, positions[1:])):
            return f"{list(value)} is not {self.legal} with each once"
        return None

    def encode(self, value: ParamValue) -> int:
        """The number `value` has in the field of ``<ip>_cfg_t`` (a subset: bit i for value i)."""
        if self.enum:
            assert isinstance(value, str)
            return self.enum.value(value)
        if self.subset:
            assert isinstance(value, tuple)
            bits = 0
            for item in value:
                bits |= 1 << self.subset.value(str(subset_name(item)))
            return bits
        assert not isinstance(value, tuple)
        return int(value)

    @property
    def choices(self) -> tuple[ParamValue, ...]:
        """Every legal value (a sweep's axis)."""
        if self.enum:
            return tuple(v.name for v in self.enum.values)
        if self.is_bool:
            return (False, True)
        if self.subset:
            items = [int(v.name) if v.name.isdigit() else v.name for v in self.subset.values]
            return tuple(tuple(x for i, x in enumerate(items) if mask >> i & 1) for mask in range(1, 1 << len(items)))
        return self.values or tuple(range(self.low, self.high + 1))


def subset_name(item: object) -> str | None:
    """The value name an element of a subset parameter gives: a name that is a number is written
    as a number (key sizes), any other as a string; None for anything else."""
    if isinstance(item, int) and not isinstance(item, bool):
        return str(item)
    if isinstance(item, str) and not item.isdigit():
        return item
    return None


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int
    access: str
    reset: int
    description: str
    enum: str | None = None
    action: str | None = None  # writing 1 runs this action (a value of the action set)

    @property
    def msb(self) -> int:
        return self.lsb + self.width - 1

    @property
    def mask(self) -> int:
        """The field's bits in place in the register word."""
        return ((1 << self.width) - 1) << self.lsb

    @property
    def bits(self) -> str:
        return f"{self.lsb}" if self.width == 1 else f"{self.msb}:{self.lsb}"


@dataclass(frozen=True)
class Reg:
    """One register, or with count > 1 an array of count words at offset, offset + 4, ..."""

    name: str
    offset: int
    access: str
    description: str
    count: int = 1
    fields: tuple[Field, ...] = ()

    @property
    def end(self) -> int:
        """The first byte offset after the register (or array)."""
        return self.offset + 4 * self.count

    @property
    def reset(self) -> int:
        return sum(f.reset << f.lsb for f in self.fields)

    def field(self, name: str) -> Field:
        return _named(self.fields, name, f"register {self.name} has no field")


@dataclass(frozen=True)
class IpRegs:
    ip: str
    description: str
    span: int
    regs: tuple[Reg, ...]
    enums: tuple[Enum, ...] = ()
    consts: tuple[Const, ...] = ()
    params: tuple[Param, ...] = ()

    def reg(self, name: str) -> Reg:
        return _named(self.regs, name, f"{self.ip} has no register")

    def field(self, reg: str, name: str) -> Field:
        return self.reg(reg).field(name)

    def enum(self, name: str) -> Enum:
        return _named(self.enums, name, f"{self.ip} has no value set")

    def const(self, name: str) -> int:
        return _named(self.consts, name, f"{self.ip} has no constant").value

    def value(self, enum: str, name: str) -> int:
        return self.enum(enum).value(name)

    def param(self, name: str) -> Param:
        return _named(self.params, name, f"{self.ip} has no parameter")


def description_path(ip: str) -> Path:
    return paths.IP_DIR / ip / "data" / f"{ip}.toml"


def load_ip_regs(ip: str) -> IpRegs:
    path = description_path(ip)
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise RegsError(f"{path}: {err}") from err
    try:
        return _parse(ip, doc)
    except RegsError as err:
        raise RegsError(f"{path}: {err}") from None


def _parse(ip: str, doc: dict[str, Any]) -> IpRegs:
    _known(doc, {"ip", "reg", "enum", "const", "param"}, "the file")
    head = doc.get("ip", {})
    _known(head, _IP_KEYS, "[ip]")
    span = int(head.get("span", 0))
    enums = tuple(_parse_enum(entry) for entry in doc.get("enum", []))
    consts = tuple(_parse_const(entry) for entry in doc.get("const", []))
    _unique([c.name for c in consts], "constant")
    _unique([e.name for e in enums], "value set")
    widths = {e.name: e.width for e in enums}
    params = tuple(_parse_param(entry, {e.name: e for e in enums}) for entry in doc.get("param", []))
    _unique([p.name for p in params], "parameter")
    regs = []
    for entry in doc.get("reg", []):
        _known(entry, _REG_KEYS, f"register {entry.get('name')}")
        name = _name(entry, "register")
        where = f"register {name}"
        access = _get(entry, "access", where)
        if access not in ACCESS:
            raise RegsError(f"{where}: access must be one of {', '.join(ACCESS)}")
        fields = tuple(_parse_field(f, where, access, widths) for f in entry.get("field", []))
        reg = Reg(name, int(_get(entry, "offset", where)), access, _get(entry, "description", where),
                  int(entry.get("count", 1)), fields)
        if reg.count < 1:
            raise RegsError(f"{where}: count must be at least 1")
        if reg.offset % 4 or reg.end > span:
            raise RegsError(f"{where}: offset 0x{reg.offset:x} unaligned or beyond span")
        _unique([f.name for f in fields], f"{where}: field")
        _check_actions(fields, where, enums)
        taken = 0
        for f in sorted(fields, key=lambda f: f.lsb):
            if taken & f.mask:
                raise RegsError(f"{where}: field {f.name} (bits {f.bits}) overlaps another field")
            taken |= f.mask
        regs.append(reg)
    _unique([r.name for r in regs], "register")
    offsets = [r.offset + 4 * i for r in regs for i in range(r.count)]
    if len(set(offsets)) != len(offsets):
        raise RegsError("two registers share an offset")
    if head.get("name") != ip or not regs:
        raise RegsError(f"[ip].name must be '{ip}' and at least one [[reg]] is needed")
    return IpRegs(ip, head.get("description", ""), span, tuple(regs), enums, consts, params)


def _check_actions(fields: tuple[Field, ...], where: str, enums: tuple[Enum, ...]) -> None:
    """A field with an action runs it when written with 1. The engines decode such a register
    generically (couplet_accel_frontend: bit i runs action i, the highest set bit wins), so each
    such field is one bit at the position of its action's value, and the actions are 0..N-1."""
    acting = [f for f in fields if f.action is not None]
    if not acting:
        return
    actions = next((e for e in enums if e.name == "action"), None)
    if actions is None:
        raise RegsError(f"{where}: fields name actions but there is no value set named action")
    values = sorted(v.value for v in actions.values)
    if values != list(range(len(values))):
        raise RegsError(f"{where}: the actions a register runs must be numbered 0..{len(values) - 1}")
    for f in acting:
        value = next((v.value for v in actions.values if v.name == f.action), None)
        if value is None:
            raise RegsError(f"{where}: field {f.name}: no action named {f.action}")
        if f.width != 1 or f.lsb != value:
            raise RegsError(f"{where}: field {f.name} runs action {f.action} ({value}), so it must be bit {value}")


def _parse_enum(entry: dict[str, Any]) -> Enum:
    _known(entry, _ENUM_KEYS, f"value set {entry.get('name')}")
    name = _name(entry, "value set")
    where = f"value set {name}"
    width = int(_get(entry, "width", where))
    if not 1 <= width <= 32:
        raise RegsError(f"{where}: width must be 1..32")
    values = []
    for v in entry.get("value", []):
        _known(v, _VALUE_KEYS, f"{where}: value {v.get('name')}")
        vname = v.get("name")
        if not isinstance(vname, str) or not _VALUE_NAME.fullmatch(vname):
            raise RegsError(f"{where}: value name {vname!r} must be lower_snake_case")
        value = int(_get(v, "value", f"{where}: value {vname}"))
        if not 0 <= value < 1 << width:
            raise RegsError(f"{where}: value {vname} = {value} does not fit in {width} bits")
        values.append(EnumValue(vname, value, _get(v, "description", f"{where}: value {vname}")))
    if not values:
        raise RegsError(f"{where}: at least one [[enum.value]] is needed")
    _unique([v.name for v in values], f"{where}: value")
    _unique([str(v.value) for v in values], f"{where}: value number")
    return Enum(name, width, _get(entry, "description", where), tuple(values))


def _parse_const(entry: dict[str, Any]) -> Const:
    _known(entry, _CONST_KEYS, f"constant {entry.get('name')}")
    name = _name(entry, "constant")
    where = f"constant {name}"
    width = int(entry.get("width", 32))
    value = int(_get(entry, "value", where))
    if not 1 <= width <= 32 or not 0 <= value < 1 << width:
        raise RegsError(f"{where}: value {value} does not fit in width {width} (1..32 bits)")
    return Const(name, value, width, _get(entry, "description", where))


def _parse_param(entry: dict[str, Any], enums: dict[str, Enum]) -> Param:
    _known(entry, _PARAM_KEYS, f"parameter {entry.get('name')}")
    name = _name(entry, "parameter")
    where = f"parameter {name}"
    kinds = [k for k in ("enum", "subset", "type", "values", "max") if k in entry]
    if len(kinds) != 1 or ("min" in entry) != ("max" in entry) or entry.get("type", "bool") != "bool":
        raise RegsError(f"{where}: give exactly one of enum = \"<value set>\", subset = \"<value set>\", "
                        "type = \"bool\", min and max, or values = [...]")
    enum = subset = None
    for key in ("enum", "subset"):
        if key in entry and entry[key] not in enums:
            raise RegsError(f"{where}: no value set named {entry[key]}")
    if "enum" in entry:
        enum = enums[entry["enum"]]
    if "subset" in entry:
        subset = enums[entry["subset"]]
    optional = entry.get("optional", False)
    if not isinstance(optional, bool):
        raise RegsError(f"{where}: optional must be true or false")
    values = tuple(entry.get("values", ()))
    if "values" in entry and (not values or not all(isinstance(v, int) and v >= 0 for v in values)
                              or len(set(values)) != len(values)):
        raise RegsError(f"{where}: values must be distinct numbers >= 0, at least one")
    low, high = int(entry.get("min", 0)), int(entry.get("max", 0))
    if "max" in entry and not 0 <= low <= high:
        raise RegsError(f"{where}: min {low} and max {high} must be 0 <= min <= max")
    default = _get(entry, "default", where)
    param = Param(name, _get(entry, "description", where), _get(entry, "engine", where),
                  tuple(default) if isinstance(default, list) else default, enum, "type" in entry, low, high,
                  values, subset, optional)
    problem = param.problem(param.default)
    if problem:
        raise RegsError(f"{where}: default {problem}")
    return param


def _parse_field(entry: dict[str, Any], reg_where: str, reg_access: str, enum_widths: dict[str, int]) -> Field:
    _known(entry, _FIELD_KEYS, f"{reg_where}: field {entry.get('name')}")
    name = _name(entry, f"{reg_where}: field")
    where = f"{reg_where}: field {name}"
    bits = _BITS.fullmatch(str(_get(entry, "bits", where)))
    if not bits:
        raise RegsError(f"{where}: bits must be \"msb:lsb\" or \"bit\"")
    msb = int(bits[1])
    lsb = int(bits[2]) if bits[2] is not None else msb
    if msb < lsb or msb > 31:
        raise RegsError(f"{where}: bits {bits[0]} are not within 31:0 with msb >= lsb")
    access = entry.get("access", reg_access)
    if access not in _FIELD_ACCESS_IN[reg_access]:
        raise RegsError(f"{where}: access {access} is not one of a {reg_access} register's "
                        f"({', '.join(sorted(_FIELD_ACCESS_IN[reg_access]))})")
    width = msb - lsb + 1
    reset = int(entry.get("reset", 0))
    if not 0 <= reset < 1 << width:
        raise RegsError(f"{where}: reset {reset} does not fit in {width} bits")
    enum = entry.get("enum")
    if enum is not None:
        if enum not in enum_widths:
            raise RegsError(f"{where}: no value set named {enum}")
        if enum_widths[enum] != width:
            raise RegsError(f"{where}: value set {enum} is {enum_widths[enum]} bits wide, the field {width}")
    return Field(name, lsb, width, access, reset, _get(entry, "description", where), enum, entry.get("action"))


def _name(entry: dict[str, Any], what: str) -> str:
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RegsError(f"{what} name {name!r} must be lower_snake_case")
    return name


def _get(entry: dict[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise RegsError(f"{where}: '{key}' is missing")
    return entry[key]


def _known(entry: dict[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(entry) - keys)
    if unknown:
        raise RegsError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _unique(names: list[str], what: str) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise RegsError(f"{what} {name} is defined twice")
        seen.add(name)
