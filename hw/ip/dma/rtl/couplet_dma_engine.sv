// The DMA's mover: runs one job at a time, reading words from memory onto the accelerator's
// input stream and writing words from its output stream to memory (docs/coupling.md).
//
// Bus side. One request register drives the OBI master port, so the port's outputs come from
// flops; the next access is chosen in the cycle the current one is granted, which keeps one
// access per cycle. Responses come back in request order; a small FIFO remembers for each
// outstanding access whether it was a read (its data goes to the input FIFO) or a write.
//
// Reads run ahead: a read is issued only while the input FIFO has a free entry reserved for
// its data (entries held by words in the FIFO, reads in flight and the read being requested
// all count), so responses never find the FIFO full and the bus never waits on the
// accelerator. Words from the output stream go through a short FIFO so that out_ready_o is a
// flop and the stream is decoupled from bus back-pressure.
//
// Choosing between a read and a write: a waiting output word goes first, so the accelerator
// does not stall on output space; but after a write that was chosen over a possible read, the
// next tie goes to the read, so reads get at least every other access and are never starved.
//
// End of a job: when every input word has been handed to the accelerator and every output word
// has been written and acknowledged. A bus error on any response (or abort_i) stops new
// accesses at once, drops the input and output streams (in_valid_o and out_ready_o fall, the
// former possibly without a handshake), waits for the accesses already on the bus to answer,
// and then ends the job with err_o; both FIFOs are emptied so nothing leaks into the next job.
// Address bits 1:0 and length bits 1:0 are ignored.
module couplet_dma_engine
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
#(
  parameter int unsigned InFifoDepth    = 8,
  parameter int unsigned OutFifoDepth   = 2,
  parameter int unsigned MaxOutstanding = 4
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Job control: start_i is taken only while busy_o is low.
  input  logic        start_i,
  input  dma_job_t    job_i,
  input  logic        abort_i,
  output logic        busy_o,
  output logic        done_o,  // one cycle, the last cycle of busy_o
  output logic        err_o,   // with done_o: the job hit a bus error or was aborted

  // OBI master.
  output obi_req_t    m_req_o,
  input  obi_rsp_t    m_rsp_i,

  // Word streams (mirrored accelerator view).
  output logic        in_valid_o,
  input  logic        in_ready_i,
  output logic [31:0] in_data_o,
  input  logic        out_valid_i,
  output logic        out_ready_o,
  input  logic [31:0] out_data_i
);

  localparam int unsigned InCntWidth  = $clog2(InFifoDepth + 1);
  localparam int unsigned OutCntWidth = $clog2(OutFifoDepth + 1);
  localparam int unsigned RspCntWidth = $clog2(MaxOutstanding + 1);

  typedef logic [29:0] word_t;  // a word address or a length in words

  logic  active_q, err_q;
  word_t rd_addr_q, wr_addr_q;
  word_t rd_left_q;   // reads not yet requested
  word_t in_left_q;   // input words not yet handed to the accelerator
  word_t out_left_q;  // output words not yet taken from the accelerator
  logic [InCntWidth-1:0]  reserved_q;  // input FIFO entries promised to words or reads
  logic [RspCntWidth-1:0] pending_q;   // granted accesses without their response
  logic  wr_won_q;    // the last access was a write chosen over a possible read

  logic  req_q, we_q;
  word_t addr_q;
  logic [31:0] wdata_q;

  // ---------------------------------------------------------------- FIFOs
  logic        flush;
  logic        in_push, in_pop, in_empty;
  logic [31:0] in_head;
  logic        out_push, out_pop, out_full, out_empty;
  logic [31:0] out_head;
  logic        rsp_we;

  logic [InCntWidth-1:0]  in_count;
  logic [OutCntWidth-1:0] out_count;
  logic [RspCntWidth-1:0] rsp_count;
  logic                   in_full, rsp_full, rsp_empty;

  logic granted;
  assign granted = req_q && m_rsp_i.gnt;

  couplet_fifo #(
    .Width (32),
    .Depth (InFifoDepth)
  ) u_in_fifo (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .flush_i (flush),
    .push_i  (in_push),
    .data_i  (m_rsp_i.rdata),
    .full_o  (in_full),
    .pop_i   (in_pop),
    .data_o  (in_head),
    .empty_o (in_empty),
    .count_o (in_count)
  );

  couplet_fifo #(
    .Width (32),
    .Depth (OutFifoDepth)
  ) u_out_fifo (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .flush_i (flush),
    .push_i  (out_push),
    .data_i  (out_data_i),
    .full_o  (out_full),
    .pop_i   (out_pop),
    .data_o  (out_head),
    .empty_o (out_empty),
    .count_o (out_count)
  );

  // Not flushed: a job ends only when no access is pending, and then this FIFO is empty.
  couplet_fifo #(
    .Width (1),
    .Depth (MaxOutstanding)
  ) u_rsp_fifo (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .flush_i (1'b0),
    .push_i  (granted),
    .data_i  (we_q),
    .full_o  (rsp_full),
    .pop_i   (m_rsp_i.rvalid),
    .data_o  (rsp_we),
    .empty_o (rsp_empty),
    .count_o (rsp_count)
  );

  // The counts duplicate reserved_q and pending_q, which also count requests not yet granted.
  logic unused_fifo_status;
  assign unused_fifo_status = ^{in_count, out_count, rsp_count, in_full, rsp_full, rsp_empty};

  // ---------------------------------------------------------------- streams
  assign in_push     = m_rsp_i.rvalid && !rsp_we && !m_rsp_i.err && !err_q;
  assign in_valid_o  = active_q && !err_q && !in_empty;
  assign in_data_o   = in_head;
  assign in_pop      = in_valid_o && in_ready_i;

  assign out_ready_o = active_q && !err_q && (out_left_q != '0) && !out_full;
  assign out_push    = out_valid_i && out_ready_o;

  // ---------------------------------------------------------------- choosing the next access
  logic [RspCntWidth:0] pending_next;
  assign pending_next = {1'b0, pending_q} + {{RspCntWidth{1'b0}}, granted}
                        - {{RspCntWidth{1'b0}}, m_rsp_i.rvalid};

  logic can_issue, can_read, can_write, load_read, load_write;
  // Not in the cycle an error response arrives either: the access chosen then would still reach
  // the bus in the next cycle, after the error (couplet prove dma_engine, NoAccessAfterErr).
  assign can_issue  = active_q && !err_q && !abort_i && !(m_rsp_i.rvalid && m_rsp_i.err) &&
                      (!req_q || m_rsp_i.gnt) && (pending_next < (RspCntWidth + 1)'(MaxOutstanding));
  assign can_read   = (rd_left_q != '0) && (reserved_q < InCntWidth'(InFifoDepth));
  assign can_write  = !out_empty;
  assign load_write = can_issue && can_write && (!can_read || !wr_won_q);
  assign load_read  = can_issue && can_read && !load_write;
  assign out_pop    = load_write;

  // ---------------------------------------------------------------- end of job
  logic drained, finish;
  assign drained = !req_q && (pending_q == '0);
  assign finish  = active_q && drained &&
                   (err_q || ((rd_left_q == '0) && (in_left_q == '0) && (out_left_q == '0) &&
                              out_empty));
  assign flush   = finish;

  assign busy_o = active_q;
  assign done_o = finish;
  assign err_o  = err_q;

  // ---------------------------------------------------------------- state
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q   <= 1'b0;
      err_q      <= 1'b0;
      rd_addr_q  <= '0;
      wr_addr_q  <= '0;
      rd_left_q  <= '0;
      in_left_q  <= '0;
      out_left_q <= '0;
      reserved_q <= '0;
      pending_q  <= '0;
      wr_won_q   <= 1'b0;
      req_q      <= 1'b0;
      we_q       <= 1'b0;
      addr_q     <= '0;
      wdata_q    <= '0;
    end else begin
      pending_q <= pending_next[RspCntWidth-1:0];

      if (finish) begin
        active_q   <= 1'b0;
        err_q      <= 1'b0;
        reserved_q <= '0;
      end else if (start_i && !active_q) begin
        active_q   <= 1'b1;
        err_q      <= 1'b0;
        rd_addr_q  <= job_i.src[31:2];
        wr_addr_q  <= job_i.dst[31:2];
        rd_left_q  <= job_i.in_len[31:2];
        in_left_q  <= job_i.in_len[31:2];
        out_left_q <= job_i.out_len[31:2];
        reserved_q <= '0;
        wr_won_q   <= 1'b0;
      end else begin
        if (active_q && ((m_rsp_i.rvalid && m_rsp_i.err) || abort_i)) begin
          err_q <= 1'b1;
        end
        if (load_read) begin
          rd_addr_q <= rd_addr_q + word_t'(1);
          rd_left_q <= rd_left_q - word_t'(1);
        end
        if (load_write) begin
          wr_addr_q <= wr_addr_q + word_t'(1);
        end
        if (load_read || load_write) begin
          wr_won_q <= load_write && can_read;
        end
        if (in_pop) begin
          in_left_q <= in_left_q - word_t'(1);
        end
        if (out_push) begin
          out_left_q <= out_left_q - word_t'(1);
        end
        if (load_read && !in_pop) begin
          reserved_q <= reserved_q + InCntWidth'(1);
        end else if (!load_read && in_pop) begin
          reserved_q <= reserved_q - InCntWidth'(1);
        end
      end

      if (load_read || load_write) begin
        req_q   <= 1'b1;
        we_q    <= load_write;
        addr_q  <= load_write ? wr_addr_q : rd_addr_q;
        wdata_q <= load_write ? out_head : '0;
      end else if (m_rsp_i.gnt) begin
        req_q <= 1'b0;
      end
    end
  end

  // Whole words only, and no atomics.
  assign m_req_o = '{req:   req_q,
                     addr:  {addr_q, 2'b00},
                     we:    we_q,
                     be:    4'hF,
                     wdata: wdata_q,
                     atop:  6'h0};
  logic unused_exokay;
  assign unused_exokay = m_rsp_i.exokay;

`ifndef SYNTHESIS
  // OBI: a request stays, unchanged, until it is granted.
  couplet_handshake_assert #(.T(obi_req_t)) u_bus_assert (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (m_req_o.req),
    .ready_i (m_rsp_i.gnt),
    .data_i  (m_req_o)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      // OBI answers only granted accesses; the response FIFO relies on it.
      NoResponseWithoutAccess: assert (!m_rsp_i.rvalid || pending_q != '0);
      PendingInRange: assert (pending_q <= RspCntWidth'(MaxOutstanding));
      // Every input word in the FIFO holds a reservation, so a read response finds room.
      ReservedInRange: assert (reserved_q <= InCntWidth'(InFifoDepth) && in_count <= reserved_q);
      NoAccessWithoutJob: assert (!(load_read || load_write) || active_q);
    end
  end
`endif

endmodule
