"""cocotb tests of couplet_accel_cmd_mux, in tb_reg_mux (reg_mux_tb.py explains the golden side).

Three inputs (the register adapter and two raw command masters) race for one accelerator model
that can hold several commands. Checked every cycle: the accelerator takes exactly the command
of the one input that handshakes, the command is stable until taken, a waiting input gets its
turn within NUM_IN - 1 grants (round-robin), and every input receives exactly its own responses,
in order, with the data the golden model predicts.

Run: .venv/bin/python -m pytest hw/ip/accel/test/test_accel_cmd_mux.py -q
"""

from __future__ import annotations

import cocotb

from hw.ip.accel.test.accel_model import Cmd, random_cmd
from hw.ip.accel.test.reg_mux_tb import MAX_IN_FLIGHT, NUM_IN, RegMuxTb, run_reg_mux


@cocotb.test()
async def mux_pass_through(dut):
    """An idle mux adds no cycle: a command is taken in the cycle it is offered, its response
    reaches the input in the cycle the accelerator gives it, and one command per cycle flows."""
    tb = RegMuxTb(dut)
    await tb.start()
    master = tb.masters[0]
    for i in range(20):
        master.send(Cmd(1 if i % 2 else 0, i % 8, i, 0))
    await tb.drain()
    cmd_cycles = [cycle for _, _, _, cycle, _ in master.responses]
    assert [c for _, _, c in tb.cmd_log] == cmd_cycles
    assert all(b - a == 1 for a, b in zip(cmd_cycles, cmd_cycles[1:])), f"commands in cycles {cmd_cycles}"
    assert all(taken == offered for _, _, offered, taken, _ in master.responses), "a command waited"
    assert all(answered == taken + 1 for _, _, _, taken, answered in master.responses)


@cocotb.test()
async def mux_hold(dut):
    """A command offered to a stalled accelerator stays selected, even when an input that comes
    earlier in round-robin order starts to wait; that input goes next."""
    tb = RegMuxTb(dut)
    await tb.start()
    await tb.bus.read(0)  # input 0 served last: the order is now 1, 2, 0
    m1, m2 = tb.masters
    tb.acc.ready_prob = 0.0
    m2.send(Cmd(1, 2, 0x2222, 0))
    await tb.cycles(3)
    m1.send(Cmd(1, 1, 0x1111, 0))
    tb.bus.issue(12, we=True, wdata=0x3333)
    await tb.cycles(4)
    tb.acc.ready_prob = 1.0
    await tb.drain()
    order = [sender for sender, _, _ in tb.cmd_log]
    assert order == [0, 2, 0, 1], f"grant order {order}: input 2 first (held), then 0 before 1 (round-robin)"


@cocotb.test()
async def mux_in_flight(dut):
    """With a slow accelerator at most MaxInFlight commands are outstanding, and the responses
    still go back to the right inputs in order."""
    tb = RegMuxTb(dut, latency=(6, 6))
    await tb.start()
    for i in range(12):
        tb.masters[i % 2].send(Cmd(3, 0, i, 1000 * (i % 2)))
    await tb.drain()
    assert tb.acc.max_seen == MAX_IN_FLIGHT, f"{tb.acc.max_seen} outstanding, expected {MAX_IN_FLIGHT}"
    for m, master in enumerate(tb.masters):
        sums = [rsp.data for _, rsp, _, _, _ in master.responses]
        assert sums == [i + 1000 * m for i in range(m, 12, 2)], f"m{m + 1} got {sums}"  # model-free


@cocotb.test()
async def mux_race(dut):
    """Three inputs racing with random gaps, response back-pressure and accelerator stalls."""
    tb = RegMuxTb(dut, obi_idle=0.2, master_idle=0.2, rsp_ready_prob=0.6, acc_ready_prob=0.5, latency=(1, 4))
    await tb.start()
    for _ in range(1200):
        for master in tb.masters:
            master.send(random_cmd(tb.rng))
        if tb.rng.random() < 0.4:
            tb.bus.issue(4 * tb.rng.randrange(10), we=tb.rng.random() < 0.5, wdata=tb.rng.getrandbits(32))
    await tb.drain(timeout_cycles=80_000)
    assert all(len(m.responses) == 1200 for m in tb.masters)
    assert min(tb.grants) > 300, tb.grants
    assert max(tb.max_waited_grants) == NUM_IN - 1, f"round-robin never needed: {tb.max_waited_grants}"
    assert tb.acc.max_seen == MAX_IN_FLIGHT
    dut._log.info("grants %s, longest wait %s grants, %d cycles", tb.grants, tb.max_waited_grants, tb.cycle)


def test_accel_cmd_mux() -> None:
    run_reg_mux(__file__)
