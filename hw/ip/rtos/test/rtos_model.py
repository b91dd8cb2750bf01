"""Reference model of couplet_rtos (hw/ip/rtos/README.md), written from the README alone.

The model keeps the accelerator's architectural state as plain Python objects: thread nodes,
one ready queue per priority as an ordered list (append at the tail; SCHEDULE rotates the head to
the tail when it picked that head last and it is still there), mutexes with priority inheritance, counting semaphores, message queues with their ring
and waiter sets, the staging buffer MSG and the copy engine (one pending copy: destination and
words; it ends when the test calls `copy_done`).

Priority inheritance is computed directly from its definition, eprio(t) = max(bprio(t), eprio(w)
for every w waiting on a mutex t owns), as the least fixed point over all threads, not by
replaying the accelerator's walk. A READY thread whose eprio changes moves to the tail of its new
queue.

Decisions where the README leaves a choice (each can be checked against the RTL; see the
module's test and the report):
- A failed action (status != OK) answers tid = 0xFF, blocked = 0, preempt as computed on the
  unchanged state, and value = 0, except where the row defines value as a count ("value = count
  after", "messages stored after"): SEM_TAKE, SEM_GIVE, QUEUE_SEND and QUEUE_RECV carry that
  (unchanged) count in every answer once their id is valid (e.g. SEM_GIVE at max, QUEUE_FULL,
  NO_CALLER, BUSY).
- tid and value are 0xFF / 0 for every action whose row does not name them, except that
  THREAD_UNBLOCK reports the thread it wakes (the result word's "a TID the action ... woke").
- preempt = cur is set and not READY, or some READY thread has a higher eprio than cur (any
  READY thread when cur is none).
- Argument checks come before resource checks: NO_ID, then BAD_ARG, then TABLE_FULL / BUSY /
  NO_CALLER (the latter only when the caller is needed). QUEUE_SEND / QUEUE_RECV check the id
  (NO_ID) before answering BUSY for a copy in flight.
- Ids, TIDs, priorities, states, words and depths are compared as whole 32-bit words (an id of
  0x100 is out of range, not id 0); THREAD_ADD's priority is b[3:0] as the README says.
- NO_CALLER: MUTEX_LOCK and MUTEX_UNLOCK always need cur; SEM_TAKE, QUEUE_SEND and QUEUE_RECV
  need it only when the caller would wait.
- SEM_ALLOC: BAD_ARG when max is 0 or above 0xFFFF, or initial > max.
- WRITE2 at index i needs both i and i + 1 writable (MSG[< MsgWords], ARG_A, ARG_B); else err
  and nothing is written.
- MUTEX_UNLOCK with waiters: the new owner is appended to its ready queue first, then the old
  owner (if its eprio fell) moves to the tail of its new queue.
- A read of STATUS returns bit 1 and then clears it (rtos.toml, rtos_hw.h); starting a copy
  clears it too. irq_o equals that bit.
- A caller that is already WAITING and would block again answers BAD_ARG (README, "Decisions"
  section, added with the RTL); a SUSPENDED or DELAYED caller may block.
- QUEUE_SEND's FRONT and QUEUE_RECV's PEEK (b bit 1) and QUEUE_RESET are the README's rows; the
  ring is a deque here (FRONT: appendleft, PEEK: the head, RESET: clear), so the RTL's rd
  arithmetic is checked against plain order, not against a copy of itself.
A blocking MUTEX_LOCK that would close a cycle of mutex waits (a deadlock) raises `Unspecified`:
there the README keeps the walk's result, which the definition does not determine, so a random
test steers around it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar

from couplet.model.regs import load_ip_regs
from testsupport.accel_port_bfm import OP_EXEC, OP_READ, OP_WRITE, OP_WRITE2

MASK32 = 0xFFFF_FFFF

# Register indexes (byte offset / 4), actions, status codes, thread states and wait kinds: the
# IP's description (data/rtos.toml), whose tables are the README's.
REGS = load_ip_regs("rtos")
MSG0, ARG_A, ARG_B, STATUS, CONFIG, CALL0 = (
    REGS.reg(name).offset // 4 for name in ("msg", "arg_a", "arg_b", "status", "config", "call"))
NONE = REGS.const("tid_none")  # "no thread" in a TID field
MSG_SLOTS = REGS.reg("msg").count
CALL_SLOTS = REGS.reg("call").count


def pack(reg: str, **fields: int) -> int:
    """A word of register `reg` from the values of its fields (each cut to its width)."""
    word = 0
    for name, value in fields.items():
        f = REGS.field(reg, name)
        word |= (value << f.lsb) & f.mask
    return word


def _value_set(name: str, enum: str) -> type[IntEnum]:
    return IntEnum(name, {v.name.upper(): v.value for v in REGS.enum(enum).values})


Act = _value_set("Act", "action")
ACTIONS = frozenset(int(a) for a in Act)
# Actions whose answer is a plain 32-bit word, not a result word.
RAW_ACTIONS = frozenset({Act.SCHEDULE, Act.THREAD_TCB})
Status = _value_set("Status", "code")
State = _value_set("State", "thread_state")
Wait = _value_set("Wait", "wait_kind")


BLOCK = 1  # bit 0 of b: wait if unavailable
FRONT = 1 << 1  # QUEUE_SEND b[1]: a stored message goes to the head of the ring
PEEK = 1 << 1  # QUEUE_RECV b[1]: copy the head to MSG and keep it stored
ADD_READY = 1 << 8  # THREAD_ADD b[8]


class CommandError(Exception):
    """The command does not exist: the accelerator answers rsp.err."""


class Unspecified(Exception):
    """The README does not define what this action does in this state."""


@dataclass(frozen=True)
class Params:
    MaxThreads: int = 8
    NumPrio: int = 8
    PrioAscending: int = 1
    NumMutex: int = 4
    NumSem: int = 4
    NumQueue: int = 4
    MsgWords: int = 16
    QueueDepth: int = 4
    PrioInherit: int = 1

    def __post_init__(self) -> None:
        ranges = {"MaxThreads": (2, 16), "NumPrio": (2, 16), "PrioAscending": (0, 1), "NumMutex": (1, 8),
                  "NumSem": (1, 8), "NumQueue": (1, 8), "MsgWords": (1, 16), "QueueDepth": (1, 8),
                  "PrioInherit": (0, 1)}
        for name, (lo, hi) in ranges.items():
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise ValueError(f"parameter {name}={value} outside {lo}..{hi}")

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @property
    def config_word(self) -> int:
        """The CONFIG register."""
        return pack("config", max_threads=self.MaxThreads, num_prio=self.NumPrio,
                    prio_ascending=self.PrioAscending, prio_inherit=self.PrioInherit,
                    num_mutex=self.NumMutex, num_sem=self.NumSem, num_queue=self.NumQueue,
                    msg_words=self.MsgWords, queue_depth_m1=self.QueueDepth - 1)


@dataclass
class Thread:
    valid: bool = False
    tcb: int = 0
    state: State = State.SUSPENDED
    bprio: int = 0
    eprio: int = 0
    wait_kind: Wait = Wait.NONE
    wait_id: int = 0
    wait_ptr: int = 0
    wait_seq: int = 0  # when it started waiting (RtosModel.waits), for the order among equals


@dataclass
class Mutex:
    alloc: bool = False
    owner: int | None = None  # None: unlocked
    waiters: set[int] = field(default_factory=set)


@dataclass
class Sem:
    alloc: bool = False
    count: int = 0
    max: int = 0
    waiters: set[int] = field(default_factory=set)


@dataclass
class Queue:
    alloc: bool = False
    words: int = 0
    depth: int = 0
    ring: deque[list[int]] = field(default_factory=deque)
    senders: set[int] = field(default_factory=set)
    receivers: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Copy:
    """A message copy to a woken receiver's buffer."""

    dst: int
    words: tuple[int, ...]
    tid: int


@dataclass
class Result:
    status: Status = Status.OK
    blocked: bool = False
    tid: int = NONE
    value: int = 0


def result_word(status: int, blocked: bool, preempt: bool, tid: int, value: int) -> int:
    return pack("call", status=status, blocked=int(blocked), preempt=int(preempt), tid=tid, value=value)


def decode_result(word: int) -> dict[str, int]:
    return {f.name: (word & f.mask) >> f.lsb for f in REGS.reg("call").fields}


class _Fail(Exception):
    def __init__(self, status: Status, value: int = 0) -> None:
        super().__init__(status.name)
        self.status = status
        self.value = value


_Entry = TypeVar("_Entry", Mutex, Sem, Queue)


def _allocated(table: list[_Entry], index: int, count: int) -> _Entry:
    """Entry `index` of a mutex, semaphore or queue table: below the configured count, allocated."""
    if index >= count or not table[index].alloc:
        raise _Fail(Status.NO_ID)
    return table[index]


def _allocate(table: list[_Entry], entry: _Entry) -> Result:
    """`entry` into the first free slot of its table; the slot's index is the new id."""
    for i, old in enumerate(table):
        if not old.alloc:
            table[i] = entry
            return Result(tid=i)
    raise _Fail(Status.TABLE_FULL)


class RtosModel:
    """Architectural state and actions of couplet_rtos. `command` answers a command-port command
    as (data, err); `call`, `read`, `write` are the README's views of it."""

    def __init__(self, params: Params | None = None) -> None:
        self.p = params or Params()
        p = self.p
        self.threads = [Thread() for _ in range(p.MaxThreads)]
        self.ready: list[list[int]] = [[] for _ in range(p.NumPrio)]
        # ran[p]: the head of ready[p] is the thread SCHEDULE last picked from it.
        self.ran: list[bool] = [False] * p.NumPrio
        self.cur: int | None = None
        self.mutexes = [Mutex() for _ in range(p.NumMutex)]
        self.inherit = bool(p.PrioInherit)  # MUTEX_INHERIT: the accelerator's inheritance is on
        self.handoff = True  # HANDOFF: a give, send or unlock hands a waiter what it waits for
        self.waits = 0  # waits started so far
        self.sems = [Sem() for _ in range(p.NumSem)]
        self.queues = [Queue() for _ in range(p.NumQueue)]
        self.msg = [0] * p.MsgWords
        self.arg_a = 0
        self.arg_b = 0
        self.copy: Copy | None = None
        self.copy_err = False
        self.copies: list[Copy] = []  # every copy started, in order

    # ------------------------------------------------------------------------ priority order
    def higher(self, p: int, q: int) -> bool:
        """p is a strictly higher priority than q."""
        return p > q if self.p.PrioAscending else p < q

    def best(self, prios: list[int]) -> int:
        top = prios[0]
        for prio in prios[1:]:
            if self.higher(prio, top):
                top = prio
        return top

    def choose_waiter(self, waiters: set[int]) -> int:
        """The waiter with the highest eprio, among equals the one that started waiting first."""
        top = self.best([self.threads[t].eprio for t in waiters])
        return min((t for t in waiters if self.threads[t].eprio == top), key=lambda t: self.threads[t].wait_seq)

    # --------------------------------------------------------------------------- observables
    @property
    def irq(self) -> bool:
        return self.copy_err

    @property
    def copy_busy(self) -> bool:
        return self.copy is not None

    def status_word(self) -> int:
        cur = NONE if self.cur is None else self.cur
        return pack("status", copy_busy=int(self.copy_busy), copy_error=int(self.copy_err), tid=cur)

    def preempt(self) -> bool:
        ready = [t for t, th in enumerate(self.threads) if th.valid and th.state == State.READY]
        if self.cur is None:
            return bool(ready)
        cur = self.threads[self.cur]
        if cur.state != State.READY:
            return True
        return any(self.higher(self.threads[t].eprio, cur.eprio) for t in ready)

    def valid_tid(self, tid: int) -> bool:
        return tid < self.p.MaxThreads and self.threads[tid].valid

    # ----------------------------------------------------------------------- command port
    def command(self, op: int, index: int, a: int = 0, b: int = 0) -> tuple[int, bool]:
        """The response (data, err) to one command."""
        try:
            if op == OP_READ:
                return self.read(index), False
            if op == OP_WRITE:
                self.write(index, a)
                return 0, False
            if op == OP_WRITE2:
                self.write2(index, a, b)
                return 0, False
            if op == OP_EXEC:
                return self.call(index, a, b), False
        except CommandError:
            return 0, True
        return 0, True

    def writable(self, index: int) -> bool:
        return index < self.p.MsgWords or index in (ARG_A, ARG_B)

    def read(self, index: int) -> int:
        if index < MSG_SLOTS:
            if index >= self.p.MsgWords:
                raise CommandError(f"MSG[{index}] >= MsgWords")
            return self.msg[index]
        if index == ARG_A:
            return self.arg_a
        if index == ARG_B:
            return self.arg_b
        if index == STATUS:
            word = self.status_word()
            self.copy_err = False
            return word
        if index == CONFIG:
            return self.p.config_word
        if CALL0 <= index < CALL0 + CALL_SLOTS:
            return self.call(index - CALL0, self.arg_a, self.arg_b)
        raise CommandError(f"no register 0x{index:02x}")

    def write(self, index: int, value: int) -> None:
        if not self.writable(index):
            raise CommandError(f"register 0x{index:02x} is not writable")
        self._store(index, value & MASK32)

    def write2(self, index: int, a: int, b: int) -> None:
        if not (self.writable(index) and self.writable(index + 1)):
            raise CommandError(f"WRITE2 at 0x{index:02x}: a register is not writable")
        self._store(index, a & MASK32)
        self._store(index + 1, b & MASK32)

    def _store(self, index: int, value: int) -> None:
        if index == ARG_A:
            self.arg_a = value
        elif index == ARG_B:
            self.arg_b = value
        else:
            self.msg[index] = value

    def call(self, action: int, a: int = 0, b: int = 0) -> int:
        """Runs action `action`; returns the answer word (a result word, or a tcb)."""
        if action not in ACTIONS:
            raise CommandError(f"no action 0x{action:02x}")
        act = Act(action)
        a &= MASK32
        b &= MASK32
        if act == Act.SCHEDULE:
            return self.schedule()
        if act == Act.THREAD_TCB:
            return self.threads[a].tcb if self.valid_tid(a) else 0
        handler = getattr(self, "_" + act.name.lower())
        try:
            res: Result = handler(a, b)
        except _Fail as fail:
            res = Result(fail.status, value=fail.value)
        return result_word(res.status, res.blocked, self.preempt(), res.tid, res.value)

    def copy_done(self, err: bool) -> None:
        """The DMA ended the pending copy (with a bus error if `err`)."""
        if self.copy is None:
            raise AssertionError("copy_done without a copy in flight")
        self.copy = None
        self.copy_err = err

    # --------------------------------------------------------------------- state helpers
    def _thread(self, tid: int) -> Thread:
        if not self.valid_tid(tid):
            raise _Fail(Status.NO_ID)
        return self.threads[tid]

    def _enqueue(self, tid: int) -> None:
        th = self.threads[tid]
        th.state = State.READY
        self.ready[th.eprio].append(tid)

    def _unlink(self, tid: int) -> None:
        queue = self.ready[self.threads[tid].eprio]
        if queue[0] == tid:
            self.ran[self.threads[tid].eprio] = False
        queue.remove(tid)

    def _waiter_set(self, th: Thread) -> set[int]:
        kind, wid = th.wait_kind, th.wait_id
        if kind == Wait.MUTEX:
            return self.mutexes[wid].waiters
        if kind == Wait.SEM:
            return self.sems[wid].waiters
        if kind == Wait.QUEUE_SEND:
            return self.queues[wid].senders
        if kind == Wait.QUEUE_RECV:
            return self.queues[wid].receivers
        raise AssertionError("thread waits on nothing")

    def _start_wait(self, tid: int, kind: Wait, wid: int, ptr: int = 0, value: int = 0) -> None:
        th = self.threads[tid]
        if th.state == State.WAITING:
            raise _Fail(Status.BAD_ARG, value)  # the OS has not switched away from it yet
        if th.state == State.READY:
            self._unlink(tid)
        th.state = State.WAITING
        th.wait_kind, th.wait_id, th.wait_ptr = kind, wid, ptr
        th.wait_seq = self.waits
        self.waits += 1
        self._waiter_set(th).add(tid)

    def _stop_wait(self, tid: int) -> None:
        """Takes a WAITING thread out of its waiter set; its state is the caller's business."""
        th = self.threads[tid]
        self._waiter_set(th).discard(tid)
        th.wait_kind, th.wait_id, th.wait_ptr, th.wait_seq = Wait.NONE, 0, 0, 0

    def _wake(self, tid: int) -> None:
        self._stop_wait(tid)
        self._enqueue(tid)

    def _inheritance(self) -> None:
        """eprio of every thread from the definition; READY threads whose eprio changes move to the
        tail of their new queue (by TID; one action moves at most one, see the test)."""
        eprio = {t: th.bprio for t, th in enumerate(self.threads) if th.valid}
        if self.inherit:
            changed = True
            while changed:
                changed = False
                for m in self.mutexes:
                    if m.owner is None:
                        continue
                    for w in m.waiters:
                        if self.higher(eprio[w], eprio[m.owner]):
                            eprio[m.owner] = eprio[w]
                            changed = True
        for t, prio in eprio.items():
            th = self.threads[t]
            if prio != th.eprio:
                if th.state == State.READY:
                    self._unlink(t)
                    th.eprio = prio
                    self.ready[prio].append(t)
                else:
                    th.eprio = prio

    def _owner_chain_reaches(self, mutex: int, tid: int) -> bool:
        """Following owner -> mutex it waits on -> owner ... from `mutex` meets `tid`."""
        seen: set[int] = set()
        owner = self.mutexes[mutex].owner
        while owner is not None and owner not in seen:
            if owner == tid:
                return True
            seen.add(owner)
            th = self.threads[owner]
            if th.state != State.WAITING or th.wait_kind != Wait.MUTEX:
                return False
            owner = self.mutexes[th.wait_id].owner
        return False

    def _caller(self, value: int = 0) -> int:
        if self.cur is None:
            raise _Fail(Status.NO_CALLER, value)
        return self.cur

    # ----------------------------------------------------------------------------- threads
    def schedule(self) -> int:
        nonempty = [p for p in range(self.p.NumPrio) if self.ready[p]]
        if not nonempty:
            self.cur = None
            return 0
        prio = self.best(nonempty)
        queue = self.ready[prio]
        if self.ran[prio]:
            queue.append(queue.pop(0))
        self.ran[prio] = True
        self.cur = queue[0]
        return self.threads[self.cur].tcb

    def _thread_add(self, a: int, b: int) -> Result:
        prio = b & 0xF
        if prio >= self.p.NumPrio:
            raise _Fail(Status.BAD_ARG)
        free = [t for t, th in enumerate(self.threads) if not th.valid]
        if not free:
            raise _Fail(Status.TABLE_FULL)
        tid = free[0]
        self.threads[tid] = Thread(valid=True, tcb=a, state=State.SUSPENDED, bprio=prio, eprio=prio)
        if b & ADD_READY:
            self._enqueue(tid)
        return Result(tid=tid)

    def _thread_remove(self, a: int, b: int) -> Result:
        th = self._thread(a)
        if any(m.owner == a for m in self.mutexes):
            raise _Fail(Status.BUSY)
        if th.state == State.WAITING:
            self._stop_wait(a)
        elif th.state == State.READY:
            self._unlink(a)
        self.threads[a] = Thread()
        if self.cur == a:
            self.cur = None
        self._inheritance()
        return Result()

    def _thread_set_state(self, a: int, b: int) -> Result:
        th = self._thread(a)
        if b not in (State.READY, State.SUSPENDED, State.DELAYED):
            raise _Fail(Status.BAD_ARG)
        new = State(b)
        if th.state == new:
            return Result()
        if th.state == State.WAITING:
            self._stop_wait(a)
        elif th.state == State.READY:
            self._unlink(a)
        if new == State.READY:
            self._enqueue(a)
        else:
            th.state = new
        self._inheritance()
        return Result()

    def _thread_set_prio(self, a: int, b: int) -> Result:
        th = self._thread(a)
        if b >= self.p.NumPrio:
            raise _Fail(Status.BAD_ARG)
        th.bprio = b
        self._inheritance()
        return Result()

    def _thread_info(self, a: int, b: int) -> Result:
        th = self._thread(a)
        value = th.eprio | th.bprio << 4 | int(th.state) << 8 | int(th.wait_kind) << 10 | th.wait_id << 13
        return Result(value=value)

    def _thread_find(self, a: int, b: int) -> Result:
        for t, th in enumerate(self.threads):
            if th.valid and th.tcb == a:
                return Result(tid=t)
        raise _Fail(Status.NO_ID)

    def _thread_unblock(self, a: int, b: int) -> Result:
        th = self._thread(a)
        if th.state != State.WAITING:
            raise _Fail(Status.BAD_ARG)
        self._wake(a)
        self._inheritance()
        return Result(tid=a)

    def _current(self, a: int, b: int) -> Result:
        return Result(tid=NONE if self.cur is None else self.cur,
                      value=sum(th.valid for th in self.threads))

    # ----------------------------------------------------------------------------- mutexes
    def _mutex(self, mid: int) -> Mutex:
        return _allocated(self.mutexes, mid, self.p.NumMutex)

    def _mutex_alloc(self, a: int, b: int) -> Result:
        return _allocate(self.mutexes, Mutex(alloc=True))

    def _mutex_free(self, a: int, b: int) -> Result:
        m = self._mutex(a)
        if m.waiters:
            raise _Fail(Status.BUSY)
        self.mutexes[a] = Mutex()
        return Result()

    def _mutex_lock(self, a: int, b: int) -> Result:
        m = self._mutex(a)
        cur = self._caller()
        if m.owner is None:
            m.owner = cur
            self._inheritance()  # no waiters yet: changes nothing, kept for uniformity
            return Result()
        if m.owner == cur:
            raise _Fail(Status.BAD_ARG)
        if not b & BLOCK:
            raise _Fail(Status.UNAVAILABLE)
        if self._owner_chain_reaches(a, cur):
            raise Unspecified("blocking on this mutex closes a wait cycle (deadlock)")
        self._start_wait(cur, Wait.MUTEX, a)
        self._inheritance()
        return Result(blocked=True)

    def _mutex_unlock(self, a: int, b: int) -> Result:
        m = self._mutex(a)
        cur = self._caller()
        if m.owner != cur:
            raise _Fail(Status.NOT_OWNER)
        tid = self.choose_waiter(m.waiters) if m.waiters else NONE
        if tid != NONE:
            self._wake(tid)
        m.owner = tid if tid != NONE and self.handoff else None
        self._inheritance()
        return Result(tid=tid)

    def _mutex_inherit(self, a: int, b: int) -> Result:
        if a > 1 or (a == 1 and not self.p.PrioInherit):
            raise _Fail(Status.BAD_ARG)
        if any(m.owner is not None for m in self.mutexes):
            raise _Fail(Status.BUSY)
        self.inherit = a == 1
        return Result()

    def _handoff(self, a: int, b: int) -> Result:
        if a > 1:
            raise _Fail(Status.BAD_ARG)
        self.handoff = a == 1
        return Result()

    def _mutex_info(self, a: int, b: int) -> Result:
        m = self._mutex(a)
        return Result(tid=NONE if m.owner is None else m.owner, value=len(m.waiters))

    # -------------------------------------------------------------------------- semaphores
    def _sem(self, sid: int) -> Sem:
        return _allocated(self.sems, sid, self.p.NumSem)

    def _sem_alloc(self, a: int, b: int) -> Result:
        if not 1 <= b <= 0xFFFF or a > b:
            raise _Fail(Status.BAD_ARG)
        return _allocate(self.sems, Sem(alloc=True, count=a, max=b))

    def _sem_free(self, a: int, b: int) -> Result:
        s = self._sem(a)
        if s.waiters:
            raise _Fail(Status.BUSY)
        self.sems[a] = Sem()
        return Result()

    def _sem_take(self, a: int, b: int) -> Result:
        s = self._sem(a)
        if s.count > 0:
            s.count -= 1
            return Result(value=s.count)
        if not b & BLOCK:
            raise _Fail(Status.UNAVAILABLE, s.count)
        self._start_wait(self._caller(s.count), Wait.SEM, a, value=s.count)
        return Result(blocked=True, value=s.count)

    def _sem_give(self, a: int, b: int) -> Result:
        s = self._sem(a)
        if s.waiters and self.handoff:
            tid = self.choose_waiter(s.waiters)
            self._wake(tid)
            return Result(tid=tid, value=s.count)
        if s.count >= s.max:
            raise _Fail(Status.BAD_ARG, s.count)
        s.count += 1
        tid = self.choose_waiter(s.waiters) if s.waiters else NONE
        if tid != NONE:
            self._wake(tid)
        return Result(tid=tid, value=s.count)

    def _sem_info(self, a: int, b: int) -> Result:
        s = self._sem(a)
        return Result(tid=len(s.waiters), value=s.count)

    # ------------------------------------------------------------------------------ queues
    def _queue(self, qid: int) -> Queue:
        return _allocated(self.queues, qid, self.p.NumQueue)

    def _queue_alloc(self, a: int, b: int) -> Result:
        if not (1 <= a <= self.p.MsgWords and 1 <= b <= self.p.QueueDepth):
            raise _Fail(Status.BAD_ARG)
        return _allocate(self.queues, Queue(alloc=True, words=a, depth=b))

    def _queue_free(self, a: int, b: int) -> Result:
        q = self._queue(a)
        if q.senders or q.receivers:
            raise _Fail(Status.BUSY)
        self.queues[a] = Queue()
        return Result()

    def _queue_send(self, a: int, b: int) -> Result:
        q = self._queue(a)
        if self.copy_busy:
            raise _Fail(Status.BUSY, len(q.ring))
        message = self.msg[:q.words]
        if q.receivers and self.handoff and len(q.ring) < q.depth:
            tid = self.choose_waiter(q.receivers)
            dst = self.threads[tid].wait_ptr
            self._wake(tid)
            self.copy = Copy(dst, tuple(message), tid)
            self.copies.append(self.copy)
            self.copy_err = False
            return Result(tid=tid, value=len(q.ring))
        if len(q.ring) < q.depth:
            if b & FRONT:
                q.ring.appendleft(message)
            else:
                q.ring.append(message)
            tid = self.choose_waiter(q.receivers) if q.receivers else NONE
            if tid != NONE:
                self._wake(tid)
            return Result(tid=tid, value=len(q.ring))
        if not b & BLOCK:
            raise _Fail(Status.QUEUE_FULL, len(q.ring))
        self._start_wait(self._caller(len(q.ring)), Wait.QUEUE_SEND, a, value=len(q.ring))
        return Result(blocked=True, value=len(q.ring))

    def _queue_recv(self, a: int, b: int) -> Result:
        q = self._queue(a)
        if self.copy_busy:
            raise _Fail(Status.BUSY, len(q.ring))
        if q.ring and b & PEEK:
            self.msg[:q.words] = q.ring[0]
            return Result(value=len(q.ring))
        if q.ring:
            self.msg[:q.words] = q.ring.popleft()
            tid = NONE
            if q.senders:
                tid = self.choose_waiter(q.senders)
                self._wake(tid)
            return Result(tid=tid, value=len(q.ring))
        if not b & BLOCK:
            raise _Fail(Status.QUEUE_EMPTY, 0)
        self._start_wait(self._caller(0), Wait.QUEUE_RECV, a, b & ~3 & MASK32)
        return Result(blocked=True, value=0)

    def _queue_info(self, a: int, b: int) -> Result:
        q = self._queue(a)
        return Result(tid=len(q.senders) + len(q.receivers), value=len(q.ring))

    def _queue_reset(self, a: int, b: int) -> Result:
        """Drops every stored message (a copy in flight is not stored: no BUSY); the best waiting
        sender wakes to send again, receivers keep waiting."""
        q = self._queue(a)
        q.ring.clear()
        tid = NONE
        if q.senders:
            tid = self.choose_waiter(q.senders)
            self._wake(tid)
        return Result(tid=tid, value=0)

    # ---------------------------------------------------------------------------- checks
    def check_invariants(self) -> None:
        """Internal consistency: every READY thread is in exactly the queue of its eprio, waiter
        sets match wait fields, eprio follows the definition."""
        seen: list[int] = []
        for prio, queue in enumerate(self.ready):
            for t in queue:
                th = self.threads[t]
                assert th.valid and th.state == State.READY and th.eprio == prio, f"TID {t} in queue {prio}"
            seen += queue
        ready = [t for t, th in enumerate(self.threads) if th.valid and th.state == State.READY]
        assert sorted(seen) == ready, "ready queues do not hold exactly the READY threads"
        for t, th in enumerate(self.threads):
            if th.valid and th.state == State.WAITING:
                assert t in self._waiter_set(th), f"TID {t} missing from its waiter set"
            elif th.valid:
                assert th.wait_kind == Wait.NONE
        for m in self.mutexes:
            for w in m.waiters:
                # HANDOFF 0 leaves waiters on a mutex an unlock freed.
                assert self.threads[w].wait_kind == Wait.MUTEX
            if m.owner is not None:
                assert m.alloc and self.threads[m.owner].valid
        if self.cur is not None:
            assert self.threads[self.cur].valid
