// The rules of the accelerator command port (docs/coupling.md), checked wherever the port is
// instantiated with this module beside it: in every Verilator simulation (the SoC and each IP's
// cocotb bench) a broken rule stops the run with the rule's name. Synthesis sees an empty module
// (read_slang defines SYNTHESIS), so the check costs no logic. X checks are left out on purpose:
// a two-state simulator such as Verilator never sees an X, so $isunknown could never fire (the
// cocotb benches instead start every flop at a random value, --x-initial unique).
//
// The rules:
// - a command shown and not taken stays, unchanged, until it is taken (so is a response);
// - no response without a command taken before it: a response never comes in the cycle its
//   command is taken (the port has no combinational path from command to response), and the
//   responses never outnumber the commands (MaxOutstanding bounds the commands in flight).
module couplet_accel_port_assert
  import couplet_accel_pkg::*;
#(
  parameter int unsigned MaxOutstanding = 4
) (
  input logic           clk_i,
  input logic           rst_ni,
  input accel_cmd_req_t req_i,
  input logic           ready_i,
  input accel_cmd_rsp_t rsp_i
);

`ifndef SYNTHESIS
  couplet_handshake_assert #(.T(accel_cmd_t)) u_cmd (
    .clk_i, .rst_ni, .valid_i(req_i.valid), .ready_i(ready_i), .data_i(req_i.cmd)
  );
  couplet_handshake_assert #(.T(accel_rsp_t)) u_rsp (
    .clk_i, .rst_ni, .valid_i(rsp_i.rsp_valid), .ready_i(req_i.rsp_ready), .data_i(rsp_i.rsp)
  );

  localparam int unsigned CntW = $clog2(MaxOutstanding + 2);
  logic [CntW-1:0] outstanding_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      outstanding_q <= '0;
    end else begin
      RspAfterCmd: assert (!rsp_i.rsp_valid || outstanding_q != '0);
      InFlightBound: assert (outstanding_q <= CntW'(MaxOutstanding));
      outstanding_q <= outstanding_q + CntW'(req_i.valid && ready_i)
                                     - CntW'(rsp_i.rsp_valid && req_i.rsp_ready);
    end
  end
`endif

endmodule
