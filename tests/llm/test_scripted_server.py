"""The scripted Messages API server behaves like the API where tests depend on it."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, cast

import anthropic
import pytest

from tests.support.scripted_anthropic import (
    RecordedRequest,
    ScriptedAnthropic,
    ToolUse,
    Turn,
    assert_prefix_stable,
)

MODEL = "claude-haiku-5-5"


def _client(server: ScriptedAnthropic) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="k", base_url=server.url, max_retries=0, timeout=5)


async def _ask(server: ScriptedAnthropic, messages: list[dict[str, Any]], **extra: Any) -> Any:
    async with _client(server) as client:
        return await client.messages.create(
            model=MODEL, max_tokens=256, messages=cast(Any, messages), **extra
        )


def _recorded(body: dict[str, Any]) -> RecordedRequest:
    return RecordedRequest("/v1/messages", {}, body, 0, "answer", 200)


async def test_a_repeated_request_gets_the_same_answer(
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([Turn(tool_uses=[ToolUse("search_code", {"pattern": "x"})])])
    question = [{"role": "user", "content": "go"}]
    first = await _ask(scripted_anthropic, question)
    again = await _ask(scripted_anthropic, question)
    assert first.content == again.content


async def test_the_turn_is_chosen_by_the_number_of_assistant_messages(
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([Turn(text="first"), Turn(text="second")])
    answer = await _ask(
        scripted_anthropic,
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "first"},
            {"role": "user", "content": "and?"},
        ],
    )
    assert answer.content[0].text == "second"


async def test_more_than_four_cache_breakpoints_are_rejected_like_the_api_does(
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([Turn(text="unused")])
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    with pytest.raises(anthropic.BadRequestError, match="maximum of 4"):
        await _ask(scripted_anthropic, [{"role": "user", "content": [marked] * 5}])


async def test_a_gated_turn_answers_only_once_released(
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    gate = threading.Event()
    scripted_anthropic.script([Turn(text="released", release=gate)])
    pending = asyncio.create_task(_ask(scripted_anthropic, [{"role": "user", "content": "go"}]))
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, 1)
    assert not pending.done()
    gate.set()
    assert (await pending).content[0].text == "released"


async def test_routes_script_each_conversation_apart(
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([Turn(text="default")])
    scripted_anthropic.route(
        {
            "You plan": [Turn(text="planner 0"), Turn(text="planner 1")],
            "dimension: B": [Turn(text="b")],
        }
    )
    planner = await _ask(
        scripted_anthropic, [{"role": "user", "content": "go"}], system="You plan it"
    )
    follow_up = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "planner 0"},
        {"role": "user", "content": "more"},
    ]
    second = await _ask(scripted_anthropic, follow_up, system="You plan it")
    reviewer = await _ask(scripted_anthropic, [{"role": "user", "content": "# dimension: B"}])
    other = await _ask(scripted_anthropic, [{"role": "user", "content": "anything else"}])
    texts = [m.content[0].text for m in (planner, second, reviewer, other)]
    assert texts == ["planner 0", "planner 1", "b", "default"]
    assert [r.route for r in scripted_anthropic.requests] == [
        "You plan",
        "You plan",
        "dimension: B",
        None,
    ]
    assert len(scripted_anthropic.requests_of("You plan")) == 2


def _shared_then(own: str) -> list[dict[str, Any]]:
    shared = {
        "type": "text",
        "text": "shared context " * 40,
        "cache_control": {"type": "ephemeral"},
    }
    return [{"role": "user", "content": [shared, {"type": "text", "text": own}]}]


def _cache_of(request: RecordedRequest) -> tuple[int, int]:
    usage = request.usage
    assert usage is not None
    return usage["cache_creation_input_tokens"], usage["cache_read_input_tokens"]


async def test_a_written_prefix_is_readable_only_once_its_response_begins(
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    gate = threading.Event()
    scripted_anthropic.route(
        {
            "first": [Turn(text="1", release=gate)],
            "second": [Turn(text="2")],
            "third": [Turn(text="3")],
        }
    )
    held = asyncio.create_task(_ask(scripted_anthropic, _shared_then("first")))
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, 1)
    await _ask(scripted_anthropic, _shared_then("second"))  # sent while the first is held
    gate.set()
    await held
    await _ask(scripted_anthropic, _shared_then("third"))  # sent after the first answered
    first, second, third = scripted_anthropic.requests
    shared_tokens = _cache_of(third)[1]
    assert shared_tokens > 0 and _cache_of(first)[1] == 0
    assert _cache_of(second) == _cache_of(first), "the second wrote the shared prefix too"


def test_prefix_stability_fails_when_an_earlier_part_changed() -> None:
    earlier = _recorded({"system": "v1", "messages": [{"role": "user", "content": "go"}]})
    grown = _recorded(
        {
            "system": "v1",
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "ok"},
            ],
        }
    )
    edited = _recorded({"system": "v2", "messages": [{"role": "user", "content": "go"}]})
    assert_prefix_stable(earlier, grown)
    with pytest.raises(AssertionError, match="diverges at segment 0"):
        assert_prefix_stable(earlier, edited)
