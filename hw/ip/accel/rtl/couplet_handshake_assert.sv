// The rule of every valid/ready handshake of the coupling layer (commands, responses, DMA jobs):
// what is shown and not yet taken stays shown, unchanged, until it is taken. Every simulation
// checks it; synthesis sees an empty module (read_slang defines SYNTHESIS).
module couplet_handshake_assert #(
  parameter type T = logic
) (
  input logic clk_i,
  input logic rst_ni,
  input logic valid_i,
  input logic ready_i,
  input T     data_i
);

`ifndef SYNTHESIS
  // The check starts after reset; rst_ni stays an asynchronous reset only (lint: SYNCASYNCNET).
  logic on_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) on_q <= 1'b0;
    else         on_q <= 1'b1;
  end

  HeldUntilTaken: assert property (@(posedge clk_i) disable iff (!on_q)
      valid_i && !ready_i |=> valid_i && $stable(data_i));
`endif

endmodule
