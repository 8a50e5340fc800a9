"""Pure functions behind the PR tools: review threads, CI failures, stacked PRs, readiness.

Nothing here talks to GitHub: activities fetch, these modules decide. The
same functions serve the CLI, the MCP server and the ``pr_checks`` workflow.
"""
