"""The testbench of tb_reg_mux.sv, shared by test_reg_adapter.py and test_accel_cmd_mux.py.

Input 0 of the command mux is couplet_reg_adapter (OBI master model in front), inputs 1 and 2
are raw command masters; an accelerator model answers the mux output. The golden side is one
`AccelModel`: every command the accelerator takes must be the command of the one input that
handshaked in that cycle; the model's response becomes that input's expected response (an OBI
response for input 0, with err for rsp.err and rdata 0 with it). OBI requests the adapter must
refuse (sub-word store, unaligned offset, offset >= 512) expect err and must reach no input.
"""

from __future__ import annotations

from pathlib import Path

from couplet.model import rtl
from couplet.tools.cocotb_run import run_cocotb
from hw.ip.accel.test.accel_model import OP_READ, OP_WRITE, AccelModel, AccelSlave, Cmd, CmdMaster, Rsp, bit
from testsupport.accel_port_bfm import ACCEL_PKG, CMD_REQ, CMD_RSP
from testsupport.obi_bfm import ClockedTb, Monitor, ObiMaster, ObiPort, ObiTxn, Response
from testsupport.struct_port import StructPort

HERE = Path(__file__).resolve().parent
NUM_IN = 3
MAX_IN_FLIGHT = 2
REG_SPAN = 512  # bytes: 128 registers


def obi_legal(addr: int, we: bool, be: int) -> bool:
    return addr < REG_SPAN and addr % 4 == 0 and (not we or be == 0xF)


def obi_cmd(txn: ObiTxn) -> Cmd:
    """The command a legal OBI request must become."""
    if txn.we:
        return Cmd(OP_WRITE, txn.addr >> 2, txn.wdata, 0)
    return Cmd(OP_READ, txn.addr >> 2, 0, 0)


class RegMuxTb(ClockedTb):
    def __init__(self, dut, *, obi_idle: float = 0.0, master_idle: float = 0.0, rsp_ready_prob: float = 1.0,
                 acc_ready_prob: float = 1.0, latency: tuple[int, int] = (1, 1)) -> None:
        super().__init__(dut)
        self.model = AccelModel()
        self.bus = ObiMaster(ObiPort(dut, "obi_"), self.rng, idle_prob=obi_idle, resp_timeout=500)
        self.masters = [CmdMaster(StructPort(dut, "raw_req_i", CMD_REQ, k), bit(dut.raw_ready_o, k),
                                  StructPort(dut, "raw_rsp_o", CMD_RSP, k), self.rng, idle_prob=master_idle,
                                  rsp_ready_prob=rsp_ready_prob)
                        for k in (0, 1)]
        self.acc = AccelSlave(StructPort(dut, "acc_req_o", CMD_REQ), dut.acc_ready_i,
                              StructPort(dut, "acc_rsp_i", CMD_RSP), self.rng, self._on_acc_cmd,
                              ready_prob=acc_ready_prob, latency=latency, max_outstanding=4)
        self.ra_req = StructPort(dut, "ra_req_o", CMD_REQ)
        self.bus.on_accept.append(self._on_obi_accept)
        self.bus.on_response.append(lambda txn, cycle: txn.check())
        self.obi_awaiting_cmd: ObiTxn | None = None
        self.grants = [0] * NUM_IN
        self.waited_grants = [0] * NUM_IN     # grants to other inputs while this one waits
        self.max_waited_grants = [0] * NUM_IN
        self.cmd_log: list[tuple[int, Cmd, int]] = []  # (input, command, cycle)
        # Models sample in this order: the inputs first, so the accelerator model knows who sent.
        self.add(self.bus, *self.masters, self.acc, Monitor(self._fairness))

    async def start(self) -> None:
        await self.reset()

    # -- golden
    def _on_obi_accept(self, txn: ObiTxn, cycle: int) -> None:
        if obi_legal(txn.addr, txn.we, txn.be):
            self.obi_awaiting_cmd = txn
        else:
            txn.expected = Response(rdata=0, err=True)

    def _senders(self) -> list[int]:
        senders = []
        if self.ra_req.valid.value and int(self.dut.ra_ready_o.value):
            senders.append(0)
        senders += [i + 1 for i, m in enumerate(self.masters) if m.taken_now is not None]
        return senders

    def _on_acc_cmd(self, cmd: Cmd, cycle: int) -> Rsp:
        senders = self._senders()
        assert len(senders) == 1, f"cycle {cycle}: accelerator took {cmd.describe()}; inputs handshaking: {senders}"
        sender = senders[0]
        if sender == 0:
            txn = self.obi_awaiting_cmd
            assert txn is not None, f"cycle {cycle}: register adapter sent {cmd.describe()} with no request"
            want = obi_cmd(txn)
            self.obi_awaiting_cmd = None
        else:
            want = self.masters[sender - 1].taken_now
        assert cmd == want, f"cycle {cycle}: accelerator took {cmd.describe()} from input {sender}, " \
                            f"which sent {want.describe()}"
        rsp = self.model.execute(cmd)
        if sender == 0:
            txn.expected = Response(rdata=0 if rsp.err else rsp.data, err=rsp.err)
        else:
            self.masters[sender - 1].expected.append(rsp)
        self.grants[sender] += 1
        self.cmd_log.append((sender, cmd, cycle))
        return rsp

    def _fairness(self, cycle: int) -> None:
        """Round-robin: a waiting input sees at most NUM_IN - 1 grants to others before its own."""
        valid = [self.ra_req.valid.value] + [m.req.valid.value for m in self.masters]
        ready = [int(self.dut.ra_ready_o.value)] + [m.ready() for m in self.masters]
        granted = [v and r for v, r in zip(valid, ready)]
        for i in range(NUM_IN):
            if granted[i] or not valid[i]:
                self.waited_grants[i] = 0
            elif any(granted):
                self.waited_grants[i] += 1
                self.max_waited_grants[i] = max(self.max_waited_grants[i], self.waited_grants[i])
                assert self.waited_grants[i] < NUM_IN, (
                    f"cycle {cycle}: input {i} waited through {self.waited_grants[i]} grants to others"
                )

    # -- helpers
    def idle(self) -> bool:
        return all(m.idle for m in self.masters) and not self.bus.queue and self.bus.current is None \
            and not self.bus.outstanding

    async def drain(self, timeout_cycles: int = 20_000) -> None:
        for _ in range(timeout_cycles):
            await self.sample_point()
            if self.idle():
                break
        else:
            raise AssertionError(f"traffic not finished after {timeout_cycles} cycles")
        await self.cycles(2)
        assert not self.acc.pending, "accelerator responses never taken"
        assert self.acc.req.valid.value == 0 and int(self.bus.port.rvalid.value) == 0


def run_reg_mux(test_file: str) -> None:
    """Build tb_reg_mux once (the two test files share the build) and run `test_file`'s tests."""
    rtl_dir = HERE.parent / "rtl"
    run_cocotb(
        toplevel="tb_reg_mux",
        # What the accel IP builds on (the OBI package, the routing FIFO), then its own parts.
        sources=[*rtl.sources_with_dependencies(rtl.ip_dependencies("accel")), ACCEL_PKG,
                 rtl_dir / "couplet_reg_adapter.sv", rtl_dir / "couplet_accel_cmd_mux.sv", HERE / "tb_reg_mux.sv"],
        test_file=test_file,
        build_name="accel_reg_mux",
        parameters={"MaxInFlight": MAX_IN_FLIGHT},
    )
