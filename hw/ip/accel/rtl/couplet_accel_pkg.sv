// Types of the coupling layer's internal ports (docs/coupling.md): the command/response port
// every accelerator implements, the job handed to the DMA engine by accelerators that access
// memory themselves with the word streams that carry its data (the memory side); every engine
// (couplet_aes, couplet_keccak, couplet_rtos) has both, the stateless instruction units the
// command port only.
//
// Each port is a pair of structs, one per direction, as OBI's obi_req_t / obi_rsp_t: `_req_t`
// goes from the side that starts a transfer, `_rsp_t` comes back. The command port's ready is a
// signal of its own (cmd_ready): it is the one signal of the port that depends on the request in
// the same cycle (a response register drains and takes a command in one cycle; the command mux
// grants among the valid inputs), while the response feeds the core's pipeline, which in turn
// drives the next request. In one struct, the two would make a loop that exists only at the
// struct's granularity, which a simulator that schedules a struct as one variable (Verilator:
// UNOPTFLAT) settles by iteration, every cycle. For the same reason the command port and the
// memory side stay two ports: the one depends on the core, the other on the bus.
package couplet_accel_pkg;

  // Operation of a command. Register-style accelerators follow this convention; an
  // accelerator with ISA-defined encodings (for example Zkne) may decode op and index raw.
  typedef enum logic [2:0] {
    AccelOpRead   = 3'd0,  // response data = register[index]
    AccelOpWrite  = 3'd1,  // register[index] = op_a
    AccelOpWrite2 = 3'd2,  // register[index] = op_a, register[index + 1] = op_b
    AccelOpExec   = 3'd3   // run action <index> with op_a and op_b; data = status code
  } accel_op_e;

  typedef struct packed {
    accel_op_e   op;     // funct3 of a custom instruction
    logic [6:0]  index;  // funct7 of a custom instruction; word offset when memory-mapped
    logic [31:0] op_a;   // rs1
    logic [31:0] op_b;   // rs2
  } accel_cmd_t;

  typedef struct packed {
    logic [31:0] data;   // rd of a custom instruction; load data when memory-mapped
    logic        err;    // no such command: illegal instruction or bus error
  } accel_rsp_t;

  // A memory job: read in_len bytes from src onto the accelerator's input word stream, write
  // out_len bytes from its output word stream to dst. Lengths are multiples of 4.
  typedef struct packed {
    logic [31:0] src;
    logic [31:0] dst;
    logic [31:0] in_len;
    logic [31:0] out_len;
  } dma_job_t;

  // The command port, requester (an adapter or couplet_accel_cmd_mux) to accelerator.
  typedef struct packed {
    logic       valid;      // cmd is a command
    accel_cmd_t cmd;
    logic       rsp_ready;  // the response shown now, if any, is taken
  } accel_cmd_req_t;

  // The command port, accelerator to requester (with cmd_ready beside it). A command is taken
  // in a cycle with valid and cmd_ready; each taken command gets one response, in order, never
  // in the cycle it is taken.
  typedef struct packed {
    logic       rsp_valid;
    accel_rsp_t rsp;
  } accel_cmd_rsp_t;

  // The memory side, accelerator to its DMA engine: a job, the input stream's ready and the
  // output stream's words.
  typedef struct packed {
    logic        job_valid;
    dma_job_t    job;
    logic        in_ready;
    logic        out_valid;
    logic [31:0] out_data;
  } accel_mem_req_t;

  // The memory side, DMA engine to accelerator: the job's handshake and end, the abort pulse,
  // the input stream's words, the output's ready.
  typedef struct packed {
    logic        job_ready;
    logic        job_done;   // one cycle: the job taken last has ended
    logic        job_err;    // with job_done: it ended with a bus error or an abort
    logic        job_abort;  // drop the job's stream state (one cycle)
    logic        in_valid;
    logic [31:0] in_data;
    logic        out_ready;
  } accel_mem_rsp_t;

endpackage
