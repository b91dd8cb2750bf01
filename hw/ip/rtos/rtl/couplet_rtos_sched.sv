// Scheduler of couplet_rtos (hw/ip/rtos/README.md "State"): the ready queues, one circular singly
// linked list per priority through the thread nodes' next fields, with head, tail and nonempty,
// and the choice of the thread to run. In one cycle a thread can be removed from one queue and
// appended to the tail of another (both on: the same thread moves, always between two queues,
// as only an eprio change moves a queued thread), or SCHEDULE can rotate the highest queue by
// one (round robin: head = next[head], tail = old head), never both (SCHEDULE changes no node).
// So each operation reads the queues as they were: none sees another's changes.
//
// Removal needs the predecessor, found by comparing every queued node's next with the removed
// TID at once; a node that is not queued may hold a stale next, so queued_i masks the search.
// Every queue is circular, so the predecessor of the head is the tail, and a one-node queue
// (head = tail = t) just becomes empty.
//
// Timing: everything here is one cycle; the priority encoder over nonempty, the predecessor
// search and the choice are combinational, so no operation depends on the number of threads.
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
    tid_t [NumPrio-1:0]     head;
    tid_t [NumPrio-1:0]     tail;
    tid_t [MaxThreads-1:0]  next;
  } queues_t;
  queues_t rq_q, rq_d;

  localparam logic Asc = PrioAscending[0];

  // The highest non-empty queue in the PrioAscending order.
  prio_t top;
  assign any_o = |rq_q.nonempty;
  assign top   = prio_t'(Asc ? highest_one(scan_t'(rq_q.nonempty))
                             : lowest_one(scan_t'(rq_q.nonempty)));

  // SCHEDULE runs the head of the highest queue; if that is the running thread, its successor,
  // and the queue rotates so that the running thread goes to the tail.
  logic cur_ready, cur_at_head, rot;
  assign cur_ready   = cur_v_i && queued_i[cur_i];
  assign cur_at_head = cur_ready && cur_eprio_i == top && rq_q.head[top] == cur_i;
  assign rot         = schedule_i && cur_at_head;
  assign pick_o      = cur_at_head ? rq_q.next[cur_i] : rq_q.head[top];
  assign preempt_o   = !cur_v_i   ? any_o :
                       !cur_ready ? 1'b1 :
                       (any_o && higher(Asc, prio_l_t'(top), prio_l_t'(cur_eprio_i)));

  logic [MaxThreads-1:0] is_pred;  // at most one node
  tid_t                  rm_pred;
  always_comb begin
    for (int unsigned u = 0; u < MaxThreads; u++) begin
      is_pred[u] = queued_i[u] && rq_q.next[u] == t_i && tid_t'(u) != t_i;
    end
  end
  assign rm_pred = tid_t'(highest_one(scan_t'(is_pred)));

  always_comb begin
    rq_d = rq_q;
    // The running thread is the head: its successor (pick_o) becomes the head.
    if (rot) begin
      rq_d.head[top] = pick_o;
      rq_d.tail[top] = cur_i;
    end else begin
      if (rm_i) begin
        if (rq_q.head[rm_p_i] == t_i && rq_q.tail[rm_p_i] == t_i) begin
          rq_d.nonempty[rm_p_i] = 1'b0;
        end else begin
          rq_d.next[rm_pred] = rq_q.next[t_i];
          if (rq_q.head[rm_p_i] == t_i) rq_d.head[rm_p_i] = rq_q.next[t_i];
          if (rq_q.tail[rm_p_i] == t_i) rq_d.tail[rm_p_i] = rm_pred;
        end
      end
      // The removal was from another queue than the append's: it wrote no node of that one,
      // nor t_i's link.
      if (add_i) begin
        if (!rq_q.nonempty[add_p_i]) begin
          rq_d.nonempty[add_p_i] = 1'b1;
          rq_d.head[add_p_i]     = t_i;
          rq_d.tail[add_p_i]     = t_i;
          rq_d.next[t_i]         = t_i;
        end else begin
          rq_d.next[rq_q.tail[add_p_i]] = t_i;
          rq_d.next[t_i]                = rq_q.head[add_p_i];
          rq_d.tail[add_p_i]            = t_i;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rq_q <= '0;
    end else begin
      rq_q <= rq_d;
`ifndef SYNTHESIS
      // What lets every operation above read the queues as they were.
      RotateAlone: assert (!(rot && (rm_i || add_i)));
      MoveBetweenQueues: assert (!(rm_i && add_i && rm_p_i == add_p_i));
      OnePredecessor: assert ($onehot0(is_pred));
`endif
    end
  end

endmodule
