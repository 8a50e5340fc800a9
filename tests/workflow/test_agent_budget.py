"""Budget caps stop the agent before a call that could exceed them; an update lets it go on."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.budget import BudgetRaise, BudgetStatus
from prflow.config import Settings, cached_settings
from prflow.impact.models import LlmStatus
from prflow.store.blobs import get_text
from tests.support.budget_waits import until_waiting_for_a_raise
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import agent_request, agent_script, start_impact
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

# A call may answer with 4000 output tokens at $10/M: its worst case is over $0.04,
# so a $0.03 cap refuses even the first call before anything is sent.
TIGHT_USD = 0.01
"""Less than the prompt and a useful minimum of output cost: sizing the call down does not fit."""
MAX_TOKENS = 4000


async def test_cap_stops_before_the_call_and_raise_lets_it_continue(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(agent_script())
    request = agent_request(temporal_settings, sample_repo, budget_usd=TIGHT_USD, budget_wait=300)
    request.llm.max_tokens = MAX_TOKENS
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(temporal_client, temporal_settings, request, "impact-budget-1")
        progress = await until_waiting_for_a_raise(handle)
        assert "USD cap" in (progress.waiting_for_budget or "")
        assert scripted_anthropic.requests == [], "the call over the cap must not be sent"

        spend: BudgetStatus = await handle.query("spend", result_type=BudgetStatus)
        assert spend.total_usd == 0
        raised: BudgetStatus = await handle.execute_update(
            "raise_budget", BudgetRaise(add_usd=1.0), result_type=BudgetStatus
        )
        assert raised.phases[0].caps.usd == TIGHT_USD + 1.0
        result = await handle.result()

    assert result.llm.status == LlmStatus.completed
    assert [r.turn for r in scripted_anthropic.requests] == [0, 1, 2]


async def test_cap_without_a_raise_ends_the_phase_cleanly_and_the_report_says_so(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(agent_script())
    request = agent_request(temporal_settings, sample_repo, budget_usd=TIGHT_USD)
    request.llm.max_tokens = MAX_TOKENS
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(temporal_client, temporal_settings, request, "impact-budget-2")
        result = await handle.result()

    assert scripted_anthropic.requests == []
    assert result.llm.status == LlmStatus.stopped
    assert "USD cap" in result.llm.reason
    assert result.llm.cost_usd == 0
    markdown = get_text(cached_settings().resolved_database_url(), result.markdown_key)
    assert "USD cap" in markdown


async def test_iteration_cap_stops_the_loop(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(agent_script())
    request = agent_request(temporal_settings, sample_repo, max_iterations=2)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(temporal_client, temporal_settings, request, "impact-budget-3")
        result = await handle.result()
    assert [r.turn for r in scripted_anthropic.requests] == [0, 1]
    assert result.llm.status == LlmStatus.stopped
    assert "iteration cap" in result.llm.reason


async def test_a_call_that_does_not_fit_at_full_output_is_sized_down_not_refused(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(agent_script())
    request = agent_request(temporal_settings, sample_repo, budget_usd=0.03)
    request.llm.max_tokens = MAX_TOKENS  # at full output the worst case is over $0.06
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(temporal_client, temporal_settings, request, "impact-fit-1")
        result = await handle.result()

    assert result.llm.status == LlmStatus.completed, result.llm.reason
    limits = [r.body["max_tokens"] for r in scripted_anthropic.requests]
    assert len(limits) == 3 and all(1024 <= limit < MAX_TOKENS for limit in limits), limits
    assert result.llm.cost_usd <= 0.03
