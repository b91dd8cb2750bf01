"""Errors and the exit codes that couplet reserves for itself.

`couplet sim` and `couplet run` exit with the simulated program's own exit code, so couplet's
own failures use codes a firmware test is unlikely to pick, the way GNU `timeout` does.
"""

EXIT_TIMEOUT = 124  # the program did not exit within --max-cycles
EXIT_TOOL_ERROR = 125  # bad input (ELF, config) or a failed build: nothing was simulated


class CoupletError(Exception):
    """A failure with a message meant for the user (no traceback)."""


class BuildError(CoupletError):
    """A compiler, linker or Verilator run failed; the message holds its output."""


class SimulationError(CoupletError):
    """The simulator refused its input or failed."""
