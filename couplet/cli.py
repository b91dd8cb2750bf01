"""The `couplet` command: generate, build, simulate, run, FreeRTOS apps, lint, benchmark, synthesize,
build a board's bitstream, estimate energy, prove the adapters' properties, fuzz the C APIs and demo."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from couplet import __version__, log


def _add_config(parser: argparse.ArgumentParser, default: str = "default") -> None:
    parser.add_argument(
        "--config",
        "-c",
        default=default,
        help="SoC configuration: a name from configs/ or a path to a .toml file (default: %(default)s)",
    )


def _add_target(parser: argparse.ArgumentParser, detail: str = "") -> None:
    from couplet.tools.yosys import TARGETS

    parser.add_argument("--target", choices=list(TARGETS), default="xc7",
                        help=f"cell library of the counts{detail} (default: %(default)s)")


def _add_jobs(parser: argparse.ArgumentParser, what: str, default: int = 2) -> None:
    parser.add_argument("--jobs", "-j", type=int, default=default, help=f"{what} at once (default: %(default)s)")


def _add_fpga_flow(parser: argparse.ArgumentParser, target_detail: str, fmax_what: str) -> None:
    """The options of the flows that map RTL with Yosys and may place and route it."""
    _add_config(parser)
    _add_target(parser, target_detail)
    parser.add_argument("--fmax", action="store_true", help=f"also place and route {fmax_what}")
    _add_jobs(parser, "tool runs")


def cmd_gen(args: argparse.Namespace) -> int:
    from couplet import paths
    from couplet.gen import cores
    from couplet.gen.generate import committed_outputs, write_config_outputs, write_if_changed
    from couplet.model.config import load_config
    from couplet.reports import anchors

    config = load_config(args.config)
    out_dir = Path(args.out) if args.out else paths.config_build_dir(config.name) / "gen"
    for kind, path in write_config_outputs(config, out_dir).items():
        log.info(f"{kind:10s} {path}")
    for path, text in {**committed_outputs(config), **cores.core_outputs(), **anchors.doc_outputs()}.items():
        if write_if_changed(path, text):
            log.info(f"updated    {path.relative_to(paths.ROOT)}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from couplet.model.config import load_config
    from couplet.tools import firmware

    config = load_config(args.config)
    elf = firmware.build_app(config, args.app, out=Path(args.output) if args.output else None)
    print(elf)
    return 0


def cmd_flags(args: argparse.Namespace) -> int:
    from couplet.model.config import load_config
    from couplet.tools import firmware

    config = load_config(args.config)
    sdk = firmware.build_sdk(config)
    flags = {"cflags": sdk.cflags, "ldflags": sdk.ldflags, "libs": sdk.libs}
    chosen = [k for k in flags if getattr(args, k)] or list(flags)
    print(" ".join(" ".join(flags[k]) for k in chosen))
    return 0


def _simulate(args: argparse.Namespace, build_first: bool) -> int:
    """`sim` and `run`: the program's exit code becomes ours."""
    from couplet.model.config import load_config
    from couplet.tools import firmware, simulator

    config = load_config(args.config)
    elf = firmware.build_app(config, args.app) if build_first else Path(args.elf)
    trace = Path(args.trace) if args.trace else None
    return simulator.simulate(config, elf, max_cycles=args.max_cycles, trace=trace).exit_code


def cmd_sim(args: argparse.Namespace) -> int:
    return _simulate(args, build_first=False)


def cmd_run(args: argparse.Namespace) -> int:
    return _simulate(args, build_first=True)


def cmd_rtos(args: argparse.Namespace) -> int:
    """`rtos build` prints the ELF; `rtos run` builds, simulates and exits with the program's code."""
    from couplet.model.config import load_config
    from couplet.tools import freertos, simulator

    config = load_config(args.config)
    elf = freertos.build_rtos_app(config, args.app, variant=args.kernel)
    if args.rtos_command == "build":
        print(elf)
        return 0
    trace = Path(args.trace) if args.trace else None
    return simulator.simulate(config, elf, max_cycles=args.max_cycles, trace=trace).exit_code


def cmd_lint(args: argparse.Namespace) -> int:
    from couplet.flows import lint
    from couplet.model.config import load_config

    return lint.lint(load_config(args.config))


def cmd_bench(args: argparse.Namespace) -> int:
    from couplet.flows import bench
    from couplet.model.config import load_config

    kernels = [k.strip() for k in args.kernel.split(",") if k.strip()] if args.kernel else None
    return bench.run(args.what, load_config(args.config), runs=args.runs, kernels=kernels, jobs=args.jobs)


def cmd_synth(args: argparse.Namespace) -> int:
    from couplet.flows import synth

    return synth.run(args.config, args.target, args.jobs, args.fmax)


def cmd_sweep(args: argparse.Namespace) -> int:
    from couplet.flows import sweep

    only, values = sweep.parse_selection(args.only, args.values or [])
    return sweep.run(args.config, args.target, only, args.jobs, args.fmax, values)


def cmd_fpga(args: argparse.Namespace) -> int:
    from couplet.flows import fpga

    return fpga.run(args.board, args.config, args.app)


def cmd_prove(args: argparse.Namespace) -> int:
    from couplet.flows import prove

    return prove.prove(args.checks, args.quick)


def cmd_energy(args: argparse.Namespace) -> int:
    from couplet.flows import energy

    return energy.run(args.config, tuple(args.sizes), args.jobs)


def cmd_fuzz(args: argparse.Namespace) -> int:
    from couplet.flows import fuzz

    return fuzz.run_cli(args.iterations, args.seed)


def cmd_demo(args: argparse.Namespace) -> int:
    from couplet.flows import demo
    from couplet.model.config import load_config

    return demo.run(load_config(args.config))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="couplet",
        description="couplet: a RISC-V IoT SoC with accelerators in every coupling style.",
    )
    parser.add_argument("--version", action="version", version=f"couplet {__version__}")
    parser.add_argument("--verbose", "-v", action="store_true", help="show the tool commands as they run")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("gen", help="generate the SV package, C header, linker script and docs of a config")
    _add_config(p)
    p.add_argument("--out", help="output folder (default: build/<config>/gen)")
    p.set_defaults(func=cmd_gen)

    p = sub.add_parser("build", help="build a firmware app (a folder in sw/apps/ or a path) into an ELF")
    _add_config(p)
    p.add_argument("app", help="app name in sw/apps/, or a folder / .c file of your own")
    p.add_argument("--output", "-o", help="where to write the ELF (default: build/<config>/apps/<app>.elf)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("flags", help="print the compiler and linker flags for building against the SDK")
    _add_config(p)
    p.add_argument("--cflags", action="store_true")
    p.add_argument("--ldflags", action="store_true")
    p.add_argument("--libs", action="store_true")
    p.set_defaults(func=cmd_flags)

    for name, helptext in (
        ("sim", "simulate an ELF on the SoC; exits with the program's exit code"),
        ("run", "build an app from sw/apps/ and simulate it"),
    ):
        p = sub.add_parser(name, help=helptext)
        _add_config(p)
        if name == "sim":
            p.add_argument("elf", help="a RISC-V 32-bit ELF linked for this configuration")
            p.set_defaults(func=cmd_sim)
        else:
            p.add_argument("app", help="app name in sw/apps/, or a folder / .c file of your own")
            p.set_defaults(func=cmd_run)
        p.add_argument("--max-cycles", type=int, default=100_000_000, help="stop after N cycles (default: %(default)s)")
        p.add_argument("--trace", help="write a waveform: FILE.fst or FILE.vcd")

    p = sub.add_parser(
        "rtos", help="build or run a FreeRTOS app from fw/rtos/apps/ or a folder (docs/rtos.md, docs/rtos-app.md)"
    )
    rtos_sub = p.add_subparsers(dest="rtos_command", required=True, metavar="ACTION")
    for name, helptext in (
        ("build", "build FreeRTOS and an app into an ELF (prints its path)"),
        ("run", "build FreeRTOS and an app, simulate it; exits with the program's exit code"),
    ):
        q = rtos_sub.add_parser(name, help=helptext)
        _add_config(q)
        q.add_argument("app", help="app name in fw/rtos/apps/, or a folder of your own")
        q.add_argument("--kernel", default="sw", help="FreeRTOS kernel variant (default: %(default)s)")
        if name == "run":
            q.add_argument(
                "--max-cycles", type=int, default=100_000_000, help="stop after N cycles (default: %(default)s)"
            )
            q.add_argument("--trace", help="write a waveform: FILE.fst or FILE.vcd")
        q.set_defaults(func=cmd_rtos)

    p = sub.add_parser("lint", help="Verilator --lint-only -Wall over our RTL")
    _add_config(p)
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("bench", help="run a benchmark and write JSON, Markdown (and plots) to build/reports/")
    _add_config(p)
    p.add_argument(
        "what",
        choices=["sim", "aes", "aead", "sha3", "rtos", "facv"],
        help="sim: simulation speed in cycles per second; aes: AES API cycles per backend; aead: AES-CCM, "
        "CCM* (802.15.4 frame), AES-GCM and AES-CMAC cycles per backend; "
        "sha3: SHA-3 API cycles per backend (KRONOS Table 1 shape); rtos: FreeRTOS API latency and a "
        "Thread-Metric-equivalent suite per kernel variant (ChamelIoT shape); facv: AES-256 packet echo "
        "under Thread-Metric load, per AES backend (FAC-V Tables 8 and 9 shape)",
    )
    p.add_argument(
        "--runs", type=int, default=3,
        help="repetitions of `sim` (default: %(default)s; aes, aead and sha3 fix their own)",
    )
    p.add_argument(
        "--kernel",
        help="rtos: comma-separated FreeRTOS kernel variants, e.g. sw,hw-tight (default: every variant the "
        "configuration supports); facv: the one variant to run (default: sw)",
    )
    _add_jobs(p, "rtos: kernel variants built and simulated", default=1)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "synth",
        help="FPGA resources of the SoC and of each accelerator in each coupling (Yosys), and Fmax (nextpnr-ecp5)",
    )
    _add_fpga_flow(p, ": xc7 (Artix-7-style, Yosys synth_xilinx), ecp5, ice40",
                   "each accelerator tile and the whole SoC with nextpnr-ecp5 (LFE5U-85F-6BG381C) for their "
                   "Fmax; takes tens of minutes")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser(
        "sweep",
        help="FPGA resources (and Fmax) of each accelerator over its parameters: AES architecture, AES GHASH "
        "bits per cycle, Keccak rounds per cycle, RTOS thread count, in each coupling",
    )
    _add_fpga_flow(p, "", "each tile with nextpnr-ecp5 for its Fmax (much longer)")
    p.add_argument("--only", help="comma-separated axes to sweep: aes (architecture), aes_ghash (GHASH bits per "
                   "cycle, mem; its cost over ghash_bits = 0), keccak, rtos (default: all)")
    p.add_argument("--values", action="append", metavar="AXIS=V1,V2",
                   help="sweep only these values of one axis's setting, e.g. keccak=1,2,4 or aes_ghash=0,8 "
                   "(repeatable)")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "fpga",
        help="a bitstream of a configuration's SoC, with an app in its SRAM, for a board (docs/board-ulx3s.md)",
    )
    p.add_argument("--board", default="ulx3s", help="the board (default: %(default)s; known: ulx3s)")
    _add_config(p, default="ulx3s")
    p.add_argument("--app", default="demo",
                   help="the program in the SRAM: an app in sw/apps/, or a folder / .c file (default: %(default)s)")
    p.set_defaults(func=cmd_fpga)

    p = sub.add_parser(
        "energy",
        help="a RELATIVE estimate of the energy per message of each AES backend (FAC-V Table 11 shape, "
        "docs/energy.md)",
    )
    _add_config(p)
    p.add_argument("--sizes", type=int, nargs="+", default=[16, 80], metavar="BYTES",
                   help="message sizes, whole AES blocks (default: 16 80)")
    _add_jobs(p, "Yosys runs for the cell counts")
    p.set_defaults(func=cmd_energy)

    p = sub.add_parser(
        "prove",
        help="formal property checks of the bus and coupling adapters (SymbiYosys; docs/formal.md)",
    )
    p.add_argument("checks", nargs="*", metavar="CHECK", help="checks to run (default: all)")
    p.add_argument("--quick", action="store_true",
                   help="bounded runs to each check's quick depth only (the test suite's run)")
    p.set_defaults(func=cmd_prove)

    p = sub.add_parser(
        "fuzz",
        help="random and bad calls of the AES and SHA-3 C APIs on the host under ASan and UBSan, checked "
        "against their contract; writes build/reports/fuzz.{json,md}",
    )
    p.add_argument("--iterations", type=int, default=1_000_000,
                   help="random calls per stand-in SoC configuration (default: %(default)s)")
    p.add_argument("--seed", type=int, help="the random seed (default: a new one, printed to rerun it)")
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser("demo", help="build the SoC and the demo firmware, run it, report cycles")
    _add_config(p)
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from couplet.errors import CoupletError, EXIT_TOOL_ERROR
    from couplet.model.config import ConfigError
    from couplet.model.regs import RegsError
    from couplet.paths import ToolError

    args = build_parser().parse_args(argv)
    log.set_verbose(args.verbose)
    try:
        return int(args.func(args))
    except (ConfigError, RegsError, ToolError, CoupletError) as err:
        log.error(str(err))
        return EXIT_TOOL_ERROR
    except KeyboardInterrupt:
        log.error("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
