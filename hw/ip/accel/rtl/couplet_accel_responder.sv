// The response side every accelerator of the coupling layer shares: it takes a command only while
// its response register is free (or drained in the same cycle), and an answer given in the cycle
// a command is taken appears in the next one, so the port never has a combinational path from
// command to response (docs/coupling.md). The stateless instruction units (couplet_aes_zkn,
// couplet_keccak_ise) use it alone; the register accelerators through couplet_accel_frontend.
//
// The port's rules are checked here, once for every accelerator that uses it.
module couplet_accel_responder
  import couplet_accel_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,

  input  accel_cmd_req_t cmd_req_i,  // its command is read only by the port checker
  output logic           cmd_ready_o,
  output accel_cmd_rsp_t cmd_rsp_o,

  // The accelerator cannot take a command now, whatever the response register holds.
  input  logic           hold_i,

  // Store an answer; it is shown from the next cycle until taken.
  input  logic           ans_valid_i,
  input  accel_rsp_t     ans_i
);

  logic       rsp_valid_q, rsp_valid_d, rsp_free;
  accel_rsp_t rsp_q, rsp_d;

  assign rsp_free    = !rsp_valid_q || cmd_req_i.rsp_ready;
  assign cmd_ready_o = rsp_free && !hold_i;

  always_comb begin
    rsp_valid_d = rsp_valid_q && !cmd_req_i.rsp_ready;
    rsp_d       = rsp_q;
    if (ans_valid_i) begin
      rsp_valid_d = 1'b1;
      rsp_d       = ans_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_q <= 1'b0;
      rsp_q       <= '0;
    end else begin
      rsp_valid_q <= rsp_valid_d;
      rsp_q       <= rsp_d;
    end
  end

  assign cmd_rsp_o.rsp_valid = rsp_valid_q;
  assign cmd_rsp_o.rsp       = rsp_q;

`ifndef SYNTHESIS
  // Simulation only: not instantiated in synthesis, so the checkers leave no boundary in the
  // netlist (a kept, empty instance still changed how Yosys mapped the RTOS engine).
  // One response register: at most one command in flight.
  couplet_accel_port_assert #(.MaxOutstanding(1)) u_port_assert (
    .clk_i, .rst_ni, .req_i(cmd_req_i), .ready_i(cmd_ready_o), .rsp_i(cmd_rsp_o)
  );

  // An answer never overwrites one that is still shown.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) AnswerIntoFreeRegister: assert (!ans_valid_i || rsp_free);
  end
`endif

endmodule
