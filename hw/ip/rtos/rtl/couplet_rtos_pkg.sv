// Types of couplet_rtos (hw/ip/rtos/README.md) beside those of its description (rtos_reg_pkg):
// the parameter limits, the packed layout of THREAD_INFO's value and the table scans. Field
// widths are those of the largest build (16 threads, 16 priorities, 8 objects of a kind), so the
// software view does not depend on the parameters.
package couplet_rtos_pkg;

  import rtos_reg_pkg::*;

  // Largest parameter values the field widths below can hold (the description's ranges).
  localparam int unsigned MaxThreadsLimit = RTOS_PARAM_MAX_THREADS_MAX;
  localparam int unsigned NumPrioLimit    = RTOS_PARAM_PRIORITIES_MAX;

  // The actions (rtos_action_e), status codes (rtos_code_e), thread states, wait kinds and the
  // result word (rtos_call_reg_t) are generated from data/rtos.toml into rtos_reg_pkg.

  // THREAD_INFO's value.
  typedef struct packed {
    logic [2:0]         wait_id;
    rtos_wait_kind_e    wait_kind;
    rtos_thread_state_e state;
    logic [3:0]         bprio;
    logic [3:0]         eprio;
  } rtos_thread_info_t;

  // Scans over a table's bit set (in use, waiting, non-empty, ...). Every table fits ScanW
  // entries; a caller zero-extends its set.
  localparam int unsigned ScanW = MaxThreadsLimit;
  typedef logic [ScanW-1:0]         scan_t;
  typedef logic [$clog2(ScanW)-1:0] scan_idx_t;
  typedef logic [$clog2(ScanW):0]   scan_cnt_t;

  // Index of the lowest set bit of v (0 if none): the lowest free entry of a table, or among
  // equal candidates the one with the lowest id.
  function automatic scan_idx_t lowest_one(scan_t v);
    scan_idx_t idx;
    idx = '0;
    for (int i = int'(ScanW) - 1; i >= 0; i--) begin
      if (v[i]) idx = scan_idx_t'(i);
    end
    return idx;
  endfunction

  // Index of the highest set bit of v (0 if none).
  function automatic scan_idx_t highest_one(scan_t v);
    scan_idx_t idx;
    idx = '0;
    for (int unsigned i = 0; i < ScanW; i++) begin
      if (v[i]) idx = scan_idx_t'(i);
    end
    return idx;
  endfunction

  // Number of set bits of v.
  function automatic scan_cnt_t count_ones(scan_t v);
    scan_cnt_t n;
    n = '0;
    for (int unsigned i = 0; i < ScanW; i++) n = n + scan_cnt_t'(v[i]);
    return n;
  endfunction

  // Priorities at the width of the largest build; a caller zero-extends its own.
  typedef logic [$clog2(NumPrioLimit)-1:0] prio_l_t;
  typedef prio_l_t [ScanW-1:0]             prio_set_t;  // one a thread
  typedef scan_idx_t [ScanW-1:0]           rank_set_t;  // one a thread: 0 first

  // x has a higher priority than y in the order PrioAscending (asc) chooses.
  function automatic logic higher(logic asc, prio_l_t x, prio_l_t y);
    return asc ? (x > y) : (x < y);
  endfunction

  // The best thread of a set: the highest prio, among equals the lowest rank, among equal ranks
  // the lowest TID (0 if none). It chooses among the waiters of an object (ranked by how long
  // they have waited: FreeRTOS's event lists serve equal priorities first come, first served)
  // and, in the inheritance walk, among an owner's (all ranks 0: only the priority is used).
  // A tournament of log2(ScanW) rounds of pairwise choices, not a scan: a scan chains one
  // priority comparison per thread, and that chain was the RTOS tile's critical path (issue 19).
  function automatic scan_idx_t best_of(logic asc, scan_t set, prio_set_t prio, rank_set_t rank);
    logic      [ScanW-1:0] in_set;
    scan_idx_t [ScanW-1:0] idx;
    prio_set_t             p;
    rank_set_t             r;
    logic                  right;
    in_set = set;
    p      = prio;
    r      = rank;
    for (int unsigned t = 0; t < ScanW; t++) idx[t] = scan_idx_t'(t);
    // Round `w` leaves the winner of entries 2i and 2i+1 in entry i (i < w). The left entry
    // holds the lower TIDs, so the right one wins only with a strictly higher priority, or an
    // equal one and a strictly lower rank.
    for (int unsigned w = ScanW / 2; w > 0; w = w / 2) begin
      for (int unsigned i = 0; i < w; i++) begin
        right     = in_set[2*i+1] && (!in_set[2*i] || higher(asc, p[2*i+1], p[2*i]) ||
                                      (p[2*i+1] == p[2*i] && r[2*i+1] < r[2*i]));
        in_set[i] = in_set[2*i] || in_set[2*i+1];
        idx[i]    = right ? idx[2*i+1] : idx[2*i];
        p[i]      = right ? p[2*i+1] : p[2*i];
        r[i]      = right ? r[2*i+1] : r[2*i];
      end
    end
    return idx[0];
  endfunction

  // The units of the accelerator (ChamelIoT's Figure 3): the thread manager with the scheduler,
  // mutexes, semaphores and message queues; each runs the actions of its kind.
  typedef enum logic [1:0] {
    RtosUnitThreads,
    RtosUnitMutex,
    RtosUnitSem,
    RtosUnitQueue
  } rtos_unit_e;

  function automatic rtos_unit_e unit_of(rtos_action_e a);
    rtos_unit_e u;
    unique case (a)
      RtosActionMutexAlloc, RtosActionMutexFree, RtosActionMutexLock, RtosActionMutexUnlock,
      RtosActionMutexInfo, RtosActionMutexInherit, RtosActionHandoff: u = RtosUnitMutex;
      RtosActionSemAlloc, RtosActionSemFree, RtosActionSemTake, RtosActionSemGive,
      RtosActionSemInfo: u = RtosUnitSem;
      RtosActionQueueAlloc, RtosActionQueueFree, RtosActionQueueSend, RtosActionQueueRecv,
      RtosActionQueueInfo, RtosActionQueueReset: u = RtosUnitQueue;
      default: u = RtosUnitThreads;
    endcase
    return u;
  endfunction

  // The wait kinds whose waiters on the object in a an action counts, wakes or is refused by
  // (both the same where it concerns one kind).
  typedef rtos_wait_kind_e [1:0] rtos_wait_kinds_t;
  function automatic rtos_wait_kinds_t waiter_kinds(rtos_action_e a);
    rtos_wait_kinds_t k;
    unique case (a)
      RtosActionMutexFree, RtosActionMutexLock, RtosActionMutexUnlock,
      RtosActionMutexInfo: k = {2{RtosWaitKindMutex}};
      RtosActionSemFree, RtosActionSemGive, RtosActionSemInfo: k = {2{RtosWaitKindSem}};
      RtosActionQueueSend: k = {2{RtosWaitKindQueueRecv}};
      RtosActionQueueRecv, RtosActionQueueReset: k = {2{RtosWaitKindQueueSend}};
      RtosActionQueueFree, RtosActionQueueInfo: k = {RtosWaitKindQueueRecv, RtosWaitKindQueueSend};
      default: k = {2{RtosWaitKindNone}};
    endcase
    return k;
  endfunction

  // An action as the units see it: which, and its arguments a and b.
  typedef struct packed {
    rtos_action_e act;
    logic [31:0]  a;
    logic [31:0]  b;
  } rtos_call_t;

  // The waiters of the command's object (README "Choosing among waiters"): whether there are
  // any, the best one and how many.
  typedef struct packed {
    logic      any;
    scan_idx_t best;
    scan_cnt_t cnt;
  } rtos_waiters_t;

  // What an action answers (the fields of the result word the unit decides) and asks of the
  // thread manager: wake the best waiter, or make the caller wait on (kind, id).
  typedef struct packed {
    rtos_code_e      status;
    logic [7:0]      tid;
    logic [15:0]     value;
    logic            wake;
    logic            block;
    rtos_wait_kind_e kind;
    logic [2:0]      id;
  } rtos_outcome_t;

  localparam rtos_outcome_t OutcomeNone = '{status: RtosCodeOk, tid: RTOS_TID_NONE, value: '0,
                                            wake: 1'b0, block: 1'b0, kind: RtosWaitKindNone,
                                            id: '0};

  // A call that cannot go on now (README "Caller needed only where used"): without bit 0 of b
  // (blocking) it is refused with `refuse`; else the caller waits on (kind, id) if it may
  // (block_st, the thread manager's verdict).
  function automatic rtos_outcome_t wait_or(rtos_outcome_t res, logic blocking, rtos_code_e refuse,
                                            rtos_code_e block_st, rtos_wait_kind_e kind,
                                            logic [2:0] id);
    rtos_outcome_t r;
    r = res;
    if (!blocking) begin
      r.status = refuse;
    end else if (block_st != RtosCodeOk) begin
      r.status = block_st;
    end else begin
      r.block = 1'b1;
      r.kind  = kind;
      r.id    = id;
    end
    return r;
  endfunction

  // Command indexes (byte offset / 4) of the generated register map (data/rtos.toml).
  function automatic logic [6:0] reg_index(logic [8:0] offset);
    return 7'(offset >> 2);
  endfunction
  localparam logic [6:0] IdxMsg0   = reg_index(RTOS_MSG_OFFSET);
  localparam logic [6:0] IdxArgA   = reg_index(RTOS_ARG_A_OFFSET);
  localparam logic [6:0] IdxArgB   = reg_index(RTOS_ARG_B_OFFSET);
  localparam logic [6:0] IdxStatus = reg_index(RTOS_STATUS_OFFSET);
  localparam logic [6:0] IdxConfig = reg_index(RTOS_CONFIG_OFFSET);
  localparam logic [6:0] IdxCall0  = reg_index(RTOS_CALL_OFFSET);

  function automatic logic is_action(logic [5:0] k);
    logic known;
    unique case (k)
      RtosActionThreadAdd, RtosActionThreadRemove, RtosActionThreadSetState, RtosActionThreadSetPrio, RtosActionThreadInfo,
      RtosActionThreadTcb, RtosActionThreadFind, RtosActionThreadUnblock, RtosActionSchedule, RtosActionCurrent,
      RtosActionMutexAlloc, RtosActionMutexFree, RtosActionMutexLock, RtosActionMutexUnlock, RtosActionMutexInfo,
      RtosActionMutexInherit, RtosActionHandoff,
      RtosActionSemAlloc, RtosActionSemFree, RtosActionSemTake, RtosActionSemGive, RtosActionSemInfo,
      RtosActionQueueAlloc, RtosActionQueueFree, RtosActionQueueSend, RtosActionQueueRecv, RtosActionQueueInfo,
      RtosActionQueueReset: known = 1'b1;
      default: known = 1'b0;
    endcase
    // CALL[k] covers every action number.
    return known && 32'(k) < RTOS_CALL_COUNT;
  endfunction

endpackage
