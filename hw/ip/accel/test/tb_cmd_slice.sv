// Test wrapper of couplet_accel_cmd_slice (test_accel_cmd_slice.py): the requester side (in_*)
// is driven by a command master model, the accelerator side (acc_*) answered by an accelerator
// model.
module tb_cmd_slice
  import couplet_accel_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,

  input  accel_cmd_req_t in_req_i,
  output logic           in_ready_o,
  output accel_cmd_rsp_t in_rsp_o,

  output accel_cmd_req_t acc_req_o,
  input  logic           acc_ready_i,
  input  accel_cmd_rsp_t acc_rsp_i
);

  couplet_accel_cmd_slice u_slice (
    .clk_i, .rst_ni,
    .in_req_i, .in_ready_o, .in_rsp_o,
    .out_req_o(acc_req_o), .out_ready_i(acc_ready_i), .out_rsp_i(acc_rsp_i)
  );

endmodule
