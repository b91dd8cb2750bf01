// Property checks of couplet_obi_fence (`couplet prove obi_fence`, docs/formal.md).
//
// The master and the slave are left to the solver, bound by the OBI rules (couplet_obi_fv_port)
// and, for the slave, by latency bounds; the master keeps up to four accesses in flight, as the
// DMA engine does. Checked: the master's port keeps the OBI rules with bounded grant and
// response; no request to the fenced region reaches the slave, every other one reaches it whole,
// exactly when the master is granted; and the k-th response to the master (k left to the solver,
// track_i) is the answer to its k-th request: the slave's for a request it took, an error for
// a fenced one (its data means nothing, OBI rule 4).
module couplet_obi_fence_fv
  import couplet_obi_pkg::*;
(
  input logic     clk_i,
  input logic     rst_ni,
  input obi_req_t m_req_i,
  input obi_rsp_t s_rsp_i,
  input logic     track_i,
  input logic     mutate_i
);

  localparam logic [31:0] Base           = 32'h1100_0000;
  localparam logic [31:0] Size           = 32'h0000_1000;
  localparam int unsigned MaxOutstanding = 4;

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutant

  obi_rsp_t m_rsp, m_rsp_dut;
  obi_req_t s_req, s_req_dut;

  couplet_obi_fence #(
    .Base           (Base),
    .Size           (Size),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .m_req_i (m_req_i),
    .m_rsp_o (m_rsp_dut),
    .s_req_o (s_req_dut),
    .s_rsp_i (s_rsp_i)
  );

  // Mutant (`couplet prove` shows that it makes a check fail): the harness itself, not the RTL,
  // lets a fenced request through to the slave in a cycle the solver picks.
  always_comb begin
    m_rsp = m_rsp_dut;
    s_req = s_req_dut;
`ifdef FV_MUTANT_LEAK
    if (mutate_i) s_req.req = m_req_i.req;
`endif
  end

  logic [3:0] m_out, m_wait, s_out, s_wait;
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (MaxOutstanding),
    .MaxGntWait     (13),  // the least that proves (12 fails): a fenced request waits for four answers
    .MaxRspWait     (3)    // the slave's own bound: the fence adds no cycle
  ) u_master (
    .clk_i, .rst_ni, .req_i(m_req_i), .rsp_i(m_rsp), .outstanding_o(m_out), .rsp_wait_o(m_wait)
  );
  couplet_obi_fv_port #(
    .DutIsMaster    (1'b1),
    .MaxOutstanding (MaxOutstanding),
    .MaxGntWait     (2),
    .MaxRspWait     (3)
  ) u_slave (
    .clk_i, .rst_ni, .req_i(s_req), .rsp_i(s_rsp_i), .outstanding_o(s_out), .rsp_wait_o(s_wait)
  );

  // The region as a range, written apart from the fence's mask.
  logic fenced;
  assign fenced = m_req_i.addr >= Base && m_req_i.addr - Base < Size;

  logic m_accept, s_accept;
  assign m_accept = m_req_i.req && m_rsp.gnt;
  assign s_accept = s_req.req && s_rsp_i.gnt;

  always_comb begin
    if (rst_ni && !init_q) begin
      // A fenced request never reaches the slave; any other does, whole, when it is granted.
      NeverFenced: assert (!s_req.req || (m_req_i.req && !fenced));
      PassedWhole: assert (!s_req.req || (s_req.addr == m_req_i.addr && s_req.we == m_req_i.we &&
                                          s_req.be == m_req_i.be && s_req.wdata == m_req_i.wdata &&
                                          s_req.atop == m_req_i.atop));
      SlaveTakesOnGrant: assert (s_accept == (m_accept && !fenced));
      // Induction invariants: the slave's requests in flight are the fence's count, and a
      // fenced request's error is alone in flight.
      Counts: assert (s_out == 4'(u_dut.outstanding_q) && m_out == s_out + 4'(u_dut.err_q) &&
                      (!u_dut.err_q || s_out == '0) && m_wait <= (u_dut.err_q ? 4'd1 : s_wait));
    end
  end

  // ------------------------------------------------------------------ the tracked request
  logic       t_active_q, t_fenced_q;
  logic [3:0] t_m_ahead_q, t_s_ahead_q;

  logic t_ours;
  assign t_ours = t_active_q && m_rsp.rvalid && t_m_ahead_q == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      t_active_q  <= 1'b0;
      t_fenced_q  <= 1'b0;
      t_m_ahead_q <= '0;
      t_s_ahead_q <= '0;
    end else if (!t_active_q) begin
      if (m_accept && track_i) begin
        t_active_q  <= 1'b1;
        t_fenced_q  <= fenced;
        t_m_ahead_q <= m_out - 4'(m_rsp.rvalid);
        t_s_ahead_q <= s_out - 4'(s_rsp_i.rvalid);
      end
    end else begin
      if (t_ours) t_active_q <= 1'b0;
      t_m_ahead_q <= t_m_ahead_q - 4'(m_rsp.rvalid);
      t_s_ahead_q <= t_s_ahead_q - 4'(s_rsp_i.rvalid);
    end
  end

  always_comb begin
    if (rst_ni && !init_q && t_active_q) begin
      if (t_ours && t_fenced_q) begin
        FencedIsError: assert (m_rsp.err && !s_rsp_i.rvalid);
      end
      if (t_ours && !t_fenced_q) begin
        SlaveAnswer: assert (s_rsp_i.rvalid && t_s_ahead_q == '0 && m_rsp.rdata == s_rsp_i.rdata &&
                             m_rsp.err == s_rsp_i.err && m_rsp.exokay == s_rsp_i.exokay);
      end
      if (!t_fenced_q && s_rsp_i.rvalid && t_s_ahead_q == '0) begin
        SlaveAnswerPassed: assert (t_ours);
      end
      // Induction invariants: the tracked request is in flight, on the side that answers it.
      TrackedInFlight: assert (t_m_ahead_q < m_out &&
                               (t_fenced_q ? (u_dut.err_q && t_m_ahead_q == '0)
                                           : (t_s_ahead_q == t_m_ahead_q && t_s_ahead_q < s_out)));
    end
  end

endmodule
