"""Benchmarks that time prflow on real inputs and print the ratio to an anchor tool."""
