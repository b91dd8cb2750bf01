// Property checks of couplet_simctrl's bus port (`couplet prove simctrl`, docs/formal.md).
//
// The bus master and the console's consumer are left to the solver: the master bound by the OBI
// rules (couplet_obi_fv_port), the consumer to take a byte within MaxConsumerWait cycles (a UART
// takes one per character time; the simulator at once). Checked: the port keeps the OBI rules;
// a request is answered in the cycle after its grant, and granted at once unless it is a console
// write while a byte waits, which is held off only until the consumer takes it; an offset other
// than the two registers, or a write without byte lane 0, is an error; and every console write
// granted becomes exactly one byte offered to the consumer, with its data, none lost.
module couplet_simctrl_fv
  import simctrl_reg_pkg::*;
  import couplet_obi_pkg::*;
(
  input logic     clk_i,
  input logic     rst_ni,
  input obi_req_t obi_req_i,
  input logic     console_ready_i,
  input logic     mutate_i
);

  localparam int unsigned MaxConsumerWait = 3;

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  obi_rsp_t   obi_rsp, obi_rsp_dut;
  logic       console_valid, exit_valid;
  logic [7:0] console_data, exit_code;

  couplet_simctrl u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .obi_req_i       (obi_req_i),
    .obi_rsp_o       (obi_rsp_dut),
    .console_valid_o (console_valid),
    .console_data_o  (console_data),
    .console_ready_i (console_ready_i),
    .exit_valid_o    (exit_valid),
    .exit_code_o     (exit_code)
  );

  logic unused_exit;
  assign unused_exit = ^{exit_valid, exit_code, mutate_i};

  // Mutant (`couplet prove` shows that it makes a check fail): the harness itself, not the RTL,
  // grants a console write while a byte waits, in a cycle the solver picks (a byte is lost).
  always_comb begin
    obi_rsp = obi_rsp_dut;
`ifdef FV_MUTANT_GRANT_WHEN_FULL
    if (mutate_i) obi_rsp.gnt = 1'b1;
`endif
  end

  logic [3:0] outstanding, rsp_wait;
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (1),
    .MaxGntWait     (MaxConsumerWait + 1),
    .MaxRspWait     (2)
  ) u_bus (
    .clk_i, .rst_ni, .req_i(obi_req_i), .rsp_i(obi_rsp), .outstanding_o(outstanding), .rsp_wait_o(rsp_wait)
  );

  // ------------------------------------------------------------------ the consumer
  logic [2:0] consumer_wait_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) consumer_wait_q <= '0;
    else         consumer_wait_q <= (console_valid && !console_ready_i) ? consumer_wait_q + 3'd1 : '0;
  end
  always_comb begin
    if (rst_ni && !init_q) begin
      ConsumerTakes: assume (consumer_wait_q < 3'(MaxConsumerWait));
    end
  end

  // ------------------------------------------------------------------ accesses
  logic accept, is_console, legal, legal_q;
  assign accept     = obi_req_i.req && obi_rsp.gnt;
  assign is_console = obi_req_i.addr == 32'(SIMCTRL_CONSOLE_OFFSET);
  assign legal      = (is_console || obi_req_i.addr == 32'(SIMCTRL_EXIT_OFFSET)) &&
                      (!obi_req_i.we || obi_req_i.be[0]);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)     legal_q <= 1'b0;
    else if (accept) legal_q <= legal;
  end

  // Bytes written and not yet offered-and-taken: at most one (the console register).
  logic       console_write;
  logic [1:0] bytes_q;
  logic [7:0] byte_q;
  assign console_write = accept && obi_req_i.we && legal && is_console;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bytes_q <= '0;
      byte_q  <= '0;
    end else begin
      bytes_q <= bytes_q + 2'(console_write) - 2'(console_valid && console_ready_i);
      if (console_write) byte_q <= obi_req_i.wdata[7:0];
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      AnswerNextCycle: assert (obi_rsp.rvalid == (outstanding == 4'd1) && rsp_wait <= 4'd1);
      if (obi_rsp.rvalid) begin
        ErrorIffIllegal: assert (obi_rsp.err == !legal_q);
      end
      // Held off only by a console write while a byte waits and is not taken now.
      GrantAtOnce: assert (obi_rsp.gnt || (obi_req_i.we && legal && is_console && console_valid &&
                                           !console_ready_i));
      // Each console write is one byte offered, with its data: none lost, none doubled.
      OneByte: assert (bytes_q <= 2'd1 && console_valid == (bytes_q == 2'd1) &&
                       (!console_valid || console_data == byte_q));
    end
  end

endmodule
