// Simulation control: a console byte stream and an exit register.
//
// The harness watches console_valid_o and exit_valid_o on each clock edge. On an FPGA the
// console stream feeds a UART and the exit request drives a LED. Writes must enable byte lane 0,
// which carries the payload; anything else, and any other offset, is answered with an error.
//
// The console is a valid/ready register: a granted console write raises console_valid_o with
// its byte in the next cycle, and the byte stays until console_ready_i takes it. A console write
// that arrives while a byte is pending and not being taken is not granted, so a slow consumer
// (a UART) back-pressures the core instead of losing bytes. Every other access is granted at
// once. With console_ready_i tied high this is the plain one-cycle pulse the simulator expects.
module couplet_simctrl
  import couplet_obi_pkg::*;
  import simctrl_reg_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  // OBI slave; the address is the offset within simctrl's region.
  input  obi_req_t    obi_req_i,
  output obi_rsp_t    obi_rsp_o,

  output logic        console_valid_o,
  output logic [7:0]  console_data_o,
  input  logic        console_ready_i,
  output logic        exit_valid_o,
  output logic [7:0]  exit_code_o
);

  logic is_console, is_exit, err_d;
  assign is_console = (obi_req_i.addr == 32'(SIMCTRL_CONSOLE_OFFSET));
  assign is_exit    = (obi_req_i.addr == 32'(SIMCTRL_EXIT_OFFSET));
  // Reads of these write-only registers return zero; writes need byte lane 0.
  assign err_d      = !(is_console || is_exit) || (obi_req_i.we && !obi_req_i.be[0]);

  logic       rvalid_q, err_q;
  logic       console_valid_q, exit_valid_q;
  logic [7:0] console_data_q, exit_code_q;

  logic console_write, console_full, gnt, accept;
  assign console_write = obi_req_i.req && obi_req_i.we && !err_d && is_console;
  // The pending byte leaves in this cycle if the consumer is ready, so its slot is free again.
  assign console_full  = console_valid_q && !console_ready_i;
  assign gnt           = !(console_write && console_full);
  assign accept        = obi_req_i.req && gnt;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rvalid_q        <= 1'b0;
      err_q           <= 1'b0;
      console_valid_q <= 1'b0;
      console_data_q  <= '0;
      exit_valid_q    <= 1'b0;
      exit_code_q     <= '0;
    end else begin
      rvalid_q <= accept;
      err_q    <= accept && err_d;
      if (console_write && gnt) begin
        console_valid_q <= 1'b1;
        console_data_q  <= obi_req_i.wdata[7:0];
      end else if (console_ready_i) begin
        console_valid_q <= 1'b0;
      end
      // The first exit request is kept: the harness may sample it at its own pace.
      if (accept && obi_req_i.we && !err_d && is_exit && !exit_valid_q) begin
        exit_valid_q <= 1'b1;
        exit_code_q  <= obi_req_i.wdata[7:0];
      end
    end
  end

  // Only byte lane 0 carries a payload.
  logic unused_upper_lanes;
  assign unused_upper_lanes = ^{obi_req_i.be[3:1], obi_req_i.wdata[31:8]};
  logic unused_atop;
  assign unused_atop = ^obi_req_i.atop;  // no atomics reach a peripheral (the decoder stops them)

  // Both registers are write-only: reads return zero.
  assign obi_rsp_o = '{gnt:    gnt,
                       rvalid: rvalid_q,
                       rdata:  '0,
                       err:    err_q,
                       exokay: 1'b0};
  assign console_valid_o = console_valid_q;
  assign console_data_o  = console_data_q;
  assign exit_valid_o    = exit_valid_q;
  assign exit_code_o     = exit_code_q;

endmodule
