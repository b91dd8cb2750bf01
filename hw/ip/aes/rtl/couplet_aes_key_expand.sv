// AES key expansion (FIPS-197 5.2), Nk words per cycle, storing the whole schedule.
//
// Each cycle derives the next Nk words from the previous Nk: from key_i in the cycle of
// key_valid_i, then from a window register holding the last Nk words. The schedule of
// 4*(Nr+1) words is thus complete after 10, 8 or 7 cycles for 128-, 192- and 256-bit keys:
// with key_valid_i in cycle 0, ready_o is high from cycle 10, 8 or 7 on and busy_o in between.
// Words past the end of the schedule (192 and 256 bits produce more than needed) are dropped.
// Round key r is words 4r..4r+3, i.e. round_keys_o[r], column c in bits [32*c +: 32].
//
// Only the key sizes of KeySizes are built: the schedule is stored up to the longest of them
// (round keys beyond it read as zero), and with one size the key length is a constant.
// key_len_i must be one of them (CTRL holds no other).
module couplet_aes_key_expand
  import aes_reg_pkg::*;
  import couplet_aes_pkg::*;
#(
  parameter aes_key_sizes_t KeySizes = AesKeySizesAll
) (
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

  localparam int unsigned Words = 4 * (int'(aes_num_rounds(aes_key_len_last(KeySizes))) + 1);

  // The schedule and its progress are one record: cleared, loaded and stepped together.
  typedef struct packed {
    logic [Words-1:0][31:0]          words;
    logic [7:0][31:0]                window;  // the last Nk words, the next step's input
    logic [3:0]                      iter;
    logic                            busy;
    logic                            ready;
    aes_key_len_e                    key_len;
  } sched_t;
  sched_t sched_q, sched_d;

  localparam sched_t SchedIdle = '{key_len: aes_key_len_first(KeySizes), default: '0};

  aes_key_len_e key_len_in;
  assign key_len_in = aes_key_len_fold(KeySizes, key_len_i);

  // The first Nk words of a schedule are the key; the rest start at zero so that no part of an
  // earlier, longer key survives a shorter one.
  logic [7:0][31:0] key_words;
  always_comb begin
    key_words = key_i;
    for (int unsigned j = 6; j < 8; j++) begin
      if (key_len_in != AesKeyLen256) key_words[j] = '0;
    end
    for (int unsigned j = 4; j < 6; j++) begin
      if (key_len_in == AesKeyLen128) key_words[j] = '0;
    end
  end

  // The first step works on key_i directly, in the cycle of key_valid_i, so that the
  // schedule is complete after as many cycles as there are steps.
  logic                            load;
  logic [7:0][31:0]                src_window;
  logic [Words-1:0][31:0]          src_words;
  logic [3:0]                      src_iter;
  aes_key_len_e                    src_len;

  assign load       = key_valid_i && !clear_i;
  assign src_window = load ? key_words : sched_q.window;
  assign src_words  = load ? {{(Words - 8){32'h0}}, key_words} : sched_q.words;
  assign src_iter   = load ? 4'd0 : sched_q.iter;
  assign src_len    = aes_key_len_fold(KeySizes, load ? key_len_i : sched_q.key_len);

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
    (* keep_hierarchy *)
    couplet_aes_sbox #(
      .Inverse (1'b0)
    ) u_sbox_rot (
      .inv_i  (1'b0),
      .data_i (rot_src[8*i +: 8]),
      .data_o (rot_sub[8*i +: 8])
    );
    (* keep_hierarchy *)
    couplet_aes_sbox #(
      .Inverse (1'b0)
    ) u_sbox_mid (
      .inv_i  (1'b0),
      .data_i (next_lo[3][8*i +: 8]),
      .data_o (mid_sub[8*i +: 8])
    );
  end

  assign next_lo = aes_key_chain(src_window[3:0], aes_rot_word(rot_sub) ^ {24'h0, aes_rcon(src_iter)});
  assign next_hi = aes_key_chain(src_window[7:4], src_len == AesKeyLen256 ? mid_sub : next_lo[3]);

  assign next_words = {next_hi, next_lo};

  // ---------------------------------------------------------------- schedule storage
  // Word p of a schedule with Nk key words is written by step (p - Nk) / Nk as its new word
  // (p - Nk) % Nk. Nk is a constant in each branch, so this is a fixed decode per word.
  // A key size the engine does not have writes no word (and stays within Words).
  logic [Words-1:0][31:0] step_words;
  always_comb begin
    step_words = src_words;
    for (int unsigned k = 0; k < 3; k++) begin
      if (KeySizes[k] && src_len == aes_key_len_e'(k)) begin
        for (int unsigned p = 4 + 2 * k; p < 4 * (11 + 2 * k) && p < Words; p++) begin
          if (src_iter == 4'((p - (4 + 2 * k)) / (4 + 2 * k))) begin
            step_words[p] = next_words[(p - (4 + 2 * k)) % (4 + 2 * k)];
          end
        end
      end
    end
  end

  logic last_step;
  assign last_step = src_iter == aes_key_iterations(src_len) - 4'd1;

  always_comb begin
    sched_d = sched_q;
    if (clear_i) begin
      // Nothing reads the key length between a clear and the next load (the core clears its
      // blocks too), so it is left as it was.
      sched_d = '{key_len: sched_q.key_len, default: '0};
    end else if (load || sched_q.busy) begin
      // After the last step the window would hold the last round key words: no longer needed.
      sched_d = '{
        words:   step_words,
        window:  last_step ? '0 : next_words,
        iter:    last_step ? 4'd0 : src_iter + 4'd1,
        busy:    !last_step,
        ready:   last_step,
        key_len: src_len
      };
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sched_q <= SchedIdle;
    end else begin
      sched_q <= sched_d;
    end
  end

  assign busy_o       = sched_q.busy;
  assign ready_o      = sched_q.ready;
  assign key_len_o    = sched_q.key_len;
  always_comb begin
    round_keys_o = '0;
    round_keys_o[Words/4-1:0] = sched_q.words;
  end

endmodule
