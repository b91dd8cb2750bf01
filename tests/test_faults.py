"""Faults in the SoC (sw/apps/test_faults, issue 21): a bus error in the middle of a mem or DMA
job, an interrupt storm over custom instructions, ZEROIZE and the DMA's abort in the middle of a
job, and DMA descriptors pointed at register windows. Each case gives a named error or the
documented result (docs/coupling.md, "Faults"), never a hang (the run ends), never a write
outside the caller's buffer, and the backend works afterwards.

Which case runs on which backend is derived here from the configuration, so a case the app
skipped on a backend the SoC has fails the test. A tile's DMA pointed at its own accelerator's
register window gets a bus error (couplet_obi_fence): a mem job reading there used to deadlock
the SoC."""

from __future__ import annotations

import re
from collections.abc import Callable

from couplet.model.config import SocConfig, load_config
from couplet.tools import firmware, simulator
from couplet.tools.simulator import SimResult

RunApp = Callable[..., SimResult]

FAULT_LINE = re.compile(r"^fault (\w+) (aes|sha3)/(\w+): (\S+) stray (none|FOUND) after (ok|bad)$", re.M)
# The storm's interrupts per backend (STORM_IRQS in the app) and at least one zeroize refused
# while a call held the accelerator.
STORM_IRQS = 200

Case = tuple[str, str, str]  # fault, accelerator, backend


def expected_results(config: SocConfig) -> dict[Case, list[str]]:
    """Every (fault, accelerator, backend) the app must run on `config`, with the pattern of each
    result line it prints for it (one per descriptor for dma_at_regs)."""
    expected: dict[Case, list[str]] = {}

    def add(fault: str, acc: str, backends: tuple[str, ...], concerned: dict[str, list[str]]) -> None:
        for backend, results in concerned.items():
            if backend in backends:
                expected[(fault, acc, backend)] = results

    if config.aes is not None:
        aes = config.aes.backends
        # The other accelerator's register window, where the configuration has one.
        keccak_window = config.keccak is not None and "mmio" in config.keccak.reachable
        # The backends whose accelerator reads and writes memory itself.
        for fault in ("bus_error_in", "bus_error_out"):
            add(fault, "aes", aes, {"mem": ["COUPLET_ERR_HW"], "dma": ["COUPLET_ERR_HW"]})
        add("irq_storm", "aes", aes, {b: [r"irqs=(\d+)"] for b in ("tight", "mem", "mmio", "zkn")})
        add("zeroize_irq", "aes", aes, {b: [r"COUPLET_ERR_BUSY=(\d+)"] for b in ("tight", "mem", "mmio")})
        add("zeroize_mid_job", "aes", aes, {"tight": ["AES_RESULT_BUSY"], "mmio": ["refused_busy"],
                                            "dma": ["slot_done,refused_busy,output_right"]})
        add("abort_mid_job", "aes", aes, {"dma": [r"slot_err,written=(\d+)"]})
        # A tile's DMA never reaches its own accelerator's registers: a bus error.
        dma_at = ["src_own_regs:slot_err", "dst_own_regs:slot_err", "src_dma_regs:slot_done",
                  "dst_dma_regs:slot_done"]
        mem_at: list[str] = []
        if keccak_window:
            dma_at.append("src_other_accel:slot_done")
            mem_at.append("src_other_accel:COUPLET_OK")
        own_mem = ["src_own_regs:COUPLET_ERR_HW"] if {"mmio", "dma"} & config.aes.reachable else []
        add("dma_at_regs", "aes", aes, {"dma": [*dma_at, "src_clint:slot_err"],
                                        "mem": [*mem_at, "src_clint:COUPLET_ERR_HW", *own_mem]})
    if config.keccak is not None:
        sha3 = config.keccak.backends
        aes_window = config.aes is not None and "mmio" in config.aes.reachable
        add("bus_error_in", "sha3", sha3, {"mem": ["COUPLET_ERR_HW"], "dma": ["COUPLET_ERR_HW"]})
        add("irq_storm", "sha3", sha3, {b: [r"irqs=(\d+)"] for b in ("ise", "tight", "mem", "mmio")})
        add("zeroize_mid_job", "sha3", sha3, {"tight": ["KECCAK_RESULT_OK,state_zero"], "mmio": ["state_zero"],
                                              "dma": ["slot_done"]})
        add("abort_mid_job", "sha3", sha3, {"dma": ["slot_err"]})
        # The AES window's registers end at 0x60, before a SHA3-256 block: the read runs past them.
        other = ["src_other_accel:slot_err"] if aes_window else []
        other_mem = ["src_other_accel:COUPLET_ERR_HW"] if aes_window else []
        own_mem = ["src_own_regs:COUPLET_ERR_HW"] if {"mmio", "dma"} & config.keccak.reachable else []
        add("dma_at_regs", "sha3", sha3, {"dma": ["src_own_regs:slot_err", "src_dma_regs:slot_err", *other,
                                                  "src_clint:slot_err"],
                                          "mem": [*other_mem, "src_clint:COUPLET_ERR_HW", *own_mem]})
    return expected


def check_faults(result: SimResult, config: SocConfig) -> dict[Case, list[str]]:
    """The run ended (no hang), passed every check, and printed exactly the expected lines.
    Returns the results printed per case."""
    console = result.console or ""
    assert result.status == "exit" and result.exit_code == 0, console
    assert "FAIL" not in console, console
    seen: dict[Case, list[str]] = {}
    for fault, acc, backend, outcome, stray, after in FAULT_LINE.findall(console):
        assert stray == "none", f"{fault} {acc}/{backend}: a write outside the caller's buffer"
        assert after == "ok", f"{fault} {acc}/{backend}: the backend is wrong afterwards"
        seen.setdefault((fault, acc, backend), []).append(outcome)
    expected = expected_results(config)
    assert set(seen) == set(expected), (
        f"missing {sorted(set(expected) - set(seen))}, unexpected {sorted(set(seen) - set(expected))}")
    for case, patterns in expected.items():
        outcomes = seen[case]
        assert len(outcomes) == len(patterns), (case, outcomes)
        for pattern, outcome in zip(patterns, outcomes):
            match = re.fullmatch(pattern, outcome)
            assert match, f"{case}: {outcome!r} is not {pattern!r}"
            if case[0] == "irq_storm":
                assert int(match.group(1)) >= STORM_IRQS, (case, outcome)
            if case[0] == "zeroize_irq":
                assert int(match.group(1)) >= 1, (case, outcome)
    summary = re.search(r"^test_faults: (\d+) cases, 0 failed, 0 NMIs$", console, re.M)
    assert summary and int(summary.group(1)) == sum(len(p) for p in expected.values()), console
    return seen


def test_expected_cases_cover_every_memory_backend() -> None:
    """The derivation itself: on the default SoC every backend that moves data by its own DMA
    gets a bus error case, and every custom-instruction backend a storm."""
    expected = expected_results(load_config("default"))
    for acc in ("aes", "sha3"):
        for backend in ("mem", "dma"):
            assert ("bus_error_in", acc, backend) in expected
        assert ("irq_storm", acc, "tight") in expected and ("irq_storm", acc, "mem") in expected
    assert ("irq_storm", "aes", "zkn") in expected and ("irq_storm", "sha3", "ise") in expected
    assert ("abort_mid_job", "aes", "dma") in expected and ("abort_mid_job", "sha3", "dma") in expected


def test_faults_on_every_backend_of_the_default_soc(run_app: RunApp) -> None:
    """Every coupling of both accelerators: about 4.2 million cycles."""
    check_faults(run_app("test_faults", max_cycles=12_000_000), load_config("default"))


def test_faults_on_the_encrypt_only_aes_soc() -> None:
    """AES alone, encrypt-only AES-128 (configs/aes128_enc.toml, whose model test_aes_firmware.py
    builds too): the cases follow the configuration, without zkn, SHA-3 or a second
    accelerator's window."""
    config = load_config("aes128_enc")
    assert config.keccak is None and config.aes is not None and "zkn" not in config.aes.backends
    elf = firmware.build_app(config, "test_faults")
    seen = check_faults(simulator.simulate(config, elf, max_cycles=12_000_000, capture=True), config)
    assert not any(acc == "sha3" for _, acc, _ in seen)
