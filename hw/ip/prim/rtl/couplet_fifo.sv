// Synchronous FIFO, the one every IP uses (the DMA's word buffers and its response routing, the
// UART's bytes, the command mux's response routing): first-word-fall-through (data_o is the
// oldest entry while empty_o is low), any depth from 1, and a flush that empties it in one cycle
// so that a job ended by an error leaves nothing behind for the next job.
//
// full_o, empty_o and count_o come from the count register alone, never from push_i or pop_i,
// so a writer may drive its ready from full_o and a reader its valid from empty_o.
//
// Pushing while full or popping while empty is a caller bug; the flags make both easy to avoid,
// the FIFO ignores such requests, and every simulation stops on one.
module couplet_fifo #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 4
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         flush_i,

  input  logic                         push_i,
  input  logic [Width-1:0]             data_i,
  output logic                         full_o,

  input  logic                         pop_i,
  output logic [Width-1:0]             data_o,
  output logic                         empty_o,

  output logic [$clog2(Depth + 1)-1:0] count_o
);

  localparam int unsigned CntWidth = $clog2(Depth + 1);
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1;
  typedef logic [PtrWidth-1:0] ptr_t;

  if (Width < 1 || Depth < 1) begin : gen_param_check
    $error("couplet_fifo: Width and Depth must be at least 1");
  end

  function automatic ptr_t ptr_inc(ptr_t ptr);
    return (ptr == ptr_t'(Depth - 1)) ? '0 : ptr + ptr_t'(1);
  endfunction

  logic [Width-1:0]    mem_q [Depth];
  ptr_t                wptr_q, rptr_q;
  logic [CntWidth-1:0] count_q;

  logic do_push, do_pop;
  assign full_o  = (count_q == CntWidth'(Depth));
  assign empty_o = (count_q == '0);
  assign do_push = push_i && !full_o;
  assign do_pop  = pop_i && !empty_o;
  assign data_o  = mem_q[rptr_q];
  assign count_o = count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else if (flush_i) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else begin
      if (do_push) begin
        wptr_q <= ptr_inc(wptr_q);
      end
      if (do_pop) begin
        rptr_q <= ptr_inc(rptr_q);
      end
      if (do_push && !do_pop) begin
        count_q <= count_q + CntWidth'(1);
      end else if (!do_push && do_pop) begin
        count_q <= count_q - CntWidth'(1);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (do_push) begin
      mem_q[wptr_q] <= data_i;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      NoPushWhenFull: assert (!(push_i && full_o && !flush_i));
      NoPopWhenEmpty: assert (!(pop_i && empty_o && !flush_i));
      CountInRange: assert (count_q <= CntWidth'(Depth));
    end
  end
`endif

endmodule
