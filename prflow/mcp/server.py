"""The stdio MCP server: lists :data:`~prflow.mcp.tools.TOOLS`, runs calls, reports errors.

Results are JSON (also as structured content); every failure is a tool result
with ``isError`` whose text is one line (see :mod:`prflow.mcp.failures`).
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from prflow import __version__
from prflow.mcp.failures import failure_of, one_line
from prflow.mcp.tools import BY_NAME, TOOLS

SERVER_NAME = "prflow"
INSTRUCTIONS = (
    "prflow's read-only repository tools (list_changed_files, git_diff, read_file_at_ref, "
    "search_code, find_importers, list_test_files) read a local repository at head compared "
    "with base; the PR tools (pr_comments, pr_checks, pr_stack, pr_threads, pr_conflicts, "
    "pr_rebase, pr_permissions) read GitHub, pr_reply and pr_resolve write to it; all need "
    "GITHUB_TOKEN in the server's environment."
)
log = logging.getLogger(__name__)


async def list_tools(
    _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
            for t in TOOLS
        ]
    )


async def call_tool(
    _ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    tool = BY_NAME.get(params.name)
    if tool is None:
        return _error(f"unknown tool {params.name!r}; available: {', '.join(BY_NAME)}")
    try:
        answer = await tool.run(dict(params.arguments or {}))
    except Exception as exc:  # every failure is a tool result, never a JSON-RPC error
        failure = failure_of(exc)
        if failure.unexpected:
            log.error("tool %s failed", params.name, exc_info=exc)
        return _error(failure.line)
    return types.CallToolResult(
        content=[types.TextContent(text=answer.text)], structured_content=answer.data
    )


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=one_line(message))], is_error=True)


def build_server() -> Server[Any]:
    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio() -> None:
    """Serve one client over stdin/stdout until it disconnects."""
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
