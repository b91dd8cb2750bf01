// Memory-mapped registers (OBI slave) onto one accelerator command port (docs/coupling.md).
//
// Register i sits at byte offset 4*i, i < 128. A 32-bit store (be = 4'hf) is the command
// AccelOpWrite {index = i, op_a = wdata, op_b = 0}; a load of any width is AccelOpRead
// {index = i}, and the core picks its bytes out of the word. Everything else (a sub-word store,
// an offset that is not word-aligned or beyond 0x1fc) is answered with err = 1 and reaches the
// accelerator not at all; so is a command the accelerator answers with rsp.err.
//
// One transaction at a time: a request is granted when the adapter is idle and the accelerator
// takes the command in the same cycle (it goes out combinationally, so a load costs one cycle
// plus the accelerator's latency). The response is the accelerator's, passed through
// combinationally; the adapter takes it only from the cycle after the grant, so OBI's "response
// after the grant" holds whatever the accelerator does. The next request can be granted in the
// cycle after the response. The bus never hangs as long as the accelerator answers.
module couplet_reg_adapter
  import couplet_accel_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  // OBI slave; addr_i is the offset within the adapter's region.
  input  logic        req_i,
  output logic        gnt_o,
  input  logic [31:0] addr_i,
  input  logic        we_i,
  input  logic [3:0]  be_i,
  input  logic [31:0] wdata_i,
  output logic        rvalid_o,
  output logic [31:0] rdata_o,
  output logic        err_o,

  // Accelerator command port
  output logic        cmd_valid_o,
  input  logic        cmd_ready_i,
  output accel_cmd_t  cmd_o,
  input  logic        rsp_valid_i,
  output logic        rsp_ready_o,
  input  accel_rsp_t  rsp_i
);

  typedef enum logic [1:0] {
    StIdle,     // ready for a request
    StWaitRsp,  // command taken, waiting for the accelerator's response
    StError     // refused request: answer err = 1 in this cycle
  } state_e;

  state_e state_q, state_d;

  logic legal;
  assign legal = (addr_i[31:9] == '0) && (addr_i[1:0] == 2'b00) && (!we_i || (be_i == 4'hf));

  assign cmd_valid_o = (state_q == StIdle) && req_i && legal;
  assign cmd_o       = '{op:    we_i ? AccelOpWrite : AccelOpRead,
                         index: addr_i[8:2],
                         op_a:  we_i ? wdata_i : 32'd0,
                         op_b:  32'd0};
  assign gnt_o       = (state_q == StIdle) && (!legal || cmd_ready_i);
  assign rsp_ready_o = (state_q == StWaitRsp);

  always_comb begin
    state_d  = state_q;
    rvalid_o = 1'b0;
    rdata_o  = '0;
    err_o    = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (req_i && gnt_o) state_d = legal ? StWaitRsp : StError;
      end
      StWaitRsp: begin
        if (rsp_valid_i) begin
          rvalid_o = 1'b1;
          rdata_o  = rsp_i.err ? 32'd0 : rsp_i.data;
          err_o    = rsp_i.err;
          state_d  = StIdle;
        end
      end
      StError: begin
        rvalid_o = 1'b1;
        err_o    = 1'b1;
        state_d  = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
    end else begin
      state_q <= state_d;
    end
  end

endmodule
