// UART transmitter, 8N1: a start bit (0), eight data bits LSB first, a stop bit (1); idle high.
//
// Bytes arrive on a valid/ready stream and wait in a FIFO of Depth entries, so a writer that
// bursts a line of text is not held up by the slow line. Each bit lasts Divider clock cycles,
// ClkHz / Baud rounded to the nearest integer; frames follow each other without idle time
// while the FIFO has bytes. ready_o depends only on the FIFO level (a register), so a writer
// may use it combinationally (couplet_simctrl grants its bus from it).
module couplet_uart_tx #(
  parameter int unsigned ClkHz = 50_000_000,
  parameter int unsigned Baud  = 115_200,
  parameter int unsigned Depth = 16
) (
  input  logic       clk_i,
  input  logic       rst_ni,

  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,

  output logic       tx_o
);

  localparam int unsigned Divider  = (ClkHz + Baud / 2) / Baud;
  localparam int unsigned DivWidth = $clog2(Divider);
  localparam int unsigned FrameBits = 10;

  // A divider below 2 cannot time the bit from a counter.
  if (Divider < 2) begin : g_bad_divider
    $error("couplet_uart_tx: ClkHz / Baud must be at least 2");
  end

  localparam logic [DivWidth-1:0] BitLast = DivWidth'(Divider - 1);

  // ------------------------------------------------------------------------------ FIFO
  logic                         fifo_full, fifo_empty, pop;
  logic [7:0]                   fifo_head;
  logic [$clog2(Depth + 1)-1:0] fifo_count;

  assign ready_o = !fifo_full;

  couplet_fifo #(
    .Width (8),
    .Depth (Depth)
  ) u_fifo (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .flush_i (1'b0),
    .push_i  (valid_i && ready_o),
    .data_i  (data_i),
    .full_o  (fifo_full),
    .pop_i   (pop),
    .data_o  (fifo_head),
    .empty_o (fifo_empty),
    .count_o (fifo_count)
  );

  // The shifter needs only whether a byte waits.
  logic unused_fifo_count;
  assign unused_fifo_count = ^fifo_count;

  // ------------------------------------------------------------------------------ shifter
  // shift_q holds the frame still to send, LSB on the line; ones shift in, so it idles high.
  logic [FrameBits-1:0] shift_q;
  logic [3:0]           bits_left_q;  // bits after the one on the line
  logic [DivWidth-1:0]  baud_q;       // cycles left of the current bit, minus one
  logic                 busy_q;
  logic                 bit_done, frame_done;

  assign bit_done   = (baud_q == '0);
  assign frame_done = busy_q && bit_done && (bits_left_q == '0);
  // The next frame starts in the cycle after the stop bit ends, so frames sit back to back.
  assign pop        = !fifo_empty && (!busy_q || frame_done);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shift_q     <= '1;
      bits_left_q <= '0;
      baud_q      <= '0;
      busy_q      <= 1'b0;
    end else if (pop) begin
      shift_q     <= {1'b1, fifo_head, 1'b0};
      bits_left_q <= 4'(FrameBits - 1);
      baud_q      <= BitLast;
      busy_q      <= 1'b1;
    end else if (frame_done) begin
      busy_q      <= 1'b0;
    end else if (busy_q) begin
      if (bit_done) begin
        shift_q     <= {1'b1, shift_q[FrameBits-1:1]};
        bits_left_q <= bits_left_q - 1'b1;
        baud_q      <= BitLast;
      end else begin
        baud_q      <= baud_q - 1'b1;
      end
    end
  end

  assign tx_o = shift_q[0];

endmodule
