"""An answered question is not sent again: a retry or another agent of the run reuses it at $0."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.llm import llm_call
from prflow.llm.messages import LlmCallInput, LlmCallResult, MessageRef
from prflow.llm.request_identity import run_scope
from prflow.store.blobs import put_json, put_text
from prflow.store.ledger import attempts_for_workflow
from tests.support.scripted_anthropic import Hang, ScriptedAnthropic, ToolUse, Turn

ROOT = "review:acme/widgets#42"
RUN = run_scope(ROOT, "run-1")


def _env(workflow_id: str, activity_id: str, attempt: int = 1) -> ActivityEnvironment:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        env.info,
        workflow_id=workflow_id,
        workflow_run_id="child-run",
        activity_id=activity_id,
        attempt=attempt,
    )
    return env


def _input(db_url: str, question: str, **changes: object) -> LlmCallInput:
    fields: dict[str, object] = {
        "workflow_kind": "review",
        "phase": "reviewers",
        "model": "claude-sonnet-5-5",
        "max_tokens": 2048,
        "system_key": put_text(db_url, "You review pull requests."),
        "messages": [
            MessageRef(role="user", blob_key=put_json(db_url, [{"type": "text", "text": question}]))
        ],
        "answer_scope": RUN,
    }
    fields.update(changes)
    return LlmCallInput.model_validate(fields)


async def _call(
    inp: LlmCallInput, workflow_id: str, activity_id: str, attempt: int = 1
) -> LlmCallResult:
    result: LlmCallResult = await _env(workflow_id, activity_id, attempt).run(llm_call, inp)
    return result


async def test_a_retry_of_an_answered_attempt_returns_the_answer_without_sending(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script([Turn(tool_uses=[ToolUse("read_file", {"path": "a.py"})])])
    inp = _input(llm_db_url, "Review the auth change.", answer_scope=None)

    first = await _call(inp, ROOT, "5", attempt=1)
    retried = await _call(inp, ROOT, "5", attempt=2)

    assert len(scripted_anthropic.requests) == 1, "the answered question was sent again"
    assert retried.reused and not first.reused
    assert (retried.assistant_key, retried.tool_calls) == (first.assistant_key, first.tool_calls)
    assert retried.usd == first.usd > 0, "the workflow never saw attempt 1: it counts it now"
    rows = attempts_for_workflow(llm_db_url, ROOT)
    assert [(r.attempt, r.outcome, r.usd, r.input_tokens) for r in rows] == [
        (1, "success", first.usd, first.usage.input_tokens),
        (2, "reused", 0.0, 0),
    ]


async def test_another_agent_asking_the_same_question_in_the_run_reuses_it_at_no_cost(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.script([Turn(text="The token check is inverted.")])
    same = _input(llm_db_url, "Review the auth change.")

    first = await _call(same, f"{ROOT}/agent:security", "1")
    second = await _call(same, f"{ROOT}/agent:correctness", "1")
    other_run = await _call(
        _input(llm_db_url, "Review the auth change.", answer_scope=run_scope(ROOT, "run-2")),
        f"{ROOT}/agent:security",
        "9",
    )

    assert len(scripted_anthropic.requests) == 2, "one request per run for one question"
    assert second.text == first.text == "The token check is inverted."
    assert (second.reused, second.usd, second.usage.input_tokens) == (True, 0.0, 0)
    assert not other_run.reused, "another run asks afresh"
    [row] = attempts_for_workflow(llm_db_url, f"{ROOT}/agent:correctness")
    assert (row.outcome, row.usd) == ("reused", 0.0)


async def test_a_different_question_is_sent(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    scripted_anthropic.route({"auth": [Turn(text="One.")], "billing": [Turn(text="Two.")]})
    await _call(_input(llm_db_url, "Review auth."), f"{ROOT}/agent:a", "1")
    second = await _call(_input(llm_db_url, "Review billing."), f"{ROOT}/agent:b", "1")
    assert second.text == "Two." and not second.reused
    assert len(scripted_anthropic.requests) == 2


async def test_a_question_whose_first_asker_fails_is_asked_by_the_one_waiting_for_it(
    scripted_anthropic: ScriptedAnthropic, llm_db_url: str
) -> None:
    # The first request is held 2 s, then its connection drops: its asker fails and lets go.
    scripted_anthropic.script([Turn(text="Bounded.", faults=[Hang(seconds=2)])])
    same = _input(llm_db_url, "Is the retry loop bounded?")

    first = asyncio.ensure_future(_call(same, f"{ROOT}/agent:a", "1"))
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, 1, 10)
    second = await _call(same, f"{ROOT}/agent:b", "1")  # waits while the first is out
    with pytest.raises(ApplicationError):
        await first

    assert second.text == "Bounded." and not second.reused, "the waiting agent asked itself"
    assert [r.served for r in scripted_anthropic.requests] == ["hang", "answer"]
    [row] = attempts_for_workflow(llm_db_url, f"{ROOT}/agent:b")
    assert row.outcome == "success" and row.usd > 0
