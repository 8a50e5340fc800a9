"""Pure static analyses of a change: each module answers one question about a PR."""
