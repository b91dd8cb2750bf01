// AES key expansion (FIPS-197 5.2), Nk words per cycle, storing the whole schedule.
//
// Each cycle derives the next Nk words from the previous Nk: from key_i in the cycle of
// key_valid_i, then from a window register holding the last Nk words. The schedule of
// 4*(Nr+1) words is thus complete after 10, 8 or 7 cycles for 128-, 192- and 256-bit keys:
// with key_valid_i in cycle 0, ready_o is high from cycle 10, 8 or 7 on and busy_o in between.
// Round key r is words 4r..4r+3, column c in bits [32*c +: 32].
//
// Only the key sizes of KeySizes are built: the schedule is stored up to the longest of them,
// and with one size the key length is a constant. key_len_i must be one of them (CTRL holds no
// other).
//
// Two ways to store it, chosen by Banked:
//
// Flip-flops (UNROLLED, which needs every round key at once): round_keys_o, words past the end
// of the schedule zero (round keys beyond the longest size read as zero). clear_i zeroes them.
//
// Banked (ROLLED and PARTIAL, which need one or two round keys a cycle): distributed RAM in 8
// banks of 32-bit words, word p in bank p % 8 at address p / 8. A step's Nk = 4, 6 or 8 new
// words land in distinct banks, so each bank has one write port; round key r is banks 0-3
// (r even) or 4-7 (r odd) at address r / 2, so a read port is one address per half and a 2:1
// choice of half, not a 16:1 choice of round key. Two read ports (rd_round_i, rd_key_o) serve
// the two rounds of a PARTIAL cycle, whose round keys have different parities and so read
// different halves: each bank is read at one address a cycle. Round key 0 is not stored: it is
// key_i[127:0], which the user holds from key_valid_i until clear_i or the next key_valid_i
// (couplet_aes does). Round key Nr, the first one of a decryption, is a register written by the
// last step (last_key_o), so that the initial AddRoundKey needs no read port.
//
// What the banks hold, and when it goes: no part of an earlier key survives clear_i or a later,
// shorter key. RAM cannot be cleared in a cycle, so
//   - after reset and from clear_i on, a wipe writes zeros to all banks, one address a cycle:
//     the banks are zero after Depth (8) cycles, counting the cycle of clear_i. The wipe is
//     invisible outside: busy_o and ready_o are as without it, and key_valid_i may come during
//     it (below), so no command waits for it;
//   - every expansion writes every word of [4, Words) that a key can occupy: in a cycle where a
//     bank gets no new word, it gets a pending word instead, the key words past round key 0
//     (from key_i) or a zero for a word past this size's schedule (bank_write below). Words 0..3
//     and past Words are never written but by the wipe.
// So a key_valid_i during a wipe simply ends it: the expansion then overwrites every word the
// wipe had yet to zero (a bound of Depth cycles after clear_i, or the expansion's 7-10 cycles
// after a key_valid_i that cuts it short). Round key Nr and the window are flip-flops, zeroed by
// clear_i and replaced by every expansion.
module couplet_aes_key_expand
  import aes_reg_pkg::*;
  import couplet_aes_pkg::*;
#(
  parameter aes_key_sizes_t KeySizes = AesKeySizesAll,
  parameter bit             Banked   = 1'b0
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

  // Flip-flops: every round key (all zero when Banked).
  output logic [AesMaxRounds:0][127:0]        round_keys_o,
  // Banked: round key rd_round_i[i] (4-bit round number) on rd_key_o[i], combinationally; the
  // two rounds must have different parities when both are used. Round key Nr on last_key_o.
  // (Unused and zero without Banked.)
  input  logic [1:0][3:0]                     rd_round_i,
  output logic [1:0][127:0]                   rd_key_o,
  output logic [127:0]                        last_key_o
);

  localparam int unsigned Words = 4 * (int'(aes_num_rounds(aes_key_len_last(KeySizes))) + 1);

  // The progress of an expansion is one record: cleared, loaded and stepped together.
  typedef struct packed {
    logic [7:0][31:0]                window;  // the last Nk words, the next step's input
    logic [3:0]                      iter;
    logic                            busy;
    logic                            ready;
    aes_key_len_e                    key_len;
  } ctrl_t;
  ctrl_t ctrl_q, ctrl_d;

  localparam ctrl_t CtrlIdle = '{key_len: aes_key_len_first(KeySizes), default: '0};

  aes_key_len_e key_len_in;
  assign key_len_in = aes_key_len_fold(KeySizes, key_len_i);

  // The first Nk words of a schedule are the key; the words past it are zero, the previous
  // window of a shorter key (the steps of AES-128 and AES-192 read window words 4..7 as zero).
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
  // schedule is complete after as many cycles as there are steps. Its inputs are chosen by
  // busy, not by key_valid_i: a load comes only while not busy and only a step stores anything,
  // so the values stored are the same, but key_valid_i (a command's decode in couplet_aes) then
  // reaches the enables alone, not the S-boxes' inputs (the Fmax of the AES tight tile).
  logic                            step;
  logic [7:0][31:0]                src_window;
  logic [3:0]                      src_iter;
  aes_key_len_e                    src_len;

  assign step       = (key_valid_i || ctrl_q.busy) && !clear_i;
  assign src_window = ctrl_q.busy ? ctrl_q.window : key_words;
  assign src_iter   = ctrl_q.busy ? ctrl_q.iter : 4'd0;
  assign src_len    = aes_key_len_fold(KeySizes, ctrl_q.busy ? ctrl_q.key_len : key_len_i);

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

  logic last_step;
  assign last_step = src_iter == aes_key_iterations(src_len) - 4'd1;

  always_comb begin
    ctrl_d = ctrl_q;
    if (clear_i) begin
      // Nothing reads the key length between a clear and the next load (the core clears its
      // blocks too), so it is left as it was.
      ctrl_d = '{key_len: ctrl_q.key_len, default: '0};
    end else if (step) begin
      // After the last step the window would hold the last round key words: no longer needed.
      ctrl_d = '{
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
      ctrl_q <= CtrlIdle;
    end else begin
      ctrl_q <= ctrl_d;
    end
  end

  assign busy_o    = ctrl_q.busy;
  assign ready_o   = ctrl_q.ready;
  assign key_len_o = ctrl_q.key_len;

  // ---------------------------------------------------------------- schedule storage
  // Banked: what bank b writes in step i of a schedule of key length k (all constants, so that
  // each bank's write port is a fixed decode of key length and step): the step's new word that
  // lands in it, if any; else the next of the bank's pending words, in order: a key word past
  // round key 0 (key_i word p, p < Nk) or a zero for a word past this size's schedule
  // (4*(Nr+1) <= p < Words). New words past the schedule (the last step of AES-192 and
  // AES-256) are dropped, their bank free for a pending word.
  typedef enum logic [1:0] {WrNone, WrNew, WrKey, WrZero} wr_kind_e;
  typedef struct packed {
    wr_kind_e   kind;
    logic [2:0] addr;
    logic [2:0] word;  // the new word (WrNew) or key word (WrKey)
  } bank_wr_t;

  // Whether word q is one that an expansion of key length k writes in a free step: a key word
  // past round key 0, or a word past its schedule.
  function automatic bit pending(int unsigned k, int unsigned q);
    return (q >= 4 && q < 4 + 2 * k) || q >= 4 * (11 + 2 * k);
  endfunction

  function automatic bank_wr_t bank_write(int unsigned k, int unsigned b, int unsigned i);
    int unsigned nk    = 4 + 2 * k;
    int unsigned total = 4 * (11 + 2 * k);
    int unsigned free  = 0;  // steps before i in which bank b gets no new word
    int unsigned seen  = 0;
    bank_wr_t    wr    = '{kind: WrNone, default: '0};
    for (int unsigned s = 0; s <= i; s++) begin
      int unsigned j = (b + 8 * nk - (nk * (s + 1)) % 8) % 8;
      int unsigned p = nk * (s + 1) + j;
      if (j < nk && p < total) begin
        if (s == i) wr = '{kind: WrNew, addr: 3'(p / 8), word: 3'(j)};
      end else if (s < i) begin
        free++;
      end
    end
    if (wr.kind == WrNone) begin
      for (int unsigned q = b; q < Words; q += 8) begin
        if (pending(k, q)) begin
          if (seen == free) wr = '{kind: q < nk ? WrKey : WrZero, addr: 3'(q / 8), word: 3'(q % 8)};
          seen++;
        end
      end
    end
    return wr;
  endfunction

  // The whole plan, evaluated once at elaboration (unrolling bank_write in the write ports
  // would exceed synthesis' loop limits).
  localparam int unsigned MaxSteps = int'(aes_key_iterations(AesKeyLen128));
  typedef bank_wr_t [MaxSteps-1:0] bank_steps_t;
  typedef bank_steps_t [7:0]       bank_plan_t;
  typedef bank_plan_t [2:0]        plan_t;

  function automatic plan_t bank_plans();
    plan_t plan = '0;
    for (int unsigned k = 0; k < 3; k++) begin
      for (int unsigned b = 0; b < 8; b++) begin
        for (int unsigned i = 0; i < int'(aes_key_iterations(aes_key_len_e'(k))); i++) begin
          plan[k][b][i] = bank_write(k, b, i);
        end
      end
    end
    return plan;
  endfunction

  // Pending words that find no free step would survive: none do (checked at elaboration).
  function automatic int unsigned pending_left(int unsigned k, int unsigned b);
    int unsigned count = 0;
    for (int unsigned q = b; q < Words; q += 8) begin
      if (pending(k, q)) count++;
    end
    for (int unsigned s = 0; s < int'(aes_key_iterations(aes_key_len_e'(k))); s++) begin
      if (bank_write(k, b, s).kind inside {WrKey, WrZero}) count--;
    end
    return count;
  endfunction

  if (!Banked) begin : gen_flops
    // Word p of a schedule with Nk key words is written by step (p - Nk) / Nk as its new word
    // (p - Nk) % Nk. Nk is a constant in each branch, so this is a fixed decode per word.
    // A key size the engine does not have writes no word (and stays within Words). The load
    // zeroes the words past the key, so that no part of an earlier, longer key survives.
    logic [Words-1:0][31:0] words_q, src_words, step_words;
    assign src_words = ctrl_q.busy ? words_q : {{(Words - 8){32'h0}}, key_words};

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

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)              words_q <= '0;
      else if (clear_i || step) words_q <= clear_i ? '0 : step_words;
    end

    always_comb begin
      round_keys_o = '0;
      round_keys_o[Words/4-1:0] = words_q;
    end
    assign rd_key_o   = '0;
    assign last_key_o = '0;

    logic unused_rd;
    assign unused_rd = ^rd_round_i;
  end else begin : gen_banked
    localparam int unsigned Depth = (AesMaxKeyWords + 7) / 8;  // 8: 3-bit addresses

    for (genvar k = 0; k < 3; k++) begin : gen_check
      for (genvar b = 0; b < 8; b++) begin : gen_bank
        if (KeySizes[k] && pending_left(k, b) != 0) begin : gen_error
          $error("couplet_aes_key_expand: a word of bank %0d is never rewritten for key length %0d",
                 b, k);
        end
      end
    end

    localparam plan_t Plan = bank_plans();

    // The wipe: the number of addresses left to zero, counting down. clear_i zeroes the top
    // address itself, so that the banks are zero after Depth cycles counting the clear's.
    logic [3:0] wipe_q, wipe_d;
    logic       wipe;
    logic [2:0] wipe_addr;
    assign wipe      = clear_i || (!step && wipe_q != '0);
    assign wipe_addr = clear_i ? 3'(Depth - 1) : 3'(wipe_q - 4'd1);
    always_comb begin
      wipe_d = wipe_q;
      if (clear_i)           wipe_d = 4'(Depth - 1);
      else if (step)         wipe_d = '0;
      else if (wipe_q != '0) wipe_d = wipe_q - 4'd1;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wipe_q <= 4'(Depth);
      end else begin
        wipe_q <= wipe_d;
      end
    end

    // Write ports: conditions are exclusive (one key length, one step), so addresses and data
    // are ORed, one AND-OR per source a bank can take rather than a multiplexer of all words.
    logic [7:0]       bank_we;
    logic [7:0][2:0]  bank_waddr;
    logic [7:0][31:0] bank_wdata;
    always_comb begin
      for (int unsigned b = 0; b < 8; b++) begin
        bank_we[b]    = wipe;
        bank_waddr[b] = wipe ? wipe_addr : 3'd0;
        bank_wdata[b] = '0;
        for (int unsigned k = 0; k < 3; k++) begin
          if (KeySizes[k]) begin
            for (int unsigned i = 0; i < int'(aes_key_iterations(aes_key_len_e'(k))); i++) begin
              bank_wr_t wr;
              logic     hit;
              wr  = Plan[k][b][i];
              hit = step && src_len == aes_key_len_e'(k) && src_iter == 4'(i) && wr.kind != WrNone;
              bank_we[b]    |= hit;
              bank_waddr[b] |= hit ? wr.addr : 3'd0;
              if (wr.kind == WrNew) bank_wdata[b] |= {32{hit}} & next_words[wr.word];
              if (wr.kind == WrKey) bank_wdata[b] |= {32{hit}} & key_i[32*wr.word +: 32];
            end
          end
        end
      end
    end

    // Read addresses: each half of the banks at the round of the port whose parity it holds.
    logic [1:0][2:0]   rd_addr;
    logic [7:0][31:0]  bank_rdata;
    logic [1:0][127:0] half;
    for (genvar h = 0; h < 2; h++) begin : gen_half
      assign rd_addr[h] = (rd_round_i[0][0] == 1'(h)) ? rd_round_i[0][3:1] : rd_round_i[1][3:1];
      assign half[h]    = bank_rdata[4*h +: 4];
    end

    // Plain memories without reset, so that synthesis infers LUT RAM.
    for (genvar b = 0; b < 8; b++) begin : gen_bank
      logic [31:0] mem [Depth];
      always_ff @(posedge clk_i) begin
        if (bank_we[b]) mem[bank_waddr[b]] <= bank_wdata[b];
      end
      assign bank_rdata[b] = mem[rd_addr[b / 4]];
    end

    for (genvar i = 0; i < 2; i++) begin : gen_rd
      assign rd_key_o[i] = (rd_round_i[i] == 4'd0) ? key_i[127:0] : half[rd_round_i[i][0]];
    end

    // Round key Nr: the last step's first four new words.
    logic [127:0] last_key_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)                             last_key_q <= '0;
      else if (clear_i || (step && last_step)) last_key_q <= clear_i ? '0 : next_lo;
    end
    assign last_key_o   = last_key_q;
    assign round_keys_o = '0;
  end

endmodule
