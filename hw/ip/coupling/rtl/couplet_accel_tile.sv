// One accelerator with the front doors of the couplings a configuration selects.
//
// The engine (couplet_aes, couplet_keccak or couplet_rtos: they share one port list) serves
// every selected coupling (docs/coupling.md); a stateless instruction unit (couplet_aes_zkn,
// couplet_keccak_ise) has the command port only and sits on a tile with the X-IF door alone:
//   - tight / mem: a command port from the CV-X-IF adapter (xif_*);
//   - mmio / dma:  its registers on the data bus through couplet_reg_adapter (regs_*);
//   - mem / dma:   the tile's own DMA engine, fed by the accelerator's job port (mem) and by its
//                  descriptor registers (dma_*), moving words over the OBI master port (m_*).
// When several command sources exist, couplet_accel_cmd_mux merges them; with Slice the merged
// port reaches the engine through couplet_accel_cmd_slice. Absent couplings leave their ports
// unused and cost no logic.
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
  parameter bit          Dma   = 1'b1,  // mem or dma coupling: the DMA engine exists
  // A register stage between the couplings and the engine's command port (couplet_accel_cmd_slice:
  // two cycles more per command, no path from the core or the bus into the engine in one cycle).
  parameter bit          Slice = 1'b0
) (
  input  logic           clk_i,
  input  logic           rst_ni,

  // Command port from the CV-X-IF adapter.
  input  accel_cmd_req_t xif_cmd_req_i,
  output logic           xif_cmd_ready_o,
  output accel_cmd_rsp_t xif_cmd_rsp_o,

  // OBI slave: the accelerator's registers.
  input  obi_req_t       regs_req_i,
  output obi_rsp_t       regs_rsp_o,

  // OBI slave: the DMA descriptor registers.
  input  obi_req_t       dma_req_i,
  output obi_rsp_t       dma_rsp_o,

  // OBI master of the DMA engine.
  output obi_req_t       m_req_o,
  input  obi_rsp_t       m_rsp_i,

  output logic           accel_irq_o,
  output logic           dma_irq_o
);

  localparam int unsigned NumCmd = int'(Xif) + int'(Regs);

  // ------------------------------------------------------------------------ command sources
  accel_cmd_req_t reg_cmd_req;
  logic           reg_cmd_ready;
  accel_cmd_rsp_t reg_cmd_rsp;

  if (Regs) begin : g_regs
    couplet_reg_adapter u_reg_adapter (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .obi_req_i   (regs_req_i),
      .obi_rsp_o   (regs_rsp_o),
      .cmd_req_o   (reg_cmd_req),
      .cmd_ready_i (reg_cmd_ready),
      .cmd_rsp_i   (reg_cmd_rsp)
    );
  end else begin : g_no_regs
    assign regs_rsp_o  = '0;
    assign reg_cmd_req = '{valid: 1'b0, cmd: '0, rsp_ready: 1'b1};  // cmd as a whole: slang refuses '0 for its op enum
    logic unused_regs_bus;
    assign unused_regs_bus = ^{regs_req_i, reg_cmd_ready, reg_cmd_rsp};
  end

  // Merge the sources into one command port (src_*), then, with Slice, through a register
  // stage into the engine's (eng_*).
  accel_cmd_req_t src_cmd_req, eng_cmd_req;
  logic           src_cmd_ready, eng_cmd_ready;
  accel_cmd_rsp_t src_cmd_rsp, eng_cmd_rsp;
  accel_mem_req_t eng_mem_req;
  accel_mem_rsp_t eng_mem_rsp;

  if (NumCmd == 2) begin : g_mux
    accel_cmd_rsp_t [1:0] in_rsp;
    couplet_accel_cmd_mux #(
      .NumIn (2)
    ) u_cmd_mux (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .in_req_i   ({reg_cmd_req, xif_cmd_req_i}),
      .in_ready_o ({reg_cmd_ready, xif_cmd_ready_o}),
      .in_rsp_o   (in_rsp),
      .req_o      (src_cmd_req),
      .ready_i    (src_cmd_ready),
      .rsp_i      (src_cmd_rsp)
    );
    assign xif_cmd_rsp_o = in_rsp[0];
    assign reg_cmd_rsp   = in_rsp[1];
  end else if (Xif) begin : g_xif_only
    assign src_cmd_req     = xif_cmd_req_i;
    assign xif_cmd_ready_o = src_cmd_ready;
    assign xif_cmd_rsp_o   = src_cmd_rsp;
    assign reg_cmd_ready   = 1'b0;
    assign reg_cmd_rsp     = '0;
    logic unused_reg_cmd;  // the absent register door's idle command side
    assign unused_reg_cmd = ^reg_cmd_req;
  end else begin : g_regs_only
    assign src_cmd_req     = reg_cmd_req;
    assign reg_cmd_ready   = src_cmd_ready;
    assign reg_cmd_rsp     = src_cmd_rsp;
    assign xif_cmd_ready_o = 1'b0;
    assign xif_cmd_rsp_o   = '0;
  end

  if (!Xif) begin : g_no_xif
    logic unused_xif;
    assign unused_xif = ^xif_cmd_req_i;
  end

  if (Slice) begin : g_slice
    couplet_accel_cmd_slice u_cmd_slice (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .in_req_i    (src_cmd_req),
      .in_ready_o  (src_cmd_ready),
      .in_rsp_o    (src_cmd_rsp),
      .out_req_o   (eng_cmd_req),
      .out_ready_i (eng_cmd_ready),
      .out_rsp_i   (eng_cmd_rsp)
    );
  end else begin : g_no_slice
    assign eng_cmd_req   = src_cmd_req;
    assign src_cmd_ready = eng_cmd_ready;
    assign src_cmd_rsp   = eng_cmd_rsp;
  end

  // ------------------------------------------------------------------------ engine + DMA
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
      .clk_i, .rst_ni, .cmd_req_i(eng_cmd_req), .cmd_ready_o(eng_cmd_ready), .cmd_rsp_o(eng_cmd_rsp),
      .mem_req_o(eng_mem_req), .mem_rsp_i(eng_mem_rsp), .irq_o(accel_irq_o)
    );
  end else if (Kind == AccelKindKeccak) begin : g_keccak
    couplet_keccak #(
      .RoundsPerCycle (int'(Cfg.keccak.rounds_per_cycle))
    ) u_keccak (
      .clk_i, .rst_ni, .cmd_req_i(eng_cmd_req), .cmd_ready_o(eng_cmd_ready), .cmd_rsp_o(eng_cmd_rsp),
      .mem_req_o(eng_mem_req), .mem_rsp_i(eng_mem_rsp), .irq_o(accel_irq_o)
    );
  end else if (Kind == AccelKindAes) begin : g_aes
    couplet_aes #(
      .Arch      (Cfg.aes.arch),
      .Decrypt   (Cfg.aes.decrypt),
      .KeySizes  (Cfg.aes.key_sizes),
      .GhashBits (int'(Cfg.aes.ghash_bits)),
      .StreamHandover (Cfg.aes.stream_handover)
    ) u_aes (
      .clk_i, .rst_ni, .cmd_req_i(eng_cmd_req), .cmd_ready_o(eng_cmd_ready), .cmd_rsp_o(eng_cmd_rsp),
      .mem_req_o(eng_mem_req), .mem_rsp_i(eng_mem_rsp), .irq_o(accel_irq_o)
    );
  end else begin : g_isa_unit
    // A stateless instruction unit answers commands only: it has no job, streams or interrupt.
    if (Kind == AccelKindZkn) begin : g_zkn
      couplet_aes_zkn u_aes_zkn (
        .clk_i, .rst_ni, .cmd_req_i(eng_cmd_req), .cmd_ready_o(eng_cmd_ready),
        .cmd_rsp_o(eng_cmd_rsp)
      );
    end else begin : g_keccak_ise
      couplet_keccak_ise u_keccak_ise (
        .clk_i, .rst_ni, .cmd_req_i(eng_cmd_req), .cmd_ready_o(eng_cmd_ready),
        .cmd_rsp_o(eng_cmd_rsp)
      );
    end
    assign eng_mem_req = '0;
    assign accel_irq_o = 1'b0;
    logic unused_engine_mem;
    assign unused_engine_mem = ^eng_mem_rsp;
  end

  if (Dma) begin : g_dma
    couplet_dma u_dma (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .obi_req_i   (dma_req_i),
      .obi_rsp_o   (dma_rsp_o),
      .m_req_o     (m_req_o),
      .m_rsp_i     (m_rsp_i),
      .accel_req_i (eng_mem_req),
      .accel_rsp_o (eng_mem_rsp),
      .irq_o       (dma_irq_o)
    );
  end else begin : g_no_dma
    // Without an engine a MEM action must still end: its job is taken and, one cycle later,
    // finished with an error, which the accelerator reports as a bus error status. Output words
    // are drained.
    logic job_done_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        job_done_q <= 1'b0;
      end else begin
        job_done_q <= eng_mem_req.job_valid && !job_done_q;
      end
    end
    assign eng_mem_rsp = '{job_ready: !job_done_q, job_done: job_done_q, job_err: 1'b1,
                          out_ready: 1'b1, default: '0};
    assign dma_rsp_o  = '0;
    assign m_req_o    = '0;
    assign dma_irq_o  = 1'b0;
    logic unused_dma;
    assign unused_dma = ^{dma_req_i, m_rsp_i, eng_mem_req.job, eng_mem_req.in_ready,
                          eng_mem_req.out_valid, eng_mem_req.out_data};
  end

endmodule
