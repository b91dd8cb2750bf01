"""cocotb tests of couplet_reg_adapter, in tb_reg_mux (reg_mux_tb.py explains the golden side).

The OBI master model (testsupport/obi_bfm.py) checks every response against the expectation
set when the request's command reaches the accelerator model, or at the grant for requests the
adapter must refuse; it also fails on a response in the grant cycle (OBI order).

Run: .venv/bin/python -m pytest hw/ip/accel/test/test_reg_adapter.py -q
"""

from __future__ import annotations

import cocotb

from hw.ip.accel.test.accel_model import MASK32, random_cmd
from hw.ip.accel.test.reg_mux_tb import RegMuxTb, run_reg_mux

REFUSED = [  # (addr, we, be): sub-word stores, unaligned offsets, beyond the 128 registers
    (0x00, True, 0x1), (0x04, True, 0x3), (0x08, True, 0xC), (0x1C, True, 0x7), (0x0C, True, 0xE),
    (0x01, False, 0xF), (0x02, True, 0xF), (0x07, False, 0x1), (0x1FE, False, 0xF),
    (0x200, False, 0xF), (0x200, True, 0xF), (0x204, False, 0xF), (0x1000, True, 0xF),
    (0x8000_0000, False, 0xF), (0xFFFF_FFFC, True, 0xF),
]


@cocotb.test()
async def reg_reset_idle(dut):
    """After reset nothing is answered or sent, and idle cycles stay quiet."""
    tb = RegMuxTb(dut)
    await tb.start()
    await tb.assert_idle({"obi_rsp_o.rvalid": 0, "ra_req_o.valid": 0, "acc_req_o.valid": 0}, 10)
    assert not tb.acc.taken


@cocotb.test()
async def reg_read_write(dut):
    """Stores write and loads read registers 0..7; loads of any width read the word; refused
    requests and unknown registers answer err and leave the registers alone."""
    tb = RegMuxTb(dut)
    await tb.start()
    values = [tb.rng.getrandbits(32) for _ in range(8)]
    for i, value in enumerate(values):
        txn = await tb.bus.write(4 * i, value)
        assert not txn.err and txn.rdata == 0
    for i, value in enumerate(values):
        txn = await tb.bus.read(4 * i, be=tb.rng.choice((0xF, 0x1, 0x2, 0x4, 0x8, 0x3, 0xC)))
        assert (txn.err, txn.rdata) == (False, value), f"register {i}: err={txn.err} rdata=0x{txn.rdata:08x}"
    taken = len(tb.acc.taken)
    for addr, we, be in REFUSED:
        txn = await tb.bus.request(addr, we=we, be=be, wdata=tb.rng.getrandbits(32))
        assert (txn.err, txn.rdata) == (True, 0), f"0x{addr:x} we={we} be={be:x}: err={txn.err}"
    assert len(tb.acc.taken) == taken, "a refused request reached the accelerator"
    for index in (8, 9, 64, 127):  # exist on the bus, not in the accelerator: its err
        for we in (False, True):
            txn = await tb.bus.request(4 * index, we=we, wdata=MASK32)
            assert (txn.err, txn.rdata) == (True, 0), f"index {index} we={we}: err={txn.err}"
    assert len(tb.acc.taken) == taken + 8
    for i, value in enumerate(values):
        assert (await tb.bus.read(4 * i)).rdata == value, f"register {i} changed"
    await tb.drain()


@cocotb.test()
async def reg_timing(dut):
    """With an accelerator answering in the next cycle: response one cycle after the grant, next
    grant one cycle after the response; the response waits for a slower accelerator."""
    tb = RegMuxTb(dut)
    await tb.start()
    txns = [tb.bus.issue(4 * (i % 8), we=bool(i % 2), wdata=i) for i in range(16)]
    await tb.drain()
    latency = {t.resp_cycle - t.accept_cycle for t in txns}
    gaps = {b.accept_cycle - a.accept_cycle for a, b in zip(txns, txns[1:])}
    dut._log.info("accelerator latency 1: grant->response %s cycles, grant gaps %s", latency, gaps)
    assert latency == {1} and gaps == {2}
    assert all(t.present_cycle == t.accept_cycle for t in txns[:1])
    tb.acc.latency = (4, 4)
    txns = [tb.bus.issue(4 * (i % 8)) for i in range(6)]
    await tb.drain()
    latency = {t.resp_cycle - t.accept_cycle for t in txns}
    assert latency == {4}, latency


@cocotb.test()
async def reg_random(dut):
    """Random loads and stores (some refused, some to missing registers) under bus idle cycles,
    accelerator back-pressure and latency, and competing traffic from the mux's other inputs."""
    tb = RegMuxTb(dut, obi_idle=0.3, master_idle=0.5, rsp_ready_prob=0.7, acc_ready_prob=0.6, latency=(1, 5))
    await tb.start()
    for _ in range(1500):
        roll = tb.rng.random()
        if roll < 0.08:
            addr, we, be = tb.rng.choice(REFUSED)
        else:
            index = tb.rng.randrange(10) if roll < 0.95 else tb.rng.randrange(128)
            addr, we, be = 4 * index, tb.rng.random() < 0.5, 0xF
            if not we and tb.rng.random() < 0.3:
                be = tb.rng.randint(1, 15)
        tb.bus.issue(addr, we=we, be=be, wdata=tb.rng.getrandbits(32))
        if tb.rng.random() < 0.3:
            tb.masters[tb.rng.randrange(2)].send(random_cmd(tb.rng))
    await tb.drain(timeout_cycles=60_000)
    assert tb.bus.completed == 1500
    assert tb.grants[0] > 1000 and tb.grants[1] + tb.grants[2] > 300, tb.grants
    dut._log.info("grants per input %s in %d cycles", tb.grants, tb.cycle)


def test_reg_adapter() -> None:
    run_reg_mux(__file__)
