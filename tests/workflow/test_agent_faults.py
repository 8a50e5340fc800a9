"""Every model fault ends in success after bounded retries or in one clear non-retryable error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.impact.models import LlmStatus
from prflow.impact.run_models import ImpactResult
from prflow.store.ledger import attempts_for_workflow
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import agent_request, start_impact, tool_results
from tests.support.scripted_anthropic import (
    CutOff,
    Fault,
    Hang,
    MalformedToolInput,
    ScriptedAnthropic,
    ToolUse,
    Turn,
    bad_request,
    overloaded,
    rate_limited,
    server_error,
)

pytestmark = pytest.mark.temporal

SUBMIT = ToolUse(
    "submit_impact_findings",
    {"summary": "Small change.", "findings": [], "recommendations": ["Ship it."]},
)
REQUEST_TIMEOUT = 2.0


@pytest.fixture
def short_model_timeout(monkeypatch: pytest.MonkeyPatch, prflow_home: Path) -> Iterator[None]:
    """Workers give up on a silent model after two seconds (the hang fault)."""
    monkeypatch.setenv("PRFLOW_MODELS__REQUEST_TIMEOUT_SECONDS", str(REQUEST_TIMEOUT))
    cached_settings.cache_clear()
    yield
    cached_settings.cache_clear()


async def _run(
    client: Client, settings: Settings, repo: Path, workflow_id: str, max_attempts: int = 5
) -> ImpactResult:
    request = agent_request(settings, repo)
    request.llm.request_timeout_seconds = REQUEST_TIMEOUT
    request.llm.max_attempts = max_attempts
    async with run_worker(client, settings):
        handle = await start_impact(client, settings, request, workflow_id)
        result: ImpactResult = await handle.result()
        return result


@pytest.mark.parametrize(
    "fault",
    [
        rate_limited(1.0),
        rate_limited(0.5, milliseconds=True),
        overloaded(),
        server_error(),
        Hang(30),
    ],
    ids=["429-retry-after", "429-retry-after-ms", "529-overloaded", "500", "hang-past-timeout"],
)
async def test_transient_fault_is_retried_to_success(
    fault: Fault,
    short_model_timeout: None,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([Turn(tool_uses=[SUBMIT], faults=[fault])])
    result = await _run(temporal_client, temporal_settings, sample_repo, "impact-fault-transient")

    assert result.llm.status == LlmStatus.completed
    assert len(scripted_anthropic.requests) == 2
    rows = attempts_for_workflow(
        cached_settings().resolved_database_url(), "impact-fault-transient"
    )
    assert [(r.attempt, r.outcome == "success") for r in rows] == [(1, False), (2, True)]


async def test_malformed_tool_input_goes_back_to_the_model_as_an_error(
    short_model_timeout: None,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(
        [Turn(faults=[MalformedToolInput("submit_impact_findings")]), Turn(tool_uses=[SUBMIT])]
    )
    result = await _run(temporal_client, temporal_settings, sample_repo, "impact-fault-json")

    assert result.llm.status == LlmStatus.completed
    second = scripted_anthropic.requests[1].body
    assert "not a JSON object" in tool_results(second)[0]
    assert second["messages"][-1]["content"][0]["is_error"] is True


async def test_output_cut_at_max_tokens_is_continued(
    short_model_timeout: None,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(
        [Turn(faults=[CutOff("The change removes")]), Turn(tool_uses=[SUBMIT])]
    )
    result = await _run(temporal_client, temporal_settings, sample_repo, "impact-fault-cut")

    assert result.llm.status == LlmStatus.completed
    follow_up = scripted_anthropic.requests[1].body["messages"][-1]["content"]
    assert "output token limit" in follow_up[0]["text"]


async def test_bad_request_fails_once_with_the_api_message(
    short_model_timeout: None,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(
        [
            Turn(
                tool_uses=[SUBMIT],
                faults=[bad_request("messages: text content blocks must be non-empty")],
            )
        ]
    )
    result = await _run(temporal_client, temporal_settings, sample_repo, "impact-fault-400")

    assert len(scripted_anthropic.requests) == 1
    assert result.llm.status == LlmStatus.failed
    assert "text content blocks must be non-empty" in result.llm.reason
    assert result.score >= 0  # the static report is still produced


async def test_endless_server_errors_stop_after_the_attempt_limit(
    short_model_timeout: None,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([Turn(tool_uses=[SUBMIT], faults=[server_error()] * 10)])
    result = await _run(
        temporal_client, temporal_settings, sample_repo, "impact-fault-500s", max_attempts=3
    )

    assert len(scripted_anthropic.requests) == 3
    assert result.llm.status == LlmStatus.failed
    assert "Internal server error" in result.llm.reason
