"""The agent loop on its own: child agents, continue-as-new, bounded fan-out, raises, economy.

Driven through a probe kind (``tests/agent/probe_workflows.py``) on the real
dev server, with the real SDK against the scripted Messages API and the real
repository tools on a sample repository.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle

from prflow.agent.budget import BudgetRaise, BudgetStatus
from prflow.agent.economy import PromptEconomy
from prflow.agent.outcome import StopReason
from prflow.config import Settings, cached_settings
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec, ResolvedRange
from prflow.run_progress import RunProgress
from prflow.store.ledger import attempts_for_workflow
from tests.agent.probe_workflows import ProbeRequest, ProbeResult, ProbeWorkflow
from tests.support.agent_specs import probe_plan, probe_spec
from tests.support.fixtures_temporal import run_worker
from tests.support.scripted_anthropic import (
    ScriptedAnthropic,
    ToolUse,
    Turn,
    assert_prefix_stable,
)

pytestmark = pytest.mark.temporal

ELIDED = "removed to keep the conversation short"
CUT = "cut to keep this turn's tool results under"


@pytest.fixture
def probe_range(prflow_home: Path, sample_repo: Path) -> ResolvedRange:
    return resolve_range(RepoSpec(location=str(sample_repo)), "base", "feature")


def db_url() -> str:
    return cached_settings().resolved_database_url()


def tool_turns(count: int, tool: str = "list_changed_files", **arguments: Any) -> list[Turn]:
    return [Turn(tool_uses=[ToolUse(tool, dict(arguments))]) for _ in range(count)]


async def start_probe(
    client: Client, settings: Settings, request: ProbeRequest, workflow_id: str
) -> WorkflowHandle[ProbeWorkflow, ProbeResult]:
    return await client.start_workflow(
        ProbeWorkflow.run, request, id=workflow_id, task_queue=settings.temporal.task_queue
    )


def first_text(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"][0]["text"])


def elided_messages(body: dict[str, Any]) -> list[int]:
    """Indexes of the messages whose tool results were sent as stubs."""
    messages = body["messages"]
    return [i for i, m in enumerate(messages) if any(ELIDED in t for t in tool_result_texts(m))]


def tool_result_texts(message: dict[str, Any]) -> list[str]:
    return [str(b["content"]) for b in message["content"] if b.get("type") == "tool_result"]


async def test_a_child_agent_continues_as_new_and_carries_its_conversation(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([*tool_turns(7), Turn(text="Done.")])
    spec = probe_spec(db_url(), temporal_settings, probe_range, turns_per_run=3)
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await start_probe(
            temporal_client, temporal_settings, ProbeRequest(specs=[spec]), "probe-agent-child"
        )
        result = await handle.result()

    [outcome] = result.outcomes
    assert (outcome.stop, outcome.final_text, outcome.iterations) == (
        StopReason.final_answer,
        "Done.",
        8,
    )
    # The server answers by the number of assistant messages a request carries:
    # turns 0..7 in order means every run went on with the whole conversation.
    assert [r.turn for r in scripted_anthropic.requests] == list(range(8))
    runs = [
        execution
        async for execution in temporal_client.list_workflows(
            'WorkflowId = "probe-agent-child/agent:probe"'
        )
    ]
    assert len(runs) == 3, "8 turns at 3 per run take three runs"
    rows = attempts_for_workflow(db_url(), "probe-agent-child/agent:probe")
    assert [row.outcome for row in rows] == ["success"] * 8
    assert outcome.spent.usd == pytest.approx(sum(row.usd for row in rows))
    assert outcome.spent.input_tokens == sum(row.input_tokens for row in rows)


async def test_child_agents_run_within_the_concurrency_bound_and_arrive_as_they_finish(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    gate = threading.Event()
    scripted_anthropic.script([Turn(text="Done.", release=gate)])
    specs = [
        probe_spec(
            db_url(), temporal_settings, probe_range, name=name, first_message=f"agent {name}"
        )
        for name in ("a", "b", "c")
    ]
    request = ProbeRequest(specs=specs, max_concurrency=2)
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await start_probe(temporal_client, temporal_settings, request, "probe-fan-out")
        await asyncio.to_thread(scripted_anthropic.wait_for_requests, 2, 30)
        await asyncio.sleep(2)
        first_two = {first_text(r.body) for r in scripted_anthropic.requests}
        assert len(first_two) == 2, "a third agent started before one of two finished"
        gate.set()
        result = await handle.result()

    assert {o.name for o in result.outcomes} == {"a", "b", "c"}
    assert all(o.completed for o in result.outcomes)
    [late] = {"a", "b", "c"} - {text.removeprefix("agent ") for text in first_two}
    assert result.arrival_order[-1] == late


async def test_a_raise_reaches_a_child_agent_waiting_at_its_cap(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([*tool_turns(3), Turn(text="Done.")])
    plan = probe_plan(temporal_settings, iterations=2, raise_wait_seconds=300)
    spec = probe_spec(db_url(), temporal_settings, probe_range, plan=plan)
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await start_probe(
            temporal_client, temporal_settings, ProbeRequest(specs=[spec]), "probe-raise"
        )
        async with asyncio.timeout(60):
            while True:
                progress: RunProgress = await handle.query("progress", result_type=RunProgress)
                if progress.waiting_for_budget:
                    break
                await asyncio.sleep(0.2)
        [agent] = progress.agents
        assert (agent.name, agent.phase, agent.turns) == ("probe", "probe_phase", 2)
        assert "iteration cap" in (agent.waiting_for_budget or "")
        assert len(scripted_anthropic.requests) == 2

        raised = await handle.execute_update(
            "raise_budget",
            BudgetRaise(phase="probe_phase", add_iterations=5),
            result_type=BudgetStatus,
        )
        assert raised.phases[0].caps.iterations == 7
        result = await handle.result()

    [outcome] = result.outcomes
    assert outcome.completed and outcome.iterations == 4


async def test_old_tool_results_become_stubs_in_steps_that_keep_the_prefix_cached(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script([*tool_turns(6, "git_diff"), Turn(text="Done.")])
    economy = PromptEconomy(elide_after_tokens=1000, keep_recent_messages=2, min_elision_step=4)
    spec = probe_spec(db_url(), temporal_settings, probe_range, economy=economy)
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await start_probe(
            temporal_client,
            temporal_settings,
            ProbeRequest(specs=[spec], mode="inline"),
            "probe-elision",
        )
        await handle.result()

    requests = scripted_anthropic.requests
    elided = [
        [
            i
            for i, m in enumerate(r.body["messages"])
            if any(ELIDED in t for t in tool_result_texts(m))
        ]
        for r in requests
    ]
    assert elided[:3] == [[], [], []], "nothing is elided before the threshold and a full step"
    assert elided[3] == [2, 4], "the fourth request stubs the tool results before the last two"
    assert elided[4] == [2, 4], "and keeps that cut while it gains less than a step"
    assert_prefix_stable(requests[1], requests[2])
    assert_prefix_stable(requests[3], requests[4])
    assert all(ELIDED not in t for t in tool_result_texts(requests[3].body["messages"][6]))


async def test_one_turns_tool_results_are_capped_together(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    big = [ToolUse("search_code", {"pattern": "."}) for _ in range(3)]
    scripted_anthropic.script([Turn(tool_uses=big), Turn(text="Done.")])
    spec = probe_spec(
        db_url(),
        temporal_settings,
        probe_range,
        economy=PromptEconomy(max_tool_result_chars_per_turn=1200),
    )
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await start_probe(
            temporal_client,
            temporal_settings,
            ProbeRequest(specs=[spec], mode="inline"),
            "probe-tool-cap",
        )
        await handle.result()

    texts = tool_result_texts(scripted_anthropic.requests[1].body["messages"][2])
    assert len(texts) == 3
    assert sum(len(t) for t in texts) <= 1200
    assert all(CUT in t for t in texts)
    assert Counter(r.turn for r in scripted_anthropic.requests) == {0: 1, 1: 1}
