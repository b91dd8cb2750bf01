// AES key expansion (FIPS-197 5.2), Nk words per cycle, storing the whole schedule.
//
// Each cycle derives the next Nk words from the previous Nk: from key_i in the cycle of
// key_valid_i, then from a window register holding the last Nk words. The schedule of
// 4*(Nr+1) words is thus complete after 10, 8 or 7 cycles for 128-, 192- and 256-bit keys:
// with key_valid_i in cycle 0, ready_o is high from cycle 10, 8 or 7 on and busy_o in between.
// Words past the end of the schedule (192 and 256 bits produce more than needed) are dropped.
// Round key r is words 4r..4r+3, i.e. round_keys_o[r], column c in bits [32*c +: 32].
module couplet_aes_key_expand
  import aes_reg_pkg::*;
  import couplet_aes_pkg::*;
(
  input  logic                                clk_i,
  input  logic                                rst_ni,

  input  logic                                key_valid_i,
  input  logic [255:0]                        key_i,
  input  aes_key_len_e                        key_len_i,
  input  logic                                clear_i,

  output logic                                busy_o,
  output logic                                ready_o,
  output aes_key_len_e                        key_len_o,
  output logic [AesMaxRounds:0][127:0]        round_keys_o
);

  logic [AesMaxKeyWords-1:0][31:0] words_q, words_d;
  logic [7:0][31:0]                window_q, window_d;
  logic [3:0]                      iter_q, iter_d;
  logic                            busy_q, busy_d;
  logic                            ready_q, ready_d;
  aes_key_len_e                    key_len_q, key_len_d;

  // The first Nk words of a schedule are the key; the rest start at zero so that no part of an
  // earlier, longer key survives a shorter one.
  logic [7:0][31:0] key_words;
  always_comb begin
    key_words = key_i;
    for (int unsigned j = 6; j < 8; j++) begin
      if (key_len_i != AesKeyLen256) key_words[j] = '0;
    end
    for (int unsigned j = 4; j < 6; j++) begin
      if (key_len_i == AesKeyLen128) key_words[j] = '0;
    end
  end

  // The first step works on key_i directly, in the cycle of key_valid_i, so that the
  // schedule is complete after as many cycles as there are steps.
  logic                            load;
  logic [7:0][31:0]                src_window;
  logic [AesMaxKeyWords-1:0][31:0] src_words;
  logic [3:0]                      src_iter;
  aes_key_len_e                    src_len;

  assign load       = key_valid_i && !clear_i;
  assign src_window = load ? key_words : window_q;
  assign src_words  = load ? {{(AesMaxKeyWords - 8){32'h0}}, key_words} : words_q;
  assign src_iter   = load ? 4'd0 : iter_q;
  assign src_len    = load ? key_len_i : key_len_q;

  // ---------------------------------------------------------------- one expansion step
  // The new words, split in halves because the upper half of AES-256 depends on the lower.
  logic [3:0][31:0] next_lo, next_hi;
  logic [7:0][31:0] next_words;
  logic [31:0]      rot_src, rot_sub, mid_sub;

  always_comb begin
    unique case (src_len)
      AesKeyLen128: rot_src = src_window[3];
      AesKeyLen192: rot_src = src_window[5];
      default:   rot_src = src_window[7];
    endcase
  end

  // SubWord(RotWord(w)) = RotWord(SubWord(w)); the second SubWord serves only AES-256.
  for (genvar i = 0; i < 4; i++) begin : gen_sbox
    couplet_aes_sbox u_sbox_rot (
      .inv_i  (1'b0),
      .data_i (rot_src[8*i +: 8]),
      .data_o (rot_sub[8*i +: 8])
    );
    couplet_aes_sbox u_sbox_mid (
      .inv_i  (1'b0),
      .data_i (next_lo[3][8*i +: 8]),
      .data_o (mid_sub[8*i +: 8])
    );
  end

  // w[i] = w[i-Nk] ^ w[i-1], except where the SubWord terms enter.
  always_comb begin
    logic [31:0] acc;
    acc = src_window[0] ^ aes_rot_word(rot_sub) ^ {24'h0, aes_rcon(src_iter)};
    for (int unsigned j = 0; j < 4; j++) begin
      if (j > 0) acc = src_window[j] ^ acc;
      next_lo[j] = acc;
    end
  end

  always_comb begin
    logic [31:0] acc;
    acc = src_window[4] ^ (src_len == AesKeyLen256 ? mid_sub : next_lo[3]);
    for (int unsigned j = 0; j < 4; j++) begin
      if (j > 0) acc = src_window[4+j] ^ acc;
      next_hi[j] = acc;
    end
  end

  assign next_words = {next_hi, next_lo};

  // ---------------------------------------------------------------- schedule storage
  // Word p of a schedule with Nk key words is written by step (p - Nk) / Nk as its new word
  // (p - Nk) % Nk. Nk is a constant in each branch, so this is a fixed decode per word.
  logic [AesMaxKeyWords-1:0][31:0] step_words;
  always_comb begin
    step_words = src_words;
    for (int unsigned k = 0; k < 3; k++) begin
      if (src_len == aes_key_len_e'(k)) begin
        for (int unsigned p = 4 + 2 * k; p < 4 * (11 + 2 * k); p++) begin
          if (src_iter == 4'((p - (4 + 2 * k)) / (4 + 2 * k))) begin
            step_words[p] = next_words[(p - (4 + 2 * k)) % (4 + 2 * k)];
          end
        end
      end
    end
  end

  always_comb begin
    words_d   = words_q;
    window_d  = window_q;
    iter_d    = iter_q;
    busy_d    = busy_q;
    ready_d   = ready_q;
    key_len_d = key_len_q;
    if (clear_i) begin
      words_d   = '0;
      window_d  = '0;
      iter_d    = '0;
      busy_d    = 1'b0;
      ready_d   = 1'b0;
    end else if (load || busy_q) begin
      words_d   = step_words;
      window_d  = next_words;
      iter_d    = src_iter + 4'd1;
      key_len_d = src_len;
      busy_d    = 1'b1;
      ready_d   = 1'b0;
      if (src_iter == aes_key_iterations(src_len) - 4'd1) begin
        // The window would hold the last round key words; it is no longer needed.
        window_d = '0;
        iter_d   = '0;
        busy_d   = 1'b0;
        ready_d  = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      words_q   <= '0;
      window_q  <= '0;
      iter_q    <= '0;
      busy_q    <= 1'b0;
      ready_q   <= 1'b0;
      key_len_q <= AesKeyLen128;
    end else begin
      words_q   <= words_d;
      window_q  <= window_d;
      iter_q    <= iter_d;
      busy_q    <= busy_d;
      ready_q   <= ready_d;
      key_len_q <= key_len_d;
    end
  end

  assign busy_o       = busy_q;
  assign ready_o      = ready_q;
  assign key_len_o    = key_len_q;
  assign round_keys_o = words_q;

endmodule
