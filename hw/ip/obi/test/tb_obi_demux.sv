// Test wrapper for couplet_obi_demux: three slaves at fixed regions, atomics on slave 0 only,
// and one named port per slave so the cocotb models need no packed-array slicing.
//   slave 0: 0x8000_0000, 64 KiB, atomics
//   slave 1: 0x0200_0000, 64 KiB
//   slave 2: 0x1000_0000,  4 KiB
// test_obi_demux.py holds the same map (SLAVES); keep the two in step.
module tb_obi_demux #(
  parameter int unsigned MaxOutstanding = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        m_req_i,
  output logic        m_gnt_o,
  input  logic [31:0] m_addr_i,
  input  logic        m_we_i,
  input  logic [3:0]  m_be_i,
  input  logic [31:0] m_wdata_i,
  input  logic [5:0]  m_atop_i,
  output logic        m_rvalid_o,
  output logic [31:0] m_rdata_o,
  output logic        m_err_o,
  output logic        m_exokay_o,

  output logic        s0_req_o,
  input  logic        s0_gnt_i,
  output logic [31:0] s0_addr_o,
  output logic        s0_we_o,
  output logic [3:0]  s0_be_o,
  output logic [31:0] s0_wdata_o,
  output logic [5:0]  s0_atop_o,
  input  logic        s0_rvalid_i,
  input  logic [31:0] s0_rdata_i,
  input  logic        s0_err_i,
  input  logic        s0_exokay_i,

  output logic        s1_req_o,
  input  logic        s1_gnt_i,
  output logic [31:0] s1_addr_o,
  output logic        s1_we_o,
  output logic [3:0]  s1_be_o,
  output logic [31:0] s1_wdata_o,
  output logic [5:0]  s1_atop_o,
  input  logic        s1_rvalid_i,
  input  logic [31:0] s1_rdata_i,
  input  logic        s1_err_i,
  input  logic        s1_exokay_i,

  output logic        s2_req_o,
  input  logic        s2_gnt_i,
  output logic [31:0] s2_addr_o,
  output logic        s2_we_o,
  output logic [3:0]  s2_be_o,
  output logic [31:0] s2_wdata_o,
  output logic [5:0]  s2_atop_o,
  input  logic        s2_rvalid_i,
  input  logic [31:0] s2_rdata_i,
  input  logic        s2_err_i,
  input  logic        s2_exokay_i
);

  localparam int unsigned NumSlaves = 3;

  logic [NumSlaves-1:0]       s_req, s_gnt, s_rvalid, s_err, s_exokay;
  logic [NumSlaves-1:0][31:0] s_rdata;
  logic [31:0]                s_addr, s_wdata;
  logic                       s_we;
  logic [3:0]                 s_be;
  logic [5:0]                 s_atop;

  couplet_obi_demux #(
    .NumSlaves      (NumSlaves),
    .SlaveBase      ({32'h1000_0000, 32'h0200_0000, 32'h8000_0000}),
    .SlaveSize      ({32'h0000_1000, 32'h0001_0000, 32'h0001_0000}),
    .SlaveAtomics   (3'b001),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .m_req_i    (m_req_i),
    .m_gnt_o    (m_gnt_o),
    .m_addr_i   (m_addr_i),
    .m_we_i     (m_we_i),
    .m_be_i     (m_be_i),
    .m_wdata_i  (m_wdata_i),
    .m_atop_i   (m_atop_i),
    .m_rvalid_o (m_rvalid_o),
    .m_rdata_o  (m_rdata_o),
    .m_err_o    (m_err_o),
    .m_exokay_o (m_exokay_o),
    .s_req_o    (s_req),
    .s_gnt_i    (s_gnt),
    .s_addr_o   (s_addr),
    .s_we_o     (s_we),
    .s_be_o     (s_be),
    .s_wdata_o  (s_wdata),
    .s_atop_o   (s_atop),
    .s_rvalid_i (s_rvalid),
    .s_rdata_i  (s_rdata),
    .s_err_i    (s_err),
    .s_exokay_i (s_exokay)
  );

  assign {s2_req_o, s1_req_o, s0_req_o} = s_req;
  assign s_gnt    = {s2_gnt_i, s1_gnt_i, s0_gnt_i};
  assign s_rvalid = {s2_rvalid_i, s1_rvalid_i, s0_rvalid_i};
  assign s_rdata  = {s2_rdata_i, s1_rdata_i, s0_rdata_i};
  assign s_err    = {s2_err_i, s1_err_i, s0_err_i};
  assign s_exokay = {s2_exokay_i, s1_exokay_i, s0_exokay_i};

  assign s0_addr_o  = s_addr;
  assign s0_we_o    = s_we;
  assign s0_be_o    = s_be;
  assign s0_wdata_o = s_wdata;
  assign s0_atop_o  = s_atop;
  assign s1_addr_o  = s_addr;
  assign s1_we_o    = s_we;
  assign s1_be_o    = s_be;
  assign s1_wdata_o = s_wdata;
  assign s1_atop_o  = s_atop;
  assign s2_addr_o  = s_addr;
  assign s2_we_o    = s_we;
  assign s2_be_o    = s_be;
  assign s2_wdata_o = s_wdata;
  assign s2_atop_o  = s_atop;

endmodule
