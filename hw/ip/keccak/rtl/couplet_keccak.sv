// Keccak/SHA-3 accelerator: the sponge's state as registers, absorbing from the word streams and
// the ABSORB job, and the command port of the coupling layer around couplet_keccak_core
// (hw/ip/keccak/README.md). One RTL serves every coupling, like couplet_aes: custom instructions
// or memory-mapped registers through an adapter, the DMA's job port (ABSORB) and descriptor jobs
// on the input word stream. Padding and squeezing are left to software, which reads the digest
// from the STATE registers: the hardware only XORs, permutes and counts words.
//
// The state lives in the core's register alone (couplet_keccak_core): the rounds read it, and
// commands and the input stream change it through the core's narrow write port, one or two
// words per cycle, so no path of the front end is as wide as the state except the read of one
// word. A command or a stream word in a permutation's done cycle already sees the result, and
// back-to-back permutations lose no cycle. The input stream yields to a command that touches the
// state (it is not taken in the cycle such a command is), so the write port has one user a cycle.
//
// A PERMUTE command starts the core in the cycle the command is taken (a control path only: the
// data comes from registers). A stream block instead starts in the cycle after its last word, so
// that no path runs from the input words through the rounds.
//
// Command timing: a command is taken when the response register is free (or drained in the same
// cycle) and answered in the next cycle, except ABSORB (answered after its job and its last
// permutation). While a permutation runs, a command that touches the state is not taken; while
// an ABSORB is active, no command is taken. Both waits are bounded (24 / RoundsPerCycle cycles,
// or the job).
module couplet_keccak
  import couplet_accel_pkg::*;
  import couplet_keccak_pkg::*;
  import keccak_reg_pkg::*;
#(
  parameter int unsigned RoundsPerCycle = 1
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
  localparam int unsigned StateWords = KeccakStateW / 32;

  // Command indexes (byte offset / 4) of the generated register map (data/keccak.toml).
  function automatic logic [7:0] reg_index(logic [8:0] offset);
    return 8'(offset >> 2);
  endfunction
  localparam logic [7:0] IdxState0 = reg_index(KECCAK_STATE_OFFSET);      // STATE0..49
  localparam logic [7:0] IdxCtrl   = reg_index(KECCAK_CTRL_OFFSET);
  localparam logic [7:0] IdxStatus = reg_index(KECCAK_STATUS_OFFSET);
  localparam logic [7:0] IdxLen    = reg_index(KECCAK_LEN_OFFSET);
  localparam logic [7:0] IdxCmd    = reg_index(KECCAK_CMD_OFFSET);
  localparam logic [7:0] IdxXor0   = reg_index(KECCAK_STATE_XOR_OFFSET);  // STATE_XOR0..49

  // LEN bits [LenWordBits+1:2]: the word count of the longest job.
  localparam int unsigned LenWordBits = $clog2(KECCAK_MAX_JOB_BYTES / 4 + 1);

  typedef enum logic [2:0] {
    RegNone, RegState, RegStateXor, RegCtrl, RegStatus, RegLen, RegCmd
  } reg_e;

  // 8-bit index: the second register of a WRITE2 at index 127 is 128, which does not exist. The
  // array ranges are tested with a wrapping subtraction, so a range starting at 0 needs no
  // always-true comparison.
  function automatic reg_e decode_kind(logic [7:0] idx);
    reg_e kind;
    if (8'(idx - IdxState0) < 8'(KECCAK_STATE_COUNT)) begin
      kind = RegState;
    end else if (8'(idx - IdxXor0) < 8'(KECCAK_STATE_XOR_COUNT)) begin
      kind = RegStateXor;
    end else begin
      unique case (idx)
        IdxCtrl:   kind = RegCtrl;
        IdxStatus: kind = RegStatus;
        IdxLen:    kind = RegLen;
        IdxCmd:    kind = RegCmd;
        default:   kind = RegNone;
      endcase
    end
    return kind;
  endfunction

  // The state word of a STATE or STATE_XOR index.
  function automatic logic [5:0] state_word(logic [7:0] idx);
    return (8'(idx - IdxState0) < 8'(StateWords)) ? 6'(idx - IdxState0) : 6'(idx - IdxXor0);
  endfunction

  // The write port's buses carry the even and odd state words, so the two slots of a WRITE2
  // (index, index + 1) use one bus each: that needs the arrays to start at even indexes. And a
  // WRITE2 never writes a STATE and a STATE_XOR word together (the port XORs both or neither):
  // the arrays are not adjacent. A map that breaks either stops elaboration here (a missing
  // module, as in couplet_keccak_core).
  if (IdxState0[0] || IdxXor0[0] || 32'(IdxState0) + StateWords >= 32'(IdxXor0)) begin : gen_bad_state_map
    keccak_state_arrays_must_start_even_and_not_touch u_bad_state_map ();
  end

  // The sticky STATUS bits, DONE up to BAD_LEN, are contiguous.
  localparam int unsigned StickyLo = KECCAK_STATUS_DONE_BIT;
  localparam int unsigned StickyHi = KECCAK_STATUS_BAD_LEN_BIT;

  // ABSORB: checking LEN against the rate, waiting for the job, waiting to answer.
  typedef enum logic [1:0] {AbsIdle, AbsCheck, AbsJob, AbsAnswer} abs_e;

  // ---------------------------------------------------------------- registers
  keccak_ctrl_reg_t ctrl_q, ctrl_d;
  logic [31:0]   len_q, len_d;
  logic [5:0]    count_q, count_d;        // words of the current stream block so far
  logic          pend_q, pend_d;          // a stream block's permutation starts this cycle

  abs_e          abs_q, abs_d;
  logic [31:0]   abs_code_q, abs_code_d;  // ABSORB's answer
  logic [4:0]    mod_bit_q, mod_bit_d;    // bit of LEN / 4 being divided by the rate
  logic [5:0]    mod_rem_q, mod_rem_d;    // remainder of the bits above it
  dma_job_t      job_q, job_d;

  // ---------------------------------------------------------------- permutation engine
  logic                        core_start, core_busy, core_done;
  logic                        permute_go, zeroize_go, absorb_go;  // actions that go ahead now
  logic [StateWords-1:0]       wr_word;
  logic [1:0][31:0]            wr_bus;
  logic [StateWords-1:0][31:0] st_cur;  // the state register
  logic                        unused_core_refused;  // starts are only issued while idle

  couplet_keccak_core #(
    .RoundsPerCycle (RoundsPerCycle)
  ) u_core (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .start_i         (core_start),
    .wr_i            (wr_word),
    .wr_data_i       (wr_bus),
    .clear_i         (zeroize_go),
    .busy_o          (core_busy),
    .done_o          (core_done),
    .start_refused_o (unused_core_refused),
    .state_o         (st_cur)
  );

  logic perm_run, rate_ok, stream_active, busy;
  assign perm_run      = core_busy || pend_q;
  assign rate_ok       = (ctrl_q.rate != 6'd0) && (ctrl_q.rate <= KECCAK_MAX_RATE);
  assign stream_active = (count_q != 6'd0) || mem_rsp_i.in_valid;
  assign busy          = perm_run || (abs_q != AbsIdle) || stream_active;

  // ---------------------------------------------------------------- commands
  // The command port, STATUS's sticky bits, the interrupt and the job port
  // (couplet_accel_frontend); what each register and action does is decoded here.
  logic                     unused_rd_fire;  // a READ has no side effect here
  logic                     unused_exec_fire, wr_refused;
  logic [1:0]               slot, slot_bad, slot_guard, wr;
  logic [1:0][7:0]          slot_index;
  logic [1:0][31:0]         slot_data;
  logic                     late;
  logic [StickyHi:StickyLo] sticky_q, sticky_set;
  logic                     job_end;

  // A command that reads or changes the state waits while a permutation runs.
  logic touches_state;
  always_comb begin
    reg_e kind;
    touches_state = 1'b0;
    kind          = RegNone;
    unique case (cmd_req_i.cmd.op)
      AccelOpRead: begin
        kind          = decode_kind({1'b0, cmd_req_i.cmd.index});
        touches_state = (kind == RegState) || (kind == RegStateXor);
      end
      AccelOpExec: touches_state = (cmd_req_i.cmd.index == KeccakActionZeroize) ||
                                 (cmd_req_i.cmd.index == KeccakActionAbsorb);
      default: begin
        for (int unsigned s = 0; s < 2; s++) begin
          kind = decode_kind(slot_index[s]);
          if (slot[s] && (kind == RegState || kind == RegStateXor ||
                          (kind == RegCmd && slot_data[s][KECCAK_CMD_ZEROIZE_BIT]))) begin
            touches_state = 1'b1;
          end
        end
      end
    endcase
  end

  // Two state words are read each cycle, one even and one odd, through two 25-lane ports: the
  // stream's word count_q while it takes one, else the two a command can address (its index and
  // the next). A READ answers one of them; a STATE_XOR write and a stream word are written back
  // XORed (the engine's port only replaces words).
  //
  // Each port is an array indexed by the lane, which Yosys maps as a multiplexer tree: 1,143
  // LUTs for couplet_keccak around its engine, where a loop comparing the lane with each
  // index mapped into 1,608 (xc7). A lane past 24 (a WRITE2 at STATE49, whose even word would
  // be the 51st; an index that is no state word) reads a word nobody uses: such a command
  // writes no state word through that bus and answers no state word.
  logic [5:0]                      cmd_word0, rd_word;
  logic [4:0]                      lane_even, lane_odd;
  logic [StateWords/2-1:0][31:0]   st_even, st_odd;
  logic [31:0]                     rd_even, rd_odd;
  logic                            word_take;
  assign cmd_word0 = state_word(slot_index[0]);
  assign rd_word   = word_take ? count_q : cmd_word0;
  assign lane_even = 5'((rd_word + 6'd1) >> 1);
  assign lane_odd  = 5'(rd_word >> 1);
  always_comb begin
    for (int unsigned l = 0; l < StateWords / 2; l++) begin
      st_even[l] = st_cur[2*l];
      st_odd[l]  = st_cur[2*l+1];
    end
  end
  assign rd_even = st_even[lane_even];
  assign rd_odd  = st_odd[lane_odd];

  logic [31:0] status_word;
  always_comb begin
    status_word = 32'(sticky_q) << StickyLo;
    status_word[KECCAK_STATUS_BUSY_BIT] = busy;
  end

  // What each action does if run now: its answer, KeccakResultOk when it goes ahead.
  keccak_result_e permute_res, absorb_res;
  always_comb begin
    permute_res = busy ? KeccakResultBusy : KeccakResultOk;
    if (!rate_ok || len_q == '0 || len_q[1:0] != 2'd0 || len_q > KECCAK_MAX_JOB_BYTES) begin
      absorb_res = KeccakResultBadLen;
    end else begin
      absorb_res = permute_res;
    end
  end

  // The answers to a READ and an EXEC of the command's index and the registers its slots address,
  // before the command is taken. CTRL and LEN refuse writes while busy.
  logic        rd_bad, exec_bad, exec_later;
  logic [31:0] rd_data, exec_data;
  always_comb begin
    reg_e kind;
    rd_bad  = 1'b0;
    rd_data = '0;
    kind    = decode_kind({1'b0, cmd_req_i.cmd.index});
    unique case (kind)
      RegState, RegStateXor: rd_data = cmd_word0[0] ? rd_odd : rd_even;
      RegCtrl:               rd_data = 32'(ctrl_q);
      RegStatus:             rd_data = status_word;
      RegLen:                rd_data = len_q;
      RegCmd:                rd_data = '0;  // write-only
      default:               rd_bad = 1'b1;
    endcase

    exec_bad   = 1'b0;
    exec_later = (cmd_req_i.cmd.index == KeccakActionAbsorb) && (absorb_res == KeccakResultOk);
    unique case (cmd_req_i.cmd.index)
      KeccakActionPermute: exec_data = permute_res;
      KeccakActionZeroize: exec_data = KeccakResultOk;
      KeccakActionAbsorb:  exec_data = absorb_res;
      default: begin
        exec_data = '0;
        exec_bad  = 1'b1;
      end
    endcase

    for (int unsigned s = 0; s < 2; s++) begin
      kind          = decode_kind(slot_index[s]);
      slot_bad[s]   = kind == RegNone;
      slot_guard[s] = (kind == RegCtrl) || (kind == RegLen);
    end
  end

  // What a command does once taken: register writes (wr) and actions (the front end's act_req
  // for EXEC and CMD). A refused action only sets its STATUS bit.
  logic                  refuse_busy, bad_len;
  keccak_actions_t       act_req, act;
  logic [StateWords-1:0] cmd_word;  // state words the command writes
  logic                  cmd_set;   // they are STATE words: replaced, not XORed

  always_comb begin
    reg_e kind;

    refuse_busy = 1'b0;
    bad_len     = 1'b0;
    act         = act_req;
    permute_go  = 1'b0;
    zeroize_go  = 1'b0;
    absorb_go   = 1'b0;
    cmd_word    = '0;
    cmd_set     = 1'b0;
    ctrl_d      = ctrl_q;
    len_d       = len_q;

    // STATUS is cleared by the front end; a guarded register written while busy gets no wr.
    for (int unsigned s = 0; s < 2; s++) begin
      kind = decode_kind(slot_index[s]);
      if (wr[s]) begin
        unique case (kind)
          RegState, RegStateXor: begin
            cmd_word[state_word(slot_index[s])] = 1'b1;
            cmd_set = kind == RegState;
          end
          RegCtrl: ctrl_d = keccak_ctrl_reg_t'(slot_data[s][$bits(keccak_ctrl_reg_t)-1:0]);
          RegLen:  len_d = slot_data[s];
          default: ;  // CMD: the front end's act_req
        endcase
      end
    end

    if (act.permute) begin
      if (permute_res == KeccakResultBusy) refuse_busy = 1'b1;
      else                                 permute_go  = 1'b1;
    end
    zeroize_go = act.zeroize;
    if (act.absorb) begin
      unique case (absorb_res)
        KeccakResultBadLen: bad_len     = 1'b1;
        KeccakResultBusy:   refuse_busy = 1'b1;
        default:            absorb_go   = 1'b1;
      endcase
    end
  end

  assign core_start = pend_q || permute_go;

  // ---------------------------------------------------------------- input stream
  // Words are taken whenever no permutation runs and no command that touches the state is taken;
  // with an illegal rate they are dropped (and flagged), so a DMA job never hangs. An abort in
  // the same cycle drops the word.
  logic in_fire, block_end, cmd_state_fire;
  assign cmd_state_fire = cmd_req_i.valid && cmd_ready_o && touches_state;
  assign in_fire        = mem_rsp_i.in_valid && mem_req_o.in_ready;
  assign word_take      = in_fire && rate_ok && !mem_rsp_i.job_abort;
  assign block_end      = count_q == ctrl_q.rate - 6'd1;

  // The write port (ZEROIZE is the engine's clear): the stream's word count_q, XORed; or the
  // command's words, slot 0's data on the bus of its index's parity and slot 1's on the other,
  // XORed unless STATE.
  always_comb begin
    logic [1:0][31:0] data;
    logic             add;
    if (word_take) begin
      wr_word          = '0;
      wr_word[count_q] = 1'b1;
      data             = {2{mem_rsp_i.in_data}};
      add              = 1'b1;
    end else begin
      wr_word = cmd_word;
      data    = cmd_word0[0] ? {slot_data[0], slot_data[1]} : {slot_data[1], slot_data[0]};
      add     = !cmd_set;
    end
    wr_bus = add ? {data[1] ^ rd_odd, data[0] ^ rd_even} : data;
  end

  // ---------------------------------------------------------------- ABSORB
  logic [LenWordBits-1:0] len_words;
  logic [6:0]             mod_next;
  assign len_words = len_q[LenWordBits+1:2];
  always_comb begin
    mod_next = {mod_rem_q, len_words[mod_bit_q]};
    if (mod_next >= {1'b0, ctrl_q.rate}) mod_next = mod_next - {1'b0, ctrl_q.rate};
  end

  // The response register is free here: no command has been taken since ABSORB.
  logic abs_answer, job_offer;
  assign abs_answer = (abs_q == AbsAnswer) && !perm_run;

  // ---------------------------------------------------------------- next state
  always_comb begin
    count_d     = count_q;
    pend_d      = 1'b0;
    sticky_set  = '0;
    abs_d       = abs_q;
    abs_code_d  = abs_code_q;
    mod_bit_d   = mod_bit_q;
    mod_rem_d   = mod_rem_q;
    job_d       = job_q;
    job_offer   = 1'b0;
    late        = 1'b0;

    // Sticky events.
    if (core_done)                        sticky_set[KECCAK_STATUS_DONE_BIT]         = 1'b1;
    if (refuse_busy || wr_refused)        sticky_set[KECCAK_STATUS_REFUSED_BUSY_BIT] = 1'b1;
    if (bad_len || (in_fire && !rate_ok)) sticky_set[KECCAK_STATUS_BAD_LEN_BIT]      = 1'b1;

    // Input stream: XOR word count_q of the block, start the permutation after the last one.
    if (word_take) begin
      if (block_end) begin
        count_d = '0;
        pend_d  = 1'b1;
      end else begin
        count_d = count_q + 6'd1;
      end
    end
    if (zeroize_go || mem_rsp_i.job_abort) count_d = '0;

    // ABSORB: (LEN / 4) mod rate, one bit per cycle from the top; then the job; then the answer
    // once the last block's permutation is over.
    unique case (abs_q)
      AbsIdle: begin
        if (absorb_go) begin
          abs_d      = AbsCheck;
          mod_bit_d  = 5'(LenWordBits - 1);
          mod_rem_d  = '0;
          job_d      = '{src: cmd_req_i.cmd.op_a, dst: 32'd0, in_len: len_q, out_len: 32'd0};
        end
      end
      AbsCheck: begin
        mod_rem_d = mod_next[5:0];
        mod_bit_d = mod_bit_q - 5'd1;
        if (mod_bit_q == 5'd0) begin
          if (mod_next == 7'd0) begin
            abs_d     = AbsJob;
            job_offer = 1'b1;
          end else begin
            abs_d      = AbsAnswer;
            abs_code_d = KeccakResultBadLen;
          end
        end
      end
      AbsJob: begin
        if (job_end) begin
          abs_d      = AbsAnswer;
          abs_code_d = mem_rsp_i.job_err ? KeccakResultBusError : KeccakResultOk;
        end
      end
      AbsAnswer: begin
        if (abs_answer) begin
          abs_d = AbsIdle;
          late  = 1'b1;
          if (abs_code_q == KeccakResultBusError) sticky_set[KECCAK_STATUS_JOB_ERROR_BIT] = 1'b1;
          if (abs_code_q == KeccakResultBadLen)   sticky_set[KECCAK_STATUS_BAD_LEN_BIT]   = 1'b1;
        end
      end
      default: abs_d = AbsIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctrl_q      <= '0;
      len_q       <= '0;
      count_q     <= '0;
      pend_q      <= 1'b0;
      abs_q       <= AbsIdle;
      abs_code_q  <= '0;
      mod_bit_q   <= '0;
      mod_rem_q   <= '0;
      job_q       <= '0;
    end else begin
      ctrl_q      <= ctrl_d;
      len_q       <= len_d;
      count_q     <= count_d;
      pend_q      <= pend_d;
      abs_q       <= abs_d;
      abs_code_q  <= abs_code_d;
      mod_bit_q   <= mod_bit_d;
      mod_rem_q   <= mod_rem_d;
      job_q       <= job_d;
    end
  end

  // The accelerator only absorbs: digests are read from the STATE registers.
  logic unused_out_ready;
  assign unused_out_ready = mem_rsp_i.out_ready;

  assign mem_req_o.job       = job_q;
  assign mem_req_o.in_ready  = !perm_run && !cmd_state_fire;
  assign mem_req_o.out_valid = 1'b0;
  assign mem_req_o.out_data  = '0;

  couplet_accel_frontend #(
    .StickyLo       (StickyLo),
    .StickyHi       (StickyHi),
    .StatusIndex    (IdxStatus),
    .DoneBit        (KECCAK_STATUS_DONE_BIT),
    .NumActions     ($bits(keccak_actions_t)),
    .CmdIndex       (IdxCmd),
    .CmdActions     (KECCAK_CMD_ACTIONS)
  ) u_frontend (
    .clk_i, .rst_ni,
    .cmd_req_i, .cmd_ready_o, .cmd_rsp_o,
    .hold_i((abs_q != AbsIdle) || (perm_run && touches_state)),
    .slot_o(slot), .slot_index_o(slot_index), .slot_data_o(slot_data),
    .slot_bad_i(slot_bad), .slot_guard_i(slot_guard), .busy_i(busy), .wr_o(wr),
    .refused_o(wr_refused), .rd_o(unused_rd_fire), .exec_o(unused_exec_fire),
    .act_o(act_req),
    .rd_data_i(rd_data), .rd_bad_i(rd_bad), .rd_later_i(1'b0),
    .exec_data_i(exec_data), .exec_bad_i(exec_bad), .exec_later_i(exec_later),
    .late_i(late), .late_data_i(abs_code_q),
    .job_valid_o(mem_req_o.job_valid), .job_ready_i(mem_rsp_i.job_ready), .job_i(job_q),
    .job_offer_i(job_offer), .job_done_i(mem_rsp_i.job_done),
    .job_wait_i(abs_q == AbsJob),
    .job_end_o(job_end),
    .irq_o, .irq_enable_i(ctrl_q.irq_enable),
    .sticky_set_i(sticky_set), .sticky_o(sticky_q)
  );

endmodule
