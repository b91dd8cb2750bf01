// couplet_dma: the memory mover of the coupling layer (docs/coupling.md, hw/ip/dma/README.md).
//
// One engine (couplet_dma_engine) serves two sources of jobs:
//   - the job port, driven by an accelerator that accesses memory itself (coprocessor with
//     memory access); accel_rsp_o.job_done / job_err answer each of its jobs;
//   - two descriptor slots in the registers (couplet_dma_regs), armed by software (loose
//     coupling with double buffering); their end sets STATUS bits and may raise irq_o.
// Jobs run one at a time. When the engine is free and both sources wait, the source that did
// not run the previous job goes first, so neither can starve the other; a source that waits
// alone starts at once. The next job is taken in the cycle after the previous one ended.
//
// accel_rsp_o.job_abort is a one-cycle pulse telling the accelerator to drop everything of the
// current job: a partially received input block, computation in flight and output words not yet
// taken. It comes with the end of any job that ended with an error (bus error or ABORT), and when
// software writes ABORT while no job runs, so ABORT also serves as a soft reset of the stream
// state. After the abort pulse the next job starts with empty streams on both sides.
module couplet_dma
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
#(
  parameter int unsigned InFifoDepth    = 8,
  parameter int unsigned OutFifoDepth   = 2,
  parameter int unsigned MaxOutstanding = 4
) (
  input  logic           clk_i,
  input  logic           rst_ni,

  // OBI slave: registers.
  input  obi_req_t       obi_req_i,
  output obi_rsp_t       obi_rsp_o,

  // OBI master: memory.
  output obi_req_t       m_req_o,
  input  obi_rsp_t       m_rsp_i,

  // The accelerator's memory side: its jobs and the word streams (its mem_req_o / mem_rsp_i).
  input  accel_mem_req_t accel_req_i,
  output accel_mem_rsp_t accel_rsp_o,

  output logic           irq_o
);

  logic     slot_valid, slot_start, slot_end, abort_req;
  dma_job_t slot_job;
  logic     eng_start, eng_busy, eng_done, eng_err;
  dma_job_t eng_job;
  logic     take_port;
  logic     run_port_q, last_port_q;

  couplet_dma_regs u_regs (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .obi_req_i      (obi_req_i),
    .obi_rsp_o      (obi_rsp_o),
    .slot_valid_o   (slot_valid),
    .slot_job_o     (slot_job),
    .slot_start_i   (slot_start),
    .slot_end_i     (slot_end),
    .slot_end_err_i (eng_err),
    .port_busy_i    (eng_busy && run_port_q),
    .abort_o        (abort_req),
    .irq_o          (irq_o)
  );

  // The job port is ready when the engine is free, unless a slot waits and the job port ran
  // the previous job; ready therefore never depends on job_valid. No job starts in the cycle
  // ABORT takes effect.
  assign accel_rsp_o.job_ready = !eng_busy && !abort_req && !(slot_valid && last_port_q);
  assign take_port  = accel_req_i.job_valid && accel_rsp_o.job_ready;
  assign slot_start = !eng_busy && !abort_req && slot_valid && !take_port;
  assign eng_start  = take_port || slot_start;
  assign eng_job    = take_port ? accel_req_i.job : slot_job;

  assign slot_end             = eng_done && !run_port_q;
  assign accel_rsp_o.job_done = eng_done && run_port_q;
  assign accel_rsp_o.job_err  = eng_done && run_port_q && eng_err;
  // An abort written in the cycle a job ends without error still reaches the accelerator.
  assign accel_rsp_o.job_abort    = (eng_done && eng_err) || (abort_req && (!eng_busy || eng_done));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_port_q  <= 1'b0;
      last_port_q <= 1'b0;
    end else if (eng_start) begin
      run_port_q  <= take_port;
      last_port_q <= take_port;
    end
  end

  couplet_dma_engine #(
    .InFifoDepth    (InFifoDepth),
    .OutFifoDepth   (OutFifoDepth),
    .MaxOutstanding (MaxOutstanding)
  ) u_engine (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (eng_start),
    .job_i       (eng_job),
    .abort_i     (abort_req),
    .busy_o      (eng_busy),
    .done_o      (eng_done),
    .err_o       (eng_err),
    .m_req_o     (m_req_o),
    .m_rsp_i     (m_rsp_i),
    .in_valid_o  (accel_rsp_o.in_valid),
    .in_ready_i  (accel_req_i.in_ready),
    .in_data_o   (accel_rsp_o.in_data),
    .out_valid_i (accel_req_i.out_valid),
    .out_ready_o (accel_rsp_o.out_ready),
    .out_data_i  (accel_req_i.out_data)
  );

endmodule
