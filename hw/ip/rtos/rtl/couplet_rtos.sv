// Hardware RTOS kernel services after ChamelIoT (hw/ip/rtos/README.md), in its units (the
// paper's Figure 3): this module is the control unit (the command port, the registers and the
// response), couplet_rtos_threads the thread manager, couplet_rtos_sched the scheduler with the
// ready queues, couplet_rtos_mutex the mutexes with the priority-inheritance walk,
// couplet_rtos_sem the semaphores and couplet_rtos_queue the message queues with their copy
// engine. Each unit holds its own state and runs the actions of its kind; an object action's
// effect on threads (wake the best waiter, block the caller) is applied by the thread manager,
// which also derives every ready-queue operation.
//
// Pipeline. A command is taken into cmd_q (cycle c) and executed from there in c+1, so no path
// runs from the bus into the action logic; the response register is written in c+1 and valid in
// c+2. An action that changes who waits on a mutex (PrioInherit) first walks the inheritance
// chain, one owner per cycle, and answers one cycle after the last step. The result word's
// preempt bit depends on the state after the walk, so it is taken from the state registers
// while the response waits: nothing can change that state then, as no command is taken while
// a response is pending and the copy engine touches no thread state. A command is taken at the
// earliest in the first cycle of its predecessor's response, so an action runs two cycles after
// the previous action or inheritance step at the earliest: the scheduler uses the cycle between
// to apply the ready-queue operation a node change asked for (couplet_rtos_sched).
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
  input  logic           clk_i,
  input  logic           rst_ni,
  input  accel_cmd_req_t cmd_req_i,
  output logic           cmd_ready_o,
  output accel_cmd_rsp_t cmd_rsp_o,
  output accel_mem_req_t mem_req_o,
  input  accel_mem_rsp_t mem_rsp_i,
  output logic           irq_o
);

  // ---------------------------------------------------------------- parameters
  // The ranges are those of the description (hw/ip/rtos/data/rtos.toml [[param]]), which the
  // configuration is checked against too; MSG's words must hold the largest message.
  if (MaxThreads < RTOS_PARAM_MAX_THREADS_MIN || MaxThreads > RTOS_PARAM_MAX_THREADS_MAX ||
      NumPrio < RTOS_PARAM_PRIORITIES_MIN || NumPrio > RTOS_PARAM_PRIORITIES_MAX ||
      NumMutex < RTOS_PARAM_MUTEXES_MIN || NumMutex > RTOS_PARAM_MUTEXES_MAX ||
      NumSem < RTOS_PARAM_SEMAPHORES_MIN || NumSem > RTOS_PARAM_SEMAPHORES_MAX ||
      NumQueue < RTOS_PARAM_QUEUES_MIN || NumQueue > RTOS_PARAM_QUEUES_MAX ||
      MsgWords < RTOS_PARAM_MESSAGE_WORDS_MIN || MsgWords > RTOS_PARAM_MESSAGE_WORDS_MAX ||
      RTOS_PARAM_MESSAGE_WORDS_MAX > RTOS_MSG_COUNT ||
      QueueDepth < RTOS_PARAM_QUEUE_DEPTH_MIN || QueueDepth > RTOS_PARAM_QUEUE_DEPTH_MAX ||
      PrioAscending > 1 || PrioInherit > 1 ||
      (ScanW & (ScanW - 1)) != 0) begin : gen_param_check  // best_of's tournament
    $error("couplet_rtos: parameter out of range (hw/ip/rtos/data/rtos.toml)");
  end

  localparam int unsigned TidW  = $clog2(MaxThreads);
  localparam int unsigned PrioW = $clog2(NumPrio);
  localparam int unsigned WordW = (MsgWords > 1) ? $clog2(MsgWords) : 1;

  typedef logic [TidW-1:0]           tid_t;
  typedef logic [PrioW-1:0]          prio_t;
  typedef logic [MsgWords-1:0][31:0] msg_t;

  localparam rtos_config_reg_t ConfigWord = '{
    queue_depth_m1: 3'(QueueDepth - 1),
    msg_words:      5'(MsgWords),
    num_queue:      4'(NumQueue),
    num_sem:        4'(NumSem),
    num_mutex:      4'(NumMutex),
    prio_inherit:   PrioInherit[0],
    prio_ascending: PrioAscending[0],
    num_prio:       5'(NumPrio),
    max_threads:    5'(MaxThreads)
  };

  // ---------------------------------------------------------------- command front end
  // Registers MSG (the staging buffer), ARG_A, ARG_B; the command pipeline and the response.
  msg_t        msg_q, msg_d;
  logic [31:0] arg_a_q, arg_a_d, arg_b_q, arg_b_d;
  logic        cmd_v_q, cmd_v_d;
  accel_cmd_t  cmd_q, cmd_d;
  logic        rsp_valid_q, rsp_valid_d;
  accel_rsp_t  rsp_q, rsp_d;
  logic        rsp_pre_q, rsp_pre_d;  // rsp_q is a result word: add preempt

  // The command's action: AccelOpExec at index k, or a read of CALL[k] with ARG_A and ARG_B.
  logic       is_call;
  rtos_call_t call;
  rtos_unit_e unit;
  always_comb begin
    logic [5:0] k;
    k       = cmd_q.index[5:0];
    is_call = 1'b0;
    call.a  = cmd_q.op_a;
    call.b  = cmd_q.op_b;
    if (cmd_q.op == AccelOpExec && !cmd_q.index[6]) begin
      is_call = is_action(k);
    end else if (cmd_q.op == AccelOpRead && cmd_q.index >= IdxCall0) begin
      k       = 6'(cmd_q.index - IdxCall0);
      is_call = is_action(k);
      call.a  = arg_a_q;
      call.b  = arg_b_q;
    end
    call.act = rtos_action_e'(k);
  end
  assign unit = unit_of(call.act);

  // A command executes in the cycle after it is taken, unless a walk runs (it never does then:
  // no command is taken during a walk).
  logic walk_busy, run, act_run;
  logic [3:0] exec;  // by rtos_unit_e
  assign run     = cmd_v_q && !walk_busy;
  assign act_run = run && is_call;
  always_comb begin
    exec = '0;
    exec[unit] = act_run;
  end

  // ---------------------------------------------------------------- units
  rtos_outcome_t                    res_t, res_m, res_s, res_q, res;
  rtos_waiters_t                    waiters;
  logic [31:2]                      waiter_ptr;
  rtos_code_e                       block_st;
  logic                             raw;
  logic [31:0]                      raw_data;
  logic                             t_walk, t_walk_owner;
  tid_t                             t_walk_t;
  logic [MaxThreads-1:0]            owns, valid, queued, mwait;
  logic [MaxThreads-1:0][2:0]       wid;
  logic [MaxThreads-1:0][PrioW-1:0] bprio, eprio;
  logic                             cur_v;
  tid_t                             cur;
  logic [7:0]                       cur_tid;
  logic                             step, walk_start, walk_done, inherit, handoff;
  tid_t                             step_t;
  prio_t                            step_eprio;
  tid_t                             rq_t, pick;
  logic                             rq_rm, rq_add, any_ready, preempt;
  prio_t                            rq_rm_p, rq_add_p;
  logic [MsgWords-1:0]              q_msg_we;
  msg_t                             q_msg;
  logic                             copy_busy, copy_err, status_rd;

  couplet_rtos_threads #(
    .MaxThreads    (MaxThreads),
    .NumPrio       (NumPrio),
    .PrioAscending (PrioAscending),
    .PrioInherit   (PrioInherit)
  ) u_threads (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .exec_i        (exec[RtosUnitThreads]),
    .call_i        (call),
    .owns_i        (owns),
    .wake_i        (act_run && res.wake),
    .block_i       (act_run && res.block),
    .block_kind_i  (res.kind),
    .block_id_i    (res.id),
    .step_i        (step),
    .step_t_i      (step_t),
    .step_eprio_i  (step_eprio),
    .inherit_i     (inherit),
    .pick_i        (pick),
    .any_ready_i   (any_ready),
    .res_o         (res_t),
    .raw_o         (raw),
    .raw_data_o    (raw_data),
    .waiters_o     (waiters),
    .waiter_ptr_o  (waiter_ptr),
    .block_st_o    (block_st),
    .walk_o        (t_walk),
    .walk_t_o      (t_walk_t),
    .walk_owner_o  (t_walk_owner),
    .rq_t_o        (rq_t),
    .rq_rm_o       (rq_rm),
    .rq_rm_p_o     (rq_rm_p),
    .rq_add_o      (rq_add),
    .rq_add_p_o    (rq_add_p),
    .valid_o       (valid),
    .queued_o      (queued),
    .mwait_o       (mwait),
    .wid_o         (wid),
    .bprio_o       (bprio),
    .eprio_o       (eprio),
    .cur_v_o       (cur_v),
    .cur_o         (cur),
    .cur_tid_o     (cur_tid)
  );

  couplet_rtos_sched #(
    .MaxThreads    (MaxThreads),
    .NumPrio       (NumPrio),
    .PrioAscending (PrioAscending)
  ) u_sched (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .queued_i    (queued),
    .t_i         (rq_t),
    .rm_i        (rq_rm),
    .rm_p_i      (rq_rm_p),
    .add_i       (rq_add),
    .add_p_i     (rq_add_p),
    .cur_v_i     (cur_v),
    .cur_i       (cur),
    .cur_eprio_i (eprio[cur]),
    .schedule_i  (exec[RtosUnitThreads] && call.act == RtosActionSchedule),
    .pick_o      (pick),
    .any_o       (any_ready),
    .preempt_o   (preempt)
  );

  couplet_rtos_mutex #(
    .MaxThreads    (MaxThreads),
    .NumPrio       (NumPrio),
    .PrioAscending (PrioAscending),
    .NumMutex      (NumMutex),
    .PrioInherit   (PrioInherit)
  ) u_mutex (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .run_i        (run),
    .exec_i       (exec[RtosUnitMutex]),
    .call_i       (call),
    .waiters_i    (waiters),
    .block_st_i   (block_st),
    .cur_v_i      (cur_v),
    .cur_i        (cur),
    .walk_i       (t_walk),
    .walk_t_i     (t_walk_t),
    .walk_owner_i (t_walk_owner),
    .valid_i      (valid),
    .mwait_i      (mwait),
    .wid_i        (wid),
    .bprio_i      (bprio),
    .eprio_i      (eprio),
    .res_o        (res_m),
    .owns_o       (owns),
    .inherit_o    (inherit),
    .handoff_o    (handoff),
    .step_o       (step),
    .step_t_o     (step_t),
    .step_eprio_o (step_eprio),
    .busy_o       (walk_busy),
    .start_o      (walk_start),
    .done_o       (walk_done)
  );

  couplet_rtos_sem #(
    .NumSem (NumSem)
  ) u_sem (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .exec_i     (exec[RtosUnitSem]),
    .handoff_i  (handoff),
    .call_i     (call),
    .waiters_i  (waiters),
    .block_st_i (block_st),
    .res_o      (res_s)
  );

  couplet_rtos_queue #(
    .NumQueue   (NumQueue),
    .MsgWords   (MsgWords),
    .QueueDepth (QueueDepth)
  ) u_queue (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .exec_i       (exec[RtosUnitQueue]),
    .handoff_i    (handoff),
    .call_i       (call),
    .waiters_i    (waiters),
    .waiter_ptr_i (waiter_ptr),
    .block_st_i   (block_st),
    .msg_i        (msg_q),
    .status_rd_i  (status_rd),
    .res_o        (res_q),
    .msg_we_o     (q_msg_we),
    .msg_o        (q_msg),
    .copy_busy_o  (copy_busy),
    .copy_err_o   (copy_err),
    .mem_req_o    (mem_req_o),
    .mem_rsp_i    (mem_rsp_i)
  );

  always_comb begin
    unique case (unit)
      RtosUnitMutex: res = res_m;
      RtosUnitSem:   res = res_s;
      RtosUnitQueue: res = res_q;
      default:       res = res_t;
    endcase
  end

  // ---------------------------------------------------------------- execute
  // WRITE writes op_a at index, WRITE2 also op_b at index + 1 (8 bits: 127 + 1 is no register).
  // A register takes op_a when its index has index's parity, else op_b, so two values serve all.
  logic [7:0]       idx1;
  logic [1:0][31:0] wr_val;  // by the register index's parity
  assign idx1      = 8'(cmd_q.index) + 8'd1;
  assign wr_val[0] = cmd_q.index[0] ? cmd_q.op_b : cmd_q.op_a;
  assign wr_val[1] = cmd_q.index[0] ? cmd_q.op_a : cmd_q.op_b;

  function automatic logic wr_at(logic [7:0] r);
    return 8'(cmd_q.index) == r || (cmd_q.op == AccelOpWrite2 && idx1 == r);
  endfunction

  always_comb begin
    rtos_call_reg_t word;
    logic [31:0]    data;
    logic           err;
    logic           wr_ok;

    msg_d     = msg_q;
    arg_a_d   = arg_a_q;
    arg_b_d   = arg_b_q;
    rsp_d     = rsp_q;
    rsp_pre_d = rsp_pre_q;
    status_rd = 1'b0;
    data      = '0;
    err       = 1'b0;
    wr_ok     = 1'b0;

    // The result word: a woken waiter is the thread it reports; a refused action reports none.
    word = '{value: res.value, tid: res.tid, rsvd6: 2'd0, preempt: 1'b0, blocked: res.block,
             status: res.status};
    if (res.wake) word.tid = 8'(waiters.best);
    if (res.status != RtosCodeOk) word.tid = RTOS_TID_NONE;

    if (run) begin
      unique case (cmd_q.op)
        AccelOpRead: begin
          if (32'(cmd_q.index - IdxMsg0) < 32'(MsgWords)) begin
            data = msg_q[WordW'(cmd_q.index - IdxMsg0)];
          end else if (cmd_q.index == IdxArgA) begin
            data = arg_a_q;
          end else if (cmd_q.index == IdxArgB) begin
            data = arg_b_q;
          end else if (cmd_q.index == IdxStatus) begin
            data      = 32'(rtos_status_reg_t'{tid: cur_tid, rsvd2: '0, copy_error: copy_err,
                                                  copy_busy: copy_busy});
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
          // Each register compares the index with its own: a write at a computed place would
          // shift the whole staging buffer.
          if (wr_ok) begin
            for (int unsigned i = 0; i < MsgWords; i++) begin
              if (wr_at(8'(IdxMsg0) + 8'(i))) msg_d[i] = wr_val[(int'(IdxMsg0) + i) % 2];
            end
            if (wr_at(8'(IdxArgA))) arg_a_d = wr_val[IdxArgA[0]];
            if (wr_at(8'(IdxArgB))) arg_b_d = wr_val[IdxArgB[0]];
          end
        end
        AccelOpExec: err = !is_call;
        default:     err = 1'b1;
      endcase

      // A receive overwrites the message's words of the staging buffer.
      for (int unsigned i = 0; i < MsgWords; i++) begin
        if (q_msg_we[i]) msg_d[i] = q_msg[i];
      end
      if (is_call) data = raw ? raw_data : 32'(word);

      rsp_d     = '{data: data, err: err};
      rsp_pre_d = is_call && !raw && !err;
    end
  end

  // ---------------------------------------------------------------- command port
  assign cmd_ready_o = !cmd_v_q && !walk_busy && (!rsp_valid_q || cmd_req_i.rsp_ready);
  assign cmd_v_d     = cmd_req_i.valid && cmd_ready_o;
  assign cmd_d       = cmd_v_d ? cmd_req_i.cmd : cmd_q;
  // The response is ready in the cycle after the action, or after the walk it starts.
  assign rsp_valid_d = (rsp_valid_q && !cmd_req_i.rsp_ready) || (run && !walk_start) || walk_done;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      msg_q       <= '0;
      arg_a_q     <= '0;
      arg_b_q     <= '0;
      cmd_v_q     <= 1'b0;
      cmd_q       <= '0;
      rsp_valid_q <= 1'b0;
      rsp_q       <= '0;
      rsp_pre_q   <= 1'b0;
    end else begin
      msg_q       <= msg_d;
      arg_a_q     <= arg_a_d;
      arg_b_q     <= arg_b_d;
      cmd_v_q     <= cmd_v_d;
      cmd_q       <= cmd_d;
      rsp_valid_q <= rsp_valid_d;
      rsp_q       <= rsp_d;
      rsp_pre_q   <= rsp_pre_d;
    end
  end

  // ---------------------------------------------------------------- outputs
  always_comb begin
    cmd_rsp_o.rsp = rsp_q;
    if (rsp_pre_q) cmd_rsp_o.rsp.data[5] = preempt;
  end
  assign cmd_rsp_o.rsp_valid = rsp_valid_q;
  assign irq_o           = copy_err;

`ifndef SYNTHESIS
  // No command is taken while a walk runs (cmd_ready_o), so run never drops one.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      NoCommandDuringWalk: assert (!(cmd_v_q && walk_busy));
    end
  end

  // Simulation only: not instantiated in synthesis, so the checkers leave no boundary in the
  // netlist (a kept, empty instance still changed how Yosys mapped the RTOS engine).
  // The command port's rules, checked in every simulation (couplet_accel_port_assert).
  couplet_accel_port_assert #(.MaxOutstanding(1)) u_port_assert (
    .clk_i, .rst_ni, .req_i(cmd_req_i), .ready_i(cmd_ready_o), .rsp_i(cmd_rsp_o)
  );
`endif

endmodule
