"""Verilator --lint-only -Wall over couplet's RTL, with each IP's waivers.

The CV32E40X is third-party: its files are waived as a whole in hw/lint/third_party.vlt so
that every warning shown is ours. Our own waivers live next to each IP (hw/ip/<ip>/lint/),
each scoped to one file and one message with a reason.
"""

from __future__ import annotations

import subprocess

from couplet import log, paths, rtl
from couplet.config import SocConfig
from couplet.generate import write_config_outputs


def waiver_files() -> list[str]:
    files = [paths.HW_DIR / "lint" / "third_party.vlt"]
    files += sorted(paths.HW_DIR.glob("ip/*/lint/*.vlt"))
    files += sorted(paths.HW_DIR.glob("soc/lint/*.vlt"))
    return [str(f) for f in files]


def lint_command(config: SocConfig) -> list[str]:
    gen_dir = paths.config_build_dir(config.name) / "gen"
    write_config_outputs(config, gen_dir)
    sources = [
        *rtl.core_sources(simulation=True),
        *rtl.soc_sources(gen_dir / "rtl" / "couplet_soc_cfg_pkg.sv"),
        *rtl.sim_top_sources(),
    ]
    return [
        str(paths.verilator_bin()),
        "--lint-only",
        "-Wall",
        "--top-module",
        "couplet_sim_top",
        *(f"+incdir+{d}" for d in rtl.core_include_dirs()),
        *waiver_files(),
        *map(str, sources),
    ]


def lint(config: SocConfig) -> int:
    """Returns 0 when clean; prints Verilator's messages otherwise."""
    command = lint_command(config)
    log.info(f"linting couplet RTL of '{config.name}' with Verilator -Wall")
    proc = subprocess.run(command, capture_output=True, text=True, env=paths.verilator_env())
    # Verilator ends with a statistics report; warnings and errors are the lines with '%'.
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0 or "%Warning" in output or "%Error" in output:
        print(output)
        log.error("lint found problems")
        return 1
    log.info("lint clean")
    return 0
