// Keccak-f[1600] permutation engine and the sponge's state register: RoundsPerCycle rounds per
// clock cycle, so one permutation takes 24 / RoundsPerCycle cycles. RoundsPerCycle must divide
// 24 (1, 2, 3, 4, 6, 8, 12 or 24); any other value stops elaboration (see
// gen_illegal_rounds_per_cycle).
//
// The state register is the only copy of the state: the rounds read it and nothing else, and
// software reaches it through a narrow write port that replaces up to two 32-bit words a cycle:
// wr_i[w] writes wr_data_i[w % 2] (the bus of the even or of the odd words) into state word w,
// bits [32*w +: 32]. XORing into a word is writing the word XOR the data (the caller reads the
// word from state_o). clear_i zeroes the state. Writes and clear_i take effect only while the
// core is idle and not starting (the caller holds them otherwise; they are ignored).
//
// Why the port costs about nothing: a state flop's clock enable is its word's write or a round
// step, and its synchronous reset is the clear, both free pins of an FPGA flop. What is left
// for each bit's last LUT is "chi's output or the bus bit": chi's three inputs, the step and the
// bus bit. A port that XORed in the core would add the bit itself (a LUT per bit, 1,600 LUTs,
// measured), and so would an asynchronous clear (a flop has one set/reset pin, and sync and
// async cannot share it). So the state register has no asynchronous reset: reset clears it
// synchronously, at the first clock edge in reset.
//
// Cycle 0 is the cycle with start_i high while busy_o is low. It already runs the first
// RoundsPerCycle rounds on the state register, so done_o pulses in cycle 24 / RoundsPerCycle
// and busy_o is high in the cycles in between (never, with 24 rounds per cycle). busy_o is low
// in the done_o cycle, so a new start can follow with no idle cycle.
//
// state_o is the state register itself: it shows the permuted state from done_o on (and
// intermediate round values while busy_o is high). start_i while busy_o is refused:
// start_refused_o pulses in the same cycle and the running permutation continues untouched.
module couplet_keccak_core
  import couplet_keccak_pkg::*;
#(
  parameter int unsigned RoundsPerCycle = 1
) (
  input  logic          clk_i,
  input  logic          rst_ni,

  input  logic                      start_i,
  input  logic [KeccakWords-1:0]    wr_i,
  input  logic [1:0][31:0]          wr_data_i,
  input  logic                      clear_i,

  output logic                      busy_o,
  output logic                      done_o,
  output logic                      start_refused_o,
  output keccak_state_t             state_o
);

  // A parameter that does not divide 24 instantiates a module that exists nowhere, so the
  // build stops at elaboration with the rule in the error message. Unlike an elaboration
  // $error this needs no tool support: every tool fails on a missing module, and none looks
  // one up in a branch it does not generate (checked with Verilator and slang).
  if (RoundsPerCycle == 0 || KeccakRounds % RoundsPerCycle != 0) begin : gen_illegal_rounds_per_cycle
    keccak_RoundsPerCycle_must_divide_24 u_illegal_rounds_per_cycle ();
  end

  // The round field in the last cycle of a permutation.
  localparam keccak_round_idx_t LastBase = keccak_round_idx_t'(KeccakRounds - RoundsPerCycle);

  // A permutation's progress is one record, stepped together; all zero is idle with nothing
  // done. The state is beside it, in flops without an asynchronous reset (see above).
  typedef struct packed {
    keccak_round_idx_t round;  // first round of this cycle; 0 while idle
    logic              busy;
    logic              done;
  } perm_t;
  perm_t         perm_q, perm_d;
  keccak_state_t state_q;

  logic start, step, last, clear;
  assign start           = start_i && !perm_q.busy;
  assign start_refused_o = start_i && perm_q.busy;
  assign step            = start || perm_q.busy;
  assign last            = (perm_q.round == LastBase);
  assign clear           = !rst_ni || (clear_i && !step);

  // RoundsPerCycle rounds in a chain, always on the state register.
  keccak_state_t [RoundsPerCycle:0] chain;
  assign chain[0] = state_q;
  for (genvar r = 0; r < RoundsPerCycle; r++) begin : gen_round
    couplet_keccak_round u_round (
      .state_i     (chain[r]),
      .round_idx_i (perm_q.round + keccak_round_idx_t'(r)),
      .state_o     (chain[r+1])
    );
  end

  always_comb begin
    perm_d      = perm_q;
    perm_d.done = 1'b0;
    if (step) begin
      perm_d = '{
        round: last ? '0 : perm_q.round + keccak_round_idx_t'(RoundsPerCycle),
        busy:  !last,
        done:  last
      };
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      perm_q <= '0;
    end else begin
      perm_q <= perm_d;
    end
  end

  // Per word: clear (the flop's reset pin), else a step or a write (its enable pin).
  always_ff @(posedge clk_i) begin
    for (int unsigned w = 0; w < KeccakWords; w++) begin
      if (clear) begin
        state_q[32*w +: 32] <= '0;
      end else if (step) begin
        state_q[32*w +: 32] <= chain[RoundsPerCycle][32*w +: 32];
      end else if (wr_i[w]) begin
        state_q[32*w +: 32] <= wr_data_i[w % 2];
      end
    end
  end

  assign busy_o  = perm_q.busy;
  assign done_o  = perm_q.done;
  assign state_o = state_q;

endmodule
