"""Flows: one module a `couplet` verb (bench, synth, sweep, fpga, energy, lint, demo). A flow
runs tools on the model and writes a report; no flow imports another."""
