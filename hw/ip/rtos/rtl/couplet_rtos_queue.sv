// Message queues of couplet_rtos (hw/ip/rtos/README.md "State", "Messages"): the queue table
// (in use, message size, depth, read place, count), the message ring, the queue actions and the
// copy engine. A send to a queue whose receiver already waits does not store the message
// (HANDOFF 1): the copy engine writes it to the receiver's buffer through a DMA job (the out word
// stream), in the background, one word per cycle when the DMA takes it. With HANDOFF 0 the send
// stores it and wakes that receiver to receive it.
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
  input  logic                      handoff_i,     // a send hands its message to a receiver
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

  // The engine's memory side: jobs that write messages (out stream), no input.
  output accel_mem_req_t            mem_req_o,
  input  accel_mem_rsp_t            mem_rsp_i
);

  localparam int unsigned QIdW    = (NumQueue > 1) ? $clog2(NumQueue) : 1;
  localparam int unsigned NumSlot = NumQueue * QueueDepth;
  localparam int unsigned SlotW   = (NumSlot > 1) ? $clog2(NumSlot) : 1;
  localparam int unsigned WordW   = (MsgWords > 1) ? $clog2(MsgWords) : 1;

  typedef logic [MsgWords-1:0][31:0] msg_t;

  typedef struct packed {
    logic [4:0] words;  // message size
    logic [3:0] depth;
    logic [2:0] rd;     // the place a receive takes
    logic [3:0] count;
  } queue_t;
  queue_t tab_q [NumQueue];
  queue_t tab_d [NumQueue];
  queue_t qa;  // the queue in a

  // The message ring: one message-wide write per cycle, by slot (queue * QueueDepth + place),
  // so that it maps onto a memory. It needs no reset: a slot is read only after a store.
  msg_t             ring_q [NumSlot];
  logic             ring_we;
  logic [SlotW-1:0] ring_waddr;

  // Copy engine: the ring slot holding the message (a snapshot of MSG), how many of its words
  // went out, and the job.
  typedef struct packed {
    logic             busy;
    logic             err;
    logic [SlotW-1:0] slot;
    logic [4:0]       words;
    logic [4:0]       idx;
    logic             job_valid;
    dma_job_t         job;
  } copy_t;
  logic  copy_go;  // start a message copy to waiter_ptr_i
  copy_t copy_q, copy_d;

  // Which entries are in use matters here only through the table's checks; the thread manager
  // wakes the best waiter, this unit needs to know only whether there is one.
  logic [NumQueue-1:0] unused_in_use;
  logic                unused_best;
  assign unused_best = ^waiters_i.best;

  // The queue table. A queue with waiters cannot be freed; SEND and RECV wait for a copy in
  // flight (README "BUSY during a copy"); the other actions do not touch it.
  logic            busy;
  logic [QIdW-1:0] a_qid, free_qid;
  rtos_code_e      pre_st;
  always_comb begin
    unique case (call_i.act)
      RtosActionQueueFree:                      busy = waiters_i.any;
      RtosActionQueueSend, RtosActionQueueRecv: busy = copy_q.busy;
      default:                                  busy = 1'b0;
    endcase
  end

  couplet_rtos_alloc #(.N(NumQueue), .AllocAct(RtosActionQueueAlloc), .FreeAct(RtosActionQueueFree)) u_table (
    .clk_i, .rst_ni, .exec_i, .call_i, .need_id_i(1'b1),
    .bad_i(call_i.a == 32'd0 || call_i.a > 32'(MsgWords) || call_i.b == 32'd0 ||
           call_i.b > 32'(QueueDepth)),
    .busy_i(busy), .status_o(pre_st), .used_o(unused_in_use), .id_o(a_qid), .free_o(free_qid)
  );
  assign qa = tab_q[a_qid];

  // The queue's ring slots: the one a send stores into (the tail), the one a receive takes (rd)
  // and the one a FRONT send stores into (before rd, which becomes the new rd).
  logic [SlotW-1:0] slot_wr, slot_rd, slot_fr;
  logic [2:0]       rd_next, rd_prev;
  always_comb begin
    logic [3:0] place;
    place   = 4'(qa.rd) + qa.count;
    if (place >= qa.depth) place = place - qa.depth;
    rd_next = (4'(qa.rd) + 4'd1 >= qa.depth) ? 3'd0 : qa.rd + 3'd1;
    rd_prev = (qa.rd == 3'd0) ? 3'(qa.depth - 4'd1) : qa.rd - 3'd1;
    slot_wr = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(place));
    slot_rd = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(qa.rd));
    slot_fr = SlotW'(int'(a_qid) * int'(QueueDepth) + int'(rd_prev));
  end

  always_comb begin
    tab_d        = tab_q;
    ring_we    = 1'b0;
    ring_waddr = slot_wr;
    msg_we_o   = '0;
    copy_go    = 1'b0;
    res_o      = OutcomeNone;

    res_o.status = pre_st;
    // SEND, RECV and INFO report the count whenever the id is valid, whatever the status.
    if (pre_st != RtosCodeNoId && call_i.act inside {RtosActionQueueSend, RtosActionQueueRecv,
                                                     RtosActionQueueInfo}) begin
      res_o.value = 16'(qa.count);
    end
    if (exec_i && pre_st == RtosCodeOk) begin
      unique case (call_i.act)
        RtosActionQueueAlloc: begin
          tab_d[free_qid] = '{words: call_i.a[4:0], depth: call_i.b[3:0], rd: '0, count: '0};
          res_o.tid   = 8'(free_qid);
        end
        RtosActionQueueSend: begin
          if (waiters_i.any && handoff_i && qa.count < qa.depth) begin
            // The message waits for the copy in the queue's free tail slot, which stays free:
            // the count does not change, and no ring write happens while the copy runs (SEND is
            // BUSY then). A full queue has no free slot: receivers wait on one only after
            // HANDOFF 0 woke another, and the send then waits or is refused as on any full queue.
            ring_we    = 1'b1;
            copy_go    = 1'b1;
            res_o.wake = 1'b1;
          end else if (qa.count < qa.depth) begin
            ring_we = 1'b1;
            // FRONT (b bit 1): the message becomes the next one received.
            if (call_i.b[1]) begin
              ring_waddr      = slot_fr;
              tab_d[a_qid].rd = rd_prev;
            end
            tab_d[a_qid].count = qa.count + 4'd1;
            res_o.value      = 16'(qa.count + 4'd1);
            res_o.wake       = waiters_i.any;
          end else begin
            res_o = wait_or(res_o, call_i.b[0], RtosCodeQueueFull, block_st_i,
                            RtosWaitKindQueueSend, 3'(a_qid));
          end
        end
        RtosActionQueueRecv: begin
          if (qa.count != 4'd0) begin
            for (int unsigned i = 0; i < MsgWords; i++) msg_we_o[i] = 5'(i) < qa.words;
            // PEEK (b bit 1) leaves the message stored, so no sender gains a place.
            if (!call_i.b[1]) begin
              tab_d[a_qid].rd    = rd_next;
              tab_d[a_qid].count = qa.count - 4'd1;
              res_o.value      = 16'(qa.count - 4'd1);
              res_o.wake       = waiters_i.any;
            end
          end else begin
            res_o = wait_or(res_o, call_i.b[0], RtosCodeQueueEmpty, block_st_i,
                            RtosWaitKindQueueRecv, 3'(a_qid));
          end
        end
        RtosActionQueueInfo: res_o.tid = 8'(waiters_i.cnt);
        RtosActionQueueReset: begin
          // A copy in flight does not matter: its message was never stored in the ring. One
          // sender is woken (FreeRTOS's xQueueReset); receivers keep waiting on the empty queue.
          tab_d[a_qid].rd    = '0;
          tab_d[a_qid].count = '0;
          res_o.wake       = waiters_i.any;
        end
        default: ;
      endcase
    end
  end
  // One read port: RECV reads slot_rd, the copy engine its slot while it runs (RECV is BUSY then).
  logic [SlotW-1:0] ring_raddr;
  msg_t             ring_rdata;
  assign ring_raddr = copy_q.busy ? copy_q.slot : slot_rd;
  assign ring_rdata = ring_q[ring_raddr];
  assign msg_o      = ring_rdata;

  // ---------------------------------------------------------------- copy engine
  // SEND snapshots the staging buffer into the ring, so MSG may be rewritten while the copy
  // runs. The words are offered only once the DMA has taken the job. An abort before that
  // belongs to another job and is ignored.
  logic out_fire, copy_end;
  assign mem_req_o.out_valid = copy_q.busy && !copy_q.job_valid && copy_q.idx < copy_q.words;
  assign mem_req_o.out_data  = ring_rdata[copy_q.idx[WordW-1:0]];
  assign out_fire    = mem_req_o.out_valid && mem_rsp_i.out_ready;
  assign copy_end    = copy_q.busy && !copy_q.job_valid &&
                       (mem_rsp_i.job_done || mem_rsp_i.job_abort);

  always_comb begin
    copy_d           = copy_q;
    copy_d.err       = copy_q.err && !status_rd_i;
    copy_d.job_valid = copy_q.job_valid && !mem_rsp_i.job_ready;
    if (out_fire) copy_d.idx = copy_q.idx + 5'd1;
    if (copy_end) begin
      copy_d.busy = 1'b0;
      if (mem_rsp_i.job_abort || mem_rsp_i.job_err) copy_d.err = 1'b1;
    end
    if (copy_go) begin
      copy_d = '{busy:      1'b1,
                 err:       1'b0,
                 slot:      slot_wr,
                 words:     qa.words,
                 idx:       '0,
                 job_valid: 1'b1,
                 job:       '{src:     32'd0,
                              dst:     {waiter_ptr_i, 2'b00},
                              in_len:  32'd0,
                              out_len: {25'd0, qa.words, 2'b00}}};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned q = 0; q < NumQueue; q++) tab_q[q] <= '0;
      copy_q <= '0;
    end else begin
      tab_q    <= tab_d;
      copy_q <= copy_d;
    end
  end

  // The message ring is a memory: written by slot, never reset.
  always_ff @(posedge clk_i) begin
    if (ring_we) ring_q[ring_waddr] <= msg_i;
  end

  assign copy_busy_o = copy_q.busy;
  assign copy_err_o  = copy_q.err;
  assign mem_req_o.job_valid = copy_q.job_valid;
  assign mem_req_o.job       = copy_q.job;

  // Jobs read nothing (in_len = 0): stray input words are drained so a job can never hang.
  assign mem_req_o.in_ready = 1'b1;
  logic unused_in;
  assign unused_in = ^{mem_rsp_i.in_valid, mem_rsp_i.in_data};

`ifndef SYNTHESIS
  // A queue holds at most its depth and reads within it; a job is offered only while its copy
  // runs, and the copy offers no more words than the message has.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      for (int unsigned q = 0; q < NumQueue; q++) begin
        CountWithinDepth: assert (tab_q[q].count <= tab_q[q].depth);
        ReadWithinDepth: assert (4'(tab_q[q].rd) < tab_q[q].depth || tab_q[q].rd == '0);
      end
      JobOfACopy: assert (!copy_q.job_valid || copy_q.busy);
      CopySlotFree: assert (!copy_go || qa.count < qa.depth);
      CopyWithinWords: assert (copy_q.idx <= copy_q.words);
    end
  end
`endif

endmodule
