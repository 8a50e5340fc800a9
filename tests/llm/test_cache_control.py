"""Prompt-cache breakpoints: system, last tool, and the conversation the previous call sent."""

from __future__ import annotations

import copy
from typing import Any

from prflow.llm.cache_control import (
    MAX_BREAKPOINTS,
    count_breakpoints,
    mark_conversation,
    mark_last_tool,
    system_blocks,
)

EPHEMERAL = {"type": "ephemeral"}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _assistant(tool_id: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "look first", "signature": "sig"},
            {"type": "tool_use", "id": tool_id, "name": "read", "input": {"path": "a.py"}},
        ],
    }


def _tool_result(tool_id: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "print(1)"}],
    }


def _marked_positions(messages: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [
        (m, b)
        for m, message in enumerate(messages)
        for b, block in enumerate(message["content"])
        if "cache_control" in block
    ]


def test_the_system_prompt_is_one_marked_block() -> None:
    assert system_blocks("Review carefully.") == [
        {"type": "text", "text": "Review carefully.", "cache_control": EPHEMERAL}
    ]


def test_only_the_last_tool_is_marked() -> None:
    tools = [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}}]
    marked = mark_last_tool(tools)
    assert "cache_control" not in marked[0]
    assert marked[1]["cache_control"] == EPHEMERAL
    assert "cache_control" not in tools[1], "the caller's list must not change"


def test_a_first_call_marks_the_end_of_its_only_message() -> None:
    assert _marked_positions(mark_conversation([_user("Analyse the PR.")])) == [(0, 0)]


def test_a_later_call_marks_the_previous_end_and_its_own_end() -> None:
    # Call 3 of a loop: the previous call sent (and marked) messages 0..2.
    conversation = [
        _user("Analyse the PR."),
        _assistant("t1"),
        _tool_result("t1"),
        _assistant("t2"),
        _tool_result("t2"),
    ]
    assert _marked_positions(mark_conversation(conversation)) == [(2, 0), (4, 0)]


def test_the_previous_end_is_read_however_many_tool_results_arrived() -> None:
    # Twelve parallel tool calls put 24+ blocks between the two ends, beyond the
    # API's 20-block lookback: only an explicit mark on the previous end is read.
    calls = [{"type": "tool_use", "id": f"c{i}", "name": "t", "input": {}} for i in range(12)]
    results = [{"type": "tool_result", "tool_use_id": f"c{i}", "content": "x"} for i in range(12)]
    conversation = [
        _user("go"),
        _assistant("t1"),
        _tool_result("t1"),
        {"role": "assistant", "content": calls},
        {"role": "user", "content": results},
    ]
    assert _marked_positions(mark_conversation(conversation)) == [(2, 0), (4, 11)]


def test_marks_already_in_stored_content_are_dropped() -> None:
    first = _user("Analyse the PR.")
    first["content"][0]["cache_control"] = EPHEMERAL
    conversation = [first, _assistant("t1"), _tool_result("t1"), _assistant("t2"), _user("more")]
    assert _marked_positions(mark_conversation(conversation)) == [(2, 0), (4, 0)]


def test_thinking_blocks_are_never_marked() -> None:
    ends_in_thinking = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading the diff."},
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        ],
    }
    conversation = [_user("go"), ends_in_thinking, _user("more"), _assistant("t2"), _user("x")]
    assert _marked_positions(mark_conversation(conversation)) == [(2, 0), (4, 0)]
    assert "cache_control" not in mark_conversation(conversation)[1]["content"][1]


def test_string_content_becomes_a_markable_block() -> None:
    conversation = [{"role": "user", "content": "hi"}]
    marked = mark_conversation(conversation)
    assert marked[0]["content"] == [{"type": "text", "text": "hi", "cache_control": EPHEMERAL}]


def test_the_input_conversation_is_not_changed() -> None:
    conversation = [_user("go"), _assistant("t1"), _tool_result("t1")]
    before = copy.deepcopy(conversation)
    mark_conversation(conversation)
    assert conversation == before


def test_a_long_conversation_stays_within_the_api_limit() -> None:
    conversation = [_user("go")]
    for turn in range(12):
        conversation += [_assistant(f"t{turn}"), _tool_result(f"t{turn}")]
    tools = mark_last_tool([{"name": "a"}, {"name": "b"}])
    count = count_breakpoints(system_blocks("sys"), tools, mark_conversation(conversation))
    assert count == MAX_BREAKPOINTS
