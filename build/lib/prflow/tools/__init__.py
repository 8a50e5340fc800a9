"""The six read-only repository tools, usable by the LLM agent, the CLI and the MCP server.

Each tool is a plain function over a :class:`RepoReader`; :func:`run_tool`
validates a model's arguments and dispatches by name, :data:`TOOL_SPECS`
describes the tools to the model.
"""

from prflow.llm.messages import ToolSpec
from prflow.tools.reader import GrepHit, RepoReader, ToolError
from prflow.tools.registry import TOOL_NAMES, TOOL_SPECS, ToolResult, run_tool

__all__ = [
    "TOOL_NAMES",
    "TOOL_SPECS",
    "GrepHit",
    "RepoReader",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "run_tool",
]
