"""Builds the user turns of an agent conversation in the blob store.

Workflow code cannot write blobs, so the agent loop asks this (local)
activity to assemble tool results or a follow-up text into one user message
and store it; the LLM activity later reads it back by key.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field
from temporalio import activity

from prflow.config import cached_settings
from prflow.store.blobs import get_text, put_json


class ToolResultPart(BaseModel):
    """The answer to one ``tool_use`` block: inline text or a blob key, maybe an error."""

    tool_use_id: str
    content_key: str | None = None
    text: str | None = None
    is_error: bool = False


class ComposeInput(BaseModel):
    text: str | None = None
    tool_results: list[ToolResultPart] = Field(default_factory=list)


class ComposedMessage(BaseModel):
    key: str
    chars: int


def _content_blocks(inp: ComposeInput, db_url: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in inp.tool_results:
        body = part.text if part.text is not None else ""
        if part.content_key is not None:
            body = get_text(db_url, part.content_key)
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": part.tool_use_id,
                "content": body or "(empty result)",
                "is_error": part.is_error,
            }
        )
    if inp.text:
        blocks.append({"type": "text", "text": inp.text})
    return blocks


@activity.defn(name="agent_compose_message")
def compose_message(inp: ComposeInput) -> ComposedMessage:
    """Store one user message (tool results first, then text) and return its key and size."""
    db_url = cached_settings().resolved_database_url()
    blocks = _content_blocks(inp, db_url)
    key = put_json(db_url, blocks)
    return ComposedMessage(key=key, chars=len(json.dumps(blocks)))
