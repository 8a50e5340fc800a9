"""Polling mode: ``prflow queue poll`` makes a Temporal Schedule whose runs find updated PRs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from temporalio.client import (
    Client,
    ScheduleActionExecutionStartWorkflow,
    ScheduleHandle,
    WorkflowExecutionStatus,
)

from prflow.config import Settings
from prflow.queue.poll import OVERLAP, PollOutcome, poll_schedule_id
from tests.queue.conftest import queue_handle, wait_for_status
from tests.support.cli_runs import client_environment, run_prflow
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg

pytestmark = pytest.mark.temporal


async def run_once(schedule: ScheduleHandle, client: Client, runs_before: int) -> PollOutcome:
    """Trigger the schedule now and wait for that poll's result."""
    await schedule.trigger()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        actions = (await schedule.describe()).info.recent_actions
        if len(actions) > runs_before:
            started = actions[-1].action
            assert isinstance(started, ScheduleActionExecutionStartWorkflow)
            handle = client.get_workflow_handle(
                started.workflow_id, run_id=started.first_execution_run_id
            )
            outcome = PollOutcome.model_validate(await handle.result())
            assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED
            return outcome
        await asyncio.sleep(0.2)
    pytest.fail("the schedule did not start a poll")


async def test_each_poll_delivers_the_prs_updated_since_the_previous_one(
    temporal_client: Client,
    temporal_settings: Settings,
    org: SimulatedOrg,
    tmp_path: Path,
) -> None:
    first_head = org.open_pr("shop", 21)
    org.open_pr("shop", 22)
    org.close("shop", 22)  # closed within the first window: its workflow starts and ends
    org.add_repo("tools")
    org.fake.add_pull_request(org.org, "tools", 23, draft=True, head_ref="wip")
    env = client_environment(temporal_settings, tmp_path / "home")
    env["PRFLOW_GITHUB_API_URL"] = org.fake.api_url

    made = await run_prflow("queue", "poll", "--org", org.org, "--every", "5m", env=env)
    assert made.code == 0, made.describe()
    assert f"created schedule queue-poll:{org.org}" in made.stdout
    remade = await run_prflow("queue", "poll", "--org", org.org, "--every", "10m", env=env)
    assert "updated schedule" in remade.stdout, remade.describe()

    schedule = temporal_client.get_schedule_handle(poll_schedule_id(org.org))
    try:
        async with run_worker(temporal_client, temporal_settings):
            first = await run_once(schedule, temporal_client, 0)
            await wait_for_status(
                queue_handle(temporal_client, org, "shop", 21),
                lambda s: s.state.last_reviewed_sha == first_head,
            )
            second_head = org.push("shop", 21)
            second = await run_once(schedule, temporal_client, 1)
            await wait_for_status(
                queue_handle(temporal_client, org, "shop", 21),
                lambda s: s.state.last_reviewed_sha == second_head,
            )
            quiet = await run_once(schedule, temporal_client, 2)
            settled = await wait_for_status(
                queue_handle(temporal_client, org, "shop", 21), lambda s: s.running is None
            )
    finally:
        removed = await run_prflow("queue", "poll", "--org", org.org, "--delete", env=env)
    # The first poll saw the open PR and the freshly closed one; drafts wait for ready.
    assert first.delivered == 2
    # Each poll starts where the last ended, less a minute for GitHub's second-precision clock.
    assert second.since == first.polled_until - OVERLAP
    assert second.delivered >= 1
    assert quiet.since == second.polled_until - OVERLAP
    # Seen again in the overlap, the PR's head is old news: one run per head, no more.
    assert [(r.head_sha, r.outcome.value) for r in settled.state.runs] == [
        (first_head, "completed"),
        (second_head, "completed"),
    ]
    assert removed.code == 0, removed.describe()
    closed = queue_handle(temporal_client, org, "shop", 22)
    assert (await closed.describe()).status == WorkflowExecutionStatus.COMPLETED
