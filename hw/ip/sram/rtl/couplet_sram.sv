// Dual-port on-chip SRAM with OBI slave ports: port A serves instruction fetches, port B data.
//
// Both ports answer one cycle after the grant (a synchronous-read block RAM). Port B writes
// honour the byte enables and carry out the core's atomics (OBI `atop`, CV32E40X user manual,
// "Atomic instructions"): the core leaves AMO read-modify-write and LR/SC reservations to the
// memory. An AMO takes two cycles: the grant reads the old word, the next cycle returns it and
// writes the new one, and port B takes no request in that second cycle. The reservation of
// LR/SC covers one word; any store to that word clears it. An SC answers rdata 0 on success and
// 1 on failure, as well as exokay, because this core version takes rd from rdata. Port A is
// read-only: a write there is a wiring mistake and gets an error.
//
// InitFile, if not empty, names a $readmemh file (one 32-bit word per line) loaded at elaboration.
module couplet_sram
  import couplet_obi_pkg::*;
#(
  parameter int unsigned SizeBytes = 32'h1_0000,
  parameter string       InitFile  = ""
) (
  input  logic     clk_i,
  input  logic     rst_ni,

  // Port A: instruction fetch. It reads whole words, so be, wdata and atop are ignored.
  input  obi_req_t a_req_i,
  output obi_rsp_t a_rsp_o,

  // Port B: data and atomics.
  input  obi_req_t b_req_i,
  output obi_rsp_t b_rsp_o
);

  localparam int unsigned Words    = SizeBytes / 4;
  localparam int unsigned IdxWidth = $clog2(Words);

  // OBI atop[4:0] codes when atop[5] is set (the RISC-V AMO funct5 values).
  localparam logic [4:0] AtopAdd  = 5'b00000;
  localparam logic [4:0] AtopSwap = 5'b00001;
  localparam logic [4:0] AtopLr   = 5'b00010;
  localparam logic [4:0] AtopSc   = 5'b00011;
  localparam logic [4:0] AtopXor  = 5'b00100;
  localparam logic [4:0] AtopOr   = 5'b01000;
  localparam logic [4:0] AtopAnd  = 5'b01100;
  localparam logic [4:0] AtopMin  = 5'b10000;
  localparam logic [4:0] AtopMax  = 5'b10100;
  localparam logic [4:0] AtopMinu = 5'b11000;
  localparam logic [4:0] AtopMaxu = 5'b11100;

  // no_rw_check: a fetch (port A) of the word a store (port B) writes in the same cycle may read
  // either value on an FPGA, as a true dual-port block RAM does across its ports. Nothing relies on
  // it: code that was stored is fetched again after fence.i, and port B never reads and writes in
  // one cycle. Without it Yosys keeps a second copy of the array to give port A the old word,
  // which doubles the block RAM (256 KiB would need 256 DP16KD; an LFE5U-85F has 208).
  (* no_rw_check *) logic [31:0] mem_q [Words];

  // FPGA block RAM takes its content from the bitstream, and synthesis fills it from an initial
  // block: the one `initial` in couplet's RTL. The simulator leaves InitFile empty and loads the
  // program through the DPI back door below.
  if (InitFile != "") begin : g_init
    initial begin
      $readmemh(InitFile, mem_q);
    end
  end

  // The decoder sends the offset within the SRAM: the upper bits are zero, and accesses are
  // word-wide (byte enables select the bytes), so neither end of the address is needed.
  logic unused_addr_bits;
  assign unused_addr_bits = ^{a_req_i.addr[31:IdxWidth+2], a_req_i.addr[1:0],
                              b_req_i.addr[31:IdxWidth+2], b_req_i.addr[1:0]};

  // ---------------------------------------------------------------- port A: instruction fetch
  logic [IdxWidth-1:0] a_idx;
  logic                a_rvalid_q, a_err_q;
  logic [31:0]         a_rdata_q;
  assign a_idx = a_req_i.addr[IdxWidth+1:2];

  always_ff @(posedge clk_i) begin
    if (a_req_i.req && !a_req_i.we) begin
      a_rdata_q <= mem_q[a_idx];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_rvalid_q <= 1'b0;
      a_err_q    <= 1'b0;
    end else begin
      a_rvalid_q <= a_req_i.req;
      a_err_q    <= a_req_i.req && a_req_i.we;
    end
  end

  logic unused_a_fields;
  assign unused_a_fields = ^{a_req_i.be, a_req_i.wdata, a_req_i.atop};

  assign a_rsp_o = '{gnt:    1'b1,
                     rvalid: a_rvalid_q,
                     rdata:  a_rdata_q,
                     err:    a_err_q,
                     exokay: 1'b0};

  // ---------------------------------------------------------------- port B: data and atomics
  logic [IdxWidth-1:0] b_idx;
  assign b_idx = b_req_i.addr[IdxWidth+1:2];

  logic is_excl, is_lr, is_sc, is_amo;
  assign is_excl = b_req_i.atop[5];
  assign is_lr   = is_excl && (b_req_i.atop[4:0] == AtopLr);
  assign is_sc   = is_excl && (b_req_i.atop[4:0] == AtopSc);
  assign is_amo  = is_excl && !is_lr && !is_sc;

  // Second cycle of an AMO: the old word is on port B's rdata, the new one is written.
  logic                amo_busy_q;
  logic [4:0]          amo_op_q;
  logic [IdxWidth-1:0] amo_idx_q;
  logic [31:0]         amo_operand_q;

  logic                resv_valid_q, resv_valid_d;
  logic [IdxWidth-1:0] resv_idx_q, resv_idx_d;

  logic b_gnt, b_accept, sc_ok, do_write;
  assign b_gnt    = !amo_busy_q;
  assign b_accept = b_req_i.req && b_gnt;
  assign sc_ok    = is_sc && resv_valid_q && (resv_idx_q == b_idx);
  // A failed store-conditional writes nothing; an AMO writes in its second cycle.
  assign do_write = b_accept && b_req_i.we && !is_amo && (!is_sc || sc_ok);

  // The word read is a register of its own, written only by the memory read, so that synthesis
  // maps the array to block RAM (a read register with a second source cannot go into one); an
  // SC's answer is kept beside it and chosen at the output.
  logic [31:0] b_read_q;
  logic        sc_answer_q, sc_failed_q;
  logic        b_rvalid_q, b_err_q, b_exokay_q;
  assign b_rsp_o = '{gnt:    b_gnt,
                     rvalid: b_rvalid_q,
                     rdata:  sc_answer_q ? {31'b0, sc_failed_q} : b_read_q,
                     err:    b_err_q,
                     exokay: b_exokay_q};

  logic [31:0] amo_old, amo_new;
  assign amo_old = b_read_q;
  always_comb begin
    unique case (amo_op_q)
      AtopSwap: amo_new = amo_operand_q;
      AtopAdd:  amo_new = amo_old + amo_operand_q;
      AtopXor:  amo_new = amo_old ^ amo_operand_q;
      AtopOr:   amo_new = amo_old | amo_operand_q;
      AtopAnd:  amo_new = amo_old & amo_operand_q;
      AtopMin:  amo_new = ($signed(amo_old) < $signed(amo_operand_q)) ? amo_old : amo_operand_q;
      AtopMax:  amo_new = ($signed(amo_old) > $signed(amo_operand_q)) ? amo_old : amo_operand_q;
      AtopMinu: amo_new = (amo_old < amo_operand_q) ? amo_old : amo_operand_q;
      AtopMaxu: amo_new = (amo_old > amo_operand_q) ? amo_old : amo_operand_q;
      default:  amo_new = amo_old;  // unknown code: leave memory as it was
    endcase
  end

  // Port B of the RAM: one address for its read and its write, so that both fit one block RAM
  // port. The AMO's second cycle writes at amo_idx_q; port B takes no request then, so its read
  // is idle and the address is free.
  logic [IdxWidth-1:0] ram_idx;
  logic [3:0]          ram_we;
  logic [31:0]         ram_wdata;
  logic                ram_re;
  assign ram_idx   = amo_busy_q ? amo_idx_q : b_idx;
  assign ram_we    = amo_busy_q ? 4'hf : (do_write ? b_req_i.be : 4'h0);
  assign ram_wdata = amo_busy_q ? amo_new : b_req_i.wdata;
  assign ram_re    = b_accept && !is_sc && (!b_req_i.we || is_amo);

  always_ff @(posedge clk_i) begin
    for (int unsigned i = 0; i < 4; i++) begin
      if (ram_we[i]) begin
        mem_q[ram_idx][8*i +: 8] <= ram_wdata[8*i +: 8];
      end
    end
    if (ram_re) begin
      b_read_q <= mem_q[ram_idx];
    end
  end

  always_comb begin
    resv_valid_d = resv_valid_q;
    resv_idx_d   = resv_idx_q;
    if (b_accept && is_lr) begin
      resv_valid_d = 1'b1;
      resv_idx_d   = b_idx;
    end else if (b_accept && is_sc) begin
      resv_valid_d = 1'b0;
    end else if ((do_write && (b_idx == resv_idx_q)) || (amo_busy_q && (amo_idx_q == resv_idx_q))) begin
      resv_valid_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      b_rvalid_q    <= 1'b0;
      b_err_q       <= 1'b0;
      b_exokay_q    <= 1'b0;
      amo_busy_q    <= 1'b0;
      amo_op_q      <= AtopAdd;
      amo_idx_q     <= '0;
      amo_operand_q <= '0;
      resv_valid_q  <= 1'b0;
      resv_idx_q    <= '0;
      sc_answer_q   <= 1'b0;
      sc_failed_q   <= 1'b0;
    end else begin
      b_rvalid_q    <= b_accept;
      b_err_q       <= 1'b0;
      // exokay reports the success of LR and SC (and is set for AMOs, which always succeed).
      b_exokay_q    <= b_accept && (is_lr || sc_ok || is_amo);
      amo_busy_q    <= b_accept && is_amo;
      if (b_accept && is_amo) begin
        amo_op_q      <= b_req_i.atop[4:0];
        amo_idx_q     <= b_idx;
        amo_operand_q <= b_req_i.wdata;
      end
      resv_valid_q  <= resv_valid_d;
      resv_idx_q    <= resv_idx_d;
      // CV32E40X 0.6.0-19 writes an SC's rdata to rd (its RTL does not use exokay): 0 = success.
      if (b_accept && is_sc) begin
        sc_answer_q <= 1'b1;
        sc_failed_q <= !sc_ok;
      end else if (b_accept && (!b_req_i.we || is_amo)) begin
        sc_answer_q <= 1'b0;
      end
    end
  end

`ifdef VERILATOR
  // Back door for the simulator's ELF loader: writes one word, before reset is released.
  export "DPI-C" function couplet_sram_write_word;
  function automatic void couplet_sram_write_word(input int unsigned index, input int unsigned data);
    if (index < Words) begin
      mem_q[index] = data;
    end
  endfunction
`endif

endmodule
