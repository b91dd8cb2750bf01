"""Runners of the external tools, one module a tool: the cross GCC (firmware, FreeRTOS),
Verilator (the SoC model, the simulator, cocotb), Yosys, nextpnr and ecppll through the YoWASP
runtime, and the synthesis jobs couplet's reports are made of."""
