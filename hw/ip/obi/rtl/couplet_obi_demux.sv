// OBI 1-to-N address decoder with a built-in error responder.
//
// A request whose address falls in no slave region is granted at once and answered one cycle
// later with err = 1, so a wild access can never hang the bus. Regions are aligned powers of
// two (checked by the config loader), so decoding compares the address bits above the size.
//
// OBI allows several outstanding transactions, and responses must return in request order.
// Slaves may answer with different latencies, so a request to a slave other than the one with
// outstanding transactions waits until those have drained; requests to the same slave pipeline
// up to MaxOutstanding deep.
//
// Atomic and exclusive requests (atop[5] set) reach only slaves marked in SlaveAtomics; to any
// other slave they are answered with an error, so an AMO on a peripheral cannot silently turn
// into a plain write.
module couplet_obi_demux #(
  parameter int unsigned                      NumSlaves      = 2,
  parameter logic [NumSlaves-1:0][31:0]       SlaveBase      = '0,
  parameter logic [NumSlaves-1:0][31:0]       SlaveSize      = '0,
  parameter logic [NumSlaves-1:0]             SlaveAtomics   = '0,
  parameter int unsigned                      MaxOutstanding = 2
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,

  // Master side (the core or another initiator).
  input  logic                                m_req_i,
  output logic                                m_gnt_o,
  input  logic [31:0]                         m_addr_i,
  input  logic                                m_we_i,
  input  logic [3:0]                          m_be_i,
  input  logic [31:0]                         m_wdata_i,
  input  logic [5:0]                          m_atop_i,
  output logic                                m_rvalid_o,
  output logic [31:0]                         m_rdata_o,
  output logic                                m_err_o,
  output logic                                m_exokay_o,

  // Slave side: request fields are shared, the address is the offset within the region.
  output logic [NumSlaves-1:0]                s_req_o,
  input  logic [NumSlaves-1:0]                s_gnt_i,
  output logic [31:0]                         s_addr_o,
  output logic                                s_we_o,
  output logic [3:0]                          s_be_o,
  output logic [31:0]                         s_wdata_o,
  output logic [5:0]                          s_atop_o,
  input  logic [NumSlaves-1:0]                s_rvalid_i,
  input  logic [NumSlaves-1:0][31:0]          s_rdata_i,
  input  logic [NumSlaves-1:0]                s_err_i,
  input  logic [NumSlaves-1:0]                s_exokay_i
);

  // Index NumSlaves stands for the error responder.
  localparam int unsigned SelWidth = $clog2(NumSlaves + 1);
  localparam int unsigned CntWidth = $clog2(MaxOutstanding + 1);
  localparam logic [SelWidth-1:0] ErrSel = SelWidth'(NumSlaves);

  logic [SelWidth-1:0] sel;
  logic [31:0]         offset;

  always_comb begin
    sel    = ErrSel;
    offset = m_addr_i;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (((m_addr_i & ~(SlaveSize[i] - 32'd1)) == SlaveBase[i]) &&
          (SlaveAtomics[i] || !m_atop_i[5])) begin
        sel    = SelWidth'(i);
        offset = m_addr_i & (SlaveSize[i] - 32'd1);
      end
    end
  end

  logic [CntWidth-1:0] outstanding_q, outstanding_d;
  logic [SelWidth-1:0] resp_sel_q, resp_sel_d;
  logic                err_rvalid_q, err_rvalid_d;

  // A new request may go out if it cannot overtake responses from a different slave.
  logic may_issue;
  assign may_issue = (outstanding_q == '0) ||
                     ((sel == resp_sel_q) && (outstanding_q < CntWidth'(MaxOutstanding)));

  logic sel_gnt;
  always_comb begin
    sel_gnt = 1'b1;  // the error responder always accepts
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (sel == SelWidth'(i)) begin
        sel_gnt = s_gnt_i[i];
      end
    end
  end

  assign m_gnt_o = m_req_i && may_issue && sel_gnt;

  always_comb begin
    s_req_o = '0;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      s_req_o[i] = m_req_i && may_issue && (sel == SelWidth'(i));
    end
  end
  assign s_addr_o  = offset;
  assign s_we_o    = m_we_i;
  assign s_be_o    = m_be_i;
  assign s_wdata_o = m_wdata_i;
  assign s_atop_o  = m_atop_i;

  // Responses come from the slave that holds the outstanding transactions.
  always_comb begin
    m_rvalid_o = err_rvalid_q;
    m_rdata_o  = '0;
    m_err_o    = err_rvalid_q;
    m_exokay_o = 1'b0;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (resp_sel_q == SelWidth'(i)) begin
        m_rvalid_o = s_rvalid_i[i];
        m_rdata_o  = s_rdata_i[i];
        m_err_o    = s_err_i[i];
        m_exokay_o = s_exokay_i[i];
      end
    end
  end

  always_comb begin
    err_rvalid_d  = m_gnt_o && (sel == ErrSel);
    resp_sel_d    = m_gnt_o ? sel : resp_sel_q;
    outstanding_d = outstanding_q;
    if (m_gnt_o && !m_rvalid_o) begin
      outstanding_d = outstanding_q + CntWidth'(1);
    end else if (!m_gnt_o && m_rvalid_o) begin
      outstanding_d = outstanding_q - CntWidth'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      outstanding_q <= '0;
      resp_sel_q    <= ErrSel;
      err_rvalid_q  <= 1'b0;
    end else begin
      outstanding_q <= outstanding_d;
      resp_sel_q    <= resp_sel_d;
      err_rvalid_q  <= err_rvalid_d;
    end
  end

`ifndef SYNTHESIS
  // A slave that answers with nothing outstanding is broken; say so in simulation.
  always_ff @(posedge clk_i) begin
    if (rst_ni && m_rvalid_o && (outstanding_q == '0)) begin
      $error("couplet_obi_demux: response without an outstanding request");
    end
  end
`endif

endmodule
