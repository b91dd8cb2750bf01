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
module couplet_obi_demux
  import couplet_obi_pkg::*;
#(
  parameter int unsigned                      NumSlaves      = 2,
  parameter logic [NumSlaves-1:0][31:0]       SlaveBase      = '0,
  parameter logic [NumSlaves-1:0][31:0]       SlaveSize      = '0,
  parameter logic [NumSlaves-1:0]             SlaveAtomics   = '0,
  parameter int unsigned                      MaxOutstanding = 2
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,

  // Master side (the core or another initiator).
  input  obi_req_t                            m_req_i,
  output obi_rsp_t                            m_rsp_o,

  // Slave side: every slave sees the same request fields, its own req, and as addr the offset
  // within its region.
  output obi_req_t [NumSlaves-1:0]            s_req_o,
  input  obi_rsp_t [NumSlaves-1:0]            s_rsp_i
);

  // Index NumSlaves stands for the error responder.
  localparam int unsigned SelWidth = $clog2(NumSlaves + 1);
  localparam int unsigned CntWidth = $clog2(MaxOutstanding + 1);
  localparam logic [SelWidth-1:0] ErrSel = SelWidth'(NumSlaves);

  logic [SelWidth-1:0] sel;
  logic [31:0]         offset;

  always_comb begin
    sel    = ErrSel;
    offset = m_req_i.addr;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (((m_req_i.addr & ~(SlaveSize[i] - 32'd1)) == SlaveBase[i]) &&
          (SlaveAtomics[i] || !m_req_i.atop[5])) begin
        sel    = SelWidth'(i);
        offset = m_req_i.addr & (SlaveSize[i] - 32'd1);
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
        sel_gnt = s_rsp_i[i].gnt;
      end
    end
  end

  logic m_gnt;
  assign m_gnt = m_req_i.req && may_issue && sel_gnt;

  always_comb begin
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      s_req_o[i]      = m_req_i;
      s_req_o[i].req  = m_req_i.req && may_issue && (sel == SelWidth'(i));
      s_req_o[i].addr = offset;
    end
  end

  // Responses come from the slave that holds the outstanding transactions.
  logic        m_rvalid, m_err, m_exokay;
  logic [31:0] m_rdata;
  always_comb begin
    m_rvalid = err_rvalid_q;
    m_rdata  = '0;
    m_err    = err_rvalid_q;
    m_exokay = 1'b0;
    for (int unsigned i = 0; i < NumSlaves; i++) begin
      if (resp_sel_q == SelWidth'(i)) begin
        m_rvalid = s_rsp_i[i].rvalid;
        m_rdata  = s_rsp_i[i].rdata;
        m_err    = s_rsp_i[i].err;
        m_exokay = s_rsp_i[i].exokay;
      end
    end
  end

  assign m_rsp_o = '{gnt:    m_gnt,
                     rvalid: m_rvalid,
                     rdata:  m_rdata,
                     err:    m_err,
                     exokay: m_exokay};

  always_comb begin
    err_rvalid_d  = m_gnt && (sel == ErrSel);
    resp_sel_d    = m_gnt ? sel : resp_sel_q;
    outstanding_d = outstanding_q;
    if (m_gnt && !m_rvalid) begin
      outstanding_d = outstanding_q + CntWidth'(1);
    end else if (!m_gnt && m_rvalid) begin
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
  // A slave that answers with nothing outstanding is broken; say so in simulation. A request goes
  // to one slave at most, and the requests in flight stay within MaxOutstanding. (A reset-style
  // block, so that rst_ni stays an asynchronous reset only.)
  logic [NumSlaves-1:0] slave_req;
  always_comb begin
    for (int unsigned i = 0; i < NumSlaves; i++) slave_req[i] = s_req_o[i].req;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (m_rvalid && (outstanding_q == '0)) begin
        $error("couplet_obi_demux: response without an outstanding request");
      end
      OneSlaveAsked: assert ($onehot0(slave_req));
      OutstandingInRange: assert (outstanding_q <= CntWidth'(MaxOutstanding));
    end
  end
`endif

endmodule
