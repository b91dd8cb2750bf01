// One accelerator with the front doors of the couplings a configuration selects.
//
// The accelerator (couplet_aes, couplet_keccak or couplet_rtos: they share one port list) serves
// every selected coupling (docs/coupling.md); a stateless instruction unit (couplet_aes_zkn,
// couplet_keccak_ise) has the command port only and sits on a tile with the X-IF door alone:
//   - tight / mem: a command port from the CV-X-IF adapter (xif_*);
//   - mmio / dma:  its registers on the data bus through couplet_reg_adapter (regs_*);
//   - mem / dma:   the tile's own DMA engine, fed by the accelerator's job port (mem) and by its
//                  descriptor registers (dma_*), moving words over the OBI master port (m_*).
// When several command sources exist, couplet_accel_cmd_mux merges them. Absent couplings
// leave their ports unused and cost no logic.
module couplet_accel_tile
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
  import couplet_tile_pkg::*;
#(
  parameter accel_kind_e Kind  = AccelKindAes,
  // The engines' build parameters (the SoC package's AccelCfg); the tile uses its kind's part,
  // field by field under the names of the configuration and the IP's description.
  parameter accel_cfg_t  Cfg   = AccelCfgDefault,
  parameter bit          Xif   = 1'b1,  // tight, mem, zkn or ise coupling
  parameter bit          Regs  = 1'b1,  // mmio or dma coupling
  parameter bit          Dma   = 1'b1   // mem or dma coupling: the DMA engine exists
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Command port from the CV-X-IF adapter.
  input  logic        xif_cmd_valid_i,
  output logic        xif_cmd_ready_o,
  input  accel_cmd_t  xif_cmd_i,
  output logic        xif_rsp_valid_o,
  input  logic        xif_rsp_ready_i,
  output accel_rsp_t  xif_rsp_o,

  // OBI slave: the accelerator's registers.
  input  obi_req_t    regs_req_i,
  output obi_rsp_t    regs_rsp_o,

  // OBI slave: the DMA descriptor registers.
  input  obi_req_t    dma_req_i,
  output obi_rsp_t    dma_rsp_o,

  // OBI master of the DMA engine.
  output obi_req_t    m_req_o,
  input  obi_rsp_t    m_rsp_i,

  output logic        accel_irq_o,
  output logic        dma_irq_o
);

  localparam int unsigned NumCmd = int'(Xif) + int'(Regs);

  // ------------------------------------------------------------------------ command sources
  logic       reg_cmd_valid, reg_cmd_ready, reg_rsp_valid, reg_rsp_ready;
  accel_cmd_t reg_cmd;
  accel_rsp_t reg_rsp;

  if (Regs) begin : g_regs
    couplet_reg_adapter u_reg_adapter (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .obi_req_i   (regs_req_i),
      .obi_rsp_o   (regs_rsp_o),
      .cmd_valid_o (reg_cmd_valid),
      .cmd_ready_i (reg_cmd_ready),
      .cmd_o       (reg_cmd),
      .rsp_valid_i (reg_rsp_valid),
      .rsp_ready_o (reg_rsp_ready),
      .rsp_i       (reg_rsp)
    );
  end else begin : g_no_regs
    assign regs_rsp_o    = '0;
    assign reg_cmd_valid = 1'b0;
    assign reg_cmd       = '0;
    assign reg_rsp_ready = 1'b1;
    logic unused_regs_bus;
    assign unused_regs_bus = ^{regs_req_i, reg_cmd_ready, reg_rsp_valid, reg_rsp};
  end

  // Merge the sources into the accelerator's one command port.
  logic       cmd_valid, cmd_ready, rsp_valid, rsp_ready;
  accel_cmd_t cmd;
  accel_rsp_t rsp;

  if (NumCmd == 2) begin : g_mux
    logic [1:0]       in_cmd_valid, in_cmd_ready, in_rsp_valid, in_rsp_ready;
    accel_cmd_t [1:0] in_cmd;
    accel_rsp_t       in_rsp;  // shared; in_rsp_valid says whose it is
    assign in_cmd_valid = {reg_cmd_valid, xif_cmd_valid_i};
    assign in_cmd       = {reg_cmd, xif_cmd_i};
    assign in_rsp_ready = {reg_rsp_ready, xif_rsp_ready_i};
    assign xif_cmd_ready_o = in_cmd_ready[0];
    assign reg_cmd_ready   = in_cmd_ready[1];
    assign xif_rsp_valid_o = in_rsp_valid[0];
    assign reg_rsp_valid   = in_rsp_valid[1];
    assign xif_rsp_o       = in_rsp;
    assign reg_rsp         = in_rsp;

    couplet_accel_cmd_mux #(
      .NumIn (2)
    ) u_cmd_mux (
      .clk_i           (clk_i),
      .rst_ni          (rst_ni),
      .in_cmd_valid_i  (in_cmd_valid),
      .in_cmd_ready_o  (in_cmd_ready),
      .in_cmd_i        (in_cmd),
      .in_rsp_valid_o  (in_rsp_valid),
      .in_rsp_ready_i  (in_rsp_ready),
      .in_rsp_o        (in_rsp),
      .cmd_valid_o     (cmd_valid),
      .cmd_ready_i     (cmd_ready),
      .cmd_o           (cmd),
      .rsp_valid_i     (rsp_valid),
      .rsp_ready_o     (rsp_ready),
      .rsp_i           (rsp)
    );
  end else if (Xif) begin : g_xif_only
    assign cmd_valid       = xif_cmd_valid_i;
    assign cmd             = xif_cmd_i;
    assign xif_cmd_ready_o = cmd_ready;
    assign xif_rsp_valid_o = rsp_valid;
    assign xif_rsp_o       = rsp;
    assign rsp_ready       = xif_rsp_ready_i;
    assign reg_cmd_ready   = 1'b0;
    assign reg_rsp_valid   = 1'b0;
    assign reg_rsp         = '0;
    logic unused_reg_cmd;  // the absent register door's idle command side
    assign unused_reg_cmd = ^{reg_cmd_valid, reg_cmd, reg_rsp_ready};
  end else begin : g_regs_only
    assign cmd_valid       = reg_cmd_valid;
    assign cmd             = reg_cmd;
    assign reg_cmd_ready   = cmd_ready;
    assign reg_rsp_valid   = rsp_valid;
    assign reg_rsp         = rsp;
    assign rsp_ready       = reg_rsp_ready;
    assign xif_cmd_ready_o = 1'b0;
    assign xif_rsp_valid_o = 1'b0;
    assign xif_rsp_o       = '0;
  end

  if (!Xif) begin : g_no_xif
    logic unused_xif;
    assign unused_xif = ^{xif_cmd_valid_i, xif_cmd_i, xif_rsp_ready_i};
  end

  // ------------------------------------------------------------------------ accelerator + DMA
  logic        job_valid, job_ready, job_done, job_err, dma_abort;
  dma_job_t    job;
  logic        in_valid, in_ready, out_valid, out_ready;
  logic [31:0] in_data, out_data;

  if (Kind == AccelKindRtos) begin : g_rtos
    couplet_rtos #(
      .MaxThreads    (int'(Cfg.rtos.max_threads)),
      .NumPrio       (int'(Cfg.rtos.priorities)),
      .PrioAscending (int'(Cfg.rtos.priority_order == rtos_reg_pkg::RtosPriorityOrderAscending)),
      .PrioInherit   (int'(Cfg.rtos.priority_inheritance)),
      .NumMutex      (int'(Cfg.rtos.mutexes)),
      .NumSem        (int'(Cfg.rtos.semaphores)),
      .NumQueue      (int'(Cfg.rtos.queues)),
      .MsgWords      (int'(Cfg.rtos.message_words)),
      .QueueDepth    (int'(Cfg.rtos.queue_depth))
    ) u_rtos (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .cmd_valid_i (cmd_valid),
      .cmd_ready_o (cmd_ready),
      .cmd_i       (cmd),
      .rsp_valid_o (rsp_valid),
      .rsp_ready_i (rsp_ready),
      .rsp_o       (rsp),
      .job_valid_o (job_valid),
      .job_ready_i (job_ready),
      .job_o       (job),
      .job_done_i  (job_done),
      .job_err_i   (job_err),
      .dma_abort_i (dma_abort),
      .in_valid_i  (in_valid),
      .in_ready_o  (in_ready),
      .in_data_i   (in_data),
      .out_valid_o (out_valid),
      .out_ready_i (out_ready),
      .out_data_o  (out_data),
      .irq_o       (accel_irq_o)
    );
  end else if (Kind == AccelKindKeccak) begin : g_keccak
    couplet_keccak #(
      .RoundsPerCycle (int'(Cfg.keccak.rounds_per_cycle))
    ) u_keccak (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .cmd_valid_i (cmd_valid),
      .cmd_ready_o (cmd_ready),
      .cmd_i       (cmd),
      .rsp_valid_o (rsp_valid),
      .rsp_ready_i (rsp_ready),
      .rsp_o       (rsp),
      .job_valid_o (job_valid),
      .job_ready_i (job_ready),
      .job_o       (job),
      .job_done_i  (job_done),
      .job_err_i   (job_err),
      .dma_abort_i (dma_abort),
      .in_valid_i  (in_valid),
      .in_ready_o  (in_ready),
      .in_data_i   (in_data),
      .out_valid_o (out_valid),
      .out_ready_i (out_ready),
      .out_data_o  (out_data),
      .irq_o       (accel_irq_o)
    );
  end else if (Kind == AccelKindAes) begin : g_aes
    couplet_aes #(
      .Arch (Cfg.aes.arch)
    ) u_aes (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .cmd_valid_i (cmd_valid),
      .cmd_ready_o (cmd_ready),
      .cmd_i       (cmd),
      .rsp_valid_o (rsp_valid),
      .rsp_ready_i (rsp_ready),
      .rsp_o       (rsp),
      .job_valid_o (job_valid),
      .job_ready_i (job_ready),
      .job_o       (job),
      .job_done_i  (job_done),
      .job_err_i   (job_err),
      .dma_abort_i (dma_abort),
      .in_valid_i  (in_valid),
      .in_ready_o  (in_ready),
      .in_data_i   (in_data),
      .out_valid_o (out_valid),
      .out_ready_i (out_ready),
      .out_data_o  (out_data),
      .irq_o       (accel_irq_o)
    );
  end else begin : g_isa_unit
    // A stateless instruction unit answers commands only: it has no job, streams or interrupt.
    if (Kind == AccelKindZkn) begin : g_zkn
      couplet_aes_zkn u_aes_zkn (
        .clk_i       (clk_i),
        .rst_ni      (rst_ni),
        .cmd_valid_i (cmd_valid),
        .cmd_ready_o (cmd_ready),
        .cmd_i       (cmd),
        .rsp_valid_o (rsp_valid),
        .rsp_ready_i (rsp_ready),
        .rsp_o       (rsp)
      );
    end else begin : g_keccak_ise
      couplet_keccak_ise u_keccak_ise (
        .clk_i       (clk_i),
        .rst_ni      (rst_ni),
        .cmd_valid_i (cmd_valid),
        .cmd_ready_o (cmd_ready),
        .cmd_i       (cmd),
        .rsp_valid_o (rsp_valid),
        .rsp_ready_i (rsp_ready),
        .rsp_o       (rsp)
      );
    end
    assign job_valid   = 1'b0;
    assign job         = '0;
    assign in_ready    = 1'b0;
    assign out_valid   = 1'b0;
    assign out_data    = '0;
    assign accel_irq_o = 1'b0;
    logic unused_engine_ports;
    assign unused_engine_ports = ^{job_ready, job_done, job_err, dma_abort, in_valid, in_data, out_ready};
  end

  if (Dma) begin : g_dma
    couplet_dma u_dma (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .obi_req_i   (dma_req_i),
      .obi_rsp_o   (dma_rsp_o),
      .m_req_o     (m_req_o),
      .m_rsp_i     (m_rsp_i),
      .job_valid_i (job_valid),
      .job_ready_o (job_ready),
      .job_i       (job),
      .job_done_o  (job_done),
      .job_err_o   (job_err),
      .in_valid_o  (in_valid),
      .in_ready_i  (in_ready),
      .in_data_o   (in_data),
      .out_valid_i (out_valid),
      .out_ready_o (out_ready),
      .out_data_i  (out_data),
      .abort_o     (dma_abort),
      .irq_o       (dma_irq_o)
    );
  end else begin : g_no_dma
    // Without an engine a MEM action must still end: its job is taken and, one cycle later,
    // finished with an error, which the accelerator reports as a bus error status.
    logic job_done_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        job_done_q <= 1'b0;
      end else begin
        job_done_q <= job_valid && !job_done_q;
      end
    end
    assign job_ready    = !job_done_q;
    assign job_done     = job_done_q;
    assign job_err      = 1'b1;
    assign dma_abort    = 1'b0;
    assign in_valid     = 1'b0;
    assign in_data      = '0;
    assign out_ready    = 1'b1;
    assign dma_rsp_o    = '0;
    assign m_req_o      = '0;
    assign dma_irq_o    = 1'b0;
    logic unused_dma;
    assign unused_dma = ^{dma_req_i, m_rsp_i, job, in_ready, out_valid, out_data};
  end

endmodule
