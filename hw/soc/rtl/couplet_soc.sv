// couplet SoC top: CV32E40X, dual-port SRAM, CLINT, simulation control, and the accelerators
// of the configuration in their couplings.
//
// The memory map and the accelerator set come from couplet_soc_cfg_pkg, generated from
// configs/<name>.toml by `couplet gen`. Instruction fetches reach only the SRAM. Data accesses
// from the core and from the DMA engine (if any) share one port through couplet_obi_arbiter,
// then are decoded to SRAM, CLINT, simctrl and the accelerator register windows; anything else
// is answered with a bus error. Custom instructions reach the accelerators through
// couplet_xif_adapter, or trap as illegal when the configuration has none.
module couplet_soc
  import couplet_soc_cfg_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  output logic        console_valid_o,
  output logic [7:0]  console_data_o,
  output logic        exit_valid_o,
  output logic [7:0]  exit_code_o,
  output logic        core_sleep_o
);

  // Data-bus slave ports (order and regions from the configuration package).
  localparam int unsigned NumData = NumDataSlaves;
  localparam int unsigned DSram   = DataIdxSram;
  localparam int unsigned DClint  = DataIdxClint;
  localparam int unsigned DSimctl = DataIdxSimctrl;

  // Interrupt lines: mip bit positions (RISC-V privileged spec), fast interrupts 16..31.
  localparam int unsigned IrqSoftware = 3;
  localparam int unsigned IrqTimer    = 7;

  // ------------------------------------------------------------------------------ core
  logic        instr_req, instr_gnt, instr_rvalid, instr_err;
  logic [31:0] instr_addr, instr_rdata;
  logic        data_req, data_gnt, data_rvalid, data_we, data_err, data_exokay;
  logic [3:0]  data_be;
  logic [5:0]  data_atop;
  logic [31:0] data_addr, data_wdata, data_rdata;
  logic [31:0] irq;
  logic        timer_irq, soft_irq;
  // Accelerator interrupt lines, in the order the configuration package numbers them.
  logic [15:0] accel_irq;

  always_comb begin
    irq                  = '0;
    irq[IrqSoftware]     = soft_irq;
    irq[IrqTimer]        = timer_irq;
    irq[31:16]           = accel_irq;
  end

  if_xif #(
    .X_NUM_RS   (2),
    .X_ID_WIDTH (4),
    .X_MEM_WIDTH(32)
  ) u_xif ();

  // Unused core outputs, named so that lint sees them consumed on purpose.
  logic [1:0]  instr_memtype, data_memtype;
  logic [2:0]  instr_prot, data_prot;
  logic        instr_dbg, data_dbg;
  logic [63:0] mcycle;
  logic        fencei_flush_req;
  logic        debug_havereset, debug_running, debug_halted;

  cv32e40x_core #(
    .A_EXT            (1'b1),
    .M_EXT            (cv32e40x_pkg::M),
    .X_EXT            (1'b1),
    .X_NUM_RS         (2),
    .X_ID_WIDTH       (4),
    .X_MEM_WIDTH      (32),
    .NUM_MHPMCOUNTERS (1)
  ) u_core (
    .clk_i               (clk_i),
    .rst_ni              (rst_ni),
    .scan_cg_en_i        (1'b0),
    .boot_addr_i         (BootAddr),
    .dm_exception_addr_i (32'h0),
    .dm_halt_addr_i      (32'h0),
    .mhartid_i           (32'h0),
    .mimpid_patch_i      (4'h0),
    .mtvec_addr_i        (MtvecAddr),

    .instr_req_o         (instr_req),
    .instr_gnt_i         (instr_gnt),
    .instr_rvalid_i      (instr_rvalid),
    .instr_addr_o        (instr_addr),
    .instr_memtype_o     (instr_memtype),
    .instr_prot_o        (instr_prot),
    .instr_dbg_o         (instr_dbg),
    .instr_rdata_i       (instr_rdata),
    .instr_err_i         (instr_err),

    .data_req_o          (data_req),
    .data_gnt_i          (data_gnt),
    .data_rvalid_i       (data_rvalid),
    .data_addr_o         (data_addr),
    .data_be_o           (data_be),
    .data_we_o           (data_we),
    .data_wdata_o        (data_wdata),
    .data_memtype_o      (data_memtype),
    .data_prot_o         (data_prot),
    .data_dbg_o          (data_dbg),
    .data_atop_o         (data_atop),
    .data_rdata_i        (data_rdata),
    .data_err_i          (data_err),
    .data_exokay_i       (data_exokay),

    .mcycle_o            (mcycle),

    .xif_compressed_if   (u_xif),
    .xif_issue_if        (u_xif),
    .xif_commit_if       (u_xif),
    .xif_mem_if          (u_xif),
    .xif_mem_result_if   (u_xif),
    .xif_result_if       (u_xif),

    .irq_i               (irq),
    .wu_wfe_i            (1'b0),
    .clic_irq_i          (1'b0),
    .clic_irq_id_i       ('0),
    .clic_irq_level_i    (8'h0),
    .clic_irq_priv_i     (2'h0),
    .clic_irq_shv_i      (1'b0),

    .fencei_flush_req_o  (fencei_flush_req),
    .fencei_flush_ack_i  (fencei_flush_req),  // no caches: a flush completes at once

    .debug_req_i         (1'b0),
    .debug_havereset_o   (debug_havereset),
    .debug_running_o     (debug_running),
    .debug_halted_o      (debug_halted),

    .fetch_enable_i      (1'b1),
    .core_sleep_o        (core_sleep_o)
  );

  logic unused_core_outputs;
  assign unused_core_outputs = ^{instr_memtype, data_memtype, instr_prot, data_prot, instr_dbg,
                                 data_dbg, mcycle, debug_havereset, debug_running, debug_halted};

  // ------------------------------------------------------------------------------ CV-X-IF
  logic [XifArrayLen-1:0]             xif_cmd_valid, xif_cmd_ready, xif_rsp_valid, xif_rsp_ready;
  couplet_accel_pkg::accel_cmd_t      xif_cmd;
  couplet_accel_pkg::accel_rsp_t [XifArrayLen-1:0] xif_rsp;

  if (NumXifPorts > 0) begin : g_xif
    couplet_xif_adapter #(
      .NumPorts  (NumXifPorts),
      .PortMask  (XifMask[NumXifPorts-1:0]),
      .PortMatch (XifMatch[NumXifPorts-1:0])
    ) u_xif_adapter (
      .clk_i             (clk_i),
      .rst_ni            (rst_ni),
      .xif_compressed_if (u_xif),
      .xif_issue_if      (u_xif),
      .xif_commit_if     (u_xif),
      .xif_mem_if        (u_xif),
      .xif_mem_result_if (u_xif),
      .xif_result_if     (u_xif),
      .cmd_valid_o       (xif_cmd_valid[NumXifPorts-1:0]),
      .cmd_ready_i       (xif_cmd_ready[NumXifPorts-1:0]),
      .cmd_o             (xif_cmd),
      .rsp_valid_i       (xif_rsp_valid[NumXifPorts-1:0]),
      .rsp_ready_o       (xif_rsp_ready[NumXifPorts-1:0]),
      .rsp_i             (xif_rsp[NumXifPorts-1:0])
    );
  end else begin : g_no_xif
    // No accelerator on CV-X-IF: custom opcodes trap as illegal instructions.
    couplet_xif_tieoff u_xif_tieoff (
      .xif_compressed_if (u_xif),
      .xif_issue_if      (u_xif),
      .xif_commit_if     (u_xif),
      .xif_mem_if        (u_xif),
      .xif_mem_result_if (u_xif),
      .xif_result_if     (u_xif)
    );
    assign xif_cmd_valid = '0;
    assign xif_rsp_ready = '0;
    assign xif_cmd       = '0;
  end

  // ------------------------------------------------------------------------------ instruction bus
  logic        sram_a_req, sram_a_gnt, sram_a_rvalid, sram_a_err, sram_a_we;
  logic [31:0] sram_a_addr, sram_a_rdata;
  logic [3:0]  sram_a_be;
  logic [31:0] sram_a_wdata;
  logic [5:0]  sram_a_atop;
  logic        instr_exokay;

  couplet_obi_demux #(
    .NumSlaves      (1),
    .SlaveBase      (SramBase),
    .SlaveSize      (SramSize),
    .SlaveAtomics   (1'b0),
    .MaxOutstanding (2)
  ) u_instr_demux (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .m_req_i    (instr_req),
    .m_gnt_o    (instr_gnt),
    .m_addr_i   (instr_addr),
    .m_we_i     (1'b0),
    .m_be_i     (4'hf),
    .m_wdata_i  (32'h0),
    .m_atop_i   (6'h0),
    .m_rvalid_o (instr_rvalid),
    .m_rdata_o  (instr_rdata),
    .m_err_o    (instr_err),
    .m_exokay_o (instr_exokay),
    .s_req_o    (sram_a_req),
    .s_gnt_i    (sram_a_gnt),
    .s_addr_o   (sram_a_addr),
    .s_we_o     (sram_a_we),
    .s_be_o     (sram_a_be),
    .s_wdata_o  (sram_a_wdata),
    .s_atop_o   (sram_a_atop),
    .s_rvalid_i (sram_a_rvalid),
    .s_rdata_i  (sram_a_rdata),
    .s_err_i    (sram_a_err),
    .s_exokay_i (1'b0)
  );

  logic unused_instr_signals;
  assign unused_instr_signals = ^{instr_exokay, sram_a_be, sram_a_wdata, sram_a_atop};

  // ------------------------------------------------------------------------------ data bus
  // The core and the DMA engine share the decoder through an arbiter that adds no cycle.
  // bus_* is the decoder's master side; response data, err and exokay are shared by the
  // arbiter's masters, only rvalid is per master.
  logic        bus_req, bus_gnt, bus_rvalid, bus_we, bus_err, bus_exokay;
  logic [3:0]  bus_be;
  logic [5:0]  bus_atop;
  logic [31:0] bus_addr, bus_wdata, bus_rdata;
  logic        dma_m_req, dma_m_gnt, dma_m_rvalid, dma_m_we;
  logic [3:0]  dma_m_be;
  logic [31:0] dma_m_addr, dma_m_wdata;

  if (DmaEnable) begin : g_arbiter
    logic [1:0] m_rvalid;
    couplet_obi_arbiter #(
      .NumMasters     (2),
      .MaxOutstanding (2)
    ) u_data_arbiter (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .m_req_i    ({dma_m_req, data_req}),
      .m_gnt_o    ({dma_m_gnt, data_gnt}),
      .m_addr_i   ({dma_m_addr, data_addr}),
      .m_we_i     ({dma_m_we, data_we}),
      .m_be_i     ({dma_m_be, data_be}),
      .m_wdata_i  ({dma_m_wdata, data_wdata}),
      .m_atop_i   ({6'h0, data_atop}),
      .m_rvalid_o (m_rvalid),
      .m_rdata_o  (data_rdata),
      .m_err_o    (data_err),
      .m_exokay_o (data_exokay),
      .s_req_o    (bus_req),
      .s_gnt_i    (bus_gnt),
      .s_addr_o   (bus_addr),
      .s_we_o     (bus_we),
      .s_be_o     (bus_be),
      .s_wdata_o  (bus_wdata),
      .s_atop_o   (bus_atop),
      .s_rvalid_i (bus_rvalid),
      .s_rdata_i  (bus_rdata),
      .s_err_i    (bus_err),
      .s_exokay_i (bus_exokay)
    );
    assign data_rvalid  = m_rvalid[0];
    assign dma_m_rvalid = m_rvalid[1];
  end else begin : g_no_arbiter
    assign bus_req      = data_req;
    assign data_gnt     = bus_gnt;
    assign bus_addr     = data_addr;
    assign bus_we       = data_we;
    assign bus_be       = data_be;
    assign bus_wdata    = data_wdata;
    assign bus_atop     = data_atop;
    assign data_rvalid  = bus_rvalid;
    assign data_rdata   = bus_rdata;
    assign data_err     = bus_err;
    assign data_exokay  = bus_exokay;
    assign dma_m_gnt    = 1'b0;
    assign dma_m_rvalid = 1'b0;
  end

  logic [NumData-1:0]       d_req, d_gnt, d_rvalid, d_err, d_exokay;
  logic [NumData-1:0][31:0] d_rdata;
  logic [31:0]              d_addr, d_wdata;
  logic                     d_we;
  logic [3:0]               d_be;
  logic [5:0]               d_atop;

  couplet_obi_demux #(
    .NumSlaves      (NumData),
    .SlaveBase      (DataBase),
    .SlaveSize      (DataSize),
    .SlaveAtomics   (DataAtomics),
    .MaxOutstanding (2)
  ) u_data_demux (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .m_req_i    (bus_req),
    .m_gnt_o    (bus_gnt),
    .m_addr_i   (bus_addr),
    .m_we_i     (bus_we),
    .m_be_i     (bus_be),
    .m_wdata_i  (bus_wdata),
    .m_atop_i   (bus_atop),
    .m_rvalid_o (bus_rvalid),
    .m_rdata_o  (bus_rdata),
    .m_err_o    (bus_err),
    .m_exokay_o (bus_exokay),
    .s_req_o    (d_req),
    .s_gnt_i    (d_gnt),
    .s_addr_o   (d_addr),
    .s_we_o     (d_we),
    .s_be_o     (d_be),
    .s_wdata_o  (d_wdata),
    .s_atop_o   (d_atop),
    .s_rvalid_i (d_rvalid),
    .s_rdata_i  (d_rdata),
    .s_err_i    (d_err),
    .s_exokay_i (d_exokay)
  );

  // ------------------------------------------------------------------------------ slaves
  couplet_sram #(
    .SizeBytes (SramSize)
  ) u_sram (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .a_req_i    (sram_a_req),
    .a_gnt_o    (sram_a_gnt),
    .a_addr_i   (sram_a_addr),
    .a_we_i     (sram_a_we),
    .a_rvalid_o (sram_a_rvalid),
    .a_rdata_o  (sram_a_rdata),
    .a_err_o    (sram_a_err),
    .b_req_i    (d_req[DSram]),
    .b_gnt_o    (d_gnt[DSram]),
    .b_addr_i   (d_addr),
    .b_we_i     (d_we),
    .b_be_i     (d_be),
    .b_wdata_i  (d_wdata),
    .b_atop_i   (d_atop),
    .b_rvalid_o (d_rvalid[DSram]),
    .b_rdata_o  (d_rdata[DSram]),
    .b_err_o    (d_err[DSram]),
    .b_exokay_o (d_exokay[DSram])
  );

  logic [63:0] mtime;

  couplet_clint #(
    .MtimeDivider (MtimeDivider)
  ) u_clint (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (d_req[DClint]),
    .gnt_o       (d_gnt[DClint]),
    .addr_i      (d_addr),
    .we_i        (d_we),
    .be_i        (d_be),
    .wdata_i     (d_wdata),
    .rvalid_o    (d_rvalid[DClint]),
    .rdata_o     (d_rdata[DClint]),
    .err_o       (d_err[DClint]),
    .timer_irq_o (timer_irq),
    .soft_irq_o  (soft_irq),
    .mtime_o     (mtime)
  );
  assign d_exokay[DClint] = 1'b0;

  couplet_simctrl u_simctrl (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_i           (d_req[DSimctl]),
    .gnt_o           (d_gnt[DSimctl]),
    .addr_i          (d_addr),
    .we_i            (d_we),
    .be_i            (d_be),
    .wdata_i         (d_wdata),
    .rvalid_o        (d_rvalid[DSimctl]),
    .rdata_o         (d_rdata[DSimctl]),
    .err_o           (d_err[DSimctl]),
    .console_valid_o (console_valid_o),
    .console_data_o  (console_data_o),
    .exit_valid_o    (exit_valid_o),
    .exit_code_o     (exit_code_o)
  );
  assign d_exokay[DSimctl] = 1'b0;

  // ------------------------------------------------------------------------------ accelerators
  logic aes_irq, dma_irq;

  if (AesEnable) begin : g_aes
    localparam bit AesRegs = AesMmio || AesDma;
    logic        aes_req, dma_req;
    logic        aes_gnt, aes_rvalid, aes_err, dma_gnt, dma_rvalid, dma_err;
    logic [31:0] aes_rdata, dma_rdata;
    logic        aes_cmd_valid, aes_rsp_ready;

    assign aes_req       = AesRegs ? d_req[DataIdxAes] : 1'b0;
    assign dma_req       = AesDma ? d_req[DataIdxDma] : 1'b0;
    assign aes_cmd_valid = (AesTight || AesMem) ? xif_cmd_valid[XifIdxAes] : 1'b0;
    assign aes_rsp_ready = (AesTight || AesMem) ? xif_rsp_ready[XifIdxAes] : 1'b0;

    couplet_aes_tile #(
      .Arch (AesArch),
      .Xif  (AesTight || AesMem),
      .Regs (AesRegs),
      .Dma  (DmaEnable)
    ) u_aes_tile (
      .clk_i           (clk_i),
      .rst_ni          (rst_ni),
      .xif_cmd_valid_i (aes_cmd_valid),
      .xif_cmd_ready_o (xif_cmd_ready[XifIdxAes]),
      .xif_cmd_i       (xif_cmd),
      .xif_rsp_valid_o (xif_rsp_valid[XifIdxAes]),
      .xif_rsp_ready_i (aes_rsp_ready),
      .xif_rsp_o       (xif_rsp[XifIdxAes]),
      .aes_req_i       (aes_req),
      .aes_gnt_o       (aes_gnt),
      .aes_addr_i      (d_addr),
      .aes_we_i        (d_we),
      .aes_be_i        (d_be),
      .aes_wdata_i     (d_wdata),
      .aes_rvalid_o    (aes_rvalid),
      .aes_rdata_o     (aes_rdata),
      .aes_err_o       (aes_err),
      .dma_req_i       (dma_req),
      .dma_gnt_o       (dma_gnt),
      .dma_addr_i      (d_addr),
      .dma_we_i        (d_we),
      .dma_be_i        (d_be),
      .dma_wdata_i     (d_wdata),
      .dma_rvalid_o    (dma_rvalid),
      .dma_rdata_o     (dma_rdata),
      .dma_err_o       (dma_err),
      .m_req_o         (dma_m_req),
      .m_gnt_i         (dma_m_gnt),
      .m_addr_o        (dma_m_addr),
      .m_we_o          (dma_m_we),
      .m_be_o          (dma_m_be),
      .m_wdata_o       (dma_m_wdata),
      .m_rvalid_i      (dma_m_rvalid),
      .m_rdata_i       (data_rdata),
      .m_err_i         (data_err),
      .aes_irq_o       (aes_irq),
      .dma_irq_o       (dma_irq)
    );

    if (AesRegs) begin : g_aes_port
      assign d_gnt[DataIdxAes]    = aes_gnt;
      assign d_rvalid[DataIdxAes] = aes_rvalid;
      assign d_rdata[DataIdxAes]  = aes_rdata;
      assign d_err[DataIdxAes]    = aes_err;
      assign d_exokay[DataIdxAes] = 1'b0;
    end
    if (AesDma) begin : g_dma_port
      assign d_gnt[DataIdxDma]    = dma_gnt;
      assign d_rvalid[DataIdxDma] = dma_rvalid;
      assign d_rdata[DataIdxDma]  = dma_rdata;
      assign d_err[DataIdxDma]    = dma_err;
      assign d_exokay[DataIdxDma] = 1'b0;
    end
  end else begin : g_no_aes
    assign aes_irq   = 1'b0;
    assign dma_irq   = 1'b0;
    assign dma_m_req = 1'b0;
    assign dma_m_addr  = '0;
    assign dma_m_we    = 1'b0;
    assign dma_m_be    = '0;
    assign dma_m_wdata = '0;
  end

  if (AesZkn) begin : g_zkn
    couplet_aes_zkn u_aes_zkn (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .cmd_valid_i (xif_cmd_valid[XifIdxZkn]),
      .cmd_ready_o (xif_cmd_ready[XifIdxZkn]),
      .cmd_i       (xif_cmd),
      .rsp_valid_o (xif_rsp_valid[XifIdxZkn]),
      .rsp_ready_i (xif_rsp_ready[XifIdxZkn]),
      .rsp_o       (xif_rsp[XifIdxZkn])
    );
  end

  if (NumXifPorts == 0) begin : g_no_xif_ports
    assign xif_cmd_ready = '0;
    assign xif_rsp_valid = '0;
    assign xif_rsp       = '0;
  end

  always_comb begin
    accel_irq = '0;
    if (AesEnable && (AesMmio || AesDma)) begin
      accel_irq[IrqIdxAes] = aes_irq;
    end
    if (DmaEnable) begin
      accel_irq[IrqIdxDma] = dma_irq;
    end
  end

  logic unused_soc_signals;
  assign unused_soc_signals = ^{mtime, ClockHz, aes_irq, dma_irq, dma_m_rvalid};

endmodule
