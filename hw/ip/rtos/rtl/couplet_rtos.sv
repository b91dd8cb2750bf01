// Hardware RTOS kernel services after ChamelIoT (hw/ip/rtos/README.md): thread nodes with one
// ready queue per priority, a combinational scheduler, mutexes with priority inheritance,
// counting semaphores and message queues, behind the coupling layer's command port. A message
// for a receiver that already waits is written to its buffer by a DMA job (the out word stream)
// in the background.
//
// Pipeline. A command is taken into cmd_q (cycle c) and executed from there in c+1, so no path
// runs from the bus into the action logic; the response register is written in c+1 and valid in
// c+2. An action that changes who waits on a mutex (PrioInherit) first walks the inheritance
// chain, one owner per cycle, and answers one cycle after the last step. The result word's
// preempt bit depends on the state after the walk, so it is taken from the state registers
// while the response waits: nothing can change that state then, as no command is taken while
// a response is pending and the copy engine touches no thread state.
//
// The ready queues and the scheduler's priority encoder are couplet_rtos_readyq; this module
// decides per action which thread leaves or joins which queue.
//
// Waiter sets are not stored: a thread waits on object X exactly when its node says WAITING with
// that wait kind and id, so the sets can never disagree with the nodes.
module couplet_rtos
  import couplet_accel_pkg::*;
  import couplet_rtos_pkg::*;
  import rtos_reg_pkg::*;
#(
  parameter int unsigned MaxThreads    = 8,
  parameter int unsigned NumPrio       = 8,
  parameter int unsigned PrioAscending = 1,
  parameter int unsigned NumMutex      = 4,
  parameter int unsigned NumSem        = 4,
  parameter int unsigned NumQueue      = 4,
  parameter int unsigned MsgWords      = 16,
  parameter int unsigned QueueDepth    = 4,
  parameter int unsigned PrioInherit   = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        cmd_valid_i,
  output logic        cmd_ready_o,
  input  accel_cmd_t  cmd_i,
  output logic        rsp_valid_o,
  input  logic        rsp_ready_i,
  output accel_rsp_t  rsp_o,

  output logic        job_valid_o,
  input  logic        job_ready_i,
  output dma_job_t    job_o,
  input  logic        job_done_i,
  input  logic        job_err_i,
  input  logic        dma_abort_i,

  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [31:0] in_data_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [31:0] out_data_o,

  output logic        irq_o
);

  // ---------------------------------------------------------------- parameters
  if (MaxThreads < 2 || MaxThreads > MaxThreadsLimit || NumPrio < 2 || NumPrio > NumPrioLimit ||
      NumMutex < 1 || NumMutex > NumObjLimit || NumSem < 1 || NumSem > NumObjLimit ||
      NumQueue < 1 || NumQueue > NumObjLimit || MsgWords < 1 || MsgWords > MsgWordsLimit ||
      QueueDepth < 1 || QueueDepth > QueueDepthLimit || PrioAscending > 1 ||
      PrioInherit > 1) begin : gen_param_check
    $error("couplet_rtos: parameter out of range (README)");
  end

  localparam int unsigned TidW   = $clog2(MaxThreads);
  localparam int unsigned PrioW  = $clog2(NumPrio);
  localparam int unsigned MIdW   = (NumMutex > 1) ? $clog2(NumMutex) : 1;
  localparam int unsigned SIdW   = (NumSem > 1) ? $clog2(NumSem) : 1;
  localparam int unsigned QIdW   = (NumQueue > 1) ? $clog2(NumQueue) : 1;
  localparam int unsigned NumSlot = NumQueue * QueueDepth;
  localparam int unsigned SlotW  = (NumSlot > 1) ? $clog2(NumSlot) : 1;
  localparam int unsigned WordW  = (MsgWords > 1) ? $clog2(MsgWords) : 1;
  // A walk never needs more steps than this (README "Priority inheritance"); the bound only
  // matters for a deadlock cycle of mutex waits, where the walk is cut off.
  localparam int unsigned MaxSteps = NumMutex + 1;

  localparam logic Asc     = PrioAscending[0];
  localparam logic Inherit = PrioInherit[0];

  typedef logic [TidW-1:0]  tid_t;
  typedef logic [PrioW-1:0] prio_t;
  typedef logic [MsgWords-1:0][31:0] msg_t;

  localparam rtos_config_reg_t ConfigWord = '{
    queue_depth_m1: 3'(QueueDepth - 1),
    msg_words:      5'(MsgWords),
    num_queue:      4'(NumQueue),
    num_sem:        4'(NumSem),
    num_mutex:      4'(NumMutex),
    prio_inherit:   Inherit,
    prio_ascending: Asc,
    num_prio:       5'(NumPrio),
    max_threads:    5'(MaxThreads)
  };

  // x has a higher priority than y.
  function automatic logic higher(prio_t x, prio_t y);
    return Asc ? (x > y) : (x < y);
  endfunction

  // ---------------------------------------------------------------- state
  // Thread nodes.
  logic [MaxThreads-1:0] valid_q, valid_d;
  logic [31:0]           tcb_q    [MaxThreads];
  logic [31:0]           tcb_d    [MaxThreads];
  rtos_thread_state_e         tstate_q [MaxThreads];
  rtos_thread_state_e         tstate_d [MaxThreads];
  prio_t                 bprio_q  [MaxThreads];
  prio_t                 bprio_d  [MaxThreads];
  prio_t                 eprio_q  [MaxThreads];
  prio_t                 eprio_d  [MaxThreads];
  rtos_wait_kind_e            wkind_q  [MaxThreads];
  rtos_wait_kind_e            wkind_d  [MaxThreads];
  logic [2:0]            wid_q    [MaxThreads];
  logic [2:0]            wid_d    [MaxThreads];
  logic [31:2]           wptr_q   [MaxThreads];
  logic [31:2]           wptr_d   [MaxThreads];

  logic                  cur_v_q, cur_v_d;
  tid_t                  cur_q, cur_d;

  // Mutexes, semaphores, queues.
  logic [NumMutex-1:0]   m_alloc_q, m_alloc_d;
  logic [NumMutex-1:0]   m_locked_q, m_locked_d;
  tid_t                  m_owner_q [NumMutex];
  tid_t                  m_owner_d [NumMutex];
  logic [NumSem-1:0]     s_alloc_q, s_alloc_d;
  logic [15:0]           s_count_q [NumSem];
  logic [15:0]           s_count_d [NumSem];
  logic [15:0]           s_max_q   [NumSem];
  logic [15:0]           s_max_d   [NumSem];
  logic [NumQueue-1:0]   q_alloc_q, q_alloc_d;
  logic [4:0]            q_words_q [NumQueue];
  logic [4:0]            q_words_d [NumQueue];
  logic [3:0]            q_depth_q [NumQueue];
  logic [3:0]            q_depth_d [NumQueue];
  logic [2:0]            q_rd_q    [NumQueue];
  logic [2:0]            q_rd_d    [NumQueue];
  logic [3:0]            q_count_q [NumQueue];
  logic [3:0]            q_count_d [NumQueue];

  // The message ring: one message-wide write per cycle, by slot (queue * QueueDepth + place),
  // so that it maps onto a memory. It needs no reset: a slot is read only after a store.
  msg_t                  ring_q [NumSlot];
  logic                  ring_we;
  logic [SlotW-1:0]      ring_waddr;

  msg_t                  msg_q, msg_d;
  logic [31:0]           arg_a_q, arg_a_d, arg_b_q, arg_b_d;

  // Command pipeline and response.
  logic                  cmd_v_q, cmd_v_d;
  accel_cmd_t            cmd_q, cmd_d;
  logic                  rsp_valid_q, rsp_valid_d;
  accel_rsp_t            rsp_q, rsp_d;
  logic                  rsp_pre_q, rsp_pre_d;  // rsp_q is a result word: add preempt

  // Inheritance walk.
  logic                  walk_q, walk_d;
  tid_t                  wtid_q, wtid_d;        // the owner recomputed this step
  logic [3:0]            wsteps_q, wsteps_d;
  logic                  w2v_q, w2v_d;          // a second walk starts after this one
  tid_t                  w2t_q, w2t_d;

  // Copy engine.
  logic                  copy_busy_q, copy_busy_d;
  logic                  copy_err_q, copy_err_d;
  msg_t                  copy_buf_q, copy_buf_d;
  logic [4:0]            copy_words_q, copy_words_d;
  logic [4:0]            copy_idx_q, copy_idx_d;
  logic                  job_valid_q, job_valid_d;
  dma_job_t              job_q, job_d;

  // ---------------------------------------------------------------- derived from the state
  logic [MaxThreads-1:0] inq;       // in a ready queue
  logic [4:0]            nvalid;
  always_comb begin
    for (int unsigned t = 0; t < MaxThreads; t++) inq[t] = valid_q[t] && tstate_q[t] == RtosThreadStateReady;
  end
  assign nvalid = 5'(count_ones(scan_t'(valid_q)));

  // Threads waiting with wait kind k (none for RtosWaitKindNone).
  function automatic logic [MaxThreads-1:0] waiting(rtos_wait_kind_e k);
    logic [MaxThreads-1:0] set;
    for (int unsigned t = 0; t < MaxThreads; t++) begin
      set[t] = valid_q[t] && tstate_q[t] == RtosThreadStateWaiting && k != RtosWaitKindNone && wkind_q[t] == k;
    end
    return set;
  endfunction

  // The best thread of a set: the highest eprio, among equals the lowest TID (0 if none).
  function automatic tid_t best_of(logic [MaxThreads-1:0] set);
    tid_t  best;
    prio_t best_p;
    logic  any;
    best   = '0;
    best_p = '0;
    any    = 1'b0;
    for (int unsigned t = 0; t < MaxThreads; t++) begin
      if (set[t] && (!any || higher(eprio_q[t], best_p))) begin
        best   = tid_t'(t);
        best_p = eprio_q[t];
        any    = 1'b1;
      end
    end
    return best;
  endfunction

  // Ready queues and scheduler.
  logic                          rm_en, add_en, rot_en;
  tid_t                          rm_t, add_t;
  prio_t                         rm_p, add_p, rot_p;
  logic [NumPrio-1:0][TidW-1:0]    rq_head;
  logic [MaxThreads-1:0][TidW-1:0] rq_next;
  prio_t                         top_p;
  logic                          any_ready;

  couplet_rtos_readyq #(
    .MaxThreads    (MaxThreads),
    .NumPrio       (NumPrio),
    .PrioAscending (PrioAscending)
  ) u_readyq (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .queued_i (inq),
    .rm_en_i  (rm_en),
    .rm_t_i   (rm_t),
    .rm_p_i   (rm_p),
    .add_en_i (add_en),
    .add_t_i  (add_t),
    .add_p_i  (add_p),
    .rot_en_i (rot_en),
    .rot_p_i  (rot_p),
    .head_o   (rq_head),
    .next_o   (rq_next),
    .top_o    (top_p),
    .any_o    (any_ready)
  );

  // Threads owning a mutex.
  logic [MaxThreads-1:0] owns;
  always_comb begin
    owns = '0;
    for (int unsigned m = 0; m < NumMutex; m++) begin
      if (m_alloc_q[m] && m_locked_q[m]) owns[m_owner_q[m]] = 1'b1;
    end
  end

  logic cur_ready, preempt_now;
  assign cur_ready   = cur_v_q && inq[cur_q];
  assign preempt_now = !cur_v_q   ? any_ready :
                       !cur_ready ? 1'b1 :
                       (any_ready && higher(top_p, eprio_q[cur_q]));

  logic [7:0] cur8;
  assign cur8 = cur_v_q ? 8'(cur_q) : RTOS_TID_NONE;

  // ---------------------------------------------------------------- command decode
  logic         is_call;   // the command runs an action
  rtos_action_e act;
  logic [31:0]  arg_a, arg_b;
  always_comb begin
    logic [5:0] k;
    k       = cmd_q.index[5:0];
    is_call = 1'b0;
    arg_a   = cmd_q.op_a;
    arg_b   = cmd_q.op_b;
    if (cmd_q.op == AccelOpExec && !cmd_q.index[6]) begin
      is_call = is_action(k);
    end else if (cmd_q.op == AccelOpRead && cmd_q.index >= IdxCall0) begin
      k       = 6'(cmd_q.index - IdxCall0);
      is_call = is_action(k);
      arg_a   = arg_a_q;
      arg_b   = arg_b_q;
    end
    act = rtos_action_e'(k);
  end

  // Ids in arg_a, and whether they name an allocated object.
  tid_t             a_tid;
  logic [MIdW-1:0]  a_mid;
  logic [SIdW-1:0]  a_sid;
  logic [QIdW-1:0]  a_qid;
  logic             tid_ok, mid_ok, sid_ok, qid_ok;
  assign a_tid  = arg_a[TidW-1:0];
  assign a_mid  = arg_a[MIdW-1:0];
  assign a_sid  = arg_a[SIdW-1:0];
  assign a_qid  = arg_a[QIdW-1:0];
  assign tid_ok = arg_a < 32'(MaxThreads) && valid_q[a_tid];
  assign mid_ok = arg_a < 32'(NumMutex) && m_alloc_q[a_mid];
  assign sid_ok = arg_a < 32'(NumSem) && s_alloc_q[a_sid];
  assign qid_ok = arg_a < 32'(NumQueue) && q_alloc_q[a_qid];

  // ---------------------------------------------------------------- waiters of the object
  // The waiter set of the command's object, its size, and its best member (best_of).
  rtos_wait_kind_e            ws_k1, ws_k2;
  logic [MaxThreads-1:0] ws;
  logic                  ws_any;
  logic [4:0]            ws_cnt;
  tid_t                  ws_best;
  always_comb begin
    unique case (act)
      RtosActionMutexUnlock, RtosActionMutexInfo: begin ws_k1 = RtosWaitKindMutex; ws_k2 = RtosWaitKindMutex; end
      RtosActionSemFree, RtosActionSemGive, RtosActionSemInfo: begin ws_k1 = RtosWaitKindSem; ws_k2 = RtosWaitKindSem; end
      RtosActionQueueSend: begin ws_k1 = RtosWaitKindQueueRecv; ws_k2 = RtosWaitKindQueueRecv; end
      RtosActionQueueRecv, RtosActionQueueReset: begin ws_k1 = RtosWaitKindQueueSend; ws_k2 = RtosWaitKindQueueSend; end
      RtosActionQueueFree, RtosActionQueueInfo: begin ws_k1 = RtosWaitKindQueueSend; ws_k2 = RtosWaitKindQueueRecv; end
      default: begin ws_k1 = RtosWaitKindNone; ws_k2 = RtosWaitKindNone; end
    endcase
    for (int unsigned t = 0; t < MaxThreads; t++) ws[t] = 32'(wid_q[t]) == arg_a;
    ws = ws & (waiting(ws_k1) | waiting(ws_k2));
  end
  assign ws_any  = |ws;
  assign ws_best = best_of(ws);
  assign ws_cnt  = 5'(count_ones(scan_t'(ws)));

  // ---------------------------------------------------------------- inheritance step
  // eprio of wtid_q: its bprio raised to the eprio of every thread waiting on a mutex it owns.
  logic [MaxThreads-1:0] walk_ws;   // the threads waiting on a mutex wtid_q owns
  tid_t                  walk_top;
  prio_t                 walk_eprio;
  always_comb begin
    for (int unsigned w = 0; w < MaxThreads; w++) begin
      walk_ws[w] = m_owner_q[wid_q[w][MIdW-1:0]] == wtid_q;
    end
    walk_ws = walk_ws & waiting(RtosWaitKindMutex);
  end
  assign walk_top   = best_of(walk_ws);
  assign walk_eprio = (|walk_ws && higher(eprio_q[walk_top], bprio_q[wtid_q])) ?
                      eprio_q[walk_top] : bprio_q[wtid_q];

  // ---------------------------------------------------------------- lowest free entries
  // The free sets are signals of their own: scan_t'(~x) would extend x before inverting it and
  // so add free entries beyond the table.
  logic [MaxThreads-1:0] t_free;
  logic [NumMutex-1:0]   m_free;
  logic [NumSem-1:0]     s_free;
  logic [NumQueue-1:0]   q_free;
  logic                  free_t_ok, free_m_ok, free_s_ok, free_q_ok;
  tid_t                  free_t;
  logic [MIdW-1:0]       free_m;
  logic [SIdW-1:0]       free_s;
  logic [QIdW-1:0]       free_q;
  assign t_free    = ~valid_q;
  assign m_free    = ~m_alloc_q;
  assign s_free    = ~s_alloc_q;
  assign q_free    = ~q_alloc_q;
  assign free_t_ok = |t_free;
  assign free_m_ok = |m_free;
  assign free_s_ok = |s_free;
  assign free_q_ok = |q_free;
  assign free_t    = tid_t'(lowest_one(scan_t'(t_free)));
  assign free_m    = MIdW'(lowest_one(scan_t'(m_free)));
  assign free_s    = SIdW'(lowest_one(scan_t'(s_free)));
  assign free_q    = QIdW'(lowest_one(scan_t'(q_free)));

  // THREAD_FIND: the lowest valid node holding arg_a.
  logic [MaxThreads-1:0] holds;
  logic                  find_ok;
  tid_t                  find_t;
  always_comb begin
    for (int unsigned t = 0; t < MaxThreads; t++) holds[t] = valid_q[t] && tcb_q[t] == arg_a;
  end
  assign find_ok = |holds;
  assign find_t  = tid_t'(lowest_one(scan_t'(holds)));

  // The queue's ring slots: the one a send stores into (the tail), the one a receive takes (rd)
  // and the one a FRONT send stores into (before rd, which becomes the new rd).
  logic [SlotW-1:0] slot_wr, slot_rd, slot_fr;
  logic [2:0]       rd_next, rd_prev;
  always_comb begin
    logic [3:0] place;
    logic [3:0] depth;
    depth   = q_depth_q[a_qid];
    place   = 4'(q_rd_q[a_qid]) + q_count_q[a_qid];
    if (place >= depth) place = place - depth;
    rd_next = (4'(q_rd_q[a_qid]) + 4'd1 >= depth) ? 3'd0 : q_rd_q[a_qid] + 3'd1;
    rd_prev = (q_rd_q[a_qid] == 3'd0) ? 3'(depth - 4'd1) : q_rd_q[a_qid] - 3'd1;
    slot_wr = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(place));
    slot_rd = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(q_rd_q[a_qid]));
    slot_fr = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(rd_prev));
  end

  // ---------------------------------------------------------------- execute
  logic  exec;
  assign exec = cmd_v_q;

  logic  rsp_fin;            // the response becomes valid next cycle
  logic  copy_go;            // start a message copy
  tid_t  copy_rcv;           // to this receiver's buffer
  logic  status_rd;          // STATUS is read: clears the copy error

  // Whether the caller may start to wait: it must exist and not wait already.
  rtos_code_e block_st;
  assign block_st = !cur_v_q                    ? RtosCodeNoCaller :
                    tstate_q[cur_q] == RtosThreadStateWaiting ? RtosCodeBadArg   : RtosCodeOk;

  always_comb begin
    rtos_call_reg_t res;
    logic [31:0]  data;
    logic         err;
    logic         result_word;
    logic         walk_go, walk_go2;
    tid_t         walk_t, walk_t2;
    logic [7:0]   idx1;
    logic         wr_ok;
    prio_t        prio_b;
    logic         changed, last;
    logic [7:0]   ix;
    logic [31:0]  v;
    tid_t         nxt;
    rtos_thread_state_e ns;
    logic         wake;      // the best waiter (ws_best) stops waiting and becomes ready
    logic         block;     // the caller leaves its ready queue and waits on (blk_kind, blk_id)
    rtos_wait_kind_e   blk_kind;
    logic [2:0]   blk_id;

    valid_d    = valid_q;
    tcb_d      = tcb_q;
    tstate_d   = tstate_q;
    bprio_d    = bprio_q;
    eprio_d    = eprio_q;
    wkind_d    = wkind_q;
    wid_d      = wid_q;
    wptr_d     = wptr_q;
    cur_v_d    = cur_v_q;
    cur_d      = cur_q;
    m_alloc_d  = m_alloc_q;
    m_locked_d = m_locked_q;
    m_owner_d  = m_owner_q;
    s_alloc_d  = s_alloc_q;
    s_count_d  = s_count_q;
    s_max_d    = s_max_q;
    q_alloc_d  = q_alloc_q;
    q_words_d  = q_words_q;
    q_depth_d  = q_depth_q;
    q_rd_d     = q_rd_q;
    q_count_d  = q_count_q;
    msg_d      = msg_q;
    arg_a_d    = arg_a_q;
    arg_b_d    = arg_b_q;
    ring_we    = 1'b0;
    ring_waddr = slot_wr;

    // Ready-queue operations (couplet_rtos_readyq): remove, then append; both on move one thread.
    rm_en  = 1'b0;
    rm_t   = '0;
    rm_p   = '0;
    add_en = 1'b0;
    add_t  = '0;
    add_p  = '0;
    rot_en = 1'b0;
    rot_p  = top_p;

    walk_d   = walk_q;
    wtid_d   = wtid_q;
    wsteps_d = wsteps_q;
    w2v_d    = w2v_q;
    w2t_d    = w2t_q;
    walk_go  = 1'b0;
    walk_go2 = 1'b0;
    walk_t   = '0;
    walk_t2  = '0;

    rsp_fin   = 1'b0;
    rsp_d     = rsp_q;
    rsp_pre_d = rsp_pre_q;
    copy_go   = 1'b0;
    copy_rcv  = ws_best;
    status_rd = 1'b0;

    res         = '{value: 16'd0, tid: RTOS_TID_NONE, rsvd6: 2'd0, preempt: 1'b0, blocked: 1'b0,
                    status: RtosCodeOk};
    data        = '0;
    err         = 1'b0;
    result_word = 1'b0;
    idx1        = 8'(cmd_q.index) + 8'd1;
    wr_ok       = 1'b0;
    prio_b      = arg_b[PrioW-1:0];
    changed     = 1'b0;
    last        = 1'b0;
    ix          = '0;
    v           = '0;
    nxt         = rq_head[top_p];
    ns          = (act == RtosActionThreadUnblock) ? RtosThreadStateReady : rtos_thread_state_e'(arg_b[1:0]);
    wake        = 1'b0;
    block       = 1'b0;
    blk_kind    = RtosWaitKindNone;
    blk_id      = '0;

    if (walk_q) begin
      // ---------------------------------------------- one step of the inheritance walk
      changed = valid_q[wtid_q] && walk_eprio != eprio_q[wtid_q];
      last    = wsteps_q == 4'(MaxSteps - 1);
      if (changed) begin
        eprio_d[wtid_q] = walk_eprio;
        if (inq[wtid_q]) begin
          rm_en  = 1'b1;
          rm_t   = wtid_q;
          rm_p   = eprio_q[wtid_q];
          add_en = 1'b1;
          add_t  = wtid_q;
          add_p  = walk_eprio;
        end
      end
      wsteps_d = wsteps_q + 4'd1;
      if (changed && !last && tstate_q[wtid_q] == RtosThreadStateWaiting && wkind_q[wtid_q] == RtosWaitKindMutex) begin
        wtid_d = m_owner_q[wid_q[wtid_q][MIdW-1:0]];
      end else if (w2v_q && !last) begin
        wtid_d = w2t_q;
        w2v_d  = 1'b0;
      end else begin
        walk_d  = 1'b0;
        w2v_d   = 1'b0;
        rsp_fin = 1'b1;
      end
    end else if (exec) begin
      // ---------------------------------------------- registers
      unique case (cmd_q.op)
        AccelOpRead: begin
          if (32'(cmd_q.index - IdxMsg0) < 32'(MsgWords)) begin
            data = msg_q[WordW'(cmd_q.index - IdxMsg0)];
          end else if (cmd_q.index == IdxArgA) begin
            data = arg_a_q;
          end else if (cmd_q.index == IdxArgB) begin
            data = arg_b_q;
          end else if (cmd_q.index == IdxStatus) begin
            data      = 32'(rtos_status_reg_t'{tid: cur8, rsvd2: '0, copy_error: copy_err_q,
                                                  copy_busy: copy_busy_q});
            status_rd = 1'b1;
          end else if (cmd_q.index == IdxConfig) begin
            data = ConfigWord;
          end else if (!is_call) begin
            err = 1'b1;
          end
        end
        AccelOpWrite, AccelOpWrite2: begin
          // Every addressed register must be writable, else nothing is written.
          wr_ok = (32'(cmd_q.index - IdxMsg0) < 32'(MsgWords) || cmd_q.index == IdxArgA ||
                   cmd_q.index == IdxArgB) &&
                  (cmd_q.op == AccelOpWrite || 32'(idx1 - 8'(IdxMsg0)) < 32'(MsgWords) ||
                   idx1 == 8'(IdxArgA) || idx1 == 8'(IdxArgB));
          err = !wr_ok;
          if (wr_ok) begin
            for (int unsigned i = 0; i < 2; i++) begin
              ix = 8'(cmd_q.index) + 8'(i);
              v  = (i == 0) ? cmd_q.op_a : cmd_q.op_b;
              if (i == 0 || cmd_q.op == AccelOpWrite2) begin
                if (32'(ix - 8'(IdxMsg0)) < 32'(MsgWords)) msg_d[WordW'(ix - 8'(IdxMsg0))] = v;
                if (ix == 8'(IdxArgA)) arg_a_d = v;
                if (ix == 8'(IdxArgB)) arg_b_d = v;
              end
            end
          end
        end
        AccelOpExec: err = !is_call;
        default:     err = 1'b1;
      endcase

      // ---------------------------------------------- actions
      if (is_call) begin
        result_word = 1'b1;
        unique case (act)
          // ---------------------------------------- threads
          RtosActionThreadAdd: begin
            if (32'(arg_b[3:0]) >= 32'(NumPrio)) begin
              res.status = RtosCodeBadArg;
            end else if (!free_t_ok) begin
              res.status = RtosCodeTableFull;
            end else begin
              valid_d[free_t]  = 1'b1;
              tcb_d[free_t]    = arg_a;
              bprio_d[free_t]  = prio_b;
              eprio_d[free_t]  = prio_b;
              wkind_d[free_t]  = RtosWaitKindNone;
              wid_d[free_t]    = '0;
              wptr_d[free_t]   = '0;
              tstate_d[free_t] = arg_b[8] ? RtosThreadStateReady : RtosThreadStateSuspended;
              if (arg_b[8]) begin
                add_en = 1'b1;
                add_t  = free_t;
                add_p  = prio_b;
              end
              res.tid = 8'(free_t);
            end
          end
          RtosActionThreadRemove: begin
            if (!tid_ok) begin
              res.status = RtosCodeNoId;
            end else if (owns[a_tid]) begin
              res.status = RtosCodeBusy;
            end else begin
              if (inq[a_tid]) begin
                rm_en = 1'b1;
                rm_t  = a_tid;
                rm_p  = eprio_q[a_tid];
              end
              if (tstate_q[a_tid] == RtosThreadStateWaiting && wkind_q[a_tid] == RtosWaitKindMutex && Inherit) begin
                walk_go = 1'b1;
                walk_t  = m_owner_q[wid_q[a_tid][MIdW-1:0]];
              end
              valid_d[a_tid]  = 1'b0;
              tstate_d[a_tid] = RtosThreadStateSuspended;
              wkind_d[a_tid]  = RtosWaitKindNone;
              wid_d[a_tid]    = '0;
              wptr_d[a_tid]   = '0;
              if (cur_v_q && cur_q == a_tid) cur_v_d = 1'b0;
            end
          end
          RtosActionThreadSetState, RtosActionThreadUnblock: begin
            if (!tid_ok) begin
              res.status = RtosCodeNoId;
            end else if (act == RtosActionThreadSetState &&
                         !(arg_b == 32'd0 || arg_b == 32'd2 || arg_b == 32'd3)) begin
              res.status = RtosCodeBadArg;
            end else if (act == RtosActionThreadUnblock && tstate_q[a_tid] != RtosThreadStateWaiting) begin
              res.status = RtosCodeBadArg;
            end else if (tstate_q[a_tid] != ns) begin
              if (inq[a_tid]) begin
                rm_en = 1'b1;
                rm_t  = a_tid;
                rm_p  = eprio_q[a_tid];
              end
              if (tstate_q[a_tid] == RtosThreadStateWaiting) begin
                if (wkind_q[a_tid] == RtosWaitKindMutex && Inherit) begin
                  walk_go = 1'b1;
                  walk_t  = m_owner_q[wid_q[a_tid][MIdW-1:0]];
                end
                wkind_d[a_tid] = RtosWaitKindNone;
                wid_d[a_tid]   = '0;
                wptr_d[a_tid]  = '0;
              end
              tstate_d[a_tid] = ns;
              if (ns == RtosThreadStateReady) begin
                add_en = 1'b1;
                add_t  = a_tid;
                add_p  = eprio_q[a_tid];
              end
              if (act == RtosActionThreadUnblock) res.tid = 8'(a_tid);
            end
          end
          RtosActionThreadSetPrio: begin
            if (!tid_ok) begin
              res.status = RtosCodeNoId;
            end else if (arg_b >= 32'(NumPrio)) begin
              res.status = RtosCodeBadArg;
            end else begin
              bprio_d[a_tid] = prio_b;
              if (Inherit) begin
                walk_go = 1'b1;
                walk_t  = a_tid;
              end else begin
                eprio_d[a_tid] = prio_b;
                if (inq[a_tid] && eprio_q[a_tid] != prio_b) begin
                  rm_en  = 1'b1;
                  rm_t   = a_tid;
                  rm_p   = eprio_q[a_tid];
                  add_en = 1'b1;
                  add_t  = a_tid;
                  add_p  = prio_b;
                end
              end
            end
          end
          RtosActionThreadInfo: begin
            if (!tid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = rtos_thread_info_t'{wait_id:   wid_q[a_tid],
                                              wait_kind: wkind_q[a_tid],
                                              state:     tstate_q[a_tid],
                                              bprio:     4'(bprio_q[a_tid]),
                                              eprio:     4'(eprio_q[a_tid])};
            end
          end
          RtosActionThreadTcb: begin
            result_word = 1'b0;
            data        = tid_ok ? tcb_q[a_tid] : 32'd0;
          end
          RtosActionThreadFind: begin
            if (!find_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.tid = 8'(find_t);
            end
          end
          RtosActionSchedule: begin
            result_word = 1'b0;
            if (cur_ready && eprio_q[cur_q] == top_p && rq_head[top_p] == cur_q) begin
              rot_en = 1'b1;
              nxt    = rq_next[cur_q];
            end
            cur_v_d = any_ready;
            cur_d   = any_ready ? nxt : cur_q;
            data    = any_ready ? tcb_q[nxt] : 32'd0;
          end
          RtosActionCurrent: begin
            res.tid   = cur8;
            res.value = 16'(nvalid);
          end

          // ---------------------------------------- mutexes
          RtosActionMutexAlloc: begin
            if (!free_m_ok) begin
              res.status = RtosCodeTableFull;
            end else begin
              m_alloc_d[free_m]  = 1'b1;
              m_locked_d[free_m] = 1'b0;
              m_owner_d[free_m]  = '0;
              res.tid            = 8'(free_m);
            end
          end
          RtosActionMutexFree: begin
            if (!mid_ok) begin
              res.status = RtosCodeNoId;
            end else if (m_locked_q[a_mid]) begin
              res.status = RtosCodeBusy;
            end else begin
              m_alloc_d[a_mid] = 1'b0;
            end
          end
          RtosActionMutexLock: begin
            if (!mid_ok) begin
              res.status = RtosCodeNoId;
            end else if (!cur_v_q) begin
              res.status = RtosCodeNoCaller;
            end else if (!m_locked_q[a_mid]) begin
              m_locked_d[a_mid] = 1'b1;
              m_owner_d[a_mid]  = cur_q;
            end else if (m_owner_q[a_mid] == cur_q) begin
              res.status = RtosCodeBadArg;
            end else if (!arg_b[0]) begin
              res.status = RtosCodeUnavailable;
            end else if (block_st != RtosCodeOk) begin
              res.status = block_st;
            end else begin
              block    = 1'b1;
              blk_kind = RtosWaitKindMutex;
              blk_id   = 3'(a_mid);
              if (Inherit) begin
                walk_go = 1'b1;
                walk_t  = m_owner_q[a_mid];
              end
            end
          end
          RtosActionMutexUnlock: begin
            if (!mid_ok) begin
              res.status = RtosCodeNoId;
            end else if (!cur_v_q) begin
              res.status = RtosCodeNoCaller;
            end else if (!m_locked_q[a_mid] || m_owner_q[a_mid] != cur_q) begin
              res.status = RtosCodeNotOwner;
            end else if (ws_any) begin
              // The best waiter takes the mutex; then both owners' eprio are recomputed, the
              // new owner's first (it gained the remaining waiters).
              m_owner_d[a_mid] = ws_best;
              wake             = 1'b1;
              if (Inherit) begin
                walk_go  = 1'b1;
                walk_t   = ws_best;
                walk_go2 = 1'b1;
                walk_t2  = cur_q;
              end
            end else begin
              // Without waiters the mutex gave its owner no priority: nothing to recompute.
              m_locked_d[a_mid] = 1'b0;
            end
          end
          RtosActionMutexInfo: begin
            if (!mid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.tid   = m_locked_q[a_mid] ? 8'(m_owner_q[a_mid]) : RTOS_TID_NONE;
              res.value = 16'(ws_cnt);
            end
          end

          // ---------------------------------------- semaphores
          RtosActionSemAlloc: begin
            if (arg_b == 32'd0 || arg_b > 32'hFFFF || arg_a > arg_b) begin
              res.status = RtosCodeBadArg;
            end else if (!free_s_ok) begin
              res.status = RtosCodeTableFull;
            end else begin
              s_alloc_d[free_s] = 1'b1;
              s_count_d[free_s] = arg_a[15:0];
              s_max_d[free_s]   = arg_b[15:0];
              res.tid           = 8'(free_s);
            end
          end
          RtosActionSemFree: begin
            if (!sid_ok) begin
              res.status = RtosCodeNoId;
            end else if (ws_any) begin
              res.status = RtosCodeBusy;
            end else begin
              s_alloc_d[a_sid] = 1'b0;
            end
          end
          RtosActionSemTake: begin
            if (!sid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = s_count_q[a_sid];
              if (s_count_q[a_sid] != 16'd0) begin
                s_count_d[a_sid] = s_count_q[a_sid] - 16'd1;
                res.value        = s_count_q[a_sid] - 16'd1;
              end else if (!arg_b[0]) begin
                res.status = RtosCodeUnavailable;
              end else if (block_st != RtosCodeOk) begin
                res.status = block_st;
              end else begin
                block    = 1'b1;
                blk_kind = RtosWaitKindSem;
                blk_id   = 3'(a_sid);
              end
            end
          end
          RtosActionSemGive: begin
            if (!sid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = s_count_q[a_sid];
              if (ws_any) begin
                wake = 1'b1;
              end else if (s_count_q[a_sid] == s_max_q[a_sid]) begin
                res.status = RtosCodeBadArg;
              end else begin
                s_count_d[a_sid] = s_count_q[a_sid] + 16'd1;
                res.value        = s_count_q[a_sid] + 16'd1;
              end
            end
          end
          RtosActionSemInfo: begin
            if (!sid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = s_count_q[a_sid];
              res.tid   = 8'(ws_cnt);
            end
          end

          // ---------------------------------------- queues
          RtosActionQueueAlloc: begin
            if (arg_a == 32'd0 || arg_a > 32'(MsgWords) || arg_b == 32'd0 ||
                arg_b > 32'(QueueDepth)) begin
              res.status = RtosCodeBadArg;
            end else if (!free_q_ok) begin
              res.status = RtosCodeTableFull;
            end else begin
              q_alloc_d[free_q] = 1'b1;
              q_words_d[free_q] = arg_a[4:0];
              q_depth_d[free_q] = arg_b[3:0];
              q_rd_d[free_q]    = '0;
              q_count_d[free_q] = '0;
              res.tid           = 8'(free_q);
            end
          end
          RtosActionQueueFree: begin
            if (!qid_ok) begin
              res.status = RtosCodeNoId;
            end else if (ws_any) begin
              res.status = RtosCodeBusy;
            end else begin
              q_alloc_d[a_qid] = 1'b0;
            end
          end
          RtosActionQueueSend: begin
            if (!qid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = 16'(q_count_q[a_qid]);
              if (copy_busy_q) begin
                res.status = RtosCodeBusy;
              end else if (ws_any) begin
                copy_go = 1'b1;
                wake    = 1'b1;
              end else if (q_count_q[a_qid] < q_depth_q[a_qid]) begin
                ring_we          = 1'b1;
                // FRONT (b bit 1): the message becomes the next one received.
                if (arg_b[1]) begin
                  ring_waddr    = slot_fr;
                  q_rd_d[a_qid] = rd_prev;
                end
                q_count_d[a_qid] = q_count_q[a_qid] + 4'd1;
                res.value        = 16'(q_count_q[a_qid] + 4'd1);
              end else if (!arg_b[0]) begin
                res.status = RtosCodeQueueFull;
              end else if (block_st != RtosCodeOk) begin
                res.status = block_st;
              end else begin
                block    = 1'b1;
                blk_kind = RtosWaitKindQueueSend;
                blk_id   = 3'(a_qid);
              end
            end
          end
          RtosActionQueueRecv: begin
            if (!qid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = 16'(q_count_q[a_qid]);
              if (copy_busy_q) begin
                res.status = RtosCodeBusy;
              end else if (q_count_q[a_qid] != 4'd0) begin
                for (int unsigned i = 0; i < MsgWords; i++) begin
                  if (5'(i) < q_words_q[a_qid]) msg_d[i] = ring_q[slot_rd][i];
                end
                // PEEK (b bit 1) leaves the message stored, so no sender gains a place.
                if (!arg_b[1]) begin
                  q_rd_d[a_qid]    = rd_next;
                  q_count_d[a_qid] = q_count_q[a_qid] - 4'd1;
                  res.value        = 16'(q_count_q[a_qid] - 4'd1);
                  wake             = ws_any;
                end
              end else if (!arg_b[0]) begin
                res.status = RtosCodeQueueEmpty;
              end else if (block_st != RtosCodeOk) begin
                res.status = block_st;
              end else begin
                block    = 1'b1;
                blk_kind = RtosWaitKindQueueRecv;
                blk_id   = 3'(a_qid);
              end
            end
          end
          RtosActionQueueInfo: begin
            if (!qid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              res.value = 16'(q_count_q[a_qid]);
              res.tid   = 8'(ws_cnt);
            end
          end
          RtosActionQueueReset: begin
            // A copy in flight does not matter: its message was never stored in the ring. One
            // sender is woken (FreeRTOS's xQueueReset); receivers keep waiting on the empty queue.
            if (!qid_ok) begin
              res.status = RtosCodeNoId;
            end else begin
              q_rd_d[a_qid]    = '0;
              q_count_d[a_qid] = '0;
              wake             = ws_any;
            end
          end
          default: ;
        endcase
        if (wake) begin
          tstate_d[ws_best] = RtosThreadStateReady;
          wkind_d[ws_best]  = RtosWaitKindNone;
          wid_d[ws_best]    = '0;
          // A receiver's buffer is spent (no other waiter holds one).
          if (wkind_q[ws_best] == RtosWaitKindQueueRecv) wptr_d[ws_best] = '0;
          add_en            = 1'b1;
          add_t             = ws_best;
          add_p             = eprio_q[ws_best];
          res.tid           = 8'(ws_best);
        end
        if (block) begin
          if (inq[cur_q]) begin
            rm_en = 1'b1;
            rm_t  = cur_q;
            rm_p  = eprio_q[cur_q];
          end
          tstate_d[cur_q] = RtosThreadStateWaiting;
          wkind_d[cur_q]  = blk_kind;
          wid_d[cur_q]    = blk_id;
          // RECV's waiter keeps where the copy engine is to write its message.
          if (blk_kind == RtosWaitKindQueueRecv) wptr_d[cur_q] = arg_b[31:2];
          res.blocked     = 1'b1;
        end
        // A refused action reports no thread.
        if (res.status != RtosCodeOk) res.tid = RTOS_TID_NONE;
        if (result_word) data = 32'(res);
      end

      walk_d    = walk_go;
      wtid_d    = walk_t;
      wsteps_d  = '0;
      w2v_d     = walk_go2;
      w2t_d     = walk_t2;
      rsp_fin   = !walk_go;
      rsp_d     = '{data: data, err: err};
      rsp_pre_d = result_word && !err;
    end
  end

  // ---------------------------------------------------------------- copy engine
  // SEND snapshots the staging buffer, so MSG may be rewritten while the copy runs. The words
  // are offered only once the DMA has taken the job. An abort before that belongs to another
  // job and is ignored.
  logic out_fire, copy_end;
  assign out_valid_o = copy_busy_q && !job_valid_q && copy_idx_q < copy_words_q;
  assign out_data_o  = copy_buf_q[copy_idx_q[WordW-1:0]];
  assign out_fire    = out_valid_o && out_ready_i;
  assign copy_end    = copy_busy_q && !job_valid_q && (job_done_i || dma_abort_i);

  always_comb begin
    copy_busy_d  = copy_busy_q;
    copy_err_d   = copy_err_q && !status_rd;
    copy_buf_d   = copy_buf_q;
    copy_words_d = copy_words_q;
    copy_idx_d   = copy_idx_q;
    job_valid_d  = job_valid_q && !job_ready_i;
    job_d        = job_q;
    if (out_fire) copy_idx_d = copy_idx_q + 5'd1;
    if (copy_end) begin
      copy_busy_d = 1'b0;
      if (dma_abort_i || job_err_i) copy_err_d = 1'b1;
    end
    if (copy_go) begin
      copy_busy_d  = 1'b1;
      copy_err_d   = 1'b0;
      copy_buf_d   = msg_q;
      copy_words_d = q_words_q[a_qid];
      copy_idx_d   = '0;
      job_valid_d  = 1'b1;
      job_d        = '{src:     32'd0,
                       dst:     {wptr_q[copy_rcv], 2'b00},
                       in_len:  32'd0,
                       out_len: {25'd0, q_words_q[a_qid], 2'b00}};
    end
  end

  // ---------------------------------------------------------------- command port
  assign cmd_ready_o = !cmd_v_q && !walk_q && (!rsp_valid_q || rsp_ready_i);
  assign cmd_v_d     = cmd_valid_i && cmd_ready_o;
  assign cmd_d       = cmd_v_d ? cmd_i : cmd_q;
  assign rsp_valid_d = (rsp_valid_q && !rsp_ready_i) || rsp_fin;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q    <= '0;
      cur_v_q    <= 1'b0;
      cur_q      <= '0;
      m_alloc_q  <= '0;
      m_locked_q <= '0;
      s_alloc_q  <= '0;
      q_alloc_q  <= '0;
      for (int unsigned t = 0; t < MaxThreads; t++) begin
        tcb_q[t]    <= '0;
        tstate_q[t] <= RtosThreadStateSuspended;
        bprio_q[t]  <= '0;
        eprio_q[t]  <= '0;
        wkind_q[t]  <= RtosWaitKindNone;
        wid_q[t]    <= '0;
        wptr_q[t]   <= '0;
      end
      for (int unsigned m = 0; m < NumMutex; m++) m_owner_q[m] <= '0;
      for (int unsigned s = 0; s < NumSem; s++) begin
        s_count_q[s] <= '0;
        s_max_q[s]   <= '0;
      end
      for (int unsigned q = 0; q < NumQueue; q++) begin
        q_words_q[q] <= '0;
        q_depth_q[q] <= '0;
        q_rd_q[q]    <= '0;
        q_count_q[q] <= '0;
      end
      msg_q        <= '0;
      arg_a_q      <= '0;
      arg_b_q      <= '0;
      cmd_v_q      <= 1'b0;
      cmd_q        <= '0;
      rsp_valid_q  <= 1'b0;
      rsp_q        <= '0;
      rsp_pre_q    <= 1'b0;
      walk_q       <= 1'b0;
      wtid_q       <= '0;
      wsteps_q     <= '0;
      w2v_q        <= 1'b0;
      w2t_q        <= '0;
      copy_busy_q  <= 1'b0;
      copy_err_q   <= 1'b0;
      copy_buf_q   <= '0;
      copy_words_q <= '0;
      copy_idx_q   <= '0;
      job_valid_q  <= 1'b0;
      job_q        <= '0;
    end else begin
      valid_q      <= valid_d;
      tcb_q        <= tcb_d;
      tstate_q     <= tstate_d;
      bprio_q      <= bprio_d;
      eprio_q      <= eprio_d;
      wkind_q      <= wkind_d;
      wid_q        <= wid_d;
      wptr_q       <= wptr_d;
      cur_v_q      <= cur_v_d;
      cur_q        <= cur_d;
      m_alloc_q    <= m_alloc_d;
      m_locked_q   <= m_locked_d;
      m_owner_q    <= m_owner_d;
      s_alloc_q    <= s_alloc_d;
      s_count_q    <= s_count_d;
      s_max_q      <= s_max_d;
      q_alloc_q    <= q_alloc_d;
      q_words_q    <= q_words_d;
      q_depth_q    <= q_depth_d;
      q_rd_q       <= q_rd_d;
      q_count_q    <= q_count_d;
      msg_q        <= msg_d;
      arg_a_q      <= arg_a_d;
      arg_b_q      <= arg_b_d;
      cmd_v_q      <= cmd_v_d;
      cmd_q        <= cmd_d;
      rsp_valid_q  <= rsp_valid_d;
      rsp_q        <= rsp_d;
      rsp_pre_q    <= rsp_pre_d;
      walk_q       <= walk_d;
      wtid_q       <= wtid_d;
      wsteps_q     <= wsteps_d;
      w2v_q        <= w2v_d;
      w2t_q        <= w2t_d;
      copy_busy_q  <= copy_busy_d;
      copy_err_q   <= copy_err_d;
      copy_buf_q   <= copy_buf_d;
      copy_words_q <= copy_words_d;
      copy_idx_q   <= copy_idx_d;
      job_valid_q  <= job_valid_d;
      job_q        <= job_d;
    end
  end

  // The message ring is a memory: written by slot, never reset.
  always_ff @(posedge clk_i) begin
    if (ring_we) ring_q[ring_waddr] <= msg_q;
  end

  // ---------------------------------------------------------------- outputs
  always_comb begin
    rsp_o = rsp_q;
    if (rsp_pre_q) rsp_o.data[5] = preempt_now;
  end
  assign rsp_valid_o = rsp_valid_q;
  assign job_valid_o = job_valid_q;
  assign job_o       = job_q;
  assign irq_o       = copy_err_q;

  // Jobs read nothing (in_len = 0): stray input words are drained so a job can never hang.
  assign in_ready_o = 1'b1;
  logic unused_in;
  assign unused_in = ^{in_valid_i, in_data_i};

`ifndef SYNTHESIS
  // Simulation only: not instantiated in synthesis, so the checkers leave no boundary in the
  // netlist (a kept, empty instance still changed how Yosys mapped the RTOS engine).
  // The command port's rules, checked in every simulation (couplet_accel_port_assert).
  couplet_accel_port_assert #(.MaxOutstanding(1)) u_port_assert (
    .clk_i, .rst_ni, .cmd_valid_i, .cmd_ready_i(cmd_ready_o), .cmd_i,
    .rsp_valid_i(rsp_valid_o), .rsp_ready_i, .rsp_i(rsp_o)
  );
`endif

endmodule
