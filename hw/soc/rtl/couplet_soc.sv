// couplet SoC top: CV32E40X, dual-port SRAM, CLINT, simulation control, and the CV-X-IF
// slot where accelerators attach.
//
// The memory map comes from couplet_soc_cfg_pkg, generated from configs/<name>.toml by
// `couplet gen`. Instruction fetches reach only the SRAM; data accesses are decoded to SRAM,
// CLINT and simctrl, and anything else is answered with a bus error.
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

  // Data-bus slave ports.
  localparam int unsigned NumData = 3;
  localparam int unsigned DSram   = 0;
  localparam int unsigned DClint  = 1;
  localparam int unsigned DSimctl = 2;
  localparam logic [NumData-1:0][31:0] DataBase    = {SimctrlBase, ClintBase, SramBase};
  localparam logic [NumData-1:0][31:0] DataSize    = {SimctrlSize, ClintSize, SramSize};
  localparam logic [NumData-1:0]       DataAtomics = 3'b001;  // only the SRAM does AMOs/LR/SC

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
  // Reserved for accelerators; tied off until a configuration attaches one.
  logic [15:0] accel_irq;
  assign accel_irq = '0;

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

  // The accelerator slot of CV-X-IF: empty in this configuration.
  couplet_xif_tieoff u_xif_tieoff (
    .xif_compressed_if (u_xif),
    .xif_issue_if      (u_xif),
    .xif_commit_if     (u_xif),
    .xif_mem_if        (u_xif),
    .xif_mem_result_if (u_xif),
    .xif_result_if     (u_xif)
  );

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
    .m_req_i    (data_req),
    .m_gnt_o    (data_gnt),
    .m_addr_i   (data_addr),
    .m_we_i     (data_we),
    .m_be_i     (data_be),
    .m_wdata_i  (data_wdata),
    .m_atop_i   (data_atop),
    .m_rvalid_o (data_rvalid),
    .m_rdata_o  (data_rdata),
    .m_err_o    (data_err),
    .m_exokay_o (data_exokay),
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

  logic unused_soc_signals;
  assign unused_soc_signals = ^{mtime, ClockHz};

endmodule
