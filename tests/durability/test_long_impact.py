"""A 400-turn impact agent keeps every history small (issue 20 item 5).

The impact agent runs as a child agent workflow that continues-as-new every
100 turns and reports its progress to the impact run at most once per 8 turns and 10 s,
so neither the impact run nor any run of its agent comes near Temporal's
10,240-event warning: the goal is at most 4,000 events and 4 MB per run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.state import child_agent_id
from prflow.config import Settings
from prflow.impact.models import LlmStatus
from prflow.impact.run_models import LLM_PHASE
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import agent_request, agent_script, start_impact
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

pytestmark = pytest.mark.temporal

TURNS = 400
MAX_EVENTS = 4_000
MAX_BYTES = 4 * 1024 * 1024
WORKFLOW_ID = "impact-400-turns"


async def _run_histories(client: Client, workflow_id: str) -> list[tuple[str, int, int]]:
    """(run id, events, JSON bytes) of every run of ``workflow_id``."""
    sizes = []
    async for run in client.list_workflows(f'WorkflowId = "{workflow_id}"'):
        history = await client.get_workflow_handle(workflow_id, run_id=run.run_id).fetch_history()
        sizes.append((run.run_id, len(history.events), len(history.to_json())))
    return sizes


@pytest.mark.timeout(900)  # hundreds of model turns: minutes, not the suite default
async def test_a_400_turn_impact_agent_keeps_every_history_under_4000_events_and_4_mb(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    turns = [Turn(tool_uses=[ToolUse("list_changed_files", {})]) for _ in range(TURNS)]
    scripted_anthropic.script([*turns, agent_script()[-1]])
    request = agent_request(temporal_settings, sample_repo)
    request.llm.caps.iterations = TURNS + 10
    request.llm.caps.usd = 1_000.0
    request.llm.caps.tokens = 10**10
    request.llm.caps.wall_clock_seconds = 3_600
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(temporal_client, temporal_settings, request, WORKFLOW_ID)
        result = await asyncio.wait_for(handle.result(), 900)

    assert result.llm.status == LlmStatus.completed, result.llm.reason
    assert result.llm.iterations == TURNS + 1
    parent = await _run_histories(temporal_client, WORKFLOW_ID)
    agent = await _run_histories(temporal_client, child_agent_id(WORKFLOW_ID, LLM_PHASE))
    assert len(parent) == 1 and len(agent) >= 4, "the agent continues-as-new every 100 turns"
    largest_events = max(events for _, events, _ in [*parent, *agent])
    largest_bytes = max(size for _, _, size in [*parent, *agent])
    print(
        f"impact run: {parent[0][1]} events, {parent[0][2]} bytes; agent runs "
        f"(events, bytes): {[(e, b) for _, e, b in agent]}"
    )
    assert largest_events <= MAX_EVENTS, (parent, agent)
    assert largest_bytes <= MAX_BYTES, (parent, agent)
    assert parent[0][1] < 400, "the impact run's history does not grow with the turns"
