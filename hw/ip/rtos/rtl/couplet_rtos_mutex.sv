// Mutexes of couplet_rtos (hw/ip/rtos/README.md "State", "Priority inheritance"): the mutex
// table (in use, locked, owner), the mutex actions and the priority-inheritance walk; and the
// OS's two rules (MUTEX_INHERIT, HANDOFF), kept here beside the first.
//
// HANDOFF chooses what a give, send or unlock does for a waiter: hand it what it waits for
// (handoff_q, after reset), or only wake it (FreeRTOS): the semaphore and queue units read it too.
//
// MUTEX_INHERIT chooses at run time whose inheritance it is: the accelerator's (inherit_q, after
// reset) or the OS's, which then sets every eprio itself (THREAD_SET_PRIO, couplet_rtos_threads):
// no action starts a walk. FreeRTOS's rules differ from the definition below (a task keeps an
// inherited priority until it has given back every mutex it holds; no chains), so its hardware
// kernels do their own.
//
// The walk recomputes one owner's eprio per cycle: its bprio raised to the eprio of the best
// thread waiting on a mutex it owns. If that changed and the owner itself waits on a mutex, it
// goes on with that mutex's owner; an unlock that hands the mutex on walks the new owner first,
// then the old one. The thread manager applies each step (step_o), and the command's response
// waits until the walk is done (done_o).
module couplet_rtos_mutex
  import couplet_rtos_pkg::*;
  import rtos_reg_pkg::*;
#(
  parameter int unsigned  MaxThreads    = 8,
  parameter int unsigned  NumPrio       = 8,
  parameter int unsigned  PrioAscending = 1,
  parameter int unsigned  NumMutex      = 4,
  parameter int unsigned  PrioInherit   = 1,
  localparam int unsigned TidW          = $clog2(MaxThreads),
  localparam int unsigned PrioW         = $clog2(NumPrio)
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,

  input  logic                             run_i,         // a command executes
  input  logic                             exec_i,        // a mutex action runs
  input  rtos_call_t                       call_i,
  input  rtos_waiters_t                    waiters_i,     // of the mutex in call_i.a
  input  rtos_code_e                       block_st_i,
  input  logic                             cur_v_i,
  input  logic [TidW-1:0]                  cur_i,
  input  logic                             walk_i,        // a thread action starts a walk
  input  logic [TidW-1:0]                  walk_t_i,      // at this thread
  input  logic                             walk_owner_i,  // or at the owner of what it waits on

  input  logic [MaxThreads-1:0]            valid_i,       // thread nodes
  input  logic [MaxThreads-1:0]            mwait_i,
  input  logic [MaxThreads-1:0][2:0]       wid_i,
  input  logic [MaxThreads-1:0][PrioW-1:0] bprio_i,
  input  logic [MaxThreads-1:0][PrioW-1:0] eprio_i,

  output rtos_outcome_t                    res_o,
  output logic [MaxThreads-1:0]            owns_o,        // thread owns a mutex
  output logic                             inherit_o,     // the accelerator's inheritance is on
  output logic                             handoff_o,     // a waiter is handed what it waits for
  output logic                             step_o,        // set step_t_o's eprio to step_eprio_o
  output logic [TidW-1:0]                  step_t_o,
  output logic [PrioW-1:0]                 step_eprio_o,
  output logic                             busy_o,        // a walk runs: no command is taken
  output logic                             start_o,       // the command starts a walk
  output logic                             done_o         // the walk's last step
);

  localparam int unsigned MIdW = (NumMutex > 1) ? $clog2(NumMutex) : 1;
  // A walk never needs more steps than this (README "Priority inheritance"); the bound only
  // matters for a deadlock cycle of mutex waits, where the walk is cut off.
  localparam int unsigned MaxSteps = NumMutex + 1;

  localparam logic Asc     = PrioAscending[0];
  localparam logic Inherit = PrioInherit[0];

  typedef logic [TidW-1:0]  tid_t;
  typedef logic [PrioW-1:0] prio_t;

  logic [NumMutex-1:0] locked_q, locked_d;
  logic                inherit_q, inherit_d;
  logic                handoff_q, handoff_d;
  tid_t                owner_q [NumMutex];
  tid_t                owner_d [NumMutex];

  typedef struct packed {
    logic       on;
    tid_t       tid;     // the owner recomputed this step
    logic [3:0] steps;
    logic       then;    // a second walk starts after this one
    tid_t       then_t;  // at this thread
  } walk_state_t;
  walk_state_t walk_q, walk_d;

  // The mutex table; a locked mutex cannot be freed, so only a mutex in use is locked.
  logic [NumMutex-1:0] used;
  logic [MIdW-1:0]     a_mid, free_m;
  rtos_code_e          pre_st;

  // A locked mutex may be freed (an OS deletes a held mutex), one a thread waits on not.
  couplet_rtos_alloc #(.N(NumMutex), .AllocAct(RtosActionMutexAlloc), .FreeAct(RtosActionMutexFree)) u_table (
    .clk_i, .rst_ni, .exec_i, .call_i,
    .need_id_i(!(call_i.act inside {RtosActionMutexInherit, RtosActionHandoff})), .bad_i(1'b0),
    .busy_i(call_i.act == RtosActionMutexFree && waiters_i.any),
    .status_o(pre_st), .used_o(used), .id_o(a_mid), .free_o(free_m)
  );

  always_comb begin
    owns_o = '0;
    for (int unsigned m = 0; m < NumMutex; m++) begin
      if (locked_q[m]) owns_o[owner_q[m]] = 1'b1;
    end
  end

  // The owner of the mutex thread t waits on.
  function automatic tid_t owner_of_wait(tid_t t);
    return owner_q[wid_i[t][MIdW-1:0]];
  endfunction

  // ---------------------------------------------------------------- inheritance step
  // eprio of walk_q.tid: its bprio raised to the eprio of every thread waiting on a mutex it owns.
  prio_set_t             eprio_l;
  logic [MaxThreads-1:0] walk_ws;
  tid_t                  walk_top;
  prio_t                 walk_eprio;
  logic                  changed, last;
  always_comb begin
    eprio_l = '0;
    for (int unsigned w = 0; w < MaxThreads; w++) begin
      eprio_l[w] = prio_l_t'(eprio_i[w]);
      // An unlocked mutex (HANDOFF 0 leaves waiters on it) lends its stale owner nothing.
      walk_ws[w] = mwait_i[w] && locked_q[wid_i[w][MIdW-1:0]] && owner_of_wait(tid_t'(w)) == walk_q.tid;
    end
  end
  assign walk_top     = tid_t'(best_of(Asc, scan_t'(walk_ws), eprio_l, '0));
  assign walk_eprio   = (|walk_ws && higher(Asc, eprio_l[walk_top], prio_l_t'(bprio_i[walk_q.tid]))) ?
                        eprio_i[walk_top] : bprio_i[walk_q.tid];
  assign changed      = valid_i[walk_q.tid] && walk_eprio != eprio_i[walk_q.tid];
  assign last         = walk_q.steps == 4'(MaxSteps - 1);
  assign step_o       = walk_q.on && changed;
  assign step_t_o     = walk_q.tid;
  assign step_eprio_o = walk_eprio;

  // ---------------------------------------------------------------- actions and the walk
  always_comb begin
    logic walk_go, walk_go2;
    tid_t walk_t, walk_t2;
    locked_d  = locked_q;
    owner_d   = owner_q;
    inherit_d = inherit_q;
    handoff_d = handoff_q;
    res_o    = OutcomeNone;
    walk_go  = walk_i;
    walk_t   = walk_owner_i ? owner_of_wait(walk_t_i) : walk_t_i;
    walk_go2 = 1'b0;
    walk_t2  = '0;

    res_o.status = pre_st;
    if (exec_i && pre_st == RtosCodeOk) begin
      unique case (call_i.act)
        RtosActionMutexAlloc: begin
          locked_d[free_m] = 1'b0;
          owner_d[free_m]  = '0;
          res_o.tid        = 8'(free_m);
        end
        // Without waiters the mutex gave its owner no priority: nothing to recompute.
        RtosActionMutexFree: locked_d[a_mid] = 1'b0;
        RtosActionMutexLock: begin
          if (!cur_v_i) begin
            res_o.status = RtosCodeNoCaller;
          end else if (!locked_q[a_mid]) begin
            // Free with waiters only under HANDOFF 0 (an unlock woke one, which has not taken
            // it yet): the new owner inherits from them.
            locked_d[a_mid] = 1'b1;
            owner_d[a_mid]  = cur_i;
            walk_go         = inherit_q && waiters_i.any;
            walk_t          = cur_i;
          end else if (owner_q[a_mid] == cur_i) begin
            res_o.status = RtosCodeBadArg;
          end else begin
            res_o   = wait_or(res_o, call_i.b[0], RtosCodeUnavailable, block_st_i, RtosWaitKindMutex,
                              3'(a_mid));
            walk_go = inherit_q && res_o.block;
            walk_t  = owner_q[a_mid];
          end
        end
        RtosActionMutexUnlock: begin
          if (!cur_v_i) begin
            res_o.status = RtosCodeNoCaller;
          end else if (!locked_q[a_mid] || owner_q[a_mid] != cur_i) begin
            res_o.status = RtosCodeNotOwner;
          end else if (waiters_i.any && handoff_q) begin
            // The best waiter takes the mutex; then both owners' eprio are recomputed, the
            // new owner's first (it gained the remaining waiters).
            owner_d[a_mid] = tid_t'(waiters_i.best);
            res_o.wake     = 1'b1;
            walk_go        = inherit_q;
            walk_t         = tid_t'(waiters_i.best);
            walk_go2       = inherit_q;
            walk_t2        = cur_i;
          end else begin
            // Unlocked; the best waiter, if any, is woken to lock it (HANDOFF 0), and the owner
            // loses what the waiters lent it. Without waiters it had lent nothing.
            locked_d[a_mid] = 1'b0;
            res_o.wake      = waiters_i.any;
            walk_go         = inherit_q && waiters_i.any;
            walk_t          = cur_i;
          end
        end
        RtosActionMutexInfo: begin
          res_o.tid   = locked_q[a_mid] ? 8'(owner_q[a_mid]) : RTOS_TID_NONE;
          res_o.value = 16'(waiters_i.cnt);
        end
        // Switched only while no mutex is locked: no waiter then, so every eprio equals its
        // bprio under both rules and nothing needs recomputing.
        RtosActionMutexInherit: begin
          if (call_i.a > 32'd1 || (call_i.a[0] && !Inherit)) res_o.status = RtosCodeBadArg;
          else if (|locked_q)                                res_o.status = RtosCodeBusy;
          else                                               inherit_d    = call_i.a[0];
        end
        RtosActionHandoff: begin
          if (call_i.a > 32'd1) res_o.status = RtosCodeBadArg;
          else                  handoff_d    = call_i.a[0];
        end
        default: ;
      endcase
    end

    walk_d = walk_q;
    done_o = 1'b0;
    if (walk_q.on) begin
      walk_d.steps = walk_q.steps + 4'd1;
      if (changed && !last && mwait_i[walk_q.tid]) begin
        walk_d.tid = owner_of_wait(walk_q.tid);
      end else if (walk_q.then && !last) begin
        walk_d.tid  = walk_q.then_t;
        walk_d.then = 1'b0;
      end else begin
        walk_d.on   = 1'b0;
        walk_d.then = 1'b0;
        done_o      = 1'b1;
      end
    end else if (run_i) begin
      walk_d = '{on: walk_go, tid: walk_t, steps: '0, then: walk_go2, then_t: walk_t2};
    end
    start_o = walk_go;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      locked_q  <= '0;
      inherit_q <= Inherit;
      handoff_q <= 1'b1;
      for (int unsigned m = 0; m < NumMutex; m++) owner_q[m] <= '0;
      walk_q    <= '0;
    end else begin
      locked_q  <= locked_d;
      inherit_q <= inherit_d;
      handoff_q <= handoff_d;
      owner_q   <= owner_d;
      walk_q    <= walk_d;
    end
  end

  assign busy_o    = walk_q.on;
  assign inherit_o = inherit_q;
  assign handoff_o = handoff_q;

`ifndef SYNTHESIS
  // The walk stays within its bound (README "Timing"), and only a mutex in use is locked.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      WalkBounded: assert (!walk_q.on || 32'(walk_q.steps) < MaxSteps);
      LockedInUse: assert ((locked_q & ~used) == '0);
    end
  end
`endif

endmodule
