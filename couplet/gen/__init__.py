"""Generators: the files written from the model (the SoC package, C headers, linker script,
register packages and docs, FuseSoC cores). They run no tool."""
