// Property checks of couplet_obi_arbiter (`couplet prove obi_arbiter`, docs/formal.md).
//
// Three masters and the slave are left to the solver, bound by the OBI rules (couplet_obi_fv_port)
// and, for the slave, by latency bounds. Three masters are the fewest in which a master can be
// passed over by a round-robin pointer from either side; two entries in flight are the fewest in
// which responses of different masters queue behind each other.
//
// Checked: every master's port and the slave's keep the OBI rules; a waiting master is granted
// within a bound (round-robin never starves one) and answered within a bound; the slave sees one
// master's request with all its fields, and exactly one master is granted when the slave takes a
// request; and the response to a request of master i, chosen by the solver (track_i), goes to
// master i alone, with the slave's data, when the slave answers it.
module couplet_obi_arbiter_fv
  import couplet_obi_pkg::*;
(
  input logic                 clk_i,
  input logic                 rst_ni,
  input obi_req_t [2:0]       m_req_i,
  input obi_rsp_t             s_rsp_i,
  input logic                 track_i,
  input logic                 mutate_i
);

  localparam int unsigned NumMasters     = 3;
  localparam int unsigned MaxOutstanding = 2;

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutants

  obi_rsp_t [2:0] m_rsp, m_rsp_dut;
  obi_req_t       s_req;

  couplet_obi_arbiter #(
    .NumMasters     (NumMasters),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .m_req_i (m_req_i),
    .m_rsp_o (m_rsp_dut),
    .s_req_o (s_req),
    .s_rsp_i (s_rsp_i)
  );

  // Mutants (`couplet prove` shows that each makes a check fail): the harness itself, not the RTL,
  // hands a response to the wrong master, or loses a grant, in a cycle the solver picks.
  always_comb begin
    m_rsp = m_rsp_dut;
`ifdef FV_MUTANT_MISROUTE
    if (mutate_i) begin
      m_rsp[0].rvalid = m_rsp_dut[1].rvalid;
      m_rsp[1].rvalid = m_rsp_dut[0].rvalid;
    end
`endif
`ifdef FV_MUTANT_DROP_GNT
    if (mutate_i) m_rsp[2].gnt = 1'b0;
`endif
  end

  // ------------------------------------------------------------------ ports
  logic [2:0][3:0] m_out, m_wait;
  logic [3:0]      s_out, s_wait;
  logic unused_waits;
  assign unused_waits = ^{m_wait, s_wait};  // the ports check their bounds themselves

  for (genvar i = 0; i < NumMasters; i++) begin : gen_master
    couplet_obi_fv_port #(
      .DutIsSlave     (1'b1),
      .MaxOutstanding (MaxOutstanding),
      // The least bounds that prove (9 and 5 fail): a master waits for at most one access of
      // each other master, each of which may wait for the slave's grant and for a response to
      // free an entry in flight.
      .MaxGntWait     (10),
      .MaxRspWait     (6)
    ) u_master (
      .clk_i, .rst_ni, .req_i(m_req_i[i]), .rsp_i(m_rsp[i]), .outstanding_o(m_out[i]),
      .rsp_wait_o(m_wait[i])
    );
  end

  couplet_obi_fv_port #(
    .DutIsMaster    (1'b1),
    .MaxOutstanding (MaxOutstanding),
    .MaxGntWait     (2),
    .MaxRspWait     (3)
  ) u_slave (
    .clk_i, .rst_ni, .req_i(s_req), .rsp_i(s_rsp_i), .outstanding_o(s_out), .rsp_wait_o(s_wait)
  );

  // ------------------------------------------------------------------ forwarding and grants
  logic [2:0] gnt, rvalid, shown;
  for (genvar i = 0; i < NumMasters; i++) begin : gen_flags
    assign gnt[i]    = m_rsp[i].gnt && m_req_i[i].req;
    assign rvalid[i] = m_rsp[i].rvalid;
    assign shown[i]  = m_req_i[i].req && (s_req == m_req_i[i]);
  end

  logic s_accept;
  assign s_accept = s_req.req && s_rsp_i.gnt;

  always_comb begin
    if (rst_ni && !init_q) begin
      // The slave sees some requesting master's request, whole.
      Forwarded: assert (!s_req.req || shown != '0);
      // One master is granted exactly when the slave takes a request, and it is the one shown.
      OneGrant: assert ($onehot0(gnt) && ((gnt != '0) == s_accept) && ((gnt & ~shown) == '0));
      // One response at most, and only when the slave answers.
      OneResponse: assert ($onehot0(rvalid) && ((rvalid != '0) == s_rsp_i.rvalid));
      // Induction invariants: what the ports count is what the arbiter holds.
      Counts: assert (s_out == 4'(u_dut.count_q) && m_out[0] + m_out[1] + m_out[2] == s_out &&
                      32'(u_dut.wptr_q) == (32'(u_dut.rptr_q) + 32'(u_dut.count_q)) % MaxOutstanding);
      IndexInRange: assert (32'(u_dut.rr_q) < NumMasters && 32'(u_dut.lock_idx_q) < NumMasters);
    end
  end

  // Every response field but rvalid is the slave's.
  for (genvar i = 0; i < NumMasters; i++) begin : gen_data
    always_comb begin
      if (rst_ni && !init_q && rvalid[i]) begin
        SharedData: assert (m_rsp[i].rdata == s_rsp_i.rdata && m_rsp[i].err == s_rsp_i.err &&
                            m_rsp[i].exokay == s_rsp_i.exokay);
      end
    end
  end

  // Induction invariants: each master has as many entries in the arbiter's routing queue as it
  // has requests in flight, and the master held selected is one whose request waits.
  for (genvar i = 0; i < NumMasters; i++) begin : gen_queue
    logic [3:0] queued;
    always_comb begin
      queued = '0;
      for (int unsigned k = 0; k < MaxOutstanding; k++) begin
        if (k < 32'(u_dut.count_q) &&
            u_dut.owner_q[(32'(u_dut.rptr_q) + k) % MaxOutstanding] == 2'(i)) begin
          queued = queued + 4'd1;
        end
      end
    end
    always_comb begin
      if (rst_ni && !init_q) begin
        QueuedPerMaster: assert (queued == m_out[i]);
        // The master the arbiter holds selected is one whose request is waiting for its grant.
        if (u_dut.lock_q && u_dut.lock_idx_q == 2'(i)) begin
          LockedWaits: assert (gen_master[i].u_master.waiting_q);
        end
      end
    end
  end

  // ------------------------------------------------------------------ the tracked request
  logic       t_active_q;
  logic [1:0] t_master_q;
  logic [3:0] t_ahead_q;  // the slave's responses before the tracked one

  logic [1:0] granted;
  always_comb begin
    granted = '0;
    for (int unsigned i = 0; i < NumMasters; i++) begin
      if (gnt[i]) granted = 2'(i);
    end
  end

  logic t_answer;  // the slave answers the tracked request now
  assign t_answer = t_active_q && s_rsp_i.rvalid && t_ahead_q == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      t_active_q <= 1'b0;
      t_master_q <= '0;
      t_ahead_q  <= '0;
    end else if (!t_active_q) begin
      if (s_accept && track_i) begin
        t_active_q <= 1'b1;
        t_master_q <= granted;
        t_ahead_q  <= s_out - 4'(s_rsp_i.rvalid);
      end
    end else begin
      if (t_answer) t_active_q <= 1'b0;
      t_ahead_q <= t_ahead_q - 4'(s_rsp_i.rvalid);
    end
  end

  always_comb begin
    if (rst_ni && !init_q && t_active_q) begin
      // The slave's answer to the tracked request goes to the master that sent it.
      if (t_answer) begin
        ToItsMaster: assert (rvalid == (3'b001 << t_master_q));
      end
      // Induction invariants: the tracked request is in flight and its owner is queued for it.
      TrackedInFlight: assert (t_ahead_q < s_out && m_out[t_master_q] != '0 &&
                               u_dut.owner_q[(32'(u_dut.rptr_q) + 32'(t_ahead_q)) % MaxOutstanding] ==
                               t_master_q);
    end
  end

endmodule
