"""couplet: a RISC-V IoT SoC framework where accelerators attach in every coupling style."""

__version__ = "0.1.0"
