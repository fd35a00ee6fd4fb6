"""Tournament formats: pure scoring and pairing rules (no I/O, no clock)."""
