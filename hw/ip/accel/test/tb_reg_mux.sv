// Test wrapper shared by test_reg_adapter.py and test_accel_cmd_mux.py: an OBI slave port into
// couplet_reg_adapter, which is input 0 of a couplet_accel_cmd_mux; inputs 1 and 2 are raw
// command ports (raw_*) driven by the test; the mux output is the accelerator port (acc_*),
// answered by a Python model of an accelerator that can hold several commands.
module tb_reg_mux
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
#(
  parameter int unsigned MaxInFlight = 2
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,

  // OBI slave of the register adapter (offset within its region)
  input  obi_req_t                 obi_req_i,
  output obi_rsp_t                 obi_rsp_o,

  // The register adapter's command port (mux input 0), for the monitors
  output accel_cmd_req_t           ra_req_o,
  output logic                     ra_ready_o,
  output accel_cmd_rsp_t           ra_rsp_o,

  // Raw command inputs: raw_req_i[k] is mux input k + 1
  input  accel_cmd_req_t [1:0]     raw_req_i,
  output logic [1:0]               raw_ready_o,
  output accel_cmd_rsp_t [1:0]     raw_rsp_o,

  // Accelerator port (mux output)
  output accel_cmd_req_t           acc_req_o,
  input  logic                     acc_ready_i,
  input  accel_cmd_rsp_t           acc_rsp_i
);

  localparam int unsigned NumIn = 3;

  accel_cmd_req_t [NumIn-1:0] in_req;
  logic [NumIn-1:0]           in_ready;
  accel_cmd_rsp_t [NumIn-1:0] in_rsp;

  couplet_reg_adapter u_reg (
    .clk_i, .rst_ni, .obi_req_i, .obi_rsp_o,
    .cmd_req_o(in_req[0]), .cmd_ready_i(in_ready[0]), .cmd_rsp_i(in_rsp[0])
  );

  assign ra_req_o          = in_req[0];
  assign ra_ready_o        = in_ready[0];
  assign ra_rsp_o          = in_rsp[0];
  assign in_req[NumIn-1:1] = raw_req_i;
  assign raw_ready_o         = in_ready[NumIn-1:1];
  assign raw_rsp_o           = in_rsp[NumIn-1:1];

  couplet_accel_cmd_mux #(
    .NumIn       (NumIn),
    .MaxInFlight (MaxInFlight)
  ) u_mux (
    .clk_i, .rst_ni, .in_req_i(in_req), .in_ready_o(in_ready), .in_rsp_o(in_rsp),
    .req_o(acc_req_o), .ready_i(acc_ready_i), .rsp_i(acc_rsp_i)
  );

endmodule
