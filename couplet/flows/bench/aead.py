"""`couplet bench aead`: cycles of the authenticated AES API (couplet/aes_aead.h) for every AES
backend of a SoC configuration, AES-128.

The firmware (sw/apps/bench_aead) times each call with mcycle and prints one result line per
run: CCM (13-byte nonce, 8-byte tag) both ways with 0 and 16 bytes of associated data, the IEEE
802.15.4 frame by CCM* level 6, GCM (12-byte IV, 16-byte tag, 16 bytes of associated data) up to
80 bytes and over 4 KiB, and CMAC. This module groups the runs, checks every backend's output
against the host's AES (pycryptodome, so against the software backend too), and writes
build/reports/bench-aead-<config>.{json,md,png,log}: cycles, cycles per byte and speed-up against
the software backend per measure, each coupling's floor (`floor`, below), and the issue's goals.

The floor of a call is what its coupling cannot avoid with the engine's authenticated modes
(CBC_MAC, GCM, GHASH), plus the engine's own cycles, summed as if nothing overlapped except
inside a streamed job (MEM, DMA descriptor), where the engine works while the words stream, as
in `couplet bench aes` (couplet/flows/bench/aes.py, docs/aes.md "The floor"):
  - the blocks each call must run, by kind (`work`):
      CCM/CCM*: 1 + ceil((2 + a) / 16) (when a > 0) + ceil(m / 16) CBC-MAC blocks (B0, the
                associated data with its length, the message) and ceil(m / 16) + 1 CTR blocks
                (the message and S0 = AES(A0)); the zero IV in and the counter A0 in (8 words),
                the MAC out (4);
      GCM:      2 ECB blocks (H = AES(0), AES(J0)), ceil(a / 16) GHASH blocks, ceil(m / 16) GCM
                blocks, 1 GHASH block (the lengths); H, S and the counter in (12 words), S out (4);
      CMAC:     1 ECB block (L = AES(0)), ceil(m / 16) CBC-MAC blocks; the IV in, the MAC out;
  - the engine: Nr cycles per block (Nr/2 PARTIAL; UNROLLED one independent block per cycle,
    latency Nr), 128 / ghash_bits per GHASH block; a GCM block's AES and GHASH run in turn when
    the core feeds them through registers (a command waits while GHASH is busy) and overlap when
    streamed (a block every max(Nr, 128 / ghash_bits) cycles);
  - moving a word: a custom instruction or a RAM load or store 1 cycle, a memory-mapped access
    2, the accelerator's DMA a word per cycle. tight: 4 lw + 2 WRITE2 per block in, 4 READ + 4 sw
    per block out, a CTRL per job; mmio: a store per word in, a load per word out, each with its
    lw or sw, a CTRL store per job; mem: per job the better of tight's way and a MEM job (LEN,
    fence, MEM; the DMA's 4 words in before the first block, 4 out after the last); dma: per
    job the better of mmio's way and a DMA descriptor (8 accesses, as couplet bench sha3 counts
    them; the words as mem's). The chaining values and GHASH state go through registers.
Not counted: the C around the blocks (formatting B0 and the length blocks, padding, CMAC's
subkey doubling, the tag's mask and comparison, argument checks, the accelerator lock). The
interrupt-driven mmio_irq and the software backends (soft, zkn) have no floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from Crypto.Cipher import AES
from Crypto.Hash import CMAC

from couplet import log
from couplet.errors import CoupletError
from couplet.flows.bench import aes as aes_bench
from couplet.model.config import SocConfig
from couplet.reports import bench_report
from couplet.reports.bench_report import Floor, Section, Stat, Stats, goal_row, speedup, with_floor
from couplet.reports.results import Measurement, fnv1a, message, parse_results

APP = "bench_aead"
# The firmware's inputs (sw/apps/bench_aead/main.c): AES-128 key, nonces, associated data, header.
KEY = bytes.fromhex("603deb1015ca71be2b73aef0857d7781")
CCM_NONCE = bytes(range(0xA0, 0xAD))
CCM_TAG = 8
FRAME_LEVEL = 6  # ENC-MIC-64
FRAME_NONCE = bytes.fromhex("acde480000000001") + bytes([0, 0, 0, 5, FRAME_LEVEL])
FRAME_HEADER = bytes((11 * i + 0x41) & 0xFF for i in range(23))
FRAME_PAYLOAD = 96
FRAME_MIC = 8
FRAME_BYTES = len(FRAME_HEADER) + FRAME_PAYLOAD + FRAME_MIC  # 127, the largest 802.15.4 frame
GCM_IV = bytes.fromhex("cafebabefacedbaddecaf888")
GCM_TAG = 16
AAD = bytes((29 * i + 11) & 0xFF for i in range(16))
AAD_SIZES = (0, len(AAD))
MESSAGE_BYTES = (16, 32, 48, 64, 80)
LONG_BYTES = 4096
CMAC_TAG = 16

# Runs per measure, as the firmware makes them (its RUNS, GCM4K_RUNS and SLOW_GCM4K_RUNS), and
# the reduced build the test suite uses.
RUNS = 10
GCM4K_RUNS = 3
SLOW_GCM4K_RUNS = 1  # soft and zkn, whose GHASH is C
QUICK_DEFINES = {"RUNS": "2", "GCM4K_RUNS": "1"}

CCM_MEASURES = tuple(f"ccm/{d}/{a}/{n}" for a in AAD_SIZES for n in MESSAGE_BYTES for d in ("enc", "dec"))
FRAME_MEASURES = ("frame/enc", "frame/dec")
GCM_MEASURES = tuple(f"gcm/enc/{n}" for n in MESSAGE_BYTES)
GCM4K = "gcm4k/enc"
CMAC_MEASURES = tuple(f"cmac/{n}" for n in MESSAGE_BYTES)
MEASURES = (*CCM_MEASURES, *FRAME_MEASURES, *GCM_MEASURES, GCM4K, *CMAC_MEASURES)

# Goals of the AEAD issue: the 802.15.4 frame by the best hardware coupling at least this many
# times faster than the software backend, and GCM over 4 KiB through dma at this many bytes per
# cycle with a ROLLED engine.
FRAME_SPEEDUP_GOAL = 40.0
GCM_DMA_GOAL = 1.0
GCM_GOAL_ARCH = "rolled"
NOT_IN_CONFIG = "not in this configuration"


# ------------------------------------------------------------------------------ reference


def _ccm(nonce: bytes, aad: bytes, data: bytes, tag_len: int) -> bytes:
    cipher = AES.new(KEY, AES.MODE_CCM, nonce=nonce, mac_len=tag_len)
    cipher.update(aad)
    ciphertext, tag = cipher.encrypt_and_digest(data)
    return ciphertext + tag


def _gcm(data: bytes) -> bytes:
    cipher = AES.new(KEY, AES.MODE_GCM, nonce=GCM_IV, mac_len=GCM_TAG)
    cipher.update(AAD)
    ciphertext, tag = cipher.encrypt_and_digest(data)
    return ciphertext + tag


def _cmac(data: bytes) -> bytes:
    mac = CMAC.new(KEY, ciphermod=AES)
    mac.update(data)
    return mac.digest()


def expected_outputs() -> dict[str, bytes]:
    """What each measure must output, from pycryptodome (independent of the firmware): the
    ciphertext then the tag of an encryption, the plaintext of a decryption, the tag of a MAC."""
    outputs: dict[str, bytes] = {}
    for a in AAD_SIZES:
        for n in MESSAGE_BYTES:
            outputs[f"ccm/enc/{a}/{n}"] = _ccm(CCM_NONCE, AAD[:a], message(n), CCM_TAG)
            outputs[f"ccm/dec/{a}/{n}"] = message(n)
    # CCM* at a level with a MIC is CCM with the MIC as its tag (IEEE 802.15.4 annex B).
    outputs["frame/enc"] = _ccm(FRAME_NONCE, FRAME_HEADER, message(FRAME_PAYLOAD), FRAME_MIC)
    outputs["frame/dec"] = message(FRAME_PAYLOAD)
    for n in MESSAGE_BYTES:
        outputs[f"gcm/enc/{n}"] = _gcm(message(n))
    outputs[GCM4K] = _gcm(message(LONG_BYTES))
    for n in MESSAGE_BYTES:
        outputs[f"cmac/{n}"] = _cmac(message(n))
    return outputs


def expected_checks() -> dict[str, str]:
    """The check (FNV-1a of the output) each measure must report."""
    return {measure: f"0x{fnv1a(out):08x}" for measure, out in expected_outputs().items()}


# ------------------------------------------------------------------------------ results


def summarise(measurements: list[Measurement]) -> Stats:
    """{backend: {measure: Stat}} from lines named aead/<backend>/<measure>."""
    return bench_report.summarise(measurements, "aead")


def configured_backends(config: SocConfig) -> list[str]:
    """The AES backends of the configuration, in the enum's order (the firmware's)."""
    return list(config.aes.backends) if config.aes else []


def check_results(stats: Stats, backends: list[str] | None = None) -> None:
    """Every reported backend has every measure and the host's output (so all agree); with
    `backends` (the configuration's), exactly those backends reported."""
    bench_report.check_outputs(stats, MEASURES, expected_checks(), "the host's AES", backends)


def payload_bytes(measure: str) -> int:
    """The message bytes of a measure (associated data and tag not counted): what its cycles per
    byte are per."""
    if measure.startswith("frame/"):
        return FRAME_PAYLOAD
    if measure == GCM4K:
        return LONG_BYTES
    return int(measure.rsplit("/", 1)[1])


# ------------------------------------------------------------------------------ floor


@dataclass(frozen=True)
class Job:
    """Blocks of one engine mode in one backend call: ecb (independent, in and out), ctr (the
    same), mac (CBC-MAC: serial, in only), gcm (in and out, AES then GHASH), ghash (in only)."""

    kind: str
    blocks: int

    @property
    def has_output(self) -> bool:
        return self.kind in ("ecb", "ctr", "gcm")


@dataclass(frozen=True)
class Work:
    """What a call must run: its jobs, and the words of chaining value and GHASH state it must
    load into the accelerator and read back."""

    jobs: tuple[Job, ...]
    state_in: int
    state_out: int


@dataclass(frozen=True)
class Engine:
    latency: int  # cycles from a block's start to its result
    period: int  # cycles between independent blocks back to back (1 when pipelined)
    ghash: int  # cycles of a GHASH block (0: no multiplier)


@dataclass(frozen=True)
class Coupling:
    """Cycles to move a word in (RAM to accelerator) and out, and of a CTRL write."""

    word_in: float
    word_out: float
    ctrl: float


RAM = 1  # lw, sw
XIF = 1  # a custom instruction
MMIO = 2  # a memory-mapped access (hw/ip/aes/README.md, "Timing")
DMA_WORD = 1  # the accelerator's DMA, a word per cycle
BLOCK_WORDS = 4
TIGHT = Coupling(RAM + XIF / 2, XIF + RAM, XIF)  # lw + half a WRITE2; READ + sw
MMIO_REGS = Coupling(RAM + MMIO, MMIO + RAM, MMIO)  # lw + store; load + sw
MEM_JOB = 3 * XIF  # LEN + fence + MEM (as couplet bench aes counts it)
DESCRIPTOR = 8 * MMIO  # arm a slot and take its completion (as couplet bench sha3 counts it)
# Each coupling: its register path, and the set-up of its streamed job (None: it has none).
COUPLINGS: dict[str, tuple[Coupling, float | None]] = {
    "tight": (TIGHT, None),
    "mem": (TIGHT, MEM_JOB),
    "mmio": (MMIO_REGS, None),
    "dma": (MMIO_REGS, DESCRIPTOR),
}


def engine(arch: str, ghash_bits: int) -> Engine:
    latency = aes_bench.engine_latency(arch, 128)
    return Engine(latency, 1 if arch == "unrolled" else latency, 128 // ghash_bits if ghash_bits else 0)


def work(measure: str) -> Work | None:
    """The blocks and state words of a measure (the module's docstring), or None."""
    parts = measure.split("/")
    blocks = math.ceil(payload_bytes(measure) / 16)
    if parts[0] in ("ccm", "frame"):
        aad = int(parts[2]) if parts[0] == "ccm" else len(FRAME_HEADER)
        aad_blocks = math.ceil((2 + aad) / 16) if aad else 0
        return Work((Job("mac", 1 + aad_blocks + blocks), Job("ctr", blocks + 1)), 8, 4)
    if parts[0] in ("gcm", "gcm4k"):
        return Work((Job("ecb", 2), Job("ghash", math.ceil(len(AAD) / 16)), Job("gcm", blocks), Job("ghash", 1)),
                    12, 4)
    if parts[0] == "cmac":
        return Work((Job("ecb", 1), Job("mac", blocks)), 4, 4)
    return None


def by_registers(job: Job, eng: Engine, c: Coupling) -> tuple[float, float]:
    """(data moved, engine) cycles of a job fed through registers, block by block."""
    words = BLOCK_WORDS * (c.word_in + (c.word_out if job.has_output else 0))
    per_block = {"ecb": eng.latency, "ctr": eng.latency, "mac": eng.latency, "gcm": eng.latency + eng.ghash,
                 "ghash": eng.ghash}[job.kind]
    return c.ctrl + job.blocks * words, job.blocks * per_block


def streamed(job: Job, eng: Engine, c: Coupling, setup: float) -> tuple[float, float]:
    """(data moved and set-up, engine) cycles of a job streamed by the accelerator's DMA: the first
    block's words before the engine starts, the last block's after it ends, the words between
    streaming while the engine works (at most a block per BLOCK_WORDS cycles)."""
    n = job.blocks
    if job.kind in ("ecb", "ctr"):
        busy = eng.latency + (n - 1) * max(eng.period, BLOCK_WORDS)
    elif job.kind == "mac":
        busy = n * max(eng.latency, BLOCK_WORDS)
    elif job.kind == "gcm":
        # The last block's GHASH runs while its words go out.
        busy = eng.latency + (n - 1) * max(eng.period, eng.ghash, BLOCK_WORDS) + max(eng.ghash - BLOCK_WORDS, 0)
    else:
        busy = n * max(eng.ghash, BLOCK_WORDS)
    words = BLOCK_WORDS * DMA_WORD * (2 if job.has_output else 1)
    return c.ctrl + setup + words, busy


def floor(backend: str, measure: str, arch: str, ghash_bits: int) -> Floor | None:
    """The floor of one measure in one coupling (the module's docstring), or None where it is
    not modelled: software backends, mmio_irq, and GCM without a GHASH multiplier."""
    if backend not in COUPLINGS:
        return None
    w = work(measure)
    if w is None or (ghash_bits == 0 and any(j.kind in ("gcm", "ghash") for j in w.jobs)):
        return None
    eng = engine(arch, ghash_bits)
    regs, setup = COUPLINGS[backend]
    moved = w.state_in * regs.word_in + w.state_out * regs.word_out
    busy = 0.0
    streams = 0
    for job in w.jobs:
        m, b = by_registers(job, eng, regs)
        if setup is not None:
            sm, sb = streamed(job, eng, regs, setup)
            if sm + sb < m + b:
                m, b = sm, sb
                streams += 1
        moved += m
        busy += b
    jobs = " + ".join(f"{j.blocks} {j.kind.upper().replace('MAC', 'CBC-MAC')}" for j in w.jobs)
    how = f", {streams} of {len(w.jobs)} jobs streamed" if setup is not None else ""
    counts = (f"{jobs} blocks: {busy:,.0f} engine + {moved:,.0f} moving data, state and CTRL{how}")
    return Floor(round(busy + moved), counts)


def gcm4k_floor_rate(arch: str, ghash_bits: int) -> float | None:
    """Bytes per cycle of GCM over 4 KiB at dma's floor."""
    f = floor("dma", GCM4K, arch, ghash_bits)
    return LONG_BYTES / f.cycles if f else None


def ghash_bits_needed(arch: str, rate: float) -> int | None:
    """The fewest GHASH bits per cycle whose dma floor for GCM over 4 KiB reaches `rate`."""
    for bits in (1, 2, 4, 8, 16, 32, 64, 128):
        r = gcm4k_floor_rate(arch, bits)
        if r is not None and r >= rate:
            return bits
    return None


# ------------------------------------------------------------------------------ tables


def per_byte(stat: Stat, measure: str) -> str:
    return f"{stat.mean / payload_bytes(measure):,.1f}"


def floors_table(stats: Stats, arch: str, ghash_bits: int) -> Section:
    """The main calls of each backend beside their floors."""
    columns = (("frame, encrypt", "frame/enc"), ("frame, decrypt", "frame/dec"),
               ("CCM 80 B, AAD 16 B", "ccm/enc/16/80"), ("GCM 80 B", "gcm/enc/80"), ("GCM 4 KiB", GCM4K),
               ("CMAC 80 B", "cmac/80"))
    rows = []
    for b in stats:
        frame = floor(b, "frame/enc", arch, ghash_bits)
        rows.append([b] + [with_floor(stats[b].get(m), floor(b, m, arch, ghash_bits)) for _, m in columns]
                    + [frame.counts if frame else "no floor modelled"])
    return ("The main calls against each coupling's floor (cycles; floor = the blocks the call must run through "
            "the coupling plus the engine, and how far above it)",
            ["backend", *(c for c, _ in columns), "what the frame's floor counts"], rows)


def frame_table(stats: Stats) -> Section:
    soft = stats["soft"]
    rows = []
    for b, ms in stats.items():
        enc, dec = ms["frame/enc"], ms["frame/dec"]
        rows.append([b, enc.cell(), dec.cell(), f"{enc.mean / FRAME_BYTES:,.1f}", per_byte(enc, "frame/enc"),
                     speedup(soft["frame/enc"], enc), speedup(soft["frame/dec"], dec)])
    return (f"IEEE 802.15.4 frame, CCM* level {FRAME_LEVEL} (ENC-MIC-64): {len(FRAME_HEADER)} B header "
            f"authenticated, {FRAME_PAYLOAD} B payload encrypted, {FRAME_MIC} B MIC = {FRAME_BYTES} B "
            "(cycles, mean ± sd)",
            ["backend", "encrypt", "decrypt", "encrypt, cycles/frame byte", "encrypt, cycles/payload byte",
             "speed-up, encrypt", "speed-up, decrypt"], rows)


def sizes_table(stats: Stats, title: str, prefix: str) -> Section:
    """Measures <prefix><bytes> by message size."""
    soft = stats["soft"]
    last = f"{prefix}{MESSAGE_BYTES[-1]}"
    rows = [[b] + [ms[f"{prefix}{n}"].cell() for n in MESSAGE_BYTES]
            + [per_byte(ms[last], last), speedup(soft[last], ms[last])] for b, ms in stats.items()]
    return (title, ["backend", *(f"{n} B" for n in MESSAGE_BYTES), f"cycles/byte at {MESSAGE_BYTES[-1]} B",
                    f"speed-up at {MESSAGE_BYTES[-1]} B"], rows)


def long_table(stats: Stats, arch: str, ghash_bits: int) -> Section:
    soft = stats["soft"]
    rows = []
    for b, ms in stats.items():
        s = ms[GCM4K]
        f = floor(b, GCM4K, arch, ghash_bits)
        rows.append([b, str(s.runs), f"{s.mean:,.0f}", f"{LONG_BYTES / s.mean:.3f}", per_byte(s, GCM4K),
                     speedup(soft[GCM4K], s),
                     f"{f.cycles:,} ({LONG_BYTES / f.cycles:.3f} B/cycle)" if f else "-"])
    return (f"Sustained AES-128-GCM over {LONG_BYTES} bytes, 16 B associated data",
            ["backend", "runs", "cycles", "bytes/cycle", "cycles/byte", "speed-up", "floor"], rows)


def tables(stats: Stats, arch: str, ghash_bits: int) -> list[Section]:
    out = [floors_table(stats, arch, ghash_bits), frame_table(stats)]
    for a in AAD_SIZES:
        for d, word in (("enc", "encryption"), ("dec", "decryption")):
            out.append(sizes_table(stats, f"AES-128-CCM {word}, 13 B nonce, 8 B tag, {a} B associated data "
                                          "(cycles, mean ± sd)", f"ccm/{d}/{a}/"))
    out.append(sizes_table(stats, "AES-128-GCM encryption, 12 B IV, 16 B tag, 16 B associated data "
                                  "(cycles, mean ± sd)", "gcm/enc/"))
    out.append(long_table(stats, arch, ghash_bits))
    out.append(sizes_table(stats, "AES-CMAC, 16 B tag (cycles, mean ± sd)", "cmac/"))
    return out


def goals(stats: Stats, arch: str, ghash_bits: int) -> list[list[str]]:
    rows = []
    soft = stats["soft"]
    hardware = {b: ms for b, ms in stats.items() if b != "soft"}  # every coupling, zkn included
    for measure, word in (("frame/enc", "encrypt"), ("frame/dec", "decrypt")):
        label = f"AES-128-CCM 127 B frame, 8 B MIC, {word}: best coupling vs soft"
        if not hardware:
            rows.append([label, "-", "-", f">= {FRAME_SPEEDUP_GOAL:g} x", NOT_IN_CONFIG, "-"])
            continue
        best = min(hardware, key=lambda b: hardware[b][measure].mean)
        rows.append(goal_row(label, best, soft[measure].mean / hardware[best][measure].mean, FRAME_SPEEDUP_GOAL,
                             f"soft: {soft[measure].mean:,.0f} cycles", at_least=True, unit="x", digits=1))
    label = f"AES-128-GCM {LONG_BYTES} B, dma, ROLLED engine"
    target = f">= {GCM_DMA_GOAL:g} B/cycle"
    if "dma" not in stats:
        rows.append([label, "dma", "-", target, NOT_IN_CONFIG, "-"])
    else:
        rate = LONG_BYTES / stats["dma"][GCM4K].mean
        row = goal_row(label, "dma", rate, GCM_DMA_GOAL, "-", at_least=True, unit="B/cycle", digits=3)
        if arch != GCM_GOAL_ARCH:
            row[4] = f"not judged: the engine is {arch.upper()}"
        elif row[4] != "met":
            at_floor = gcm4k_floor_rate(arch, ghash_bits)
            if at_floor is not None:
                row[4] += f" (floor {at_floor:.3f} B/cycle"
                needed = ghash_bits_needed(arch, GCM_DMA_GOAL)
                if at_floor < GCM_DMA_GOAL and needed is not None:
                    row[4] += f"; reachable from ghash_bits = {needed}"
                row[4] += ")"
        rows.append(row)
    return rows


PLOT_MEASURES = (("frame enc", "frame/enc"), ("frame dec", "frame/dec"), ("CCM 80 B", "ccm/enc/16/80"),
                 ("GCM 80 B", "gcm/enc/80"), ("CMAC 80 B", "cmac/80"), ("GCM 4 KiB", GCM4K))


def plot(stats: Stats, path: Path) -> None:
    series = {b: [ms[m].mean for _, m in PLOT_MEASURES] for b, ms in stats.items()}
    bench_report.bar_plot(path, [c for c, _ in PLOT_MEASURES], series, "AES-128 AEAD and MAC, couplet/aes_aead.h",
                          "cycles (log scale)", label_rotation=20)


def run(config: SocConfig, quick: bool = False) -> int:
    """The benchmark; `quick` builds the firmware with fewer runs (QUICK_DEFINES: the test suite's)."""
    if config.aes is None:
        raise CoupletError(f"configuration '{config.name}' has no AES accelerator ([accelerator.aes])")
    backends = configured_backends(config)
    console = bench_report.run_firmware(config, APP, f"{len(backends)} backends, tens of millions of cycles",
                                        max_cycles=400_000_000, defines=QUICK_DEFINES if quick else None)
    stats = summarise(parse_results(console))
    check_results(stats, backends)
    arch, ghash_bits = config.aes.arch, config.aes.ghash_bits
    runs = stats["soft"]["frame/enc"].runs
    long_runs = {b: ms[GCM4K].runs for b, ms in stats.items()}
    slow = sorted({r for b, r in long_runs.items() if b in ("soft", "zkn")})
    fast = sorted({r for b, r in long_runs.items() if b not in ("soft", "zkn")})
    intro = [
        f"# AEAD benchmark, configuration '{config.name}' (AES arch: {arch}, ghash_bits: {ghash_bits})\n",
        "Cycles are mcycle deltas around one call of couplet/aes_aead.h, as an application makes it, AES-128, on",
        "CV32E40X in the Verilator model; every output is checked against the host's AES (pycryptodome), so all",
        "backends agree. Simulation is deterministic, so a standard deviation of 0 means every run took the same",
        "time. Speed-ups are against the portable constant-time software backend on the same core; cycles per",
        "byte are per message byte (associated data and tag not counted).",
        f"{runs} runs per measure{' (a reduced run of the test suite)' if quick else ''}; GCM over 4 KiB "
        f"{'/'.join(map(str, fast)) or '-'} runs, {'/'.join(map(str, slow)) or '-'} on soft and zkn, whose GHASH is C "
        "(about a million cycles a call on soft).\n",
        "The floor beside a figure counts the blocks the call must run through its coupling with the engine's",
        "CBC_MAC, GCM and GHASH modes, moving each word at its cost (an instruction or a RAM access 1 cycle, a",
        "memory-mapped access 2, the accelerator's DMA a word per cycle), plus the engine's cycles (Nr a block,",
        f"128 / ghash_bits = {128 // ghash_bits if ghash_bits else '-'} a GHASH block), summed as if nothing",
        "overlapped except inside a streamed job; the C around the blocks (formatting, padding, the tag's mask",
        "and comparison) is not counted. couplet/flows/bench/aead.py and docs/bench_aead.md derive it.\n",
    ]
    stem = f"bench-aead-{config.name}"
    floors = {b: {m: f.__dict__ for m in ms if (f := floor(b, m, arch, ghash_bits)) is not None}
              for b, ms in stats.items()}
    floors = {b: fs for b, fs in floors.items() if fs}
    data = {"config": config.name, "arch": arch, "ghash_bits": ghash_bits, "quick": quick,
            "backends": bench_report.stats_json(stats), "floors": floors, "expected_checks": expected_checks()}
    json_path, md_path = bench_report.publish(stem, intro, tables(stats, arch, ghash_bits),
                                              goals(stats, arch, ghash_bits), data)
    png = bench_report.plot_path(stem)
    plot(stats, png)
    # The raw firmware output, to recompute or re-check the figures without simulating again.
    console_path = png.with_suffix(".log")
    console_path.write_text(console)
    log.info(f"written {json_path}, {md_path}, {png} and the firmware console {console_path.name}")
    return 0
