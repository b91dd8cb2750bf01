// Types of couplet_rtos (hw/ip/rtos/README.md) beside those of its description (rtos_reg_pkg):
// the parameter limits, the packed layout of THREAD_INFO's value and the table scans. Field
// widths are those of the largest build (16 threads, 16 priorities, 8 objects of a kind), so the
// software view does not depend on the parameters.
package couplet_rtos_pkg;

  import rtos_reg_pkg::*;

  // Largest parameter values the field widths below can hold.
  localparam int unsigned MaxThreadsLimit = 16;
  localparam int unsigned NumPrioLimit    = 16;
  localparam int unsigned NumObjLimit     = 8;   // NumMutex, NumSem, NumQueue
  localparam int unsigned MsgWordsLimit   = RTOS_MSG_COUNT;
  localparam int unsigned QueueDepthLimit = 8;

  // The actions (rtos_action_e), status codes (rtos_code_e), thread states, wait kinds and the
  // result word (rtos_call_reg_t) are generated from data/rtos.toml into rtos_reg_pkg.

  // THREAD_INFO's value.
  typedef struct packed {
    logic [2:0]         wait_id;
    rtos_wait_kind_e    wait_kind;
    rtos_thread_state_e state;
    logic [3:0]         bprio;
    logic [3:0]         eprio;
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
      RtosActionThreadAdd, RtosActionThreadRemove, RtosActionThreadSetState, RtosActionThreadSetPrio, RtosActionThreadInfo,
      RtosActionThreadTcb, RtosActionThreadFind, RtosActionThreadUnblock, RtosActionSchedule, RtosActionCurrent,
      RtosActionMutexAlloc, RtosActionMutexFree, RtosActionMutexLock, RtosActionMutexUnlock, RtosActionMutexInfo,
      RtosActionSemAlloc, RtosActionSemFree, RtosActionSemTake, RtosActionSemGive, RtosActionSemInfo,
      RtosActionQueueAlloc, RtosActionQueueFree, RtosActionQueueSend, RtosActionQueueRecv, RtosActionQueueInfo,
      RtosActionQueueReset: known = 1'b1;
      default: known = 1'b0;
    endcase
    // CALL[k] covers every action number.
    return known && 32'(k) < RTOS_CALL_COUNT;
  endfunction

endpackage
