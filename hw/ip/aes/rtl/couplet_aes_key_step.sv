// One step of the AES-128 key schedule (FIPS-197 5.2): round key r from round key r-1 and
// Rcon[r]. The encrypt-only AES-128 core chains these during a block instead of storing the
// schedule (couplet_aes_core, "on-the-fly keys").
module couplet_aes_key_step
  import couplet_aes_pkg::*;
(
  input  logic [127:0] key_i,
  input  logic [7:0]   rcon_i,
  output logic [127:0] key_o
);

  logic [31:0] sub;

  for (genvar i = 0; i < 4; i++) begin : gen_sbox
    (* keep_hierarchy *)
    couplet_aes_sbox #(
      .Inverse (1'b0)
    ) u_sbox (
      .inv_i  (1'b0),
      .data_i (key_i[96 + 8*i +: 8]),
      .data_o (sub[8*i +: 8])
    );
  end

  assign key_o = aes_key_chain(key_i, aes_rot_word(sub) ^ {24'h0, rcon_i});

endmodule
