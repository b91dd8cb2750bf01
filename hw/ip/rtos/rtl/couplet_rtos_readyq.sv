// The ready queues of couplet_rtos (hw/ip/rtos/README.md "State"): one circular singly linked
// list per priority through the thread nodes' next fields, with head, tail and nonempty, and
// the scheduler's priority encoder over nonempty. In one cycle a thread can be removed from one
// queue and appended to the tail of another (both on: the same thread moves), or a queue can
// rotate by one (round robin: head = next[head], tail = old head).
//
// Removal needs the predecessor, found by comparing every queued node's next with the removed
// TID at once; a node that is not queued may hold a stale next, so queued_i masks the search.
// Every queue is circular, so the predecessor of the head is the tail, and a one-node queue
// (head = tail = t) just becomes empty.
module couplet_rtos_readyq
  import couplet_rtos_pkg::*;
#(
  parameter int unsigned MaxThreads    = 8,
  parameter int unsigned NumPrio       = 8,
  parameter int unsigned PrioAscending = 1,
  localparam int unsigned TidW         = $clog2(MaxThreads),
  localparam int unsigned PrioW        = $clog2(NumPrio)
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,

  input  logic [MaxThreads-1:0]             queued_i,  // node is in a ready queue

  input  logic                              rm_en_i,   // remove rm_t_i from queue rm_p_i
  input  logic [TidW-1:0]                   rm_t_i,
  input  logic [PrioW-1:0]                  rm_p_i,
  input  logic                              add_en_i,  // then append add_t_i to add_p_i
  input  logic [TidW-1:0]                   add_t_i,
  input  logic [PrioW-1:0]                  add_p_i,
  input  logic                              rot_en_i,  // rotate queue rot_p_i
  input  logic [PrioW-1:0]                  rot_p_i,

  output logic [NumPrio-1:0][TidW-1:0]      head_o,
  output logic [MaxThreads-1:0][TidW-1:0]   next_o,
  output logic [PrioW-1:0]                  top_o,     // highest non-empty queue
  output logic                              any_o      // some queue is non-empty
);

  typedef logic [TidW-1:0]  tid_t;
  typedef logic [PrioW-1:0] prio_t;

  logic [NumPrio-1:0]            nonempty_q, nonempty_d;
  logic [NumPrio-1:0][TidW-1:0]  head_q, head_d, tail_q, tail_d;
  logic [MaxThreads-1:0][TidW-1:0] next_q, next_d;

  // Scheduler: the highest non-empty queue in the PrioAscending order.
  assign any_o = |nonempty_q;
  assign top_o = prio_t'(PrioAscending != 0 ? highest_one(scan_t'(nonempty_q)) :
                                              lowest_one(scan_t'(nonempty_q)));

  logic [MaxThreads-1:0] is_pred;  // at most one node
  tid_t                  rm_pred;
  always_comb begin
    for (int unsigned u = 0; u < MaxThreads; u++) begin
      is_pred[u] = queued_i[u] && next_q[u] == rm_t_i && tid_t'(u) != rm_t_i;
    end
  end
  assign rm_pred = tid_t'(highest_one(scan_t'(is_pred)));

  always_comb begin
    nonempty_d = nonempty_q;
    head_d     = head_q;
    tail_d     = tail_q;
    next_d     = next_q;
    if (rot_en_i) begin
      head_d[rot_p_i] = next_q[head_q[rot_p_i]];
      tail_d[rot_p_i] = head_q[rot_p_i];
    end
    if (rm_en_i) begin
      if (head_q[rm_p_i] == rm_t_i && tail_q[rm_p_i] == rm_t_i) begin
        nonempty_d[rm_p_i] = 1'b0;
      end else begin
        next_d[rm_pred] = next_q[rm_t_i];
        if (head_q[rm_p_i] == rm_t_i) head_d[rm_p_i] = next_q[rm_t_i];
        if (tail_q[rm_p_i] == rm_t_i) tail_d[rm_p_i] = rm_pred;
      end
    end
    // The append sees the removal: a thread moving within one queue goes to its tail.
    if (add_en_i) begin
      if (!nonempty_d[add_p_i]) begin
        nonempty_d[add_p_i] = 1'b1;
        head_d[add_p_i]     = add_t_i;
        tail_d[add_p_i]     = add_t_i;
        next_d[add_t_i]     = add_t_i;
      end else begin
        next_d[tail_d[add_p_i]] = add_t_i;
        next_d[add_t_i]         = head_d[add_p_i];
        tail_d[add_p_i]         = add_t_i;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      nonempty_q <= '0;
      head_q     <= '0;
      tail_q     <= '0;
      next_q     <= '0;
    end else begin
      nonempty_q <= nonempty_d;
      head_q     <= head_d;
      tail_q     <= tail_d;
      next_q     <= next_d;
    end
  end

  assign head_o = head_q;
  assign next_o = next_q;

endmodule
