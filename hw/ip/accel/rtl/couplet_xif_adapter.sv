// Custom instructions over the CV32E40X's CV-X-IF (the core's pre-1.0 draft) onto NumPorts
// accelerator command ports (docs/coupling.md).
//
// An instruction with (instr & PortMask[k]) == PortMatch[k] (lowest k wins) is accepted at issue
// and held in a queue of Depth entries with its operands. It becomes the command
// {op = funct3, index = funct7, op_a = rs1, op_b = rs2} on port k only once the core has
// committed it, and its response becomes the result (rd = instr[11:7], we = 1, exc with code 2
// for rsp.err). Commands leave in issue order, several may be in flight, and results return in
// issue order; a killed instruction never reaches an accelerator and has no result. Any other
// instruction is refused at once (accept = 0), so the core raises an illegal instruction.
//
// The queue follows the CV32E40X 0.6.0 pipeline (issue in ID, commit in EX, result in WB):
// - A commit is for the instruction in EX, which was issued in an earlier cycle; so a commit is
//   matched against held, not yet committed entries only, never against the instruction being
//   issued in the same cycle. (Ids are not unique in this core: after a pipeline bubble or a
//   kill the next offloaded instruction gets the previous one's id.)
// - An instruction killed while still in ID gets no commit at all. By the next issue handshake
//   (accepted or not) every earlier instruction has had its commit, in the same cycle at the
//   latest, or has been killed in ID; so at a handshake every held entry without a commit so
//   far or in this cycle is dropped. Otherwise it would block the queue head forever.
// - Every committed instruction reaches WB and takes its result: the core blocks interrupts and
//   debug while an offloaded instruction is in WB, and halts EX only together with ID.
// - result.exc suppresses the write of rd; this core does not trap on it. A core that did would
//   kill younger instructions that may already be committed here.
//
// Timing: dispatch is combinational from commit_valid, and a response from the accelerator feeds
// the result combinationally when its instruction is the oldest: with an accelerator answering
// in the cycle after the command, the result is there when the instruction reaches WB, and
// back-to-back instructions complete one per cycle. issue_ready depends only on the queue state
// and the instruction. Accelerators must not answer in the cycle they take a command (no
// combinational path from cmd to rsp), or commit -> cmd -> rsp -> result would be a loop
// through the core.
module couplet_xif_adapter
  import couplet_accel_pkg::*;
#(
  parameter int unsigned               NumPorts   = 1,
  // Instruction bits that must match, per port; the default claims CUSTOM_0 (opcode 0x0b).
  parameter logic [NumPorts-1:0][31:0] PortMask   = {NumPorts{32'h0000_007f}},
  parameter logic [NumPorts-1:0][31:0] PortMatch  = {NumPorts{32'h0000_000b}},
  // Accepted instructions held from issue to result. The CV32E40X has at most three in flight
  // (ID, EX, WB), so with Depth >= 3 issue is never held back; each entry more costs its
  // command, operands and response (about 120 flops) and a wider read of the queue.
  parameter int unsigned               Depth      = 3
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,

  if_xif.coproc_compressed           xif_compressed_if,
  if_xif.coproc_issue                xif_issue_if,
  if_xif.coproc_commit               xif_commit_if,
  if_xif.coproc_mem                  xif_mem_if,
  if_xif.coproc_mem_result           xif_mem_result_if,
  if_xif.coproc_result               xif_result_if,

  // One command port per accelerator; every port shows the same command, valid on one at most.
  output accel_cmd_req_t [NumPorts-1:0] cmd_req_o,
  input  logic [NumPorts-1:0]           cmd_ready_i,
  input  accel_cmd_rsp_t [NumPorts-1:0] cmd_rsp_i
);

  localparam int unsigned IdWidth  = xif_commit_if.X_ID_WIDTH;
  localparam int unsigned PortW    = (NumPorts > 1) ? $clog2(NumPorts) : 1;
  localparam int unsigned PtrW     = (Depth > 1) ? $clog2(Depth) : 1;
  localparam logic [5:0]  ExcIllegalInsn = 6'd2;

  if (Depth < 2) begin : gen_depth_check
    $error("couplet_xif_adapter: Depth must be at least 2");
  end

  typedef logic [PtrW-1:0] ptr_t;

  typedef struct packed {
    logic [PortW-1:0]   port;
    logic [IdWidth-1:0] id;
    logic [4:0]         rd;
    accel_cmd_t         cmd;
  } entry_t;

  // ---------------------------------------------------------------------------------- issue
  logic [31:0]      instr;
  logic             match;
  logic [PortW-1:0] match_port;

  assign instr = xif_issue_if.issue_req.instr;

  always_comb begin
    match      = 1'b0;
    match_port = '0;
    for (int k = NumPorts - 1; k >= 0; k--) begin
      if ((instr & PortMask[k]) == PortMatch[k]) begin
        match      = 1'b1;
        match_port = PortW'(k);
      end
    end
  end

  // Entries live in slots allocated round-robin at wr_ptr; a slot is freed when its result is
  // taken or its instruction is dropped, possibly out of order. The slot at wr_ptr is always
  // the oldest allocation, so age order is the slot order starting at wr_ptr.
  ptr_t                   wr_ptr_q, wr_ptr_d;
  logic [Depth-1:0]       valid_q, valid_d;
  logic [Depth-1:0]       committed_q, committed_d;
  logic [Depth-1:0]       sent_q, sent_d;
  logic [Depth-1:0]       done_q, done_d;
  entry_t [Depth-1:0]     entry_q, entry_d;
  accel_rsp_t [Depth-1:0] rsp_q, rsp_d;

  function automatic ptr_t slot_at(ptr_t base, int unsigned pos);
    int unsigned sum;
    sum = int'(base) + pos;
    if (sum >= Depth) sum -= Depth;
    return ptr_t'(sum);
  endfunction

  logic full, issue_hs, accept_hs;
  assign full      = valid_q[wr_ptr_q];
  assign issue_hs  = xif_issue_if.issue_valid && xif_issue_if.issue_ready;
  assign accept_hs = issue_hs && match;

  always_comb begin
    xif_issue_if.issue_ready          = !full || !match;
    xif_issue_if.issue_resp           = '0;
    xif_issue_if.issue_resp.accept    = match;
    xif_issue_if.issue_resp.writeback = match;
  end

  // --------------------------------------------------------------------------------- commit
  logic             commit_kill;
  logic [Depth-1:0] commit_hit;  // the commit is for this held entry
  logic [Depth-1:0] drop;        // held entries that must have been killed in ID

  assign commit_kill = xif_commit_if.commit.commit_kill;

  always_comb begin
    for (int unsigned s = 0; s < Depth; s++) begin
      commit_hit[s] = xif_commit_if.commit_valid && valid_q[s] && !committed_q[s] &&
                      (entry_q[s].id == xif_commit_if.commit.id);
      drop[s]       = issue_hs && valid_q[s] && !committed_q[s] && !commit_hit[s];
    end
  end

  // ------------------------------------------------------------------- dispatch and response
  // The oldest entry not yet sent goes out once committed; the oldest sent entry without a
  // response is the only one whose port may answer, so responses pair up in order.
  logic             disp_found, rsp_found, head_found;
  ptr_t             disp_ptr, rsp_ptr, head_ptr;
  logic             disp_ok, cmd_hs, rsp_hs, head_live, result_hs;
  logic [PortW-1:0] disp_port, rsp_port;
  accel_rsp_t       rsp_in;

  always_comb begin
    disp_found = 1'b0;
    rsp_found  = 1'b0;
    head_found = 1'b0;
    disp_ptr   = '0;
    rsp_ptr    = '0;
    head_ptr   = '0;
    for (int unsigned pos = 0; pos < Depth; pos++) begin
      ptr_t s;
      s = slot_at(wr_ptr_q, pos);
      if (valid_q[s] && !head_found) begin
        head_found = 1'b1;
        head_ptr   = s;
      end
      if (valid_q[s] && !sent_q[s] && !disp_found) begin
        disp_found = 1'b1;
        disp_ptr   = s;
      end
      if (valid_q[s] && sent_q[s] && !done_q[s] && !rsp_found) begin
        rsp_found = 1'b1;
        rsp_ptr   = s;
      end
    end
  end

  assign disp_port = entry_q[disp_ptr].port;
  assign rsp_port  = entry_q[rsp_ptr].port;
  assign disp_ok   = disp_found &&
                     (committed_q[disp_ptr] || (commit_hit[disp_ptr] && !commit_kill));
  assign cmd_hs    = disp_ok && cmd_ready_i[disp_port];
  assign rsp_in    = cmd_rsp_i[rsp_port].rsp;
  assign rsp_hs    = rsp_found && cmd_rsp_i[rsp_port].rsp_valid;

  always_comb begin
    for (int unsigned k = 0; k < NumPorts; k++) begin
      cmd_req_o[k] = '{valid:     disp_ok && (disp_port == PortW'(k)),
                       cmd:       entry_q[disp_ptr].cmd,
                       rsp_ready: rsp_found && (rsp_port == PortW'(k))};
    end
  end

  // ----------------------------------------------------------------------------------- result
  // A sent entry at the head without a stored response is the response slot (rsp_ptr).
  assign head_live = head_found && sent_q[head_ptr] && !done_q[head_ptr] && rsp_hs;

  always_comb begin
    accel_rsp_t res;
    res = done_q[head_ptr] ? rsp_q[head_ptr] : rsp_in;
    xif_result_if.result_valid   = head_found && (done_q[head_ptr] || head_live);
    xif_result_if.result         = '0;
    xif_result_if.result.id      = entry_q[head_ptr].id;
    xif_result_if.result.rd      = entry_q[head_ptr].rd;
    xif_result_if.result.we      = '1;
    xif_result_if.result.data    = res.data;
    xif_result_if.result.exc     = res.err;
    xif_result_if.result.exccode = res.err ? ExcIllegalInsn : 6'd0;
  end

  assign result_hs = xif_result_if.result_valid && xif_result_if.result_ready;

  // ------------------------------------------------------------------------------ next state
  always_comb begin
    wr_ptr_d    = wr_ptr_q;
    valid_d     = valid_q;
    committed_d = committed_q;
    sent_d      = sent_q;
    done_d      = done_q;
    entry_d     = entry_q;
    rsp_d       = rsp_q;

    for (int unsigned s = 0; s < Depth; s++) begin
      if (drop[s]) valid_d[s] = 1'b0;
      if (commit_hit[s]) begin
        committed_d[s] = 1'b1;
        if (commit_kill) valid_d[s] = 1'b0;
      end
    end
    if (cmd_hs) sent_d[disp_ptr] = 1'b1;
    if (rsp_hs) begin
      done_d[rsp_ptr] = 1'b1;
      rsp_d[rsp_ptr]  = rsp_in;
    end
    if (result_hs) valid_d[head_ptr] = 1'b0;

    if (accept_hs) begin
      valid_d[wr_ptr_q]     = 1'b1;
      committed_d[wr_ptr_q] = 1'b0;
      sent_d[wr_ptr_q]      = 1'b0;
      done_d[wr_ptr_q]      = 1'b0;
      entry_d[wr_ptr_q]     = '{port:  match_port,
                                id:    xif_issue_if.issue_req.id,
                                rd:    instr[11:7],
                                cmd:   '{op:    accel_op_e'(instr[14:12]),
                                         index: instr[31:25],
                                         op_a:  xif_issue_if.issue_req.rs[0],
                                         op_b:  xif_issue_if.issue_req.rs[1]}};
      wr_ptr_d              = slot_at(wr_ptr_q, 1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q    <= '0;
      valid_q     <= '0;
      committed_q <= '0;
      sent_q      <= '0;
      done_q      <= '0;
    end else begin
      wr_ptr_q    <= wr_ptr_d;
      valid_q     <= valid_d;
      committed_q <= committed_d;
      sent_q      <= sent_d;
      done_q      <= done_d;
    end
  end

  // Payload registers need no reset: every use is qualified by valid/sent/done.
  always_ff @(posedge clk_i) begin
    entry_q <= entry_d;
    rsp_q   <= rsp_d;
  end

  // ------------------------------------------------------------------------------- tie-offs
  // No compressed custom instructions; memory goes through the accelerators' own DMA port.
  assign xif_compressed_if.compressed_ready = 1'b1;
  assign xif_compressed_if.compressed_resp  = '0;
  assign xif_mem_if.mem_valid               = 1'b0;
  assign xif_mem_if.mem_req                 = '0;

  logic unused_inputs;
  assign unused_inputs = ^{xif_compressed_if.compressed_valid, xif_compressed_if.compressed_req,
                           xif_issue_if.issue_req.mode, xif_issue_if.issue_req.rs_valid,
                           xif_issue_if.issue_req.ecs, xif_issue_if.issue_req.ecs_valid,
                           xif_mem_if.mem_ready, xif_mem_if.mem_resp,
                           xif_mem_result_if.mem_result_valid, xif_mem_result_if.mem_result};

`ifndef SYNTHESIS
  // In every held entry each step follows the one before: sent to an accelerator only once
  // committed (so a killed instruction never reaches one), answered only once sent. A free entry
  // keeps its flags until it is allocated again, so only held ones are checked. (A reset-style
  // block, so that rst_ni stays an asynchronous reset only.)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      EntryStepsInOrder: assert ((valid_q & ((sent_q & ~committed_q) | (done_q & ~sent_q))) == '0);
    end
  end
`endif

endmodule
