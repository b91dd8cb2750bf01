// theta's column parities of a Keccak-f[1600] state (keccak_column_parity): 320 five-input
// XORs, purely combinational.
//
// Why a module of its own, kept whole through synthesis (keep_hierarchy): every state bit's
// next value is chi of three bits that theta changed, each by two of these parities, and the
// core adds the write port's choice (a round step or the bus bit). Flattened, Yosys's ABC
// (abc9, as synth_xilinx and synth_ecp5 run it) re-derives the parities inside each bit's
// logic and maps the core with its write port into 4,865 LUTs on xc7 and 12,210 LUT4 on ECP5;
// with the parities as this module's outputs, each bit becomes one five-input function (three
// theta-ed bits, the step, the bus bit) after a three-input theta per bit: 3,587 LUTs and
// 5,523 LUT4s (RoundsPerCycle = 1, hw/ip/keccak/README.md). The logic is the same; only the
// mapper's freedom to duplicate it is taken away.
(* keep_hierarchy *)
module couplet_keccak_parity
  import couplet_keccak_pkg::*;
(
  input  keccak_state_t state_i,
  output keccak_plane_t parity_o
);

  assign parity_o = keccak_column_parity(state_i);

endmodule
