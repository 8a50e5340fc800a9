"""Builds the user turns of an agent conversation in the blob store.

Workflow code cannot write blobs, so the agent loop asks this (local)
activity to assemble tool results or a follow-up text into one user message,
store it, and append it to the transcript; the LLM activity later reads the
transcript back by key. One turn's tool results together stay under the
agent's cap, so a single huge result cannot flood the next prompt.
"""

from __future__ import annotations

from typing import Any

from temporalio import activity

from prflow.agent.messages import AgentPrompt, ComposedMessage, ComposeInput, PreparedPrompt
from prflow.agent.transcript import cap_texts, content_chars
from prflow.config import cached_settings
from prflow.llm.cache_control import shared_prefix_blocks
from prflow.llm.messages import MessageRef
from prflow.llm.token_estimate import tool_schema_chars
from prflow.store.blobs import get_text, put_json, put_text
from prflow.store.transcripts import load_transcript, store_transcript


def _content_blocks(inp: ComposeInput, db_url: str) -> tuple[list[dict[str, Any]], int]:
    bodies = [
        get_text(db_url, part.content_key) if part.content_key is not None else part.text or ""
        for part in inp.tool_results
    ]
    truncated = 0
    if inp.max_tool_result_chars is not None:
        bodies, truncated = cap_texts(bodies, inp.max_tool_result_chars)
    blocks: list[dict[str, Any]] = []
    for part, body in zip(inp.tool_results, bodies, strict=True):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": part.tool_use_id,
            "content": body or "(empty result)",
        }
        if part.is_error:  # the API's default is false: saying so costs every later request
            block["is_error"] = True
        blocks.append(block)
    if inp.text:
        blocks.append({"type": "text", "text": inp.text})
    return blocks, truncated


@activity.defn(name="agent_compose_message")
def compose_message(inp: ComposeInput) -> ComposedMessage:
    """Store one user message (tool results first, then text) and the grown transcript."""
    db_url = cached_settings().resolved_database_url()
    blocks, truncated = _content_blocks(inp, db_url)
    key = put_json(db_url, blocks)
    composed = ComposedMessage(key=key, chars=content_chars(blocks), truncated_results=truncated)
    if inp.transcript_key is None and not inp.base_messages:
        return composed
    base = (
        load_transcript(db_url, inp.transcript_key)
        if inp.transcript_key is not None
        else list(inp.base_messages)
    )
    grown = [*base, MessageRef(role="user", blob_key=key)]
    composed.transcript_key = store_transcript(db_url, grown)
    composed.transcript_len = len(grown)
    return composed


def prepare_prompt(db_url: str, prompt: AgentPrompt) -> PreparedPrompt:
    """Store an agent's system prompt, tool schemas and first message; return keys and sizes."""
    blocks = shared_prefix_blocks(prompt.shared_context, prompt.first_message)
    return PreparedPrompt(
        system_key=put_text(db_url, prompt.system),
        system_chars=len(prompt.system),
        tools_key=put_json(db_url, [tool.model_dump() for tool in prompt.tools])
        if prompt.tools
        else None,
        tools_chars=tool_schema_chars(prompt.tools),
        tool_names=[tool.name for tool in prompt.tools],
        message_key=put_json(db_url, blocks),
        message_chars=len(prompt.shared_context) + len(prompt.first_message),
    )
