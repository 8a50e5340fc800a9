"""A worker SIGKILLed in the middle of an agent run: the run resumes and pays for nothing twice."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.impact.models import LlmStatus
from prflow.store.ledger import attempts_for_workflow
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.impact_runs import agent_request, agent_script, start_impact
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 120


async def test_killed_worker_resumes_without_resending_completed_turns(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
) -> None:
    gate = threading.Event()
    turns = agent_script()
    turns[1].release = gate  # the second model turn hangs until the worker is dead
    scripted_anthropic.script(turns)
    worker = await start_worker_process(temporal_settings)

    request = agent_request(temporal_settings, sample_repo)
    request.llm.heartbeat_timeout_seconds = 8
    handle = await start_impact(temporal_client, temporal_settings, request, "impact-crash-1")
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, 2, 60)

    worker.kill()
    gate.set()
    await worker.restart()
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.llm.status == LlmStatus.completed
    served = Counter(r.turn for r in scripted_anthropic.requests)
    assert served[0] == 1, "a turn that completed before the crash was sent again"
    # The turn in flight is retried after the heartbeat timeout; on a loaded machine the
    # worker may also die before the request leaves, so it arrives once or twice.
    assert 1 <= served[1] <= 2, "the turn in flight is resent at most once per kill"
    assert served[2] == 1

    rows = attempts_for_workflow(cached_settings().resolved_database_url(), "impact-crash-1")
    successes = Counter(r.activity_id for r in rows if r.outcome == "success")
    assert len(successes) == 3
    assert set(successes.values()) == {1}
    assert len({(r.activity_id, r.attempt) for r in rows}) == len(rows)
    assert len(rows) >= len(scripted_anthropic.requests), "every request sent has a ledger row"
    assert {r.outcome for r in rows} <= {"success", "sent"}, "a killed attempt stays 'sent'"
