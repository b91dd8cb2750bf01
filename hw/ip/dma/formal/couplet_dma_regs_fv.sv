// Property checks of couplet_dma_regs, the DMA's slots (`couplet prove dma_slots`, docs/formal.md).
//
// The bus master and the engine are left to the solver: the master bound by the OBI rules
// (couplet_obi_fv_port); the engine runs one job at a time, starts only an offered slot while no
// port job runs, ends only a job it started, and, as couplet_prove's dma_engine checks bound it,
// starts an offered slot within StartWait cycles of being free and ends a job within JobWait
// cycles; a port job lasts at most PortWait cycles, and a waiting slot goes before the next port
// job (couplet_dma's turns).
// Checked: the port keeps the OBI rules, granted at once and answered in the next cycle, with an
// error exactly for an offset with no register (offsets from the generated dma_reg_pkg); a GO
// that arms a slot (chosen by the solver, track_i) ends, with the slot's DONE, within SlotBound
// cycles, unless ABORT_ALL drops it before it starts; and of two armed slots the one armed first
// starts first.
module couplet_dma_regs_fv
  import couplet_accel_pkg::*;
  import couplet_obi_pkg::*;
  import dma_reg_pkg::*;
(
  input logic     clk_i,
  input logic     rst_ni,
  input obi_req_t obi_req_i,
  input logic     slot_start_i,
  input logic     slot_end_i,
  input logic     slot_end_err_i,
  input logic     port_busy_i,
  input logic     track_i,
  input logic     mutate_i
);

  localparam int unsigned StartWait = 2;
  localparam int unsigned JobWait   = 4;
  localparam int unsigned PortWait  = 3;
  localparam int unsigned SlotBound = 21;  // the least that proves (20 fails: a reachable trace)

  // Reset in the first cycle (init_q), then none.
  logic init_q;
  couplet_fv_reset u_reset (.clk_i(clk_i), .rst_ni(rst_ni), .init_o(init_q));

  logic unused_mutate;
  assign unused_mutate = mutate_i;  // read only by the mutant

  obi_rsp_t obi_rsp;
  logic     slot_valid, slot_valid_dut, abort, irq;
  dma_job_t slot_job;

  couplet_dma_regs u_dut (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .obi_req_i      (obi_req_i),
    .obi_rsp_o      (obi_rsp),
    .slot_valid_o   (slot_valid_dut),
    .slot_job_o     (slot_job),
    .slot_start_i   (slot_start_i),
    .slot_end_i     (slot_end_i),
    .slot_end_err_i (slot_end_err_i),
    .port_busy_i    (port_busy_i),
    .abort_o        (abort),
    .irq_o          (irq)
  );

  logic unused_outputs;
  assign unused_outputs = ^{slot_job, abort, irq};

  // Mutant (`couplet prove` shows that it makes a check fail): the harness itself, not the RTL,
  // hides an armed slot from the engine in a cycle the solver picks (a lost slot).
  always_comb begin
    slot_valid = slot_valid_dut;
`ifdef FV_MUTANT_HIDE_SLOT
    if (mutate_i) slot_valid = 1'b0;
`endif
  end

  logic [3:0] outstanding, rsp_wait;
  couplet_obi_fv_port #(
    .DutIsSlave     (1'b1),
    .MaxOutstanding (1),
    .MaxGntWait     (1),
    .MaxRspWait     (2)
  ) u_bus (
    .clk_i, .rst_ni, .req_i(obi_req_i), .rsp_i(obi_rsp), .outstanding_o(outstanding), .rsp_wait_o(rsp_wait)
  );

  // ------------------------------------------------------------------ the engine
  logic       eng_busy_q, port_prev_q, last_port_q;
  logic [2:0] start_wait_q, job_wait_q, port_wait_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      eng_busy_q   <= 1'b0;
      port_prev_q  <= 1'b0;
      last_port_q  <= 1'b0;
      start_wait_q <= '0;
      job_wait_q   <= '0;
      port_wait_q  <= '0;
    end else begin
      eng_busy_q   <= slot_start_i || (eng_busy_q && !slot_end_i);
      port_prev_q  <= port_busy_i;
      if (port_busy_i && !port_prev_q) last_port_q <= 1'b1;
      else if (slot_start_i)           last_port_q <= 1'b0;
      start_wait_q <= (slot_valid && !eng_busy_q && !port_busy_i && !slot_start_i) ? start_wait_q + 3'd1 : '0;
      job_wait_q   <= (eng_busy_q && !slot_end_i) ? job_wait_q + 3'd1 : '0;
      port_wait_q  <= port_busy_i ? port_wait_q + 3'd1 : '0;
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      EngStartsOffered: assume (!slot_start_i || (slot_valid && !eng_busy_q && !port_busy_i));
      EngEndsStarted: assume (!slot_end_i || eng_busy_q);
      EngOneJob: assume (!(port_busy_i && eng_busy_q));
      EngStartsInTime: assume (start_wait_q < 3'(StartWait));
      EngEndsInTime: assume (job_wait_q < 3'(JobWait));
      PortJobsEnd: assume (port_wait_q < 3'(PortWait));
      // couplet_dma's turn: after a port job, a waiting slot goes before the next port job.
      SlotAfterPortJob: assume (!(port_busy_i && !port_prev_q && last_port_q && slot_valid));
    end
  end

  // ------------------------------------------------------------------ the bus port
  logic mapped, mapped_q;
  assign mapped = obi_req_i.addr inside {
      32'(DMA_SLOT0_SRC_OFFSET), 32'(DMA_SLOT0_DST_OFFSET), 32'(DMA_SLOT0_LEN_OFFSET),
      32'(DMA_SLOT0_OUT_LEN_OFFSET), 32'(DMA_SLOT1_SRC_OFFSET), 32'(DMA_SLOT1_DST_OFFSET),
      32'(DMA_SLOT1_LEN_OFFSET), 32'(DMA_SLOT1_OUT_LEN_OFFSET), 32'(DMA_CTRL_OFFSET),
      32'(DMA_STATUS_OFFSET), 32'(DMA_IRQ_ENABLE_OFFSET)};
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) mapped_q <= 1'b0;
    else         mapped_q <= mapped;
  end

  // CTRL as software writes it: GO bits and ABORT_ALL, with the byte enables.
  logic [31:0] wbits;
  always_comb begin
    for (int unsigned i = 0; i < 4; i++) begin
      wbits[8*i +: 8] = obi_req_i.wdata[8*i +: 8] & {8{obi_req_i.be[i]}};
    end
  end
  logic       ctrl_write, abort_all;
  logic [1:0] go;
  assign ctrl_write = obi_req_i.req && obi_req_i.we && obi_req_i.addr == 32'(DMA_CTRL_OFFSET);
  assign abort_all  = ctrl_write && wbits[DMA_CTRL_ABORT_ALL_BIT];
  assign go         = (ctrl_write && !abort_all) ? {wbits[DMA_CTRL_GO1_BIT], wbits[DMA_CTRL_GO0_BIT]} : '0;

  // ------------------------------------------------------------------ slots, as software sees them
  logic [1:0] armed_q;     // armed and not yet started (the harness's own account)
  logic       first_q;     // with both armed: the slot armed first
  logic       started;     // the slot the engine takes now, by that account
  assign started = (armed_q == 2'b11) ? first_q : armed_q[1];
  logic [1:0] arm;         // a GO that arms a slot now
  assign arm = abort_all ? '0 : go & ~armed_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      armed_q <= '0;
      first_q <= 1'b0;
    end else begin
      for (int unsigned k = 0; k < 2; k++) begin
        if (abort_all) begin
          armed_q[k] <= 1'b0;
        end else if (arm[k]) begin
          armed_q[k] <= 1'b1;
        end else if (slot_start_i && slot_valid && started == 1'(k)) begin
          armed_q[k] <= 1'b0;
        end
      end
      // Of two armed, the first: the one already armed when the other is; slot 0 if together.
      // (With one armed it does not matter.)
      if (arm[0] && arm[1]) first_q <= 1'b0;
      else if (arm[0])      first_q <= 1'b1;
      else if (arm[1])      first_q <= 1'b0;
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      AnswerNextCycle: assert (obi_rsp.rvalid == (outstanding == 4'd1) && rsp_wait <= 4'd1);
      if (obi_rsp.rvalid) begin
        ErrorIffNoRegister: assert (obi_rsp.err == !mapped_q);
      end
      // Armed slots are offered; the one armed first is taken first.
      Offered: assert (slot_valid == (armed_q != '0));
      FirstArmedFirst: assert (u_dut.armed_q == armed_q &&
                               (armed_q != 2'b11 || u_dut.slot_idx == started));
    end
  end

  // ------------------------------------------------------------------ the tracked GO
  logic       t_armed_q, t_busy_q, t_slot_q;
  logic [4:0] t_age_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      t_armed_q <= 1'b0;
      t_busy_q  <= 1'b0;
      t_slot_q  <= 1'b0;
      t_age_q   <= '0;
    end else if (!t_armed_q && !t_busy_q) begin
      t_age_q <= '0;
      if (track_i && arm != '0) begin
        t_armed_q <= 1'b1;
        t_slot_q  <= !arm[0];
      end
    end else begin
      t_age_q <= t_age_q + 5'd1;
      if (t_armed_q && abort_all) begin
        t_armed_q <= 1'b0;  // dropped before it started: ABORT_ALL's documented result
      end else if (t_armed_q && slot_start_i && slot_valid && started == t_slot_q) begin
        t_armed_q <= 1'b0;
        t_busy_q  <= 1'b1;
      end else if (t_busy_q && slot_end_i) begin
        t_busy_q <= 1'b0;
      end
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      // Induction invariants: the harness's account is the registers' state.
      EngIsBusySlot: assert (eng_busy_q == (u_dut.busy_q != '0));
      TrackedState: assert ((!t_armed_q || u_dut.armed_q[t_slot_q]) && (!t_busy_q || u_dut.busy_q[t_slot_q]) &&
                            !(t_armed_q && t_busy_q));
      // An armed slot ends within SlotBound cycles of its GO (or ABORT_ALL drops it first).
      SlotEndsInTime: assert (!(t_armed_q || t_busy_q) || t_age_q < 5'(SlotBound));
      // The job ending is the tracked slot's, and it sets the slot's DONE.
      if (t_busy_q && slot_end_i) begin
        EndIsDone: assert (u_dut.busy_q[t_slot_q] && u_dut.done_d[t_slot_q]);
      end
    end
  end

endmodule
