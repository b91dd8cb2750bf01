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
