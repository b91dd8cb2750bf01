// OBI pass-through that keeps one master out of one address region: a request to the region never
// reaches the bus and is answered with err = 1, every other request passes through unchanged.
//
// couplet_soc puts one in front of each accelerator tile's DMA engine, fenced off from that
// tile's own register window. Otherwise a memory job (the mem coupling) pointed at the window
// deadlocks the SoC: the accelerator holds its command port for the whole job, so the register
// adapter never grants the engine's read, the job never ends and the core waits on its
// instruction forever. A descriptor job (the dma coupling) gets the same error, so the rule is
// one: a tile's DMA never touches its own registers.
//
// Timing: no added cycle and no added register on the path. A fenced request waits until the
// master's requests already on the bus have answered (OBI responses stay in order), is granted
// here, and answered with an error in the next cycle, as the decoder answers an unmapped address.
// Region: Base and Size as the decoder's (an aligned power of two); Size 0 fences nothing.
module couplet_obi_fence
  import couplet_obi_pkg::*;
#(
  parameter logic [31:0] Base           = '0,
  parameter logic [31:0] Size           = '0,
  parameter int unsigned MaxOutstanding = 4  // the master's accesses in flight, at most
) (
  input  logic     clk_i,
  input  logic     rst_ni,

  input  obi_req_t m_req_i,
  output obi_rsp_t m_rsp_o,

  output obi_req_t s_req_o,
  input  obi_rsp_t s_rsp_i
);

  localparam int unsigned CntWidth = $clog2(MaxOutstanding + 1);

  logic fenced;
  assign fenced = (Size != '0) && ((m_req_i.addr & ~(Size - 32'd1)) == Base);

  logic [CntWidth-1:0] outstanding_q;
  logic                err_q;

  logic local_gnt, s_accept;
  assign local_gnt = m_req_i.req && fenced && (outstanding_q == '0) && !err_q;
  assign s_accept  = s_req_o.req && s_rsp_i.gnt;

  always_comb begin
    s_req_o     = m_req_i;
    s_req_o.req = m_req_i.req && !fenced;
  end

  // The fenced request is granted only with nothing in flight, so its error never meets a
  // response from the bus: a bus response comes at the earliest in the cycle after its grant.
  // rdata and exokay pass through even then: with err they mean nothing (OBI rule 4), and
  // zeroing rdata would cost a LUT per bit on the DMA's read path.
  assign m_rsp_o = '{gnt:    fenced ? local_gnt : s_rsp_i.gnt,
                     rvalid: s_rsp_i.rvalid || err_q,
                     rdata:  s_rsp_i.rdata,
                     err:    err_q || s_rsp_i.err,
                     exokay: s_rsp_i.exokay};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      outstanding_q <= '0;
      err_q         <= 1'b0;
    end else begin
      outstanding_q <= outstanding_q + CntWidth'(s_accept) - CntWidth'(s_rsp_i.rvalid);
      err_q         <= local_gnt;
    end
  end

endmodule
