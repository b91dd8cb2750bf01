"""What the tests share and the couplet package does not need: bus models (BFMs) for the cocotb
benches and readers of the NIST test vectors."""
