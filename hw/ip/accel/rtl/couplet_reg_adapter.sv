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
  import couplet_obi_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  // OBI slave; the address is the offset within the adapter's region.
  input  obi_req_t    obi_req_i,
  output obi_rsp_t    obi_rsp_o,

  // Accelerator command port
  output accel_cmd_req_t cmd_req_o,
  input  logic           cmd_ready_i,
  input  accel_cmd_rsp_t cmd_rsp_i
);

  typedef enum logic [1:0] {
    StIdle,     // ready for a request
    StWaitRsp,  // command taken, waiting for the accelerator's response
    StError     // refused request: answer err = 1 in this cycle
  } state_e;

  state_e state_q, state_d;

  logic        gnt, rvalid, err;
  logic [31:0] rdata;

  logic legal;
  assign legal = (obi_req_i.addr[31:9] == '0) && (obi_req_i.addr[1:0] == 2'b00) &&
                 (!obi_req_i.we || (obi_req_i.be == 4'hf));

  assign cmd_req_o.valid = (state_q == StIdle) && obi_req_i.req && legal;
  assign cmd_req_o.cmd   = '{op:    obi_req_i.we ? AccelOpWrite : AccelOpRead,
                             index: obi_req_i.addr[8:2],
                             op_a:  obi_req_i.we ? obi_req_i.wdata : 32'd0,
                             op_b:  32'd0};
  assign cmd_req_o.rsp_ready = (state_q == StWaitRsp);
  assign gnt = (state_q == StIdle) && (!legal || cmd_ready_i);

  always_comb begin
    state_d = state_q;
    rvalid  = 1'b0;
    rdata   = '0;
    err     = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (obi_req_i.req && gnt) state_d = legal ? StWaitRsp : StError;
      end
      StWaitRsp: begin
        if (cmd_rsp_i.rsp_valid) begin
          rvalid  = 1'b1;
          rdata   = cmd_rsp_i.rsp.err ? 32'd0 : cmd_rsp_i.rsp.data;
          err     = cmd_rsp_i.rsp.err;
          state_d = StIdle;
        end
      end
      StError: begin
        rvalid  = 1'b1;
        err     = 1'b1;
        state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  assign obi_rsp_o = '{gnt:    gnt,
                       rvalid: rvalid,
                       rdata:  rdata,
                       err:    err,
                       exokay: 1'b0};
  logic unused_atop;
  assign unused_atop = ^obi_req_i.atop;  // no atomics reach a peripheral (the decoder stops them)

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
    end else begin
      state_q <= state_d;
    end
  end

endmodule
