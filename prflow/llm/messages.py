"""What an LLM call takes and returns when it crosses the Temporal boundary.

Conversation content never travels in these payloads: messages, the system
prompt and the model's answer are blob keys, so a long agent loop keeps its
workflow history small and every payload stays far below Temporal's limits.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from prflow.config import PriceRow
from prflow.llm.usage import Usage


class ToolSpec(BaseModel):
    """One client tool offered to the model, in the API's own shape."""

    name: str
    description: str
    input_schema: dict[str, Any]


class MessageRef(BaseModel):
    """One conversation message; the blob holds its JSON list of content blocks verbatim."""

    role: Literal["user", "assistant"]
    blob_key: str


class LlmCallInput(BaseModel):
    """Everything one model turn needs, by reference."""

    workflow_kind: str
    phase: str
    model: str
    max_tokens: int
    price: PriceRow | None = Field(
        default=None, description="The run's pinned price; None: the worker's price table"
    )
    system_key: str = Field(description="Blob key of the system prompt text")
    tools: list[ToolSpec] = Field(default_factory=list, description="Tools given inline")
    tools_key: str | None = Field(default=None, description="Blob key of the tool schemas")
    messages: list[MessageRef] = Field(
        default_factory=list, description="The conversation when no transcript blob exists"
    )
    transcript_key: str | None = Field(
        default=None, description="Blob key of the conversation's message list"
    )
    elide_before: int = Field(
        default=0, description="Tool results of messages before this index are sent as stubs"
    )
    force_tool: str | None = Field(
        default=None, description="The tool the answer must call (an agent's last turn)"
    )
    repo: str | None = None
    pr_number: int | None = None
    answer_scope: str | None = Field(
        default=None,
        description="Scope shared by every agent of the run: an identical request already "
        "answered there is reused, not sent (None: only this activity's own retries reuse)",
    )


class ToolCall(BaseModel):
    """A ``tool_use`` block; ``input_error`` says why ``input`` is missing when it is."""

    id: str
    name: str
    input: dict[str, Any] | None
    input_error: str | None = None


class LlmCallResult(BaseModel):
    """The model's answer: blocks by blob key, the parts the loop acts on inline."""

    stop_reason: str
    assistant_key: str = Field(
        description="Blob key of the assistant content blocks, thinking blocks included"
    )
    text: str
    tool_calls: list[ToolCall]
    usage: Usage
    usd: float
    model: str
    latency_ms: int
    transcript_key: str | None = Field(
        default=None, description="The conversation including this answer"
    )
    transcript_len: int = 0
    reused: bool = Field(
        default=False, description="Answered from a kept answer: nothing was sent for it"
    )
