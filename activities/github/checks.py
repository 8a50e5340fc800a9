"""CI results of a pull request's head commit: check runs, commit statuses, job logs.

``github_checks_snapshot`` is the short read the ``pr_checks`` workflow
repeats between its timers; ``github_checks_report`` downloads the failing
jobs' logs once, parses them and stores the report in the blob store.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from temporalio import activity

from activities.github.client import REQUEST_TIMEOUT_SECONDS, github_client, repo_full_name
from activities.github.errors import classified_errors
from activities.heartbeats import heartbeating, in_thread_heartbeating
from prflow.config import cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.checks import CheckInfo, CheckKind
from prflow.pr_tools.checks_report import ChecksReport, WaitInfo, checks_report
from prflow.pr_tools.ci_logs import TestFailure, parse_failures
from prflow.pr_tools.run_models import ChecksReportInput, ChecksReportRef, ChecksSnapshot
from prflow.store.blobs import put_text

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    from github.Repository import Repository

ACTIONS_APP = "github-actions"
MAX_CHECKS = 500  # keeps a snapshot far below Temporal's payload limit
MAX_LOG_BYTES = 20 * 1024 * 1024


def _errors(ref: PullRequestRef, what: str) -> AbstractContextManager[None]:
    return classified_errors(
        action=f"reading {what} of {ref.slug}",
        missing=f"Pull request {ref.slug} was not found",
        permission="read access to checks, commit statuses and Actions (checks: read, "
        "statuses: read, actions: read)",
    )


def _repo(ref: PullRequestRef) -> Repository:
    return github_client().withLazy(True).get_repo(repo_full_name(ref.owner, ref.repo))


def read_checks(ref: PullRequestRef) -> ChecksSnapshot:
    """The PR's head commit and every check run and commit status on it."""
    with _errors(ref, "the checks"):
        repo = _repo(ref)
        head_sha = repo.get_pull(ref.number).head.sha
        commit = repo.get_commit(head_sha)
        checks = [
            CheckInfo(
                name=run.name,
                kind=CheckKind.check_run,
                status=run.status,
                conclusion=run.conclusion,
                url=run.html_url,
                job_id=run.id if run.app is not None and run.app.slug == ACTIONS_APP else None,
            )
            for run in list(commit.get_check_runs())[:MAX_CHECKS]
        ]
        checks += [
            CheckInfo(
                name=status.context,
                kind=CheckKind.status,
                status=status.state,
                url=status.target_url,
            )
            for status in commit.get_combined_status().statuses
        ]
    return ChecksSnapshot(pr=ref, head_sha=head_sha, checks=checks[:MAX_CHECKS])


def read_job_log(ref: PullRequestRef, job_id: int) -> str | None:
    """The job's log text, or None when GitHub has none (expired, or not an Actions job).

    GitHub answers with a redirect to a short-lived download URL, which is fetched
    without our credentials, as GitHub's own clients do.
    """
    import requests
    from github import GithubException

    with _errors(ref, f"the log of job {job_id}"):
        try:
            location = _repo(ref).get_workflow_job(job_id).logs_url()
        except GithubException as exc:
            if exc.status in {404, 410}:
                return None
            raise
        response = requests.get(location, timeout=REQUEST_TIMEOUT_SECONDS, stream=True)
        if response.status_code in {403, 404, 410}:
            return None
        response.raise_for_status()
        data: bytes = response.raw.read(MAX_LOG_BYTES, decode_content=True)
        return data.decode("utf-8", errors="replace")


def build_report(
    snapshot: ChecksSnapshot,
    *,
    page: int,
    page_size: int,
    wait: WaitInfo | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> ChecksReport:
    """Parse the logs of the failing Actions jobs and assemble the report.

    ``progress`` is told before each download (the activity heartbeats there).
    """
    parsed: dict[str, list[TestFailure] | None] = {}
    for check in snapshot.checks:
        if check.failing and check.job_id is not None:
            progress(f"log of {check.name}")
            log = read_job_log(snapshot.pr, check.job_id)
            parsed[check.name] = None if log is None else parse_failures(log)
    return checks_report(
        snapshot.pr.slug,
        snapshot.head_sha,
        snapshot.checks,
        parsed,
        page=page,
        page_size=page_size,
        wait=wait,
    )


@activity.defn(name="github_checks_snapshot")
async def checks_snapshot(ref: PullRequestRef) -> ChecksSnapshot:
    """One look at the PR's CI: a few requests, safe to repeat."""
    return await in_thread_heartbeating(lambda: read_checks(ref))


@activity.defn(name="github_checks_report")
@heartbeating
def checks_report_activity(inp: ChecksReportInput) -> ChecksReportRef:
    """Read the failing jobs' logs and store the parsed report; returns its blob key.

    Synchronous (the worker runs it in its thread pool): it heartbeats before
    each log download and, from a side thread, while a slow one runs.
    """
    report = build_report(
        inp.snapshot,
        page=inp.page,
        page_size=inp.page_size,
        wait=inp.wait,
        progress=activity.heartbeat,
    )
    key = put_text(cached_settings().resolved_database_url(), report.model_dump_json())
    return ChecksReportRef(
        report_key=key, state=report.state, failures=report.failures.pagination.total_items
    )
