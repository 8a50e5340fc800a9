"""A worker SIGKILLed in the middle of a refactor task: a second worker with empty data and
cache directories resumes the run at that task, rebuilds the workspace from the stored state,
never redoes the finished task and never resends a completed model turn."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.refactor.run_models import RunStatus
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.refactor_repo import PLANNER_KEY, async_script, build_storage_repo, executor_key
from tests.support.refactor_runs import apply_check, artifact, refactor_request, start_refactor
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal


def wait_for_requests_of(server: ScriptedAnthropic, route: str, count: int) -> None:
    deadline = time.monotonic() + 90
    while len(server.requests_of(route)) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{route!r} got fewer than {count} requests")
        time.sleep(0.05)


RESULT_TIMEOUT = 300


async def test_a_killed_worker_resumes_at_the_task_it_was_running(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    gate = threading.Event()
    script = async_script()
    callers = script[executor_key("callers", 1)]
    callers[1].release = gate  # the callers executor's second turn waits for the kill
    scripted_anthropic.route(script)
    worker = await start_worker_process(temporal_settings)
    request = refactor_request(temporal_settings, repo, dry_run=True)
    for plan in request.plans.values():
        plan.heartbeat_timeout_seconds = 8
    handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-crash")
    key = executor_key("callers", 1)
    await asyncio.to_thread(wait_for_requests_of, scripted_anthropic, key, 2)  # turn 2 held

    worker.kill()
    monkeypatch.setenv("PRFLOW_DATA_DIR", str(tmp_path / "second-data"))
    monkeypatch.setenv("PRFLOW_CACHE_DIR", str(tmp_path / "second-cache"))
    cached_settings.cache_clear()
    gate.set()
    await start_worker_process(temporal_settings)
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    assert [t.status for t in result.tasks] == ["done", "done", "done"]
    assert [t.attempts for t in result.tasks] == [1, 1, 1], "no task was redone"
    planner = Counter(r.turn for r in scripted_anthropic.requests_of(PLANNER_KEY))
    assert planner == Counter({0: 1}), "the finished planning was not sent again"
    core = Counter(r.turn for r in scripted_anthropic.requests_of(executor_key("core", 1)))
    assert core == Counter({0: 1, 1: 1, 2: 1}), "the finished task's turns were not resent"
    served = Counter(r.turn for r in scripted_anthropic.requests_of(key))
    assert served[0] == 1, "the completed first turn of the running task was not resent"
    assert 1 <= served[1] <= 2, "only the turn in flight may be sent again"
    for path in result.changed_files:
        patch = artifact(result, "diffs/" + path.replace("/", "__") + ".patch")
        assert apply_check(repo, patch).returncode == 0
