// One accelerator tile between registers, for place and route on its own (Fmax of an IP
// behind its coupling, `couplet synth --fmax`).
//
// A tile has hundreds of port bits, more than a package has pins, and a port left unconnected
// would let synthesis delete the logic behind it. So every input comes from a register of a
// shift chain fed by one pin, and every output goes into a register whose bits are folded into
// one pin. Each path through the tile then starts and ends at a flip-flop, as it does in the SoC
// (the bus and the adapters register on both sides), and the timing reported is the tile's.
// The chain and the fold add a few hundred flip-flops and LUTs: this top measures timing, not
// area (area comes from the SoC's own synthesis).
module couplet_fmax_tile
  import couplet_accel_pkg::*;
#(
  parameter int unsigned KindIndex = 0,  // couplet_accel_pkg::accel_kind_e as a number
  parameter int unsigned Param     = 0,
  parameter bit          Xif       = 1'b1,
  parameter bit          Regs      = 1'b1,
  parameter bit          Dma       = 1'b1
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic serial_i,
  output logic serial_o
);

  // Input bits: the command port (valid, command, response ready), two register-style slave
  // ports (request, address, write, byte enables, write data) and the master's answers (grant,
  // read valid, read data, error).
  localparam int unsigned SlaveInW = 1 + 32 + 1 + 4 + 32;
  localparam int unsigned InW      = 1 + $bits(accel_cmd_t) + 1 + 2 * SlaveInW + 1 + 1 + 32 + 1;
  // Output bits: command ready, response valid and data, two slaves' answers (grant, read
  // valid, read data, error), the master's request and the two interrupts.
  localparam int unsigned SlaveOutW = 1 + 1 + 32 + 1;
  localparam int unsigned OutW      = 1 + 1 + $bits(accel_rsp_t) + 2 * SlaveOutW + (1 + 32 + 1 + 4 + 32) + 2;

  logic [InW-1:0]  in_q;
  logic [OutW-1:0] out_d, out_q;
  logic            fold_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q   <= '0;
      out_q  <= '0;
      fold_q <= 1'b0;
    end else begin
      in_q   <= {in_q[InW-2:0], serial_i};
      out_q  <= out_d;
      fold_q <= ^out_q;
    end
  end
  assign serial_o = fold_q;

  logic        xif_cmd_valid, xif_rsp_ready;
  accel_cmd_t  xif_cmd;
  logic        regs_req, regs_we, dma_req, dma_we, m_gnt, m_rvalid, m_err;
  logic [31:0] regs_addr, regs_wdata, dma_addr, dma_wdata, m_rdata;
  logic [3:0]  regs_be, dma_be;
  assign {xif_cmd_valid, xif_cmd, xif_rsp_ready,
          regs_req, regs_addr, regs_we, regs_be, regs_wdata,
          dma_req, dma_addr, dma_we, dma_be, dma_wdata,
          m_gnt, m_rvalid, m_rdata, m_err} = in_q;

  logic        xif_cmd_ready, xif_rsp_valid;
  accel_rsp_t  xif_rsp;
  logic        regs_gnt, regs_rvalid, regs_err, dma_gnt, dma_rvalid, dma_err;
  logic [31:0] regs_rdata, dma_rdata;
  logic        m_req, m_we, accel_irq, dma_irq;
  logic [31:0] m_addr, m_wdata;
  logic [3:0]  m_be;
  assign out_d = {xif_cmd_ready, xif_rsp_valid, xif_rsp,
                  regs_gnt, regs_rvalid, regs_rdata, regs_err,
                  dma_gnt, dma_rvalid, dma_rdata, dma_err,
                  m_req, m_addr, m_we, m_be, m_wdata,
                  accel_irq, dma_irq};

  couplet_accel_tile #(
    .Kind  (accel_kind_e'(KindIndex)),
    .Param (Param),
    .Xif   (Xif),
    .Regs  (Regs),
    .Dma   (Dma)
  ) u_tile (
    .clk_i,
    .rst_ni,
    .xif_cmd_valid_i (xif_cmd_valid),
    .xif_cmd_ready_o (xif_cmd_ready),
    .xif_cmd_i       (xif_cmd),
    .xif_rsp_valid_o (xif_rsp_valid),
    .xif_rsp_ready_i (xif_rsp_ready),
    .xif_rsp_o       (xif_rsp),
    .regs_req_i      (regs_req),
    .regs_gnt_o      (regs_gnt),
    .regs_addr_i     (regs_addr),
    .regs_we_i       (regs_we),
    .regs_be_i       (regs_be),
    .regs_wdata_i    (regs_wdata),
    .regs_rvalid_o   (regs_rvalid),
    .regs_rdata_o    (regs_rdata),
    .regs_err_o      (regs_err),
    .dma_req_i       (dma_req),
    .dma_gnt_o       (dma_gnt),
    .dma_addr_i      (dma_addr),
    .dma_we_i        (dma_we),
    .dma_be_i        (dma_be),
    .dma_wdata_i     (dma_wdata),
    .dma_rvalid_o    (dma_rvalid),
    .dma_rdata_o     (dma_rdata),
    .dma_err_o       (dma_err),
    .m_req_o         (m_req),
    .m_gnt_i         (m_gnt),
    .m_addr_o        (m_addr),
    .m_we_o          (m_we),
    .m_be_o          (m_be),
    .m_wdata_o       (m_wdata),
    .m_rvalid_i      (m_rvalid),
    .m_rdata_i       (m_rdata),
    .m_err_i         (m_err),
    .accel_irq_o     (accel_irq),
    .dma_irq_o       (dma_irq)
  );

endmodule
