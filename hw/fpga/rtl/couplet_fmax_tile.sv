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
//
// The tile is tile TileIndex of a configuration's package (couplet_soc_cfg_pkg), as the SoC
// builds it.
module couplet_fmax_tile
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
  import couplet_soc_cfg_pkg::*;
#(
  parameter int unsigned TileIndex = 0
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
  localparam int unsigned InW      = $bits(accel_cmd_req_t) + 2 * SlaveInW + 1 + 1 + 32 + 1;
  // Output bits: command ready, response valid and data, two slaves' answers (grant, read
  // valid, read data, error), the master's request and the two interrupts.
  localparam int unsigned SlaveOutW = 1 + 1 + 32 + 1;
  localparam int unsigned OutW      = 1 + $bits(accel_cmd_rsp_t) + 2 * SlaveOutW + (1 + 32 + 1 + 4 + 32) + 2;

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

  // The chain carries the OBI fields a tile uses: no atop into its slaves (it takes no atomics),
  // no exokay back to its master (nor out of its slaves: they answer none), so the measured logic
  // is the tile's and the chain is no longer than it needs to be.
  accel_cmd_req_t xif_cmd_req;
  obi_req_t       regs_req, dma_req;
  obi_rsp_t       m_rsp;
  assign {xif_cmd_req,
          regs_req.req, regs_req.addr, regs_req.we, regs_req.be, regs_req.wdata,
          dma_req.req, dma_req.addr, dma_req.we, dma_req.be, dma_req.wdata,
          m_rsp.gnt, m_rsp.rvalid, m_rsp.rdata, m_rsp.err} = in_q;
  assign regs_req.atop = '0;
  assign dma_req.atop  = '0;
  assign m_rsp.exokay  = 1'b0;

  logic           xif_cmd_ready;
  accel_cmd_rsp_t xif_cmd_rsp;
  obi_rsp_t       regs_rsp, dma_rsp;
  obi_req_t       m_req;
  logic           accel_irq, dma_irq;
  assign out_d = {xif_cmd_ready, xif_cmd_rsp,
                  regs_rsp.gnt, regs_rsp.rvalid, regs_rsp.rdata, regs_rsp.err,
                  dma_rsp.gnt, dma_rsp.rvalid, dma_rsp.rdata, dma_rsp.err,
                  m_req.req, m_req.addr, m_req.we, m_req.be, m_req.wdata,
                  accel_irq, dma_irq};
  logic unused_obi_fields;
  assign unused_obi_fields = ^{regs_rsp.exokay, dma_rsp.exokay, m_req.atop};

  couplet_accel_tile #(
    .Kind  (TileKind[TileIndex]),
    .Cfg   (AccelCfg),
    .Xif   (TileXif[TileIndex]),
    .Regs  (TileRegs[TileIndex]),
    .Dma   (TileDmaEngine[TileIndex]),
    .Slice (TileSlice[TileIndex])
  ) u_tile (
    .clk_i,
    .rst_ni,
    .xif_cmd_req_i   (xif_cmd_req),
    .xif_cmd_ready_o (xif_cmd_ready),
    .xif_cmd_rsp_o   (xif_cmd_rsp),
    .regs_req_i      (regs_req),
    .regs_rsp_o      (regs_rsp),
    .dma_req_i       (dma_req),
    .dma_rsp_o       (dma_rsp),
    .m_req_o         (m_req),
    .m_rsp_i         (m_rsp),
    .accel_irq_o     (accel_irq),
    .dma_irq_o       (dma_irq)
  );

endmodule
