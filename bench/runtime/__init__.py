"""Benchmark of Temporal's per-activity overhead on the embedded dev server."""
