// Property checks of couplet_obi_demux (`couplet prove obi_demux`, docs/formal.md).
//
// The master and two slaves are left to the solver, bound by the OBI rules (couplet_obi_fv_port)
// and by latency bounds on the slaves. Two slaves and the error responder are every case the
// decoder has: a request to the slave with requests in flight, to another one, to no slave, and an
// atomic to a slave that takes atomics and to one that does not.
//
// Checked: the master's port keeps the OBI rules with a bounded grant and response (so an
// unmapped address is answered, never stalled); a request reaches the one slave its address
// selects, with its fields and the offset in the region, exactly when the master is granted; and
// the k-th response to the master is the answer to its k-th request: from the slave that took it,
// with that slave's data, or an error for an address no slave takes. The k-th is left to the
// solver (track_i), so the check holds for every request.
module couplet_obi_demux_fv
  import couplet_obi_pkg::*;
(
  input logic                 clk_i,
  input logic                 rst_ni,
  input obi_req_t             m_req_i,
  input obi_rsp_t [1:0]       s_rsp_i,
  input logic                 track_i,
  input logic                 mutate_i
);

  localparam int unsigned NumSlaves = 2;
  localparam logic [NumSlaves-1:0][31:0] Base = {32'h2000_0000, 32'h1000_0000};
  localparam logic [NumSlaves-1:0][31:0] Size = {32'h0000_0100, 32'h0001_0000};
  localparam logic [NumSlaves-1:0]       Atomics = 2'b10;
  localparam int unsigned MaxOutstanding = 2;
  localparam int unsigned None = NumSlaves;  // no slave: the error responder answers

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutants

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  obi_rsp_t             m_rsp, m_rsp_dut;
  obi_req_t [1:0]       s_req, s_req_dut;

  // Mutants (`couplet prove` shows that each makes a check fail): the harness itself, not the RTL,
  // loses the master's response in a cycle the solver picks, or sends a request to the wrong slave.
  always_comb begin
    m_rsp = m_rsp_dut;
    s_req = s_req_dut;
`ifdef FV_MUTANT_DROP_RSP
    if (mutate_i) m_rsp.rvalid = 1'b0;
`endif
`ifdef FV_MUTANT_WRONG_SLAVE
    if (mutate_i) begin
      s_req[0].req = s_req_dut[1].req;
      s_req[1].req = s_req_dut[0].req;
    end
`endif
  end

  couplet_obi_demux #(
    .NumSlaves      (NumSlaves),
    .SlaveBase      (Base),
    .SlaveSize      (Size),
    .SlaveAtomics   (Atomics),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .m_req_i (m_req_i),
    .m_rsp_o (m_rsp_dut),
    .s_req_o (s_req_dut),
    .s_rsp_i (s_rsp_i)
  );

  // ------------------------------------------------------------------ ports
  logic [3:0] m_out, m_wait;
  logic [1:0][3:0] s_out, s_wait;

  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (MaxOutstanding),
    .MaxGntWait     (7),  // the least that proves (6 fails)
    .MaxRspWait     (3)   // the slaves' own bound: the decoder adds no cycle
  ) u_master (
    .clk_i, .rst_ni, .req_i(m_req_i), .rsp_i(m_rsp), .outstanding_o(m_out), .rsp_wait_o(m_wait)
  );

  for (genvar i = 0; i < NumSlaves; i++) begin : gen_slave
    couplet_obi_fv_port #(
      .DutIsMaster    (1'b1),
      .MaxOutstanding (MaxOutstanding),
      .MaxGntWait     (2),
      .MaxRspWait     (3)
    ) u_slave (
      .clk_i, .rst_ni, .req_i(s_req[i]), .rsp_i(s_rsp_i[i]), .outstanding_o(s_out[i]), .rsp_wait_o(s_wait[i])
    );
  end

  // ------------------------------------------------------------------ decoding
  // The address map as ranges, written apart from the decoder's masks.
  int unsigned target;
  always_comb begin
    target = None;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (m_req_i.addr >= Base[i] && m_req_i.addr - Base[i] < Size[i] &&
          (Atomics[i] || !m_req_i.atop[5])) begin
        target = i;
      end
    end
  end

  logic m_accept;
  logic [1:0] s_accept;
  assign m_accept = m_req_i.req && m_rsp.gnt;
  for (genvar i = 0; i < NumSlaves; i++) begin : gen_accept
    assign s_accept[i] = s_req[i].req && s_rsp_i[i].gnt;
  end

  for (genvar i = 0; i < NumSlaves; i++) begin : gen_slave_check
    always_comb begin
      if (rst_ni && !init_q) begin
        // A slave is asked only for the master's request to its region, with the request's
        // fields and the offset in the region.
        ToItsSlave: assert (!s_req[i].req || (m_req_i.req && target == i));
        Fields: assert (!s_req[i].req ||
                        (s_req[i].addr == m_req_i.addr - Base[i] && s_req[i].we == m_req_i.we &&
                         s_req[i].be == m_req_i.be && s_req[i].wdata == m_req_i.wdata &&
                         s_req[i].atop == m_req_i.atop));
        // A slave takes a request exactly when the master is granted: none lost, none doubled.
        SlaveTakesOnGrant: assert (s_accept[i] == (m_accept && target == i));
      end
    end
  end

  // An address no slave takes is granted by the decoder itself (and answered below).
  always_comb begin
    if (rst_ni && !init_q) begin
      NoSlaveGrant: assert (!(m_accept && target == None) || s_accept == '0);
    end
  end

  // ------------------------------------------------------------------ induction invariants
  // What ties the ports' counts to the decoder's state. They are true of every reachable state
  // (the bounded run checks them like any other assertion); a proof by induction needs them
  // stated, because it also starts from states no run reaches.
  always_comb begin
    if (rst_ni && !init_q) begin
      CountsMatch: assert (m_out == 4'(u_dut.outstanding_q));
      if (32'(u_dut.resp_sel_q) == None) begin
        ErrorResponder: assert (m_out == 4'(u_dut.err_rvalid_q) && m_wait <= 4'd1);
      end
    end
  end
  for (genvar i = 0; i < NumSlaves; i++) begin : gen_slave_invariant
    always_comb begin
      if (rst_ni && !init_q) begin
        if (u_dut.resp_sel_q == i) begin
          SelectedSlave: assert (s_out[i] == m_out && s_wait[i] == m_wait);
        end else begin
          OtherSlaves: assert (s_out[i] == '0);
        end
      end
    end
  end

  // ------------------------------------------------------------------ the tracked request
  logic        t_active_q;
  int unsigned t_target_q;
  logic [3:0]  t_m_ahead_q, t_s_ahead_q;  // responses before the tracked one, on each side

  logic [3:0] s_ahead_now;
  always_comb begin
    s_ahead_now = '0;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (target == i) s_ahead_now = s_out[i] - 4'(s_rsp_i[i].rvalid);
    end
  end

  logic t_slave_rvalid;
  obi_rsp_t t_slave_rsp;
  logic unused_gnt;
  assign unused_gnt = t_slave_rsp.gnt;  // a response's fields are compared, not its grant
  always_comb begin
    t_slave_rvalid = 1'b0;
    t_slave_rsp    = '0;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (t_target_q == i) begin
        t_slave_rvalid = s_rsp_i[i].rvalid;
        t_slave_rsp    = s_rsp_i[i];
      end
    end
  end

  logic t_ours;  // the master's response now is the tracked request's
  assign t_ours = t_active_q && m_rsp.rvalid && t_m_ahead_q == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      t_active_q  <= 1'b0;
      t_target_q  <= None;
      t_m_ahead_q <= '0;
      t_s_ahead_q <= '0;
    end else if (!t_active_q) begin
      if (m_accept && track_i) begin
        t_active_q  <= 1'b1;
        t_target_q  <= target;
        t_m_ahead_q <= m_out - 4'(m_rsp.rvalid);
        t_s_ahead_q <= s_ahead_now;
      end
    end else begin
      if (t_ours) t_active_q <= 1'b0;
      t_m_ahead_q <= t_m_ahead_q - 4'(m_rsp.rvalid);
      t_s_ahead_q <= t_s_ahead_q - 4'(t_slave_rvalid);
    end
  end

  always_comb begin
    if (rst_ni && !init_q && t_active_q) begin
      // Induction invariants: the tracked request is in flight, on the port that answers now.
      TrackedInFlight: assert (t_m_ahead_q < m_out && 32'(u_dut.resp_sel_q) == t_target_q &&
                               (t_target_q == None || t_s_ahead_q == t_m_ahead_q));
      // The master's answer to the tracked request is its slave's answer to it, passed on whole,
      // or an error with no data for an address no slave takes.
      if (t_ours && t_target_q == None) begin
        UnmappedIsError: assert (m_rsp.err && m_rsp.rdata == '0 && !m_rsp.exokay);
      end
      if (t_ours && t_target_q != None) begin
        FromItsSlave: assert (t_slave_rvalid && t_s_ahead_q == '0 && m_rsp.rvalid == t_slave_rsp.rvalid &&
                              m_rsp.rdata == t_slave_rsp.rdata && m_rsp.err == t_slave_rsp.err &&
                              m_rsp.exokay == t_slave_rsp.exokay);
      end
      // ... and that slave's answer is not dropped or held back: it reaches the master at once.
      if (t_target_q != None && t_slave_rvalid && t_s_ahead_q == '0) begin
        SlaveAnswerPassed: assert (t_ours);
      end
    end
  end

endmodule
