"""The DMA engine's side of an accelerator's job port, for the accelerators' unit tests.

An accelerator with a memory coupling asks the DMA engine for a job (its mem_req_o.job_valid and
job = src, dst, in_len, out_len) and is answered with mem_rsp_i.job_done / job_err, or has the job
cut short with job_abort. `DmaJobModel` takes each job at a random cycle while none is active (and checks
that job_o holds while it waits), feeds the job's input words from a word memory into the input
stream, and pulses the end the test asked for; what a job does with its words (collect output,
note the last input word) is the accelerator's test's `progress`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from testsupport.accel_port_bfm import MEM_REQ, MEM_RSP, StreamSource, from_words, to_words
from testsupport.obi_bfm import MASK32
from testsupport.struct_port import StructPort


@dataclass
class Job:
    src: int
    dst: int
    in_len: int
    out_len: int
    accept_cycle: int
    offer_cycle: int  # first cycle of job_valid
    done_cycle: int | None = None
    last_word_cycle: int | None = None  # the input stream took the job's last word
    collected: int = 0  # output words written back to the memory


class DmaJobModel:
    """The job port over a byte memory (a dict of words), with the input stream it feeds."""

    def __init__(self, dut: object, rng: random.Random, src: StreamSource) -> None:
        self.dut = dut
        self.mem_req = StructPort(dut, "mem_req_o", MEM_REQ)
        self.mem_rsp = StructPort(dut, "mem_rsp_i", MEM_RSP)
        self.rng = rng
        self.src = src
        self.memory: dict[int, int] = {}
        self.ready_prob = 0.5
        self.fail_after: int | None = None  # abort the next job after this many input words
        self.jobs: list[Job] = []
        self.active: Job | None = None
        self._ready = 0
        self._pulse: tuple[int, int, int] = (0, 0, 0)  # (done, err, abort) for the next cycle
        self._src_base = 0  # src.accepted when the active job started
        self._held: int | None = None  # a job offered without job_ready
        self._offer: int | None = None

    def load(self, addr: int, data: bytes) -> None:
        for i, word in enumerate(to_words(data)):
            self.memory[addr + 4 * i] = word

    def dump(self, addr: int, length: int) -> bytes:
        return from_words([self.memory.get(addr + 4 * i, 0) for i in range(length // 4)])

    def forget(self) -> None:
        """Drop the active job and any pending answer (the design was reset)."""
        self.active = None
        self._pulse = (0, 0, 0)
        self._held = None
        self._offer = None

    @property
    def taken(self) -> int:
        """Input words of the active job the stream has taken."""
        return self.src.accepted - self._src_base

    def reset_values(self) -> None:
        for name in ("job_ready", "job_done", "job_err", "job_abort"):
            self.mem_rsp[name].value = 0

    def drive(self, cycle: int) -> None:
        self._ready = int(self.active is None and self.rng.random() < self.ready_prob)
        self.mem_rsp.job_ready.value = self._ready
        done, err, abort = self._pulse
        self.mem_rsp.job_done.value = done
        self.mem_rsp.job_err.value = err if done else self.rng.getrandbits(1)  # only valid with done
        self.mem_rsp.job_abort.value = abort
        self._pulse = (0, 0, 0)

    def aborted(self) -> bool:
        """Abort the active job (job_abort + job_err) once `fail_after` of its words were taken."""
        if self.fail_after is None or self.taken < self.fail_after:
            return False
        self.src.flush()
        self.fail_after = None
        self._pulse = (1, 1, 1)
        return True

    def progress(self, cycle: int, job: Job) -> None:
        """What the active job does this cycle; sets _pulse to end it."""
        raise NotImplementedError

    def started(self, job: Job) -> None:
        """A job was just taken."""

    def sample(self, cycle: int) -> None:
        if self.mem_rsp.job_done.value and self.active is not None:
            self.active.done_cycle = cycle
            self.active = None
        if self.active is not None:
            self.progress(cycle, self.active)
        if self.mem_req.job_valid.value:
            value = self.mem_req.job.value
            assert self._held is None or value == self._held, f"cycle {cycle}: job changed while waiting"
            self._held = None if self._ready else value
            if self._offer is None:
                self._offer = cycle
            if self._ready:
                job = Job(value >> 96, value >> 64 & MASK32, value >> 32 & MASK32, value & MASK32, cycle,
                          self._offer)
                self._offer = None
                self.jobs.append(job)
                self.active = job
                self._src_base = self.src.accepted
                self.started(job)
                self.src.push([self.memory.get(job.src + 4 * i, 0) for i in range(job.in_len // 4)])
        else:
            assert self._held is None, f"cycle {cycle}: job_valid fell without job_ready"
