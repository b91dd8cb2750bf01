// Simulation top for the Verilator harness: the SoC plus what only a simulation needs to see.
//
// minstret is read from inside the core by a hierarchical reference: the harness reports
// instructions retired without the firmware having to print them.
module couplet_sim_top (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        console_valid_o,
  output logic [7:0]  console_data_o,
  output logic        exit_valid_o,
  output logic [7:0]  exit_code_o,
  output logic        core_sleep_o,
  output logic [63:0] minstret_o
);

  couplet_soc u_soc (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .console_valid_o (console_valid_o),
    .console_data_o  (console_data_o),
    .console_ready_i (1'b1),  // the harness takes a byte every cycle
    .exit_valid_o    (exit_valid_o),
    .exit_code_o     (exit_code_o),
    .core_sleep_o    (core_sleep_o)
  );

  assign minstret_o = u_soc.u_core.cs_registers_i.mhpmcounter_q[2];

endmodule
