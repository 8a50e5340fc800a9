"""A conservative guess of a request's prompt tokens, made before it is sent.

Budgets are checked before every model call against the worst case, so this
errs high: it assumes dense text (code, JSON) at about three characters per
token and adds the hidden overhead the API puts around tools and messages.
"""

from __future__ import annotations

import json
import math

from prflow.llm.messages import ToolSpec

CHARS_PER_TOKEN = 3.0
TOOL_USE_OVERHEAD_TOKENS = 400
PER_TOOL_OVERHEAD_TOKENS = 20
REQUEST_OVERHEAD_TOKENS = 50


def tokens_for_chars(chars: int) -> int:
    """Upper-bound token count of ``chars`` characters of text."""
    return math.ceil(max(chars, 0) / CHARS_PER_TOKEN)


def tool_schema_chars(tools: list[ToolSpec]) -> int:
    """Size of tool definitions as the estimate counts them."""
    return sum(len(json.dumps(tool.model_dump())) for tool in tools)


def estimate_prompt_tokens(
    system_chars: int, tools_chars: int, tool_count: int, messages_chars: int
) -> int:
    """Prompt tokens of a request with a system prompt, tools and messages of these sizes."""
    tool_overhead = (
        TOOL_USE_OVERHEAD_TOKENS + PER_TOOL_OVERHEAD_TOKENS * tool_count if tool_count else 0
    )
    return (
        REQUEST_OVERHEAD_TOKENS
        + tokens_for_chars(system_chars)
        + tokens_for_chars(tools_chars)
        + tool_overhead
        + tokens_for_chars(messages_chars)
    )


def estimate_input_tokens(system_chars: int, tools: list[ToolSpec], messages_chars: int) -> int:
    """Prompt tokens of a request with a system prompt, these tools and messages of this size."""
    return estimate_prompt_tokens(
        system_chars, tool_schema_chars(tools), len(tools), messages_chars
    )
