// The RV32 scalar-crypto AES instructions (Zkne aes32esi/aes32esmi, Zknd aes32dsi/aes32dsmi,
// RISC-V Cryptography Extensions Vol. I v1.0.1, sections 3.3-3.6) as a command-port accelerator.
//
// The X-IF adapter claims the R-type encodings on opcode OP (0110011) with funct3 000 and
// funct7 = {bs[1:0], 1, d, m, 0, 1} (d: decrypt, m: with MixColumns) and passes them on raw:
// op = funct3, index = funct7, op_a = rs1, op_b = rs2. Every other op/index answers err, which
// the adapter turns into an illegal-instruction exception.
//
//   rd = rs1 ^ rol32(f(rs2 byte bs), 8 * bs)
//   f = S-box (esi), S-box + MixColumns column (esmi), inverse S-box (dsi),
//       inverse S-box + InvMixColumns column (dsmi)
//
// The result is registered: a command taken in cycle t is answered in cycle t + 1, whatever the
// data, so execution time does not depend on secrets (a requirement of Zkn).
module couplet_aes_zkn
  import couplet_accel_pkg::*;
  import couplet_aes_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,
  input  accel_cmd_req_t cmd_req_i,
  output logic           cmd_ready_o,
  output accel_cmd_rsp_t cmd_rsp_o
);

  // funct7[4:0] of the four instructions; funct7[6:5] is bs.
  localparam logic [4:0] Funct5Esi  = 5'b10001;
  localparam logic [4:0] Funct5Esmi = 5'b10011;
  localparam logic [4:0] Funct5Dsi  = 5'b10101;
  localparam logic [4:0] Funct5Dsmi = 5'b10111;

  logic       known, decrypt, mix;
  logic [1:0] bs;
  logic [7:0] sbox_in, s, x2, x4, x8;
  logic [31:0] column, rotated;

  // The op field carries funct3 raw here, not a register-style accel_op_e.
  always_comb begin
    known   = 1'b0;
    decrypt = 1'b0;
    mix     = 1'b0;
    if (cmd_req_i.cmd.op == 3'b000) begin
      unique case (cmd_req_i.cmd.index[4:0])
        Funct5Esi:  known = 1'b1;
        Funct5Esmi: begin known = 1'b1; mix = 1'b1; end
        Funct5Dsi:  begin known = 1'b1; decrypt = 1'b1; end
        Funct5Dsmi: begin known = 1'b1; decrypt = 1'b1; mix = 1'b1; end
        default:    known = 1'b0;
      endcase
    end
  end

  assign bs      = cmd_req_i.cmd.index[6:5];
  assign sbox_in = cmd_req_i.cmd.op_b[8*bs +: 8];

  couplet_aes_sbox u_sbox (
    .inv_i (decrypt),
    .data_i(sbox_in),
    .data_o(s)
  );

  assign x2 = aes_xtime(s);
  assign x4 = aes_xtime(x2);
  assign x8 = aes_xtime(x4);

  // The column a byte at row 0 contributes: MixColumns coefficients {02,01,01,03} for rows
  // 0..3, InvMixColumns {0e,09,0d,0b}; rotating by 8*bs moves it to row bs.
  always_comb begin
    unique case ({mix, decrypt})
      2'b10:   column = {x2 ^ s, s, s, x2};
      2'b11:   column = {x8 ^ x2 ^ s, x8 ^ x4 ^ s, x8 ^ s, x8 ^ x4 ^ x2};
      default: column = {24'h0, s};
    endcase
  end

  always_comb begin
    unique case (bs)
      2'd0:    rotated = column;
      2'd1:    rotated = {column[23:0], column[31:24]};
      2'd2:    rotated = {column[15:0], column[31:16]};
      default: rotated = {column[7:0], column[31:8]};
    endcase
  end

  accel_rsp_t rsp_d;

  // Unknown encodings answer data 0 rather than a partial result.
  assign rsp_d = known ? '{data: cmd_req_i.cmd.op_a ^ rotated, err: 1'b0}
                       : '{data: 32'h0, err: 1'b1};

  // Registered, one command at a time (couplet_accel_responder also checks the port's rules).
  couplet_accel_responder u_rsp (
    .clk_i, .rst_ni, .cmd_req_i, .cmd_ready_o, .cmd_rsp_o, .hold_i(1'b0),
    .ans_valid_i(cmd_req_i.valid && cmd_ready_o), .ans_i(rsp_d)
  );

endmodule
