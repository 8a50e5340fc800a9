"""Git, run with explicit options: snapshots, mirrors, diffs and reads at exact commits."""
