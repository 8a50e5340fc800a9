"""CI state for the loopback GitHub: check runs, commit statuses and job logs, in GitHub's shapes.

GitHub Actions creates one check run per job, and the check run's id is the
job's id, which is how a job log is found from a failing check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

Json = Any
ACTIONS_APP_ID = 15368  # the GitHub Actions app, as github.com numbers it


@dataclass
class FakeCheckRun:
    id: int
    repo: str  # owner/name
    head_sha: str
    name: str
    status: str = "completed"  # queued, in_progress, completed
    conclusion: str | None = "success"
    log: str | None = None  # the job log GitHub Actions would serve; None: expired/none
    app_slug: str = "github-actions"
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    completed_at: datetime | None = None


@dataclass
class FakeStatus:
    id: int
    repo: str
    sha: str
    context: str
    state: str  # error, failure, pending, success
    description: str | None = None
    target_url: str | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))


def _timestamp(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def actions_app_json(owner: Json, web_url: str) -> Json:
    """The GitHub Actions app (``integration``), as check runs embed it."""
    moment = "2018-07-30T09:30:17Z"
    return {
        "id": ACTIONS_APP_ID,
        "slug": "github-actions",
        "node_id": "MDM6QXBwMTUzNjg=",
        "owner": owner,
        "name": "GitHub Actions",
        "description": "Automate your workflow from idea to production",
        "external_url": "https://help.github.com/en/actions",
        "html_url": f"{web_url}/apps/github-actions",
        "created_at": moment,
        "updated_at": moment,
        "permissions": {"actions": "write", "checks": "write", "metadata": "read"},
        "events": ["check_run", "pull_request", "push"],
    }


def check_run_json(run: FakeCheckRun, api_url: str, web_url: str, app: Json) -> Json:
    api = f"{api_url}/repos/{run.repo}"
    html = f"{web_url}/{run.repo}/actions/runs/{run.id // 10}/job/{run.id}"
    return {
        "id": run.id,
        "head_sha": run.head_sha,
        "node_id": f"CR_kwDO{run.id:08d}",
        "external_id": f"ext-{run.id}",
        "url": f"{api}/check-runs/{run.id}",
        "html_url": html,
        "details_url": html,
        "status": run.status,
        "conclusion": run.conclusion if run.status == "completed" else None,
        "started_at": _timestamp(run.started_at),
        "completed_at": _timestamp(run.completed_at) if run.status == "completed" else None,
        "output": {
            "title": None,
            "summary": None,
            "text": None,
            "annotations_count": 0,
            "annotations_url": f"{api}/check-runs/{run.id}/annotations",
        },
        "name": run.name,
        "check_suite": {"id": run.id // 10},
        "app": app,
        "pull_requests": [],
    }


def status_json(status: FakeStatus, api_url: str, web_url: str) -> Json:
    moment = _timestamp(status.created_at)
    return {
        "id": status.id,
        "node_id": f"SC_kwDO{status.id:08d}",
        "url": f"{api_url}/repos/{status.repo}/statuses/{status.sha}",
        "avatar_url": f"{web_url}/avatars/ci",
        "state": status.state,
        "description": status.description,
        "target_url": status.target_url,
        "context": status.context,
        "created_at": moment,
        "updated_at": moment,
    }


def combined_state(statuses: list[FakeStatus]) -> str:
    """GitHub's rule: failure if any failed or errored, pending if any pending or none."""
    states = {s.state for s in statuses}
    if states & {"failure", "error"}:
        return "failure"
    if not statuses or "pending" in states:
        return "pending"
    return "success"
