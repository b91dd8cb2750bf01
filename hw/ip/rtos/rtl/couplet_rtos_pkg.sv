// Types and codes of couplet_rtos (hw/ip/rtos/README.md): the action numbers, the status codes
// of the result word, thread states and wait kinds, and the packed layouts of the result word
// and of THREAD_INFO's value. Field widths are those of the largest build (16 threads, 16
// priorities, 8 objects of a kind), so the software view does not depend on the parameters.
package couplet_rtos_pkg;

  import rtos_reg_pkg::*;

  // Largest parameter values the field widths below can hold.
  localparam int unsigned MaxThreadsLimit = 16;
  localparam int unsigned NumPrioLimit    = 16;
  localparam int unsigned NumObjLimit     = 8;   // NumMutex, NumSem, NumQueue
  localparam int unsigned MsgWordsLimit   = RTOS_MSG_COUNT;
  localparam int unsigned QueueDepthLimit = 8;

  // Action k of AccelOpExec index k, or of a load of CALL[k].
  typedef enum logic [5:0] {
    ActThreadAdd      = 6'h00,
    ActThreadRemove   = 6'h01,
    ActThreadSetState = 6'h02,
    ActThreadSetPrio  = 6'h03,
    ActThreadInfo     = 6'h04,
    ActThreadTcb      = 6'h05,
    ActThreadFind     = 6'h06,
    ActThreadUnblock  = 6'h07,
    ActSchedule       = 6'h08,
    ActCurrent        = 6'h09,
    ActMutexAlloc     = 6'h10,
    ActMutexFree      = 6'h11,
    ActMutexLock      = 6'h12,
    ActMutexUnlock    = 6'h13,
    ActMutexInfo      = 6'h14,
    ActSemAlloc       = 6'h18,
    ActSemFree        = 6'h19,
    ActSemTake        = 6'h1A,
    ActSemGive        = 6'h1B,
    ActSemInfo        = 6'h1C,
    ActQueueAlloc     = 6'h20,
    ActQueueFree      = 6'h21,
    ActQueueSend      = 6'h22,
    ActQueueRecv      = 6'h23,
    ActQueueInfo      = 6'h24,
    ActQueueReset     = 6'h25
  } rtos_action_e;

  typedef enum logic [3:0] {
    StOk          = 4'd0,
    StUnavailable = 4'd1,
    StQueueFull   = 4'd2,
    StQueueEmpty  = 4'd3,
    StNoId        = 4'd4,
    StNotOwner    = 4'd5,
    StBusy        = 4'd6,
    StTableFull   = 4'd7,
    StBadArg      = 4'd8,
    StNoCaller    = 4'd9
  } rtos_status_e;

  typedef enum logic [1:0] {
    ThReady     = 2'd0,
    ThWaiting   = 2'd1,
    ThSuspended = 2'd2,
    ThDelayed   = 2'd3
  } thread_state_e;

  typedef enum logic [2:0] {
    WaitNone  = 3'd0,
    WaitMutex = 3'd1,
    WaitSem   = 3'd2,
    WaitQSend = 3'd3,
    WaitQRecv = 3'd4
  } wait_kind_e;

  // The result word of every action except SCHEDULE and THREAD_TCB.
  typedef struct packed {
    logic [15:0]  value;
    logic [7:0]   tid;      // TidNone when the action made, woke or found no thread
    logic [1:0]   zero;
    logic         preempt;
    logic         blocked;
    rtos_status_e status;
  } rtos_result_t;

  localparam logic [7:0] TidNone = 8'hFF;

  // THREAD_INFO's value.
  typedef struct packed {
    logic [2:0]    wait_id;
    wait_kind_e    wait_kind;
    thread_state_e state;
    logic [3:0]    bprio;
    logic [3:0]    eprio;
  } rtos_thread_info_t;

  // Scans over a table's bit set (in use, waiting, non-empty, ...). Every table fits ScanW
  // entries; a caller zero-extends its set.
  localparam int unsigned ScanW = MaxThreadsLimit;
  typedef logic [ScanW-1:0]         scan_t;
  typedef logic [$clog2(ScanW)-1:0] scan_idx_t;
  typedef logic [$clog2(ScanW):0]   scan_cnt_t;

  // Index of the lowest set bit of v (0 if none): the lowest free entry of a table, or among
  // equal candidates the one with the lowest id.
  function automatic scan_idx_t lowest_one(scan_t v);
    scan_idx_t idx;
    idx = '0;
    for (int i = int'(ScanW) - 1; i >= 0; i--) begin
      if (v[i]) idx = scan_idx_t'(i);
    end
    return idx;
  endfunction

  // Index of the highest set bit of v (0 if none).
  function automatic scan_idx_t highest_one(scan_t v);
    scan_idx_t idx;
    idx = '0;
    for (int unsigned i = 0; i < ScanW; i++) begin
      if (v[i]) idx = scan_idx_t'(i);
    end
    return idx;
  endfunction

  // Number of set bits of v.
  function automatic scan_cnt_t count_ones(scan_t v);
    scan_cnt_t n;
    n = '0;
    for (int unsigned i = 0; i < ScanW; i++) n = n + scan_cnt_t'(v[i]);
    return n;
  endfunction

  // Command indexes (byte offset / 4) of the generated register map (data/rtos.toml).
  function automatic logic [6:0] reg_index(logic [8:0] offset);
    return 7'(offset >> 2);
  endfunction
  localparam logic [6:0] IdxMsg0   = reg_index(RTOS_MSG_OFFSET);
  localparam logic [6:0] IdxArgA   = reg_index(RTOS_ARG_A_OFFSET);
  localparam logic [6:0] IdxArgB   = reg_index(RTOS_ARG_B_OFFSET);
  localparam logic [6:0] IdxStatus = reg_index(RTOS_STATUS_OFFSET);
  localparam logic [6:0] IdxConfig = reg_index(RTOS_CONFIG_OFFSET);
  localparam logic [6:0] IdxCall0  = reg_index(RTOS_CALL_OFFSET);

  function automatic logic is_action(logic [5:0] k);
    logic known;
    unique case (k)
      ActThreadAdd, ActThreadRemove, ActThreadSetState, ActThreadSetPrio, ActThreadInfo,
      ActThreadTcb, ActThreadFind, ActThreadUnblock, ActSchedule, ActCurrent,
      ActMutexAlloc, ActMutexFree, ActMutexLock, ActMutexUnlock, ActMutexInfo,
      ActSemAlloc, ActSemFree, ActSemTake, ActSemGive, ActSemInfo,
      ActQueueAlloc, ActQueueFree, ActQueueSend, ActQueueRecv, ActQueueInfo,
      ActQueueReset: known = 1'b1;
      default: known = 1'b0;
    endcase
    // CALL[k] covers every action number.
    return known && 32'(k) < RTOS_CALL_COUNT;
  endfunction

endpackage
