// Thread manager of couplet_rtos (hw/ip/rtos/README.md "State"): the thread nodes, the running
// thread and the thread actions, and the waiters of every object (derived from the nodes).
//
// At most one node changes per cycle: the one a thread action names (or the new one), the
// best waiter an object action wakes, the caller an object action blocks, or the owner an
// inheritance step recomputes. What its ready queue does follows from how the node changes
// (it leaves, joins, or moves when its eprio changes), so the scheduler's operations are derived
// here once, for every action alike.
//
// Waiter sets are not stored: a thread waits on object X exactly when its node says WAITING with
// that wait kind and id, so the sets can never disagree with the nodes.
module couplet_rtos_threads
  import couplet_rtos_pkg::*;
  import rtos_reg_pkg::*;
#(
  parameter int unsigned  MaxThreads    = 8,
  parameter int unsigned  NumPrio       = 8,
  parameter int unsigned  PrioAscending = 1,
  parameter int unsigned  PrioInherit   = 1,
  localparam int unsigned TidW          = $clog2(MaxThreads),
  localparam int unsigned PrioW         = $clog2(NumPrio)
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,

  input  logic                             exec_i,        // a thread action runs
  input  rtos_call_t                       call_i,        // the command's action, of any unit
  input  logic [MaxThreads-1:0]            owns_i,        // thread owns a mutex
  input  logic                             wake_i,        // an object action wakes waiters_o.best
  input  logic                             block_i,       // an object action blocks the caller
  input  rtos_wait_kind_e                  block_kind_i,  // on this object
  input  logic [2:0]                       block_id_i,
  input  logic                             step_i,        // an inheritance step sets step_t_i's
  input  logic [TidW-1:0]                  step_t_i,      // eprio to step_eprio_i
  input  logic [PrioW-1:0]                 step_eprio_i,
  input  logic                             inherit_i,     // the accelerator's inheritance is on
  input  logic [TidW-1:0]                  pick_i,        // the thread SCHEDULE switches to
  input  logic                             any_ready_i,

  output rtos_outcome_t                    res_o,         // of a thread action
  output logic                             raw_o,         // it answers raw_data_o instead
  output logic [31:0]                      raw_data_o,
  output rtos_waiters_t                    waiters_o,     // of the command's object
  output logic [31:2]                      waiter_ptr_o,  // receive buffer of waiters_o.best
  output rtos_code_e                       block_st_o,    // whether the caller may start to wait
  output logic                             walk_o,        // a thread action starts a walk
  output logic [TidW-1:0]                  walk_t_o,      // at this thread
  output logic                             walk_owner_o,  // or at the owner of what it waits on

  output logic [TidW-1:0]                  rq_t_o,        // ready-queue operation (sched)
  output logic                             rq_rm_o,
  output logic [PrioW-1:0]                 rq_rm_p_o,
  output logic                             rq_add_o,
  output logic [PrioW-1:0]                 rq_add_p_o,

  output logic [MaxThreads-1:0]            valid_o,
  output logic [MaxThreads-1:0]            queued_o,      // in a ready queue
  output logic [MaxThreads-1:0]            mwait_o,       // waits on a mutex
  output logic [MaxThreads-1:0][2:0]       wid_o,
  output logic [MaxThreads-1:0][PrioW-1:0] bprio_o,
  output logic [MaxThreads-1:0][PrioW-1:0] eprio_o,
  output logic                             cur_v_o,
  output logic [TidW-1:0]                  cur_o,
  output logic [7:0]                       cur_tid_o      // cur_o, or RTOS_TID_NONE
);

  typedef logic [TidW-1:0]  tid_t;
  typedef logic [PrioW-1:0] prio_t;

  localparam logic Asc     = PrioAscending[0];
  localparam logic Inherit = PrioInherit[0];

  // MUTEX_INHERIT may hand inheritance to the OS at run time (couplet_rtos_mutex).
  logic inherit;
  assign inherit = Inherit && inherit_i;

  // ---------------------------------------------------------------- nodes
  // A thread node beside its valid bit (the node table's, u_nodes): what the OS gave, its state
  // and priorities, and what it waits on.
  typedef struct packed {
    logic [31:0]        tcb;
    rtos_thread_state_e state;
    prio_t              bprio;
    prio_t              eprio;
    rtos_wait_kind_e    wkind;
    logic [2:0]         wid;
    logic [31:2]        wptr;   // a receiver's buffer
  } node_t;

  logic [MaxThreads-1:0] valid;
  node_t                 node_q [MaxThreads];
  node_t                 node_d [MaxThreads];
  logic                  cur_v_q, cur_v_d;
  tid_t                  cur_q, cur_d;

  rtos_action_e act;
  prio_t        prio_b;
  assign act    = call_i.act;
  assign prio_b = call_i.b[PrioW-1:0];

  // The node table: THREAD_ADD allocates, THREAD_REMOVE frees unless the thread owns a mutex.
  logic       need_id;
  tid_t       a_tid, free_t;
  rtos_code_e pre_st;
  assign need_id = act inside {RtosActionThreadRemove, RtosActionThreadSetState, RtosActionThreadSetPrio,
                               RtosActionThreadInfo, RtosActionThreadTcb, RtosActionThreadUnblock};

  couplet_rtos_alloc #(.N(MaxThreads), .AllocAct(RtosActionThreadAdd), .FreeAct(RtosActionThreadRemove)) u_nodes (
    .clk_i, .rst_ni, .exec_i, .call_i, .need_id_i(need_id),
    .bad_i(32'(call_i.b[3:0]) >= 32'(NumPrio)), .busy_i(act == RtosActionThreadRemove && owns_i[a_tid]),
    .status_o(pre_st), .used_o(valid), .id_o(a_tid), .free_o(free_t)
  );


  // ---------------------------------------------------------------- derived from the nodes
  logic [MaxThreads-1:0] inq;
  always_comb begin
    for (int unsigned t = 0; t < MaxThreads; t++) begin
      inq[t]     = valid[t] && node_q[t].state == RtosThreadStateReady;
      mwait_o[t] = valid[t] && node_q[t].state == RtosThreadStateWaiting && node_q[t].wkind == RtosWaitKindMutex;
    end
  end

  prio_set_t eprio_l;
  always_comb begin
    eprio_l = '0;
    for (int unsigned t = 0; t < MaxThreads; t++) eprio_l[t] = prio_l_t'(eprio_o[t]);
  end

  // The waiters of the command's object: WAITING with one of the action's wait kinds on the id in a.
  logic [MaxThreads-1:0] ws;
  always_comb begin
    rtos_wait_kinds_t k;
    k = waiter_kinds(act);
    for (int unsigned t = 0; t < MaxThreads; t++) begin
      ws[t] = valid[t] && node_q[t].state == RtosThreadStateWaiting && k[0] != RtosWaitKindNone &&
              (node_q[t].wkind == k[0] || node_q[t].wkind == k[1]) && 32'(node_q[t].wid) == call_i.a;
    end
  end
  // Every WAITING thread's rank in the order the threads started waiting (0 the first, the
  // ranks of the n WAITING threads are 0..n-1): a thread that starts waiting comes last, and when
  // one stops, those that came after it move up. At most one node starts or stops waiting a
  // cycle (the node that changes, nt).
  tid_t                  wrank_q [MaxThreads];
  tid_t                  wrank_d [MaxThreads];
  logic [MaxThreads-1:0] waiting;
  rank_set_t             wrank_l;
  always_comb begin
    wrank_l = '0;
    for (int unsigned t = 0; t < MaxThreads; t++) begin
      waiting[t] = valid[t] && node_q[t].state == RtosThreadStateWaiting;
      wrank_l[t] = scan_idx_t'(wrank_q[t]);
    end
  end

  assign waiters_o.any  = |ws;
  assign waiters_o.best = best_of(Asc, scan_t'(ws), eprio_l, wrank_l);
  assign waiters_o.cnt  = count_ones(scan_t'(ws));
  assign waiter_ptr_o   = node_q[tid_t'(waiters_o.best)].wptr;

  assign block_st_o = !cur_v_q                                 ? RtosCodeNoCaller :
                      node_q[cur_q].state == RtosThreadStateWaiting ? RtosCodeBadArg   : RtosCodeOk;

  // THREAD_FIND: the lowest valid node holding a.
  logic [MaxThreads-1:0] holds;
  always_comb begin
    for (int unsigned t = 0; t < MaxThreads; t++) holds[t] = valid[t] && node_q[t].tcb == call_i.a;
  end

  // THREAD_TCB and SCHEDULE answer a node's tcb: one read port serves both.
  logic [31:0] tcb_rd;
  assign tcb_rd = node_q[(act == RtosActionSchedule) ? pick_i : a_tid].tcb;

  // ---------------------------------------------------------------- thread actions
  // The action's answer, and which fields of which node it changes (act_*). A state change also
  // sets what the node waits on (nothing unless it blocks): a node that does not wait has no
  // wait kind, id or buffer.
  tid_t               act_t;
  logic               act_state, act_tcb, act_bprio, act_eprio;
  rtos_thread_state_e act_ns;

  always_comb begin
    rtos_thread_state_e ns;
    ns           = (act == RtosActionThreadUnblock) ? RtosThreadStateReady :
                                                      rtos_thread_state_e'(call_i.b[1:0]);
    act_t        = a_tid;
    act_state    = 1'b0;
    act_tcb      = 1'b0;
    act_bprio    = 1'b0;
    act_eprio    = 1'b0;
    act_ns       = ns;
    cur_v_d      = cur_v_q;
    cur_d        = cur_q;
    res_o        = OutcomeNone;
    res_o.status = pre_st;
    // THREAD_TCB (0 for a bad id) and SCHEDULE answer a raw word, not a result word.
    raw_o        = act == RtosActionThreadTcb || act == RtosActionSchedule;
    raw_data_o   = '0;
    walk_o       = 1'b0;
    walk_owner_o = 1'b1;

    if (exec_i && pre_st == RtosCodeOk) begin
      unique case (act)
        RtosActionThreadAdd: begin
          act_t     = free_t;
          act_state = 1'b1;
          act_tcb   = 1'b1;
          act_bprio = 1'b1;
          act_eprio = 1'b1;
          act_ns    = call_i.b[8] ? RtosThreadStateReady : RtosThreadStateSuspended;
          res_o.tid = 8'(free_t);
        end
        RtosActionThreadRemove: begin
          act_state = 1'b1;
          act_ns    = RtosThreadStateSuspended;
          walk_o    = inherit && mwait_o[a_tid];
          if (cur_v_q && cur_q == a_tid) cur_v_d = 1'b0;
        end
        RtosActionThreadSetState, RtosActionThreadUnblock: begin
          if (act == RtosActionThreadSetState &&
              !(call_i.b == 32'd0 || call_i.b == 32'd2 || call_i.b == 32'd3)) begin
            res_o.status = RtosCodeBadArg;
          end else if (act == RtosActionThreadUnblock && node_q[a_tid].state != RtosThreadStateWaiting) begin
            res_o.status = RtosCodeBadArg;
          end else if (node_q[a_tid].state != ns) begin
            act_state = 1'b1;
            walk_o    = inherit && mwait_o[a_tid];
            if (act == RtosActionThreadUnblock) res_o.tid = 8'(a_tid);
          end
        end
        RtosActionThreadSetPrio: begin
          if (call_i.b >= 32'(NumPrio)) begin
            res_o.status = RtosCodeBadArg;
          end else begin
            act_bprio    = 1'b1;
            act_eprio    = !inherit;
            walk_o       = inherit;
            walk_owner_o = 1'b0;
          end
        end
        RtosActionThreadInfo: begin
          res_o.value = rtos_thread_info_t'{wait_id:   node_q[a_tid].wid,
                                            wait_kind: node_q[a_tid].wkind,
                                            state:     node_q[a_tid].state,
                                            bprio:     4'(node_q[a_tid].bprio),
                                            eprio:     4'(node_q[a_tid].eprio)};
        end
        RtosActionThreadTcb: raw_data_o = tcb_rd;
        RtosActionThreadFind: begin
          if (!(|holds)) res_o.status = RtosCodeNoId;
          else           res_o.tid    = 8'(lowest_one(scan_t'(holds)));
        end
        RtosActionSchedule: begin
          raw_data_o = any_ready_i ? tcb_rd : 32'd0;
          cur_v_d    = any_ready_i;
          if (any_ready_i) cur_d = pick_i;
        end
        RtosActionCurrent: begin
          res_o.tid   = cur_tid_o;
          res_o.value = 16'(count_ones(scan_t'(valid)));
        end
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------- the node that changes
  // At most one: an inheritance step's owner, a thread action's node, the woken best waiter or
  // the blocked caller.
  tid_t               nt;
  logic               we_state, we_tcb, we_bprio, we_eprio;
  rtos_thread_state_e n_state;
  rtos_wait_kind_e    n_kind;
  logic [2:0]         n_wid;
  logic [31:2]        n_ptr;
  prio_t              n_eprio;

  always_comb begin
    nt       = act_t;
    we_state = act_state;
    we_tcb   = act_tcb;
    we_bprio = act_bprio;
    we_eprio = act_eprio;
    n_state  = act_ns;
    n_kind   = RtosWaitKindNone;
    n_wid    = '0;
    n_ptr    = '0;
    n_eprio  = prio_b;
    if (step_i) begin
      nt       = step_t_i;
      we_eprio = 1'b1;
      n_eprio  = step_eprio_i;
    end else if (wake_i) begin
      nt       = tid_t'(waiters_o.best);
      we_state = 1'b1;
      n_state  = RtosThreadStateReady;
    end else if (block_i) begin
      nt       = cur_q;
      we_state = 1'b1;
      n_state  = RtosThreadStateWaiting;
      n_kind   = block_kind_i;
      n_wid    = block_id_i;
      // RECV's waiter keeps where the copy engine is to write its message.
      if (block_kind_i == RtosWaitKindQueueRecv) n_ptr = call_i.b[31:2];
    end
  end
  assign walk_t_o = a_tid;

  always_comb begin
    node_d = node_q;
    if (we_state) begin
      node_d[nt].state = n_state;
      node_d[nt].wkind = n_kind;
      node_d[nt].wid   = n_wid;
      node_d[nt].wptr  = n_ptr;
    end
    if (we_tcb)   node_d[nt].tcb   = call_i.a;
    if (we_bprio) node_d[nt].bprio = prio_b;
    if (we_eprio) node_d[nt].eprio = n_eprio;
  end

  // The node's ready queue: it leaves it when it stops being READY, joins at its eprio when it
  // becomes READY, and moves to the tail of its new queue when its eprio changes while READY.
  logic queued_after, moved;
  assign queued_after = we_state ? n_state == RtosThreadStateReady : inq[nt];
  assign moved        = we_eprio && n_eprio != node_q[nt].eprio;
  assign rq_t_o       = nt;
  assign rq_rm_o      = inq[nt] && (!queued_after || moved);
  assign rq_rm_p_o    = node_q[nt].eprio;
  assign rq_add_o     = queued_after && (!inq[nt] || moved);
  assign rq_add_p_o   = we_eprio ? n_eprio : node_q[nt].eprio;

  always_comb begin
    wrank_d = wrank_q;
    if (we_state && waiting[nt] && n_state != RtosThreadStateWaiting) begin
      for (int unsigned t = 0; t < MaxThreads; t++) begin
        if (waiting[t] && wrank_q[t] > wrank_q[nt]) wrank_d[t] = wrank_q[t] - tid_t'(1);
      end
    end else if (we_state && n_state == RtosThreadStateWaiting) begin
      // Only the running thread starts waiting, and it was not WAITING (block_st_o): at most
      // MaxThreads - 1 wait before it.
      wrank_d[nt] = tid_t'(count_ones(scan_t'(waiting)));
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned t = 0; t < MaxThreads; t++) begin
        node_q[t]  <= '{state: RtosThreadStateSuspended, wkind: RtosWaitKindNone, default: '0};
        wrank_q[t] <= '0;
      end
      cur_v_q <= 1'b0;
      cur_q   <= '0;
    end else begin
      node_q  <= node_d;
      wrank_q <= wrank_d;
      cur_v_q <= cur_v_d;
      cur_q   <= cur_d;
    end
  end

  always_comb begin
    for (int unsigned t = 0; t < MaxThreads; t++) begin
      wid_o[t]   = node_q[t].wid;
      bprio_o[t] = node_q[t].bprio;
      eprio_o[t] = node_q[t].eprio;
    end
  end
  assign valid_o   = valid;
  assign queued_o  = inq;
  assign cur_v_o   = cur_v_q;
  assign cur_o     = cur_q;
  assign cur_tid_o = cur_v_q ? 8'(cur_q) : RTOS_TID_NONE;

`ifndef SYNTHESIS
  // A node's wait fields say what it waits on and nothing else, and the running thread exists:
  // the node update above relies on both (a state change rewrites the wait fields).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      for (int unsigned t = 0; t < MaxThreads; t++) begin
        WaitKindIffWaiting: assert ((valid[t] && node_q[t].state == RtosThreadStateWaiting) ==
                                    (node_q[t].wkind != RtosWaitKindNone));
        WaitIdOnlyWaiting: assert (node_q[t].wkind != RtosWaitKindNone || node_q[t].wid == '0);
        BufferOnlyReceiving: assert (node_q[t].wkind == RtosWaitKindQueueRecv || node_q[t].wptr == '0);
      end
      CurrentHasNode: assert (!cur_v_q || valid[cur_q]);
      OneNodeChange: assert ($onehot0({step_i, exec_i, wake_i, block_i}));
    end
  end
`endif

endmodule
