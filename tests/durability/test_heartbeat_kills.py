"""A worker SIGKILLed in the middle of a long activity costs the run seconds, not the timeout.

Three runs, each on its own ``prflow worker`` subprocess and at the same time
(so the three 30 s waits overlap): each waits until the server reports its
target activity as started, SIGKILLs its worker and starts a fresh one. The
retry's start, read from the workflow history, must come within
:data:`KILL_COST_BOUND` of the kill: the 30 s heartbeat timeout plus the retry
backoff and a loaded machine's slack, not the 20-30 minutes the same
activities may run for. Every activity the runs scheduled with a limit over
30 s must carry a heartbeat timeout.

- static phase: ``impact_static_analysis`` building the import graphs of a
  repository of nearly-1-MB Python modules;
- git phase: ``repo_resolve_range`` cloning an ``ssh://`` remote whose
  transport (``GIT_SSH_COMMAND``) waits before running ``git upload-pack``:
  the real git protocol over a slow network;
- tool call: ``repo_tool`` answering ``find_importers`` for an agent, which
  builds the same repository's import graph.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType, PendingActivityState, TimeoutType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle

from prflow.agent.budget import PhaseBudget
from prflow.agent.outcome import StopReason
from prflow.agent.state import AgentState
from prflow.config import Settings, cached_settings
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec
from tests.support.agent_specs import probe_spec
from tests.support.fixtures_temporal import WorkerProcess, WorkerProcessFactory, isolated_settings
from tests.support.impact_runs import agent_request, start_impact
from tests.support.sample_repos import (
    BASE_FILES,
    HEAD_CHANGES,
    commit_all,
    git,
    init_repo,
    write_files,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn
from workflows.agent_workflow import AgentWorkflow

pytestmark = pytest.mark.temporal

KILL_COST_BOUND = timedelta(seconds=60)
"""Kill → retry start. Expected ~31-35 s (30 s heartbeat timeout, 1 s backoff, a poll)."""
HEARTBEAT_BOUND = timedelta(seconds=30)
LONG_ACTIVITY = timedelta(seconds=30)
RESULT_TIMEOUT = 240.0
START_TIMEOUT = 120.0

HEAVY_MODULES = 10
HEAVY_LINES = 10_500  # ~975 KB per module: just under the import graph's 1 MB file limit
SLOW_NETWORK_SECONDS = 5

SLOW_SSH = """#!/bin/sh
# A slow network in front of real git. GIT_SSH_VARIANT=simple: $1 is the host, $2 the
# command git wants run there ("git-upload-pack '/path'").
touch "{marker}"
sleep {delay}
exec sh -c "git ${{2#git-}}"
"""


def heavy_module(index: int) -> str:
    """A module of nearly 1 MB whose imports take a full parse and walk to find."""
    line = "value_{n} = total(Cart(), {n}) + len([{n}, 'import_module'])\n"
    body = "".join(line.format(n=n) for n in range(HEAVY_LINES))
    return f'"""Generated module {index}."""\nfrom shop.cart import Cart, total\n\n{body}'


def build_heavy_repo(path: Path) -> Path:
    """The sample repository's change, with :data:`HEAVY_MODULES` near-1-MB importers of
    ``shop/cart.py``: each import graph takes seconds to build."""
    repo = init_repo(path)
    heavy = {f"gen/mod_{i:02}.py": heavy_module(i) for i in range(HEAVY_MODULES)}
    write_files(repo, {**BASE_FILES, "gen/__init__.py": "", **heavy})
    commit_all(repo, "base")
    git(repo, "tag", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write_files(repo, HEAD_CHANGES)
    commit_all(repo, "change the shop API")
    return repo


@pytest.fixture(scope="module")
def heavy_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_heavy_repo(tmp_path_factory.mktemp("heavy") / "heavy")


# ---------------------------------------------------------------------- measuring a kill


@dataclass(frozen=True)
class KillCost:
    """What the history says about the activity the kill interrupted."""

    activity: str
    attempt: int
    lost: timedelta
    timeout_type: int


async def wait_until_started(handle: WorkflowHandle[Any, Any], activity: str) -> None:
    """Return once the server reports an attempt of ``activity`` picked up by a worker."""
    async with asyncio.timeout(START_TIMEOUT):
        while True:
            described = await handle.describe()
            assert described.status == WorkflowExecutionStatus.RUNNING, described.status
            for pending in described.raw_description.pending_activities:
                started = pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                if pending.activity_type.name == activity and started:
                    return
            await asyncio.sleep(0.2)


async def kill_and_restart(handle: WorkflowHandle[Any, Any], worker: WorkerProcess) -> datetime:
    """SIGKILL the worker, note when, and bring a fresh one up on the same queues.

    What was scheduled so far is checked first: without a heartbeat timeout the
    run would sit out the activity's whole limit and the test would only time out.
    """
    assert_long_activities_heartbeat(list((await handle.fetch_history()).events))
    worker.kill()
    killed_at = datetime.now(UTC)
    await worker.restart()
    return killed_at


def _started_events(events: list[HistoryEvent], activity: str) -> list[HistoryEvent]:
    scheduled = {
        event.event_id
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == activity
    }
    return [
        event
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and event.activity_task_started_event_attributes.scheduled_event_id in scheduled
    ]


async def kill_cost(
    handle: WorkflowHandle[Any, Any], activity: str, killed_at: datetime
) -> KillCost:
    """Kill → start of the attempt that completed, from the finished run's history.

    A retried activity's started event is written when its last attempt ends and
    carries that attempt's number, start time and the failure it retried after.
    """
    events = list((await handle.fetch_history()).events)
    assert_long_activities_heartbeat(events)
    retried = [
        e
        for e in _started_events(events, activity)
        if e.activity_task_started_event_attributes.attempt > 1
    ]
    assert len(retried) == 1, f"expected exactly one retried {activity}, got {len(retried)}"
    started = retried[0]
    attributes = started.activity_task_started_event_attributes
    return KillCost(
        activity=activity,
        attempt=attributes.attempt,
        lost=started.event_time.ToDatetime(tzinfo=UTC) - killed_at,
        timeout_type=attributes.last_failure.timeout_failure_info.timeout_type,
    )


def assert_long_activities_heartbeat(events: list[HistoryEvent]) -> None:
    """Every activity allowed over :data:`LONG_ACTIVITY` is scheduled with a heartbeat timeout."""
    for event in events:
        if event.event_type != EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            continue
        attributes = event.activity_task_scheduled_event_attributes
        limit = attributes.start_to_close_timeout.ToTimedelta()
        heartbeat = attributes.heartbeat_timeout.ToTimedelta()
        if limit > LONG_ACTIVITY:
            name = attributes.activity_type.name
            assert timedelta(0) < heartbeat <= HEARTBEAT_BOUND, (name, limit, heartbeat)


def assert_cheap(cost: KillCost) -> None:
    assert cost.attempt == 2, f"{cost.activity}: the first retry should complete: {cost}"
    assert cost.timeout_type == TimeoutType.TIMEOUT_TYPE_HEARTBEAT, cost
    assert timedelta(0) < cost.lost <= KILL_COST_BOUND, (
        f"a worker killed during {cost.activity} cost the run {cost.lost.total_seconds():.0f}s"
    )


# ---------------------------------------------------------------------- the three phases


async def kill_during_static_analysis(
    client: Client, settings: Settings, worker: WorkerProcess, repo: Path
) -> KillCost:
    request = agent_request(settings, repo, enabled=False)
    handle = await start_impact(client, settings, request, "heartbeat-kill-static")
    await wait_until_started(handle, "impact_static_analysis")
    killed_at = await kill_and_restart(handle, worker)
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert "shop/cart.py" in result.inline["md"], "the retried analysis produced the report"
    return await kill_cost(handle, "impact_static_analysis", killed_at)


async def kill_during_git_fetch(
    client: Client, settings: Settings, worker: WorkerProcess, origin: Path, transport_started: Path
) -> KillCost:
    url = f"ssh://fakehost{origin}"
    request = agent_request(settings, url, enabled=False)
    handle = await start_impact(client, settings, request, "heartbeat-kill-git")
    await wait_until_started(handle, "repo_resolve_range")
    async with asyncio.timeout(START_TIMEOUT):
        while not await asyncio.to_thread(transport_started.exists):  # noqa: ASYNC110
            await asyncio.sleep(0.1)
    killed_at = await kill_and_restart(handle, worker)
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert (result.repo, result.head_sha) == (url, git(origin, "rev-parse", "feature"))
    return await kill_cost(handle, "repo_resolve_range", killed_at)


async def kill_during_tool_call(
    client: Client,
    settings: Settings,
    worker: WorkerProcess,
    repo: Path,
    model: ScriptedAnthropic,
) -> KillCost:
    rng = resolve_range(RepoSpec(location=str(repo)), "base", "feature")
    spec = probe_spec(cached_settings().resolved_database_url(), settings, rng)
    state = AgentState.start(spec, PhaseBudget(phase=spec.name, caps=spec.plan.caps))
    handle = await client.start_workflow(
        AgentWorkflow.run, state, id="heartbeat-kill-tool", task_queue=settings.temporal.task_queue
    )
    await wait_until_started(handle, "repo_tool")
    killed_at = await kill_and_restart(handle, worker)
    outcome = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert outcome.stop == StopReason.final_answer
    answers = [r for r in model.requests if r.turn == 1]
    assert answers and all("gen/mod_09.py" in str(r.body) for r in answers), "importers found"
    return await kill_cost(handle, "repo_tool", killed_at)


def slow_ssh_transport(directory: Path) -> tuple[Path, Path]:
    """A ``GIT_SSH_COMMAND`` script, and the file it creates when git first calls it."""
    marker = directory / "transport-started"
    script = directory / "slow-ssh"
    script.write_text(SLOW_SSH.format(marker=marker, delay=SLOW_NETWORK_SECONDS))
    script.chmod(0o755)
    return script, marker


async def test_a_killed_worker_costs_each_phase_about_its_heartbeat_timeout(
    prflow_home: Path,
    temporal_client: Client,
    temporal_address: str,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three runs, each on its own worker, killed at once: the waits overlap."""
    static_repo = build_heavy_repo(tmp_path / "heavy")
    tool_repo = tmp_path / "heavy-copy.git"  # another repository: its graph is not cached yet
    git(tmp_path, "clone", "-q", "--bare", str(static_repo), str(tool_repo))
    transport, transport_started = slow_ssh_transport(tmp_path)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(transport))
    monkeypatch.setenv("GIT_SSH_VARIANT", "simple")
    scripted_anthropic.script(
        [
            Turn(tool_uses=[ToolUse("find_importers", {"path": "shop/cart.py"})]),
            Turn(text="Ten generated modules import the cart."),
        ]
    )
    settings = [isolated_settings(temporal_address, temporal_settings) for _ in range(3)]
    workers = [await start_worker_process(each) for each in settings]

    async with asyncio.TaskGroup() as group:
        static = group.create_task(
            kill_during_static_analysis(temporal_client, settings[0], workers[0], static_repo)
        )
        fetch = group.create_task(
            kill_during_git_fetch(
                temporal_client,
                settings[1],
                workers[1],
                sample_repo,
                transport_started,
            )
        )
        tool = group.create_task(
            kill_during_tool_call(
                temporal_client, settings[2], workers[2], tool_repo, scripted_anthropic
            )
        )

    for cost in (static.result(), fetch.result(), tool.result()):
        assert_cheap(cost)
