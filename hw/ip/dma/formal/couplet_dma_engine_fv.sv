// Formal harness of couplet_dma_engine (issue 21; docs/formal.md): the DMA's mover, one job at a
// time, on an OBI master port and two word streams.
//
// Every input of the engine is an input of this module, free for the solver; the OBI slave is
// only constrained to follow OBI (a response only for an accepted access, one per access, never
// in the cycle of the acceptance; order needs no constraint here because the slave is seen as one
// count, and the engine routes responses by its own record). The checks are immediate
// assertions on the ports, plus helper invariants on the engine's registers (hierarchical
// references, labelled Inv*) that make k-induction close; each is a property the engine keeps.
//
// Three checks, one per value of Live (the `params` of each entry in proofs.toml):
// - dma_engine (Live = 0): safety, any lengths, any environment. Proven by
//   k-induction. Addresses are compared in words modulo 2^30, i.e. byte addresses modulo 2^32:
//   the engine ignores address and length bits 1:0 and wraps at 2^32 (hw/ip/dma/README.md), so a
//   job whose src + in_len passes 2^32 reads src .. 0xFFFF_FFFC and then 0, 4, ...; the window
//   [src, src + len) is taken modulo 2^32 accordingly and proven for every length, wrapping or
//   not.
// - dma_engine_err (Live = 1): a bus error never hangs a job. The slave grants within
//   GntWait cycles and answers within RspWait cycles (nothing is assumed of the accelerator);
//   then any job, of any length, that sees an error response or an abort ends (with err_o, by
//   ErrFlagExact) within ErrBound cycles. Proven by k-induction, with the invariants.
// - dma_engine_bound (Live = 2): every job completes. The slave as above, and the
//   accelerator takes an input word and offers an output word within StreamWait cycles; then a
//   job of at most MaxWords words each way ends within JobBound busy cycles. A bounded run (the
//   induction does not close): every job starts from the same idle state (InvIdle, proven: no
//   access pending, FIFOs empty, no error), so a job started right after reset, which the run
//   covers whole, is as long as any.
// The bounds are the least that hold: ErrBound - 1 and JobBound - 1 fail (reachable traces).
//
// Mutants (one define each): the harness plants a bug between the engine and the checks.
//   FV_MUTANT_SHIFT_ADDR: the checks see the last read of a job one word higher, just past the
//     window (ReadInWindow, ReadSequential).
//   FV_MUTANT_SHIFT_WADDR: the same for the last write (WriteInWindow, WriteSequential).
//   FV_MUTANT_HIDE_ERR: the engine does not see the err of one error response
//     (StreamsDroppedAfterErr and InvErrSeen at step 5; ErrFlagExact when the job ends).
//   FV_MUTANT_DROP_RSP: the engine does not see one response (InvPendingIsSlaves; in the live
//     top, which has no Inv* checks, StreamsDroppedAfterErr at step 5: the lost response was an
//     error).
module couplet_dma_engine_fv
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
#(
  parameter int unsigned Live = 0  // 0: safety; 1: + slave bounds, ErrBound; 2: + stream bounds, JobBound
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  dma_job_t    job_i,
  input  logic        abort_i,
  input  obi_rsp_t    m_rsp_i,     // the OBI slave
  input  logic        in_ready_i,  // the accelerator
  input  logic        out_valid_i,
  input  logic [31:0] out_data_i,
  input  logic        mut_i        // where a mutant strikes (unused without one)
);

  localparam int unsigned InFifoDepth    = 8;  // the engine's defaults
  localparam int unsigned OutFifoDepth   = 2;
  localparam int unsigned MaxOutstanding = 4;

  // Environment bounds (Live >= 1) and the bounds proven under them.
  localparam int unsigned GntWait    = 2;  // a request is granted at the latest in its 2nd cycle
  localparam int unsigned RspWait    = 2;  // a pending access is answered at least every 2 cycles
  localparam int unsigned StreamWait = 2;  // in_ready / out_valid within 2 cycles of being wanted
  localparam int unsigned MaxWords   = 3;  // JobBound holds for jobs of up to 3 words each way
  localparam int unsigned JobBound   = 16; // done_o by the job's 16th busy cycle (15 fails: reached)
  localparam int unsigned ErrBound   = 10; // done_o at the latest 9 cycles after the error (9 fails)

  typedef logic [29:0] word_t;

  // ---------------------------------------------------------------- reset
  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));
  logic unused_init;
  assign unused_init = init_q;  // the checks here start with rst_ni itself

  // ---------------------------------------------------------------- mutants
  // rsp_dut is what the engine sees; the checks and the slave model see m_rsp_i.
  obi_rsp_t rsp_dut;
  logic     mutated_q;  // the one-shot mutant has struck
  logic     strike;
  always_comb begin
    rsp_dut = m_rsp_i;
    strike  = 1'b0;
`ifdef FV_MUTANT_HIDE_ERR
    strike = mut_i && !mutated_q && m_rsp_i.rvalid && m_rsp_i.err;
    if (strike) rsp_dut.err = 1'b0;
`endif
`ifdef FV_MUTANT_DROP_RSP
    strike = mut_i && !mutated_q && m_rsp_i.rvalid;
    if (strike) rsp_dut.rvalid = 1'b0;
`endif
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) mutated_q <= 1'b0;
    else if (strike) mutated_q <= 1'b1;
  end

  // ---------------------------------------------------------------- the DUT
  obi_req_t    m_req;
  logic        busy, done, err, in_valid, out_ready;
  logic [31:0] in_data;

  couplet_dma_engine #(
    .InFifoDepth    (InFifoDepth),
    .OutFifoDepth   (OutFifoDepth),
    .MaxOutstanding (MaxOutstanding)
  ) dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (start_i),
    .job_i       (job_i),
    .abort_i     (abort_i),
    .busy_o      (busy),
    .done_o      (done),
    .err_o       (err),
    .m_req_o     (m_req),
    .m_rsp_i     (rsp_dut),
    .in_valid_o  (in_valid),
    .in_ready_i  (in_ready_i),
    .in_data_o   (in_data),
    .out_valid_i (out_valid_i),
    .out_ready_o (out_ready),
    .out_data_i  (out_data_i)
  );

  logic unused;
  assign unused = ^{in_data, m_rsp_i.rdata, m_rsp_i.exokay, mut_i, mutated_q};

  // ---------------------------------------------------------------- the job being served
  logic  taken, granted, rd_granted, wr_granted;
  assign taken      = start_i && !busy;  // start_i is taken only while busy_o is low
  assign granted    = m_req.req && m_rsp_i.gnt;
  assign rd_granted = granted && !m_req.we;
  assign wr_granted = granted && m_req.we;

  word_t src_q, dst_q, inl_q, outl_q;   // the job's fields, in words
  word_t rd_gnt_q, wr_gnt_q;            // its reads and writes granted so far
  logic  err_seen_q;                    // an error response in this job, before this cycle
  logic  abort_seen_q;                  // an abort while busy, before this cycle
  logic [7:0] slave_cnt_q;              // accesses granted and not yet answered (the slave's view)

  logic  err_now;
  assign err_now = busy && m_rsp_i.rvalid && m_rsp_i.err;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      src_q        <= '0;
      dst_q        <= '0;
      inl_q        <= '0;
      outl_q       <= '0;
      rd_gnt_q     <= '0;
      wr_gnt_q     <= '0;
      err_seen_q   <= 1'b0;
      abort_seen_q <= 1'b0;
      slave_cnt_q  <= '0;
    end else begin
      slave_cnt_q <= slave_cnt_q + 8'(granted) - 8'(m_rsp_i.rvalid);
      if (taken) begin
        src_q        <= job_i.src[31:2];
        dst_q        <= job_i.dst[31:2];
        inl_q        <= job_i.in_len[31:2];
        outl_q       <= job_i.out_len[31:2];
        rd_gnt_q     <= '0;
        wr_gnt_q     <= '0;
        err_seen_q   <= 1'b0;
        abort_seen_q <= 1'b0;
      end else begin
        rd_gnt_q     <= rd_gnt_q + word_t'(rd_granted);
        wr_gnt_q     <= wr_gnt_q + word_t'(wr_granted);
        err_seen_q   <= err_seen_q || err_now;
        abort_seen_q <= abort_seen_q || (busy && abort_i);
      end
    end
  end

  // ---------------------------------------------------------------- OBI slave (environment)
  always_comb begin
    if (rst_ni) begin
      // Rule 3: a response only for an access accepted in an earlier cycle.
      SlaveRspOnlyForAccess: assume (!m_rsp_i.rvalid || slave_cnt_q != '0);
    end
  end

  // ---------------------------------------------------------------- the OBI master's rules
  logic     req_prev_q, gnt_prev_q;
  obi_req_t req_val_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      req_prev_q <= 1'b0;
      gnt_prev_q <= 1'b0;
      req_val_q  <= '0;
    end else begin
      req_prev_q <= m_req.req;
      gnt_prev_q <= m_rsp_i.gnt;
      req_val_q  <= m_req;
    end
  end

  logic new_req;  // a request shown for the first time in this cycle
  assign new_req = m_req.req && (!req_prev_q || gnt_prev_q);

  // The address the checks see.
  logic [31:0] chk_addr;
  always_comb begin
    chk_addr = m_req.addr;
`ifdef FV_MUTANT_SHIFT_ADDR
    // The last read of the job, one word higher: just past the window.
    if (!m_req.we && rd_gnt_q + word_t'(1) == inl_q) chk_addr = m_req.addr + 32'd4;
`endif
`ifdef FV_MUTANT_SHIFT_WADDR
    // The last write of the job, one word higher: just past the window.
    if (m_req.we && wr_gnt_q + word_t'(1) == outl_q) chk_addr = m_req.addr + 32'd4;
`endif
  end

  logic [29:0] rd_off, wr_off;  // word offset of the access from the window's start, mod 2^30
  assign rd_off = chk_addr[31:2] - src_q;
  assign wr_off = chk_addr[31:2] - dst_q;

  always_comb begin
    if (rst_ni) begin
      // OBI rule 1: a request stays, unchanged, until granted.
      ReqHeldUntilGnt: assert (!(req_prev_q && !gnt_prev_q) || (m_req == req_val_q));
      // Whole words, no atomics (OBI rule 5).
      WholeWordsNoAtomics: assert (!m_req.req || (chk_addr[1:0] == 2'b00 && m_req.be == 4'hF &&
                                                  m_req.atop == 6'h0));
      // No access outside a job.
      ReqOnlyInJob: assert (!m_req.req || busy);
      // Reads only inside [src, src + in_len) (modulo 2^32).
      ReadInWindow: assert (!(m_req.req && !m_req.we) || rd_off < inl_q);
      // Writes only inside [dst, dst + out_len) (modulo 2^32).
      WriteInWindow: assert (!(m_req.req && m_req.we) || wr_off < outl_q);
      // Reads go up word by word from src: the n-th read of the job reads src + 4n.
      ReadSequential: assert (!(m_req.req && !m_req.we) || rd_off == rd_gnt_q);
      // Writes likewise from dst.
      WriteSequential: assert (!(m_req.req && m_req.we) || wr_off == wr_gnt_q);
      // At most MaxOutstanding accesses on the bus, the one requested included.
      OutstandingBound: assert (slave_cnt_q + 8'(m_req.req) <= 8'(MaxOutstanding));
      // After an error response (from the cycle after it) or an abort (from its cycle), no new
      // access is requested. (This check found that the engine chose an access in the very cycle
      // an error response arrived and requested it in the next; can_issue now looks at it.)
      NoAccessAfterErr: assert (!new_req || !(err_seen_q || abort_seen_q));
      // A job ends only with nothing on the bus.
      DoneOnlyDrained: assert (!done || (!m_req.req && slave_cnt_q == '0));
      // done_o carries err_o exactly when the job saw an error response or an abort before.
      ErrFlagExact: assert (!done || (err == (err_seen_q || abort_seen_q)));
      // A job that ends without error made every read and every write of its job, no more.
      CleanJobComplete: assert (!(done && !err) || (rd_gnt_q == inl_q && wr_gnt_q == outl_q));
      // done_o only while busy (its last cycle); the streams only in a job.
      DoneInJob: assert (!done || busy);
      StreamsOnlyInJob: assert (busy || (!in_valid && !out_ready));
      // After an error or an abort the streams are dropped.
      StreamsDroppedAfterErr: assert (!(err_seen_q || abort_seen_q) || (!in_valid && !out_ready));
    end
  end

  // ---------------------------------------------------------------- invariants (induction)
  // Relations among the engine's registers that every reachable state keeps; the window and
  // sequence properties above follow from them.
  word_t out_cnt_w;
  assign out_cnt_w = word_t'(dut.out_count);
  logic [30:0] out_used;  // output words taken from the accelerator, as the lengths say
  assign out_used = {1'b0, outl_q} - {1'b0, dut.out_left_q};

  // Not in the live top: a bounded run needs no invariants, and its mutant is then caught by the
  // bound itself.
  always_comb begin
    if (rst_ni && Live != 2) begin
      InvIdle: assert (busy || (!dut.req_q && dut.pending_q == '0 && dut.in_count == '0 &&
                                dut.out_count == '0 && !dut.err_q && dut.reserved_q == '0));
      InvPendingIsSlaves: assert (8'(dut.pending_q) == slave_cnt_q);
      InvRspFifo: assert (dut.rsp_count == dut.pending_q);
      InvOutCount: assert (dut.out_count <= 2'(OutFifoDepth));
      InvInCount: assert (dut.in_count <= 4'(InFifoDepth));
      InvErrSeen: assert (dut.err_q == (busy && (err_seen_q || abort_seen_q)));
      if (busy) begin
        InvRdLeft: assert (dut.rd_left_q <= inl_q);
        InvRdAddr: assert (dut.rd_addr_q == src_q + (inl_q - dut.rd_left_q));
        InvRdGnt: assert (rd_gnt_q == inl_q - dut.rd_left_q - word_t'(dut.req_q && !dut.we_q));
        InvOutLeft: assert (out_used <= {1'b0, outl_q} && out_used >= 31'(dut.out_count));
        InvWrAddr: assert (dut.wr_addr_q == dst_q + word_t'(out_used) - out_cnt_w);
        InvWrGnt: assert (wr_gnt_q == word_t'(out_used) - out_cnt_w -
                                      word_t'(dut.req_q && dut.we_q));
        InvReqAddr: assert (!dut.req_q || dut.addr_q == (dut.we_q ? dut.wr_addr_q : dut.rd_addr_q)
                                                        - word_t'(1));
      end
    end
  end

  // ---------------------------------------------------------------- bounds (Live >= 1)
  if (Live != 0) begin : gen_live
    logic [7:0] gnt_wait_q, rsp_wait_q, in_wait_q, out_wait_q, busy_cnt_q, err_cnt_q;
    logic       small_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        gnt_wait_q <= '0;
        rsp_wait_q <= '0;
        in_wait_q  <= '0;
        out_wait_q <= '0;
        busy_cnt_q <= '0;
        err_cnt_q  <= '0;
        small_q    <= 1'b0;
      end else begin
        gnt_wait_q <= (m_req.req && !m_rsp_i.gnt) ? gnt_wait_q + 8'd1 : '0;
        rsp_wait_q <= (slave_cnt_q != '0 && !m_rsp_i.rvalid) ? rsp_wait_q + 8'd1 : '0;
        in_wait_q  <= (in_valid && !in_ready_i) ? in_wait_q + 8'd1 : '0;
        out_wait_q <= (out_ready && !out_valid_i) ? out_wait_q + 8'd1 : '0;
        if (taken) begin
          small_q <= job_i.in_len[31:2] <= word_t'(MaxWords) &&
                     job_i.out_len[31:2] <= word_t'(MaxWords);
        end
        // Saturating counts: busy cycles of the job, cycles since its first error or abort.
        if (!busy || done)           busy_cnt_q <= '0;
        else if (busy_cnt_q != '1)   busy_cnt_q <= busy_cnt_q + 8'd1;
        if (!busy || done)           err_cnt_q <= '0;
        else if (err_cnt_q != '0 || err_now || abort_i) begin
          if (err_cnt_q != '1)       err_cnt_q <= err_cnt_q + 8'd1;
        end
      end
    end

    always_comb begin
      if (rst_ni) begin
        // The slave grants a request at the latest in its GntWait-th cycle.
        GntWithin: assume (!(m_req.req && gnt_wait_q >= 8'(GntWait - 1)) || m_rsp_i.gnt);
        // While accesses are pending, the slave answers one at least every RspWait cycles.
        RspWithin: assume (!(slave_cnt_q != '0 && rsp_wait_q >= 8'(RspWait - 1)) ||
                           m_rsp_i.rvalid);
        // Any job ends, with err_o, within ErrBound cycles of an error response or an abort.
        ErrBoundHolds: assert (!busy || err_cnt_q < 8'(ErrBound));
      end
    end

    if (Live == 2) begin : gen_streams
      always_comb begin
        if (rst_ni) begin
          // The accelerator takes an input word and offers an output word within StreamWait.
          InReadyWithin: assume (!(in_valid && in_wait_q >= 8'(StreamWait - 1)) || in_ready_i);
          OutValidWithin: assume (!(out_ready && out_wait_q >= 8'(StreamWait - 1)) ||
                                  out_valid_i);
          // A job of at most MaxWords words each way ends within JobBound busy cycles.
          JobBoundHolds: assert (!(busy && small_q) || busy_cnt_q < 8'(JobBound));
        end
      end
    end else begin : gen_no_streams
      logic unused_stream_counts;
      assign unused_stream_counts = ^{in_wait_q, out_wait_q, busy_cnt_q, small_q};
    end
  end

endmodule
