// Custom instructions for a bit-interleaved software Keccak-f[1600] on RV32 without rotate
// instructions (hw/ip/keccak/doc/ise.md), as a stateless command-port accelerator.
//
// The X-IF adapter passes R-type instructions of opcode custom-1 (0x2B) on raw: op = funct3,
// index = funct7, op_a = rs1, op_b = rs2; rd receives rsp.data.
//
//   funct3 funct7    instruction                    rd
//   000    00nnnnn   kc.xrol  rd, rs1, rs2, n       rol32(rs1 ^ rs2, n)       theta + rho
//   001    00nnnnn   kc.rolx  rd, rs1, rs2, n       rs1 ^ rol32(rs2, n)       theta's D
//   010    0000000   kc.andn  rd, rs1, rs2          ~rs1 & rs2                chi
//   011    0000000   kc.ileave.lo rd, rs1, rs2      even bits of {rs2, rs1}   absorb
//   011    0000001   kc.ileave.hi rd, rs1, rs2      odd bits of {rs2, rs1}
//   011    0000010   kc.dleave.lo rd, rs1, rs2      low word of the lane (even rs1, odd rs2)
//   011    0000011   kc.dleave.hi rd, rs1, rs2      high word of the lane              squeeze
//
// Every other op/index answers err with data 0, which the adapter turns into an
// illegal-instruction result. The response is registered: a command taken in cycle t is
// answered in cycle t + 1 whatever the data, so timing reveals nothing about secrets (keyed
// Keccak modes such as KMAC hold keys in the state).
module couplet_keccak_ise
  import couplet_accel_pkg::*;
(
  input  logic           clk_i,
  input  logic           rst_ni,
  input  accel_cmd_req_t cmd_req_i,
  output logic           cmd_ready_o,
  output accel_cmd_rsp_t cmd_rsp_o
);

  localparam logic [2:0] Funct3Xrol  = 3'b000;
  localparam logic [2:0] Funct3Rolx  = 3'b001;
  localparam logic [2:0] Funct3Andn  = 3'b010;
  localparam logic [2:0] Funct3Leave = 3'b011;

  // The op field carries funct3 raw here, not a register-style accel_op_e.
  logic [2:0]  funct3;
  logic [6:0]  funct7;
  logic [31:0] rs1, rs2;

  assign funct3 = cmd_req_i.cmd.op;
  assign funct7 = cmd_req_i.cmd.index;
  assign rs1    = cmd_req_i.cmd.op_a;
  assign rs2    = cmd_req_i.cmd.op_b;

  // One rotator serves both rotate forms: xrol rotates the XOR, rolx XORs after rotating.
  // A shift by 32 (n = 0) gives zero, so n = 0 needs no special case.
  logic [31:0] rot_in, rot_out;
  logic [5:0]  rot_back;

  assign rot_in   = (funct3 == Funct3Xrol) ? (rs1 ^ rs2) : rs2;
  assign rot_back = 6'd32 - {1'b0, funct7[4:0]};
  assign rot_out  = (rot_in << funct7[4:0]) | (rot_in >> rot_back);

  // Bit interleaving is wiring only. Lane = {rs2, rs1} for ileave; even word rs1 and odd word
  // rs2 for dleave.
  logic [31:0] even, odd, lane_lo, lane_hi;

  always_comb begin
    for (int i = 0; i < 16; i++) begin
      even[i]          = rs1[2*i];
      even[16+i]       = rs2[2*i];
      odd[i]           = rs1[2*i+1];
      odd[16+i]        = rs2[2*i+1];
      lane_lo[2*i]     = rs1[i];
      lane_lo[2*i+1]   = rs2[i];
      lane_hi[2*i]     = rs1[16+i];
      lane_hi[2*i+1]   = rs2[16+i];
    end
  end

  logic        known;
  logic [31:0] result;

  always_comb begin
    known  = 1'b0;
    result = 32'h0;
    unique case (funct3)
      Funct3Xrol: begin
        known  = (funct7[6:5] == 2'b00);
        result = rot_out;
      end
      Funct3Rolx: begin
        known  = (funct7[6:5] == 2'b00);
        result = rs1 ^ rot_out;
      end
      Funct3Andn: begin
        known  = (funct7 == 7'h00);
        result = ~rs1 & rs2;
      end
      Funct3Leave: begin
        known = (funct7[6:2] == 5'h00);
        unique case (funct7[1:0])
          2'b00:   result = even;
          2'b01:   result = odd;
          2'b10:   result = lane_lo;
          default: result = lane_hi;
        endcase
      end
      default: known = 1'b0;
    endcase
  end

  accel_rsp_t rsp_d;

  // Unknown encodings answer data 0 rather than a partial result.
  assign rsp_d = known ? '{data: result, err: 1'b0} : '{data: 32'h0, err: 1'b1};

  // Registered, one command at a time (couplet_accel_responder also checks the port's rules).
  couplet_accel_responder u_rsp (
    .clk_i, .rst_ni, .cmd_req_i, .cmd_ready_o, .cmd_rsp_o, .hold_i(1'b0),
    .ans_valid_i(cmd_req_i.valid && cmd_ready_o), .ans_i(rsp_d)
  );

endmodule
