"""Pieces of an agent conversation that cross the Temporal boundary.

Conversation content never travels in workflow history: a transcript is a
blob holding the list of message references, each message is a blob of content
blocks, and workflows hold only keys and sizes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.llm.messages import MessageRef, ToolSpec


class ToolResultPart(BaseModel):
    """The answer to one ``tool_use`` block: inline text or a blob key, maybe an error."""

    tool_use_id: str
    content_key: str | None = None
    text: str | None = None
    is_error: bool = False


class ComposeInput(BaseModel):
    """One user turn to append: tool results first, then text."""

    text: str | None = None
    tool_results: list[ToolResultPart] = Field(default_factory=list)
    transcript_key: str | None = Field(
        default=None, description="Transcript to append the new message to (None: none kept)"
    )
    base_messages: list[MessageRef] = Field(
        default_factory=list, description="The transcript so far when it has no blob yet"
    )
    max_tool_result_chars: int | None = Field(
        default=None, description="Cap on the combined size of this turn's tool results"
    )


class ComposedMessage(BaseModel):
    """The stored user message, its size, and the transcript that now ends with it."""

    key: str
    chars: int
    transcript_key: str | None = None
    transcript_len: int = 0
    truncated_results: int = 0


class AgentPrompt(BaseModel):
    """What an agent starts from, before it is stored: only for activities, never history."""

    system: str
    tools: list[ToolSpec] = Field(default_factory=list)
    first_message: str
    shared_context: str = Field(
        default="",
        description="Opens the first message, byte-identical for every agent of its kind in "
        "the run, so that its prompt-cache prefix is written once and read by the others",
    )


class PreparedPrompt(BaseModel):
    """The stored prompt of an agent: keys and sizes, what an AgentSpec needs."""

    system_key: str
    system_chars: int
    tools_key: str | None
    tools_chars: int
    tool_names: list[str]
    message_key: str
    message_chars: int
    transcript_key: str | None = Field(
        default=None,
        description="A conversation to continue (ending with ``message_key``) instead of "
        "starting from that one message",
    )
    transcript_len: int = 0
