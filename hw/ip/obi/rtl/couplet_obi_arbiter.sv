// OBI N-to-1 arbiter: several masters (the core's data port, DMA engines) share one OBI port.
//
// The winning request is forwarded combinationally, so a master alone on the bus sees exactly
// the timing of the port behind the arbiter: no added cycle on grant or response. This matters
// because the core's data port goes through here in front of the address decoder.
//
// Arbitration is round-robin over the requesting masters; the pointer moves past a master only
// when it is granted. Master 0 (the core) gets no fixed priority: round-robin costs it latency
// only when another master requests in the same cycle, and then at most one access per other
// requesting master, whereas a fixed priority would let back-to-back core accesses starve a DMA.
//
// OBI wants a request held stable until it is granted. Once the arbiter has raised s_req_o for a
// master and the grant did not come, it keeps that master selected until it is granted, even if
// a master with a higher round-robin priority starts requesting meanwhile.
//
// Responses return in request order (OBI), so a FIFO of the granted masters' indices routes
// each response to its master. With MaxOutstanding entries in flight, s_req_o stays low (and
// every gnt with it) until a response frees an entry. Set MaxOutstanding at least as large as
// what the port behind allows, so the FIFO is never the limit. Response data, err and exokay
// are shared by all masters; only rvalid is per master.
module couplet_obi_arbiter
  import couplet_obi_pkg::*;
#(
  parameter int unsigned NumMasters     = 2,
  parameter int unsigned MaxOutstanding = 2
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,

  // Master side: one port per master. rdata, err and exokay of every m_rsp_o are the shared
  // port's; gnt and rvalid are each master's own.
  input  obi_req_t [NumMasters-1:0]   m_req_i,
  output obi_rsp_t [NumMasters-1:0]   m_rsp_o,

  // Slave side: the shared port.
  output obi_req_t                    s_req_o,
  input  obi_rsp_t                    s_rsp_i
);

  localparam int unsigned IdxWidth = (NumMasters > 1) ? $clog2(NumMasters) : 1;
  localparam int unsigned PtrWidth = (MaxOutstanding > 1) ? $clog2(MaxOutstanding) : 1;
  localparam int unsigned CntWidth = $clog2(MaxOutstanding + 1);

  typedef logic [IdxWidth-1:0] idx_t;
  typedef logic [PtrWidth-1:0] ptr_t;

  function automatic ptr_t ptr_inc(ptr_t ptr);
    return (ptr == ptr_t'(MaxOutstanding - 1)) ? '0 : ptr + ptr_t'(1);
  endfunction

  idx_t rr_q, rr_d;          // the master with the highest priority in the next arbitration
  logic lock_q;              // a request is on s_req_o without its grant yet
  idx_t lock_idx_q;

  // ---------------------------------------------------------------- arbitration
  idx_t winner;
  always_comb begin
    int unsigned cand;
    logic        found;
    winner = rr_q;
    found  = 1'b0;
    for (int unsigned k = 0; k < NumMasters; k++) begin
      cand = int'(rr_q) + k;
      if (cand >= NumMasters) begin
        cand = cand - NumMasters;
      end
      if (!found && m_req_i[cand].req) begin
        winner = idx_t'(cand);
        found  = 1'b1;
      end
    end
    if (lock_q) begin
      winner = lock_idx_q;
    end
  end

  // ---------------------------------------------------------------- response routing FIFO
  idx_t                owner_q [MaxOutstanding];
  ptr_t                wptr_q, rptr_q;
  logic [CntWidth-1:0] count_q;
  logic                full;
  assign full = (count_q == CntWidth'(MaxOutstanding));

  always_comb begin
    s_req_o     = m_req_i[winner];
    s_req_o.req = m_req_i[winner].req && !full;
  end

  logic accept;
  assign accept = s_req_o.req && s_rsp_i.gnt;

  logic resp;
  idx_t head;
  assign resp = s_rsp_i.rvalid && (count_q != '0);
  assign head = owner_q[rptr_q];

  always_comb begin
    for (int unsigned i = 0; i < NumMasters; i++) begin
      m_rsp_o[i] = '{gnt:    accept && (winner == idx_t'(i)),
                     rvalid: resp && (head == idx_t'(i)),
                     rdata:  s_rsp_i.rdata,
                     err:    s_rsp_i.err,
                     exokay: s_rsp_i.exokay};
    end
  end

  always_comb begin
    rr_d = rr_q;
    if (accept) begin
      rr_d = (winner == idx_t'(NumMasters - 1)) ? '0 : winner + idx_t'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rr_q       <= '0;
      lock_q     <= 1'b0;
      lock_idx_q <= '0;
      wptr_q     <= '0;
      rptr_q     <= '0;
      count_q    <= '0;
    end else begin
      rr_q       <= rr_d;
      lock_q     <= s_req_o.req && !s_rsp_i.gnt;
      lock_idx_q <= winner;
      if (accept) begin
        wptr_q <= ptr_inc(wptr_q);
      end
      if (resp) begin
        rptr_q <= ptr_inc(rptr_q);
      end
      if (accept && !resp) begin
        count_q <= count_q + CntWidth'(1);
      end else if (!accept && resp) begin
        count_q <= count_q - CntWidth'(1);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (accept) begin
      owner_q[wptr_q] <= winner;
    end
  end

`ifndef SYNTHESIS
  // A response with nothing outstanding means a broken slave; say so in simulation. The check
  // sits in a reset-style block so that rst_ni is used only as an asynchronous reset.
  // One master is granted at a time, and the requests in flight stay within MaxOutstanding.
  logic [NumMasters-1:0] master_gnt;
  always_comb begin
    for (int unsigned i = 0; i < NumMasters; i++) master_gnt[i] = m_rsp_o[i].gnt;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (s_rsp_i.rvalid && (count_q == '0)) begin
        $error("couplet_obi_arbiter: response without an outstanding request");
      end
      OneMasterGranted: assert ($onehot0(master_gnt));
      CountInRange: assert (count_q <= CntWidth'(MaxOutstanding));
    end
  end
`endif

endmodule
