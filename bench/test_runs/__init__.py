"""Benchmark of run_tests on a real test suite (attrs), against plain pytest."""
