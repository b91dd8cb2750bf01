// Property checks of couplet_reg_adapter (`couplet prove reg_adapter`, docs/formal.md).
//
// The bus master and the accelerator are left to the solver: the master bound by the OBI rules
// (couplet_obi_fv_port), the accelerator by the command port's (a response only for a command
// taken in an earlier cycle, held until taken) and by latency bounds.
//
// Checked: the bus port keeps the OBI rules, with a bounded grant and response (the adapter
// never hangs the bus while the accelerator answers in time); a legal access becomes exactly one
// command, the register access it names, in the cycle it is granted, and nothing else does: an
// illegal access never reaches the accelerator and is answered with an error; the command waits
// for the accelerator unchanged; and each bus response is the accelerator's answer to that
// access (its data, or an error with no data).
module couplet_reg_adapter_fv
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
(
  input logic           clk_i,
  input logic           rst_ni,
  input obi_req_t       obi_req_i,
  input logic           cmd_ready_i,
  input accel_cmd_rsp_t cmd_rsp_i,
  input logic           mutate_i
);

  // The adapter's states, by their encoding (Yosys's slang frontend reads no enum constant
  // through a hierarchical name): the order of its state_e.
  localparam logic [1:0] StIdle = 2'd0, StWaitRsp = 2'd1, StError = 2'd2;

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutants

  obi_rsp_t       obi_rsp, obi_rsp_dut;
  accel_cmd_req_t cmd_req, cmd_req_dut;

  couplet_reg_adapter u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .obi_req_i   (obi_req_i),
    .obi_rsp_o   (obi_rsp_dut),
    .cmd_req_o   (cmd_req_dut),
    .cmd_ready_i (cmd_ready_i),
    .cmd_rsp_i   (cmd_rsp_i)
  );

  // Mutants (`couplet prove` shows that each makes a check fail): the harness itself, not the RTL,
  // lets a sub-word store through as a command, or loses the accelerator's error.
  always_comb begin
    cmd_req = cmd_req_dut;
    obi_rsp = obi_rsp_dut;
`ifdef FV_MUTANT_SUBWORD_STORE
    if (mutate_i && obi_req_i.req && obi_req_i.we && obi_req_i.be != 4'hf) begin
      cmd_req.valid = u_dut.state_q == StIdle;
    end
`endif
`ifdef FV_MUTANT_LOSE_ERR
    if (mutate_i) obi_rsp.err = 1'b0;
`endif
  end

  // ------------------------------------------------------------------ the bus port
  logic [3:0] obi_out, obi_wait;
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (1),
    .MaxGntWait     (5),  // the least that proves (4 fails)
    .MaxRspWait     (4)   // the least that proves (3 fails)
  ) u_bus (
    .clk_i, .rst_ni, .req_i(obi_req_i), .rsp_i(obi_rsp), .outstanding_o(obi_out), .rsp_wait_o(obi_wait)
  );

  // ------------------------------------------------------------------ the accelerator
  logic cmd_taken, rsp_taken;
  assign cmd_taken = cmd_req.valid && cmd_ready_i;
  assign rsp_taken = cmd_rsp_i.rsp_valid && cmd_req.rsp_ready;

  logic           cmd_waiting_q, rsp_shown_q;
  accel_cmd_t     cmd_held_q;
  accel_rsp_t     rsp_held_q;
  logic [1:0]     cmd_pending_q;  // commands taken and not yet answered
  logic [2:0]     ready_wait_q, answer_wait_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_waiting_q <= 1'b0;
      rsp_shown_q   <= 1'b0;
      cmd_held_q    <= '0;
      rsp_held_q    <= '0;
      cmd_pending_q <= '0;
      ready_wait_q  <= '0;
      answer_wait_q <= '0;
    end else begin
      cmd_waiting_q <= cmd_req.valid && !cmd_ready_i;
      rsp_shown_q   <= cmd_rsp_i.rsp_valid && !cmd_req.rsp_ready;
      cmd_held_q    <= cmd_req.cmd;
      rsp_held_q    <= cmd_rsp_i.rsp;
      cmd_pending_q <= cmd_pending_q + 2'(cmd_taken) - 2'(rsp_taken);
      ready_wait_q  <= (cmd_req.valid && !cmd_ready_i) ? ready_wait_q + 3'd1 : '0;
      answer_wait_q <= (cmd_pending_q != '0 && !cmd_rsp_i.rsp_valid) ? answer_wait_q + 3'd1 : '0;
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      // The accelerator: answers only a command taken before, shows an answer until it is taken,
      // takes a command within two cycles and answers within three (an accelerator's README
      // states its own bound; the adapter's bound below is relative to it).
      AccelAnswersCommands: assume (!cmd_rsp_i.rsp_valid || cmd_pending_q != '0);
      AccelHoldsAnswer: assume (!rsp_shown_q || (cmd_rsp_i.rsp_valid && cmd_rsp_i.rsp == rsp_held_q));
      AccelTakesInTime: assume (ready_wait_q < 3'd2);
      AccelAnswersInTime: assume (answer_wait_q < 3'd3);
      // The adapter: a command shown stays, unchanged, until taken; one in flight at most.
      CmdHeld: assert (!cmd_waiting_q || (cmd_req.valid && cmd_req.cmd == cmd_held_q));
      OneInFlight: assert (cmd_pending_q <= 2'd1);
    end
  end

  // ------------------------------------------------------------------ accesses and commands
  // Legal: a word-aligned register offset below 0x200, and a store of the whole word.
  logic legal;
  assign legal = obi_req_i.addr < 32'h200 && obi_req_i.addr[1:0] == 2'b00 &&
                 (!obi_req_i.we || obi_req_i.be == 4'hf);

  logic accept;
  assign accept = obi_req_i.req && obi_rsp.gnt;

  accel_cmd_t expected;
  assign expected = '{op:    obi_req_i.we ? AccelOpWrite : AccelOpRead,
                      index: obi_req_i.addr[8:2],
                      op_a:  obi_req_i.we ? obi_req_i.wdata : '0,
                      op_b:  '0};

  logic legal_q;  // the access in flight was legal
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)     legal_q <= 1'b0;
    else if (accept) legal_q <= legal;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      // A command is taken exactly when a legal access is granted, and it is that access.
      CommandOnGrant: assert (cmd_taken == (accept && legal));
      CommandIsAccess: assert (!cmd_req.valid || (obi_req_i.req && legal && cmd_req.cmd == expected));
      // Each response: a legal access's is the accelerator's answer, passed on as it is taken
      // (data, or an error with no data); an illegal access's is an error.
      if (obi_rsp.rvalid && legal_q) begin
        AnswerPassed: assert (rsp_taken && obi_rsp.err == cmd_rsp_i.rsp.err &&
                              obi_rsp.rdata == (cmd_rsp_i.rsp.err ? '0 : cmd_rsp_i.rsp.data));
      end
      if (obi_rsp.rvalid && !legal_q) begin
        IllegalIsError: assert (obi_rsp.err && obi_rsp.rdata == '0 && !rsp_taken);
      end
      // The accelerator's answer is taken only as the bus response.
      AnswerOnlyAsResponse: assert (!rsp_taken || obi_rsp.rvalid);
      // Induction invariant: the adapter's state is what the ports have seen.
      State: assert ((u_dut.state_q == StIdle && obi_out == '0 && cmd_pending_q == '0) ||
                     (u_dut.state_q == StWaitRsp && obi_out == 4'd1 && legal_q &&
                      cmd_pending_q == 2'd1 && obi_wait == 4'(answer_wait_q) + 4'd1) ||
                     (u_dut.state_q == StError && obi_out == 4'd1 && !legal_q &&
                      cmd_pending_q == '0 && obi_wait == 4'd1));
    end
  end

endmodule
