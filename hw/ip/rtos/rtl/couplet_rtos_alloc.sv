// One table of couplet_rtos (thread nodes, mutexes, semaphores or queues): which entries are in
// use, and the checks every action on the table starts with (README "Order of the checks"). An
// allocation (AllocAct) is refused for its arguments (BAD_ARG), then for a full table
// (TABLE_FULL), and takes the lowest free entry; an action that names an entry needs it in use
// (NO_ID); then the unit may refuse it for now (BUSY); FreeAct frees the entry. The units share
// this so that the order is written once.
module couplet_rtos_alloc
  import couplet_rtos_pkg::*;
  import rtos_reg_pkg::*;
#(
  parameter int unsigned  N        = 4,
  parameter rtos_action_e AllocAct = RtosActionThreadAdd,
  parameter rtos_action_e FreeAct  = RtosActionThreadRemove,
  localparam int unsigned IdW      = (N > 1) ? $clog2(N) : 1
) (
  input  logic           clk_i,
  input  logic           rst_ni,

  input  logic           exec_i,     // an action of this unit runs
  input  rtos_call_t     call_i,     // which, and the entry it names in a
  input  logic           need_id_i,  // it names an entry
  input  logic           bad_i,      // an allocation's arguments are out of range
  input  logic           busy_i,     // the unit refuses the action for now

  output rtos_code_e     status_o,   // the first failing check, or OK
  output logic [N-1:0]   used_o,
  output logic [IdW-1:0] id_o,
  output logic [IdW-1:0] free_o      // the entry an allocation takes
);

  // b carries an allocation's arguments, which the unit checks (bad_i).
  logic unused_b;
  assign unused_b = ^call_i.b;

  logic [N-1:0] used_q, used_d;
  logic         is_alloc, is_free, id_ok;
  assign is_alloc = call_i.act == AllocAct;
  assign is_free  = call_i.act == FreeAct;

  // A signal of its own: scan_t'(~used_q) would extend used_q before inverting it and so add free
  // entries beyond the table.
  logic [N-1:0] free_set;
  assign free_set = ~used_q;
  assign free_o   = IdW'(lowest_one(scan_t'(free_set)));
  assign id_o     = call_i.a[IdW-1:0];
  assign id_ok    = call_i.a < 32'(N) && used_q[id_o];

  always_comb begin
    if (is_alloc) begin
      status_o = bad_i ? RtosCodeBadArg : !(|free_set) ? RtosCodeTableFull : RtosCodeOk;
    end else if (need_id_i && !id_ok) begin
      status_o = RtosCodeNoId;
    end else if (busy_i) begin
      status_o = RtosCodeBusy;
    end else begin
      status_o = RtosCodeOk;
    end
    used_d = used_q;
    if (exec_i && status_o == RtosCodeOk) begin
      if (is_alloc) used_d[free_o] = 1'b1;
      if (is_free)  used_d[id_o]   = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) used_q <= '0;
    else         used_q <= used_d;
  end

  assign used_o = used_q;

endmodule
