"""Register maps (couplet/model/regs.py): arrays, and the malformed descriptions it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from couplet import paths
from couplet.gen import generate
from couplet.model import regs

HEAD = '[ip]\nname = "toy"\ndescription = "a toy"\nspan = 0x40\n'


def reg(name: str, offset: int, count: int | None = None) -> str:
    extra = f"count = {count}\n" if count is not None else ""
    return f'\n[[reg]]\nname = "{name}"\n{extra}offset = 0x{offset:X}\naccess = "rw"\ndescription = "d"\n'


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> regs.IpRegs:
    (tmp_path / "toy" / "data").mkdir(parents=True)
    (tmp_path / "toy" / "data" / "toy.toml").write_text(text)
    monkeypatch.setattr(paths, "IP_DIR", tmp_path)
    return regs.load_ip_regs("toy")


def test_array_offsets_and_generated_constants(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toy = load(tmp_path, monkeypatch, HEAD + reg("data", 0x0, 4) + reg("ctrl", 0x10))
    data, ctrl = toy.regs
    assert (data.count, data.end, ctrl.count, ctrl.end) == (4, 0x10, 1, 0x14)
    package = generate.sv_reg_package(toy)
    assert "TOY_DATA_OFFSET = 5'h0;" in package and "TOY_DATA_COUNT = 4;" in package
    assert "TOY_CTRL_COUNT" not in package
    header = generate.c_reg_header(toy)
    assert "#define TOY_DATA_COUNT 4u" in header and "#define TOY_CTRL_OFFSET 0x0010u" in header
    assert "#define TOY_DATA_INDEX 0u" in header and "#define TOY_CTRL_INDEX 4u" in header
    assert "`DATA0`..`DATA3` | `0x0000`-`0x000C`" in generate.reg_doc(toy)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (reg("data", 0x0, 4) + reg("ctrl", 0xC), "share an offset"),  # inside the array
        (reg("data", 0x30, 5), "beyond span"),                         # array runs past the window
        (reg("data", 0x0, 0), "count must be at least 1"),
        (reg("data", 0x2), "unaligned"),
    ],
)
def test_malformed_maps_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
                                    message: str) -> None:
    with pytest.raises(regs.RegsError, match=message):
        load(tmp_path, monkeypatch, HEAD + body)


def field(name: str, bits: str, extra: str = "") -> str:
    return f'\n[[reg.field]]\nname = "{name}"\nbits = "{bits}"\ndescription = "d"\n{extra}'


def enum(name: str, width: int, *values: tuple[str, int]) -> str:
    text = f'\n[[enum]]\nname = "{name}"\nwidth = {width}\ndescription = "d"\n'
    for vname, value in values:
        text += f'\n[[enum.value]]\nname = "{vname}"\nvalue = {value}\ndescription = "d"\n'
    return text


MODE = enum("mode", 2, ("ecb", 0), ("cbc", 1))
ACTION = enum("action", 2, ("go", 0), ("stop", 1), ("load", 2))


def test_fields_and_value_sets_reach_every_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toy = load(tmp_path, monkeypatch, HEAD + MODE + reg("ctrl", 0x0)
               + field("mode", "1:0", 'enum = "mode"\nreset = 1\n') + field("irq", "4", 'access = "w1c"\n'))
    assert toy.value("mode", "cbc") == 1
    mode, irq = toy.field("ctrl", "mode"), toy.field("ctrl", "irq")
    assert (mode.lsb, mode.width, mode.mask, irq.lsb, irq.mask) == (0, 2, 0x3, 4, 0x10)
    assert toy.reg("ctrl").reset == 1
    with pytest.raises(KeyError, match="register ctrl has no field nope"):
        toy.field("ctrl", "nope")
    with pytest.raises(KeyError, match="value set mode has no value ofb"):
        toy.value("mode", "ofb")
    package = generate.sv_reg_package(toy)
    assert "ToyModeCbc = 2'h1" in package and "} toy_mode_e;" in package
    assert "TOY_CTRL_IRQ_BIT = 4;" in package and "TOY_CTRL_MODE_LSB = 0;" in package
    assert "TOY_CTRL_MODE_WIDTH = 2;" in package
    # The struct lists the highest field first, with the gap between them reserved.
    struct = package[package.index("typedef struct packed"):]
    assert struct.index("logic irq;") < struct.index("logic [3:2] rsvd2;") < struct.index("toy_mode_e mode;")
    header = generate.c_reg_header(toy)
    assert "#define TOY_CTRL_IRQ_SHIFT 4u" in header and "#define TOY_CTRL_IRQ_MASK 0x00000010u" in header
    assert "#define TOY_MODE_CBC 0x1u" in header
    assert "#define TOY_MODE_LIST(X) \\\n  X(ecb, TOY_MODE_ECB) \\\n  X(cbc, TOY_MODE_CBC)\n" in header
    doc = generate.reg_doc(toy)
    assert "| 4 | `IRQ` | sticky, write 1 to clear |" in doc and "| 0x1 | `CBC` |" in doc


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (reg("ctrl", 0) + field("a", "3:0") + field("b", "4:3"), "overlaps another field"),
        (reg("ctrl", 0) + field("a", "32:30"), "not within 31:0"),
        (reg("ctrl", 0) + field("a", "1:2"), "not within 31:0"),
        (reg("ctrl", 0) + field("a", "x"), "bits must be"),
        (reg("ctrl", 0) + field("a", "1") + field("a", "2"), "field a is defined twice"),
        (reg("ctrl", 0) + field("a", "1:0", "reset = 4\n"), "reset 4 does not fit in 2 bits"),
        (reg("ctrl", 0) + field("a", "0", 'access = "rx"\n'), "access rx is not one of"),
        (reg("ctrl", 0) + field("a", "0", 'enum = "nope"\n'), "no value set named nope"),
        (MODE + reg("ctrl", 0) + field("a", "2:0", 'enum = "mode"\n'), "is 2 bits wide, the field 3"),
        (reg("ctrl", 0) + reg("ctrl", 4), "register ctrl is defined twice"),
        (reg("ctrl", 0) + field("a", "0", "lsb = 0\n"), "unknown key"),
        (enum("mode", 2, ("ecb", 0), ("cbc", 4)) + reg("ctrl", 0), "value cbc = 4 does not fit in 2 bits"),
        (MODE + MODE + reg("ctrl", 0), "value set mode is defined twice"),
        (enum("mode", 2, ("ecb", 0), ("ecb", 1)) + reg("ctrl", 0), "value ecb is defined twice"),
        (enum("mode", 2, ("ecb", 0), ("cbc", 0)) + reg("ctrl", 0), "value number 0 is defined twice"),
        (enum("Mode", 2, ("ecb", 0)) + reg("ctrl", 0), "must be lower_snake_case"),
        (reg("cmd", 0) + field("go", "0", 'action = "go"\n'), "there is no value set named action"),
        (ACTION + reg("cmd", 0) + field("go", "0", 'action = "run"\n'), "no action named run"),
        (ACTION + reg("cmd", 0) + field("stop", "0", 'action = "stop"\n'), "must be bit 1"),
        (ACTION + reg("cmd", 0) + field("stop", "2:1", 'action = "stop"\n'), "must be bit 1"),
        (enum("action", 2, ("go", 0), ("stop", 2)) + reg("cmd", 0) + field("go", "0", 'action = "go"\n'),
         "numbered 0..1"),
    ],
)
def test_malformed_fields_and_value_sets_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     body: str, message: str) -> None:
    with pytest.raises(regs.RegsError, match=message):
        load(tmp_path, monkeypatch, HEAD + body)


def test_action_fields_reach_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CMD field that runs an action: its bit is the action's value, the package gives the
    register's action bits and one struct bit per action (what couplet_accel_frontend decodes)."""
    toy = load(tmp_path, monkeypatch, HEAD + ACTION + reg("cmd", 0) + field("go", "0", 'action = "go"\n')
               + field("stop", "1", 'action = "stop"\n') + field("x", "5"))
    assert toy.field("cmd", "stop").action == "stop" and toy.field("cmd", "x").action is None
    package = generate.sv_reg_package(toy)
    assert "localparam logic [31:0] TOY_CMD_ACTIONS = 32'h3;" in package
    actions = package[package.index("typedef struct packed {\n    logic load;"):]
    assert actions.index("logic load;") < actions.index("logic stop;") < actions.index("logic go;")
    assert "} toy_actions_t;" in actions


def test_a_read_only_register_holds_no_writable_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = HEAD + reg("ctrl", 0).replace('"rw"', '"ro"') + field("a", "0", 'access = "w1c"\n')
    with pytest.raises(regs.RegsError, match="access w1c is not one of a ro register's"):
        load(tmp_path, monkeypatch, text)


def test_c_names_that_collide_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Value set "ctrl_a" value "shift" and field a of register ctrl both make TOY_CTRL_A_SHIFT.
    toy = load(tmp_path, monkeypatch, HEAD + enum("ctrl_a", 1, ("shift", 0)) + reg("ctrl", 0) + field("a", "0"))
    with pytest.raises(regs.RegsError, match="TOY_CTRL_A_SHIFT"):
        generate.c_reg_header(toy)


def const(name: str, value: int, width: int | None = None) -> str:
    extra = f"width = {width}\n" if width is not None else ""
    return f'\n[[const]]\nname = "{name}"\nvalue = {value}\n{extra}description = "d"\n'


def test_constants_reach_every_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toy = load(tmp_path, monkeypatch, HEAD + const("max_len", 0x100000) + const("none", 0xFF, 8) + reg("ctrl", 0))
    assert (toy.const("max_len"), toy.const("none")) == (0x100000, 0xFF)
    package = generate.sv_reg_package(toy)
    assert "localparam logic [31:0] TOY_MAX_LEN = 32'h100000;" in package
    assert "localparam logic [7:0] TOY_NONE = 8'hFF;" in package
    assert "#define TOY_NONE 0xFFu" in generate.c_reg_header(toy)
    assert "| `MAX_LEN` | 0x100000 |" in generate.reg_doc(toy)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (const("none", 0x100, 8), "value 256 does not fit in width 8"),
        (const("big", 1, 33), "does not fit in width 33"),
        (const("none", 1) + const("none", 2), "constant none is defined twice"),
    ],
)
def test_malformed_constants_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
                                         message: str) -> None:
    with pytest.raises(regs.RegsError, match=message):
        load(tmp_path, monkeypatch, HEAD + body + reg("ctrl", 0))


def param(name: str, kind: str, default: str) -> str:
    return f'\n[[param]]\nname = "{name}"\nengine = "Engine"\n{kind}\ndefault = {default}\ndescription = "d"\n'


def test_parameters_reach_every_output_and_check_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toy = load(tmp_path, monkeypatch, HEAD + enum("speed", 2, ("slow", 0), ("fast", 1))
               + param("speed", 'enum = "speed"', '"slow"') + param("ways", "values = [1, 2, 4]", "2")
               + param("depth", "min = 1\nmax = 8", "4") + param("safe", 'type = "bool"', "true") + reg("ctrl", 0))
    speed, ways, depth, safe = toy.params
    assert (speed.width, ways.width, depth.width, safe.width) == (2, 3, 4, 1)
    assert speed.problem("medium") == "'medium' is not one of slow, fast"
    assert ways.problem(3) == "3 is not one of 1, 2, 4" and ways.problem(4) is None
    assert depth.problem(9) == "9 is outside 1..8" and depth.problem("4") == "expected int, got '4'"
    assert safe.problem(1) == "expected bool, got 1"
    assert ways.choices == (1, 2, 4) and speed.choices == ("slow", "fast")
    package = generate.sv_reg_package(toy)
    for line in ("toy_speed_e speed;", "logic [2:0] ways;", "logic [3:0] depth;", "logic safe;", "} toy_cfg_t;"):
        assert line in package, line
    header = generate.c_reg_header(toy)
    assert "#define TOY_PARAM_DEPTH_MAX 8u" in header and "X(4)" in header
    assert "| `depth` | `Engine` | 1..8 | `4` |" in generate.reg_doc(toy)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (param("depth", "min = 1\nmax = 8\nvalues = [1]", "1"), "give exactly one of"),
        (param("depth", 'type = "int"', "1"), "give exactly one of"),
        (param("depth", "min = 1\nmax = 8", "9"), "default 9 is outside 1..8"),
        (param("depth", "min = 8\nmax = 1", "8"), "min 8 and max 1"),
        (param("ways", "values = []", "1"), "values must be distinct"),
        (param("speed", 'enum = "nowhere"', '"slow"'), "no value set named nowhere"),
    ],
)
def test_malformed_parameters_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
                                          message: str) -> None:
    with pytest.raises(regs.RegsError, match=message):
        load(tmp_path, monkeypatch, HEAD + body + reg("ctrl", 0))
