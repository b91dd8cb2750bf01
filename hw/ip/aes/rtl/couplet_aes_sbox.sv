// AES S-box and inverse S-box (FIPS-197 5.1.1 and 5.3.2).
//
// Both directions (Inverse = 1) share one GF(2^8) inversion: SubBytes is the affine map after
// it, InvSubBytes the inverse affine map before it. A forward-only S-box (Inverse = 0, inv_i
// unused) reads SubBytes from one table instead: each output bit is then a single 8-input
// function, which maps to four LUT6s and two wide-function muxes (xc7), where the inversion
// followed by the affine map's XORs takes more than twice that (issue 19: 16 S-boxes 1,152 ->
// 512 LUTs xc7, 3,696 -> 2,544 LUT4 ecp5). Two tables with a mux for both directions would cost
// as many xc7 LUTs as the shared inversion and more on ECP5, so the shared form stays there.
// Forward-only instances carry (* keep_hierarchy *): flattened into the round, Yosys merges the
// table with the logic around it and loses that mapping (the saving is gone in the SoC).
module couplet_aes_sbox
  import couplet_aes_pkg::*;
#(
  parameter bit Inverse = 1'b1
) (
  input  logic       inv_i,
  input  logic [7:0] data_i,
  output logic [7:0] data_o
);

  // One copy of the S-box's code for all its instances in the simulator: inlined into each
  // round (the default once a module has few callers), its code is repeated for each of the
  // round's sixteen S-boxes, and an UNROLLED core's build took four times as long.
  /* verilator no_inline_module */

  // The inversion is the same function, aes_gf_inv, in the form each tool handles best. The
  // simulator reads it from a table built at elaboration: from aes_gf_inv's case, Verilator
  // writes a 256-leaf tree of conditions in each instance's code, and the SoC model with an
  // UNROLLED engine (160 S-boxes) simulated at half speed. Synthesis maps the case: with the
  // table, the AES tight tile placed and routed on ECP5 reached 30.6 MHz instead of 37.0.
  if (Inverse) begin : gen_both
    logic [7:0] x, inv;
    assign x      = inv_i ? aes_inv_affine(data_i) : data_i;
`ifdef VERILATOR
    localparam aes_byte_table_t GfInv = aes_gf_inv_table();
    assign inv    = GfInv[x];
`else
    assign inv    = aes_gf_inv(x);
`endif
    assign data_o = inv_i ? inv : aes_affine(inv);
  end else begin : gen_forward
    localparam aes_byte_table_t SBox = aes_sbox_table();
    assign data_o = SBox[data_i];
    logic unused_inv;
    assign unused_inv = inv_i;
  end

endmodule
