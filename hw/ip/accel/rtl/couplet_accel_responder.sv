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
  input  logic       clk_i,
  input  logic       rst_ni,

  // The accelerator cannot take a command now, whatever the response register holds.
  input  logic       hold_i,
  input  logic       cmd_valid_i,
  output logic       cmd_ready_o,
  input  accel_cmd_t cmd_i,     // only the port checker reads it

  // Store an answer; it is shown from the next cycle until taken.
  input  logic       ans_valid_i,
  input  accel_rsp_t ans_i,

  output logic       rsp_valid_o,
  input  logic       rsp_ready_i,
  output accel_rsp_t rsp_o
);

  logic       rsp_valid_q, rsp_valid_d, rsp_free;
  accel_rsp_t rsp_q, rsp_d;

  assign rsp_free    = !rsp_valid_q || rsp_ready_i;
  assign cmd_ready_o = rsp_free && !hold_i;

  always_comb begin
    rsp_valid_d = rsp_valid_q && !rsp_ready_i;
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

  assign rsp_valid_o = rsp_valid_q;
  assign rsp_o       = rsp_q;

`ifndef SYNTHESIS
  // Simulation only: not instantiated in synthesis, so the checkers leave no boundary in the
  // netlist (a kept, empty instance still changed how Yosys mapped the RTOS engine).
  // One response register: at most one command in flight.
  couplet_accel_port_assert #(.MaxOutstanding(1)) u_port_assert (
    .clk_i, .rst_ni, .cmd_valid_i, .cmd_ready_i(cmd_ready_o), .cmd_i,
    .rsp_valid_i(rsp_valid_o), .rsp_ready_i, .rsp_i(rsp_o)
  );

  // An answer never overwrites one that is still shown.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) AnswerIntoFreeRegister: assert (!ans_valid_i || rsp_free);
  end
`endif

endmodule
