// couplet SoC top: CV32E40X, dual-port SRAM, CLINT, simulation control, and the accelerators
// of the configuration in their couplings.
//
// The memory map and the accelerator set come from couplet_soc_cfg_pkg, generated from
// configs/<name>.toml by `couplet gen`. Instruction fetches reach only the SRAM. Data accesses
// from the core and from the tiles' DMA engines (if any) share one port through couplet_obi_arbiter,
// then are decoded to SRAM, CLINT, simctrl and the accelerator register windows; anything else
// is answered with a bus error. Custom instructions reach the accelerators through
// couplet_xif_adapter, or trap as illegal when the configuration has none.
//
// The console is a valid/ready stream (console_ready_i = 1 in simulation, a UART on a board).
// SramInitFile preloads the SRAM from a $readmemh file (FPGA builds); the simulator leaves it
// empty and loads the ELF through the SRAM's DPI back door instead.
module couplet_soc
  import couplet_soc_cfg_pkg::*;
#(
  parameter string SramInitFile = ""
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  output logic        console_valid_o,
  output logic [7:0]  console_data_o,
  input  logic        console_ready_i,
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
  // The core and the tiles' DMA engines share the decoder through an arbiter that adds no cycle.
  // Master 0 is the core, master TileMasterIdx[t] the DMA engine of tile t. bus_* is the
  // decoder's master side; response data, err and exokay are shared by the arbiter's masters,
  // only rvalid is per master.
  localparam int unsigned NumMasters = 1 + NumDmaEngines;

  logic        bus_req, bus_gnt, bus_rvalid, bus_we, bus_err, bus_exokay;
  logic [3:0]  bus_be;
  logic [5:0]  bus_atop;
  logic [31:0] bus_addr, bus_wdata, bus_rdata;
  logic [NumMasters-1:0]       mst_req, mst_gnt, mst_rvalid, mst_we;
  logic [NumMasters-1:0][3:0]  mst_be;
  logic [NumMasters-1:0][31:0] mst_addr, mst_wdata;
  logic [NumMasters-1:0][5:0]  mst_atop;

  assign mst_req[0]   = data_req;
  assign mst_addr[0]  = data_addr;
  assign mst_we[0]    = data_we;
  assign mst_be[0]    = data_be;
  assign mst_wdata[0] = data_wdata;
  assign mst_atop[0]  = data_atop;
  assign data_gnt     = mst_gnt[0];
  assign data_rvalid  = mst_rvalid[0];

  if (NumDmaEngines > 0) begin : g_arbiter
    couplet_obi_arbiter #(
      .NumMasters     (NumMasters),
      .MaxOutstanding (2)
    ) u_data_arbiter (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .m_req_i    (mst_req),
      .m_gnt_o    (mst_gnt),
      .m_addr_i   (mst_addr),
      .m_we_i     (mst_we),
      .m_be_i     (mst_be),
      .m_wdata_i  (mst_wdata),
      .m_atop_i   (mst_atop),
      .m_rvalid_o (mst_rvalid),
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
  end else begin : g_no_arbiter
    assign bus_req       = mst_req[0];
    assign mst_gnt[0]    = bus_gnt;
    assign bus_addr      = mst_addr[0];
    assign bus_we        = mst_we[0];
    assign bus_be        = mst_be[0];
    assign bus_wdata     = mst_wdata[0];
    assign bus_atop      = mst_atop[0];
    assign mst_rvalid[0] = bus_rvalid;
    assign data_rdata    = bus_rdata;
    assign data_err      = bus_err;
    assign data_exokay   = bus_exokay;
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
    .SizeBytes (SramSize),
    .InitFile  (SramInitFile)
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
    .console_ready_i (console_ready_i),
    .exit_valid_o    (exit_valid_o),
    .exit_code_o     (exit_code_o)
  );
  assign d_exokay[DSimctl] = 1'b0;

  // ------------------------------------------------------------------------------ accelerators
  // Per tile: its accelerator's interrupt and its DMA engine's (unused entries stay low).
  logic [TileArrayLen-1:0] tile_irq, tile_dma_irq;

  for (genvar t = 0; t < NumTiles; t++) begin : g_tile
    localparam int unsigned XifIdx   = int'(TileXifIdx[t]);
    localparam int unsigned RegsIdx  = int'(TileRegsIdx[t]);
    localparam int unsigned DmaIdx   = int'(TileDmaRegsIdx[t]);
    localparam int unsigned MstIdx   = int'(TileMasterIdx[t]);

    logic        regs_req, regs_gnt, regs_rvalid, regs_err;
    logic        dma_req, dma_gnt, dma_rvalid, dma_err;
    logic [31:0] regs_rdata, dma_rdata;
    logic        cmd_valid, cmd_ready, rsp_valid, rsp_ready;
    couplet_accel_pkg::accel_rsp_t rsp;
    logic        m_req, m_gnt, m_we, m_rvalid;
    logic [3:0]  m_be;
    logic [31:0] m_addr, m_wdata;

    assign regs_req  = TileRegs[t] ? d_req[RegsIdx] : 1'b0;
    assign dma_req   = TileDmaRegs[t] ? d_req[DmaIdx] : 1'b0;
    assign cmd_valid = TileXif[t] ? xif_cmd_valid[XifIdx] : 1'b0;
    assign rsp_ready = TileXif[t] ? xif_rsp_ready[XifIdx] : 1'b0;
    assign m_gnt     = TileDmaEngine[t] ? mst_gnt[MstIdx] : 1'b0;
    assign m_rvalid  = TileDmaEngine[t] ? mst_rvalid[MstIdx] : 1'b0;

    couplet_accel_tile #(
      .Kind  (couplet_accel_pkg::accel_kind_e'(TileKind[t])),
      .Param (int'(TileParam[t])),
      .Xif   (TileXif[t]),
      .Regs  (TileRegs[t]),
      .Dma   (TileDmaEngine[t])
    ) u_tile (
      .clk_i           (clk_i),
      .rst_ni          (rst_ni),
      .xif_cmd_valid_i (cmd_valid),
      .xif_cmd_ready_o (cmd_ready),
      .xif_cmd_i       (xif_cmd),
      .xif_rsp_valid_o (rsp_valid),
      .xif_rsp_ready_i (rsp_ready),
      .xif_rsp_o       (rsp),
      .regs_req_i      (regs_req),
      .regs_gnt_o      (regs_gnt),
      .regs_addr_i     (d_addr),
      .regs_we_i       (d_we),
      .regs_be_i       (d_be),
      .regs_wdata_i    (d_wdata),
      .regs_rvalid_o   (regs_rvalid),
      .regs_rdata_o    (regs_rdata),
      .regs_err_o      (regs_err),
      .dma_req_i       (dma_req),
      .dma_gnt_o       (dma_gnt),
      .dma_addr_i      (d_addr),
      .dma_we_i        (d_we),
      .dma_be_i        (d_be),
      .dma_wdata_i     (d_wdata),
      .dma_rvalid_o    (dma_rvalid),
      .dma_rdata_o     (dma_rdata),
      .dma_err_o       (dma_err),
      .m_req_o         (m_req),
      .m_gnt_i         (m_gnt),
      .m_addr_o        (m_addr),
      .m_we_o          (m_we),
      .m_be_o          (m_be),
      .m_wdata_o       (m_wdata),
      .m_rvalid_i      (m_rvalid),
      .m_rdata_i       (data_rdata),
      .m_err_i         (data_err),
      .accel_irq_o     (tile_irq[t]),
      .dma_irq_o       (tile_dma_irq[t])
    );

    if (TileXif[t]) begin : g_xif_port
      assign xif_cmd_ready[XifIdx] = cmd_ready;
      assign xif_rsp_valid[XifIdx] = rsp_valid;
      assign xif_rsp[XifIdx]       = rsp;
    end else begin : g_no_xif_port
      logic unused_xif;
      assign unused_xif = ^{cmd_ready, rsp_valid, rsp};
    end
    if (TileRegs[t]) begin : g_regs_port
      assign d_gnt[RegsIdx]    = regs_gnt;
      assign d_rvalid[RegsIdx] = regs_rvalid;
      assign d_rdata[RegsIdx]  = regs_rdata;
      assign d_err[RegsIdx]    = regs_err;
      assign d_exokay[RegsIdx] = 1'b0;
    end else begin : g_no_regs_port
      logic unused_regs_port;
      assign unused_regs_port = ^{regs_gnt, regs_rvalid, regs_rdata, regs_err};
    end
    if (TileDmaRegs[t]) begin : g_dma_port
      assign d_gnt[DmaIdx]    = dma_gnt;
      assign d_rvalid[DmaIdx] = dma_rvalid;
      assign d_rdata[DmaIdx]  = dma_rdata;
      assign d_err[DmaIdx]    = dma_err;
      assign d_exokay[DmaIdx] = 1'b0;
    end else begin : g_no_dma_port
      // An engine fed only by its accelerator's job port (mem coupling, RTOS message copies)
      // has no descriptor window on the bus.
      logic unused_dma_port;
      assign unused_dma_port = ^{dma_gnt, dma_rvalid, dma_rdata, dma_err};
    end
    if (TileDmaEngine[t]) begin : g_master
      assign mst_req[MstIdx]   = m_req;
      assign mst_addr[MstIdx]  = m_addr;
      assign mst_we[MstIdx]    = m_we;
      assign mst_be[MstIdx]    = m_be;
      assign mst_wdata[MstIdx] = m_wdata;
      assign mst_atop[MstIdx]  = 6'h0;  // a DMA engine issues no atomics
    end else begin : g_no_master
      logic unused_master;
      assign unused_master = ^{m_req, m_addr, m_we, m_be, m_wdata};
    end
  end

  for (genvar t = NumTiles; t < TileArrayLen; t++) begin : g_no_tile
    assign tile_irq[t]     = 1'b0;
    assign tile_dma_irq[t] = 1'b0;
  end

  if (ZknEnable) begin : g_zkn
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

  if (KeccakIseEnable) begin : g_keccak_ise
    couplet_keccak_ise u_keccak_ise (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .cmd_valid_i (xif_cmd_valid[XifIdxKeccakIse]),
      .cmd_ready_o (xif_cmd_ready[XifIdxKeccakIse]),
      .cmd_i       (xif_cmd),
      .rsp_valid_o (xif_rsp_valid[XifIdxKeccakIse]),
      .rsp_ready_i (xif_rsp_ready[XifIdxKeccakIse]),
      .rsp_o       (xif_rsp[XifIdxKeccakIse])
    );
  end

  if (NumXifPorts == 0) begin : g_no_xif_ports
    assign xif_cmd_ready = '0;
    assign xif_rsp_valid = '0;
    assign xif_rsp       = '0;
    logic unused_xif_ports;
    assign unused_xif_ports = ^{xif_cmd_valid, xif_cmd_ready, xif_rsp_valid, xif_rsp_ready, xif_cmd,
                                xif_rsp};
  end

  if (NumTiles > 0) begin : g_tile_irqs
    always_comb begin
      accel_irq = '0;
      for (int unsigned t = 0; t < NumTiles; t++) begin
        if (TileRegs[t]) begin
          accel_irq[TileIrqIdx[t][3:0]] = tile_irq[t];
        end
        if (TileDmaEngine[t]) begin
          accel_irq[TileDmaIrqIdx[t][3:0]] = tile_dma_irq[t];
        end
      end
    end
  end else begin : g_no_tile_irqs
    assign accel_irq = '0;
  end

  logic unused_soc_signals;
  assign unused_soc_signals = ^{mtime, ClockHz, tile_irq, tile_dma_irq};

endmodule
