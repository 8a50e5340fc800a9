"""Helpers for tests of the ``pr_checks`` workflow: start it, wait for the fake's CI to be read."""

from __future__ import annotations

import asyncio
import time

from temporalio.client import Client, WorkflowHandle

from prflow.config import Settings, cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.checks_report import ChecksReport
from prflow.pr_tools.run_models import ChecksReportRef, PrChecksRequest
from prflow.store.blobs import get_text
from tests.support.fake_github import FakeGitHub
from workflows.pr_checks import PrChecksWorkflow

PR = PullRequestRef(owner="octo-org", repo="service", number=5)
HEAD = "1" * 40  # head commit of the seeded PR
CHECK_RUNS_PATH = r"/commits/[0-9a-f]+/check-runs$"


async def start_pr_checks(
    client: Client, settings: Settings, workflow_id: str, **options: object
) -> WorkflowHandle[PrChecksWorkflow, ChecksReportRef]:
    request = PrChecksRequest.model_validate({"pr": PR, "poll_seconds": 1} | options)
    return await client.start_workflow(
        PrChecksWorkflow.run, request, id=workflow_id, task_queue=settings.temporal.task_queue
    )


async def wait_for_looks(fake: FakeGitHub, count: int, within_seconds: float = 60) -> None:
    """Until the workflow has read the check runs ``count`` times."""
    deadline = time.monotonic() + within_seconds
    while len(fake.requests("GET", CHECK_RUNS_PATH)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"the workflow did not look at the checks {count} times")
        await asyncio.sleep(0.1)


def stored_report(ref: ChecksReportRef) -> ChecksReport:
    return ChecksReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), ref.report_key)
    )


def add_failing_job(
    fake: FakeGitHub, name: str, sample_name: str, command: str, head_sha: str = HEAD
) -> None:
    """A failed GitHub Actions job on the seeded PR whose log is a real runner's output."""
    from tests.pr_tools.actions_log import as_actions_log, sample

    fake.add_check_run(
        "octo-org",
        "service",
        head_sha,
        name,
        conclusion="failure",
        log=as_actions_log(sample(sample_name), command),
    )
