// Test wrapper shared by test_reg_adapter.py and test_accel_cmd_mux.py: an OBI slave port into
// couplet_reg_adapter, which is input 0 of a couplet_accel_cmd_mux; inputs 1 and 2 are raw
// command ports (m1_*, m2_*) driven by the test; the mux output is the accelerator port
// (acc_*), answered by a Python model of an accelerator that can hold several commands.
module tb_reg_mux
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
#(
  parameter int unsigned MaxInFlight = 2
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // OBI slave of the register adapter (offset within its region)
  input  obi_req_t    obi_req_i,
  output obi_rsp_t    obi_rsp_o,

  // The register adapter's command handshake, for the monitors
  output logic        ra_cmd_valid_o,
  output logic        ra_cmd_ready_o,

  // Raw command inputs 1 and 2
  input  logic        m1_cmd_valid_i,
  output logic        m1_cmd_ready_o,
  input  logic [2:0]  m1_cmd_op_i,
  input  logic [6:0]  m1_cmd_index_i,
  input  logic [31:0] m1_cmd_op_a_i,
  input  logic [31:0] m1_cmd_op_b_i,
  output logic        m1_rsp_valid_o,
  input  logic        m1_rsp_ready_i,
  output logic [31:0] m1_rsp_data_o,
  output logic        m1_rsp_err_o,

  input  logic        m2_cmd_valid_i,
  output logic        m2_cmd_ready_o,
  input  logic [2:0]  m2_cmd_op_i,
  input  logic [6:0]  m2_cmd_index_i,
  input  logic [31:0] m2_cmd_op_a_i,
  input  logic [31:0] m2_cmd_op_b_i,
  output logic        m2_rsp_valid_o,
  input  logic        m2_rsp_ready_i,
  output logic [31:0] m2_rsp_data_o,
  output logic        m2_rsp_err_o,

  // Accelerator port (mux output)
  output logic        acc_cmd_valid_o,
  input  logic        acc_cmd_ready_i,
  output logic [2:0]  acc_cmd_op_o,
  output logic [6:0]  acc_cmd_index_o,
  output logic [31:0] acc_cmd_op_a_o,
  output logic [31:0] acc_cmd_op_b_o,
  input  logic        acc_rsp_valid_i,
  output logic        acc_rsp_ready_o,
  input  logic [31:0] acc_rsp_data_i,
  input  logic        acc_rsp_err_i
);

  localparam int unsigned NumIn = 3;

  logic [NumIn-1:0]       in_cmd_valid, in_cmd_ready, in_rsp_valid, in_rsp_ready;
  accel_cmd_t [NumIn-1:0] in_cmd;
  accel_rsp_t             in_rsp;
  accel_cmd_t             acc_cmd;

  couplet_reg_adapter u_reg (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .obi_req_i   (obi_req_i),
    .obi_rsp_o   (obi_rsp_o),
    .cmd_valid_o (in_cmd_valid[0]),
    .cmd_ready_i (in_cmd_ready[0]),
    .cmd_o       (in_cmd[0]),
    .rsp_valid_i (in_rsp_valid[0]),
    .rsp_ready_o (in_rsp_ready[0]),
    .rsp_i       (in_rsp)
  );

  assign ra_cmd_valid_o = in_cmd_valid[0];
  assign ra_cmd_ready_o = in_cmd_ready[0];

  assign in_cmd_valid[1] = m1_cmd_valid_i;
  assign in_cmd[1]       = '{op: accel_op_e'(m1_cmd_op_i), index: m1_cmd_index_i,
                             op_a: m1_cmd_op_a_i, op_b: m1_cmd_op_b_i};
  assign in_rsp_ready[1] = m1_rsp_ready_i;
  assign m1_cmd_ready_o  = in_cmd_ready[1];
  assign m1_rsp_valid_o  = in_rsp_valid[1];
  assign m1_rsp_data_o   = in_rsp.data;
  assign m1_rsp_err_o    = in_rsp.err;

  assign in_cmd_valid[2] = m2_cmd_valid_i;
  assign in_cmd[2]       = '{op: accel_op_e'(m2_cmd_op_i), index: m2_cmd_index_i,
                             op_a: m2_cmd_op_a_i, op_b: m2_cmd_op_b_i};
  assign in_rsp_ready[2] = m2_rsp_ready_i;
  assign m2_cmd_ready_o  = in_cmd_ready[2];
  assign m2_rsp_valid_o  = in_rsp_valid[2];
  assign m2_rsp_data_o   = in_rsp.data;
  assign m2_rsp_err_o    = in_rsp.err;

  couplet_accel_cmd_mux #(
    .NumIn       (NumIn),
    .MaxInFlight (MaxInFlight)
  ) u_mux (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_cmd_valid_i (in_cmd_valid),
    .in_cmd_ready_o (in_cmd_ready),
    .in_cmd_i       (in_cmd),
    .in_rsp_valid_o (in_rsp_valid),
    .in_rsp_ready_i (in_rsp_ready),
    .in_rsp_o       (in_rsp),
    .cmd_valid_o    (acc_cmd_valid_o),
    .cmd_ready_i    (acc_cmd_ready_i),
    .cmd_o          (acc_cmd),
    .rsp_valid_i    (acc_rsp_valid_i),
    .rsp_ready_o    (acc_rsp_ready_o),
    .rsp_i          ('{data: acc_rsp_data_i, err: acc_rsp_err_i})
  );

  assign acc_cmd_op_o    = acc_cmd.op;
  assign acc_cmd_index_o = acc_cmd.index;
  assign acc_cmd_op_a_o  = acc_cmd.op_a;
  assign acc_cmd_op_b_o  = acc_cmd.op_b;

endmodule
