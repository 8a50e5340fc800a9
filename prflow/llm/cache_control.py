"""Where the prompt-cache breakpoints go in a Messages API request.

The API caches a prompt prefix up to each block marked ``cache_control``,
allows at most four marks, and looks back at most 20 blocks from a mark for an
earlier cached prefix. Four marks are used: the last tool (tools come first in
the prefix, so it covers all of them), the system prompt, the end of the
previous request's conversation (which that request marked, so this one reads
it exactly, however many tool results arrived since), and the end of this
request (which the next request will read). Marks already present in stored
content are removed first so that the prefix differs from the previous request
only where the conversation grew, except one: an agent whose first message
opens with context shared by every agent of its kind in the run (the PR's
context for reviewers) stores that block marked, so the first agent writes
tools, system and shared context once and every other agent reads them. Such
a request has five candidate marks; the tools' mark goes, since the system's
mark caches the tools before it anyway.
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


def shared_prefix_blocks(shared: str, own: str) -> list[Block]:
    """A first message as the shared context (marked: a prefix every agent reads) and its own
    part; without shared context, the own part alone."""
    if not shared:
        return [{"type": "text", "text": own}]
    return [
        {"type": "text", "text": shared, "cache_control": dict(EPHEMERAL)},
        {"type": "text", "text": own},
    ]


def has_shared_prefix(messages: list[Message]) -> bool:
    """Whether the first message opens with a marked shared-context block (and more after it)."""
    if not messages:
        return False
    content = messages[0].get("content")
    return (
        isinstance(content, list)
        and len(content) > 1
        and isinstance(content[0], dict)
        and "cache_control" in content[0]
    )


def mark_conversation(messages: list[Message]) -> list[Message]:
    """A copy of ``messages`` with the previous request's end and this request's end marked.

    The previous request ended just before the newest assistant message; a
    first request (no assistant message yet) has only its own end marked. A
    shared-context block opening the first message keeps its mark.
    """
    shared = has_shared_prefix(messages)
    marked = [_message_without_marks(message) for message in messages]
    if not marked:
        return marked
    if shared:
        marked[0]["content"][0]["cache_control"] = dict(EPHEMERAL)
    _mark_last_block(marked[-1])
    previous_end = _newest_previously_sent(marked)
    if previous_end is not None and previous_end != len(marked) - 1:
        _mark_last_block(marked[previous_end])
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
