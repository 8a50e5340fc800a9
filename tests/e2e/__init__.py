"""End-to-end tests: the `prflow` console script as a user runs it."""
