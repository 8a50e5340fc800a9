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


def estimate_input_tokens(system_chars: int, tools: list[ToolSpec], messages_chars: int) -> int:
    """Prompt tokens of a request with a system prompt, tools and messages of these sizes."""
    tool_chars = sum(len(json.dumps(tool.model_dump())) for tool in tools)
    tool_overhead = TOOL_USE_OVERHEAD_TOKENS + PER_TOOL_OVERHEAD_TOKENS * len(tools) if tools else 0
    return (
        REQUEST_OVERHEAD_TOKENS
        + tokens_for_chars(system_chars)
        + tokens_for_chars(tool_chars)
        + tool_overhead
        + tokens_for_chars(messages_chars)
    )
