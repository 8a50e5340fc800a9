"""Two agents of a run asking the same question at the same moment pay for it once.

Two child agents of a probe run (real dev server, real SDK against the scripted
Messages API) send word-for-word identical first requests; the scripted answer
is held until both are in flight, so the second cannot find a kept answer yet.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.outcome import StopReason
from prflow.agent.state import child_agent_id
from prflow.config import Settings, cached_settings
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec, ResolvedRange
from prflow.store.ledger import attempts_for_workflow
from tests.agent.probe_workflows import ProbeRequest, ProbeWorkflow
from tests.support.agent_specs import probe_spec
from tests.support.fixtures_temporal import run_worker
from tests.support.scripted_anthropic import ScriptedAnthropic, Turn

pytestmark = pytest.mark.temporal

QUESTION = "Is the retry loop in the client bounded?"
RUN_ID = "probe-one-question"


@pytest.fixture
def probe_range(prflow_home: Path, sample_repo: Path) -> ResolvedRange:
    return resolve_range(RepoSpec(location=str(sample_repo)), "base", "feature")


async def _model_call_in_flight(client: Client, workflow_id: str) -> bool:
    described = await client.get_workflow_handle(workflow_id).describe()
    pending = described.raw_description.pending_activities
    return any(activity.activity_type.name == "llm_call" for activity in pending)


async def test_a_question_asked_twice_at_once_is_sent_once_and_the_second_waits_for_it(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    gate = threading.Event()
    scripted_anthropic.script([Turn(text="Yes: three attempts, then it raises.", release=gate)])
    db_url = cached_settings().resolved_database_url()
    specs = [
        probe_spec(db_url, temporal_settings, probe_range, name=name, first_message=QUESTION)
        for name in ("a", "b")
    ]
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await temporal_client.start_workflow(
            ProbeWorkflow.run,
            ProbeRequest(specs=specs, max_concurrency=2),
            id=RUN_ID,
            task_queue=temporal_settings.temporal.task_queue,
        )
        await asyncio.to_thread(scripted_anthropic.wait_for_requests, 1, 30)
        agents = [child_agent_id(RUN_ID, name) for name in ("a", "b")]
        for _ in range(100):  # both agents' model calls are running
            flights = [await _model_call_in_flight(temporal_client, agent) for agent in agents]
            if all(flights):
                break
            await asyncio.sleep(0.1)
        assert all(flights), "the two agents' model calls were not in flight together"
        await asyncio.sleep(1.0)  # the waiting one polls; it must not send meanwhile
        assert len(scripted_anthropic.requests) == 1, "the second asked while the first was out"
        gate.set()
        result = await handle.result()

    assert len(scripted_anthropic.requests) == 1, "the question was sent twice"
    assert [(o.stop, o.final_text) for o in result.outcomes] == [
        (StopReason.final_answer, "Yes: three attempts, then it raises.")
    ] * 2
    rows = attempts_for_workflow(db_url, RUN_ID)
    assert sorted((row.outcome, row.usd > 0) for row in rows) == [
        ("reused", False),
        ("success", True),
    ]
    paid = [o.spent.usd for o in result.outcomes]
    assert sorted(paid)[0] == 0.0 < sorted(paid)[1], "the run's budget counts it once"
