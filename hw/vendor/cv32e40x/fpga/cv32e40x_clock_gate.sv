// The CV32E40X's clock gate for FPGA builds: the clock passes through ungated.
//
// The core gates its own clock while it sleeps (WFI) to save power. The package's behavioural
// gate is a latch and an AND on the clock, which an FPGA flow cannot time; FPGAs gate clocks
// with dedicated buffers instead. Passing the clock through keeps every function of the core
// (it still waits for its wake-up in its sleep state) and loses only the power saving.
module cv32e40x_clock_gate #(
  parameter int LIB = 0
) (
  input  logic clk_i,
  input  logic en_i,
  input  logic scan_cg_en_i,
  output logic clk_o
);

  // LIB selects a cell library in ASIC flows; there is none here.
  logic unused_inputs;
  assign unused_inputs = en_i ^ scan_cg_en_i ^ (LIB != 0);

  assign clk_o = clk_i;

endmodule
