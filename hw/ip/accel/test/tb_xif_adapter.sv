// Test wrapper for couplet_xif_adapter: the core's if_xif instance with its fields on flat
// ports (the cocotb core model drives the CPU side), and three tb_accel_regfile accelerators.
//   port 0: CUSTOM_0 (opcode 0x0b)
//   port 1: CUSTOM_1 (opcode 0x2b) with funct7 < 8
//   port 2: CUSTOM_1, the rest (overlaps port 1: the first match must win)
// test_xif_adapter.py holds the same map (PORTS); keep the two in step.
module tb_xif_adapter
  import couplet_accel_pkg::*;
#(
  parameter int unsigned Depth = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Issue
  input  logic        issue_valid_i,
  output logic        issue_ready_o,
  input  logic [31:0] issue_instr_i,
  input  logic [3:0]  issue_id_i,
  input  logic [31:0] issue_rs1_i,
  input  logic [31:0] issue_rs2_i,
  output logic        issue_accept_o,
  output logic        issue_writeback_o,
  output logic        issue_exc_o,
  output logic        issue_resp_other_o,  // OR of every other issue_resp field

  // Commit
  input  logic        commit_valid_i,
  input  logic [3:0]  commit_id_i,
  input  logic        commit_kill_i,

  // Result
  output logic        result_valid_o,
  input  logic        result_ready_i,
  output logic [3:0]  result_id_o,
  output logic [31:0] result_data_o,
  output logic [4:0]  result_rd_o,
  output logic        result_we_o,
  output logic        result_exc_o,
  output logic [5:0]  result_exccode_o,
  output logic        result_other_o,      // OR of ecsdata, ecswe, err, dbg

  // Compressed and memory interfaces (must stay idle)
  input  logic        compressed_valid_i,
  input  logic [15:0] compressed_instr_i,
  output logic        compressed_ready_o,
  output logic        compressed_accept_o,
  output logic        mem_valid_o,
  output logic        mem_req_nonzero_o,
  input  logic        mem_ready_i,
  input  logic        mem_result_valid_i,

  // Accelerator ports, for the monitors
  output accel_cmd_req_t [2:0] acc_req_o,
  output logic [2:0]           acc_ready_o,
  output accel_cmd_rsp_t [2:0] acc_rsp_o,

  // Accelerator behaviour, per port
  input  logic [2:0]  cmd_stall_i,
  input  logic [2:0]  rsp_stall_i,
  input  logic [3:0]  exec_latency_i
);

  localparam int unsigned NumPorts = 3;

  if_xif #(
    .X_NUM_RS    (2),
    .X_ID_WIDTH  (4),
    .X_MEM_WIDTH (32)
  ) u_xif ();

  // CPU side
  assign u_xif.issue_valid              = issue_valid_i;
  assign u_xif.issue_req.instr          = issue_instr_i;
  assign u_xif.issue_req.mode           = 2'b11;
  assign u_xif.issue_req.id             = issue_id_i;
  assign u_xif.issue_req.rs[0]          = issue_rs1_i;
  assign u_xif.issue_req.rs[1]          = issue_rs2_i;
  assign u_xif.issue_req.rs_valid       = 2'b11;
  assign u_xif.issue_req.ecs            = 6'b111111;
  assign u_xif.issue_req.ecs_valid      = 1'b1;
  assign u_xif.commit_valid             = commit_valid_i;
  assign u_xif.commit.id                = commit_id_i;
  assign u_xif.commit.commit_kill       = commit_kill_i;
  assign u_xif.result_ready             = result_ready_i;
  assign u_xif.compressed_valid         = compressed_valid_i;
  assign u_xif.compressed_req.instr     = compressed_instr_i;
  assign u_xif.compressed_req.mode      = 2'b11;
  assign u_xif.compressed_req.id        = issue_id_i;
  assign u_xif.mem_ready                = mem_ready_i;
  assign u_xif.mem_resp                 = '0;
  assign u_xif.mem_result_valid         = mem_result_valid_i;
  assign u_xif.mem_result               = '0;

  assign issue_ready_o      = u_xif.issue_ready;
  assign issue_accept_o     = u_xif.issue_resp.accept;
  assign issue_writeback_o  = u_xif.issue_resp.writeback;
  assign issue_exc_o        = u_xif.issue_resp.exc;
  assign issue_resp_other_o = |{u_xif.issue_resp.dualwrite, u_xif.issue_resp.dualread,
                                u_xif.issue_resp.loadstore, u_xif.issue_resp.ecswrite};
  assign result_valid_o     = u_xif.result_valid;
  assign result_id_o        = u_xif.result.id;
  assign result_data_o      = u_xif.result.data;
  assign result_rd_o        = u_xif.result.rd;
  assign result_we_o        = u_xif.result.we;
  assign result_exc_o       = u_xif.result.exc;
  assign result_exccode_o   = u_xif.result.exccode;
  assign result_other_o     = |{u_xif.result.ecsdata, u_xif.result.ecswe, u_xif.result.err,
                                u_xif.result.dbg};
  assign compressed_ready_o  = u_xif.compressed_ready;
  assign compressed_accept_o = |u_xif.compressed_resp;
  assign mem_valid_o         = u_xif.mem_valid;
  assign mem_req_nonzero_o   = |u_xif.mem_req;

  couplet_xif_adapter #(
    .NumPorts   (NumPorts),
    .PortMask   ({32'h0000_007f, 32'hf000_007f, 32'h0000_007f}),
    .PortMatch  ({32'h0000_002b, 32'h0000_002b, 32'h0000_000b}),
    .Depth      (Depth)
  ) u_dut (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .xif_compressed_if (u_xif),
    .xif_issue_if      (u_xif),
    .xif_commit_if     (u_xif),
    .xif_mem_if        (u_xif),
    .xif_mem_result_if (u_xif),
    .xif_result_if     (u_xif),
    .cmd_req_o         (acc_req_o),
    .cmd_ready_i       (acc_ready_o),
    .cmd_rsp_i         (acc_rsp_o)
  );

  for (genvar k = 0; k < NumPorts; k++) begin : gen_accel
    tb_accel_regfile u_accel (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .cmd_req_i      (acc_req_o[k]),
      .cmd_ready_o    (acc_ready_o[k]),
      .cmd_rsp_o      (acc_rsp_o[k]),
      .cmd_stall_i    (cmd_stall_i[k]),
      .rsp_stall_i    (rsp_stall_i[k]),
      .exec_latency_i (exec_latency_i)
    );
  end

endmodule
