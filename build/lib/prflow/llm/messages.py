"""What an LLM call takes and returns when it crosses the Temporal boundary.

Conversation content never travels in these payloads: messages, the system
prompt and the model's answer are blob keys, so a long agent loop keeps its
workflow history small and every payload stays far below Temporal's limits.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


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
    system_key: str = Field(description="Blob key of the system prompt text")
    tools: list[ToolSpec] = Field(default_factory=list)
    messages: list[MessageRef]
    repo: str | None = None
    pr_number: int | None = None


class ToolCall(BaseModel):
    """A ``tool_use`` block; ``input_error`` says why ``input`` is missing when it is."""

    id: str
    name: str
    input: dict[str, Any] | None
    input_error: str | None = None


class Usage(BaseModel):
    """Token counts of one request, split the way the price table bills them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        """Every token the request sent, cached or not."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens


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
