"""`couplet demo`: build the SoC and the demo firmware, run it, and show what it measured."""

from __future__ import annotations

import sys

from couplet import log
from couplet.model.config import SocConfig
from couplet.reports.results import markdown_table, parse_results, write_report
from couplet.tools import firmware, simbuild, simulator

DEMO_APP = "demo"


def run(config: SocConfig) -> int:
    log.info(f"configuration '{config.name}': {config.description}")
    simbuild.build_sim(config)
    log.info("building the demo firmware")
    elf = firmware.build_app(config, DEMO_APP)
    log.info(f"simulating {elf.name}")
    result = simulator.simulate(config, elf, capture=True)
    console = result.console or ""
    print("---- firmware console ----")
    print(console.rstrip())
    print("---- end of console ----", flush=True)
    if result.status != "exit":
        log.error(f"the demo did not finish within the cycle limit ({result.cycles} cycles)")
        return 1
    measurements = parse_results(console)
    headers = ["workload", "cycles", "instructions", "CPI", "check"]
    rows = [
        [m.name, f"{m.cycles:,}", f"{m.instret:,}", f"{m.cycles / m.instret:.2f}" if m.instret else "-", m.check]
        for m in measurements
    ]
    print()
    print(log.table(headers, rows))
    print()
    print(
        f"whole run: {result.cycles:,} cycles, {result.instret:,} instructions retired, "
        f"{result.seconds:.2f} s wall time, {result.cycles_per_second / 1e6:.2f} M simulated cycles/s"
    )
    sys.stdout.flush()  # keep the table ahead of the log lines when both go to one pipe
    data = {
        "config": config.name,
        "exit_code": result.exit_code,
        "cycles": result.cycles,
        "instret": result.instret,
        "sim_cycles_per_second": result.cycles_per_second,
        "workloads": [m.__dict__ for m in measurements],
    }
    markdown = f"# couplet demo on '{config.name}'\n\n" + markdown_table(headers, rows)
    json_path, _ = write_report(f"demo-{config.name}", data, markdown)
    log.info(f"report written to {json_path}")
    if result.exit_code != 0 or not measurements:
        log.error(f"the demo firmware failed (exit code {result.exit_code}, {len(measurements)} results)")
        return 1
    return 0
