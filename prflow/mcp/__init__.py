"""prflow's MCP server: the six impact repo tools and the PR tools, over stdio.

Editors and agents (Claude Code, Cursor, ...) start ``prflow mcp`` and call
the same functions the CLI and the workflows use, so a tool behaves the same
whichever surface calls it.
"""
