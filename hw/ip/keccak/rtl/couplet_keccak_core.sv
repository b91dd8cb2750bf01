// Keccak-f[1600] permutation engine and the sponge's state register: RoundsPerCycle rounds per
// clock cycle, so one permutation takes 24 / RoundsPerCycle cycles. RoundsPerCycle must divide
// 24 (1, 2, 3, 4, 6, 8, 12 or 24); any other value stops elaboration (see
// gen_illegal_rounds_per_cycle).
//
// The state register is the only copy of the state: the rounds read it and nothing else, and
// software reaches it through a narrow write port, up to two 32-bit words per cycle: wr_i[w]
// writes state word w (bits [32*w +: 32]) from wr_data_i[w % 2], the bus of the even or odd
// words, replacing it or, with wr_xor_i, XORing into it; writing zero to every word clears the
// state. Writes take effect only while the core is idle and not starting (the caller holds them
// otherwise; they are ignored). So each state bit sees the round's output, itself, one bus bit,
// its word's enable and two controls: one LUT6 per bit, and no 1,600-bit path comes from the
// accelerator's front end (before, a second copy of the state and a per-word XOR path did).
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
  input  logic                      wr_xor_i,
  input  logic [1:0][31:0]          wr_data_i,

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

  // A permutation is one record, stepped together; all zero is idle with nothing done.
  typedef struct packed {
    keccak_state_t     state;
    keccak_round_idx_t round;  // first round of this cycle; 0 while idle
    logic              busy;
    logic              done;
  } perm_t;
  perm_t perm_q, perm_d;

  logic start, step, last;
  assign start           = start_i && !perm_q.busy;
  assign start_refused_o = start_i && perm_q.busy;
  assign step            = start || perm_q.busy;
  assign last            = (perm_q.round == LastBase);

  // RoundsPerCycle rounds in a chain, always on the state register.
  keccak_state_t [RoundsPerCycle:0] chain;
  assign chain[0] = perm_q.state;
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
        state: chain[RoundsPerCycle],
        round: last ? '0 : perm_q.round + keccak_round_idx_t'(RoundsPerCycle),
        busy:  !last,
        done:  last
      };
    end else begin
      for (int unsigned w = 0; w < KeccakWords; w++) begin
        if (wr_i[w]) begin
          perm_d.state[32*w +: 32] = (wr_xor_i ? perm_q.state[32*w +: 32] : 32'd0) ^ wr_data_i[w % 2];
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      perm_q <= '0;
    end else begin
      perm_q <= perm_d;
    end
  end

  assign busy_o  = perm_q.busy;
  assign done_o  = perm_q.done;
  assign state_o = perm_q.state;

endmodule
