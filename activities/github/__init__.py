"""GitHub I/O, one module per concern: the client, error classification, pull requests,
the prflow comment, review threads, CI checks and stacked PRs.

Activities here run on the GitHub task queue; the plain functions beside them
serve the CLI and the MCP server, which call GitHub directly (no workflow)
for quick reads.
"""

from activities.github.comments import upsert_pr_comment
from activities.github.pulls import fetch_pull_request, resolve_pull_request

__all__ = ["fetch_pull_request", "resolve_pull_request", "upsert_pr_comment"]
