"""An app's ELF as the SRAM's initial content: the `$readmemh` image an FPGA bitstream carries.

The image covers the whole SRAM, one 32-bit word per line in hex (word i holds bytes 4i..4i+3,
little-endian, as the core reads them), zero where no segment lies. Each PT_LOAD segment goes at
its physical address; the bytes past its file size (.bss) stay zero. The rules are the
simulator's ELF loader's (sim/couplet_sim.cpp): a little-endian RISC-V 32-bit executable whose
loadable segments all lie inside the SRAM and whose entry point is the boot address.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from couplet.errors import BuildError

EM_RISCV = 243
ET_EXEC = 2
PT_LOAD = 1
_EHDR = struct.Struct("<16sHHIIIIIHHHHHH")  # Elf32_Ehdr
_PHDR = struct.Struct("<IIIIIIII")  # Elf32_Phdr


@dataclass(frozen=True)
class Segment:
    paddr: int
    data: bytes  # the file's bytes of the segment
    memsz: int


def _segments(elf: Path, blob: bytes) -> tuple[int, list[Segment]]:
    """(entry point, loadable segments) of a RISC-V 32-bit little-endian executable."""
    what = f"{elf}: "
    if len(blob) < _EHDR.size or blob[:4] != b"\x7fELF":
        raise BuildError(what + "not an ELF file")
    if blob[4] != 1:
        raise BuildError(what + "not a 32-bit ELF (ELFCLASS32 expected)")
    if blob[5] != 1:
        raise BuildError(what + "not a little-endian ELF")
    (_, e_type, e_machine, _, entry, phoff, _, _, _, phentsize, phnum, _, _, _) = _EHDR.unpack_from(blob)
    if e_machine != EM_RISCV:
        raise BuildError(what + f"not a RISC-V ELF (e_machine {e_machine})")
    if e_type != ET_EXEC:
        raise BuildError(what + "not an executable (ET_EXEC expected; was it linked?)")
    if phentsize < _PHDR.size or phoff + phnum * phentsize > len(blob):
        raise BuildError(what + "program header table lies outside the file")
    segments = []
    for i in range(phnum):
        p_type, offset, _, paddr, filesz, memsz, _, _ = _PHDR.unpack_from(blob, phoff + i * phentsize)
        if p_type != PT_LOAD or memsz == 0:
            continue
        if filesz > memsz or offset + filesz > len(blob):
            raise BuildError(what + f"segment {i} is truncated")
        segments.append(Segment(paddr, blob[offset:offset + filesz], memsz))
    if not segments:
        raise BuildError(what + "has no loadable segments")
    return entry, segments


def sram_image(elf: Path, base: int, size: int, boot_addr: int | None = None) -> list[int]:
    """The SRAM's words (size / 4 of them) holding the ELF's loadable segments."""
    try:
        blob = elf.read_bytes()
    except OSError as err:
        raise BuildError(f"cannot read {elf}: {err}") from err
    entry, segments = _segments(elf, blob)
    image = bytearray(size)
    for seg in segments:
        span = f"segment [{seg.paddr:#010x}, {seg.paddr + seg.memsz:#010x})"
        if seg.memsz > size:
            raise BuildError(f"{elf}: {span} is {seg.memsz:,} bytes, larger than the whole SRAM ({size:,} bytes)")
        if seg.paddr < base or seg.paddr + seg.memsz > base + size:
            raise BuildError(f"{elf}: {span} does not fit the SRAM [{base:#010x}, {base + size:#010x})")
        start = seg.paddr - base
        image[start:start + len(seg.data)] = seg.data
    if boot_addr is not None and entry != boot_addr:
        raise BuildError(f"{elf}: entry point {entry:#010x} is not the boot address {boot_addr:#010x} "
                         "(linked for another configuration?)")
    return list(struct.unpack(f"<{size // 4}I", bytes(image)))


def write_readmemh(words: list[int], path: Path) -> bool:
    """Write the image, one word per line; untouched (False) when the file already holds it."""
    text = "".join(f"{w:08x}\n" for w in words)
    if path.is_file() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True
