// Types of the coupling layer's internal ports (docs/coupling.md): the command/response port
// every accelerator implements, and the job handed to the DMA engine by accelerators that
// access memory themselves.
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

endpackage
