"""``prflow mcp``: serve the repo tools and the PR tools to an editor or agent over stdio."""

from __future__ import annotations

import typer

MCP_HELP = (
    "Run prflow's MCP server on stdin/stdout (for Claude Code, Cursor and other MCP "
    "clients).\n\n"
    "Tools: list_changed_files, git_diff, read_file_at_ref, search_code, find_importers, "
    "list_test_files (a local repository at head vs base), pr_comments, pr_checks, pr_stack "
    "(GitHub; set GITHUB_TOKEN).\n\n"
    "Register it: claude mcp add prflow -- prflow mcp"
)


def mcp() -> None:
    import anyio

    from prflow.mcp.server import serve_stdio

    anyio.run(serve_stdio)


def register(app: typer.Typer) -> None:
    app.command("mcp", help=MCP_HELP)(mcp)
