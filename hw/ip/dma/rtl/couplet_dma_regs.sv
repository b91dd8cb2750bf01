// The DMA's registers (OBI slave): two descriptor slots, their arming order, status and
// interrupt. Offsets come from dma_reg_pkg, generated from data/dma.toml.
//
// A slot is armed by GO and offered to the engine (slot_valid_o, slot_job_o);
// when both are armed, the one armed first goes first. The engine's start disarms it and
// marks it busy; its end clears busy and sets the sticky DONE (and ERR) bits. A slot's
// registers are copied into the engine when its job starts, so software may reprogram a busy
// slot; an armed one refuses writes and GO (sticky REFUSED bit), so the job software armed is
// the job that runs.
//
// Registers take 32-bit accesses with byte enables; the request is granted at once and
// answered in the next cycle; an offset with no register answers with an error.
module couplet_dma_regs
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
  import dma_reg_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  input  obi_req_t    obi_req_i,
  output obi_rsp_t    obi_rsp_o,

  output logic        slot_valid_o,   // a slot is armed
  output dma_job_t    slot_job_o,     // the job of the slot to run next
  input  logic        slot_start_i,   // the engine takes that slot
  input  logic        slot_end_i,     // the busy slot's job ended
  input  logic        slot_end_err_i, // ... with an error
  input  logic        port_busy_i,    // a job from the job port runs (STATUS only)
  output logic        abort_o,        // one cycle after ABORT was written
  output logic        irq_o
);

  localparam int unsigned NumSlots = 2;

  // STATUS bits of slot k: slot 0's, StSlotStride * k higher (data/dma.toml).
  localparam int unsigned StSlotStride = DMA_STATUS_SLOT1_ARMED_BIT - DMA_STATUS_SLOT0_ARMED_BIT;
  localparam int unsigned StArmed      = DMA_STATUS_SLOT0_ARMED_BIT;
  localparam int unsigned StBusy       = DMA_STATUS_SLOT0_BUSY_BIT;
  localparam int unsigned StDone       = DMA_STATUS_SLOT0_DONE_BIT;
  localparam int unsigned StErr        = DMA_STATUS_SLOT0_ERR_BIT;
  localparam int unsigned StRefused    = DMA_STATUS_SLOT0_REFUSED_BIT;

  // Slot k's registers: slot 0's, SlotStride bytes higher (data/dma.toml). A register's field
  // index is its word within the slot, so the decode derives slot and field from the offset.
  localparam int unsigned SlotBase    = 32'(DMA_SLOT0_SRC_OFFSET);
  localparam int unsigned SlotStride  = 32'(DMA_SLOT1_SRC_OFFSET) - SlotBase;
  localparam int unsigned SlotWords   = SlotStride / 4;
  localparam int unsigned FieldSrc    = (32'(DMA_SLOT0_SRC_OFFSET) - SlotBase) / 4;
  localparam int unsigned FieldDst    = (32'(DMA_SLOT0_DST_OFFSET) - SlotBase) / 4;
  localparam int unsigned FieldLen    = (32'(DMA_SLOT0_LEN_OFFSET) - SlotBase) / 4;
  localparam int unsigned FieldOutLen = (32'(DMA_SLOT0_OUT_LEN_OFFSET) - SlotBase) / 4;
  localparam int unsigned NumFields   = 4;
  localparam int unsigned SlotW       = $clog2(NumSlots);
  localparam int unsigned FieldW      = $clog2(NumFields);

  // The decode relies on this layout: each slot's fields fill its first NumFields words, and
  // slot 1 repeats slot 0's SlotStride higher. Offsets are distinct (the generator checks).
  localparam bit SlotLayoutOk =
      FieldSrc < NumFields && FieldDst < NumFields && FieldLen < NumFields &&
      FieldOutLen < NumFields && NumFields <= SlotWords &&
      32'(DMA_SLOT1_DST_OFFSET) == 32'(DMA_SLOT0_DST_OFFSET) + SlotStride &&
      32'(DMA_SLOT1_LEN_OFFSET) == 32'(DMA_SLOT0_LEN_OFFSET) + SlotStride &&
      32'(DMA_SLOT1_OUT_LEN_OFFSET) == 32'(DMA_SLOT0_OUT_LEN_OFFSET) + SlotStride;
  if (!SlotLayoutOk) begin : gen_slot_layout_check
    $error("couplet_dma_regs: data/dma.toml's slot registers left the layout the decode assumes");
  end

  typedef logic [29:0] word_t;
  typedef logic [SlotW-1:0] slot_idx_t;
  typedef logic [FieldW-1:0] field_idx_t;

  word_t [NumSlots-1:0][NumFields-1:0] slot_reg_q, slot_reg_d;  // by slot, then field
  logic  [NumSlots-1:0] armed_q, armed_d, busy_q, busy_d, done_q, done_d, err_q, err_d;
  logic  [NumSlots-1:0] refused_q, refused_d, irq_en_q, irq_en_d;
  logic                 older_q, older_d;  // with both armed: the one armed first
  logic                 abort_q, abort_d;
  logic                 rvalid_q, err_rsp_q, err_rsp_d;
  logic [31:0]          rdata_q, rdata_d;

  logic [31:0] wmask, wbits;
  always_comb begin
    for (int unsigned i = 0; i < 4; i++) begin
      wmask[8*i +: 8] = {8{obi_req_i.be[i]}};
    end
  end
  assign wbits = obi_req_i.wdata & wmask;

  // A 30-bit address or length field (bits 31:2) after a byte-enable write.
  function automatic word_t merge_word(word_t old_value, word_t new_value, word_t mask);
    return (old_value & ~mask) | (new_value & mask);
  endfunction

  logic [31:0] status;
  always_comb begin
    status = '0;
    for (int unsigned k = 0; k < NumSlots; k++) begin
      status[StSlotStride*k + StArmed]   = armed_q[k];
      status[StSlotStride*k + StBusy]    = busy_q[k];
      status[StSlotStride*k + StDone]    = done_q[k];
      status[StSlotStride*k + StErr]     = err_q[k];
      status[StSlotStride*k + StRefused] = refused_q[k];
    end
    status[DMA_STATUS_PORT_BUSY_BIT] = port_busy_i;
  end

  // ---------------------------------------------------------------- bus access
  logic                access;
  logic [NumSlots-1:0] go, slot_write;
  logic                abort_write;
  logic [31:0]         slot_word;  // word index from slot 0's first register (wraps below it)
  logic                slot_hit;
  slot_idx_t           slot_sel;
  field_idx_t          field_sel;
  logic                ctrl_write, status_write, irq_en_write;

  assign access    = obi_req_i.req;  // always granted
  assign slot_word = (obi_req_i.addr - 32'(SlotBase)) >> 2;
  assign slot_hit  = obi_req_i.addr[1:0] == 2'b00 && slot_word < 32'(NumSlots * SlotWords) &&
                     slot_word % SlotWords < NumFields;
  assign slot_sel  = slot_idx_t'(slot_word / SlotWords);
  assign field_sel = field_idx_t'(slot_word % SlotWords);

  always_comb begin
    rdata_d      = '0;
    err_rsp_d    = 1'b0;
    slot_write   = '0;
    ctrl_write   = 1'b0;
    status_write = 1'b0;
    irq_en_write = 1'b0;
    if (access && slot_hit) begin
      rdata_d              = {slot_reg_q[slot_sel][field_sel], 2'b00};
      slot_write[slot_sel] = obi_req_i.we;
    end else if (access) begin
      unique case (obi_req_i.addr)
        32'(DMA_CTRL_OFFSET):       ctrl_write = obi_req_i.we;
        32'(DMA_STATUS_OFFSET): begin
          rdata_d      = status;
          status_write = obi_req_i.we;
        end
        32'(DMA_IRQ_ENABLE_OFFSET): begin
          rdata_d      = 32'(irq_en_q) << DMA_IRQ_ENABLE_SLOT0_BIT;
          irq_en_write = obi_req_i.we;
        end
        default: err_rsp_d = 1'b1;
      endcase
    end
  end

  assign abort_write = ctrl_write && wbits[DMA_CTRL_ABORT_ALL_BIT];
  assign go          = (ctrl_write && !abort_write) ? wbits[DMA_CTRL_GO0_BIT +: NumSlots] : '0;

  // ---------------------------------------------------------------- slots
  logic                slot_idx;  // the slot to run next
  logic [NumSlots-1:0] start, accept, stays;
  always_comb begin
    start = '0;
    start[slot_idx] = slot_start_i && slot_valid_o;
  end

  always_comb begin
    slot_reg_d = slot_reg_q;
    armed_d   = armed_q;
    busy_d    = busy_q;
    done_d    = done_q;
    err_d     = err_q;
    refused_d = refused_q;
    irq_en_d  = irq_en_q;
    older_d   = older_q;
    abort_d   = abort_write;

    if (irq_en_write) begin
      irq_en_d = wbits[DMA_IRQ_ENABLE_SLOT0_BIT +: NumSlots] |
                 (irq_en_q & ~wmask[DMA_IRQ_ENABLE_SLOT0_BIT +: NumSlots]);
    end

    for (int unsigned k = 0; k < NumSlots; k++) begin
      // W1C first, so that an event in the same cycle is not lost.
      if (status_write) begin
        done_d[k]    = done_q[k] & ~wbits[StSlotStride*k + StDone];
        err_d[k]     = err_q[k] & ~wbits[StSlotStride*k + StErr];
        refused_d[k] = refused_q[k] & ~wbits[StSlotStride*k + StRefused];
      end
      if (slot_write[k]) begin
        if (armed_q[k]) begin
          refused_d[k] = 1'b1;
        end else begin
          slot_reg_d[k][field_sel] = merge_word(slot_reg_q[k][field_sel], obi_req_i.wdata[31:2],
                                                wmask[31:2]);
          if (field_sel == field_idx_t'(FieldLen)) begin
            slot_reg_d[k][FieldOutLen] = slot_reg_d[k][FieldLen];
          end
        end
      end
      accept[k] = go[k] && !armed_q[k];
      stays[k]  = armed_q[k] && !start[k];
      if (go[k] && armed_q[k]) begin
        refused_d[k] = 1'b1;
      end
      armed_d[k] = (stays[k] || accept[k]) && !abort_write;
      if (start[k]) begin
        busy_d[k] = 1'b1;
      end else if (slot_end_i && busy_q[k]) begin
        busy_d[k] = 1'b0;
        done_d[k] = 1'b1;
        if (slot_end_err_i) begin
          err_d[k] = 1'b1;
        end
      end
    end

    if (accept[0] && accept[1]) begin
      older_d = 1'b0;
    end else if (accept[0]) begin
      older_d = stays[1];
    end else if (accept[1]) begin
      older_d = !stays[0];
    end
  end

  assign slot_valid_o = |armed_q;
  assign slot_idx     = (&armed_q) ? older_q : armed_q[1];

  always_comb begin
    slot_job_o.src     = {slot_reg_q[slot_idx][FieldSrc], 2'b00};
    slot_job_o.dst     = {slot_reg_q[slot_idx][FieldDst], 2'b00};
    slot_job_o.in_len  = {slot_reg_q[slot_idx][FieldLen], 2'b00};
    slot_job_o.out_len = {slot_reg_q[slot_idx][FieldOutLen], 2'b00};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      slot_reg_q <= '0;
      armed_q   <= '0;
      busy_q    <= '0;
      done_q    <= '0;
      err_q     <= '0;
      refused_q <= '0;
      irq_en_q  <= '0;
      older_q   <= 1'b0;
      abort_q   <= 1'b0;
      rvalid_q  <= 1'b0;
      rdata_q   <= '0;
      err_rsp_q <= 1'b0;
    end else begin
      slot_reg_q <= slot_reg_d;
      armed_q   <= armed_d;
      busy_q    <= busy_d;
      done_q    <= done_d;
      err_q     <= err_d;
      refused_q <= refused_d;
      irq_en_q  <= irq_en_d;
      older_q   <= older_d;
      abort_q   <= abort_d;
      rvalid_q  <= access;
      rdata_q   <= rdata_d;
      err_rsp_q <= err_rsp_d;
    end
  end

  assign obi_rsp_o = '{gnt:    1'b1,
                       rvalid: rvalid_q,
                       rdata:  rdata_q,
                       err:    err_rsp_q,
                       exokay: 1'b0};
  logic unused_atop;
  assign unused_atop = ^obi_req_i.atop;  // no atomics reach a peripheral (the decoder stops them)

  assign abort_o  = abort_q;
  assign irq_o    = |(done_q & irq_en_q);

`ifndef SYNTHESIS
  // The engine runs one job at a time and takes a slot only while it is free.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      OneSlotBusy: assert ($onehot0(busy_q));
      StartOnlyArmed: assert (!slot_start_i || (slot_valid_o && busy_q == '0 && !port_busy_i));
      EndOnlyBusy: assert (!slot_end_i || busy_q != '0);
    end
  end
`endif

endmodule
