// A register stage on an accelerator command port, in both directions, so that no path runs
// between the requester (the CV-X-IF adapter, the register adapter, the command mux) and the
// accelerator within one cycle (docs/coupling.md, "Register slice").
//
// The command is held in a register for the accelerator, the response in a register for the
// requester, and each side's ready is the state of its register alone: every signal leaving the
// slice comes from one of its flip-flops. So the core's commit, the bus decode and the command
// mux end at the slice, and the engine's command decode and its response handshake start there.
//
// Cost: two cycles per command (one each way) and one command every two cycles at most; about
// 110 flip-flops (a command, 74 bits, and a response, 33). The port's promises hold through it:
// each command taken gets one response, in order, never in the cycle it is taken.
module couplet_accel_cmd_slice
  import couplet_accel_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,

  // Requester side
  input  accel_cmd_req_t in_req_i,
  output logic           in_ready_o,
  output accel_cmd_rsp_t in_rsp_o,

  // Accelerator side
  output accel_cmd_req_t out_req_o,
  input  logic           out_ready_i,
  input  accel_cmd_rsp_t out_rsp_i
);

  logic       cmd_valid_q, rsp_valid_q;
  accel_cmd_t cmd_q;
  accel_rsp_t rsp_q;

  logic cmd_load, cmd_taken, rsp_load, rsp_taken;
  assign cmd_load  = in_req_i.valid && !cmd_valid_q;
  assign cmd_taken = cmd_valid_q && out_ready_i;
  assign rsp_load  = out_rsp_i.rsp_valid && !rsp_valid_q;
  assign rsp_taken = rsp_valid_q && in_req_i.rsp_ready;

  assign in_ready_o = !cmd_valid_q;
  assign in_rsp_o   = '{rsp_valid: rsp_valid_q, rsp: rsp_q};
  assign out_req_o  = '{valid: cmd_valid_q, cmd: cmd_q, rsp_ready: !rsp_valid_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_valid_q <= 1'b0;
      rsp_valid_q <= 1'b0;
    end else begin
      if (cmd_load) begin
        cmd_valid_q <= 1'b1;
      end else if (cmd_taken) begin
        cmd_valid_q <= 1'b0;
      end
      if (rsp_load) begin
        rsp_valid_q <= 1'b1;
      end else if (rsp_taken) begin
        rsp_valid_q <= 1'b0;
      end
    end
  end

  // Payload registers need no reset: every use is qualified by its valid flag.
  always_ff @(posedge clk_i) begin
    if (cmd_load) cmd_q <= in_req_i.cmd;
    if (rsp_load) rsp_q <= out_rsp_i.rsp;
  end

endmodule
