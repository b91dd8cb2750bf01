// Test-only accelerator behind one command port, following the register convention of
// docs/coupling.md, with back-pressure and latency driven by the testbench.
//
//   AccelOpRead   index < 8: data = reg[index]
//   AccelOpWrite  index < 8: reg[index] = op_a, data = 0
//   AccelOpWrite2 index < 7: reg[index] = op_a, reg[index + 1] = op_b, data = 0
//   AccelOpExec   index 0 (ADD): data = op_a + op_b, answered exec_latency_i cycles later
//   anything else: err = 1, data = 0, no effect
//
// A command takes effect in the cycle it is taken. Its response comes at the earliest in the
// next cycle (never in the same one), later by exec_latency_i for ADD, and later still while
// rsp_stall_i is high before it is raised; once raised it is held until taken. cmd_stall_i
// lowers cmd_ready_o. A new command is taken in the cycle the previous response leaves, so a
// latency-0 command stream runs at one per cycle.
module tb_accel_regfile
  import couplet_accel_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,

  input  accel_cmd_req_t cmd_req_i,
  output logic           cmd_ready_o,
  output accel_cmd_rsp_t cmd_rsp_o,

  input  logic           cmd_stall_i,
  input  logic           rsp_stall_i,
  input  logic [3:0]     exec_latency_i
);

  localparam int unsigned NumRegs = 8;

  logic [NumRegs-1:0][31:0] regs_q, regs_d;
  logic                     busy_q, busy_d;
  logic                     rsp_valid_q, rsp_valid_d;
  logic [3:0]               wait_q, wait_d;
  accel_rsp_t               rsp_q, rsp_d;

  accel_cmd_t cmd;
  logic       cmd_hs, rsp_hs;
  assign cmd             = cmd_req_i.cmd;
  assign rsp_hs          = rsp_valid_q && cmd_req_i.rsp_ready;
  assign cmd_ready_o     = !cmd_stall_i && (!busy_q || rsp_hs);
  assign cmd_hs          = cmd_req_i.valid && cmd_ready_o;

  always_comb begin
    logic [3:0] latency;
    regs_d      = regs_q;
    busy_d      = busy_q;
    rsp_valid_d = rsp_valid_q;
    wait_d      = wait_q;
    rsp_d       = rsp_q;
    latency     = 4'd0;

    if (rsp_hs) begin
      busy_d      = 1'b0;
      rsp_valid_d = 1'b0;
    end else if (busy_q && !rsp_valid_q) begin
      if (wait_q != 4'd0) begin
        wait_d = wait_q - 4'd1;
      end else if (!rsp_stall_i) begin
        rsp_valid_d = 1'b1;
      end
    end

    if (cmd_hs) begin
      rsp_d = '{data: 32'd0, err: 1'b0};
      unique case (cmd.op)
        AccelOpRead: begin
          if (cmd.index < 7'(NumRegs)) rsp_d.data = regs_q[cmd.index[2:0]];
          else rsp_d.err = 1'b1;
        end
        AccelOpWrite: begin
          if (cmd.index < 7'(NumRegs)) regs_d[cmd.index[2:0]] = cmd.op_a;
          else rsp_d.err = 1'b1;
        end
        AccelOpWrite2: begin
          if (cmd.index < 7'(NumRegs - 1)) begin
            regs_d[cmd.index[2:0]]        = cmd.op_a;
            regs_d[cmd.index[2:0] + 3'd1] = cmd.op_b;
          end else begin
            rsp_d.err = 1'b1;
          end
        end
        AccelOpExec: begin
          if (cmd.index == 7'd0) begin
            rsp_d.data = cmd.op_a + cmd.op_b;
            latency    = exec_latency_i;
          end else begin
            rsp_d.err = 1'b1;
          end
        end
        default: rsp_d.err = 1'b1;
      endcase
      busy_d = 1'b1;
      if (latency == 4'd0 && !rsp_stall_i) begin
        rsp_valid_d = 1'b1;
        wait_d      = 4'd0;
      end else begin
        rsp_valid_d = 1'b0;
        wait_d      = (latency == 4'd0) ? 4'd0 : latency - 4'd1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      regs_q      <= '0;
      busy_q      <= 1'b0;
      rsp_valid_q <= 1'b0;
      wait_q      <= '0;
      rsp_q       <= '0;
    end else begin
      regs_q      <= regs_d;
      busy_q      <= busy_d;
      rsp_valid_q <= rsp_valid_d;
      wait_q      <= wait_d;
      rsp_q       <= rsp_d;
    end
  end

  assign cmd_rsp_o.rsp_valid = rsp_valid_q;
  assign cmd_rsp_o.rsp       = rsp_q;

endmodule
