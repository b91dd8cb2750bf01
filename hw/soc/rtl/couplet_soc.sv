// couplet SoC top: CV32E40X, dual-port SRAM, CLINT, simulation control, and the tiles of the
// configuration (hw/ip/coupling): each an accelerator or instruction unit behind its couplings.
// The top names no accelerator: what each tile holds comes from the package.
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
  import couplet_obi_pkg::*;
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
  couplet_accel_pkg::accel_cmd_req_t [XifArrayLen-1:0] xif_cmd_req;
  logic                              [XifArrayLen-1:0] xif_cmd_ready;
  couplet_accel_pkg::accel_cmd_rsp_t [XifArrayLen-1:0] xif_cmd_rsp;

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
      .cmd_req_o         (xif_cmd_req[NumXifPorts-1:0]),
      .cmd_ready_i       (xif_cmd_ready[NumXifPorts-1:0]),
      .cmd_rsp_i         (xif_cmd_rsp[NumXifPorts-1:0])
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
    assign xif_cmd_req = '0;
  end

  // ------------------------------------------------------------------------------ instruction bus
  // The core's OBI ports are flat (third-party RTL): they are packed into couplet's structs here,
  // once. Fetches are word reads, hence the constant request fields.
  obi_req_t core_instr_req, sram_a_req;
  obi_rsp_t core_instr_rsp, sram_a_rsp;

  assign core_instr_req = '{req:   instr_req,
                            addr:  instr_addr,
                            we:    1'b0,
                            be:    4'hf,
                            wdata: 32'h0,
                            atop:  6'h0};
  assign instr_gnt    = core_instr_rsp.gnt;
  assign instr_rvalid = core_instr_rsp.rvalid;
  assign instr_rdata  = core_instr_rsp.rdata;
  assign instr_err    = core_instr_rsp.err;

  couplet_obi_demux #(
    .NumSlaves      (1),
    .SlaveBase      (SramBase),
    .SlaveSize      (SramSize),
    .SlaveAtomics   (1'b0),
    .MaxOutstanding (2)
  ) u_instr_demux (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .m_req_i (core_instr_req),
    .m_rsp_o (core_instr_rsp),
    .s_req_o (sram_a_req),
    .s_rsp_i (sram_a_rsp)
  );

  logic unused_instr_exokay;
  assign unused_instr_exokay = core_instr_rsp.exokay;

  // ------------------------------------------------------------------------------ data bus
  // The core and the tiles' DMA engines share the decoder through an arbiter that adds no cycle.
  // Master 0 is the core, master TileMasterIdx[t] the DMA engine of tile t. bus_* is the
  // decoder's master side.
  localparam int unsigned NumMasters = 1 + NumDmaEngines;

  obi_req_t                  bus_req;
  obi_rsp_t                  bus_rsp;
  obi_req_t [NumMasters-1:0] mst_req;
  obi_rsp_t [NumMasters-1:0] mst_rsp;

  assign mst_req[0] = '{req:   data_req,
                        addr:  data_addr,
                        we:    data_we,
                        be:    data_be,
                        wdata: data_wdata,
                        atop:  data_atop};
  assign data_gnt    = mst_rsp[0].gnt;
  assign data_rvalid = mst_rsp[0].rvalid;
  assign data_rdata  = mst_rsp[0].rdata;
  assign data_err    = mst_rsp[0].err;
  assign data_exokay = mst_rsp[0].exokay;

  if (NumDmaEngines > 0) begin : g_arbiter
    couplet_obi_arbiter #(
      .NumMasters     (NumMasters),
      .MaxOutstanding (2)
    ) u_data_arbiter (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .m_req_i (mst_req),
      .m_rsp_o (mst_rsp),
      .s_req_o (bus_req),
      .s_rsp_i (bus_rsp)
    );
  end else begin : g_no_arbiter
    assign bus_req    = mst_req[0];
    assign mst_rsp[0] = bus_rsp;
  end

  obi_req_t [NumData-1:0] d_req;
  obi_rsp_t [NumData-1:0] d_rsp;

  couplet_obi_demux #(
    .NumSlaves      (NumData),
    .SlaveBase      (DataBase),
    .SlaveSize      (DataSize),
    .SlaveAtomics   (DataAtomics),
    .MaxOutstanding (2)
  ) u_data_demux (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .m_req_i (bus_req),
    .m_rsp_o (bus_rsp),
    .s_req_o (d_req),
    .s_rsp_i (d_rsp)
  );

  // ------------------------------------------------------------------------------ slaves
  couplet_sram #(
    .SizeBytes (SramSize),
    .InitFile  (SramInitFile)
  ) u_sram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .a_req_i (sram_a_req),
    .a_rsp_o (sram_a_rsp),
    .b_req_i (d_req[DSram]),
    .b_rsp_o (d_rsp[DSram])
  );

  logic [63:0] mtime;

  couplet_clint #(
    .MtimeDivider (MtimeDivider)
  ) u_clint (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .obi_req_i   (d_req[DClint]),
    .obi_rsp_o   (d_rsp[DClint]),
    .timer_irq_o (timer_irq),
    .soft_irq_o  (soft_irq),
    .mtime_o     (mtime)
  );

  couplet_simctrl u_simctrl (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .obi_req_i       (d_req[DSimctl]),
    .obi_rsp_o       (d_rsp[DSimctl]),
    .console_valid_o (console_valid_o),
    .console_data_o  (console_data_o),
    .console_ready_i (console_ready_i),
    .exit_valid_o    (exit_valid_o),
    .exit_code_o     (exit_code_o)
  );

  // ------------------------------------------------------------------------------ tiles
  // Per tile: its accelerator's interrupt and its DMA engine's (unused entries stay low).
  logic [TileArrayLen-1:0] tile_irq, tile_dma_irq;

  for (genvar t = 0; t < NumTiles; t++) begin : g_tile
    localparam int unsigned XifIdx   = int'(TileXifIdx[t]);
    localparam int unsigned RegsIdx  = int'(TileRegsIdx[t]);
    localparam int unsigned DmaIdx   = int'(TileDmaRegsIdx[t]);
    localparam int unsigned MstIdx   = int'(TileMasterIdx[t]);

    obi_req_t regs_req, dma_req, m_req;
    obi_rsp_t regs_rsp, dma_rsp, m_rsp;
    couplet_accel_pkg::accel_cmd_req_t cmd_req;
    logic                              cmd_ready;
    couplet_accel_pkg::accel_cmd_rsp_t cmd_rsp;

    assign regs_req  = TileRegs[t] ? d_req[RegsIdx] : '0;
    assign dma_req   = TileDmaRegs[t] ? d_req[DmaIdx] : '0;
    assign cmd_req   = TileXif[t] ? xif_cmd_req[XifIdx] : '0;

    couplet_accel_tile #(
      .Kind  (TileKind[t]),
      .Cfg   (AccelCfg),
      .Xif   (TileXif[t]),
      .Regs  (TileRegs[t]),
      .Dma   (TileDmaEngine[t]),
      .Slice (TileSlice[t])
    ) u_tile (
      .clk_i           (clk_i),
      .rst_ni          (rst_ni),
      .xif_cmd_req_i   (cmd_req),
      .xif_cmd_ready_o (cmd_ready),
      .xif_cmd_rsp_o   (cmd_rsp),
      .regs_req_i      (regs_req),
      .regs_rsp_o      (regs_rsp),
      .dma_req_i       (dma_req),
      .dma_rsp_o       (dma_rsp),
      .m_req_o         (m_req),
      .m_rsp_i         (m_rsp),
      .accel_irq_o     (tile_irq[t]),
      .dma_irq_o       (tile_dma_irq[t])
    );

    if (TileXif[t]) begin : g_xif_port
      assign xif_cmd_ready[XifIdx] = cmd_ready;
      assign xif_cmd_rsp[XifIdx]   = cmd_rsp;
    end else begin : g_no_xif_port
      logic unused_xif;
      assign unused_xif = ^{cmd_ready, cmd_rsp};
    end
    if (TileRegs[t]) begin : g_regs_port
      assign d_rsp[RegsIdx] = regs_rsp;
    end else begin : g_no_regs_port
      logic unused_regs_port;
      assign unused_regs_port = ^regs_rsp;
    end
    if (TileDmaRegs[t]) begin : g_dma_port
      assign d_rsp[DmaIdx] = dma_rsp;
    end else begin : g_no_dma_port
      // An engine fed only by its accelerator's job port (mem coupling, RTOS message copies)
      // has no descriptor window on the bus.
      logic unused_dma_port;
      assign unused_dma_port = ^dma_rsp;
    end
    if (TileDmaEngine[t]) begin : g_master
      // The tile's DMA engine never reaches its own accelerator's registers: a memory job
      // pointed there would deadlock the SoC (couplet_obi_fence); it gets a bus error instead.
      couplet_obi_fence #(
        .Base           (TileRegs[t] ? DataBase[RegsIdx] : 32'd0),
        .Size           (TileRegs[t] ? DataSize[RegsIdx] : 32'd0),
        .MaxOutstanding (4)
      ) u_own_regs_fence (
        .clk_i   (clk_i),
        .rst_ni  (rst_ni),
        .m_req_i (m_req),
        .m_rsp_o (m_rsp),
        .s_req_o (mst_req[MstIdx]),
        .s_rsp_i (mst_rsp[MstIdx])
      );
    end else begin : g_no_master
      assign m_rsp = '0;
      logic unused_master;
      assign unused_master = ^m_req;
    end
  end

  for (genvar t = NumTiles; t < TileArrayLen; t++) begin : g_no_tile
    assign tile_irq[t]     = 1'b0;
    assign tile_dma_irq[t] = 1'b0;
  end

  if (NumXifPorts == 0) begin : g_no_xif_ports
    assign xif_cmd_ready = '0;
    assign xif_cmd_rsp   = '0;
    logic unused_xif_ports;
    assign unused_xif_ports = ^{xif_cmd_req, xif_cmd_ready, xif_cmd_rsp};
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
