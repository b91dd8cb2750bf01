// AES accelerator: registers, commands, block cipher modes, word streams and interrupt around
// couplet_aes_core (hw/ip/aes/README.md). One RTL serves every coupling: the command port
// (custom instructions or memory-mapped registers through an adapter), the DMA's job port
// (MEM action) and the word streams (MEM jobs and DMA descriptor jobs alike).
//
// Blocks come from two sources, never mixed in flight: a DIN block (started by a command, its
// result goes to DOUT) and stream blocks (four input words, result to the output stream). Every
// block that enters the core gets an entry in a small in-order queue holding where its result
// goes and what it is XORed with (the IV for CBC decryption, the input for CTR/CFB/OFB), except
// with ROLLED or PARTIAL without StreamHandover, which read that as the block leaves (see
// PostAtExit). Blocks of ECB, CTR, GCM, CBC-decrypt and CFB-decrypt are independent (the next
// IV is known when a block enters): with the UNROLLED core several are in flight, and ROLLED
// and PARTIAL with StreamHandover take the next one in the cycle the previous one leaves.
// CBC-encrypt, CFB-encrypt, OFB and CBC_MAC need the previous result first and run one block
// at a time.
//
// Command timing: a command is taken when the response register is free (or drained in the same
// cycle) and answered in the next cycle, except a DOUT read while a DIN block is in flight
// (answered the cycle after the block leaves the core) and MEM (answered the cycle after
// job_done_i). While such an answer is pending, and while the key is being expanded, no command
// is taken (bounded: core latency, key expansion 7-10 cycles, or the job).
module couplet_aes
  import couplet_accel_pkg::*;
  import couplet_aes_pkg::*;
  import aes_reg_pkg::*;
#(
  parameter aes_arch_e      Arch     = AesArchRolled,
  // Without the inverse cipher, and with fewer key sizes: options for small FPGAs, which CTRL
  // refuses as ctrl_legalize says (hw/ip/aes/README.md, "Build options").
  parameter bit             Decrypt  = 1'b1,
  parameter aes_key_sizes_t KeySizes = AesKeySizesAll,
  // GHASH multiplier for the modes GCM and GHASH: bits per cycle (couplet_aes_ghash), 0 for none.
  parameter int unsigned    GhashBits = 0,
  // ROLLED and PARTIAL: a stream's next block enters in the cycle the previous one leaves, so a
  // stream of independent blocks takes Nr (Nr/2) cycles a block instead of one more, for a
  // stored XOR value per block (hw/ip/aes/README.md, "Cost"). UNROLLED always has it.
  parameter bit             StreamHandover = 1'b1
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  accel_cmd_req_t cmd_req_i,
  output logic           cmd_ready_o,
  output accel_cmd_rsp_t cmd_rsp_o,
  output accel_mem_req_t mem_req_o,
  input  accel_mem_rsp_t mem_rsp_i,
  output logic           irq_o
);

  // ---------------------------------------------------------------- register map
  // Command index = byte offset / 4.
  function automatic logic [7:0] reg_index(logic [6:0] offset);
    return 8'(offset >> 2);
  endfunction


  typedef enum logic [3:0] {
    RegNone, RegKey, RegIv, RegDin, RegDout, RegCtrl, RegStatus, RegLen, RegCmd, RegGhashH,
    RegGhashS
  } reg_e;

  localparam bit Ghash = GhashBits != 0;

  typedef struct packed {
    reg_e       kind;
    logic [2:0] sub;  // word within KEY, IV, DIN, DOUT
  } reg_sel_t;

  // 8-bit index: the second register of a WRITE2 at index 127 is 128, which does not exist.
  function automatic reg_sel_t decode_index(logic [7:0] idx);
    reg_sel_t sel;
    unique case (idx)
      reg_index(AES_KEY0_OFFSET):  sel = '{RegKey, 3'd0};
      reg_index(AES_KEY1_OFFSET):  sel = '{RegKey, 3'd1};
      reg_index(AES_KEY2_OFFSET):  sel = '{RegKey, 3'd2};
      reg_index(AES_KEY3_OFFSET):  sel = '{RegKey, 3'd3};
      reg_index(AES_KEY4_OFFSET):  sel = '{RegKey, 3'd4};
      reg_index(AES_KEY5_OFFSET):  sel = '{RegKey, 3'd5};
      reg_index(AES_KEY6_OFFSET):  sel = '{RegKey, 3'd6};
      reg_index(AES_KEY7_OFFSET):  sel = '{RegKey, 3'd7};
      reg_index(AES_IV0_OFFSET):   sel = '{RegIv, 3'd0};
      reg_index(AES_IV1_OFFSET):   sel = '{RegIv, 3'd1};
      reg_index(AES_IV2_OFFSET):   sel = '{RegIv, 3'd2};
      reg_index(AES_IV3_OFFSET):   sel = '{RegIv, 3'd3};
      reg_index(AES_DIN0_OFFSET):  sel = '{RegDin, 3'd0};
      reg_index(AES_DIN1_OFFSET):  sel = '{RegDin, 3'd1};
      reg_index(AES_DIN2_OFFSET):  sel = '{RegDin, 3'd2};
      reg_index(AES_DIN3_OFFSET):  sel = '{RegDin, 3'd3};
      reg_index(AES_DOUT0_OFFSET): sel = '{RegDout, 3'd0};
      reg_index(AES_DOUT1_OFFSET): sel = '{RegDout, 3'd1};
      reg_index(AES_DOUT2_OFFSET): sel = '{RegDout, 3'd2};
      reg_index(AES_DOUT3_OFFSET): sel = '{RegDout, 3'd3};
      reg_index(AES_CTRL_OFFSET):   sel = '{RegCtrl, 3'd0};
      reg_index(AES_STATUS_OFFSET): sel = '{RegStatus, 3'd0};
      reg_index(AES_LEN_OFFSET):    sel = '{RegLen, 3'd0};
      reg_index(AES_CMD_OFFSET):    sel = '{RegCmd, 3'd0};
      // Without the multiplier the GHASH registers are not built: unknown indexes.
      reg_index(AES_GHASH_H0_OFFSET): sel = Ghash ? '{RegGhashH, 3'd0} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_H1_OFFSET): sel = Ghash ? '{RegGhashH, 3'd1} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_H2_OFFSET): sel = Ghash ? '{RegGhashH, 3'd2} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_H3_OFFSET): sel = Ghash ? '{RegGhashH, 3'd3} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_S0_OFFSET): sel = Ghash ? '{RegGhashS, 3'd0} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_S1_OFFSET): sel = Ghash ? '{RegGhashS, 3'd1} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_S2_OFFSET): sel = Ghash ? '{RegGhashS, 3'd2} : '{RegNone, 3'd0};
      reg_index(AES_GHASH_S3_OFFSET): sel = Ghash ? '{RegGhashS, 3'd3} : '{RegNone, 3'd0};
      default:                      sel = '{RegNone, 3'd0};
    endcase
    return sel;
  endfunction

  // An unsupported mode or key length (above the highest of its value set, or one the engine is
  // built without) leaves that field as it was, and without Decrypt a write asking for ECB or
  // CBC decryption leaves mode and decrypt as they were: the register always holds a setting
  // the datapath implements and software can read back what it got.
  function automatic aes_ctrl_reg_t ctrl_legalize(aes_ctrl_reg_t value, aes_ctrl_reg_t old);
    aes_ctrl_reg_t c;
    c            = old;
    c.decrypt    = value.decrypt;
    c.irq_enable = value.irq_enable;
    if (aes_key_len_built(KeySizes, value.key_len)) c.key_len = value.key_len;
    if (value.mode <= AesModeCbcMac ||
        (Ghash && (value.mode == AesModeGcm || value.mode == AesModeGhash))) c.mode = value.mode;
    if (!Decrypt && c.decrypt && (c.mode == AesModeEcb || c.mode == AesModeCbc)) begin
      c.mode    = old.mode;
      c.decrypt = old.decrypt;
    end
    return c;
  endfunction

  // Key words of the longest key length the engine has (Nk): KEY registers above are accepted
  // and ignored, so that they are not built.
  localparam int unsigned KeyWords = 4 + 2 * int'(aes_key_len_last(KeySizes));

  // CTRL after reset and zeroize: the smallest key length the engine has.
  localparam aes_ctrl_reg_t CtrlReset = '{mode: AesModeEcb, key_len: aes_key_len_first(KeySizes), default: '0};

  // The sticky STATUS bits, REFUSED_BUSY up to BAD_LEN, are contiguous.
  localparam int unsigned StickyLo = AES_STATUS_REFUSED_BUSY_BIT;
  localparam int unsigned StickyHi = AES_STATUS_BAD_LEN_BIT;

  // CTR: the whole block is a big-endian counter (byte 15 least significant), SP 800-38A B.1.
  // GCM counts in the last 32 bits only (inc32, SP 800-38D 6.2): the carry out of them is cut.
  function automatic logic [127:0] ctr_inc(logic [127:0] block, logic inc32);
    logic [127:0] be, r;
    logic [32:0]  lo;
    for (int unsigned i = 0; i < 16; i++) be[8*(15-i) +: 8] = block[8*i +: 8];
    lo = {1'b0, be[31:0]} + 33'd1;
    be = {be[127:32] + 96'(lo[32] && !inc32), lo[31:0]};
    for (int unsigned i = 0; i < 16; i++) r[8*i +: 8] = be[8*(15-i) +: 8];
    return r;
  endfunction

  // ---------------------------------------------------------------- state
  logic [7:0][31:0] key_q, key_d;
  logic [3:0][31:0] iv_q, iv_d;
  logic [3:0][31:0] din_q, din_d;
  logic [3:0][31:0] dout_q, dout_d;
  aes_ctrl_reg_t    ctrl_q, ctrl_d;
  logic [31:0]      len_q, len_d;
  // The key registers have been expanded since they (or the key length) last changed.
  logic             key_set_q, key_set_d;
  logic             dout_valid_q, dout_valid_d;
  logic             din_busy_q, din_busy_d;

  logic             pend_dout_q, pend_dout_d;  // a DOUT read waits for the DIN block
  logic [1:0]       pend_sub_q, pend_sub_d;
  logic             mem_busy_q, mem_busy_d;    // a MEM job from its command to job_done_i
  dma_job_t         job_q, job_d;

  // Input stream: up to three words collecting, plus one complete block waiting for the core.
  logic [2:0][31:0] col_q, col_d;
  logic [1:0]       col_cnt_q, col_cnt_d;
  logic [127:0]     blk_q, blk_d;
  logic             blk_valid_q, blk_valid_d;

  // Output stream: the words of one result block, word 0 first.
  logic [3:0][31:0] obuf_q, obuf_d;
  logic [2:0]       obuf_cnt_q, obuf_cnt_d;

  // Blocks in the core, oldest first. UNROLLED: a block enters every 4 cycles at most (the input
  // stream moves a word per cycle) and stays at most 14 (+1 for the output handshake), so four
  // entries keep the pipeline busy; the other datapaths hold one block.
  localparam int unsigned QDepth = (Arch == AesArchUnrolled) ? 4 : 1;
  localparam int unsigned QPtrW  = (QDepth > 1) ? $clog2(QDepth) : 1;
  localparam int unsigned QCntW  = $clog2(QDepth + 1);
  logic [QDepth-1:0][127:0] q_post_q, q_post_d;  // XORed into the core's result (not PostAtExit)
  logic [QDepth-1:0]        q_dout_q, q_dout_d;  // result goes to DOUT (else the stream)
  logic [QDepth-1:0]        q_drop_q, q_drop_d;  // discard the result (the DMA aborted the job)
  logic [QPtrW-1:0]         q_wptr_q, q_wptr_d, q_rptr_q, q_rptr_d;
  logic [QCntW-1:0]         q_cnt_q, q_cnt_d;

  // ROLLED and PARTIAL without StreamHandover hold one block at a time, so what its result is
  // XORed with is read as it leaves, from where the block came from, instead of being stored as
  // it enters: DIN or the stream's block register, both held while their block is in the core
  // (DIN writes are refused while a DIN block is in flight; the stream's next block is taken in
  // the cycle its predecessor leaves), and the IV, which then changes as the block leaves. This
  // saves the queue's 128 flip-flops and their input mux (hw/ip/aes/README.md, "Cost"), but
  // holds the block register and the IV until the block leaves: the next block enters a cycle
  // later. UNROLLED has several blocks in flight and keeps the queue.
  localparam bit PostAtExit = QDepth == 1 && !StreamHandover;

  function automatic logic [QPtrW-1:0] q_ptr_inc(logic [QPtrW-1:0] ptr);
    return (ptr == QPtrW'(QDepth - 1)) ? '0 : ptr + QPtrW'(1);
  endfunction

  // ---------------------------------------------------------------- core
  logic         core_key_valid, core_key_ready, core_clear;
  logic         core_in_valid, core_in_ready, core_decrypt;
  logic [127:0] core_in_data;
  logic         core_out_valid, core_out_ready;
  logic [127:0] core_out_data;
  logic         core_busy;

  couplet_aes_core #(
    .Arch     (Arch),
    .Decrypt  (Decrypt),
    .KeySizes (KeySizes),
    .Handover (!PostAtExit)
  ) u_core (
    .clk_i,
    .rst_ni,
    .key_valid_i (core_key_valid),
    .key_i       (key_q),
    .key_len_i   (ctrl_q.key_len),
    .key_ready_o (core_key_ready),
    .clear_i     (core_clear),
    .in_valid_i  (core_in_valid),
    .in_ready_o  (core_in_ready),
    .decrypt_i   (core_decrypt),
    .in_data_i   (core_in_data),
    .out_valid_o (core_out_valid),
    .out_ready_i (core_out_ready),
    .out_data_o  (core_out_data),
    .busy_o      (core_busy)
  );

  // GHASH multiplier (modes GCM and GHASH): its input, the key H, and writes of S.
  logic             gh_in_valid, gh_in_ready, gh_busy, gh_s_we;
  logic [127:0]     gh_in, gh_s, gh_s_wdata;
  logic [3:0][31:0] h_q, h_d;

  logic key_ready, expanding, stream_busy, busy;
  assign key_ready   = key_set_q && core_key_ready;
  assign expanding   = key_set_q && !core_key_ready;
  assign stream_busy = (col_cnt_q != '0) || blk_valid_q || (q_cnt_q != '0) || (obuf_cnt_q != '0);
  assign busy        = expanding || din_busy_q || stream_busy || mem_busy_q || core_busy || gh_busy;

  // One mode datapath for both sources; CTRL cannot change while a block is in flight.
  logic serial;
  assign serial = (ctrl_q.mode == AesModeOfb) || (ctrl_q.mode == AesModeCbcMac) ||
                  (!ctrl_q.decrypt && (ctrl_q.mode == AesModeCbc || ctrl_q.mode == AesModeCfb));

  logic         issue_din;     // the command in this cycle starts a DIN block
  logic [127:0] issue_blk;     // input block of the block entering the core
  logic [127:0] own_blk;       // input block of the block entering the core (leaving, PostAtExit)
  logic [127:0] own_post;      // what that block's result is XORed with
  logic         chain_upd;     // modes whose next IV is known from the input block alone
  logic [127:0] chain_iv;

  // The block entering the core is the input block, the IV or both XORed, and what its result is
  // XORed with is the IV or the input block: each an AND-XOR of two terms chosen by the mode,
  // one LUT per bit, where a case per mode would build a mux of all five.
  // Without Decrypt, CTRL never holds ECB or CBC decryption (ctrl_legalize): saying so here
  // lets synthesis drop the IV's path into what a result is XORed with.
  // CBC_MAC enters like CBC encryption and its result is the next IV; GCM enters like CTR. The
  // modes without output (CBC_MAC, GHASH) drop their stream results; GHASH blocks bypass the core.
  logic mode_cbc, mode_ecb, mode_mac, mode_gcm, mode_gh, no_out;
  logic cbc_dec, in_blk, in_iv, post_iv, post_blk;
  assign mode_cbc = ctrl_q.mode == AesModeCbc;
  assign mode_ecb = ctrl_q.mode == AesModeEcb;
  assign mode_mac = ctrl_q.mode == AesModeCbcMac;
  assign mode_gcm = Ghash && ctrl_q.mode == AesModeGcm;
  assign mode_gh  = Ghash && ctrl_q.mode == AesModeGhash;
  assign no_out   = mode_mac || mode_gh;
  assign cbc_dec  = Decrypt && mode_cbc && ctrl_q.decrypt;
  assign in_blk   = mode_cbc || mode_ecb || mode_mac;
  assign in_iv    = !mode_ecb && !cbc_dec;
  assign post_iv  = cbc_dec;
  assign post_blk = !in_blk;
  assign core_decrypt = Decrypt && (mode_cbc || mode_ecb) && ctrl_q.decrypt;
  assign core_in_data = ({128{in_blk}} & issue_blk) ^ ({128{in_iv}} & iv_q);
  assign own_post     = ({128{post_iv}} & iv_q) | ({128{post_blk}} & own_blk);

  always_comb begin
    chain_upd = 1'b0;
    chain_iv  = iv_q;
    unique case (ctrl_q.mode)
      AesModeCbc, AesModeCfb: begin
        chain_upd = ctrl_q.decrypt;
        chain_iv  = own_blk;
      end
      AesModeCtr, AesModeGcm: begin
        chain_upd = 1'b1;
        chain_iv  = ctr_inc(iv_q, mode_gcm);
      end
      default: ;  // ECB, OFB, CBC_MAC (at exit), GHASH
    endcase
  end

  // A complete stream block enters when the key is ready and the queue has room (unless
  // PostAtExit, also in the cycle its head leaves), and in a serial mode only once the previous
  // block has left. Without a key it leaves as zeros (STATUS.refused_no_key), so a DMA job never
  // hangs. GHASH blocks go to the multiplier instead.
  logic stream_go, blk_take, zero_go, core_in_fire, core_out_fire;
  logic cmd_wait_q;
  assign stream_go = blk_valid_q && key_ready && !din_busy_q &&
                     (q_cnt_q != QCntW'(QDepth) || (!PostAtExit && core_out_fire)) &&
                     (!serial || q_cnt_q == '0) && !cmd_wait_q;
  assign blk_take  = stream_go && (mode_gh ? gh_in_ready : core_in_ready);
  assign zero_go   = blk_valid_q && !key_set_q && (q_cnt_q == '0) && (obuf_cnt_q == '0);
  assign core_in_valid = (issue_din || stream_go) && !mode_gh;
  assign core_in_fire  = core_in_valid && core_in_ready;

  // A GCM block leaves the core only when the multiplier takes its ciphertext: the result when
  // encrypting, the block it was XORed with (its input) when decrypting.
  logic         head_dout, head_drop, obuf_free;
  logic [127:0] post_exit, result;
  assign head_dout = q_dout_q[q_rptr_q];
  assign head_drop = q_drop_q[q_rptr_q];
  assign post_exit = PostAtExit ? own_post : q_post_q[q_rptr_q];
  assign result    = core_out_data ^ post_exit;
  assign obuf_free = (obuf_cnt_q == '0) || (obuf_cnt_q == 3'd1 && mem_rsp_i.out_ready);
  assign core_out_ready = (q_cnt_q != '0) && (head_dout || head_drop || no_out || obuf_free) &&
                          (!mode_gcm || head_drop || gh_in_ready);
  assign core_out_fire  = core_out_valid && core_out_ready;

  assign gh_in_valid = (mode_gcm && core_out_fire && !head_drop) ||
                       (mode_gh && (issue_din || stream_go));
  assign gh_in       = mode_gh ? issue_blk : ctrl_q.decrypt ? post_exit : result;

  logic din_done;
  assign din_done = core_out_fire && head_dout;

  // ---------------------------------------------------------------- commands
  // The command port, STATUS's sticky bits, the interrupt and the job port
  // (couplet_accel_frontend); what each register and action does is decoded here.
  logic                     cmd_hold, rd_fire, unused_exec_fire, wr_refused;
  logic [1:0]               slot, slot_bad, slot_guard, wr;
  logic [1:0][7:0]          slot_index;
  logic [1:0][31:0]         slot_data;
  logic                     late;
  logic [31:0]              late_data;
  logic [StickyHi:StickyLo] sticky_q, sticky_set;
  logic                     job_end;
  // A job of a mode without output (CBC_MAC, GHASH) is done for the DMA when its last word is
  // read, before the engine has used it: its MEM answer waits until the engine is idle, so that
  // IV or S is complete when software reads it.
  logic engine_active, job_done, job_err, done_wait_q, done_wait_d, done_err_q, done_err_d;
  assign engine_active = stream_busy || core_busy || gh_busy;
  assign job_done = (mem_rsp_i.job_done && !(no_out && engine_active)) ||
                    (done_wait_q && !engine_active);
  assign job_err  = done_wait_q ? done_err_q : mem_rsp_i.job_err;
  always_comb begin
    done_wait_d = done_wait_q && engine_active;
    done_err_d  = done_err_q;
    if (mem_busy_q && mem_rsp_i.job_done && no_out && engine_active) begin
      done_wait_d = 1'b1;
      done_err_d  = mem_rsp_i.job_err;
    end
  end

  // While the multiplier absorbs a block (at most 128 / GhashBits cycles) commands wait, so that
  // a DIN block of GCM or GHASH never meets it busy and S is read only when complete. A waiting
  // command stops the stream's next block from entering (cmd_wait_q), so the wait is bounded by
  // the blocks already in the core, never by a job's length.
  assign cmd_hold = pend_dout_q || mem_busy_q || expanding || gh_busy;

  logic [31:0] status_word;
  always_comb begin
    status_word = 32'(sticky_q) << StickyLo;
    status_word[AES_STATUS_BUSY_BIT]       = busy;
    status_word[AES_STATUS_KEY_READY_BIT]  = key_ready;
    status_word[AES_STATUS_DOUT_VALID_BIT] = dout_valid_q;
  end

  // What each action does if run now: its answer, AesResultOk when it goes ahead.
  aes_result_e start_res, idle_res, mem_res;
  always_comb begin
    if (!key_ready)                     start_res = AesResultNoKey;
    else if (busy || !core_in_ready)    start_res = AesResultBusy;
    else                                start_res = AesResultOk;
    idle_res = busy ? AesResultBusy : AesResultOk;
    if (len_q == '0 || len_q[3:0] != 4'd0 || len_q > AES_MAX_JOB_BYTES) mem_res = AesResultBadLen;
    else if (!key_ready)                mem_res = AesResultNoKey;
    else if (busy)                      mem_res = AesResultBusy;
    else                                mem_res = AesResultOk;
  end

  // The answers to a READ and an EXEC of the command's index and the registers its slots address,
  // before the command is taken. DOUT and unknown indexes are not writable; KEY, IV, CTRL and LEN
  // refuse writes while busy.
  logic        rd_bad, rd_later, exec_bad, exec_later;
  logic [31:0] rd_data, exec_data;
  always_comb begin
    reg_sel_t sel;
    rd_bad     = 1'b0;
    rd_later   = 1'b0;
    rd_data    = '0;
    pend_sub_d = pend_sub_q;
    sel        = decode_index({1'b0, cmd_req_i.cmd.index});
    unique case (sel.kind)
      RegIv:     rd_data = iv_q[sel.sub[1:0]];
      RegDout: begin
        if (din_done) begin
          rd_data = result[32*sel.sub[1:0] +: 32];
        end else if (din_busy_q) begin
          rd_later = 1'b1;
          if (rd_fire) pend_sub_d = sel.sub[1:0];
        end else begin
          rd_data = dout_q[sel.sub[1:0]];
        end
      end
      RegCtrl:   rd_data = 32'(ctrl_q);
      RegStatus: rd_data = status_word;
      RegLen:    rd_data = len_q;
      RegGhashS: rd_data = gh_s[32*sel.sub[1:0] +: 32];
      RegKey, RegDin, RegCmd, RegGhashH: rd_data = '0;  // write-only
      default:   rd_bad = 1'b1;
    endcase

    exec_bad   = 1'b0;
    exec_later = 1'b0;
    unique case (cmd_req_i.cmd.index)
      AesActionStart:                    exec_data = start_res;
      AesActionExpand, AesActionZeroize: exec_data = idle_res;
      AesActionMem: begin
        exec_data  = mem_res;
        exec_later = mem_res == AesResultOk;
      end
      default: begin
        exec_data = '0;
        exec_bad  = 1'b1;
      end
    endcase

    for (int unsigned s = 0; s < 2; s++) begin
      sel           = decode_index(slot_index[s]);
      slot_bad[s]   = (sel.kind == RegNone) || (sel.kind == RegDout);
      slot_guard[s] = (sel.kind == RegKey) || (sel.kind == RegIv) || (sel.kind == RegCtrl) ||
                      (sel.kind == RegLen) || (sel.kind == RegGhashH) || (sel.kind == RegGhashS);
    end
  end

  // The two slots of a WRITE2 address consecutive indexes, one even and one odd: each register
  // takes its data from the lane of its index's parity, so the choice between the slots is one
  // 2:1 mux per bit for all registers rather than one per register word.
  logic [1:0][31:0] lane;
  assign lane[0] = slot_index[0][0] ? slot_data[1] : slot_data[0];
  assign lane[1] = slot_index[0][0] ? slot_data[0] : slot_data[1];

  // What a command does once taken: register writes (wr) and actions (the front end's act_req
  // for EXEC and CMD, or a write of DIN3). A refused action only sets its STATUS bit.
  logic         refuse_busy, refuse_nokey, bad_len;
  aes_actions_t act_req, act;
  logic        expand_go, zeroize_go, mem_go;
  logic        iv_wr;
  logic [3:0][31:0] iv_wdata;
  logic [7:0]       key_we;
  logic [3:0]       iv_we, din_we, h_we, s_we;
  logic [3:0][31:0] din_cmd;  // DIN with this cycle's writes: a write of DIN3 starts it at once

  always_comb begin
    reg_sel_t sel;

    refuse_busy  = 1'b0;
    refuse_nokey = 1'b0;
    bad_len      = 1'b0;
    act          = act_req;
    issue_din    = 1'b0;
    expand_go    = 1'b0;
    zeroize_go   = 1'b0;
    mem_go       = 1'b0;
    key_we       = '0;
    iv_we        = '0;
    din_we       = '0;
    h_we         = '0;
    s_we         = '0;
    key_d        = key_q;
    ctrl_d       = ctrl_q;
    len_d        = len_q;
    key_set_d    = key_set_q;

    // STATUS is cleared by the front end; a guarded register written while busy gets no wr.
    for (int unsigned s = 0; s < 2; s++) begin
      sel = decode_index(slot_index[s]);
      if (wr[s]) begin
        unique case (sel.kind)
          RegKey: begin
            key_we[sel.sub] = 1'b1;
            key_set_d       = 1'b0;
          end
          RegIv: iv_we[sel.sub[1:0]] = 1'b1;
          RegDin: begin
            // Taken also while busy, to preload the next block, but with PostAtExit not while a
            // DIN block is in flight: DIN is its input until it leaves, so the write is refused.
            // Decided here, on the data only: as a guarded register (couplet_accel_frontend)
            // DIN's flight would reach wr and with it the start's path into the first round, and
            // the start is refused anyway (busy).
            if (PostAtExit && din_busy_q) refuse_busy = 1'b1;
            else                          din_we[sel.sub[1:0]] = 1'b1;
            if (sel.sub[1:0] == 2'd3) act.start = 1'b1;
          end
          RegCtrl: begin
            ctrl_d = ctrl_legalize(aes_ctrl_reg_t'(slot_data[s][$bits(aes_ctrl_reg_t)-1:0]), ctrl_q);
            if (ctrl_d.key_len != ctrl_q.key_len) key_set_d = 1'b0;
          end
          RegLen: len_d = lane[1'(reg_index(AES_LEN_OFFSET))];
          RegGhashH: h_we[sel.sub[1:0]] = 1'b1;
          RegGhashS: s_we[sel.sub[1:0]] = 1'b1;
          default: ;  // CMD: the front end's act_req
        endcase
      end
    end
    for (int unsigned w = 0; w < 8; w++) begin
      if (key_we[w]) key_d[w] = lane[1'(reg_index(AES_KEY0_OFFSET) + 8'(w))];
    end
    iv_wr = |iv_we;
    for (int unsigned w = 0; w < 4; w++) begin
      iv_wdata[w] = iv_we[w] ? lane[1'(reg_index(AES_IV0_OFFSET) + 8'(w))] : iv_q[w];
      din_cmd[w]  = din_we[w] ? lane[1'(reg_index(AES_DIN0_OFFSET) + 8'(w))] : din_q[w];
    end
    din_d = din_cmd;
    for (int unsigned w = 0; w < 4; w++) begin
      h_d[w]                 = h_we[w] ? lane[1'(reg_index(AES_GHASH_H0_OFFSET) + 8'(w))] : h_q[w];
      gh_s_wdata[32*w +: 32] = s_we[w] ? lane[1'(reg_index(AES_GHASH_S0_OFFSET) + 8'(w))] :
                                         gh_s[32*w +: 32];
    end
    gh_s_we = |s_we;

    if (act.start) begin
      unique case (start_res)
        AesResultNoKey: refuse_nokey = 1'b1;
        AesResultBusy:  refuse_busy  = 1'b1;
        default:        issue_din    = 1'b1;
      endcase
    end
    if (act.expand || act.zeroize) begin
      if (idle_res == AesResultBusy) begin
        refuse_busy = 1'b1;
      end else begin
        expand_go  = act.expand;
        zeroize_go = act.zeroize;
      end
    end
    if (act.mem) begin
      unique case (mem_res)
        AesResultBadLen: bad_len      = 1'b1;
        AesResultNoKey:  refuse_nokey = 1'b1;
        AesResultBusy:   refuse_busy  = 1'b1;
        default:         mem_go       = 1'b1;
      endcase
    end

    if (expand_go) key_set_d = 1'b1;
    if (zeroize_go) begin
      key_d      = '0;
      din_d      = '0;
      h_d        = '0;
      gh_s_wdata = '0;
      gh_s_we    = 1'b1;
      ctrl_d     = CtrlReset;
      key_set_d  = 1'b0;
    end
    for (int unsigned w = KeyWords; w < 8; w++) key_d[w] = '0;
  end

  // The block a start issues is DIN with the words its command writes. For the path into the
  // first round those words are picked by the command's op and index alone, not by wr: a start
  // goes ahead only with its command taken and no block in flight, and then DIN takes every
  // write (no guard, never bad), so din_issue equals din_cmd whenever a DIN block enters.
  // Likewise a DIN block enters only when no stream block waits (start_res needs the stream
  // idle), so blk_valid_q picks the source. The command's acceptance then reaches the core's
  // enables only, not its data path (the Fmax of the tight tile on ECP5, issue 19).
  logic [3:0][31:0] din_issue;
  for (genvar w = 0; w < 4; w++) begin : gen_din_issue
    localparam logic [7:0] DinIndex = reg_index(AES_DIN0_OFFSET) + 8'(w);
    logic hit;
    assign hit = (slot[0] && slot_index[0] == DinIndex) ||
                 (slot[1] && slot_index[0] == DinIndex - 8'd1);
    assign din_issue[w] = hit ? lane[DinIndex[0]] : din_q[w];
  end
  assign issue_blk      = blk_valid_q ? blk_q : din_issue;
  assign own_blk        = !PostAtExit ? issue_blk : head_dout ? din_q : blk_q;
  assign core_key_valid = expand_go;
  assign core_clear     = zeroize_go;

  // ---------------------------------------------------------------- next state
  always_comb begin
    iv_d         = iv_q;
    dout_d       = dout_q;
    dout_valid_d = dout_valid_q;
    din_busy_d   = din_busy_q;
    pend_dout_d  = pend_dout_q;
    mem_busy_d   = mem_busy_q;
    job_d        = job_q;
    late         = 1'b0;
    late_data    = '0;
    sticky_set   = '0;
    col_d        = col_q;
    col_cnt_d    = col_cnt_q;
    blk_d        = blk_q;
    blk_valid_d  = blk_valid_q;
    obuf_d       = obuf_q;
    obuf_cnt_d   = obuf_cnt_q;
    q_post_d     = q_post_q;
    q_dout_d     = q_dout_q;
    q_drop_d     = q_drop_q;
    q_wptr_d     = q_wptr_q;
    q_rptr_d     = q_rptr_q;
    q_cnt_d      = q_cnt_q;

    // Late answers: a DOUT read once the DIN block left the core, MEM once its job is done.
    if (rd_fire && rd_later) pend_dout_d = 1'b1;
    if (pend_dout_q && din_done) begin
      pend_dout_d = 1'b0;
      late        = 1'b1;
      late_data   = result[32*pend_sub_q +: 32];
    end

    // Sticky events.
    if (refuse_busy || wr_refused) sticky_set[AES_STATUS_REFUSED_BUSY_BIT] = 1'b1;
    if (refuse_nokey) sticky_set[AES_STATUS_REFUSED_NO_KEY_BIT] = 1'b1;
    if (din_done)     sticky_set[AES_STATUS_DONE_BIT]           = 1'b1;
    if (bad_len)      sticky_set[AES_STATUS_BAD_LEN_BIT]        = 1'b1;

    // MEM job.
    if (mem_go) begin
      mem_busy_d = 1'b1;
      job_d = '{src: cmd_req_i.cmd.op_a, dst: cmd_req_i.cmd.op_b, in_len: len_q,
                out_len: no_out ? 32'd0 : len_q};
    end
    if (job_end) begin
      mem_busy_d = 1'b0;
      late       = 1'b1;
      late_data  = job_err ? AesResultBusError : AesResultOk;
      if (job_err) sticky_set[AES_STATUS_JOB_ERROR_BIT] = 1'b1;
    end

    // Input stream.
    if (mem_rsp_i.in_valid && mem_req_o.in_ready) begin
      if (col_cnt_q == 2'd3) begin
        blk_d       = {mem_rsp_i.in_data, col_q[2], col_q[1], col_q[0]};
        blk_valid_d = 1'b1;
        col_cnt_d   = '0;
      end else begin
        col_d[col_cnt_q] = mem_rsp_i.in_data;
        col_cnt_d        = col_cnt_q + 2'd1;
      end
    end
    if (blk_take || zero_go) blk_valid_d = 1'b0;
    if (zero_go) sticky_set[AES_STATUS_REFUSED_NO_KEY_BIT] = 1'b1;

    // Blocks entering the core.
    if (core_in_fire) begin
      if (!PostAtExit) q_post_d[q_wptr_q] = own_post;
      q_dout_d[q_wptr_q] = issue_din;
      q_drop_d[q_wptr_q] = 1'b0;
      q_wptr_d           = q_ptr_inc(q_wptr_q);
      if (!PostAtExit && chain_upd) iv_d = chain_iv;
      if (issue_din) begin
        din_busy_d   = 1'b1;
        dout_valid_d = 1'b0;
      end
    end

    // Output stream; a pop shifts zeros in, so no word lingers after it left.
    if (mem_req_o.out_valid && mem_rsp_i.out_ready) begin
      obuf_d     = {32'd0, obuf_q[3:1]};
      obuf_cnt_d = obuf_cnt_q - 3'd1;
    end

    // Blocks leaving the core.
    if (core_out_fire) begin
      q_rptr_d = q_ptr_inc(q_rptr_q);
      unique case (ctrl_q.mode)
        AesModeOfb: iv_d = core_out_data;
        AesModeCbcMac: iv_d = result;
        AesModeCbc, AesModeCfb: if (!ctrl_q.decrypt) iv_d = result;
        default: ;
      endcase
      if (PostAtExit && chain_upd) iv_d = chain_iv;
      if (head_dout) begin
        dout_d       = result;
        dout_valid_d = 1'b1;
        din_busy_d   = 1'b0;
      end else if (!head_drop && !no_out) begin
        obuf_d     = result;
        obuf_cnt_d = 3'd4;
      end
    end
    if (zero_go && !no_out) begin
      obuf_d     = '0;
      obuf_cnt_d = 3'd4;
    end
    q_cnt_d = q_cnt_q + QCntW'(core_in_fire) - QCntW'(core_out_fire);

    // A DMA abort ends the job: partial input, queued output and blocks in the core go away.
    if (mem_rsp_i.job_abort) begin
      col_cnt_d   = '0;
      blk_valid_d = 1'b0;
      obuf_cnt_d  = '0;
      for (int unsigned i = 0; i < QDepth; i++) begin
        if (!q_dout_d[i]) q_drop_d[i] = 1'b1;
      end
    end

    if (iv_wr) iv_d = iv_wdata;
    if (zeroize_go) begin
      iv_d         = '0;
      dout_d       = '0;
      dout_valid_d = 1'b0;
      col_d        = '0;
      blk_d        = '0;
      obuf_d       = '0;
      q_post_d     = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      key_q        <= '0;
      h_q          <= '0;
      cmd_wait_q   <= 1'b0;
      done_wait_q  <= 1'b0;
      done_err_q   <= 1'b0;
      iv_q         <= '0;
      din_q        <= '0;
      dout_q       <= '0;
      ctrl_q       <= CtrlReset;
      len_q        <= '0;
      key_set_q    <= 1'b0;
      dout_valid_q <= 1'b0;
      din_busy_q   <= 1'b0;
      pend_dout_q  <= 1'b0;
      pend_sub_q   <= '0;
      mem_busy_q   <= 1'b0;
      job_q        <= '0;
      col_q        <= '0;
      col_cnt_q    <= '0;
      blk_q        <= '0;
      blk_valid_q  <= 1'b0;
      obuf_q       <= '0;
      obuf_cnt_q   <= '0;
      q_post_q     <= '0;
      q_dout_q     <= '0;
      q_drop_q     <= '0;
      q_wptr_q     <= '0;
      q_rptr_q     <= '0;
      q_cnt_q      <= '0;
    end else begin
      key_q        <= key_d;
      h_q          <= h_d;
      cmd_wait_q   <= cmd_req_i.valid && gh_busy;
      done_wait_q  <= done_wait_d;
      done_err_q   <= done_err_d;
      iv_q         <= iv_d;
      din_q        <= din_d;
      dout_q       <= dout_d;
      ctrl_q       <= ctrl_d;
      len_q        <= len_d;
      key_set_q    <= key_set_d;
      dout_valid_q <= dout_valid_d;
      din_busy_q   <= din_busy_d;
      pend_dout_q  <= pend_dout_d;
      pend_sub_q   <= pend_sub_d;
      mem_busy_q   <= mem_busy_d;
      job_q        <= job_d;
      col_q        <= col_d;
      col_cnt_q    <= col_cnt_d;
      blk_q        <= blk_d;
      blk_valid_q  <= blk_valid_d;
      obuf_q       <= obuf_d;
      obuf_cnt_q   <= obuf_cnt_d;
      q_post_q     <= q_post_d;
      q_dout_q     <= q_dout_d;
      q_drop_q     <= q_drop_d;
      q_wptr_q     <= q_wptr_d;
      q_rptr_q     <= q_rptr_d;
      q_cnt_q      <= q_cnt_d;
    end
  end

  assign mem_req_o.job       = job_q;
  // The word completing a block needs the block register free: with PostAtExit, also of a stream
  // block in the core, which frees it as it leaves (core_out_fire; the DMA's out_ready is a flop,
  // so this path from it to in_ready closes no loop).
  logic blk_free;
  assign blk_free = !blk_valid_q &&
                    (!PostAtExit || q_cnt_q == '0 || head_dout || core_out_fire);
  assign mem_req_o.in_ready  = (col_cnt_q != 2'd3) || blk_free;
  assign mem_req_o.out_valid = obuf_cnt_q != '0;
  assign mem_req_o.out_data  = obuf_q[0];

  if (Ghash) begin : g_ghash
    couplet_aes_ghash #(
      .BitsPerCycle (GhashBits)
    ) u_ghash (
      .clk_i, .rst_ni,
      .h_i        (h_q),
      .in_valid_i (gh_in_valid),
      .in_ready_o (gh_in_ready),
      .in_data_i  (gh_in),
      .s_we_i     (gh_s_we),
      .s_i        (gh_s_wdata),
      .s_o        (gh_s),
      .busy_o     (gh_busy)
    );
  end else begin : g_no_ghash
    assign gh_in_ready = 1'b1;
    assign gh_s        = '0;
    assign gh_busy     = 1'b0;
    logic unused_gh;
    assign unused_gh = ^{gh_in_valid, gh_in, gh_s_we, gh_s_wdata, h_q};
  end

  couplet_accel_frontend #(
    .StickyLo       (StickyLo),
    .StickyHi       (StickyHi),
    .StatusIndex    (reg_index(AES_STATUS_OFFSET)),
    .DoneBit        (AES_STATUS_DONE_BIT),
    .NumActions     ($bits(aes_actions_t)),
    .CmdIndex       (reg_index(AES_CMD_OFFSET)),
    .CmdActions     (AES_CMD_ACTIONS)
  ) u_frontend (
    .clk_i, .rst_ni,
    .cmd_req_i, .cmd_ready_o, .cmd_rsp_o,
    .hold_i(cmd_hold),
    .slot_o(slot), .slot_index_o(slot_index), .slot_data_o(slot_data),
    .slot_bad_i(slot_bad), .slot_guard_i(slot_guard), .busy_i(busy), .wr_o(wr),
    .refused_o(wr_refused), .rd_o(rd_fire), .exec_o(unused_exec_fire),
    .act_o(act_req),
    .rd_data_i(rd_data), .rd_bad_i(rd_bad), .rd_later_i(rd_later),
    .exec_data_i(exec_data), .exec_bad_i(exec_bad), .exec_later_i(exec_later),
    .late_i(late), .late_data_i(late_data),
    .job_valid_o(mem_req_o.job_valid), .job_ready_i(mem_rsp_i.job_ready), .job_i(job_q),
    .job_offer_i(mem_go), .job_done_i(job_done),
    .job_wait_i(mem_busy_q),
    .job_end_o(job_end),
    .irq_o, .irq_enable_i(ctrl_q.irq_enable),
    .sticky_set_i(sticky_set), .sticky_o(sticky_q)
  );

endmodule
