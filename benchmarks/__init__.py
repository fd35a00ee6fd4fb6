"""Documented speed measurements; see docs/benchmarks.md for how to run each."""
