"""Where the prompt-cache breakpoints go in a Messages API request.

The API caches a prompt prefix up to each block marked ``cache_control`` and
allows at most four marks. Three are used, all on content that the next
request repeats byte for byte: the system prompt, the last tool (tools come
first in the prefix, so it covers all of them) and the last block of the newest
message the previous request already carried, the conversation so far. Marks
already present in stored content are removed first so that the prefix
differs from the previous request only where the conversation grew.
"""

from __future__ import annotations

import copy
from typing import Any

MAX_BREAKPOINTS = 4
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
# Blocks the API refuses to mark: thinking blocks are signed and must stay as received.
_UNMARKABLE_TYPES = frozenset({"thinking", "redacted_thinking"})

Block = dict[str, Any]
Message = dict[str, Any]


def system_blocks(system: str) -> list[Block]:
    """The system prompt as one marked text block (empty prompts stay unmarked)."""
    block: Block = {"type": "text", "text": system}
    if system:
        block["cache_control"] = dict(EPHEMERAL)
    return [block]


def mark_last_tool(tools: list[Block]) -> list[Block]:
    """A copy of ``tools`` with the last one marked, caching every definition."""
    marked = [_without_mark(tool) for tool in tools]
    if marked:
        marked[-1]["cache_control"] = dict(EPHEMERAL)
    return marked


def mark_previous_prefix(messages: list[Message]) -> list[Message]:
    """A copy of ``messages`` with the conversation the previous call sent marked.

    The previous call sent everything before the newest assistant message, so
    the mark goes on the message just before it. A first call (no assistant
    message yet) gets no message mark: nothing of it was sent before.
    """
    marked = [_message_without_marks(message) for message in messages]
    index = _newest_previously_sent(marked)
    if index is not None:
        _mark_last_block(marked[index])
    return marked


def count_breakpoints(system: list[Block], tools: list[Block], messages: list[Message]) -> int:
    """How many blocks of a request carry ``cache_control``."""
    blocks = [*system, *tools]
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            blocks.extend(block for block in content if isinstance(block, dict))
    return sum(1 for block in blocks if "cache_control" in block)


def _newest_previously_sent(messages: list[Message]) -> int | None:
    for index in range(len(messages) - 1, 0, -1):
        if messages[index].get("role") == "assistant":
            return index - 1
    return None


def _mark_last_block(message: Message) -> None:
    content = message["content"]
    for block in reversed(content):
        if _markable(block):
            block["cache_control"] = dict(EPHEMERAL)
            return


def _markable(block: Block) -> bool:
    if block.get("type") in _UNMARKABLE_TYPES:
        return False
    return not (block.get("type") == "text" and not block.get("text"))


def _message_without_marks(message: Message) -> Message:
    content = message.get("content")
    if isinstance(content, str):
        blocks: list[Block] = [{"type": "text", "text": content}] if content else []
    else:
        blocks = [_without_mark(block) for block in content or []]
    return {**message, "content": blocks}


def _without_mark(block: Block) -> Block:
    clean = copy.deepcopy(block)
    clean.pop("cache_control", None)
    return clean
