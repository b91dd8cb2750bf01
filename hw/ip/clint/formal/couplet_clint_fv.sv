// Property checks of couplet_clint's bus port (`couplet prove clint`, docs/formal.md).
//
// The bus master is left to the solver, bound by the OBI rules (couplet_obi_fv_port). Checked:
// the port keeps the OBI rules; every request is granted at once and answered in the next
// cycle; an offset with no register is answered with an error and no data, a register's offset
// without one, whatever the access.
module couplet_clint_fv
  import clint_reg_pkg::*;
  import couplet_obi_pkg::*;
(
  input logic     clk_i,
  input logic     rst_ni,
  input obi_req_t obi_req_i,
  input logic     mutate_i
);

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  obi_rsp_t obi_rsp, obi_rsp_dut;
  logic     timer_irq, soft_irq;
  logic [63:0] mtime;

  couplet_clint #(.MtimeDivider(2)) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .obi_req_i   (obi_req_i),
    .obi_rsp_o   (obi_rsp_dut),
    .timer_irq_o (timer_irq),
    .soft_irq_o  (soft_irq),
    .mtime_o     (mtime)
  );

  logic unused_outputs;
  assign unused_outputs = ^{timer_irq, soft_irq, mtime, mutate_i};

  // Mutant (`couplet prove` shows that it makes a check fail): the harness itself, not the RTL,
  // answers a register access with an error in a cycle the solver picks.
  always_comb begin
    obi_rsp = obi_rsp_dut;
`ifdef FV_MUTANT_ERR_ON_REGISTER
    if (mutate_i && obi_rsp_dut.rvalid) obi_rsp.err = 1'b1;
`endif
  end

  logic [3:0] outstanding, rsp_wait;
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (1),
    .MaxGntWait     (1),
    .MaxRspWait     (2)
  ) u_bus (
    .clk_i, .rst_ni, .req_i(obi_req_i), .rsp_i(obi_rsp), .outstanding_o(outstanding), .rsp_wait_o(rsp_wait)
  );

  // The register offsets, from the generated package (hw/ip/clint/data/clint.toml).
  logic mapped, mapped_q;
  assign mapped = obi_req_i.addr inside {32'(CLINT_MSIP_OFFSET), 32'(CLINT_MTIMECMP_LO_OFFSET),
                                         32'(CLINT_MTIMECMP_HI_OFFSET), 32'(CLINT_MTIME_LO_OFFSET),
                                         32'(CLINT_MTIME_HI_OFFSET)};
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) mapped_q <= 1'b0;
    else         mapped_q <= mapped;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      // Each response comes in the cycle after its request: granted at once, answered next.
      AnswerNextCycle: assert (obi_rsp.rvalid == (outstanding == 4'd1) && rsp_wait <= 4'd1);
      if (obi_rsp.rvalid) begin
        ErrorIffUnmapped: assert (obi_rsp.err == !mapped_q && (mapped_q || obi_rsp.rdata == '0));
      end
    end
  end

endmodule
