"""Pure edits of a conversation's content blocks before it is sent or stored.

The stored transcript is never rewritten: elision is applied to a copy when a
request is built, so the same transcript and cut point always give the same
prompt, which is what keeps the provider's prompt cache warm.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from prflow.agent.economy import elision_stub, share_of_cap

Message = dict[str, Any]

TRUNCATION_NOTE = (
    "\n[… {cut} more characters cut to keep this turn's tool results under {cap} characters; "
    "ask for a narrower range or page]"
)


def elide_tool_results(messages: list[Message], elide_before: int) -> list[Message]:
    """A copy with tool results of messages before ``elide_before`` replaced by stubs."""
    if elide_before <= 0:
        return messages
    names = _tool_names(messages)
    edited: list[Message] = []
    for index, message in enumerate(messages):
        content = message.get("content")
        if index >= elide_before or not isinstance(content, list):
            edited.append(message)
            continue
        blocks = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                blocks.append(_stubbed(block, names.get(str(block.get("tool_use_id")), "tool")))
            else:
                blocks.append(block)
        edited.append({**message, "content": blocks})
    return edited


def cap_texts(texts: list[str], cap: int) -> tuple[list[str], int]:
    """Cut ``texts`` so their combined size fits ``cap``; returns them and how many were cut."""
    allowed = share_of_cap([len(text) for text in texts], cap)
    capped: list[str] = []
    cut_count = 0
    for text, keep in zip(texts, allowed, strict=True):
        if keep >= len(text):
            capped.append(text)
            continue
        cut_count += 1
        note = TRUNCATION_NOTE.format(cut=len(text) - keep, cap=cap)
        capped.append(text[: max(keep - len(note), 0)] + note)
    return capped, cut_count


def content_chars(blocks: list[dict[str, Any]]) -> int:
    """Size of content blocks as sent (compact JSON), for token estimates."""
    return len(json.dumps(blocks, separators=(",", ":"), ensure_ascii=False))


def _tool_names(messages: list[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                names[str(block.get("id"))] = str(block.get("name"))
    return names


def _stubbed(block: dict[str, Any], tool_name: str) -> dict[str, Any]:
    body = block.get("content")
    text = body if isinstance(body, str) else json.dumps(body)
    stub = elision_stub(tool_name, len(text))
    if len(stub) >= len(text):
        return block
    replaced = copy.copy(block)
    replaced["content"] = stub
    return replaced
