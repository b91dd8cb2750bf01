// NumIn command ports onto one accelerator command port, so that one accelerator instance can
// be reached through several couplings (for example custom instructions and memory-mapped
// registers).
//
// Commands pass through combinationally (no added cycle); when several inputs wait, the grant
// goes round-robin, starting after the input served last. An input that is presented to the
// accelerator and not yet taken stays selected until it is taken, so the command the
// accelerator sees is stable while req_o.valid is high. Up to MaxInFlight commands may await
// their responses; a FIFO of input numbers routes each response back to the input that sent
// the command, in order. Responses never depend combinationally on commands, and commands never
// on responses.
module couplet_accel_cmd_mux
  import couplet_accel_pkg::*;
#(
  parameter int unsigned NumIn       = 2,
  parameter int unsigned MaxInFlight = 2
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,

  // Inputs (the couplings); each response goes to in_rsp_o[i] of the input that sent the command.
  input  accel_cmd_req_t [NumIn-1:0] in_req_i,
  output logic [NumIn-1:0]           in_ready_o,
  output accel_cmd_rsp_t [NumIn-1:0] in_rsp_o,

  // Output (the accelerator)
  output accel_cmd_req_t             req_o,
  input  logic                       ready_i,
  input  accel_cmd_rsp_t             rsp_i
);

  localparam int unsigned SelW = (NumIn > 1) ? $clog2(NumIn) : 1;

  if (NumIn < 1 || MaxInFlight < 1) begin : gen_param_check
    $error("couplet_accel_cmd_mux: NumIn and MaxInFlight must be at least 1");
  end

  typedef logic [SelW-1:0] sel_t;

  // ------------------------------------------------------------------------------ arbitration
  sel_t last_q, last_d;      // input served last; the search starts after it
  logic lock_q, lock_d;      // a command is shown to the accelerator and not yet taken
  sel_t lock_sel_q, lock_sel_d;

  sel_t sel;
  logic any_valid;

  always_comb begin
    sel       = '0;
    any_valid = 1'b0;
    // Walk the inputs from the one after last_q, wrapping; the first valid one wins.
    for (int unsigned step = 1; step <= NumIn; step++) begin
      int unsigned i;
      i = int'(last_q) + step;
      if (i >= NumIn) i -= NumIn;
      if (in_req_i[i].valid && !any_valid) begin
        any_valid = 1'b1;
        sel       = sel_t'(i);
      end
    end
    if (lock_q) begin
      any_valid = in_req_i[lock_sel_q].valid;
      sel       = lock_sel_q;
    end
  end

  // --------------------------------------------------------------------------- routing FIFO
  // One entry per command in flight: the input that sent it. The head is the input the next
  // response goes to.
  logic space, in_flight, full, empty, cmd_hs, rsp_hs;
  sel_t owner;
  logic [$clog2(MaxInFlight + 1)-1:0] in_flight_count;

  couplet_fifo #(
    .Width (SelW),
    .Depth (MaxInFlight)
  ) u_routing_fifo (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .flush_i (1'b0),
    .push_i  (cmd_hs),
    .data_i  (sel),
    .full_o  (full),
    .pop_i   (rsp_hs),
    .data_o  (owner),
    .empty_o (empty),
    .count_o (in_flight_count)
  );

  // The FIFO checks its own count; the handshakes need only its flags.
  logic unused_in_flight_count;
  assign unused_in_flight_count = ^in_flight_count;

  assign space     = !full;
  assign in_flight = !empty;

  assign req_o.valid     = any_valid && space;
  assign req_o.cmd       = in_req_i[sel].cmd;
  assign req_o.rsp_ready = in_flight && in_req_i[owner].rsp_ready;
  assign cmd_hs          = req_o.valid && ready_i;
  assign rsp_hs          = rsp_i.rsp_valid && req_o.rsp_ready;

  logic [NumIn-1:0] in_rsp_valid;
  always_comb begin
    for (int unsigned i = 0; i < NumIn; i++) begin
      in_ready_o[i]   = space && ready_i && any_valid && (sel == sel_t'(i));
      in_rsp_valid[i] = in_flight && rsp_i.rsp_valid && (owner == sel_t'(i));
      in_rsp_o[i]     = '{rsp_valid: in_rsp_valid[i], rsp: rsp_i.rsp};
    end
  end

  always_comb begin
    last_d     = cmd_hs ? sel : last_q;
    lock_d     = req_o.valid && !ready_i;
    lock_sel_d = sel;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q     <= sel_t'(NumIn - 1);  // input 0 goes first
      lock_q     <= 1'b0;
      lock_sel_q <= '0;
    end else begin
      last_q     <= last_d;
      lock_q     <= lock_d;
      lock_sel_q <= lock_sel_d;
    end
  end

`ifndef SYNTHESIS
  // One input at a time is served and answered, and the winner of the arbitration is an input;
  // the routing FIFO checks that it never overflows. (A reset-style block, so that rst_ni stays
  // an asynchronous reset only.)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      OneInputServed: assert ($onehot0(in_ready_o));
      OneInputAnswered: assert ($onehot0(in_rsp_valid));
      SelInRange: assert (int'(sel) < NumIn);
    end
  end
`endif

endmodule
