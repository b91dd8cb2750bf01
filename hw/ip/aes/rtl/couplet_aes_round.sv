// One AES round, encryption or decryption, chosen per call.
//
// Encryption (FIPS-197 5.1):          SubBytes, ShiftRows, MixColumns, AddRoundKey.
// Decryption (inverse cipher, 5.3):   InvShiftRows, InvSubBytes, AddRoundKey, InvMixColumns.
// The byte substitution commutes with the row permutation, so both directions share the
// S-boxes; InvMixColumns reuses MixColumns after a small pre-transform. The last round of
// either direction skips the column mixing, leaving the same "substitute, permute, add key".
module couplet_aes_round
  import couplet_aes_pkg::*;
#(
  // Without it the round is forward only (decrypt_i must be 0): forward-only S-boxes.
  parameter bit Decrypt = 1'b1
) (
  input  logic [127:0] state_i,
  input  logic [127:0] round_key_i,
  input  logic         decrypt_i,
  input  logic         last_i,
  output logic [127:0] state_o
);

  logic [127:0] sub, perm, keyed, mix_in, mixed;

  // Forward-only S-boxes are kept as modules of their own (couplet_aes_sbox).
  for (genvar i = 0; i < 16; i++) begin : gen_sbox
    if (Decrypt) begin : gen_both
      couplet_aes_sbox u_sbox (
        .inv_i  (decrypt_i),
        .data_i (state_i[8*i +: 8]),
        .data_o (sub[8*i +: 8])
      );
    end else begin : gen_forward
      (* keep_hierarchy *)
      couplet_aes_sbox #(
        .Inverse (1'b0)
      ) u_sbox (
        .inv_i  (1'b0),
        .data_i (state_i[8*i +: 8]),
        .data_o (sub[8*i +: 8])
      );
    end
  end

  assign perm   = decrypt_i ? aes_inv_shift_rows(sub) : aes_shift_rows(sub);
  assign keyed  = perm ^ round_key_i;
  assign mix_in = decrypt_i ? aes_inv_mix_pre_columns(keyed) : perm;
  assign mixed  = aes_mix_columns(mix_in);

  always_comb begin
    if (last_i) begin
      state_o = keyed;
    end else if (decrypt_i) begin
      state_o = mixed;
    end else begin
      state_o = mixed ^ round_key_i;
    end
  end

endmodule
