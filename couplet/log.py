"""Console output of the CLI: progress on stderr, results on stdout, colour only on a terminal."""

from __future__ import annotations

import os
import sys

_verbose = False


def set_verbose(verbose: bool) -> None:
    global _verbose
    _verbose = verbose


def _colour(code: str, text: str) -> str:
    if sys.stderr.isatty() and not os.environ.get("NO_COLOR"):
        return f"\033[{code}m{text}\033[0m"
    return text


def info(message: str) -> None:
    print(_colour("36", "couplet:") + " " + message, file=sys.stderr, flush=True)


def debug(message: str) -> None:
    if _verbose:
        print(_colour("2", "couplet: " + message), file=sys.stderr, flush=True)


def error(message: str) -> None:
    print(_colour("31", "couplet: error:") + " " + message, file=sys.stderr, flush=True)


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table a person can read; numbers are right-aligned."""
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]

    def fmt(cells: list[str]) -> str:
        out = []
        for cell, width in zip(cells, widths):
            text = str(cell)
            numeric = text.replace(",", "").replace(".", "").replace("-", "").isdigit()
            out.append(text.rjust(width) if numeric else text.ljust(width))
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(headers), rule, *(fmt(r) for r in rows)])
