"""An agent of 300+ turns across continue-as-new runs, with its worker SIGKILLed halfway.

This is the platform's long-run proof: a child-style agent workflow keeps a
small history per run, survives a crash, never has a turn answered twice, and
every request the model server received has a ledger row.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.budget import PhaseBudget
from prflow.agent.outcome import StopReason
from prflow.agent.state import AgentState
from prflow.config import Settings, cached_settings
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec
from prflow.store.ledger import attempts_for_workflow
from tests.support.agent_specs import probe_plan, probe_spec
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn
from workflows.agent_workflow import AgentWorkflow

pytestmark = pytest.mark.temporal

TURNS = 310
KILL_AT_TURN = 150
TURNS_PER_RUN = 100
HISTORY_LIMIT_BYTES = 2 * 1024 * 1024
WORKFLOW_ID = "probe-long-agent"


@pytest.mark.timeout(900)  # hundreds of model turns: minutes, not the suite default
async def test_a_300_turn_agent_survives_a_kill_across_continue_as_new_runs(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
) -> None:
    gate = threading.Event()
    turns = [Turn(tool_uses=[ToolUse("list_changed_files", {})]) for _ in range(TURNS)]
    turns.append(Turn(text="Done."))
    turns[KILL_AT_TURN].release = gate  # in flight when the worker dies
    scripted_anthropic.script(turns)
    db_url = cached_settings().resolved_database_url()
    rng = resolve_range(RepoSpec(location=str(sample_repo)), "base", "feature")
    plan = probe_plan(temporal_settings, iterations=TURNS + 5, heartbeat_timeout_seconds=8)
    spec = probe_spec(db_url, temporal_settings, rng, turns_per_run=TURNS_PER_RUN, plan=plan)
    state = AgentState.start(spec, PhaseBudget(phase=spec.name, caps=plan.caps))

    worker = await start_worker_process(temporal_settings)
    handle = await temporal_client.start_workflow(
        AgentWorkflow.run, state, id=WORKFLOW_ID, task_queue=temporal_settings.temporal.task_queue
    )
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, KILL_AT_TURN + 1, 300)
    worker.kill()
    gate.set()
    await worker.restart()
    outcome = await asyncio.wait_for(handle.result(), 600)

    assert (outcome.stop, outcome.iterations) == (StopReason.final_answer, TURNS + 1)
    served = Counter(r.turn for r in scripted_anthropic.requests)
    assert set(served) == set(range(TURNS + 1))
    resent = {turn: count for turn, count in served.items() if count > 1}
    assert set(resent) <= {KILL_AT_TURN}, f"completed turns were sent again: {resent}"
    assert served[KILL_AT_TURN] <= 2, "the turn in flight is resent at most once per kill"

    rows = attempts_for_workflow(db_url, WORKFLOW_ID)
    assert len(rows) == len(scripted_anthropic.requests), "every request has a ledger row"
    successes = Counter(r.activity_id for r in rows if r.outcome == "success")
    assert sum(successes.values()) == TURNS + 1, "every turn answered successfully once"

    runs = [e async for e in temporal_client.list_workflows(f'WorkflowId = "{WORKFLOW_ID}"')]
    assert len(runs) >= 4, "310 turns at 100 per run continue-as-new at least three times"
    sizes = []
    for run in runs:
        history = await temporal_client.get_workflow_handle(
            WORKFLOW_ID, run_id=run.run_id
        ).fetch_history()
        sizes.append(len(history.to_json()))
        assert sizes[-1] <= HISTORY_LIMIT_BYTES, f"run {run.run_id} history is {sizes[-1]} bytes"
    print(f"{len(runs)} runs, history bytes per run: {sizes}, requests: {sum(served.values())}")
