// Formal harness of couplet_accel_frontend (issue 21; docs/formal.md): the command port of the
// register accelerators (couplet_aes, couplet_keccak), where a command while busy is decided.
//
// The documented rule (hw/ip/accel/README.md, docs/coupling.md, the AES and Keccak READMEs):
// - held off: a command is taken only while the response register is free (or drained in the same
//   cycle) and the engine does not hold the port (hold_i: Keccak while a permutation runs and the
//   command touches the state, or while ABSORB runs; AES while a MEM job runs); while held off
//   cmd_ready_o is low and nothing of the command takes effect;
// - refused: a WRITE / WRITE2 to a register the engine marks guarded (slot_guard_i) while busy_i is
//   not written, raises refused_o (STATUS.refused_busy) and is still answered 0 without err;
//   the other registers of the same command, unguarded, are written (DIN preload in AES);
// - every taken command gets one answer, in the next cycle (or, for a READ / EXEC the engine
//   answers later, in the cycle after late_i), held until taken; never in the cycle it is taken.
// Action refusals (PERMUTE busy code, AES START / MEM order) are the engine's own decision from
// act_o and exec_o and are not part of this harness.
//
// The engine is a stand-in: every one of its outputs is a free input of this harness, limited
// only by the engine's side of the front end's rules (the front end's simulation assertions
// LateOnlyWhenOwed, HoldWhileOwed, OfferOnlyWhenIdle), so the proof holds for any engine that
// keeps them. The requester is free as well (it need not even hold its command).
//
// Mutants (the harness plants a bug between the front end and the checks):
//   FV_MUTANT_IGNORE_BUSY: the front end sees busy_i low when mut_i (GuardedWriteRefused).
//   FV_MUTANT_IGNORE_HOLD: the front end sees hold_i low when mut_i and no answer is owed
//     (HeldOffByEngine).
module couplet_accel_frontend_fv
  import couplet_accel_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,
  input  accel_cmd_req_t cmd_req_i,
  input  logic           hold_i,
  input  logic [1:0]     slot_bad_i,
  input  logic [1:0]     slot_guard_i,
  input  logic           busy_i,
  input  logic [31:0]    rd_data_i,
  input  logic           rd_bad_i,
  input  logic           rd_later_i,
  input  logic [31:0]    exec_data_i,
  input  logic           exec_bad_i,
  input  logic           exec_later_i,
  input  logic           late_i,
  input  logic [31:0]    late_data_i,
  input  logic           job_ready_i,
  input  dma_job_t       job_i,
  input  logic           job_offer_i,
  input  logic           job_done_i,
  input  logic           job_wait_i,
  input  logic           irq_enable_i,
  input  logic [4:1]     sticky_set_i,
  input  logic           mut_i
);

  // Keccak-like parameters: sticky bits 4:1, done bit 1, three actions of which the command
  // register runs two (the others are only EXEC's).
  localparam int unsigned StickyLo    = 1;
  localparam int unsigned StickyHi    = 4;
  localparam logic [7:0]  StatusIndex = 8'd2;
  localparam int unsigned DoneBit     = 1;
  localparam int unsigned NumActions  = 3;
  localparam logic [7:0]  CmdIndex    = 8'd5;
  localparam logic [31:0] CmdActions  = 32'h3;

  // ---------------------------------------------------------------- reset
  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));
  logic unused_init;
  assign unused_init = init_q;  // the checks here start with rst_ni itself

  // ---------------------------------------------------------------- mutants
  logic busy_dut, hold_dut;
  logic owed_q;  // a late answer is owed (model)
  always_comb begin
    busy_dut = busy_i;
    hold_dut = hold_i;
`ifdef FV_MUTANT_IGNORE_BUSY
    if (mut_i) busy_dut = 1'b0;
`endif
`ifdef FV_MUTANT_IGNORE_HOLD
    if (mut_i && !owed_q) hold_dut = 1'b0;
`endif
  end

  logic unused_mut;
  assign unused_mut = mut_i;  // used only by the mutants

  // ---------------------------------------------------------------- the DUT
  logic                     cmd_ready;
  accel_cmd_rsp_t           cmd_rsp;
  logic [1:0]               slot;
  logic [1:0][7:0]          slot_index;
  logic [1:0][31:0]         slot_data;
  logic [1:0]               wr;
  logic                     refused, rd, exec;
  logic [NumActions-1:0]    act;
  logic                     job_valid, job_end, irq;
  logic [StickyHi:StickyLo] sticky;

  couplet_accel_frontend #(
    .StickyLo    (StickyLo),
    .StickyHi    (StickyHi),
    .StatusIndex (StatusIndex),
    .DoneBit     (DoneBit),
    .NumActions  (NumActions),
    .CmdIndex    (CmdIndex),
    .CmdActions  (CmdActions)
  ) dut (
    .clk_i, .rst_ni,
    .cmd_req_i    (cmd_req_i),
    .cmd_ready_o  (cmd_ready),
    .cmd_rsp_o    (cmd_rsp),
    .hold_i       (hold_dut),
    .slot_o       (slot),
    .slot_index_o (slot_index),
    .slot_data_o  (slot_data),
    .slot_bad_i   (slot_bad_i),
    .slot_guard_i (slot_guard_i),
    .busy_i       (busy_dut),
    .wr_o         (wr),
    .refused_o    (refused),
    .rd_o         (rd),
    .exec_o       (exec),
    .act_o        (act),
    .rd_data_i    (rd_data_i),
    .rd_bad_i     (rd_bad_i),
    .rd_later_i   (rd_later_i),
    .exec_data_i  (exec_data_i),
    .exec_bad_i   (exec_bad_i),
    .exec_later_i (exec_later_i),
    .late_i       (late_i),
    .late_data_i  (late_data_i),
    .job_valid_o  (job_valid),
    .job_ready_i  (job_ready_i),
    .job_i        (job_i),
    .job_offer_i  (job_offer_i),
    .job_done_i   (job_done_i),
    .job_wait_i   (job_wait_i),
    .job_end_o    (job_end),
    .irq_o        (irq),
    .irq_enable_i (irq_enable_i),
    .sticky_set_i (sticky_set_i),
    .sticky_o     (sticky)
  );

  // ---------------------------------------------------------------- the rule, from the docs
  accel_cmd_t cmd;
  assign cmd = cmd_req_i.cmd;

  logic fire;  // the command is taken now
  assign fire = cmd_req_i.valid && cmd_ready;

  logic        m_write, m_err, m_later;
  logic [1:0]  m_slots, m_wr;
  logic [31:0] m_data;
  logic        m_refused;
  always_comb begin
    m_write = (cmd.op == AccelOpWrite) || (cmd.op == AccelOpWrite2);
    m_slots = {cmd.op == AccelOpWrite2, m_write};  // WRITE: index; WRITE2: index and index + 1
    m_data  = '0;                                  // writes and unknown ops answer 0
    m_later = 1'b0;
    m_err   = 1'b1;                                // an unknown op: err
    if (cmd.op == AccelOpRead) begin
      m_err = rd_bad_i; m_data = rd_data_i; m_later = rd_later_i;
    end else if (cmd.op == AccelOpExec) begin
      m_err = exec_bad_i; m_data = exec_data_i; m_later = exec_later_i;
    end else if (m_write) begin
      m_err = |(m_slots & slot_bad_i);             // all or nothing
    end
    // A guarded register is not written while busy; the others are.
    m_wr      = (fire && !m_err) ? (m_slots & ~(busy_i ? slot_guard_i : 2'b00)) : 2'b00;
    m_refused = fire && !m_err && busy_i && |(m_slots & slot_guard_i);
  end

  // Actions: a write to the command register asks for the highest of its set bits among
  // CmdActions; EXEC <index> for action index.
  logic [NumActions-1:0] m_act;
  always_comb begin
    m_act = '0;
    for (int s = 0; s < 2; s++) begin
      if (m_wr[s] && 8'({1'b0, cmd.index}) + 8'(s) == CmdIndex) begin
        for (int i = 0; i < NumActions; i++) begin
          if (slot_data[s][i] && CmdActions[i]) m_act = NumActions'(1) << i;
        end
      end
    end
    if (fire && cmd.op == AccelOpExec && 32'(cmd.index) < NumActions) begin
      m_act = m_act | (NumActions'(1) << cmd.index);
    end
  end

  // The response register and the count of commands in flight, as the port's rules say.
  logic       mv_q;        // a response is shown
  accel_rsp_t mr_q;        // ... this one
  logic [1:0] inflight_q;  // commands taken and not yet answered with a taken response
  logic       refused_q;   // the command taken in the previous cycle was refused
  logic       fire_now_q;  // a command answered at once was taken in the previous cycle
  accel_rsp_t rsp_prev_q;
  logic       rsp_hold_q;  // the previous cycle showed a response not taken
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mv_q       <= 1'b0;
      mr_q       <= '0;
      owed_q     <= 1'b0;
      inflight_q <= '0;
      refused_q  <= 1'b0;
      fire_now_q <= 1'b0;
      rsp_prev_q <= '0;
      rsp_hold_q <= 1'b0;
    end else begin
      mv_q   <= (mv_q && !cmd_req_i.rsp_ready) || (fire && !m_later) || late_i;
      owed_q <= (owed_q && !late_i) || (fire && m_later);
      if (fire && !m_later) mr_q <= '{data: m_data, err: m_err};
      else if (late_i)      mr_q <= '{data: late_data_i, err: 1'b0};
      inflight_q <= inflight_q + 2'(fire) - 2'(cmd_rsp.rsp_valid && cmd_req_i.rsp_ready);
      refused_q  <= m_refused;
      fire_now_q <= fire && !m_later;
      rsp_prev_q <= cmd_rsp.rsp;
      rsp_hold_q <= cmd_rsp.rsp_valid && !cmd_req_i.rsp_ready;
    end
  end

  // ---------------------------------------------------------------- the stand-in engine
  always_comb begin
    if (rst_ni) begin
      // A late answer only for a command that awaits one; the engine holds the port meanwhile.
      EngLateOnlyWhenOwed: assume (!late_i || owed_q);
      EngHoldWhileOwed: assume (!owed_q || hold_i);
      // A job is offered only while none is shown.
      EngOfferOnlyWhenIdle: assume (!job_offer_i || !job_valid);
    end
  end

  // ---------------------------------------------------------------- checks
  always_comb begin
    if (rst_ni) begin
      // Held off: never taken while the engine holds the port...
      HeldOffByEngine: assert (!hold_i || !cmd_ready);
      // ... nor while a response is shown and not taken in this cycle.
      HeldOffByResponse: assert (!(cmd_rsp.rsp_valid && !cmd_req_i.rsp_ready) || !cmd_ready);
      // Otherwise taken: no other reason to hold a command off.
      TakenWhenFree: assert (!(!hold_i && (!cmd_rsp.rsp_valid || cmd_req_i.rsp_ready)) ||
                             cmd_ready);
      // Nothing of a command takes effect unless it is taken.
      NothingUntilTaken: assert (fire || (wr == '0 && !rd && !exec && act == '0 && !refused));
      // A guarded write while busy is refused: not written, refused_o raised.
      GuardedWriteRefused: assert (!(fire && !m_err && busy_i && |(m_slots & slot_guard_i)) ||
                                   (((wr & m_slots & slot_guard_i) == '0) && refused));
      // Exactly the writes the rule allows: unguarded ones, or any while not busy; none on err.
      WritesExact: assert (wr == m_wr);
      // refused_o exactly for a guarded write while busy (an erroneous command is not refused).
      RefusedExact: assert (refused == m_refused);
      // READ and EXEC are signalled only when taken, with their op.
      ReadExecExact: assert (rd == (fire && cmd.op == AccelOpRead) &&
                             exec == (fire && cmd.op == AccelOpExec));
      // The actions asked for: the command register's highest set bit, EXEC's index.
      ActionsExact: assert (act == m_act);
      // A refused write is answered in the next cycle with 0 and no err.
      RefusedAnsweredZero: assert (!refused_q || (cmd_rsp.rsp_valid && cmd_rsp.rsp.data == '0 &&
                                                  !cmd_rsp.rsp.err));
      // A command answered at once is answered in the cycle after it is taken.
      AnsweredNextCycle: assert (!fire_now_q || cmd_rsp.rsp_valid);
      // The responses are the model's: the answer of each taken command, in order, held until
      // taken (this covers the op convention: data, err, late answers).
      RspIsModel: assert (cmd_rsp.rsp_valid == mv_q && (!mv_q || cmd_rsp.rsp == mr_q));
      // A response shown and not taken stays, unchanged.
      RspHeld: assert (!rsp_hold_q || (cmd_rsp.rsp_valid && cmd_rsp.rsp == rsp_prev_q));
      // One command in flight at most; a response only for a command taken in an earlier cycle.
      OneInFlight: assert (inflight_q <= 2'd1);
      RspOnlyForCmd: assert (!cmd_rsp.rsp_valid || inflight_q == 2'd1);
      // Slots show the command whether or not it is taken.
      SlotsShowCmd: assert (slot == m_slots && slot_index[0] == {1'b0, cmd.index} &&
                            slot_index[1] == {1'b0, cmd.index} + 8'd1 &&
                            slot_data[0] == cmd.op_a && slot_data[1] == cmd.op_b);
    end
  end

  // Helper invariants for induction: the model's registers and the front end's agree.
  always_comb begin
    if (rst_ni) begin
      InvRsp: assert (dut.u_rsp.rsp_valid_q == mv_q && (!mv_q || dut.u_rsp.rsp_q == mr_q));
      InvInflight: assert (inflight_q == 2'(mv_q || owed_q) && !(mv_q && owed_q));
    end
  end

  // ---------------------------------------------------------------- STATUS, interrupt, job
  logic [StickyHi:StickyLo] sticky_model_q;
  logic                     job_valid_model_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sticky_model_q    <= '0;
      job_valid_model_q <= 1'b0;
    end else begin
      // W1C at StatusIndex by a write that is carried out; an event in the same cycle wins.
      for (int s = 0; s < 2; s++) begin
        if (m_wr[s] && 8'({1'b0, cmd.index}) + 8'(s) == StatusIndex) begin
          sticky_model_q <= (sticky_model_q & ~slot_data[s][StickyHi:StickyLo]) | sticky_set_i;
        end
      end
      if (!(m_wr[0] && {1'b0, cmd.index} == StatusIndex) &&
          !(m_wr[1] && {1'b0, cmd.index} + 8'd1 == StatusIndex)) begin
        sticky_model_q <= sticky_model_q | sticky_set_i;
      end
      job_valid_model_q <= (job_valid_model_q && !job_ready_i) || job_offer_i;
    end
  end

  always_comb begin
    if (rst_ni) begin
      // STATUS's sticky bits: set by events, cleared by a W1C write carried out.
      StickyIsModel: assert (sticky == sticky_model_q);
      // The interrupt is STATUS.done while enabled.
      IrqIsDone: assert (irq == (sticky[DoneBit] && irq_enable_i));
      // A DMA job is shown from its offer until the DMA takes it.
      JobShownUntilTaken: assert (job_valid == job_valid_model_q);
      // The job's end is the DMA's done of a waited-for job no longer shown.
      JobEndExact: assert (job_end == (job_wait_i && !job_valid && job_done_i));
    end
  end

endmodule
