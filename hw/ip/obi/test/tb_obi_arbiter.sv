// Test wrapper for couplet_obi_arbiter: three masters with one named port each, so the cocotb
// models need no packed-array slicing. The shared response fields fan out to every master.
module tb_obi_arbiter #(
  parameter int unsigned MaxOutstanding = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        m0_req_i,
  output logic        m0_gnt_o,
  input  logic [31:0] m0_addr_i,
  input  logic        m0_we_i,
  input  logic [3:0]  m0_be_i,
  input  logic [31:0] m0_wdata_i,
  input  logic [5:0]  m0_atop_i,
  output logic        m0_rvalid_o,
  output logic [31:0] m0_rdata_o,
  output logic        m0_err_o,
  output logic        m0_exokay_o,
  input  logic        m1_req_i,
  output logic        m1_gnt_o,
  input  logic [31:0] m1_addr_i,
  input  logic        m1_we_i,
  input  logic [3:0]  m1_be_i,
  input  logic [31:0] m1_wdata_i,
  input  logic [5:0]  m1_atop_i,
  output logic        m1_rvalid_o,
  output logic [31:0] m1_rdata_o,
  output logic        m1_err_o,
  output logic        m1_exokay_o,
  input  logic        m2_req_i,
  output logic        m2_gnt_o,
  input  logic [31:0] m2_addr_i,
  input  logic        m2_we_i,
  input  logic [3:0]  m2_be_i,
  input  logic [31:0] m2_wdata_i,
  input  logic [5:0]  m2_atop_i,
  output logic        m2_rvalid_o,
  output logic [31:0] m2_rdata_o,
  output logic        m2_err_o,
  output logic        m2_exokay_o,

  output logic        s_req_o,
  input  logic        s_gnt_i,
  output logic [31:0] s_addr_o,
  output logic        s_we_o,
  output logic [3:0]  s_be_o,
  output logic [31:0] s_wdata_o,
  output logic [5:0]  s_atop_o,
  input  logic        s_rvalid_i,
  input  logic [31:0] s_rdata_i,
  input  logic        s_err_i,
  input  logic        s_exokay_i
);

  localparam int unsigned NumMasters = 3;

  logic [NumMasters-1:0]       m_req, m_gnt, m_we, m_rvalid;
  logic [NumMasters-1:0][31:0] m_addr, m_wdata;
  logic [NumMasters-1:0][3:0]  m_be;
  logic [NumMasters-1:0][5:0]  m_atop;
  logic [31:0]                 m_rdata;
  logic                        m_err, m_exokay;

  assign m_req   = {m2_req_i, m1_req_i, m0_req_i};
  assign m_addr  = {m2_addr_i, m1_addr_i, m0_addr_i};
  assign m_we    = {m2_we_i, m1_we_i, m0_we_i};
  assign m_be    = {m2_be_i, m1_be_i, m0_be_i};
  assign m_wdata = {m2_wdata_i, m1_wdata_i, m0_wdata_i};
  assign m_atop  = {m2_atop_i, m1_atop_i, m0_atop_i};
  assign {m2_gnt_o, m1_gnt_o, m0_gnt_o}          = m_gnt;
  assign {m2_rvalid_o, m1_rvalid_o, m0_rvalid_o} = m_rvalid;
  assign m0_rdata_o  = m_rdata;
  assign m0_err_o    = m_err;
  assign m0_exokay_o = m_exokay;
  assign m1_rdata_o  = m_rdata;
  assign m1_err_o    = m_err;
  assign m1_exokay_o = m_exokay;
  assign m2_rdata_o  = m_rdata;
  assign m2_err_o    = m_err;
  assign m2_exokay_o = m_exokay;

  couplet_obi_arbiter #(
    .NumMasters     (NumMasters),
    .MaxOutstanding (MaxOutstanding)
  ) u_dut (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .m_req_i    (m_req),
    .m_gnt_o    (m_gnt),
    .m_addr_i   (m_addr),
    .m_we_i     (m_we),
    .m_be_i     (m_be),
    .m_wdata_i  (m_wdata),
    .m_atop_i   (m_atop),
    .m_rvalid_o (m_rvalid),
    .m_rdata_o  (m_rdata),
    .m_err_o    (m_err),
    .m_exokay_o (m_exokay),
    .s_req_o    (s_req_o),
    .s_gnt_i    (s_gnt_i),
    .s_addr_o   (s_addr_o),
    .s_we_o     (s_we_o),
    .s_be_o     (s_be_o),
    .s_wdata_o  (s_wdata_o),
    .s_atop_o   (s_atop_o),
    .s_rvalid_i (s_rvalid_i),
    .s_rdata_i  (s_rdata_i),
    .s_err_i    (s_err_i),
    .s_exokay_i (s_exokay_i)
  );

endmodule
