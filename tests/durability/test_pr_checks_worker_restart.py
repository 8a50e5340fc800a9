"""A worker SIGKILLed while pr_checks waits for CI: a new worker picks the wait up on its timer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.pr_tools.checks import CiState
from tests.pr_tools.actions_log import as_actions_log, sample
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.pr_checks_runs import (
    CHECK_RUNS_PATH,
    HEAD,
    start_pr_checks,
    stored_report,
    wait_for_looks,
)

pytestmark = pytest.mark.temporal
RESULT_TIMEOUT = 120


async def test_killed_worker_mid_wait_resumes_and_reports(
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
    temporal_client: Client,
    temporal_settings: Settings,
    start_worker_process: WorkerProcessFactory,
) -> None:
    fake = fake_github_pr
    temporal_settings.github_api_url = fake.api_url
    temporal_settings.database_url = cached_settings().resolved_database_url()
    run = fake.add_check_run("octo-org", "service", HEAD, "tests", "in_progress", None)
    worker = await start_worker_process(temporal_settings)

    handle = await start_pr_checks(
        temporal_client, temporal_settings, "pr-checks-crash-1", poll_seconds=2
    )
    await wait_for_looks(fake, 2)
    worker.kill()
    looks_at_crash = len(fake.requests("GET", CHECK_RUNS_PATH))
    await asyncio.sleep(3)  # a timer fires while no worker runs
    fake.finish_check_run(run.id, "failure", as_actions_log(sample("pytest_default.log"), "pytest"))
    await worker.restart()
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    report = stored_report(result)
    assert (report.state, report.failures.pagination.total_items) == (CiState.failed, 5)
    assert report.wait is not None
    assert len(fake.requests("GET", CHECK_RUNS_PATH)) > looks_at_crash, "polling carried on"
    assert report.wait.waited_seconds >= 3, "time waited spans the crash"
    # A look cut short by the kill is retried after its 10 s heartbeat timeout, not
    # after the minute its start-to-close timeout allows.
    assert report.wait.waited_seconds < 30
