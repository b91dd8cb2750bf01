"""cocotb tests of couplet_accel_cmd_slice, in tb_cmd_slice.

A command master (accel_model.CmdMaster) sends random commands with random gaps and random
response back-pressure; an accelerator model (AccelSlave) stalls at random and answers after a
random latency. Checked every cycle: what the slice shows on each side is what a model of its
two registers holds, whatever the other side drives in that cycle (so no output depends on an
input within the cycle: the slice cuts every path through it); the accelerator takes the
commands in the order the master sent them, unchanged; the master gets each response, in order,
with the data the golden model gives.

Run: .venv/bin/python -m pytest hw/ip/accel/test/test_accel_cmd_slice.py -q
"""

from __future__ import annotations

from collections import deque

import cocotb

from couplet import paths
from couplet.tools.cocotb_run import run_cocotb
from hw.ip.accel.test.accel_model import AccelModel, AccelSlave, Cmd, CmdMaster, Rsp, cmd_of, random_cmd
from testsupport.accel_port_bfm import ACCEL_PKG, CMD_REQ, CMD_RSP
from testsupport.obi_bfm import ClockedTb, Monitor
from testsupport.struct_port import StructPort

ACCEL_DIR = paths.IP_DIR / "accel"


class SliceTb(ClockedTb):
    def __init__(self, dut, *, master_idle: float = 0.0, rsp_ready_prob: float = 1.0,
                 acc_ready_prob: float = 1.0, latency: tuple[int, int] = (1, 1)) -> None:
        super().__init__(dut)
        self.model = AccelModel()
        self.in_req = StructPort(dut, "in_req_i", CMD_REQ)
        self.in_rsp = StructPort(dut, "in_rsp_o", CMD_RSP)
        self.acc_req = StructPort(dut, "acc_req_o", CMD_REQ)
        self.acc_rsp = StructPort(dut, "acc_rsp_i", CMD_RSP)
        self.master = CmdMaster(self.in_req, lambda: int(dut.in_ready_o.value), self.in_rsp, self.rng,
                                idle_prob=master_idle, rsp_ready_prob=rsp_ready_prob)
        self.acc = AccelSlave(self.acc_req, dut.acc_ready_i, self.acc_rsp, self.rng, self._on_acc_cmd,
                              ready_prob=acc_ready_prob, latency=latency, max_outstanding=4)
        self.in_flight: deque[Cmd] = deque()  # taken by the slice, not yet by the accelerator
        self.held_cmd: Cmd | None = None      # the model of the slice's two registers
        self.held_rsp: Rsp | None = None
        # The register check samples before the master and the accelerator update their state.
        self.add(Monitor(self._check_registers), self.master, self.acc)

    def _on_acc_cmd(self, cmd: Cmd, cycle: int) -> Rsp:
        assert self.in_flight, f"cycle {cycle}: accelerator took {cmd.describe()}, none sent"
        want = self.in_flight.popleft()
        assert cmd == want, f"cycle {cycle}: accelerator took {cmd.describe()}, sent was {want.describe()}"
        rsp = self.model.execute(cmd)
        self.master.expected.append(rsp)
        return rsp

    def _check_registers(self, cycle: int) -> None:
        dut, held_cmd, held_rsp = self.dut, self.held_cmd, self.held_rsp
        where = f"cycle {cycle}"
        assert int(dut.in_ready_o.value) == (held_cmd is None), f"{where}: in_ready_o is not 'command register empty'"
        assert self.acc_req.valid.value == (held_cmd is not None), f"{where}: acc valid is not 'command held'"
        if held_cmd is not None:
            assert cmd_of(self.acc_req) == held_cmd, f"{where}: accelerator shown {cmd_of(self.acc_req)}"
        assert self.acc_req.rsp_ready.value == (held_rsp is None), f"{where}: rsp_ready is not 'response register empty'"
        assert self.in_rsp.rsp_valid.value == (held_rsp is not None), f"{where}: rsp_valid is not 'response held'"
        if held_rsp is not None:
            got = Rsp(self.in_rsp["rsp.data"].value, bool(self.in_rsp["rsp.err"].value))
            assert got == held_rsp, f"{where}: requester shown {got}, held {held_rsp}"
        # The registers' next state, from this cycle's handshakes on both sides.
        if held_cmd is not None:
            if int(dut.acc_ready_i.value):
                self.held_cmd = None
        elif self.in_req.valid.value:
            self.held_cmd = cmd_of(self.in_req)
            self.in_flight.append(self.held_cmd)
        if held_rsp is not None:
            if self.in_req.rsp_ready.value:
                self.held_rsp = None
        elif self.acc_rsp.rsp_valid.value:
            self.held_rsp = Rsp(self.acc_rsp["rsp.data"].value, bool(self.acc_rsp["rsp.err"].value))

    async def drain(self, timeout_cycles: int = 50_000) -> None:
        for _ in range(timeout_cycles):
            await self.sample_point()
            if self.master.idle:
                break
        else:
            raise AssertionError(f"traffic not finished after {timeout_cycles} cycles")
        await self.cycles(2)
        assert not self.acc.pending and self.held_cmd is None and self.held_rsp is None


@cocotb.test()
async def slice_two_cycles(dut):
    """With nothing stalling, a command reaches the accelerator the cycle after the slice takes
    it, its response reaches the requester the cycle after the accelerator gives it, and the
    slice takes a command every second cycle."""
    tb = SliceTb(dut)
    await tb.reset()
    for i in range(16):
        tb.master.send(Cmd(1 if i % 2 else 0, i % 8, i, 0))
    await tb.drain()
    taken = [cycle for _, _, _, cycle, _ in tb.master.responses]
    at_acc = [cycle for _, cycle in tb.acc.taken]
    answered = [cycle for _, _, _, _, cycle in tb.master.responses]
    assert at_acc == [c + 1 for c in taken], f"taken {taken}, at the accelerator {at_acc}"
    assert answered == [c + 2 for c in at_acc], f"at the accelerator {at_acc}, answered {answered}"
    assert all(b - a == 2 for a, b in zip(taken, taken[1:])), f"taken in cycles {taken}"


@cocotb.test()
async def slice_random(dut):
    """Random gaps, response back-pressure, accelerator stalls and latencies."""
    tb = SliceTb(dut, master_idle=0.3, rsp_ready_prob=0.6, acc_ready_prob=0.5, latency=(1, 5))
    await tb.reset()
    for _ in range(1500):
        tb.master.send(random_cmd(tb.rng))
    await tb.drain()
    assert len(tb.master.responses) == 1500
    assert len(tb.acc.taken) == 1500


def test_accel_cmd_slice() -> None:
    run_cocotb(
        toplevel="tb_cmd_slice",
        sources=[ACCEL_PKG, ACCEL_DIR / "rtl" / "couplet_accel_cmd_slice.sv", ACCEL_DIR / "test" / "tb_cmd_slice.sv"],
        test_file=__file__,
        build_name="accel_cmd_slice",
    )
