// Message queues of couplet_rtos (hw/ip/rtos/README.md "State", "Messages"): the queue table
// (in use, message size, depth, read place, count), the message ring, the queue actions and the
// copy engine. A send to a queue whose receiver already waits skips the ring: the copy engine
// writes the message to the receiver's buffer through a DMA job (the out word stream), in the
// background, one word per cycle when the DMA takes it.
module couplet_rtos_queue
  import couplet_accel_pkg::*;
  import couplet_rtos_pkg::*;
  import rtos_reg_pkg::*;
#(
  parameter int unsigned NumQueue   = 4,
  parameter int unsigned MsgWords   = 16,
  parameter int unsigned QueueDepth = 4
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  input  logic                      exec_i,        // a queue action runs
  input  rtos_call_t                call_i,
  input  rtos_waiters_t             waiters_i,     // of the queue in call_i.a
  input  logic [31:2]               waiter_ptr_i,  // receive buffer of waiters_i.best
  input  rtos_code_e                block_st_i,
  input  logic [MsgWords-1:0][31:0] msg_i,         // the staging buffer MSG
  input  logic                      status_rd_i,   // STATUS is read: clears the copy error

  output rtos_outcome_t             res_o,
  output logic [MsgWords-1:0]       msg_we_o,      // a receive writes these MSG words
  output logic [MsgWords-1:0][31:0] msg_o,
  output logic                      copy_busy_o,
  output logic                      copy_err_o,

  output logic                      job_valid_o,
  input  logic                      job_ready_i,
  output dma_job_t                  job_o,
  input  logic                      job_done_i,
  input  logic                      job_err_i,
  input  logic                      dma_abort_i,
  output logic                      out_valid_o,
  input  logic                      out_ready_i,
  output logic [31:0]               out_data_o
);

  localparam int unsigned QIdW    = (NumQueue > 1) ? $clog2(NumQueue) : 1;
  localparam int unsigned NumSlot = NumQueue * QueueDepth;
  localparam int unsigned SlotW   = (NumSlot > 1) ? $clog2(NumSlot) : 1;
  localparam int unsigned WordW   = (MsgWords > 1) ? $clog2(MsgWords) : 1;

  typedef logic [MsgWords-1:0][31:0] msg_t;

  logic [4:0] words_q [NumQueue];
  logic [4:0] words_d [NumQueue];
  logic [3:0] depth_q [NumQueue];
  logic [3:0] depth_d [NumQueue];
  logic [2:0] rd_q    [NumQueue];
  logic [2:0] rd_d    [NumQueue];
  logic [3:0] count_q [NumQueue];
  logic [3:0] count_d [NumQueue];

  // The message ring: one message-wide write per cycle, by slot (queue * QueueDepth + place),
  // so that it maps onto a memory. It needs no reset: a slot is read only after a store.
  msg_t             ring_q [NumSlot];
  logic             ring_we;
  logic [SlotW-1:0] ring_waddr;

  // Copy engine.
  logic             copy_go;     // start a message copy to waiter_ptr_i
  logic             copy_busy_q, copy_busy_d;
  logic             copy_err_q, copy_err_d;
  msg_t             copy_buf_q, copy_buf_d;
  logic [4:0]       copy_words_q, copy_words_d;
  logic [4:0]       copy_idx_q, copy_idx_d;
  logic             job_valid_q, job_valid_d;
  dma_job_t         job_q, job_d;

  // The queue table; a queue with waiters cannot be freed.
  logic            is_alloc;
  logic [QIdW-1:0] a_qid, free_q;
  rtos_code_e      pre_st;
  assign is_alloc = call_i.act == RtosActionQueueAlloc;

  // Which entries are in use matters here only through the table's checks; the thread manager
  // wakes the best waiter, this unit needs to know only whether there is one.
  logic [NumQueue-1:0] unused_in_use;
  logic              unused_best;
  assign unused_best = ^waiters_i.best;

  couplet_rtos_alloc #(.N(NumQueue)) u_table (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .exec_i    (exec_i),
    .id_i      (call_i.a),
    .need_id_i (!is_alloc),
    .alloc_i   (is_alloc),
    .bad_i     (call_i.a == 32'd0 || call_i.a > 32'(MsgWords) || call_i.b == 32'd0 ||
                call_i.b > 32'(QueueDepth)),
    .release_i (call_i.act == RtosActionQueueFree),
    .busy_i    (waiters_i.any),
    .status_o  (pre_st),
    .used_o    (unused_in_use),
    .id_o      (a_qid),
    .free_o    (free_q)
  );

  // The queue's ring slots: the one a send stores into (the tail), the one a receive takes (rd)
  // and the one a FRONT send stores into (before rd, which becomes the new rd).
  logic [SlotW-1:0] slot_wr, slot_rd, slot_fr;
  logic [2:0]       rd_next, rd_prev;
  always_comb begin
    logic [3:0] place;
    logic [3:0] depth;
    depth   = depth_q[a_qid];
    place   = 4'(rd_q[a_qid]) + count_q[a_qid];
    if (place >= depth) place = place - depth;
    rd_next = (4'(rd_q[a_qid]) + 4'd1 >= depth) ? 3'd0 : rd_q[a_qid] + 3'd1;
    rd_prev = (rd_q[a_qid] == 3'd0) ? 3'(depth - 4'd1) : rd_q[a_qid] - 3'd1;
    slot_wr = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(place));
    slot_rd = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(rd_q[a_qid]));
    slot_fr = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(rd_prev));
  end

  always_comb begin
    logic [3:0] count;
    count      = count_q[a_qid];
    words_d    = words_q;
    depth_d    = depth_q;
    rd_d       = rd_q;
    count_d    = count_q;
    ring_we    = 1'b0;
    ring_waddr = slot_wr;
    msg_we_o   = '0;
    copy_go    = 1'b0;
    res_o      = OutcomeNone;

    res_o.status = pre_st;
    if (exec_i && pre_st == RtosCodeOk) begin
      unique case (call_i.act)
        RtosActionQueueAlloc: begin
          words_d[free_q] = call_i.a[4:0];
          depth_d[free_q] = call_i.b[3:0];
          rd_d[free_q]    = '0;
          count_d[free_q] = '0;
          res_o.tid       = 8'(free_q);
        end
        RtosActionQueueSend: begin
          res_o.value = 16'(count);
          if (copy_busy_q) begin
            res_o.status = RtosCodeBusy;
          end else if (waiters_i.any) begin
            copy_go    = 1'b1;
            res_o.wake = 1'b1;
          end else if (count < depth_q[a_qid]) begin
            ring_we = 1'b1;
            // FRONT (b bit 1): the message becomes the next one received.
            if (call_i.b[1]) begin
              ring_waddr   = slot_fr;
              rd_d[a_qid] = rd_prev;
            end
            count_d[a_qid] = count + 4'd1;
            res_o.value    = 16'(count + 4'd1);
          end else begin
            res_o = wait_or(res_o, call_i.b[0], RtosCodeQueueFull, block_st_i,
                            RtosWaitKindQueueSend, 3'(a_qid));
          end
        end
        RtosActionQueueRecv: begin
          res_o.value = 16'(count);
          if (copy_busy_q) begin
            res_o.status = RtosCodeBusy;
          end else if (count != 4'd0) begin
            for (int unsigned i = 0; i < MsgWords; i++) msg_we_o[i] = 5'(i) < words_q[a_qid];
            // PEEK (b bit 1) leaves the message stored, so no sender gains a place.
            if (!call_i.b[1]) begin
              rd_d[a_qid]    = rd_next;
              count_d[a_qid] = count - 4'd1;
              res_o.value    = 16'(count - 4'd1);
              res_o.wake     = waiters_i.any;
            end
          end else begin
            res_o = wait_or(res_o, call_i.b[0], RtosCodeQueueEmpty, block_st_i,
                            RtosWaitKindQueueRecv, 3'(a_qid));
          end
        end
        RtosActionQueueInfo: begin
          res_o.value = 16'(count);
          res_o.tid   = 8'(waiters_i.cnt);
        end
        RtosActionQueueReset: begin
          // A copy in flight does not matter: its message was never stored in the ring. One
          // sender is woken (FreeRTOS's xQueueReset); receivers keep waiting on the empty queue.
          rd_d[a_qid]    = '0;
          count_d[a_qid] = '0;
          res_o.wake     = waiters_i.any;
        end
        default: ;
      endcase
    end
  end
  assign msg_o = ring_q[slot_rd];

  // ---------------------------------------------------------------- copy engine
  // SEND snapshots the staging buffer, so MSG may be rewritten while the copy runs. The words
  // are offered only once the DMA has taken the job. An abort before that belongs to another
  // job and is ignored.
  logic out_fire, copy_end;
  assign out_valid_o = copy_busy_q && !job_valid_q && copy_idx_q < copy_words_q;
  assign out_data_o  = copy_buf_q[copy_idx_q[WordW-1:0]];
  assign out_fire    = out_valid_o && out_ready_i;
  assign copy_end    = copy_busy_q && !job_valid_q && (job_done_i || dma_abort_i);

  always_comb begin
    copy_busy_d  = copy_busy_q;
    copy_err_d   = copy_err_q && !status_rd_i;
    copy_buf_d   = copy_buf_q;
    copy_words_d = copy_words_q;
    copy_idx_d   = copy_idx_q;
    job_valid_d  = job_valid_q && !job_ready_i;
    job_d        = job_q;
    if (out_fire) copy_idx_d = copy_idx_q + 5'd1;
    if (copy_end) begin
      copy_busy_d = 1'b0;
      if (dma_abort_i || job_err_i) copy_err_d = 1'b1;
    end
    if (copy_go) begin
      copy_busy_d  = 1'b1;
      copy_err_d   = 1'b0;
      copy_buf_d   = msg_i;
      copy_words_d = words_q[a_qid];
      copy_idx_d   = '0;
      job_valid_d  = 1'b1;
      job_d        = '{src:     32'd0,
                       dst:     {waiter_ptr_i, 2'b00},
                       in_len:  32'd0,
                       out_len: {25'd0, words_q[a_qid], 2'b00}};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned q = 0; q < NumQueue; q++) begin
        words_q[q] <= '0;
        depth_q[q] <= '0;
        rd_q[q]    <= '0;
        count_q[q] <= '0;
      end
      copy_busy_q  <= 1'b0;
      copy_err_q   <= 1'b0;
      copy_buf_q   <= '0;
      copy_words_q <= '0;
      copy_idx_q   <= '0;
      job_valid_q  <= 1'b0;
      job_q        <= '0;
    end else begin
      words_q      <= words_d;
      depth_q      <= depth_d;
      rd_q         <= rd_d;
      count_q      <= count_d;
      copy_busy_q  <= copy_busy_d;
      copy_err_q   <= copy_err_d;
      copy_buf_q   <= copy_buf_d;
      copy_words_q <= copy_words_d;
      copy_idx_q   <= copy_idx_d;
      job_valid_q  <= job_valid_d;
      job_q        <= job_d;
    end
  end

  // The message ring is a memory: written by slot, never reset.
  always_ff @(posedge clk_i) begin
    if (ring_we) ring_q[ring_waddr] <= msg_i;
  end

  assign copy_busy_o = copy_busy_q;
  assign copy_err_o  = copy_err_q;
  assign job_valid_o = job_valid_q;
  assign job_o       = job_q;

`ifndef SYNTHESIS
  // A queue holds at most its depth and reads within it; a job is offered only while its copy
  // runs, and the copy offers no more words than the message has.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      for (int unsigned q = 0; q < NumQueue; q++) begin
        CountWithinDepth: assert (count_q[q] <= depth_q[q]);
        ReadWithinDepth: assert (4'(rd_q[q]) < depth_q[q] || rd_q[q] == '0);
      end
      JobOfACopy: assert (!job_valid_q || copy_busy_q);
      CopyWithinWords: assert (copy_idx_q <= copy_words_q);
    end
  end
`endif

endmodule
