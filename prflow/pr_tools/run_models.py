"""What the ``pr_checks`` workflow and its activities take and return.

They belong to the PR-tools kind (CI states, check rows and waits are its concepts),
so they live here rather than among the GitHub activities' shared models.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.checks import CheckInfo, CiState
from prflow.pr_tools.checks_report import WaitInfo
from prflow.task_queues import recorded_queue

MAX_WAIT_SECONDS = 30 * 60
"""Waiting for CI is capped at 30 minutes: longer than that, come back later."""


class ChecksSnapshot(BaseModel):
    """One look at a PR's CI: its head commit and the state of every check on it."""

    pr: PullRequestRef
    head_sha: str
    checks: list[CheckInfo]


class ChecksReportInput(BaseModel):
    snapshot: ChecksSnapshot
    page: int = 1
    page_size: int = 10
    wait: WaitInfo | None = None


class ChecksReportRef(BaseModel):
    """Where the full report is stored, and enough to print a one-line outcome."""

    report_key: str
    state: CiState
    failures: int


class PrChecksRequest(BaseModel):
    """Start of the ``pr_checks`` workflow: wait for a PR's CI, then report its failures."""

    pr: PullRequestRef
    bail_on_first: bool = False
    max_wait_seconds: int = Field(
        MAX_WAIT_SECONDS, ge=0, le=MAX_WAIT_SECONDS, description="Give up waiting after this long"
    )
    poll_seconds: int = Field(30, ge=1, description="Pause between looks at the checks")
    page: int = 1
    page_size: int = 10
    github_task_queue: str | None = recorded_queue()
