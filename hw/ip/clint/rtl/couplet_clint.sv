// CLINT-compatible timer for one hart: 64-bit mtime and mtimecmp, and msip.
//
// mtime advances once every MtimeDivider clock cycles. mtimecmp resets to all ones, so no
// timer interrupt is pending after reset. Registers take 32-bit accesses with byte enables;
// an offset with no register is answered with an error.
module couplet_clint
  import clint_reg_pkg::*;
  import couplet_obi_pkg::*;
#(
  parameter int unsigned MtimeDivider = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // OBI slave; the address is the offset within the CLINT's region.
  input  obi_req_t    obi_req_i,
  output obi_rsp_t    obi_rsp_o,

  output logic        timer_irq_o,
  output logic        soft_irq_o,
  output logic [63:0] mtime_o
);

  logic [63:0]         mtime_q, mtime_d;
  logic [63:0]         mtimecmp_q, mtimecmp_d;
  logic                msip_q, msip_d;
  logic                rvalid_q, err_q;
  logic [31:0]         rdata_q, rdata_d;
  logic                err_d;

  logic [31:0] wmask;
  always_comb begin
    for (int unsigned i = 0; i < 4; i++) begin
      wmask[8*i +: 8] = {8{obi_req_i.be[i]}};
    end
  end

  function automatic logic [31:0] merge(logic [31:0] old_value, logic [31:0] new_value,
                                         logic [31:0] mask);
    return (old_value & ~mask) | (new_value & mask);
  endfunction

  logic tick;
  if (MtimeDivider > 1) begin : gen_prescaler
    localparam int unsigned DivWidth = $clog2(MtimeDivider);
    logic [DivWidth-1:0] prescale_q;
    assign tick = (prescale_q == DivWidth'(MtimeDivider - 1));
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        prescale_q <= '0;
      end else begin
        prescale_q <= tick ? '0 : prescale_q + DivWidth'(1);
      end
    end
  end else begin : gen_no_prescaler
    assign tick = 1'b1;
  end

  logic access;
  assign access = obi_req_i.req;  // always granted

  always_comb begin
    mtime_d    = tick ? mtime_q + 64'd1 : mtime_q;
    mtimecmp_d = mtimecmp_q;
    msip_d     = msip_q;
    rdata_d    = '0;
    err_d      = 1'b0;
    if (access) begin
      unique case (obi_req_i.addr)
        32'(CLINT_MSIP_OFFSET): begin
          rdata_d = {31'b0, msip_q};
          if (obi_req_i.we && obi_req_i.be[0]) msip_d = obi_req_i.wdata[0];
        end
        32'(CLINT_MTIMECMP_LO_OFFSET): begin
          rdata_d = mtimecmp_q[31:0];
          if (obi_req_i.we) mtimecmp_d[31:0] = merge(mtimecmp_q[31:0], obi_req_i.wdata, wmask);
        end
        32'(CLINT_MTIMECMP_HI_OFFSET): begin
          rdata_d = mtimecmp_q[63:32];
          if (obi_req_i.we) mtimecmp_d[63:32] = merge(mtimecmp_q[63:32], obi_req_i.wdata, wmask);
        end
        32'(CLINT_MTIME_LO_OFFSET): begin
          rdata_d = mtime_q[31:0];
          if (obi_req_i.we) mtime_d[31:0] = merge(mtime_q[31:0], obi_req_i.wdata, wmask);
        end
        32'(CLINT_MTIME_HI_OFFSET): begin
          rdata_d = mtime_q[63:32];
          if (obi_req_i.we) mtime_d[63:32] = merge(mtime_q[63:32], obi_req_i.wdata, wmask);
        end
        default: err_d = 1'b1;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mtime_q    <= '0;
      mtimecmp_q <= '1;
      msip_q     <= 1'b0;
      rvalid_q   <= 1'b0;
      rdata_q    <= '0;
      err_q      <= 1'b0;
    end else begin
      mtime_q    <= mtime_d;
      mtimecmp_q <= mtimecmp_d;
      msip_q     <= msip_d;
      rvalid_q   <= access;
      rdata_q    <= err_d ? '0 : rdata_d;
      err_q      <= err_d;
    end
  end

  assign obi_rsp_o = '{gnt:    1'b1,
                       rvalid: rvalid_q,
                       rdata:  rdata_q,
                       err:    err_q,
                       exokay: 1'b0};
  logic unused_atop;
  assign unused_atop = ^obi_req_i.atop;  // no atomics reach a peripheral (the decoder stops them)

  assign timer_irq_o = (mtime_q >= mtimecmp_q);
  assign soft_irq_o  = msip_q;
  assign mtime_o     = mtime_q;

endmodule
