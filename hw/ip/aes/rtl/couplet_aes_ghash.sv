// GHASH multiplier of AES-GCM (NIST SP 800-38D section 6.4): S <= (S xor X) * H in GF(2^128),
// BitsPerCycle bits of the multiplier S xor X a cycle, 128 / BitsPerCycle cycles a block.
//
// Bit order. The ports carry blocks in the project's byte order (byte i in bits [8*i +: 8]),
// so S, X and H are exactly the bytes of SP 800-38D's blocks in memory order. GCM reads a
// block as a polynomial whose x^0 coefficient is the most significant bit of byte 0 (section
// 6.3). Inside, every 128-bit value is held in polynomial order (bit k = coefficient of x^k,
// gcm_poly): the bits of each byte reversed, which is wiring only. The field's polynomial is
// P = x^128 + x^7 + x^2 + x + 1.
//
// Algorithm: Horner's rule over the multiplier A = S xor X, B = BitsPerCycle bits a step from
// the high-degree end:
//   Z <- (Z * x^B mod P) xor sum_{j<B} a_{base+j} * (H * x^j mod P),   Z = 0 before the first.
// Z * x^B mod P is a fixed linear map (wires, plus a few XORs folding the B bits shifted out back
// into the bottom B+7), and the B multiples H * x^j are fixed functions of H, which the caller
// holds stable while busy, so no register holds them: each result bit is the XOR of B AND terms
// and one bit of Z * x^B. The textbook right-shift algorithm (SP 800-38D Algorithm 1) walks the
// multiplier from the other end with a register V = H * x^i that it multiplies by x^B each step;
// its step has the same B-term XOR per bit, plus the 128-bit V register and V's load/step mux.
// Measured alone (Yosys synth_xilinx as couplet synth runs it), that took 128 more FFs and 43%
// more LUTs at B = 8 (1,158 against 811) and 8% more at B = 16 (1,603 against 1,486).
//
// Only the multiplier needs a register, rest_q, used high digit first: a shift register, one LUT a
// bit for "load or shift". Holding it still and picking each step's digit by the counter needs
// the same LUT a bit to load it plus B muxes of 128/B inputs, and measured larger (888 against
// 811 LUTs at B = 8, 793 against 652 at B = 4).
//
// Timing. Cycle 0 is the cycle with in_valid_i && in_ready_o: it loads S xor X into rest_q and
// clears Z, which measured smaller than gating Z * x^B off in a block's first step (926 LUTs at
// B = 8) or running that step in cycle 0 on S xor X straight from the ports (1,058); ABC moves
// such counts by some 10% on equivalent rewrites, so only large gaps decide. Cycles 1 .. N
// (N = 128 / B) run the N steps with busy_o high; S holds the product from cycle N+1, when
// busy_o falls. With B = 128 the one step is cycle 1. in_ready_o is high when idle and in a
// block's last busy cycle (N): a block taken then loads rest_q with the last step's result xor X,
// so blocks go back to back at one every N cycles with busy_o staying high (s_o, not valid while
// busy_o, then never shows that intermediate S). in_ready_o depends on no input.
//
// s_we_i is for idle cycles; with a handshake in the same cycle the block wins: it absorbs into
// the S of before that cycle, and the write is lost.
module couplet_aes_ghash #(
  // Bits of the multiplier (S xor X) consumed per cycle: 1, 2, 4, 8, 16, 32, 64 or 128.
  // A block takes 128 / BitsPerCycle cycles.
  parameter int unsigned BitsPerCycle = 8
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [127:0] h_i,         // hash key H; the caller holds it stable while busy_o
  input  logic         in_valid_i,  // absorb in_data_i: S <= (S xor X) * H in GF(2^128)
  output logic         in_ready_o,
  input  logic [127:0] in_data_i,
  input  logic         s_we_i,      // S <= s_i (the caller does this only while !busy_o)
  input  logic [127:0] s_i,
  output logic [127:0] s_o,         // the accumulator S; valid while !busy_o
  output logic         busy_o       // a block is being absorbed
);

  if (!(BitsPerCycle inside {1, 2, 4, 8, 16, 32, 64, 128})) begin : gen_param_check
    $error("couplet_aes_ghash: BitsPerCycle must be 1, 2, 4, 8, 16, 32, 64 or 128");
  end

  localparam int unsigned B     = BitsPerCycle;
  localparam int unsigned Steps = 128 / B;
  localparam int unsigned CntW  = (Steps > 1) ? $clog2(Steps) : 1;

  // The low terms of P, x^7 + x^2 + x + 1, in polynomial order.
  localparam logic [127:0] PolyLow = 128'h87;

  // Block bytes to polynomial order and back (its own inverse): the coefficient of x^(8i+j)
  // is bit 7-j of byte i.
  function automatic logic [127:0] gcm_poly(logic [127:0] block);
    logic [127:0] poly;
    for (int unsigned i = 0; i < 16; i++) begin
      for (int unsigned j = 0; j < 8; j++) begin
        poly[8*i + j] = block[8*i + 7 - j];
      end
    end
    return poly;
  endfunction

  // v * x mod P.
  function automatic logic [127:0] gcm_mulx(logic [127:0] v);
    return {v[126:0], 1'b0} ^ (v[127] ? PolyLow : '0);
  endfunction

  logic [127:0]        h, z_q, z_d, z_shift, step, rest_q, next_s;
  logic [B-1:0][127:0] h_pow;  // H * x^j mod P: what bit j of a digit adds
  logic [B-1:0]        digit;
  logic                busy_q, last, hs;

  assign h = gcm_poly(h_i);

  always_comb begin
    logic [127:0] v;
    v = h;
    for (int unsigned j = 0; j < B; j++) begin
      h_pow[j] = v;
      v = gcm_mulx(v);
    end
  end

  always_comb begin
    z_shift = z_q;
    for (int unsigned i = 0; i < B; i++) begin
      z_shift = gcm_mulx(z_shift);
    end
  end

  // Bit j of the digit is the coefficient of x^(base+j): the top B bits, lowest first.
  assign digit = rest_q[127 -: B];

  always_comb begin
    step = z_shift;
    for (int unsigned j = 0; j < B; j++) begin
      step ^= digit[j] ? h_pow[j] : '0;
    end
  end

  // ------------------------------------------------------------------------------ sequencing
  if (Steps > 1) begin : gen_count
    // The step of the block in flight; it wraps to 0 after the last by itself (Steps is a power
    // of two), so it is 0 whenever a block is taken.
    logic [CntW-1:0] cnt_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        cnt_q <= '0;
      end else if (busy_q) begin
        cnt_q <= cnt_q + 1'b1;
      end
    end
    assign last = cnt_q == '1;
  end else begin : gen_one_step
    assign last = 1'b1;
  end

  assign in_ready_o = !busy_q || last;
  assign hs         = in_valid_i && in_ready_o;
  assign busy_o     = busy_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
    end else begin
      busy_q <= hs || (busy_q && !last);
    end
  end

  // -------------------------------------------------------------------------------- datapath
  // The S a block taken now absorbs into: the last step's result when it follows a block
  // back to back.
  assign next_s = busy_q ? step : z_q;

  // The next step's digit to the top. A single step never shifts (and the shift would be by the
  // whole width, which slang warns about).
  logic [127:0] rest_shift;
  if (Steps > 1) begin : gen_shift
    assign rest_shift = {rest_q[127-B:0], B'(0)};
  end else begin : gen_no_shift
    assign rest_shift = rest_q;
  end

  // Moves only with a block, so that idle inputs do not toggle it.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rest_q <= '0;
    end else if (hs) begin
      rest_q <= next_s ^ gcm_poly(in_data_i);
    end else if (busy_q) begin
      rest_q <= rest_shift;
    end
  end

  // Horner starts from Z = 0: cleared with the handshake, whose S is in rest_q by then (the
  // header says why this beats gating Z * x^B in the first step).
  always_comb begin
    if (hs) begin
      z_d = '0;
    end else if (busy_q) begin
      z_d = step;
    end else begin
      z_d = gcm_poly(s_i);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      z_q <= '0;
    end else if (hs || busy_q || s_we_i) begin
      z_q <= z_d;
    end
  end

  assign s_o = gcm_poly(z_q);

endmodule
