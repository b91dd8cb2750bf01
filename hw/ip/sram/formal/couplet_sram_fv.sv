// Property checks of couplet_sram's two bus ports (`couplet prove sram`, docs/formal.md).
//
// Both masters are left to the solver, bound by the OBI rules (couplet_obi_fv_port); any access,
// atomics included, may come on port B. The memory is 16 words: the logic does not depend on the
// size but for the index width. Checked: both ports keep the OBI rules; port A is granted at once
// and answers in the next cycle, a write there with an error; port B is granted at once, or in
// the cycle after when an atomic's second cycle holds it off, and answers in the next cycle;
// and a load, on either port, of a word the solver picks (t_idx) returns each byte that was last
// written there by a plain store of port B (a byte no plain store wrote, or one an atomic or SC
// may have changed, is not checked; a fetch in the cycle port B writes that word may see either
// value, as the RTL says).
module couplet_sram_fv
  import couplet_obi_pkg::*;
(
  input logic     clk_i,
  input logic     rst_ni,
  input obi_req_t a_req_i,
  input obi_req_t b_req_i,
  input logic [3:0] t_idx_i,
  input logic     mutate_i
);

  localparam int unsigned SizeBytes = 64;

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  // The decoder sends the offset within the SRAM's region (couplet_obi_demux, proven apart).
  always_comb begin
    if (!init_q) begin
      OffsetInRegionA: assume (a_req_i.addr < 32'(SizeBytes));
      OffsetInRegionB: assume (b_req_i.addr < 32'(SizeBytes));
    end
  end

  // The tracked word stays the same word for the whole run.
  logic [3:0] t_idx_q;
  always_ff @(posedge clk_i) t_idx_q <= t_idx_i;
  always_comb begin
    if (!init_q) assume (t_idx_i == t_idx_q);
  end

  obi_rsp_t a_rsp, b_rsp, b_rsp_dut;

  couplet_sram #(.SizeBytes(SizeBytes)) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .a_req_i (a_req_i),
    .a_rsp_o (a_rsp),
    .b_req_i (b_req_i),
    .b_rsp_o (b_rsp_dut)
  );

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutant

  // Mutant (`couplet prove` shows that it makes a check fail): the harness itself, not the RTL,
  // flips a bit of port B's read data in a cycle the solver picks.
  always_comb begin
    b_rsp = b_rsp_dut;
`ifdef FV_MUTANT_FLIP_BIT
    if (mutate_i) b_rsp.rdata[0] = !b_rsp_dut.rdata[0];
`endif
  end

  logic [3:0] a_out, a_wait, b_out, b_wait;
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (1),
    .MaxGntWait     (1),
    .MaxRspWait     (2)
  ) u_port_a (
    .clk_i, .rst_ni, .req_i(a_req_i), .rsp_i(a_rsp), .outstanding_o(a_out), .rsp_wait_o(a_wait)
  );
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (1),
    .MaxGntWait     (2),
    .MaxRspWait     (2)
  ) u_port_b (
    .clk_i, .rst_ni, .req_i(b_req_i), .rsp_i(b_rsp), .outstanding_o(b_out), .rsp_wait_o(b_wait)
  );

  // ------------------------------------------------------------------ the tracked word
  logic a_accept, b_accept, a_hit, b_hit, b_plain;
  assign a_accept = a_req_i.req && a_rsp.gnt;
  assign b_accept = b_req_i.req && b_rsp.gnt;
  assign a_hit    = a_req_i.addr[5:2] == t_idx_q;
  assign b_hit    = b_req_i.addr[5:2] == t_idx_q;
  assign b_plain  = !b_req_i.atop[5];

  logic [3:0]  known_q, known_d;  // bytes of the word whose value the harness knows
  logic [31:0] shadow_q, shadow_d;
  always_comb begin
    known_d  = known_q;
    shadow_d = shadow_q;
    if (b_accept && b_hit && b_req_i.we) begin
      for (int unsigned i = 0; i < 4; i++) begin
        if (b_req_i.be[i] || !b_plain) begin
          known_d[i]         = b_plain;  // an SC or an atomic may have changed it: unknown
          shadow_d[8*i +: 8] = b_req_i.wdata[8*i +: 8];
        end
      end
    end
    if (b_accept && b_hit && !b_req_i.we && b_req_i.atop[5] &&
        b_req_i.atop[4:0] != 5'b00010) begin
      known_d = '0;  // an AMO (its atop says read; it writes in its second cycle)
    end
  end

  // What each port's answer to a load of the word must show (bytes, and which of them).
  logic [3:0]  a_check_q, b_check_q;
  logic [31:0] a_expect_q, b_expect_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      known_q    <= '0;
      shadow_q   <= '0;
      a_check_q  <= '0;
      b_check_q  <= '0;
      a_expect_q <= '0;
      b_expect_q <= '0;
    end else begin
      known_q    <= known_d;
      shadow_q   <= shadow_d;
      // A fetch in the cycle port B writes the word may read either value: not checked then.
      a_check_q  <= (a_accept && a_hit && !a_req_i.we &&
                     !(b_accept && b_hit && b_req_i.we)) ? known_q : '0;
      a_expect_q <= shadow_q;
      b_check_q  <= (b_accept && b_hit && !b_req_i.we && b_plain) ? known_q : '0;
      b_expect_q <= shadow_q;
    end
  end

  function automatic logic bytes_equal(logic [31:0] a, logic [31:0] b, logic [3:0] mask);
    for (int unsigned i = 0; i < 4; i++) begin
      if (mask[i] && a[8*i +: 8] != b[8*i +: 8]) return 1'b0;
    end
    return 1'b1;
  endfunction

  logic a_write_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) a_write_q <= 1'b0;
    else         a_write_q <= a_accept && a_req_i.we;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      // Both ports answer in the cycle after the grant; port A refuses writes.
      AnswerNextCycleA: assert (a_rsp.rvalid == (a_out == 4'd1) && a_wait <= 4'd1);
      AnswerNextCycleB: assert (b_rsp.rvalid == (b_out == 4'd1) && b_wait <= 4'd1);
      if (a_rsp.rvalid) begin
        FetchWriteIsError: assert (a_rsp.err == a_write_q);
      end
      // A load returns what the last plain store wrote.
      LoadReturnsStoreA: assert (!a_rsp.rvalid || bytes_equal(a_rsp.rdata, a_expect_q, a_check_q));
      LoadReturnsStoreB: assert (!b_rsp.rvalid || bytes_equal(b_rsp.rdata, b_expect_q, b_check_q));
      // Induction invariant: the known bytes are the memory's.
      ShadowIsMemory: assert (bytes_equal(u_dut.mem_q[t_idx_q], shadow_q, known_q));
    end
  end

endmodule
