// AES block cipher: key expansion in hardware and encryption or decryption of one 128-bit
// block at a time (FIPS-197), in one of three datapaths chosen by Arch:
//
//   AesArchRolled    one round per cycle, one block in flight; a result after Nr cycles.
//   AesArchPartial   two rounds per cycle (Nr is even), one block in flight; Nr/2 cycles.
//   AesArchUnrolled  a pipeline of 14 round stages; one block per cycle, latency Nr cycles.
//
// Cycle 0 is the cycle in which in_valid_i && in_ready_o; it runs the initial AddRoundKey and
// the first round (two with PARTIAL) on in_data_i, so out_valid_o rises in cycle Nr (Nr/2 for
// PARTIAL) unless the pipeline was stalled. Decryption is the straightforward inverse cipher
// with the stored round keys used in reverse order; decrypt_i travels with its block.
//
// ROLLED and PARTIAL take a new block when idle, and with Handover also in the cycle their
// result leaves (out_valid_o && out_ready_i), so that a stream of blocks takes Nr (Nr/2) cycles
// a block instead of one more; in_ready_o then depends combinationally on out_ready_i. UNROLLED
// stalls all of its stages while a result waits (out_valid_o && !out_ready_i), so in_ready_o
// depends on out_ready_i there too (Handover does not apply).
//
// key_valid_i and clear_i are accepted only while busy_o is low (the user guarantees it).
// clear_i zeroes the key schedule and every data register; ROLLED and PARTIAL keep the schedule
// in RAM, which a wipe zeroes within 8 cycles of clear_i (and of reset) without busy_o: a key may
// be loaded during it (couplet_aes_key_expand says why that is safe).
//
// Without Decrypt there is no inverse cipher (decrypt_i is ignored: the forward cipher), and only
// the key lengths of KeySizes are built; key_len_i must be one of them.
//
// ROLLED and PARTIAL read key_i after key_valid_i: it is their round key 0, which they do not
// store, and the expansion stores the key words past round key 0 from it in whichever step has
// a free bank. So the user holds key_i's key bytes from key_valid_i until clear_i or the next
// key_valid_i (couplet_aes does, refusing KEY writes while busy and starting no block after one
// until the next expansion). UNROLLED samples key_i only with key_valid_i.
//
// Round keys, by Arch:
//   UNROLLED: all of them at once from the schedule in flip-flops (couplet_aes_key_expand,
//     Banked = 0), 1,920 of them with every key size.
//   ROLLED, PARTIAL: one or two a cycle from the schedule in eight LUT-RAM banks (Banked = 1),
//     read by round number: round key r is one half of the banks at address r / 2, round key 0
//     is key_i and round key Nr, the initial AddRoundKey of a decryption, a register.
//   On the fly: ROLLED and PARTIAL without Decrypt and with AES-128 alone store no schedule.
//     A block derives each round key from the previous one as it goes (couplet_aes_key_step),
//     from key_i as round key 0 when it enters. key_valid_i then takes one cycle: key_ready_o
//     is high from the next cycle on.
module couplet_aes_core
  import aes_reg_pkg::*;
  import couplet_aes_pkg::*;
#(
  parameter aes_arch_e      Arch     = AesArchRolled,
  parameter bit             Decrypt  = 1'b1,
  parameter aes_key_sizes_t KeySizes = AesKeySizesAll,
  parameter bit             Handover = 1'b1
) (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic         key_valid_i,
  input  logic [255:0] key_i,
  input  aes_key_len_e key_len_i,
  output logic         key_ready_o,

  input  logic         clear_i,

  input  logic         in_valid_i,
  output logic         in_ready_o,
  input  logic         decrypt_i,
  input  logic [127:0] in_data_i,

  output logic         out_valid_o,
  input  logic         out_ready_i,
  output logic [127:0] out_data_o,

  output logic         busy_o
);

  localparam bit OnTheFly = !Decrypt && KeySizes == aes_key_sizes_t'(1 << AesKeyLen128) &&
                            Arch != AesArchUnrolled;

  // ---------------------------------------------------------------- key schedule
  // UNROLLED reads every round key at once from the schedule in flip-flops (rk); ROLLED and
  // PARTIAL read one or two a cycle (rd_round, rd_key) from the schedule in RAM banks or derive
  // them on the fly. The initial AddRoundKey takes round key 0 or Nr (key_first, key_last)
  // without a read port.
  aes_key_len_e           key_len;
  logic [3:0]             num_rounds;
  logic                   key_busy, key_ready;
  logic [127:0]           key_first, key_last;
  logic [1:0][3:0]        rd_round;
  logic [1:0][127:0]      rd_key;
  // Indexed by a 4-bit round number; entry 15 only pads the table to a power of two.
  logic [15:0][127:0]     rk;

  if (OnTheFly) begin : gen_key_on_the_fly
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        key_ready <= 1'b0;
      end else if (clear_i) begin
        key_ready <= 1'b0;
      end else if (key_valid_i) begin
        key_ready <= 1'b1;
      end
    end
    assign key_busy  = 1'b0;
    assign key_len   = AesKeyLen128;
    assign key_first = key_i[127:0];  // the others come with the block
    assign key_last  = '0;            // no decryption
    assign rd_key    = '0;
    assign rk        = '0;

    // Only the first four key words and AES-128 exist here, and no stored round key.
    logic unused_key;
    assign unused_key = ^{key_i[255:128], key_len_i, rd_round, rd_key, rk};
  end else begin : gen_key_stored
    logic [127:0] last_key;

    couplet_aes_key_expand #(
      .KeySizes (KeySizes),
      .Banked   (Arch != AesArchUnrolled)
    ) u_key_expand (
      .clk_i,
      .rst_ni,
      .key_valid_i,
      .key_i,
      .key_len_i,
      .clear_i,
      .busy_o       (key_busy),
      .ready_o      (key_ready),
      .key_len_o    (key_len),
      .round_keys_o (rk[AesMaxRounds:0]),
      .rd_round_i   (rd_round),
      .rd_key_o     (rd_key),
      .last_key_o   (last_key)
    );
    assign rk[15] = '0;

    if (Arch == AesArchUnrolled) begin : gen_flops
      assign key_first = rk[0];
      assign key_last  = rk[num_rounds];

      logic unused_banked;
      assign unused_banked = ^{rd_key, last_key};
    end else begin : gen_banked
      assign key_first = key_i[127:0];
      assign key_last  = last_key;

      logic unused_flops;
      assign unused_flops = ^rk;
    end
  end

  assign num_rounds = aes_num_rounds(aes_key_len_fold(KeySizes, key_len));

  // A constant 0 without Decrypt, so that the inverse S-boxes, InvShiftRows, InvMixColumns and
  // the reverse key order are not built.
  logic in_dec;
  assign in_dec = Decrypt && decrypt_i;

  // The key added before the first round: round key 0, or round key Nr when decrypting.
  logic [127:0] in_keyed;
  assign in_keyed = in_data_i ^ (in_dec ? key_last : key_first);

  logic blocks_busy;
  assign busy_o      = key_busy || blocks_busy;
  assign key_ready_o = key_ready;

  if (Arch == AesArchUnrolled) begin : gen_unrolled
    // Stage s holds a block after round s; stage 1 takes the block straight from the input.
    // Only stages up to Nr carry blocks: the valid bit is not passed beyond stage Nr.
    logic [AesMaxRounds:1][127:0] state_q;
    assign rd_round = '0;
    logic [AesMaxRounds:1]        valid_q, valid_d;
    logic [AesMaxRounds-1:1]      dec_q;
    logic                         advance, accept;

    assign out_valid_o = valid_q[num_rounds];
    assign out_data_o  = state_q[num_rounds];
    assign advance     = !out_valid_o || out_ready_i;
    assign in_ready_o  = key_ready && advance;
    assign accept      = in_valid_i && in_ready_o;
    assign blocks_busy = |valid_q;

    for (genvar s = 1; s <= AesMaxRounds; s++) begin : gen_stage
      logic [127:0] stage_in, stage_key, stage_out;
      logic         stage_dec;
      if (s == 1) begin : gen_first
        assign stage_in  = in_keyed;
        assign stage_dec = in_dec;
      end else begin : gen_next
        assign stage_in  = state_q[s-1];
        assign stage_dec = dec_q[s-1];
      end
      // For stages beyond Nr, which carry no block, num_rounds - s wraps around: a don't care.
      assign stage_key = stage_dec ? rk[num_rounds - 4'(s)] : rk[s];

      couplet_aes_round #(
        .Decrypt (Decrypt)
      ) u_round (
        .state_i     (stage_in),
        .round_key_i (stage_key),
        .decrypt_i   (stage_dec),
        .last_i      (num_rounds == 4'(s)),
        .state_o     (stage_out)
      );

      // Data registers load only with a block, so bubbles do not toggle them.
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          state_q[s] <= '0;
        end else if (clear_i) begin
          state_q[s] <= '0;
        end else if (advance && valid_d[s]) begin
          state_q[s] <= stage_out;
        end
      end

      // The direction travels with the block to the next stage.
      if (s < AesMaxRounds) begin : gen_dec
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) begin
            dec_q[s] <= 1'b0;
          end else if (clear_i) begin
            dec_q[s] <= 1'b0;
          end else if (advance && valid_d[s]) begin
            dec_q[s] <= stage_dec;
          end
        end
      end
    end

    always_comb begin
      valid_d[1] = accept;
      for (int unsigned s = 2; s <= AesMaxRounds; s++) begin
        valid_d[s] = valid_q[s-1] && (4'(s) <= num_rounds);
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= '0;
      end else if (clear_i) begin
        valid_q <= '0;
      end else if (advance) begin
        valid_q <= valid_d;
      end
    end

  end else begin : gen_iterative
    localparam int unsigned Step = (Arch == AesArchPartial) ? 2 : 1;

    // A block in flight is one record, stepped together; all zero is idle with no block. Its
    // round is the round key index of the next round: counting up from 1 when encrypting,
    // down from Nr-1 when decrypting. The last round of a block uses round key Nr or 0.
    // The cycle that accepts a block already runs its first round(s) on the input.
    typedef struct packed {
      logic [127:0] state;
      logic [3:0]   round;
      logic         dec;
      logic         run;
      logic         done;
    } block_t;
    block_t blk_q, blk_d;
    logic   accept;

    assign in_ready_o  = key_ready && !blk_q.run && (!blk_q.done || (Handover && out_ready_i));
    assign accept      = in_valid_i && in_ready_o;
    assign out_valid_o = blk_q.done;
    assign out_data_o  = blk_q.state;
    assign blocks_busy = blk_q.run || blk_q.done;

    logic [127:0] first_in;
    logic [3:0]   first_idx;
    logic         first_dec;
    // The round works on the input whenever no block runs (a block enters only then), and only
    // accept || run stores its output: the input's handshake reaches the register's enable but
    // not the round's data path (Fmax, issue 19).
    assign first_in  = blk_q.run ? blk_q.state : in_keyed;
    assign first_dec = blk_q.run ? blk_q.dec : in_dec;
    assign first_idx = blk_q.run ? blk_q.round : in_dec ? num_rounds - 4'd1 : 4'd1;

    // The round keys of the cycle's rounds, in order: from the stored schedule, or on the fly
    // from the last one the block used (round key 0 when it enters), kept with the block.
    logic [Step-1:0][127:0] round_key;
    if (OnTheFly) begin : gen_keys_on_the_fly
      logic [Step:0][127:0] chain;
      logic [127:0]         last_key_q;
      assign chain[0] = blk_q.run ? last_key_q : key_first;

      for (genvar i = 0; i < Step; i++) begin : gen_step
        couplet_aes_key_step u_key_step (
          .key_i  (chain[i]),
          .rcon_i (aes_rcon(first_idx - 4'd1 + 4'(i))),
          .key_o  (chain[i+1])
        );
        assign round_key[i] = chain[i+1];
      end

      // A round key is key material: clear_i wipes it with the block.
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          last_key_q <= '0;
        end else if (clear_i || accept || blk_q.run) begin
          last_key_q <= clear_i ? '0 : chain[Step];
        end
      end
      assign rd_round = '0;
    end else begin : gen_keys_stored
      // With one round a cycle both ports read the same round key; with two their rounds are
      // neighbours, of different parities, as the banks need.
      for (genvar i = 0; i < 2; i++) begin : gen_port
        assign rd_round[i] = first_dec ? first_idx - 4'(i % Step) : first_idx + 4'(i % Step);
      end
      for (genvar i = 0; i < Step; i++) begin : gen_step
        assign round_key[i] = rd_key[i];
      end
      if (Step == 1) begin : gen_one_port
        logic unused_port;
        assign unused_port = ^rd_key[1];  // the same round key as port 0
      end
    end

    // The rounds of one cycle: the first, and with PARTIAL the second, whose output is the
    // step's. Nr is even, so with two rounds per cycle the last round is always the second.
    logic [127:0] first_out, step_out;
    logic         first_last, step_last;
    assign first_last = first_dec ? (first_idx == 4'd0) : (first_idx == num_rounds);

    couplet_aes_round #(
      .Decrypt (Decrypt)
    ) u_round_first (
      .state_i     (first_in),
      .round_key_i (round_key[0]),
      .decrypt_i   (first_dec),
      .last_i      (first_last),
      .state_o     (first_out)
    );

    if (Step == 2) begin : gen_second
      logic [3:0]   idx;
      logic [127:0] second_out;
      assign idx       = first_dec ? first_idx - 4'd1 : first_idx + 4'd1;
      assign step_last = first_dec ? (idx == 4'd0) : (idx == num_rounds);

      couplet_aes_round #(
        .Decrypt (Decrypt)
      ) u_round_second (
        .state_i     (first_out),
        .round_key_i (round_key[1]),
        .decrypt_i   (first_dec),
        .last_i      (step_last),
        .state_o     (second_out)
      );
      assign step_out = second_out;
    end else begin : gen_single
      assign step_out  = first_out;
      assign step_last = first_last;
    end

    always_comb begin
      blk_d = blk_q;
      if (clear_i) begin
        blk_d = '0;
      end else if (accept || blk_q.run) begin
        blk_d = '{
          state: step_out,
          round: first_dec ? first_idx - 4'(Step) : first_idx + 4'(Step),
          dec:   first_dec,
          run:   !step_last,
          done:  step_last
        };
      end else if (blk_q.done && out_ready_i) begin
        blk_d.done = 1'b0;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        blk_q <= '0;
      end else begin
        blk_q <= blk_d;
      end
    end
  end

endmodule
