"""`couplet bench`: measurements written to build/reports/ as JSON and Markdown."""

from __future__ import annotations

import statistics

from couplet import log
from couplet.errors import CoupletError
from couplet.model.config import SocConfig
from couplet.reports.results import markdown_table, write_report
from couplet.tools import firmware, simbuild, simulator

# Issue 2's goal for the default SoC on one core.
SIM_SPEED_GOAL = 500_000


def bench_sim(config: SocConfig, runs: int) -> int:
    """Simulation speed: a CPU-bound firmware, run `runs` times, in simulated cycles per second."""
    simbuild.build_sim(config)
    elf = firmware.build_app(config, "bench_sim")
    speeds = []
    cycles = 0
    for i in range(runs):
        result = simulator.simulate(config, elf, capture=True)
        if result.status != "exit" or result.exit_code != 0:
            raise CoupletError(f"bench_sim failed: {result.status}, exit code {result.exit_code}")
        cycles = result.cycles
        speeds.append(result.cycles_per_second)
        log.info(f"run {i + 1}/{runs}: {result.cycles:,} cycles in {result.seconds:.2f} s")
    mean = statistics.mean(speeds)
    stdev = statistics.stdev(speeds) if len(speeds) > 1 else 0.0
    best = max(speeds)
    # The goal is judged on the mean: one lucky run does not make a simulator fast.
    verdict = "meets" if mean >= SIM_SPEED_GOAL else "BELOW"
    headers = ["config", "cycles per run", "runs", "M cycles/s (mean)", "std dev", "best", "goal"]
    rows = [[config.name, f"{cycles:,}", str(runs), f"{mean / 1e6:.3f}", f"{stdev / 1e6:.3f}",
             f"{best / 1e6:.3f}", f"{verdict} {SIM_SPEED_GOAL / 1e6:.1f} M"]]
    print(log.table(headers, rows))
    data = {
        "config": config.name,
        "cycles_per_run": cycles,
        "cycles_per_second": speeds,
        "mean": mean,
        "stdev": stdev,
        "best": best,
        "goal": SIM_SPEED_GOAL,
        "meets_goal": mean >= SIM_SPEED_GOAL,
    }
    markdown = (
        f"# Simulation speed, configuration '{config.name}'\n\n"
        "Verilator model, one thread, firmware `sw/apps/bench_sim`. Wall-clock figures: on a\n"
        "shared or virtual machine they vary from run to run; cycle counts do not.\n\n" + markdown_table(headers, rows)
    )
    json_path, md_path = write_report(f"bench-sim-{config.name}", data, markdown)
    log.info(f"written {json_path} and {md_path}")
    return 0


def run(what: str, config: SocConfig, runs: int, kernels: list[str] | None = None, jobs: int = 1) -> int:
    if runs < 1:
        raise CoupletError("--runs must be at least 1")
    if what == "sim":
        return bench_sim(config, runs)
    if what == "aes":
        from couplet.flows.bench import aes

        return aes.run(config)
    if what == "aead":
        from couplet.flows.bench import aead

        return aead.run(config)
    if what == "sha3":
        from couplet.flows.bench import sha3

        return sha3.run(config)
    if what == "rtos":
        from couplet.flows.bench import rtos

        return rtos.run(config, kernels, jobs)
    if what == "facv":
        from couplet.flows.bench import facv

        return facv.run(config, kernels)
    raise CoupletError(f"unknown benchmark '{what}'")
