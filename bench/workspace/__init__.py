"""Benchmark of the write path: worktrees rebuilt from base + stored edits, edits, exports."""
