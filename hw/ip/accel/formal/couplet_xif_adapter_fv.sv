// Property checks of couplet_xif_adapter (`couplet prove xif_adapter`, docs/formal.md), issue 21.
//
// The core's side of the X-IF and the accelerators are left to the solver. The core side is bound
// by what the CV32E40X 0.6.0 does (the adapter's header comment; each `assume` below names the
// rule of the core it models), the accelerator ports by the command-port rules (docs/coupling.md).
//
// Checked: an instruction is accepted exactly when a port's mask matches it; every accepted
// instruction committed without commit_kill is offered to the one port it matches, once all older
// ones have theirs, and its command is the next command taken on any port; it takes the next
// response of that port and its result, with that response, is the next result; a command or a
// result is never taken for an instruction that was killed (commit_kill), left without a commit
// (killed in ID) or not yet committed, nor more of them than instructions committed; commands and
// results stay unchanged until taken. Which instruction is followed is left to the solver
// (track_i), so the checks hold for every one; counters of the older instructions ahead of it
// (commands, results, responses) stand for a model of the whole queue. The properties look at
// the adapter's ports only; the invariants at the end, which read its queue, are there for the
// k-induction to close.
//
// Parameters: two ports, as the adapter treats every port alike but for the lowest-match rule:
// a command to one port while the other owes an older response (order across ports), and port 0
// overlapping port 1 (the lowest match wins). Depth 3, the SoC's and the three instructions the
// core has in flight (ID, EX, WB); as result_ready is left free, the queue also fills (issue
// back-pressure), wraps, and has slots freed out of order by a drop or a kill. Ids of 4 bits,
// as in the SoC; they are free but for IssueIdAfterLate, so repeated ids are covered.
//
// Mutants (the harness, not the RTL, plants a bug; each must make a check fail):
// - FV_MUTANT_DROP_CMD: a command taken in a cycle the solver picks is not counted by the checks.
// - FV_MUTANT_DUP_RESULT: the cycle after a result is taken, the checks see it once more.
// - FV_MUTANT_KILLED_CMD: the adapter does not see a commit_kill (a killed instruction's command
//   gets through).
// - FV_MUTANT_UNCOMMITTED_CMD: the adapter sees a commit the core never gave (an instruction
//   killed in ID, without a commit, gets through).
// - FV_MUTANT_WRONG_PORT: in a cycle the solver picks, the command shows on the other port.
// - FV_MUTANT_WRONG_DATA: in a cycle the solver picks, a result carries one data bit flipped.
module couplet_xif_adapter_fv
  import couplet_accel_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       rst_ni,

  // Core side (X-IF), all free for the solver within the assumptions
  input  logic                       issue_valid_i,
  input  logic [31:0]                issue_instr_i,
  input  logic [3:0]                 issue_id_i,
  input  logic [31:0]                issue_rs1_i,
  input  logic [31:0]                issue_rs2_i,
  input  logic [1:0]                 issue_mode_i,
  input  logic [1:0]                 issue_rs_valid_i,
  input  logic                       commit_valid_i,
  input  logic [3:0]                 commit_id_i,
  input  logic                       commit_kill_i,
  input  logic                       commit_old_i,     // the commit is for the late one (below)
  input  logic                       result_ready_i,
  input  logic                       compressed_valid_i,
  input  logic [15:0]                compressed_instr_i,
  input  logic                       mem_ready_i,
  input  logic                       mem_result_valid_i,

  // Accelerators
  input  logic [1:0]                 cmd_ready_i,
  input  accel_cmd_rsp_t [1:0]       cmd_rsp_i,

  // Checker's choices
  input  logic                       track_i,          // follow the instruction accepted now
  input  logic                       mutate_i          // where a mutant strikes
);

  localparam int unsigned NumPorts = 2;
  localparam int unsigned Depth    = 3;
  // Port 0: CUSTOM_1 (0x2b) with funct7 < 8; port 1: opcodes 0x0b and 0x2b (overlaps port 0).
  localparam logic [NumPorts-1:0][31:0] PortMask  = {32'h0000_005f, 32'hf000_007f};
  localparam logic [NumPorts-1:0][31:0] PortMatch = {32'h0000_000b, 32'h0000_002b};
  localparam int unsigned CntW = 3;  // counts up to Depth (+ margin): older instructions, in flight

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutants

  // ------------------------------------------------------------------------------------ reset
  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  // ------------------------------------------------------------------------ DUT and interface
  if_xif #(
    .X_NUM_RS    (2),
    .X_ID_WIDTH  (4),
    .X_MEM_WIDTH (32)
  ) u_xif ();

  logic commit_valid_dut, commit_kill_dut;

  assign u_xif.issue_valid              = issue_valid_i;
  assign u_xif.issue_req.instr          = issue_instr_i;
  assign u_xif.issue_req.mode           = issue_mode_i;
  assign u_xif.issue_req.id             = issue_id_i;
  assign u_xif.issue_req.rs[0]          = issue_rs1_i;
  assign u_xif.issue_req.rs[1]          = issue_rs2_i;
  assign u_xif.issue_req.rs_valid       = issue_rs_valid_i;
  assign u_xif.issue_req.ecs            = '0;
  assign u_xif.issue_req.ecs_valid      = 1'b1;
  assign u_xif.commit_valid             = commit_valid_dut;
  assign u_xif.commit.commit_kill       = commit_kill_dut;
  assign u_xif.result_ready             = result_ready_i;
  assign u_xif.compressed_valid         = compressed_valid_i;
  assign u_xif.compressed_req.instr     = compressed_instr_i;
  assign u_xif.compressed_req.mode      = issue_mode_i;
  assign u_xif.compressed_req.id        = issue_id_i;
  assign u_xif.mem_ready                = mem_ready_i;
  assign u_xif.mem_resp                 = '0;
  assign u_xif.mem_result_valid         = mem_result_valid_i;
  assign u_xif.mem_result               = '0;

  accel_cmd_req_t [NumPorts-1:0] cmd_req_dut;

  couplet_xif_adapter #(
    .NumPorts  (NumPorts),
    .PortMask  (PortMask),
    .PortMatch (PortMatch),
    .Depth     (Depth)
  ) u_dut (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .xif_compressed_if (u_xif),
    .xif_issue_if      (u_xif),
    .xif_commit_if     (u_xif),
    .xif_mem_if        (u_xif),
    .xif_mem_result_if (u_xif),
    .xif_result_if     (u_xif),
    .cmd_req_o         (cmd_req_dut),
    .cmd_ready_i       (cmd_ready_i),
    .cmd_rsp_i         (cmd_rsp_i)
  );

  // What the checks see of the adapter (the same as the adapter shows, but for a mutant).
  logic                          issue_ready;
  logic                          accept;
  accel_cmd_req_t [NumPorts-1:0] cmd_req;
  logic                          result_valid;
  logic [3:0]                    result_id;
  logic [4:0]                    result_rd;
  logic [31:0]                   result_data;
  logic                          result_exc;
  logic [5:0]                    result_exccode;
  logic                          result_other;  // any field the adapter must leave 0

  logic result_hs_q;  // a result was taken in the previous cycle
  logic unused_result_hs;
  assign unused_result_hs = result_hs_q;  // read only by FV_MUTANT_DUP_RESULT

  always_comb begin
    issue_ready    = u_xif.issue_ready;
    accept         = u_xif.issue_resp.accept;
    cmd_req        = cmd_req_dut;
    result_valid   = u_xif.result_valid;
    result_id      = u_xif.result.id;
    result_rd      = u_xif.result.rd;
    result_data    = u_xif.result.data;
    result_exc     = u_xif.result.exc;
    result_exccode = u_xif.result.exccode;
    result_other   = |{u_xif.result.ecsdata, u_xif.result.ecswe, u_xif.result.err, u_xif.result.dbg};
`ifdef FV_MUTANT_DUP_RESULT
    if (mutate_i && result_hs_q) result_valid = 1'b1;
`endif
`ifdef FV_MUTANT_WRONG_PORT
    if (mutate_i) begin
      cmd_req[0].valid = cmd_req_dut[1].valid;
      cmd_req[1].valid = cmd_req_dut[0].valid;
    end
`endif
`ifdef FV_MUTANT_WRONG_DATA
    if (mutate_i) result_data[0] = !u_xif.result.data[0];
`endif
  end

  // ----------------------------------------------------------------------- the core's pipeline
  // What the environment keeps of the core: the instruction last issued (`pend`: issue handshake
  // done, commit not yet), and a rejected one that may still get its commit after the next issue
  // handshake (`late`, see IssueIdAfterLate).
  logic       pend_q, pend_acc_q, late_q;
  logic [3:0] pend_id_q, late_id_q;
  logic       issue_hs, accept_hs;
  logic       commit_pend, commit_late;

  assign issue_hs    = issue_valid_i && issue_ready;
  assign accept_hs   = issue_hs && accept;
  assign commit_pend = commit_valid_i && !commit_old_i;
  assign commit_late = commit_valid_i && commit_old_i;

  always_comb begin
    if (!init_q) begin
      // The core commits (cv32e40x_controller_fsm, x_ext) only the instruction in EX, which had
      // its issue handshake in ID in an earlier cycle, and only once (commit_valid_q): a commit
      // needs an issued instruction without one, never the one issued in the same cycle.
      CommitIssued: assume (!commit_pend || (pend_q && commit_id_i == pend_id_q));
      // The late commit of a rejected instruction (below) carries its id.
      CommitLate: assume (!commit_late || (late_q && commit_id_i == late_id_q));
      // While the instruction in EX waits for its commit, the next one in ID may have its issue
      // handshake only if EX is halted alone (halt_ex without halt_id, cv32e40x_controller_fsm):
      // minstret_stall (a counter CSR read in EX), irq_enable_stall (an LSU instruction in EX),
      // mnxti_ex_stall (an mnxti CSR read in EX). Of those only a CSR instruction is offered to
      // the X-IF (the core offers every CSR instruction), and the adapter, which claims custom
      // opcodes only, rejects it: its commit (with commit_kill) may come late, after the next
      // handshake. That next instruction entered ID while the rejected one was offloading
      // (xif_offloading), so its id is the rejected one's plus 1 (cv32e40x_if_stage: xif_id),
      // and one after it that reuses an id (after a kill of ID) reuses that one: no instruction
      // offered meanwhile has the late one's id.
      IssueIdAfterLate: assume (!(issue_valid_i && late_q && !commit_late) ||
                                issue_id_i != late_id_q);
    end
  end

  // An accepted instruction still waiting for its commit at the next issue handshake (without
  // a commit in the same cycle) was killed in ID: it never gets a commit (the core halts EX only
  // together with ID, but for the stalls above, which never hold an accepted instruction: a
  // custom opcode is neither a CSR nor an LSU instruction to the core). A rejected one may be
  // in EX, halted: it becomes `late`. Commits come in issue order: once the instruction issued
  // after it is committed, the late one never is (it was killed in ID).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q     <= 1'b0;
      pend_acc_q <= 1'b0;
      pend_id_q  <= '0;
      late_q     <= 1'b0;
      late_id_q  <= '0;
    end else begin
      if (commit_pend) pend_q <= 1'b0;
      if (commit_late || commit_pend) late_q <= 1'b0;
      if (issue_hs) begin
        pend_q     <= 1'b1;
        pend_acc_q <= accept;
        pend_id_q  <= issue_id_i;
        // A late one still without its commit at this handshake was killed in ID: the one
        // issued after it could leave ID only after it left EX, or by a kill of ID alone, which
        // this core does for a branch in EX only (a CSR instruction is none). The rejected
        // instruction without a commit becomes late unless the new one has its id (then it
        // was killed in ID: only an instruction entering ID after a kill reuses the id).
        late_q     <= pend_q && !pend_acc_q && !commit_pend && issue_id_i != pend_id_q;
        late_id_q  <= pend_id_q;
      end
    end
  end

  // The adapter's view of the commit: the core's, but for a mutant.
  logic uncommitted_hit;
  assign uncommitted_hit = pend_q && pend_acc_q && !commit_valid_i && mutate_i;
  always_comb begin
    commit_valid_dut = commit_valid_i;
    commit_kill_dut  = commit_kill_i;
    u_xif.commit.id  = commit_id_i;
`ifdef FV_MUTANT_KILLED_CMD
    if (mutate_i) commit_kill_dut = 1'b0;
`endif
`ifdef FV_MUTANT_UNCOMMITTED_CMD
    if (uncommitted_hit) begin
      commit_valid_dut = 1'b1;
      commit_kill_dut  = 1'b0;
      u_xif.commit.id  = pend_id_q;
    end
`endif
  end

  // Accepted and committed without kill, in this cycle: the instruction owes a command.
  logic good_commit;
  assign good_commit = commit_pend && pend_acc_q && !commit_kill_i;

  // ---------------------------------------------------------------------------- accelerators
  // The command-port rules (docs/coupling.md, couplet_accel_port_assert): a response only for a
  // command taken in an earlier cycle and not yet answered (per port, so never in the cycle of
  // its command), held unchanged until taken. cmd_ready is free (it may depend on the command).
  logic [NumPorts-1:0][CntW-1:0] outst_q;
  logic [NumPorts-1:0]           cmd_hs, rsp_hs;
  accel_cmd_rsp_t [NumPorts-1:0] rsp_prev_q;
  logic [NumPorts-1:0]           rsp_wait_q;  // a response shown and not taken last cycle

  for (genvar k = 0; k < NumPorts; k++) begin : gen_accel
    assign cmd_hs[k] = cmd_req_dut[k].valid && cmd_ready_i[k];  // what the accelerator takes
    assign rsp_hs[k] = cmd_rsp_i[k].rsp_valid && cmd_req_dut[k].rsp_ready;
    always_comb begin
      if (!init_q) begin
        // A response only after a command of its own (RspAfterCmd).
        RspAfterCmd: assume (!cmd_rsp_i[k].rsp_valid || outst_q[k] != '0);
        // A response shown stays, unchanged, until taken (u_rsp.HeldUntilTaken).
        RspHeld: assume (!rsp_wait_q[k] || cmd_rsp_i[k] == rsp_prev_q[k]);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      outst_q    <= '0;
      rsp_wait_q <= '0;
    end else begin
      for (int k = 0; k < NumPorts; k++) begin
        outst_q[k]    <= outst_q[k] + CntW'(cmd_hs[k]) - CntW'(rsp_hs[k]);
        rsp_wait_q[k] <= cmd_rsp_i[k].rsp_valid && !cmd_req_dut[k].rsp_ready;
      end
    end
  end
  always_ff @(posedge clk_i) rsp_prev_q <= cmd_rsp_i;

  // ---------------------------------------------------------------------------------- checks
  // The port an instruction belongs to, decoded here independently of the adapter.
  logic       exp_match;
  logic [0:0] exp_port;
  always_comb begin
    exp_match = 1'b0;
    exp_port  = '0;
    for (int k = NumPorts - 1; k >= 0; k--) begin
      if ((issue_instr_i & PortMask[k]) == PortMatch[k]) begin
        exp_match = 1'b1;
        exp_port  = 1'(k);
      end
    end
  end

  accel_cmd_t issue_cmd;
  assign issue_cmd = '{op:    accel_op_e'(issue_instr_i[14:12]),
                       index: issue_instr_i[31:25],
                       op_a:  issue_rs1_i,
                       op_b:  issue_rs2_i};

  // What the checks count (the checker's view, which the mutants may change).
  logic [NumPorts-1:0] chk_cmd_hs;
  logic                cmd_taken, result_hs;
  logic [0:0]          cmd_port;
  always_comb begin
    cmd_port = '0;
    for (int k = 0; k < NumPorts; k++) begin
      chk_cmd_hs[k] = cmd_req[k].valid && cmd_ready_i[k];
      if (cmd_req[k].valid) cmd_port = 1'(k);
    end
  end
  always_comb begin
    cmd_taken = |chk_cmd_hs;
`ifdef FV_MUTANT_DROP_CMD
    if (mutate_i) cmd_taken = 1'b0;
`endif
  end
  assign result_hs = result_valid && result_ready_i;

  // Counters over every instruction: committed ones still owed a command, and a result.
  logic [CntW-1:0] owed_cmd_q, owed_res_q;

  // The tracked instruction: chosen by the solver at its accept handshake.
  logic            trk_q;          // one is tracked (from the cycle after its handshake)
  logic            t_live_q;       // not killed and not left without a commit
  logic            t_good_q;       // committed without kill
  logic            t_sent_q;       // its command was taken
  logic            t_rsp_q;        // its response was taken
  logic            t_done_q;       // its result was taken
  logic [0:0]      t_port_q;
  accel_cmd_t      t_cmd_q;
  logic [3:0]      t_id_q;
  logic [4:0]      t_rd_q;
  accel_rsp_t      t_rsp_data_q;
  logic [CntW-1:0] t_cmd_before_q; // older instructions still owed a command
  logic [CntW-1:0] t_res_before_q; // older instructions still owed a result
  logic [CntW-1:0] t_rsp_before_q; // older commands on its port still owed a response
  logic [CntW-1:0] t_rsp_ahead_q;  // older commands on any port still owed a response

  // Past values for the stability checks (ResultHeld, CmdHeld).
  logic        res_wait_q, cmd_wait_q;
  logic [3:0]  res_prev_id_q;
  logic [4:0]  res_prev_rd_q;
  logic [31:0] res_prev_data_q;
  logic        res_prev_exc_q;
  logic [0:0]  cmd_prev_port_q;
  accel_cmd_t  cmd_prev_q;

  logic t_pend, t_good_now, t_cmd_now, t_rsp_now, t_res_now, pick;
  accel_rsp_t t_rsp_data;

  always_comb begin
    // The tracked instruction is the one awaiting its commit (pend) until its commit or the
    // next issue handshake.
    t_pend     = trk_q && t_live_q && !t_good_q;
    t_good_now = trk_q && t_live_q && (t_good_q || (t_pend && commit_pend && !commit_kill_i));
    // The command taken now is the tracked one's: every older one has had its command.
    t_cmd_now  = trk_q && t_live_q && !t_sent_q && t_cmd_before_q == '0 && cmd_taken;
    t_rsp_now  = t_sent_q && !t_rsp_q && t_rsp_before_q == '0 && rsp_hs[t_port_q];
    t_res_now  = trk_q && t_live_q && !t_done_q && t_res_before_q == '0 && result_hs;
    t_rsp_data = t_rsp_q ? t_rsp_data_q : cmd_rsp_i[t_port_q].rsp;
    pick       = track_i && !trk_q && accept_hs;
  end

  always_comb begin
    if (!init_q) begin
      // ---- issue
      // An offered instruction is accepted (with writeback) exactly when a port matches it.
      IssueAccept: assert (!issue_valid_i ||
                           (accept == exp_match && u_xif.issue_resp.writeback == exp_match));
      // The other issue_resp fields are 0 (no dual read/write, no load/store, no exception).
      IssueRespOther: assert (!issue_valid_i ||
                              {u_xif.issue_resp.dualwrite, u_xif.issue_resp.dualread,
                               u_xif.issue_resp.loadstore, u_xif.issue_resp.ecswrite,
                               u_xif.issue_resp.exc} == '0);
      // An instruction no port takes is answered at once (so the core traps without waiting).
      IssueRefuseAtOnce: assert (!issue_valid_i || exp_match || issue_ready);

      // ---- commands
      // A command is valid on one port at most.
      CmdOnePort: assert ((cmd_req[0].valid && cmd_req[1].valid) == 1'b0);
      // No command without an instruction committed (without kill) that is owed one: a killed,
      // uncommitted or rejected instruction never reaches an accelerator, none twice.
      CmdOnlyCommitted: assert (!cmd_taken || (owed_cmd_q + CntW'(good_commit)) != '0);
      // The tracked instruction's command (the next taken once all older ones are) needs its
      // commit without kill, in this cycle at the latest.
      CmdTrackedCommitted: assert (!t_cmd_now || t_good_now);
      // ... and goes to its own port with its own fields (funct3, funct7, rs1, rs2).
      CmdTrackedPort: assert (!t_cmd_now || cmd_port == t_port_q);
      CmdTrackedFields: assert (!t_cmd_now || cmd_req[cmd_port].cmd == t_cmd_q);
      // Once committed and every older one has its command, it is offered to its port (so it
      // reaches its accelerator as soon as that one is ready).
      CmdTrackedShown: assert (!(t_good_now && !t_sent_q && t_cmd_before_q == '0) ||
                               (cmd_req[t_port_q].valid && cmd_req[t_port_q].cmd == t_cmd_q));

      // ---- responses
      // Responses are taken from one port at a time ...
      RspReadyOnePort: assert (!(cmd_req[0].rsp_ready && cmd_req[1].rsp_ready));
      // ... in command order: once every older command has its response, the tracked one's
      // port may answer (so its response is taken as soon as shown).
      RspTakenWhenDue: assert (!(t_sent_q && !t_rsp_q && t_rsp_ahead_q == '0) ||
                               cmd_req[t_port_q].rsp_ready);

      // ---- results
      // No result without an instruction committed (without kill) and owed one: none for a
      // killed or uncommitted instruction, none without issue, none twice.
      ResultOnlyCommitted: assert (!result_hs || owed_res_q != '0);
      // The tracked instruction's result (the next once all older ones have theirs) comes only
      // after its response was taken (in this cycle at the latest) ...
      ResultTrackedAfterRsp: assert (!t_res_now || t_sent_q && (t_rsp_q || t_rsp_now));
      // ... with its id and rd, and the response's data and err (exc, code 2).
      ResultTrackedFields: assert (!t_res_now ||
                                   (result_id == t_id_q && result_rd == t_rd_q &&
                                    u_xif.result.we == 1'b1 && result_data == t_rsp_data.data &&
                                    result_exc == t_rsp_data.err &&
                                    result_exccode == (t_rsp_data.err ? 6'd2 : 6'd0) &&
                                    !result_other));
      // Once its response is taken and every older one has its result, the result is offered.
      ResultTrackedShown: assert (!(trk_q && t_live_q && t_rsp_q && !t_done_q &&
                                    t_res_before_q == '0) || result_valid);
      // A result shown stays, unchanged, until taken (the X-IF handshake).
      ResultHeld: assert (!res_wait_q || (result_valid && result_id == res_prev_id_q &&
                                          result_rd == res_prev_rd_q &&
                                          result_data == res_prev_data_q &&
                                          result_exc == res_prev_exc_q));
      // A command shown stays, unchanged, until taken (the command-port rule, requester side).
      CmdHeld: assert (!cmd_wait_q || (cmd_req[cmd_prev_port_q].valid &&
                                       cmd_req[cmd_prev_port_q].cmd == cmd_prev_q));

      // ---- the compressed and memory interfaces stay idle
      OtherIfIdle: assert (u_xif.compressed_ready && u_xif.compressed_resp == '0 &&
                           !u_xif.mem_valid);
    end
  end

  // Past values for the stability checks.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      res_wait_q  <= 1'b0;
      cmd_wait_q  <= 1'b0;
      result_hs_q <= 1'b0;
    end else begin
      res_wait_q  <= result_valid && !result_ready_i;
      cmd_wait_q  <= cmd_req[cmd_port].valid && !cmd_ready_i[cmd_port];
      result_hs_q <= result_hs;
    end
  end
  always_ff @(posedge clk_i) begin
    res_prev_id_q   <= result_id;
    res_prev_rd_q   <= result_rd;
    res_prev_data_q <= result_data;
    res_prev_exc_q  <= result_exc;
    cmd_prev_port_q <= cmd_port;
    cmd_prev_q      <= cmd_req[cmd_port].cmd;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owed_cmd_q     <= '0;
      owed_res_q     <= '0;
      trk_q          <= 1'b0;
      t_live_q       <= 1'b0;
      t_good_q       <= 1'b0;
      t_sent_q       <= 1'b0;
      t_rsp_q        <= 1'b0;
      t_done_q       <= 1'b0;
      t_cmd_before_q <= '0;
      t_res_before_q <= '0;
      t_rsp_before_q <= '0;
      t_rsp_ahead_q  <= '0;
    end else begin
      owed_cmd_q <= owed_cmd_q + CntW'(good_commit) - CntW'(cmd_taken);
      owed_res_q <= owed_res_q + CntW'(good_commit) - CntW'(result_hs);

      if (pick) begin
        trk_q          <= 1'b1;
        t_live_q       <= 1'b1;
        t_port_q       <= exp_port;
        t_cmd_q        <= issue_cmd;
        t_id_q         <= issue_id_i;
        t_rd_q         <= issue_instr_i[11:7];
        // Older instructions (one may be committed in this cycle) still owed their command and
        // result once this cycle is over.
        t_cmd_before_q <= owed_cmd_q + CntW'(good_commit) - CntW'(cmd_taken);
        t_res_before_q <= owed_res_q + CntW'(good_commit) - CntW'(result_hs);
      end

      if (t_pend) begin
        // Its commit: with kill it is dead; without, it is owed a command and a result.
        if (commit_pend) begin
          if (commit_kill_i) t_live_q <= 1'b0;
          else               t_good_q <= 1'b1;
        end else if (issue_hs) begin
          t_live_q <= 1'b0;  // killed in ID: no commit will ever come
        end
      end

      if (trk_q && t_live_q && !t_sent_q && cmd_taken) begin
        if (t_cmd_before_q != '0) begin
          t_cmd_before_q <= t_cmd_before_q - 1'b1;
        end else begin
          t_sent_q       <= 1'b1;
          // Responses its port still owes to older commands.
          t_rsp_before_q <= outst_q[t_port_q] - CntW'(rsp_hs[t_port_q]);
          t_rsp_ahead_q  <= outst_q[0] + outst_q[1] - CntW'(rsp_hs[0]) - CntW'(rsp_hs[1]);
        end
      end
      if (t_sent_q && !t_rsp_q && t_rsp_ahead_q != '0 && rsp_hs != '0) begin
        t_rsp_ahead_q <= t_rsp_ahead_q - 1'b1;
      end
      if (t_sent_q && !t_rsp_q && rsp_hs[t_port_q]) begin
        if (t_rsp_before_q != '0) begin
          t_rsp_before_q <= t_rsp_before_q - 1'b1;
        end else begin
          t_rsp_q      <= 1'b1;
          t_rsp_data_q <= cmd_rsp_i[t_port_q].rsp;
        end
      end
      if (trk_q && t_live_q && !t_done_q && result_hs) begin
        if (t_res_before_q != '0) t_res_before_q <= t_res_before_q - 1'b1;
        else                      t_done_q       <= 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------- induction strengthening
  // Not properties of the issue but what makes the proof close at a small k-induction depth:
  // the adapter's queue (read through hierarchical references) against the checker's counters
  // and the core model. Each is proven like the properties; none constrains anything.
  localparam int unsigned PtrW = 2;
  logic [PtrW-1:0]      t_slot_q;  // the tracked instruction's queue slot
  logic [Depth-1:0]     q_valid, q_comm, q_sent, q_done;
  logic [PtrW-1:0]      q_wr, q_last;
  logic [CntW-1:0]      n_owed_cmd, n_owed_res, n_cmd_before, n_res_before, n_rsp_before;
  logic [CntW-1:0]      n_rsp_ahead;
  logic [NumPorts-1:0][CntW-1:0] n_out;
  logic                 in_order, seen_t, seen_unsent, seen_notdone;

  assign q_valid = u_dut.valid_q;
  assign q_comm  = u_dut.committed_q;
  assign q_sent  = u_dut.sent_q;
  assign q_done  = u_dut.done_q;
  assign q_wr    = u_dut.wr_ptr_q;
  assign q_last  = (q_wr == '0) ? PtrW'(Depth - 1) : q_wr - 1'b1;  // the newest allocation

  always_comb begin
    n_owed_cmd   = '0;
    n_owed_res   = '0;
    n_out        = '0;
    n_cmd_before = '0;
    n_res_before = '0;
    n_rsp_before = '0;
    n_rsp_ahead  = '0;
    in_order     = 1'b1;
    seen_t       = 1'b0;
    seen_unsent  = 1'b0;
    seen_notdone = 1'b0;
    for (int pos = 0; pos < Depth; pos++) begin
      logic [PtrW-1:0] sl;
      sl = PtrW'((int'(q_wr) + pos) % Depth);  // age order: the slot at wr_ptr is the oldest
      if (sl == t_slot_q) seen_t = 1'b1;
      if (q_valid[sl]) begin
        n_owed_res = n_owed_res + CntW'(q_comm[sl]);
        n_owed_cmd = n_owed_cmd + CntW'(q_comm[sl] && !q_sent[sl]);
        n_out[u_dut.entry_q[sl].port] = n_out[u_dut.entry_q[sl].port] + CntW'(q_sent[sl] && !q_done[sl]);
        if (!seen_t) begin
          n_res_before = n_res_before + 1'b1;
          n_cmd_before = n_cmd_before + CntW'(q_comm[sl] && !q_sent[sl]);
          n_rsp_before = n_rsp_before + CntW'(q_sent[sl] && !q_done[sl] &&
                                              u_dut.entry_q[sl].port == t_port_q);
          n_rsp_ahead  = n_rsp_ahead + CntW'(q_sent[sl] && !q_done[sl]);
        end
        // Commands and responses go in age order: sent and done entries come first.
        if ((q_sent[sl] && seen_unsent) || (q_done[sl] && seen_notdone)) in_order = 1'b0;
        if (!q_sent[sl]) seen_unsent = 1'b1;
        if (!q_done[sl]) seen_notdone = 1'b1;
      end
    end
  end

  // Left out with a mutant, which breaks them on purpose: there the properties must fail.
`ifdef FV_MUTANT_DROP_CMD
  `define FV_MUTANT
`endif
`ifdef FV_MUTANT_DUP_RESULT
  `define FV_MUTANT
`endif
`ifdef FV_MUTANT_KILLED_CMD
  `define FV_MUTANT
`endif
`ifdef FV_MUTANT_UNCOMMITTED_CMD
  `define FV_MUTANT
`endif
`ifdef FV_MUTANT_WRONG_PORT
  `define FV_MUTANT
`endif
`ifdef FV_MUTANT_WRONG_DATA
  `define FV_MUTANT
`endif
`ifndef FV_MUTANT
  always_comb begin
    if (!init_q) begin
      InvWrPtr: assert (q_wr < PtrW'(Depth) && t_slot_q < PtrW'(Depth));
      InvSteps: assert ((q_valid & ((q_sent & ~q_comm) | (q_done & ~q_sent))) == '0);
      InvInOrder: assert (in_order);
      InvOwed: assert (owed_cmd_q == n_owed_cmd && owed_res_q == n_owed_res);
      InvOutstanding: assert (outst_q == n_out);
      // The one held entry without a commit is the accepted instruction awaiting it, the newest.
      InvUncommitted: assert ((q_valid & ~q_comm) ==
                              ((pend_q && pend_acc_q) ? Depth'(1) << q_last : '0) &&
                              (!(pend_q && pend_acc_q) || u_dut.entry_q[q_last].id == pend_id_q));
      InvLate: assert (!late_q || (pend_q && late_id_q != pend_id_q));
      InvRspWait: assert ((rsp_wait_q[0] -> outst_q[0] != '0) && (rsp_wait_q[1] -> outst_q[1] != '0));
      InvResultWait: assert (!res_wait_q ||
                             (u_dut.head_found && q_done[u_dut.head_ptr] &&
                              u_dut.entry_q[u_dut.head_ptr].id == res_prev_id_q &&
                              u_dut.entry_q[u_dut.head_ptr].rd == res_prev_rd_q &&
                              u_dut.rsp_q[u_dut.head_ptr].data == res_prev_data_q &&
                              u_dut.rsp_q[u_dut.head_ptr].err == res_prev_exc_q));
      InvCmdWait: assert (!cmd_wait_q ||
                          (u_dut.disp_found && q_comm[u_dut.disp_ptr] &&
                           u_dut.entry_q[u_dut.disp_ptr].cmd == cmd_prev_q &&
                           u_dut.entry_q[u_dut.disp_ptr].port == cmd_prev_port_q));
      InvTrkSteps: assert ((!t_done_q || t_rsp_q) && (!t_rsp_q || t_sent_q) && (!t_sent_q || t_good_q) &&
                           (!t_good_q || t_live_q) && (trk_q || !t_live_q));
      InvTrkSlot: assert (!(trk_q && t_live_q && !t_done_q) ||
                          (q_valid[t_slot_q] && q_comm[t_slot_q] == t_good_q &&
                           q_sent[t_slot_q] == t_sent_q && q_done[t_slot_q] == t_rsp_q &&
                           u_dut.entry_q[t_slot_q].port == t_port_q &&
                           u_dut.entry_q[t_slot_q].id == t_id_q &&
                           u_dut.entry_q[t_slot_q].rd == t_rd_q &&
                           u_dut.entry_q[t_slot_q].cmd == t_cmd_q &&
                           (!t_rsp_q || u_dut.rsp_q[t_slot_q] == t_rsp_data_q)));
      InvTrkBefore: assert (!(trk_q && t_live_q && !t_done_q) ||
                            (t_res_before_q == n_res_before &&
                             (t_sent_q || t_cmd_before_q == n_cmd_before) &&
                             (!t_sent_q || t_rsp_q || (t_rsp_before_q == n_rsp_before &&
                                                       t_rsp_ahead_q == n_rsp_ahead))));
    end
  end
`endif

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)   t_slot_q <= '0;
    else if (pick) t_slot_q <= q_wr;
  end

  // Reachability (not run by `couplet prove`; `-D FV_COVER`, mode cover): the scenarios the
  // checks are about do occur under the assumptions, so the proof is not vacuous.
`ifdef FV_COVER
  always_comb begin
    if (!init_q) begin
      CoverFull: cover (q_valid == '1);
      // An accepted instruction killed in ID is dropped at the next handshake, whose
      // instruction reuses its id.
      CoverIdReuse: cover (accept_hs && pend_q && pend_acc_q && !commit_pend &&
                           issue_id_i == pend_id_q);
      // A rejected instruction's late commit while an accepted one awaits its own.
      CoverLateCommit: cover (commit_late && pend_q && pend_acc_q);
      // The older instruction's commit in the cycle of the next one's issue handshake.
      CoverCommitWithIssue: cover (good_commit && accept_hs);
      // A commit_kill while an older instruction's command awaits its response.
      CoverKillBehindSent: cover (commit_pend && pend_acc_q && commit_kill_i && n_out != '0);
      // The tracked command taken while the other port still owes an older response.
      CoverTrackedCmdInterleaved: cover (t_cmd_now && outst_q[!t_port_q] != '0);
      // The tracked result, after a response that was stored (not passed through).
      CoverTrackedResultStored: cover (t_res_now && t_rsp_q && t_rsp_data_q.err);
      // Issue, command and result in one cycle.
      CoverAllInOneCycle: cover (accept_hs && cmd_taken && result_hs);
    end
  end
`endif

  // Choices of the solver: track one accepted instruction at most.
  always_comb begin
    if (!init_q) begin
      TrackOnce: assume (!track_i || (!trk_q && accept_hs));
    end
  end

  logic unused;
  assign unused = ^{u_xif.result.we, commit_valid_dut, uncommitted_hit};

endmodule
