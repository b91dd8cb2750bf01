// The command and register front end of the register-style accelerators (couplet_aes,
// couplet_keccak; hw/ip/accel/README.md): what their command port, STATUS register, interrupt and
// DMA job port have in common. The engine keeps what its registers and actions mean; this module
// holds the rules they share:
//
// - Commands: one at a time, taken while the response register is free and the engine does not
//   hold (couplet_accel_responder). The op convention (docs/coupling.md) is decoded here: READ
//   answers the engine's rd_* and EXEC its exec_* (an unknown register or action: err), WRITE and
//   WRITE2 answer 0. A WRITE2 writes index and index + 1; unless every addressed register is
//   writable, the command does nothing and answers err. An unknown op answers err.
// - Nothing of a command takes effect unless it is taken: the engine writes a register only on
//   wr_o, runs an action only on exec_o and takes a read's side effects only on rd_o (all false
//   in a cycle the command is not taken).
// - Actions (act_o, one bit per action): EXEC <index> asks for action index, a write to the
//   command register (CmdIndex) for the action of its highest set bit among CmdActions (the
//   register's bit i runs action i: the action keys of the IP's description, which the generator
//   checks). The engine decides whether each runs or is refused.
// - Busy refusal: a write to a register the engine marks as guarded is refused while busy_i (not
//   written, refused_o for the engine's STATUS.refused_busy, still answered 0). Actions have their
//   own refusal order (for example no key before busy), so the engine decides those.
// - Late answers: a READ or EXEC the engine answers later (rd_later_i, exec_later_i) is answered
//   by late_i; the engine holds the port meanwhile (hold_i), so the register is free then.
// - STATUS: the sticky bits [StickyHi:StickyLo] are set by the engine's events (sticky_set_i) and
//   cleared by writing 1 to them at StatusIndex; an event in the same cycle as its clearing write
//   wins. The interrupt is STATUS.done (DoneBit) while the engine's irq_enable_i.
// - DMA job: offered (job_offer_i) by the engine until the DMA takes it; job_end_o is the DMA's
//   done for a job the engine waits for (job_wait_i) and no longer offers. What the job holds is
//   the engine's (job_i, its job_o): registered there, where synthesis sees which fields are
//   constant or equal (in a kept front end they would cost flops).
module couplet_accel_frontend
  import couplet_accel_pkg::*;
#(
  // STATUS: its sticky bits, its command index, the sticky bit that raises the interrupt.
  parameter int unsigned StickyLo    = 1,
  parameter int unsigned StickyHi    = 1,
  parameter logic [7:0]  StatusIndex = 8'd0,
  parameter int unsigned DoneBit     = 1,
  // The actions (<ip>_actions_t), the command register's index and its bits that run them
  // (<IP>_CMD_ACTIONS).
  parameter int unsigned NumActions  = 1,
  parameter logic [7:0]  CmdIndex    = 8'd0,
  parameter logic [31:0] CmdActions  = '0
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,

  // Each handshake of the accelerator's ports, followed by the engine's side of it. Slot outputs
  // hold in any cycle, taken or not (the engine's hold_i may depend on them).
  input  accel_cmd_req_t           cmd_req_i,
  output logic                     cmd_ready_o,
  output accel_cmd_rsp_t           cmd_rsp_o,
  input  logic                     hold_i,        // the engine cannot take this command now
  output logic [1:0]               slot_o,        // WRITE: slot 0; WRITE2: slots 0 and 1
  output logic [1:0][7:0]          slot_index_o,  // index, index + 1 (8 bits: 127 + 1 exists not)
  output logic [1:0][31:0]         slot_data_o,   // op_a, op_b
  input  logic [1:0]               slot_bad_i,    // no writable register at the slot's index
  input  logic [1:0]               slot_guard_i,  // the slot's register refuses writes while busy
  input  logic                     busy_i,
  output logic [1:0]               wr_o,          // write the slot's register now
  output logic                     refused_o,     // a guarded write was refused: a sticky event
  output logic                     rd_o,          // a READ is taken now
  output logic                     exec_o,        // run the action cmd.index now
  output logic [NumActions-1:0]    act_o,         // the actions the command asks for now

  input  logic [31:0]              rd_data_i,     // READ cmd.index: the register
  input  logic                     rd_bad_i,      // no readable register there
  input  logic                     rd_later_i,    // answered later, with late_i
  input  logic [31:0]              exec_data_i,   // EXEC cmd.index: the result code
  input  logic                     exec_bad_i,    // no such action
  input  logic                     exec_later_i,  // answered later, with late_i
  input  logic                     late_i,
  input  logic [31:0]              late_data_i,

  output logic                     job_valid_o,
  input  logic                     job_ready_i,
  input  dma_job_t                 job_i,         // the job shown (only the checker reads it)
  input  logic                     job_offer_i,
  input  logic                     job_done_i,
  input  logic                     job_wait_i,
  output logic                     job_end_o,

  output logic                     irq_o,
  input  logic                     irq_enable_i,
  input  logic [StickyHi:StickyLo] sticky_set_i,
  output logic [StickyHi:StickyLo] sticky_o
);

  // ---------------------------------------------------------------- commands
  accel_cmd_t cmd;  // the command shown
  assign cmd = cmd_req_i.cmd;

  logic is_write;
  assign is_write  = (cmd.op == AccelOpWrite) || (cmd.op == AccelOpWrite2);
  assign slot_o    = {cmd.op == AccelOpWrite2, is_write};
  assign slot_index_o[0] = {1'b0, cmd.index};
  assign slot_index_o[1] = {1'b0, cmd.index} + 8'd1;
  assign slot_data_o     = {cmd.op_b, cmd.op_a};

  logic        cmd_fire, cmd_err, cmd_later, ans_now;
  logic [31:0] cmd_data;
  accel_rsp_t  ans;
  always_comb begin
    cmd_data  = '0;
    cmd_later = 1'b0;
    unique case (cmd.op)
      AccelOpRead: begin
        cmd_err   = rd_bad_i;
        cmd_data  = rd_data_i;
        cmd_later = rd_later_i;
      end
      AccelOpExec: begin
        cmd_err   = exec_bad_i;
        cmd_data  = exec_data_i;
        cmd_later = exec_later_i;
      end
      AccelOpWrite, AccelOpWrite2: cmd_err = |(slot_o & slot_bad_i);
      default:                     cmd_err = 1'b1;
    endcase
  end

  assign wr_o      = (cmd_fire && !cmd_err) ? (slot_o & ~(slot_guard_i & {2{busy_i}})) : 2'b00;
  assign refused_o = cmd_fire && !cmd_err && |(slot_o & slot_guard_i) && busy_i;
  assign rd_o    = cmd_fire && (cmd.op == AccelOpRead);
  assign exec_o  = cmd_fire && (cmd.op == AccelOpExec);

  typedef logic [NumActions-1:0] actions_t;

  // The highest set bit of bits, alone.
  function automatic actions_t highest_one(actions_t bits);
    for (int i = NumActions - 1; i >= 0; i--) begin
      if (bits[i]) return actions_t'(1) << i;
    end
    return '0;
  endfunction

  always_comb begin
    act_o = '0;
    for (int unsigned s = 0; s < 2; s++) begin
      if (wr_o[s] && slot_index_o[s] == CmdIndex) begin
        act_o |= highest_one(slot_data_o[s][NumActions-1:0] & CmdActions[NumActions-1:0]);
      end
    end
    if (exec_o && 32'(cmd.index) < NumActions) act_o |= actions_t'(1) << cmd.index;
  end

  // The answer in the cycle after the command, or the engine's late one.
  assign ans_now  = cmd_fire && !cmd_later;
  assign ans.err  = late_i ? 1'b0 : cmd_err;
  assign ans.data = late_i ? late_data_i : cmd_data;

  couplet_accel_responder u_rsp (
    .clk_i, .rst_ni, .cmd_req_i, .cmd_ready_o, .cmd_rsp_o, .hold_i,
    .ans_valid_i(ans_now || late_i), .ans_i(ans)
  );
  assign cmd_fire = cmd_req_i.valid && cmd_ready_o;

  // ---------------------------------------------------------------- DMA job
  logic job_valid_q, job_valid_d;
  assign job_valid_d = (job_valid_q && !job_ready_i) || job_offer_i;
  assign job_end_o   = job_wait_i && !job_valid_q && job_done_i;
  assign job_valid_o = job_valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) job_valid_q <= 1'b0;
    else         job_valid_q <= job_valid_d;
  end

  // ---------------------------------------------------------------- STATUS and interrupt
  logic [StickyHi:StickyLo] sticky_q, sticky_d;

  always_comb begin
    sticky_d = sticky_q;
    for (int unsigned s = 0; s < 2; s++) begin
      if (wr_o[s] && slot_index_o[s] == StatusIndex) begin
        sticky_d = sticky_d & ~slot_data_o[s][StickyHi:StickyLo];
      end
    end
    sticky_d = sticky_d | sticky_set_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) sticky_q <= '0;
    else         sticky_q <= sticky_d;
  end

  assign sticky_o = sticky_q;
  assign irq_o    = sticky_q[DoneBit] && irq_enable_i;

`ifndef SYNTHESIS
  // Simulation only: not instantiated in synthesis, so the checkers leave no boundary in the
  // netlist (a kept, empty instance still changed how Yosys mapped the RTOS engine).
  // A job offered to the DMA stays offered, unchanged, until the DMA takes it.
  couplet_handshake_assert #(.T(dma_job_t)) u_job_assert (
    .clk_i, .rst_ni, .valid_i(job_valid_o), .ready_i(job_ready_i), .data_i(job_i)
  );

  // The interrupt's bit is a sticky one, and the sticky bits fit the 32-bit STATUS.
  initial begin
    StickyBitsInRange: assert (StickyLo <= StickyHi && StickyHi < 32 &&
                               DoneBit >= StickyLo && DoneBit <= StickyHi);
  end

  // The engine's side of the rules above: a late answer only for a command that awaits one,
  // no command taken meanwhile; a job offered only when none is.
  logic owed_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owed_q <= 1'b0;
    end else begin
      LateOnlyWhenOwed: assert (!late_i || owed_q);
      HoldWhileOwed: assert (!owed_q || !cmd_ready_o);
      OfferOnlyWhenIdle: assert (!job_offer_i || !job_valid_q);
      owed_q <= (owed_q && !late_i) || (cmd_fire && cmd_later);
    end
  end
`endif

endmodule
