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

  // Multiplicative inverse in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1, with 0 mapped to 0: the
  // S-box's nonlinear part (FIPS-197 5.1.1), a table.
  function automatic logic [7:0] aes_gf_inv(logic [7:0] b);
    logic [7:0] r;
    unique case (b)
      8'h00: r = 8'h00;  8'h01: r = 8'h01;  8'h02: r = 8'h8d;  8'h03: r = 8'hf6;
      8'h04: r = 8'hcb;  8'h05: r = 8'h52;  8'h06: r = 8'h7b;  8'h07: r = 8'hd1;
      8'h08: r = 8'he8;  8'h09: r = 8'h4f;  8'h0a: r = 8'h29;  8'h0b: r = 8'hc0;
      8'h0c: r = 8'hb0;  8'h0d: r = 8'he1;  8'h0e: r = 8'he5;  8'h0f: r = 8'hc7;
      8'h10: r = 8'h74;  8'h11: r = 8'hb4;  8'h12: r = 8'haa;  8'h13: r = 8'h4b;
      8'h14: r = 8'h99;  8'h15: r = 8'h2b;  8'h16: r = 8'h60;  8'h17: r = 8'h5f;
      8'h18: r = 8'h58;  8'h19: r = 8'h3f;  8'h1a: r = 8'hfd;  8'h1b: r = 8'hcc;
      8'h1c: r = 8'hff;  8'h1d: r = 8'h40;  8'h1e: r = 8'hee;  8'h1f: r = 8'hb2;
      8'h20: r = 8'h3a;  8'h21: r = 8'h6e;  8'h22: r = 8'h5a;  8'h23: r = 8'hf1;
      8'h24: r = 8'h55;  8'h25: r = 8'h4d;  8'h26: r = 8'ha8;  8'h27: r = 8'hc9;
      8'h28: r = 8'hc1;  8'h29: r = 8'h0a;  8'h2a: r = 8'h98;  8'h2b: r = 8'h15;
      8'h2c: r = 8'h30;  8'h2d: r = 8'h44;  8'h2e: r = 8'ha2;  8'h2f: r = 8'hc2;
      8'h30: r = 8'h2c;  8'h31: r = 8'h45;  8'h32: r = 8'h92;  8'h33: r = 8'h6c;
      8'h34: r = 8'hf3;  8'h35: r = 8'h39;  8'h36: r = 8'h66;  8'h37: r = 8'h42;
      8'h38: r = 8'hf2;  8'h39: r = 8'h35;  8'h3a: r = 8'h20;  8'h3b: r = 8'h6f;
      8'h3c: r = 8'h77;  8'h3d: r = 8'hbb;  8'h3e: r = 8'h59;  8'h3f: r = 8'h19;
      8'h40: r = 8'h1d;  8'h41: r = 8'hfe;  8'h42: r = 8'h37;  8'h43: r = 8'h67;
      8'h44: r = 8'h2d;  8'h45: r = 8'h31;  8'h46: r = 8'hf5;  8'h47: r = 8'h69;
      8'h48: r = 8'ha7;  8'h49: r = 8'h64;  8'h4a: r = 8'hab;  8'h4b: r = 8'h13;
      8'h4c: r = 8'h54;  8'h4d: r = 8'h25;  8'h4e: r = 8'he9;  8'h4f: r = 8'h09;
      8'h50: r = 8'hed;  8'h51: r = 8'h5c;  8'h52: r = 8'h05;  8'h53: r = 8'hca;
      8'h54: r = 8'h4c;  8'h55: r = 8'h24;  8'h56: r = 8'h87;  8'h57: r = 8'hbf;
      8'h58: r = 8'h18;  8'h59: r = 8'h3e;  8'h5a: r = 8'h22;  8'h5b: r = 8'hf0;
      8'h5c: r = 8'h51;  8'h5d: r = 8'hec;  8'h5e: r = 8'h61;  8'h5f: r = 8'h17;
      8'h60: r = 8'h16;  8'h61: r = 8'h5e;  8'h62: r = 8'haf;  8'h63: r = 8'hd3;
      8'h64: r = 8'h49;  8'h65: r = 8'ha6;  8'h66: r = 8'h36;  8'h67: r = 8'h43;
      8'h68: r = 8'hf4;  8'h69: r = 8'h47;  8'h6a: r = 8'h91;  8'h6b: r = 8'hdf;
      8'h6c: r = 8'h33;  8'h6d: r = 8'h93;  8'h6e: r = 8'h21;  8'h6f: r = 8'h3b;
      8'h70: r = 8'h79;  8'h71: r = 8'hb7;  8'h72: r = 8'h97;  8'h73: r = 8'h85;
      8'h74: r = 8'h10;  8'h75: r = 8'hb5;  8'h76: r = 8'hba;  8'h77: r = 8'h3c;
      8'h78: r = 8'hb6;  8'h79: r = 8'h70;  8'h7a: r = 8'hd0;  8'h7b: r = 8'h06;
      8'h7c: r = 8'ha1;  8'h7d: r = 8'hfa;  8'h7e: r = 8'h81;  8'h7f: r = 8'h82;
      8'h80: r = 8'h83;  8'h81: r = 8'h7e;  8'h82: r = 8'h7f;  8'h83: r = 8'h80;
      8'h84: r = 8'h96;  8'h85: r = 8'h73;  8'h86: r = 8'hbe;  8'h87: r = 8'h56;
      8'h88: r = 8'h9b;  8'h89: r = 8'h9e;  8'h8a: r = 8'h95;  8'h8b: r = 8'hd9;
      8'h8c: r = 8'hf7;  8'h8d: r = 8'h02;  8'h8e: r = 8'hb9;  8'h8f: r = 8'ha4;
      8'h90: r = 8'hde;  8'h91: r = 8'h6a;  8'h92: r = 8'h32;  8'h93: r = 8'h6d;
      8'h94: r = 8'hd8;  8'h95: r = 8'h8a;  8'h96: r = 8'h84;  8'h97: r = 8'h72;
      8'h98: r = 8'h2a;  8'h99: r = 8'h14;  8'h9a: r = 8'h9f;  8'h9b: r = 8'h88;
      8'h9c: r = 8'hf9;  8'h9d: r = 8'hdc;  8'h9e: r = 8'h89;  8'h9f: r = 8'h9a;
      8'ha0: r = 8'hfb;  8'ha1: r = 8'h7c;  8'ha2: r = 8'h2e;  8'ha3: r = 8'hc3;
      8'ha4: r = 8'h8f;  8'ha5: r = 8'hb8;  8'ha6: r = 8'h65;  8'ha7: r = 8'h48;
      8'ha8: r = 8'h26;  8'ha9: r = 8'hc8;  8'haa: r = 8'h12;  8'hab: r = 8'h4a;
      8'hac: r = 8'hce;  8'had: r = 8'he7;  8'hae: r = 8'hd2;  8'haf: r = 8'h62;
      8'hb0: r = 8'h0c;  8'hb1: r = 8'he0;  8'hb2: r = 8'h1f;  8'hb3: r = 8'hef;
      8'hb4: r = 8'h11;  8'hb5: r = 8'h75;  8'hb6: r = 8'h78;  8'hb7: r = 8'h71;
      8'hb8: r = 8'ha5;  8'hb9: r = 8'h8e;  8'hba: r = 8'h76;  8'hbb: r = 8'h3d;
      8'hbc: r = 8'hbd;  8'hbd: r = 8'hbc;  8'hbe: r = 8'h86;  8'hbf: r = 8'h57;
      8'hc0: r = 8'h0b;  8'hc1: r = 8'h28;  8'hc2: r = 8'h2f;  8'hc3: r = 8'ha3;
      8'hc4: r = 8'hda;  8'hc5: r = 8'hd4;  8'hc6: r = 8'he4;  8'hc7: r = 8'h0f;
      8'hc8: r = 8'ha9;  8'hc9: r = 8'h27;  8'hca: r = 8'h53;  8'hcb: r = 8'h04;
      8'hcc: r = 8'h1b;  8'hcd: r = 8'hfc;  8'hce: r = 8'hac;  8'hcf: r = 8'he6;
      8'hd0: r = 8'h7a;  8'hd1: r = 8'h07;  8'hd2: r = 8'hae;  8'hd3: r = 8'h63;
      8'hd4: r = 8'hc5;  8'hd5: r = 8'hdb;  8'hd6: r = 8'he2;  8'hd7: r = 8'hea;
      8'hd8: r = 8'h94;  8'hd9: r = 8'h8b;  8'hda: r = 8'hc4;  8'hdb: r = 8'hd5;
      8'hdc: r = 8'h9d;  8'hdd: r = 8'hf8;  8'hde: r = 8'h90;  8'hdf: r = 8'h6b;
      8'he0: r = 8'hb1;  8'he1: r = 8'h0d;  8'he2: r = 8'hd6;  8'he3: r = 8'heb;
      8'he4: r = 8'hc6;  8'he5: r = 8'h0e;  8'he6: r = 8'hcf;  8'he7: r = 8'had;
      8'he8: r = 8'h08;  8'he9: r = 8'h4e;  8'hea: r = 8'hd7;  8'heb: r = 8'he3;
      8'hec: r = 8'h5d;  8'hed: r = 8'h50;  8'hee: r = 8'h1e;  8'hef: r = 8'hb3;
      8'hf0: r = 8'h5b;  8'hf1: r = 8'h23;  8'hf2: r = 8'h38;  8'hf3: r = 8'h34;
      8'hf4: r = 8'h68;  8'hf5: r = 8'h46;  8'hf6: r = 8'h03;  8'hf7: r = 8'h8c;
      8'hf8: r = 8'hdd;  8'hf9: r = 8'h9c;  8'hfa: r = 8'h7d;  8'hfb: r = 8'ha0;
      8'hfc: r = 8'hcd;  8'hfd: r = 8'h1a;  8'hfe: r = 8'h41;  8'hff: r = 8'h1c;
      default: r = 8'h00;
    endcase
    return r;
  endfunction

  // A byte function as a table of its 256 values, the form in which couplet_aes_sbox reads
  // its functions.
  typedef logic [255:0][7:0] aes_byte_table_t;

  // SubBytes of every byte value: the table a forward-only S-box reads.
  function automatic aes_byte_table_t aes_sbox_table();
    aes_byte_table_t t;
    for (int unsigned i = 0; i < 256; i++) t[i] = aes_affine(aes_gf_inv(8'(i)));
    return t;
  endfunction

  // The inverse of every byte value: the table an S-box of both directions reads.
  function automatic aes_byte_table_t aes_gf_inv_table();
    aes_byte_table_t t;
    for (int unsigned i = 0; i < 256; i++) t[i] = aes_gf_inv(8'(i));
    return t;
  endfunction

endpackage
