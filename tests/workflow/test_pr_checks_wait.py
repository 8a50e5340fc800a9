"""The pr_checks workflow waits for CI on durable timers, on the real dev server."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from prflow import search_attributes as sa
from prflow.config import Settings
from prflow.pr_tools.checks import CiState
from tests.pr_tools.actions_log import as_actions_log, sample
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import run_worker
from tests.support.pr_checks_runs import HEAD, start_pr_checks, stored_report, wait_for_looks

pytestmark = pytest.mark.temporal


async def test_waits_on_timers_until_ci_finishes_then_reports_failures(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
) -> None:
    fake = fake_github_pr
    run = fake.add_check_run("octo-org", "service", HEAD, "tests", "in_progress", None)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_pr_checks(temporal_client, temporal_settings, "pr-checks-wait-1")
        await wait_for_looks(fake, 3)
        fake.finish_check_run(run.id, "failure", as_actions_log(sample("jest.log"), "npx jest"))
        result = await handle.result()
        history = await handle.fetch_history()
        described = await handle.describe()

    report = stored_report(result)
    assert (result.state, result.failures) == (CiState.failed, 3)
    assert report.failures.items[0].test == "cart total › counts quantities"
    assert report.wait is not None
    assert report.wait.polls >= 4 and not report.wait.timed_out
    timers = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_TIMER_STARTED]
    assert len(timers) == report.wait.polls - 1, "every pause is a workflow timer"
    attributes = described.typed_search_attributes
    assert (attributes.get(sa.KIND), attributes.get(sa.REPO), attributes.get(sa.PR)) == (
        "pr_checks",
        "octo-org/service",
        5,
    )


async def test_bail_on_first_returns_while_other_checks_still_run(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
) -> None:
    fake = fake_github_pr
    fake.add_check_run("octo-org", "service", HEAD, "e2e", "in_progress", None)
    unit = fake.add_check_run("octo-org", "service", HEAD, "unit", "in_progress", None)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_pr_checks(
            temporal_client, temporal_settings, "pr-checks-bail-1", bail_on_first=True
        )
        await wait_for_looks(fake, 2)
        fake.finish_check_run(unit.id, "failure", as_actions_log(sample("gotest.log"), "go test"))
        report = stored_report(await handle.result())

    assert report.state == CiState.failed
    assert report.overview.waiting_on == ["e2e"]
    assert report.wait is not None and report.wait.bailed
    assert "Stopped at the first failure" in report.summary
    assert [f.test for f in report.failures.items] == [
        "TestAbsNegative",
        "TestAbsTable/minus_one",
        "TestPanics",
    ]


async def test_no_ci_ends_the_wait_at_once_as_a_result(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
) -> None:
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_pr_checks(temporal_client, temporal_settings, "pr-checks-none-1")
        report = stored_report(await handle.result())

    assert report.state == CiState.no_ci
    assert report.wait is not None and report.wait.polls == 1


async def test_the_wait_stops_at_its_cap_with_ci_still_pending(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
) -> None:
    fake_github_pr.add_check_run("octo-org", "service", HEAD, "slow", "queued", None)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_pr_checks(
            temporal_client, temporal_settings, "pr-checks-cap-1", max_wait_seconds=3
        )
        report = stored_report(await handle.result())

    assert report.state == CiState.pending
    assert report.wait is not None and report.wait.timed_out
    assert "Stopped waiting after" in report.summary
