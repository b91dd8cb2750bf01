// Counting semaphores of couplet_rtos (hw/ip/rtos/README.md "State"): the semaphore table
// (in use, count, max) and the semaphore actions. A give with waiters hands the unit to the best
// one instead of counting it (HANDOFF 1), or counts it and wakes that one to take it (HANDOFF 0);
// a semaphore with waiters cannot be freed.
module couplet_rtos_sem
  import couplet_rtos_pkg::*;
  import rtos_reg_pkg::*;
#(
  parameter int unsigned NumSem = 4
) (
  input  logic          clk_i,
  input  logic          rst_ni,

  input  logic          exec_i,     // a semaphore action runs
  input  logic          handoff_i,  // a give hands its unit to a waiter (HANDOFF)
  input  rtos_call_t    call_i,
  input  rtos_waiters_t waiters_i,  // of the semaphore in call_i.a
  input  rtos_code_e    block_st_i,

  output rtos_outcome_t res_o
);

  localparam int unsigned SIdW = (NumSem > 1) ? $clog2(NumSem) : 1;

  typedef struct packed {
    logic [15:0] count;
    logic [15:0] max;
  } sem_t;
  sem_t sem_q [NumSem];
  sem_t sem_d [NumSem];

  // Which entries are in use matters here only through the table's checks; the thread manager
  // wakes the best waiter, this unit needs to know only whether there is one.
  logic [NumSem-1:0] unused_in_use;
  logic              unused_best;
  assign unused_best = ^waiters_i.best;

  // A semaphore with waiters cannot be freed.
  logic [SIdW-1:0] a_sid, free_s;
  rtos_code_e      pre_st;

  couplet_rtos_alloc #(.N(NumSem), .AllocAct(RtosActionSemAlloc), .FreeAct(RtosActionSemFree)) u_table (
    .clk_i, .rst_ni, .exec_i, .call_i, .need_id_i(1'b1),
    // 16-bit counters, and the initial count within max.
    .bad_i(call_i.b == 32'd0 || call_i.b > 32'hFFFF || call_i.a > call_i.b),
    .busy_i(call_i.act == RtosActionSemFree && waiters_i.any),
    .status_o(pre_st), .used_o(unused_in_use), .id_o(a_sid), .free_o(free_s)
  );

  always_comb begin
    logic [15:0] count;
    count = sem_q[a_sid].count;
    sem_d = sem_q;
    res_o = OutcomeNone;

    res_o.status = pre_st;
    if (exec_i && pre_st == RtosCodeOk) begin
      unique case (call_i.act)
        RtosActionSemAlloc: begin
          sem_d[free_s] = '{count: call_i.a[15:0], max: call_i.b[15:0]};
          res_o.tid     = 8'(free_s);
        end
        RtosActionSemTake: begin
          res_o.value = count;
          if (count != 16'd0) begin
            sem_d[a_sid].count = count - 16'd1;
            res_o.value        = count - 16'd1;
          end else begin
            res_o = wait_or(res_o, call_i.b[0], RtosCodeUnavailable, block_st_i, RtosWaitKindSem,
                            3'(a_sid));
          end
        end
        RtosActionSemGive: begin
          res_o.value = count;
          if (waiters_i.any && handoff_i) begin
            res_o.wake = 1'b1;
          end else if (count == sem_q[a_sid].max) begin
            res_o.status = RtosCodeBadArg;
          end else begin
            sem_d[a_sid].count = count + 16'd1;
            res_o.value        = count + 16'd1;
            res_o.wake         = waiters_i.any;
          end
        end
        RtosActionSemInfo: begin
          res_o.value = count;
          res_o.tid   = 8'(waiters_i.cnt);
        end
        default: ;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned s = 0; s < NumSem; s++) sem_q[s] <= '0;
    end else begin
      sem_q <= sem_d;
    end
  end

`ifndef SYNTHESIS
  // A count never passes its semaphore's max (SEM_GIVE at max is refused).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      for (int unsigned s = 0; s < NumSem; s++) CountWithinMax: assert (sem_q[s].count <= sem_q[s].max);
    end
  end
`endif

endmodule
