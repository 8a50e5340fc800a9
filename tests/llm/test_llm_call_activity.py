"""The ``llm_call`` activity against the scripted Messages API server, through the real SDK."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.llm import llm_call
from prflow.config import cached_settings
from prflow.llm.cache_control import shared_prefix_blocks
from prflow.llm.messages import LlmCallInput, LlmCallResult, MessageRef, ToolSpec
from prflow.llm.pricing import usd_for
from prflow.store.blobs import get_json, put_json, put_text
from prflow.store.ledger import LlmAttempt, attempts_for_workflow
from tests.support.scripted_anthropic import (
    CutOff,
    Fault,
    Hang,
    MalformedToolInput,
    ScriptedAnthropic,
    ToolUse,
    Turn,
    assert_prefix_stable,
    bad_request,
    cache_breakpoints,
    overloaded,
    rate_limited,
    server_error,
    unauthorized,
)

MODEL = "claude-sonnet-5-5"
WORKFLOW_ID = "impact-acme/widgets#42"
TOOLS = [
    ToolSpec(
        name="read_file_at_ref",
        description="Read one file of the repository at a commit.",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}, "ref": {"type": "string"}},
            "required": ["path"],
        },
    ),
    ToolSpec(
        name="search_code",
        description="Search the repository for a pattern.",
        input_schema={"type": "object", "properties": {"pattern": {"type": "string"}}},
    ),
]


def _env(attempt: int = 1, activity_id: str = "7") -> ActivityEnvironment:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        env.info,
        workflow_id=WORKFLOW_ID,
        workflow_run_id="run-1",
        activity_id=activity_id,
        attempt=attempt,
    )
    return env


def _call_input(db_url: str, messages: list[MessageRef], **changes: object) -> LlmCallInput:
    system_key = put_text(db_url, "You assess the impact of pull requests. Cite evidence.")
    fields: dict[str, object] = {
        "workflow_kind": "impact",
        "phase": "llm_analysis",
        "model": MODEL,
        "max_tokens": 2048,
        "system_key": system_key,
        "tools": TOOLS,
        "messages": messages,
        "repo": "acme/widgets",
        "pr_number": 42,
    }
    fields.update(changes)
    return LlmCallInput.model_validate(fields)


def _user(db_url: str, text: str) -> MessageRef:
    return MessageRef(role="user", blob_key=put_json(db_url, [{"type": "text", "text": text}]))


def _tool_result(db_url: str, tool_use_id: str, output: str) -> MessageRef:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": output}
    return MessageRef(role="user", blob_key=put_json(db_url, [block]))


def _assistant(result: LlmCallResult) -> MessageRef:
    return MessageRef(role="assistant", blob_key=result.assistant_key)


async def _run(inp: LlmCallInput, attempt: int = 1, activity_id: str = "7") -> LlmCallResult:
    result: LlmCallResult = await _env(attempt, activity_id).run(llm_call, inp)
    return result


async def _failure(inp: LlmCallInput, attempt: int = 1) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        await _run(inp, attempt)
    return caught.value


def _ledger(db_url: str) -> list[LlmAttempt]:
    return attempts_for_workflow(db_url, WORKFLOW_ID)


async def test_a_tool_use_answer_is_returned_stored_verbatim_and_accounted(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script(
        [
            Turn(
                thinking="The diff renames an export; find its importers.",
                text="Checking who imports the renamed function.",
                tool_uses=[ToolUse("search_code", {"pattern": "parse_config"})],
            )
        ]
    )
    inp = _call_input(llm_db_url, [_user(llm_db_url, "Analyse PR #42.")])

    result = await _run(inp)

    assert result.stop_reason == "tool_use"
    assert result.text == "Checking who imports the renamed function."
    [call] = result.tool_calls
    assert (call.name, call.input, call.input_error) == (
        "search_code",
        {"pattern": "parse_config"},
        None,
    )
    [request] = scripted_anthropic.requests
    assert request.response is not None
    assert get_json(llm_db_url, result.assistant_key) == request.response["content"]
    assert call.id == request.response["content"][2]["id"]

    reported = request.response["usage"]
    assert result.usage.input_tokens == reported["input_tokens"]
    assert result.usage.output_tokens == reported["output_tokens"]
    assert result.usage.cache_write_tokens == reported["cache_creation_input_tokens"]
    assert result.usd == pytest.approx(
        usd_for(result.usage, cached_settings().models.prices[MODEL])
    )
    assert result.usd > 0

    [row] = _ledger(llm_db_url)
    assert (row.run_id, row.activity_id, row.attempt, row.outcome) == ("run-1", "7", 1, "success")
    assert (row.workflow_kind, row.phase, row.model) == ("impact", "llm_analysis", MODEL)
    assert (row.repo, row.pr_number) == ("acme/widgets", 42)
    assert row.input_tokens == result.usage.input_tokens
    assert row.output_tokens == result.usage.output_tokens
    assert row.usd == pytest.approx(result.usd)


async def test_the_request_carries_the_key_and_no_sampling_parameters(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script([Turn(text="Low risk.")])
    await _run(_call_input(llm_db_url, [_user(llm_db_url, "Analyse.")]))
    [request] = scripted_anthropic.requests
    assert "test-key" in (request.headers.get("x-api-key") or request.headers["authorization"])
    assert request.body["model"] == MODEL
    assert request.body["max_tokens"] == 2048
    assert not {"temperature", "top_p", "top_k"} & request.body.keys()
    assert request.headers["x-stainless-retry-count"] == "0"


async def test_cache_breakpoints_follow_the_conversation_and_its_prefix_is_reused(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    read_file = ToolUse("read_file_at_ref", {"path": "src/config.py"})
    scripted_anthropic.script(
        [
            Turn(tool_uses=[read_file]),
            Turn(tool_uses=[ToolUse("search_code", {"pattern": "load("})]),
            Turn(text="Two callers break."),
        ]
    )
    conversation = [_user(llm_db_url, "Analyse PR #42 " + "with context. " * 50)]
    results = []
    for turn in range(3):
        result = await _run(_call_input(llm_db_url, conversation), activity_id=str(turn))
        results.append(result)
        if result.tool_calls:
            call = result.tool_calls[0]
            conversation = [
                *conversation,
                _assistant(result),
                _tool_result(llm_db_url, call.id, f"output of {call.name} " * 40),
            ]

    first, second, third = scripted_anthropic.requests
    assert cache_breakpoints(first.body) == ["tools[1]", "system[0]", "messages[0].content[0]"]
    assert cache_breakpoints(second.body) == [
        "tools[1]",
        "system[0]",
        "messages[0].content[0]",
        "messages[2].content[0]",
    ]
    assert cache_breakpoints(third.body) == [
        "tools[1]",
        "system[0]",
        "messages[2].content[0]",
        "messages[4].content[0]",
    ]
    assert_prefix_stable(first, second)
    assert_prefix_stable(second, third)

    reads = [r.usage.cache_read_tokens for r in results]
    writes = [r.usage.cache_write_tokens for r in results]
    assert reads[0] == 0
    assert reads[1] == reads[0] + writes[0], "call 2 reads everything call 1 sent"
    assert reads[2] == reads[1] + writes[1], "call 3 reads everything call 2 sent"
    assert [row.cache_read_tokens for row in _ledger(llm_db_url)] == reads


async def test_agents_sharing_the_pr_context_write_it_once_and_read_it_after(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    shared = "The pull request: adapters and sessions. " * 120
    scripted_anthropic.script([Turn(text="Nothing."), Turn(text="Nothing either.")])
    results = []
    for index, own in enumerate(["Review the adapters.", "Review the sessions, then stop."]):
        blocks = shared_prefix_blocks(shared, own)
        first = MessageRef(role="user", blob_key=put_json(llm_db_url, blocks))
        results.append(await _run(_call_input(llm_db_url, [first]), activity_id=str(index)))

    one, two = scripted_anthropic.requests
    for request in (one, two):
        assert cache_breakpoints(request.body) == [
            "system[0]",
            "messages[0].content[0]",
            "messages[0].content[1]",
        ], "the shared context is marked; the system's mark covers the tools"
        assert request.body["messages"][0]["content"][0]["text"] == shared
    assert results[0].usage.cache_read_tokens == 0
    read = results[1].usage.cache_read_tokens
    # the second agent reads tools, system and the shared context, all it has in common
    # with the first, and writes only its own part
    assert len(shared) // 4 < read < results[0].usage.cache_write_tokens
    assert results[1].usage.cache_write_tokens < len(shared) // 40


@pytest.mark.parametrize(
    ("fault", "expected_delay"),
    [
        (rate_limited(7), timedelta(seconds=7)),
        (rate_limited(1.5, milliseconds=True), timedelta(seconds=1.5)),
    ],
)
async def test_a_rate_limit_is_retried_after_the_delay_the_api_asked_for(
    scripted_anthropic: ScriptedAnthropic,
    llm_db_url: str,
    fault: Fault,
    expected_delay: timedelta,
) -> None:
    scripted_anthropic.script([Turn(text="Low risk.", faults=[fault])])
    inp = _call_input(llm_db_url, [_user(llm_db_url, "Analyse.")])

    error = await _failure(inp, attempt=1)
    assert not error.non_retryable
    assert error.type == "RateLimitError"
    assert error.next_retry_delay == expected_delay

    result = await _run(inp, attempt=2)
    assert result.text == "Low risk."
    assert [(row.attempt, row.outcome) for row in _ledger(llm_db_url)] == [
        (1, "RateLimitError"),
        (2, "success"),
    ]


@pytest.mark.parametrize(
    ("fault", "error_type"),
    [(overloaded(), "OverloadedError"), (server_error(), "InternalServerError")],
)
async def test_overload_and_server_errors_are_retryable(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str, fault: Fault, error_type: str
) -> None:
    scripted_anthropic.script([Turn(text="ok", faults=[fault])])
    error = await _failure(_call_input(llm_db_url, [_user(llm_db_url, "Analyse.")]))
    assert not error.non_retryable
    assert error.type == error_type
    assert error.next_retry_delay is None
    [row] = _ledger(llm_db_url)
    assert row.outcome == error_type
    assert (row.input_tokens, row.output_tokens, row.usd) == (0, 0, 0.0)


@pytest.mark.parametrize(
    ("fault", "error_type", "message"),
    [
        (
            bad_request("messages.0.content.0.text: text content blocks must be non-empty"),
            "BadRequestError",
            "text content blocks must be non-empty",
        ),
        (unauthorized(), "AuthenticationError", "invalid x-api-key"),
    ],
)
async def test_rejected_requests_fail_without_retry_and_keep_the_api_message(
    scripted_anthropic: ScriptedAnthropic,
    llm_db_url: str,
    fault: Fault,
    error_type: str,
    message: str,
) -> None:
    scripted_anthropic.script([Turn(text="ok", faults=[fault])])
    error = await _failure(_call_input(llm_db_url, [_user(llm_db_url, "Analyse.")]))
    assert error.non_retryable
    assert error.type == error_type
    assert message in error.message
    [row] = _ledger(llm_db_url)
    assert row.outcome == error_type
    assert row.error is not None and message in row.error


async def test_a_hung_request_times_out_as_a_retryable_failure(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRFLOW_MODELS__REQUEST_TIMEOUT_SECONDS", "0.5")
    cached_settings.cache_clear()
    scripted_anthropic.script([Turn(text="late answer", faults=[Hang(seconds=30)])])
    inp = _call_input(llm_db_url, [_user(llm_db_url, "Analyse.")])

    error = await _failure(inp)
    assert not error.non_retryable
    assert error.type == "APITimeoutError"
    [row] = _ledger(llm_db_url)
    assert row.outcome == "APITimeoutError"
    assert row.latency_ms >= 500

    assert (await _run(inp, attempt=2)).text == "late answer"


async def test_a_tool_input_that_is_not_an_object_is_reported_not_passed_on(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script(
        [Turn(faults=[MalformedToolInput("read_file_at_ref")]), Turn(text="Done.")]
    )
    conversation = [_user(llm_db_url, "Analyse.")]
    result = await _run(_call_input(llm_db_url, conversation))

    [call] = result.tool_calls
    assert call.name == "read_file_at_ref"
    assert call.input is None
    assert call.input_error is not None and "not a JSON object" in call.input_error

    # The stored turn can be sent back: the API would reject a non-object input.
    conversation += [
        _assistant(result),
        _tool_result(llm_db_url, call.id, f"Invalid input: {call.input_error}"),
    ]
    follow_up = await _run(_call_input(llm_db_url, conversation), activity_id="8")
    assert follow_up.text == "Done."


async def test_an_answer_cut_at_max_tokens_says_so(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script([Turn(faults=[CutOff("The riskiest change is the rem")])])
    inp = _call_input(llm_db_url, [_user(llm_db_url, "Analyse.")], max_tokens=64)
    result = await _run(inp)
    assert result.stop_reason == "max_tokens"
    assert result.text == "The riskiest change is the rem"
    assert result.usage.output_tokens == 64


async def test_every_attempt_writes_one_ledger_row_whatever_its_outcome(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script(
        [Turn(text="Finally.", faults=[rate_limited(1), overloaded(), server_error()])]
    )
    inp = _call_input(llm_db_url, [_user(llm_db_url, "Analyse.")])
    for attempt in (1, 2, 3):
        await _failure(inp, attempt)
    result = await _run(inp, attempt=4)

    rows = _ledger(llm_db_url)
    assert [(row.attempt, row.outcome) for row in rows] == [
        (1, "RateLimitError"),
        (2, "OverloadedError"),
        (3, "InternalServerError"),
        (4, "success"),
    ]
    assert [row.usd for row in rows[:3]] == [0.0, 0.0, 0.0]
    assert rows[3].usd == pytest.approx(result.usd)
    assert all(row.latency_ms >= 0 for row in rows)


async def test_a_missing_api_key_fails_fast_with_what_to_do(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    scripted_anthropic.script([Turn(text="unused")])
    error = await _failure(_call_input(llm_db_url, [_user(llm_db_url, "Analyse.")]))
    assert error.non_retryable
    assert error.type == "UserError"
    assert "ANTHROPIC_API_KEY" in error.message
    assert scripted_anthropic.requests == []
    assert [row.outcome for row in _ledger(llm_db_url)] == ["UserError"]


async def test_a_model_without_a_price_fails_before_any_request(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script([Turn(text="unused")])
    inp = _call_input(llm_db_url, [_user(llm_db_url, "Analyse.")], model="claude-nonesuch-1")
    error = await _failure(inp)
    assert error.non_retryable
    assert error.type == "UserError"
    assert "claude-nonesuch-1" in error.message
    assert "models.prices" in error.message
    assert scripted_anthropic.requests == []
