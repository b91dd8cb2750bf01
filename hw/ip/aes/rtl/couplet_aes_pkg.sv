// Types and pure functions of the AES accelerator (FIPS-197).
//
// Byte i of a block, word or key is bits [8*i +: 8]; byte 0 is FIPS-197's first byte. A block
// is four columns (words), column c in bits [32*c +: 32], and row r of a column is its byte r, so
// state byte s[r,c] is block byte r + 4*c, as in FIPS-197 section 3.4.
package couplet_aes_pkg;

  // The key length and mode encodings are CTRL's, and the datapath choice aes_arch_e is the
  // engine's build parameter, all generated from hw/ip/aes/data/aes.toml.
  import aes_reg_pkg::*;

  // The largest schedule (AES-256): 15 round keys of 4 words. Only the core's hierarchy uses
  // these; designs that import the package for the S-box alone would see them as unused.
  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned AesMaxRounds   = 14;
  localparam int unsigned AesMaxKeyWords = 4 * (AesMaxRounds + 1);
  /* verilator lint_on UNUSEDPARAM */

  // Number of rounds Nr. The unused encoding 2'd3 maps to AES-256 so that it stays in range.
  function automatic logic [3:0] aes_num_rounds(aes_key_len_e key_len);
    unique case (key_len)
      AesKeyLen128: return 4'd10;
      AesKeyLen192: return 4'd12;
      default:   return 4'd14;
    endcase
  endfunction

  // An engine's key sizes (its KeySizes parameter, aes_cfg_t.key_sizes): bit i is key length i.
  typedef logic [2:0] aes_key_sizes_t;
  localparam aes_key_sizes_t AesKeySizesAll = 3'b111;

  // Whether an engine with `sizes` has key length `key_len` (the unused encoding: never).
  function automatic logic aes_key_len_built(aes_key_sizes_t sizes, aes_key_len_e key_len);
    logic [3:0] with_unused;
    with_unused = {1'b0, sizes};
    return with_unused[key_len];
  endfunction

  // The smallest key length of an engine with `sizes`: CTRL's after reset and zeroize.
  function automatic aes_key_len_e aes_key_len_first(aes_key_sizes_t sizes);
    aes_key_len_e first = AesKeyLen256;
    for (int i = $bits(sizes) - 1; i >= 0; i--) begin
      if (sizes[i]) first = aes_key_len_e'(i);
    end
    return first;
  endfunction

  // The largest key length of an engine with `sizes`: its schedule's length.
  function automatic aes_key_len_e aes_key_len_last(aes_key_sizes_t sizes);
    aes_key_len_e last = AesKeyLen128;
    for (int i = 0; i < $bits(sizes); i++) begin
      if (sizes[i]) last = aes_key_len_e'(i);
    end
    return last;
  endfunction

  // The key length the datapath works with: `key_len` itself, which CTRL holds only where the
  // engine has it, or else the smallest. With one key size it is a constant, so that the
  // schedule and round count of the others are not built.
  function automatic aes_key_len_e aes_key_len_fold(aes_key_sizes_t sizes, aes_key_len_e key_len);
    if (sizes == AesKeySizesAll) return key_len;  // the full engine, as before the option
    if ($countones(sizes) == 1) return aes_key_len_first(sizes);
    return aes_key_len_built(sizes, key_len) ? key_len : aes_key_len_first(sizes);
  endfunction

  // Key expansion iterations (each produces Nk words): ceil((4*(Nr+1) - Nk) / Nk).
  function automatic logic [3:0] aes_key_iterations(aes_key_len_e key_len);
    unique case (key_len)
      AesKeyLen128: return 4'd10;
      AesKeyLen192: return 4'd8;
      default:   return 4'd7;
    endcase
  endfunction

  // Rcon of key expansion iteration `iter` (0-based), i.e. x^iter in GF(2^8).
  function automatic logic [7:0] aes_rcon(logic [3:0] iter);
    unique case (iter)
      4'd0:    return 8'h01;
      4'd1:    return 8'h02;
      4'd2:    return 8'h04;
      4'd3:    return 8'h08;
      4'd4:    return 8'h10;
      4'd5:    return 8'h20;
      4'd6:    return 8'h40;
      4'd7:    return 8'h80;
      4'd8:    return 8'h1b;
      4'd9:    return 8'h36;
      default: return 8'h00;
    endcase
  endfunction

  // Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
  function automatic logic [7:0] aes_xtime(logic [7:0] b);
    return {b[6:0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
  endfunction

  // Multiplication by x^2.
  function automatic logic [7:0] aes_x4time(logic [7:0] b);
    return aes_xtime(aes_xtime(b));
  endfunction

  function automatic logic [31:0] aes_mix_column(logic [31:0] a);
    logic [7:0] a0, a1, a2, a3;
    logic [7:0] b0, b1, b2, b3;
    a0 = a[7:0];
    a1 = a[15:8];
    a2 = a[23:16];
    a3 = a[31:24];
    // {02}a ^ {03}b = xtime(a ^ b) ^ b
    b0 = aes_xtime(a0 ^ a1) ^ a1 ^ a2 ^ a3;
    b1 = aes_xtime(a1 ^ a2) ^ a2 ^ a3 ^ a0;
    b2 = aes_xtime(a2 ^ a3) ^ a3 ^ a0 ^ a1;
    b3 = aes_xtime(a3 ^ a0) ^ a0 ^ a1 ^ a2;
    return {b3, b2, b1, b0};
  endfunction

  // InvMixColumns = MixColumns after multiplying the column by {04}x^2 + {05}
  // ("The Design of Rijndael", 4.1.3); it lets decryption share the MixColumns XOR tree.
  function automatic logic [31:0] aes_inv_mix_pre(logic [31:0] a);
    logic [7:0] u, v;
    u = aes_x4time(a[7:0] ^ a[23:16]);
    v = aes_x4time(a[15:8] ^ a[31:24]);
    return a ^ {v, u, v, u};
  endfunction

  function automatic logic [127:0] aes_mix_columns(logic [127:0] s);
    logic [127:0] r;
    for (int unsigned c = 0; c < 4; c++) begin
      r[32*c +: 32] = aes_mix_column(s[32*c +: 32]);
    end
    return r;
  endfunction

  function automatic logic [127:0] aes_inv_mix_pre_columns(logic [127:0] s);
    logic [127:0] r;
    for (int unsigned c = 0; c < 4; c++) begin
      r[32*c +: 32] = aes_inv_mix_pre(s[32*c +: 32]);
    end
    return r;
  endfunction

  // ShiftRows: s'[r,c] = s[r, (c + r) mod 4].
  function automatic logic [127:0] aes_shift_rows(logic [127:0] s);
    logic [127:0] r;
    for (int unsigned c = 0; c < 4; c++) begin
      for (int unsigned row = 0; row < 4; row++) begin
        r[8*(row + 4*c) +: 8] = s[8*(row + 4*((c + row) % 4)) +: 8];
      end
    end
    return r;
  endfunction

  // InvShiftRows: s'[r,c] = s[r, (c - r) mod 4].
  function automatic logic [127:0] aes_inv_shift_rows(logic [127:0] s);
    logic [127:0] r;
    for (int unsigned c = 0; c < 4; c++) begin
      for (int unsigned row = 0; row < 4; row++) begin
        r[8*(row + 4*c) +: 8] = s[8*(row + 4*((c + 4 - row) % 4)) +: 8];
      end
    end
    return r;
  endfunction

  // Four key schedule words after `w` (FIPS-197 5.2): w[i] = w[i-Nk] ^ w[i-1], where the first
  // takes `t` (its SubWord term) in place of w[i-1].
  function automatic logic [3:0][31:0] aes_key_chain(logic [3:0][31:0] w, logic [31:0] t);
    logic [3:0][31:0] r;
    r[0] = w[0] ^ t;
    for (int unsigned j = 1; j < 4; j++) begin
      r[j] = w[j] ^ r[j-1];
    end
    return r;
  endfunction

  // RotWord: [a0, a1, a2, a3] -> [a1, a2, a3, a0].
  function automatic logic [31:0] aes_rot_word(logic [31:0] w);
    return {w[7:0], w[31:8]};
  endfunction

  function automatic logic [7:0] aes_rotl8(logic [7:0] b, int unsigned n);
    return (b << n) | (b >> (8 - n));
  endfunction

  // The affine map of SubBytes, b_i ^ b_(i+4) ^ b_(i+5) ^ b_(i+6) ^ b_(i+7) ^ c_i with
  // c = {63}, written as rotations (FIPS-197 5.1.1).
  function automatic logic [7:0] aes_affine(logic [7:0] b);
    return b ^ aes_rotl8(b, 1) ^ aes_rotl8(b, 2) ^ aes_rotl8(b, 3) ^ aes_rotl8(b, 4) ^ 8'h63;
  endfunction

  // Its inverse: b_(i+2) ^ b_(i+5) ^ b_(i+7) ^ d_i with d = {05}.
  function automatic logic [7:0] aes_inv_affine(logic [7:0] b);
    return aes_rotl8(b, 1) ^ aes_rotl8(b, 3) ^ aes_rotl8(b, 6) ^ 8'h05;
  endfunction

endpackage
