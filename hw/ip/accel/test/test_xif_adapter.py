"""cocotb tests of couplet_xif_adapter (in tb_xif_adapter, with three test accelerators).

`CoreModel` stands in for the CV32E40X: a cycle model of its ID, EX and WB stages as far as the
X-IF sees them (cv32e40x_id_stage, _controller_fsm, _wb_stage of 0.6.0):
- ID offers every instruction of the program marked as offloadable (issue_valid) until the
  handshake; a kill of ID retracts it, or strands an accepted one (it never gets a commit).
- EX commits an offloaded instruction in its first cycle that is not halted; a halt stops ID, EX
  and WB together (debug entry, fence.i, CSR flush), so the next issue can at most coincide with
  the commit. A flush (interrupt) kills ID and EX and is only taken while no committed offloaded
  instruction is in EX or WB; a rejected instruction reaching WB traps and flushes as well; a
  branch kills ID alone. Commits may also randomly carry commit_kill.
- WB holds an offloaded instruction until its result; result_ready is high while it is there
  (randomly low in some phases, which the core never does, to exercise the adapter's holding).
- Instruction ids follow the core: +1 only when the next instruction enters ID while the
  previous one is offloading, so bubbles and kills make ids repeat.

The golden side decodes each instruction's port independently (PORTS), runs committed commands
on one `AccelModel` per port in commit order, and predicts every command on the accelerator
ports (in order, nothing for killed or stranded instructions) and every result (id, rd, data,
exc/exccode for rsp.err). Per-cycle checks: compressed and memory interfaces idle, unused
issue_resp/result fields zero, commands and results stable until taken.

Run: .venv/bin/python -m pytest hw/ip/accel/test/test_xif_adapter.py -q
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import cocotb
import pytest

from couplet.tools.cocotb_run import run_cocotb
from hw.ip.accel.test.accel_model import MASK32, AccelKnobs, AccelModel, Cmd, Rsp, cmd_of, random_cmd
from testsupport.accel_port_bfm import CMD_REQ
from testsupport.obi_bfm import ClockedTb, Monitor, assert_values
from testsupport.struct_port import StructPort

HERE = Path(__file__).resolve().parent
DEPTH_ENV = "COUPLET_XIF_DEPTH"
DEPTHS = (3, 2)  # 3: the SoC's (the default); 2: fewer than the core has in flight
NUM_PORTS = 3
# No command shown and no response taken on any accelerator port.
PORTS_IDLE = {f"acc_req_o[{k}].{field}": 0 for k in range(NUM_PORTS) for field in ("valid", "rsp_ready")}
OPCODE_CUSTOM_0, OPCODE_CUSTOM_1 = 0x0B, 0x2B
# (mask, match) per port, as in tb_xif_adapter.sv; the first match wins.
PORTS = ((0x0000_007F, OPCODE_CUSTOM_0), (0xF000_007F, OPCODE_CUSTOM_1), (0x0000_007F, OPCODE_CUSTOM_1))
UNMATCHED_OPCODES = (0x5B, 0x7B, 0x33, 0x73, 0x0F, 0x2F, 0x57, 0x77)
EXC_ILLEGAL_INSN = 2


def depth() -> int:
    return int(os.environ.get(DEPTH_ENV, "3"))


def decode_port(word: int) -> int | None:
    for port, (mask, match) in enumerate(PORTS):
        if word & mask == match:
            return port
    return None


def r_type(opcode: int, funct3: int, funct7: int, rd: int, rs1: int = 1, rs2: int = 2) -> int:
    return (funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode


def instr_cmd(word: int, rs1: int, rs2: int) -> Cmd:
    return Cmd(op=word >> 12 & 7, index=word >> 25, op_a=rs1, op_b=rs2)


@dataclass(eq=False)
class Instr:
    seq: int
    word: int | None            # None: an instruction the core executes itself
    rs1: int = 0
    rs2: int = 0
    xid: int = 0
    port: int | None = None
    handshake: str | None = None  # "acc" or "rej"
    committed: bool = False
    killed: bool = False
    expected: Rsp | None = None
    issue_cycle: int | None = None
    result_cycle: int | None = None
    ex_stall: int = 0

    def restart(self) -> Instr:
        self.handshake, self.committed, self.killed, self.expected = None, False, False, None
        self.issue_cycle = self.result_cycle = None
        return self

    @property
    def offload(self) -> bool:
        return self.word is not None

    def describe(self) -> str:
        if self.word is None:
            return f"#{self.seq} (plain)"
        return f"#{self.seq} instr=0x{self.word:08x} id={self.xid} port={self.port}"


@dataclass
class Knobs:
    fetch: float = 0.9          # an instruction is available for ID
    offload: float = 0.8        # it is an offload candidate
    unmatched: float = 0.1      # ... that no port takes
    err: float = 0.05           # ... whose command does not exist
    commit_kill: float = 0.0    # a commit carries commit_kill
    flush: float = 0.0          # interrupt: kill ID and EX
    branch: float = 0.0         # branch in EX: kill ID
    halt: float = 0.0           # start of a pipeline halt
    halt_len: tuple[int, int] = (1, 4)
    ex_stall: float = 0.0       # a plain instruction takes extra EX cycles
    wb_stall: float = 0.0       # a plain instruction waits in WB
    result_drop: float = 0.0    # result_ready low with an offloaded instruction in WB (not core-like)


class CoreModel:
    def __init__(self, tb: XifTb, knobs: Knobs) -> None:
        self.tb = tb
        self.dut = tb.dut
        self.rng = tb.rng
        self.knobs = knobs
        self.id_: Instr | None = None
        self.ex: Instr | None = None
        self.ex_first = False
        self.wb: Instr | None = None
        self.wb_first = False
        self.last_xid = 0
        self.seq = 0
        self.halt_left = 0
        self.program: deque[Instr] = deque()  # directed instructions go first
        self.random_budget = 0                # random instructions still to generate
        self.retired: list[Instr] = []
        self.stats = {"accepted": 0, "rejected": 0, "killed": 0, "stranded": 0, "results": 0, "exc": 0,
                      "issue_stall_cycles": 0, "halts": 0, "flushes": 0, "commit_with_issue": 0,
                      "id_in_flight_reissued": 0}
        self.last_progress = 0
        self.now: dict[str, object] = {}

    # -- program
    def add(self, word: int | None, rs1: int = 0, rs2: int = 0) -> Instr:
        instr = Instr(seq=-1, word=word, rs1=rs1 & MASK32, rs2=rs2 & MASK32)
        self.program.append(instr)
        return instr

    def _random_instr(self) -> Instr:
        rng, k = self.rng, self.knobs
        if rng.random() >= k.offload:
            return Instr(seq=-1, word=None)
        rd = rng.randrange(32)
        if rng.random() < k.unmatched:
            word = rng.getrandbits(25) << 7 | rng.choice(UNMATCHED_OPCODES)
            return Instr(seq=-1, word=word, rs1=rng.getrandbits(32), rs2=rng.getrandbits(32))
        cmd = random_cmd(rng, err_prob=k.err)
        port = rng.randrange(NUM_PORTS)
        index = cmd.index
        if port == 2 and index < 8:
            index |= rng.choice((0x08, 0x10, 0x20, 0x40))  # port 2 only sees funct7 >= 8: errors
        opcode = OPCODE_CUSTOM_0 if port == 0 else OPCODE_CUSTOM_1
        word = r_type(opcode, cmd.op, index, rd, rng.randrange(32), rng.randrange(32))
        return Instr(seq=-1, word=word, rs1=cmd.op_a, rs2=cmd.op_b)

    def _fetch(self) -> Instr | None:
        if self.program:
            instr = self.program.popleft()
            if instr.seq >= 0:
                return instr  # run again after a flush
        elif self.random_budget > 0:
            self.random_budget -= 1
            instr = self._random_instr()
        else:
            return None
        instr.seq = self.seq
        self.seq += 1
        if instr.word is not None:
            instr.port = decode_port(instr.word)
        elif self.rng.random() < self.knobs.ex_stall:
            instr.ex_stall = self.rng.randint(1, 5)
        return instr

    @property
    def busy(self) -> bool:
        return bool(self.program or self.random_budget or self.id_ or self.ex or self.wb)

    # -- clock hooks
    def reset_values(self) -> None:
        dut = self.dut
        for name in ("issue_valid_i", "issue_instr_i", "issue_id_i", "issue_rs1_i", "issue_rs2_i",
                     "commit_valid_i", "commit_id_i", "commit_kill_i", "result_ready_i",
                     "compressed_valid_i", "compressed_instr_i", "mem_ready_i", "mem_result_valid_i"):
            getattr(dut, name).value = 0

    def drive(self, cycle: int) -> None:
        rng, k, dut = self.rng, self.knobs, self.dut
        now: dict[str, object] = {"halted": False, "flush": False, "kill_id": False, "issue": None,
                                  "commit": None, "commit_kill": False, "result_ready": False,
                                  "wb_stall": False, "offloading": False}
        wb_offload = self.wb is not None and self.wb.handshake == "acc"
        wb_trap = self.wb is not None and self.wb.handshake == "rej"
        ex_committed = self.ex is not None and self.ex.committed
        if self.halt_left == 0 and not wb_offload and not wb_trap and rng.random() < k.halt:
            self.halt_left = rng.randint(*k.halt_len)
            self.stats["halts"] += 1
        if self.halt_left:
            self.halt_left -= 1
            now["halted"] = True
        else:
            if wb_trap and self.wb_first:
                now["flush"] = True
            elif not wb_offload and not ex_committed and rng.random() < k.flush:
                now["flush"] = True
                self.stats["flushes"] += 1
            elif self.ex is not None and not self.ex.offload and self.ex_first and rng.random() < k.branch:
                now["kill_id"] = True
            if self.id_ is not None and self.id_.offload and self.id_.handshake is None and \
                    not now["flush"] and not now["kill_id"]:
                now["issue"] = self.id_
            ex = self.ex
            if ex is not None and ex.offload and ex.handshake is not None and not ex.committed:
                now["commit"] = ex
                now["commit_kill"] = ex.handshake == "rej" or bool(now["flush"]) or rng.random() < k.commit_kill
            if wb_offload:
                now["result_ready"] = rng.random() >= k.result_drop
            if self.wb is not None and not self.wb.offload and rng.random() < k.wb_stall:
                now["wb_stall"] = True
        # The core's xif_offloading: ID attempts or has finished an offload.
        now["offloading"] = self.id_ is not None and self.id_.offload and \
            (now["issue"] is not None or self.id_.handshake is not None)
        self.now = now

        issue = now["issue"]
        dut.issue_valid_i.value = int(issue is not None)
        if issue is not None:
            dut.issue_instr_i.value = issue.word
            dut.issue_id_i.value = issue.xid
            dut.issue_rs1_i.value = issue.rs1
            dut.issue_rs2_i.value = issue.rs2
        else:  # junk; the adapter must only look at it with issue_valid
            dut.issue_instr_i.value = rng.getrandbits(32)
            dut.issue_id_i.value = rng.getrandbits(4)
            dut.issue_rs1_i.value = rng.getrandbits(32)
            dut.issue_rs2_i.value = rng.getrandbits(32)
        commit = now["commit"]
        dut.commit_valid_i.value = int(commit is not None)
        dut.commit_id_i.value = commit.xid if commit is not None else rng.getrandbits(4)
        dut.commit_kill_i.value = int(now["commit_kill"]) if commit is not None else rng.getrandbits(1)
        dut.result_ready_i.value = int(now["result_ready"])
        dut.compressed_valid_i.value = rng.getrandbits(1)
        dut.compressed_instr_i.value = rng.getrandbits(16)
        dut.mem_ready_i.value = rng.getrandbits(1)
        dut.mem_result_valid_i.value = rng.getrandbits(1)

    def sample(self, cycle: int) -> None:
        now, dut = self.now, self.dut
        if not now:
            return
        self._check_issue(cycle)
        commit = now["commit"]
        if commit is not None:
            self._commit(commit, bool(now["commit_kill"]))
        self.tb.check_commands(cycle)
        result_hs = bool(now["result_ready"]) and int(dut.result_valid_o.value) == 1
        if result_hs:
            self._check_result(cycle)
        if not now["halted"]:
            self._advance(cycle, result_hs)
        if cycle - self.last_progress > 300 and self.busy:
            raise AssertionError(f"cycle {cycle}: no progress for 300 cycles (ID {self._where()})")

    def _where(self) -> str:
        parts = [f"{name}: {s.describe() if s else '-'}" for name, s in (("ID", self.id_), ("EX", self.ex),
                                                                          ("WB", self.wb))]
        return ", ".join(parts)

    def _check_issue(self, cycle: int) -> None:
        instr: Instr | None = self.now["issue"]  # type: ignore[assignment]
        if instr is None:
            return
        dut = self.dut
        ready = int(dut.issue_ready_o.value)
        accept, writeback = int(dut.issue_accept_o.value), int(dut.issue_writeback_o.value)
        expected = int(instr.port is not None)
        assert (accept, writeback) == (expected, expected), (
            f"cycle {cycle}: {instr.describe()}: accept={accept} writeback={writeback}, expected {expected}"
        )
        assert int(dut.issue_exc_o.value) == 0 and int(dut.issue_resp_other_o.value) == 0, (
            f"cycle {cycle}: issue_resp fields other than accept/writeback set"
        )
        if instr.port is None:
            assert ready, f"cycle {cycle}: {instr.describe()} (no port) not answered at once"
        if not ready:
            self.stats["issue_stall_cycles"] += 1
            return
        instr.handshake = "acc" if accept else "rej"
        instr.issue_cycle = cycle
        if self.now["commit"] is not None:  # the commit of an older instruction, in the same cycle
            self.stats["commit_with_issue"] += 1
        if any(s is not None and s.handshake == "acc" and s.xid == instr.xid for s in (self.ex, self.wb)):
            self.stats["id_in_flight_reissued"] += 1
        self.stats["accepted" if accept else "rejected"] += 1
        self.last_progress = cycle

    def _commit(self, instr: Instr, kill: bool) -> None:
        instr.committed = True
        instr.killed = kill
        if instr.handshake != "acc":
            return
        if kill:
            self.stats["killed"] += 1
            return
        cmd = instr_cmd(instr.word, instr.rs1, instr.rs2)
        instr.expected = self.tb.accels[instr.port].execute(cmd)
        self.tb.expected_cmds.append((instr.port, cmd, instr))

    def _check_result(self, cycle: int) -> None:
        dut, instr = self.dut, self.wb
        assert instr is not None and instr.expected is not None
        got = (int(dut.result_id_o.value), int(dut.result_rd_o.value), int(dut.result_data_o.value),
               int(dut.result_we_o.value), int(dut.result_exc_o.value), int(dut.result_exccode_o.value),
               int(dut.result_other_o.value))
        err = instr.expected.err
        want = (instr.xid, instr.word >> 7 & 0x1F, instr.expected.data, 1, int(err),
                EXC_ILLEGAL_INSN if err else 0, 0)
        assert got == want, (
            f"cycle {cycle}: result for {instr.describe()}: (id, rd, data, we, exc, exccode, other) = "
            f"{tuple(hex(v) for v in got)}, expected {tuple(hex(v) for v in want)}"
        )
        instr.result_cycle = cycle
        self.stats["results"] += 1
        self.stats["exc"] += int(err)

    def _advance(self, cycle: int, result_hs: bool) -> None:
        now = self.now
        # WB retires.
        if self.wb is not None:
            wb = self.wb
            if (wb.handshake == "acc" and result_hs) or wb.handshake == "rej" or \
                    (not wb.offload and not now["wb_stall"]):
                self.retired.append(wb)
                self.wb = None
                self.last_progress = cycle
        self.wb_first = False
        self.ex_first = False
        if now["flush"]:
            # The handler returns to the oldest killed instruction: run them again, afresh. A
            # rejected instruction that trapped is skipped (emulated, say).
            for victim in (self.id_, self.ex):
                if victim is None:
                    continue
                if victim.handshake == "acc" and not victim.committed:
                    self.stats["stranded"] += 1  # no commit will ever come
                self.program.appendleft(victim.restart())
            self.ex = self.id_ = None
            return
        if now["kill_id"]:
            if self.id_ is not None and self.id_.handshake == "acc":
                self.stats["stranded"] += 1
            self.id_ = None
        # EX -> WB (a killed instruction leaves EX without reaching the adapter again).
        ex = self.ex
        if ex is not None:
            if ex.offload and ex.killed and ex.handshake == "acc":
                self.ex = None
            elif ex.ex_stall:
                ex.ex_stall -= 1
            elif self.wb is None and (not ex.offload or ex.committed):
                self.wb, self.wb_first, self.ex = ex, True, None
        if now["kill_id"]:
            return  # IF is killed as well
        # ID -> EX.
        if self.id_ is not None and self.ex is None and (not self.id_.offload or self.id_.handshake):
            self.ex, self.ex_first, self.id_ = self.id_, True, None
        # IF -> ID, with the core's id rule.
        if self.id_ is None and self.rng.random() < self.knobs.fetch:
            instr = self._fetch()
            if instr is not None:
                if now["offloading"]:
                    self.last_xid = (self.last_xid + 1) % 16
                instr.xid = self.last_xid
                self.id_ = instr


class XifTb(ClockedTb):
    def __init__(self, dut, knobs: Knobs | None = None) -> None:
        super().__init__(dut)
        self.depth = depth()
        self.accels = [AccelModel() for _ in range(NUM_PORTS)]
        self.expected_cmds: deque[tuple[int, Cmd, Instr]] = deque()
        self.cmds_seen = [0] * NUM_PORTS
        self.core = CoreModel(self, knobs or Knobs())
        self.accel = AccelKnobs(dut, self.rng, NUM_PORTS)
        self.acc_req = [StructPort(dut, "acc_req_o", CMD_REQ, k) for k in range(NUM_PORTS)]
        self._held_cmd: tuple[int, Cmd] | None = None
        self._held_result: tuple[int, ...] | None = None
        self.add(self.accel, self.core, Monitor(self._cycle))

    async def start(self) -> None:
        await self.reset()
        assert_values(self.dut, {"issue_ready_o": 1, "result_valid_o": 0, "compressed_ready_o": 1, "mem_valid_o": 0,
                                 **PORTS_IDLE})

    def check_commands(self, cycle: int) -> None:
        """Every command taken by an accelerator is the next one the golden model expects."""
        valid = sum(req.valid.value << k for k, req in enumerate(self.acc_req))
        ready = int(self.dut.acc_ready_o.value)
        assert valid & (valid - 1) == 0, f"cycle {cycle}: cmd_valid 0b{valid:03b} on several ports"
        # Every port shows the command; valid says which one it is for.
        fields = (valid, cmd_of(self.acc_req[0]))
        if self._held_cmd is not None:
            assert fields == self._held_cmd, (
                f"cycle {cycle}: command changed or withdrawn before it was taken: {self._held_cmd} -> {fields}"
            )
        self._held_cmd = None
        if not valid:
            return
        port = valid.bit_length() - 1
        if not ready >> port & 1:
            self._held_cmd = fields
            return
        got = fields[1]
        assert self.expected_cmds, f"cycle {cycle}: port {port} took {got.describe()}, but none was due"
        want_port, want, instr = self.expected_cmds.popleft()
        assert (port, got) == (want_port, want), (
            f"cycle {cycle}: port {port} took {got.describe()}, expected port {want_port} "
            f"{want.describe()} for {instr.describe()}"
        )
        self.cmds_seen[port] += 1

    def _cycle(self, cycle: int) -> None:
        dut = self.dut
        assert_values(dut, {"compressed_ready_o": 1, "compressed_accept_o": 0, "mem_valid_o": 0,
                            "mem_req_nonzero_o": 0}, f"in cycle {cycle}")
        if int(dut.result_valid_o.value):
            fields = (int(dut.result_id_o.value), int(dut.result_rd_o.value), int(dut.result_data_o.value),
                      int(dut.result_exc_o.value))
            if self._held_result is not None:
                assert fields == self._held_result, (
                    f"cycle {cycle}: result changed before it was taken: {self._held_result} -> {fields}"
                )
            taken = int(dut.result_ready_i.value)
            self._held_result = None if taken else fields
        else:
            assert self._held_result is None, f"cycle {cycle}: result_valid withdrawn before it was taken"

    async def run_program(self, random_count: int = 0, timeout_cycles: int = 100_000) -> None:
        """Run the queued directed instructions, then `random_count` random ones, to completion."""
        core = self.core
        core.random_budget = random_count
        core.last_progress = self.cycle
        for _ in range(timeout_cycles):
            await self.sample_point()
            if not core.busy:
                break
        else:
            raise AssertionError(f"program not finished after {timeout_cycles} cycles")
        await self.cycles(3)
        assert not self.expected_cmds, (
            f"{len(self.expected_cmds)} committed commands never reached their accelerator, "
            f"first {self.expected_cmds[0][2].describe()}"
        )
        dut = self.dut
        assert_values(dut, {"result_valid_o": 0, **PORTS_IDLE}, "after the program")

    def summary(self) -> str:
        s = self.core.stats
        return ", ".join(f"{key} {value}" for key, value in s.items()) + \
            f", commands per port {self.cmds_seen}, {self.cycle} cycles"


def offload(tb: XifTb, port: int, op: int, index: int, rd: int, rs1: int = 0, rs2: int = 0) -> Instr:
    opcode = OPCODE_CUSTOM_0 if port == 0 else OPCODE_CUSTOM_1
    return tb.core.add(r_type(opcode, op, index, rd, 5, 6), rs1, rs2)


@cocotb.test()
async def xif_reset_idle(dut):
    """After reset the adapter is ready, offers no result and no command, and stays so while idle."""
    tb = XifTb(dut)
    await tb.start()
    await tb.assert_idle({"issue_ready_o": 1, "result_valid_o": 0, **PORTS_IDLE}, 20)
    assert tb.core.stats["accepted"] == 0


@cocotb.test()
async def xif_directed(dut):
    """Writes and reads on every port, the first-match rule, refusals, and err -> exception."""
    tb = XifTb(dut, Knobs(fetch=1.0))
    await tb.start()
    values = [tb.rng.getrandbits(32) for _ in range(8)]
    writes = [offload(tb, 0, 1, i, 0, values[i]) for i in range(8)]
    reads = [offload(tb, 0, 0, i, 10 + i) for i in range(8)]
    pair = offload(tb, 1, 2, 3, 7, 0x1111_1111, 0x2222_2222)       # CUSTOM_1, funct7 3: port 1
    read_pair = offload(tb, 1, 0, 4, 8)
    add = offload(tb, 0, 3, 0, 9, 0xFFFF_FFFF, 2)                     # ADD wraps
    wide = offload(tb, 2, 0, 0x48, 11)                                # CUSTOM_1, funct7 0x48: port 2, err
    bad_op = offload(tb, 0, 5, 0, 12)                                 # no op 5: err
    bad_reg = offload(tb, 0, 0, 8, 13)                                # no register 8: err
    refused = [tb.core.add(r_type(opcode, 0, 0, 1)) for opcode in UNMATCHED_OPCODES]
    after = offload(tb, 0, 0, 7, 14)
    await tb.run_program()
    assert all(w.result_cycle is not None and w.expected == Rsp(0, False) for w in writes)
    assert [r.expected.data for r in reads] == values  # model-free: reads return what was written
    assert read_pair.expected == Rsp(0x2222_2222, False) and pair.port == 1
    assert add.expected == Rsp(1, False)
    assert wide.port == 2 and wide.expected.err and bad_op.expected.err and bad_reg.expected.err
    assert all(r.handshake == "rej" and r.expected is None for r in refused)
    assert after.expected == Rsp(values[7], False)
    assert tb.cmds_seen == [8 + 8 + 4, 2, 1], tb.cmds_seen
    dut._log.info(tb.summary())


@cocotb.test()
async def xif_timing(dut):
    """Back-to-back offloads with a one-cycle accelerator: the result is there when the
    instruction reaches WB (issue handshake + 2 cycles) and one completes per cycle."""
    if depth() < 3:
        dut._log.info("Depth %d holds fewer than the three instructions the core has in flight: skipped", depth())
        return
    tb = XifTb(dut, Knobs(fetch=1.0))
    await tb.start()
    count = 32
    instrs = [offload(tb, 0, 1 if i % 2 else 0, i % 8, 1 + i % 31, tb.rng.getrandbits(32)) for i in range(count)]
    await tb.run_program()
    latency = {i.result_cycle - i.issue_cycle for i in instrs}
    issue_gaps = {b.issue_cycle - a.issue_cycle for a, b in zip(instrs, instrs[1:])}
    result_gaps = {b.result_cycle - a.result_cycle for a, b in zip(instrs, instrs[1:])}
    dut._log.info("issue->result latency %s cycles; issue gaps %s; result gaps %s", latency, issue_gaps,
                  result_gaps)
    assert latency == {2} and issue_gaps == {1} and result_gaps == {1}
    # Latency of ADD follows the accelerator: 1 + L cycles from command to response.
    for extra in (1, 3):
        tb.accel.latency = (extra, extra)
        adds = [offload(tb, 0, 3, 0, 5, i, 100) for i in range(8)]
        await tb.run_program()
        lat = {i.result_cycle - i.issue_cycle for i in adds}
        gaps = {b.result_cycle - a.result_cycle for a, b in zip(adds, adds[1:])}
        dut._log.info("ADD with accelerator latency %d: issue->result %s, result gaps %s", 1 + extra, lat, gaps)
        # The accelerator takes one command at a time: later ones wait for the earlier responses.
        assert min(lat) == 2 + extra and gaps == {1 + extra}


@cocotb.test()
async def xif_backpressure(dut):
    """With more instructions in flight than Depth, issue_ready is low for offloads only, and
    nothing is lost; with Depth >= 3 the core can never fill the queue."""
    tb = XifTb(dut, Knobs(fetch=1.0))
    await tb.start()
    tb.accel.latency = (6, 6)
    for i in range(12):
        offload(tb, 0, 3, 0, 1 + i, i, 1)
        if i % 4 == 3:
            tb.core.add(r_type(0x5B, 0, 0, 1))  # refused even while the queue is full
    await tb.run_program()
    stalls = tb.core.stats["issue_stall_cycles"]
    dut._log.info("Depth %d: %d issue stall cycles", tb.depth, stalls)
    if tb.depth < 3:
        assert stalls > 0, "queue never full"
    else:
        assert stalls == 0, f"issue held back {stalls} cycles with Depth {tb.depth}"


@cocotb.test()
async def xif_kills(dut):
    """Flushes, branches, halts and commit_kill: killed and stranded instructions never reach an
    accelerator, everything committed gets its result in order, reused ids do not confuse."""
    knobs = Knobs(fetch=0.9, offload=0.7, unmatched=0.1, commit_kill=0.15, flush=0.1, branch=0.3,
                  halt=0.05, ex_stall=0.4)
    tb = XifTb(dut, knobs)
    await tb.start()
    tb.accel.latency = (0, 2)
    await tb.run_program(random_count=1500)
    s = tb.core.stats
    dut._log.info(tb.summary())
    assert s["stranded"] > 5 and s["killed"] > 50 and s["halts"] > 20 and s["id_in_flight_reissued"] > 10, \
        "kills not exercised"


@cocotb.test()
async def xif_random(dut):
    """Thousands of random instructions in phases of core and accelerator behaviour."""
    tb = XifTb(dut)
    await tb.start()
    phases = [  # core knobs, accelerator (cmd stall, rsp stall, latency), instructions
        (Knobs(fetch=1.0, offload=0.95, err=0.05), (0.0, 0.0, (0, 0)), 1500),
        (Knobs(fetch=0.7, offload=0.6, wb_stall=0.2, ex_stall=0.2, result_drop=0.3), (0.3, 0.3, (0, 3)), 1500),
        (Knobs(fetch=0.9, commit_kill=0.05, flush=0.03, branch=0.1, halt=0.03, result_drop=0.1),
         (0.2, 0.5, (0, 5)), 1500),
    ]
    scale = 1.0 if tb.depth >= 3 else 0.4  # the small queue mainly adds issue back-pressure
    for knobs, (cmd_stall, rsp_stall, latency), count in phases:
        count = int(count * scale)
        tb.core.knobs = knobs
        tb.accel.cmd_stall_prob, tb.accel.rsp_stall_prob, tb.accel.latency = cmd_stall, rsp_stall, latency
        await tb.run_program(random_count=count)
    s = tb.core.stats
    dut._log.info(tb.summary())
    assert s["results"] > 2000 * scale and s["exc"] > 50 and s["rejected"] > 100
    assert all(n > 100 for n in tb.cmds_seen), tb.cmds_seen
    if tb.depth < 3:
        assert s["issue_stall_cycles"] > 100


@pytest.mark.parametrize("depth_value", DEPTHS)
def test_xif_adapter(depth_value: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from couplet.model import rtl

    monkeypatch.setenv(DEPTH_ENV, str(depth_value))
    core = rtl.core_root() / "rtl"
    run_cocotb(
        toplevel="tb_xif_adapter",
        sources=[
            core / "include" / "cv32e40x_pkg.sv",
            core / "if_xif.sv",
            *rtl.sources_with_dependencies(["accel"]),  # with obi: the register adapter is an OBI slave
            HERE / "tb_accel_regfile.sv",
            HERE / "tb_xif_adapter.sv",
        ],
        test_file=__file__,
        build_name=f"xif_adapter_depth{depth_value}",
        parameters={"Depth": depth_value},
    )

