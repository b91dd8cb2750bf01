// The start every property-check harness shares (`couplet prove`, docs/formal.md): the solver's
// run begins with rst_ni low for one cycle, and rst_ni stays high afterwards. init_o is high in
// that first cycle only; checks hold from the cycle after it.
module couplet_fv_reset (
  input  logic clk_i,
  input  logic rst_ni,
  output logic init_o
);

  logic init_q;
  initial init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  assign init_o = init_q;

  always_comb begin
    if (init_q) ResetFirst: assume (!rst_ni);
    else        ResetThen: assume (rst_ni);
  end

endmodule
