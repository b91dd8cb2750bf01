"""The RTOS accelerator in the SoC without an OS (sw/apps/test_rtos_hw): scheduling, suspend and
resume, the thread table's limit, a mutex with priority inheritance, a semaphore, a queue and a
message copied by the memory port into a waiting receiver's buffer, through each coupling of the
default configuration. The accelerator's behaviour in depth is hw/ip/rtos/test's lockstep test;
this checks the SoC wiring and the kernel-offload layer (couplet/rtos_hw.h)."""

from __future__ import annotations

import re
from collections.abc import Callable

from couplet.model.config import SocConfig, load_config
from couplet.tools.simulator import SimResult

RunApp = Callable[..., SimResult]


def check_every_coupling_passes(result: SimResult, config: SocConfig) -> None:
    console = result.console or ""
    assert result.status == "exit" and result.exit_code == 0, console
    rtos = config.rtos
    assert rtos is not None
    for backend in rtos.couplings:
        assert re.search(rf"^backend {backend} ok$", console, flags=re.M), console
        # Every check printed a line of its own; a run that skipped them would not have them.
        assert len(re.findall(rf"^  ok   {backend} ", console, flags=re.M)) >= 60, console
    assert "FAIL" not in console


def test_rtos_accelerator_through_every_coupling(run_app: RunApp) -> None:
    check_every_coupling_passes(run_app("test_rtos_hw", max_cycles=5_000_000), load_config("default"))
