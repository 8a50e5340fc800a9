"""The pre-call prompt estimate errs high, so budget checks never under-count."""

from __future__ import annotations

from prflow.llm.messages import ToolSpec
from prflow.llm.token_estimate import estimate_input_tokens

READ_FILE = ToolSpec(
    name="read_file_at_ref",
    description="Read one file at a commit.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
)


def test_estimate_exceeds_the_usual_four_characters_per_token() -> None:
    system = "You review pull requests. " * 40
    messages_chars = 12_000
    estimate = estimate_input_tokens(len(system), [], messages_chars)
    assert estimate > (len(system) + messages_chars) / 4


def test_tools_add_their_definitions_and_the_tool_use_overhead() -> None:
    without = estimate_input_tokens(3, [], 1_000)
    with_tool = estimate_input_tokens(3, [READ_FILE], 1_000)
    assert with_tool - without > len(READ_FILE.model_dump_json()) / 4


def test_estimate_grows_with_the_conversation() -> None:
    assert estimate_input_tokens(3, [], 10_000) > estimate_input_tokens(3, [], 1_000)
