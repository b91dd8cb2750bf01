// Scheduler of couplet_rtos (hw/ip/rtos/README.md "State"): the ready queues, one circular singly
// linked list per priority through the thread nodes' next fields, with head, tail, nonempty and
// ran, and the choice of the thread to run. In one cycle a thread can be removed from one queue
// and appended to the tail of another (both on: the same thread moves, always between two
// queues, as only an eprio change moves a queued thread), or SCHEDULE can rotate the highest
// queue by one (round robin: head = next[head], tail = old head), never both (SCHEDULE changes
// no node). So each operation reads the queues as they were: none sees another's changes.
//
// ran[p]: the head of queue p is the thread SCHEDULE last picked from it, so the next pick from
// p is its successor. Kept per queue, not read from cur, so that a thread preempted by a higher
// one still counts as having run: when the higher one stops, its queue goes on with the next
// thread, and a thread made ready meanwhile is appended (at the tail, just before the head in
// the circle) behind every other, as FreeRTOS's list index does (fw/rtos/kernel_hw/README.md).
// Removing the head clears it: the next pick is the removed thread's successor, the new head.
//
// Removal needs the predecessor, found by comparing every queued node's next with the removed
// TID at once; a node that is not queued may hold a stale next, so queued_i masks the search.
// Every queue is circular, so the predecessor of the head is the tail, and a one-node queue
// (head = tail = t) just becomes empty.
//
// Timing: an operation is applied in the cycle after the thread manager asks for it, from a
// register (op_q): the node change that causes it and the queue update it needs would otherwise
// be one path, the RTOS tile's critical one (issue 19). Nothing notices the cycle: no action
// runs in the cycle after a node change (a command runs at the earliest two cycles after the
// last action or inheritance step, see couplet_rtos), so pick_o and the rotation always see
// applied queues; and preempt_o, which the response shows from that cycle on, reads the queues'
// nonempty bits as the pending operation leaves them. One operation a cycle, applied in order,
// gives the same queues as applying each in its own cycle: an operation says what happens to
// one node (computed from the nodes, not from the queues), and is_pred masks with the nodes as
// they are, which differ from the nodes at the request only in that operation's own node, which
// the search excludes. The priority encoder over nonempty, the predecessor search and the choice
// are combinational, so no operation depends on the number of threads.
module couplet_rtos_sched
  import couplet_rtos_pkg::*;
#(
  parameter int unsigned MaxThreads    = 8,
  parameter int unsigned NumPrio       = 8,
  parameter int unsigned PrioAscending = 1,
  localparam int unsigned TidW         = $clog2(MaxThreads),
  localparam int unsigned PrioW        = $clog2(NumPrio)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  input  logic [MaxThreads-1:0] queued_i,    // node is in a ready queue

  input  logic [TidW-1:0]       t_i,         // the thread that leaves and/or joins a queue
  input  logic                  rm_i,        // remove it from queue rm_p_i
  input  logic [PrioW-1:0]      rm_p_i,
  input  logic                  add_i,       // then append it to queue add_p_i
  input  logic [PrioW-1:0]      add_p_i,

  input  logic                  cur_v_i,     // the running thread, if any
  input  logic [TidW-1:0]       cur_i,
  input  logic [PrioW-1:0]      cur_eprio_i,
  input  logic                  schedule_i,  // SCHEDULE runs: switch to pick_o

  output logic [TidW-1:0]       pick_o,      // the thread SCHEDULE switches to
  output logic                  any_o,       // some queue is non-empty
  output logic                  preempt_o    // the result word's preempt (README "Decisions")
);

  typedef logic [TidW-1:0]  tid_t;
  typedef logic [PrioW-1:0] prio_t;

  // The ready queues are one record: an operation moves a node's link and its queue's ends at
  // once, and all empty is the reset state.
  typedef struct packed {
    logic [NumPrio-1:0]     nonempty;
    logic [NumPrio-1:0]     ran;
    tid_t [NumPrio-1:0]     head;
    tid_t [NumPrio-1:0]     tail;
    tid_t [MaxThreads-1:0]  next;
  } queues_t;
  queues_t rq_q, rq_d;

  // The operation asked for in the last cycle; all zero is none.
  typedef struct packed {
    tid_t  t;
    logic  rm;
    prio_t rm_p;
    logic  add;
    prio_t add_p;
  } op_t;
  op_t op_q, op_d;
  assign op_d = '{t: t_i, rm: rm_i, rm_p: rm_p_i, add: add_i, add_p: add_p_i};

  localparam logic Asc = PrioAscending[0];

  function automatic prio_t top_of(logic [NumPrio-1:0] nonempty);
    return prio_t'(Asc ? highest_one(scan_t'(nonempty)) : lowest_one(scan_t'(nonempty)));
  endfunction

  // The highest non-empty queue in the PrioAscending order.
  prio_t top;
  assign any_o = |rq_q.nonempty;
  assign top   = top_of(rq_q.nonempty);

  // SCHEDULE runs the head of the highest queue; if the head ran last, its successor, and the
  // queue rotates so that the head goes to the tail.
  logic cur_ready, rot;
  tid_t top_head;
  assign cur_ready = cur_v_i && queued_i[cur_i];
  assign top_head  = rq_q.head[top];
  assign rot       = schedule_i && rq_q.ran[top];
  assign pick_o    = rq_q.ran[top] ? rq_q.next[top_head] : top_head;

  // The removal takes the only node of its queue (head = tail = t), which becomes empty.
  logic rm_last;
  assign rm_last = rq_q.head[op_q.rm_p] == op_q.t && rq_q.tail[op_q.rm_p] == op_q.t;

  // preempt_o with the pending operation applied: only nonempty matters to it.
  logic [NumPrio-1:0] ne_after;
  prio_t              top_after;
  logic               any_after;
  always_comb begin
    ne_after = rq_q.nonempty;
    if (op_q.rm && rm_last) ne_after[op_q.rm_p] = 1'b0;
    if (op_q.add)           ne_after[op_q.add_p] = 1'b1;
  end
  assign top_after = top_of(ne_after);
  assign any_after = |ne_after;
  assign preempt_o = !cur_v_i   ? any_after :
                     !cur_ready ? 1'b1 :
                     (any_after && higher(Asc, prio_l_t'(top_after), prio_l_t'(cur_eprio_i)));

  logic [MaxThreads-1:0] is_pred;  // at most one node
  tid_t                  rm_pred;
  always_comb begin
    for (int unsigned u = 0; u < MaxThreads; u++) begin
      is_pred[u] = queued_i[u] && rq_q.next[u] == op_q.t && tid_t'(u) != op_q.t;
    end
  end
  assign rm_pred = tid_t'(highest_one(scan_t'(is_pred)));

  always_comb begin
    rq_d = rq_q;
    // The head ran: its successor (pick_o) becomes the head.
    if (schedule_i && any_o) rq_d.ran[top] = 1'b1;
    if (rot) begin
      rq_d.head[top] = pick_o;
      rq_d.tail[top] = top_head;
    end else begin
      if (op_q.rm) begin
        // The next pick from the queue is the removed head's successor (an emptied queue's
        // ran is clear, so an append to it starts afresh).
        if (rq_q.head[op_q.rm_p] == op_q.t) rq_d.ran[op_q.rm_p] = 1'b0;
        if (rm_last) begin
          rq_d.nonempty[op_q.rm_p] = 1'b0;
        end else begin
          rq_d.next[rm_pred] = rq_q.next[op_q.t];
          if (rq_q.head[op_q.rm_p] == op_q.t) rq_d.head[op_q.rm_p] = rq_q.next[op_q.t];
          if (rq_q.tail[op_q.rm_p] == op_q.t) rq_d.tail[op_q.rm_p] = rm_pred;
        end
      end
      // The removal was from another queue than the append's: it wrote no node of that one,
      // nor op_q.t's link.
      if (op_q.add) begin
        if (!rq_q.nonempty[op_q.add_p]) begin
          rq_d.nonempty[op_q.add_p] = 1'b1;
          rq_d.head[op_q.add_p]     = op_q.t;
          rq_d.tail[op_q.add_p]     = op_q.t;
          rq_d.next[op_q.t]         = op_q.t;
        end else begin
          rq_d.next[rq_q.tail[op_q.add_p]] = op_q.t;
          rq_d.next[op_q.t]                = rq_q.head[op_q.add_p];
          rq_d.tail[op_q.add_p]            = op_q.t;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rq_q <= '0;
      op_q <= '0;
    end else begin
      rq_q <= rq_d;
      op_q <= op_d;
`ifndef SYNTHESIS
      // What lets every operation above read the queues as they were, and SCHEDULE (its choice
      // and rotation) see every operation asked for before it applied.
      ScheduleAlone: assert (!(schedule_i && (op_q.rm || op_q.add)));
      MoveBetweenQueues: assert (!(op_q.rm && op_q.add && op_q.rm_p == op_q.add_p));
      OnePredecessor: assert ($onehot0(is_pred));
      RanNonempty: assert ((rq_q.ran & ~rq_q.nonempty) == '0);
`endif
    end
  end

endmodule
