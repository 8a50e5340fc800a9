"""What a PR's queue workflow remembers, carried whole across continue-as-new.

Everything here is bounded: the delivery ids (for idempotency), the run
history and the notes keep only their latest entries, so a PR that sees
pushes for weeks keeps a state of a few KiB.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from prflow.pr_identifier import PullRequestRef
from prflow.task_queues import QueueNames

MAX_DELIVERIES = 256
"""Delivery ids remembered; GitHub redelivers within hours, not after hundreds of events."""
MAX_RUNS = 30
MAX_NOTES = 20

__all__ = ["QueueNames"]  # the PR's jobs run on these (set by whoever started the queue)


class RunOutcome(StrEnum):
    completed = "completed"
    failed = "failed"
    superseded = "superseded"  # a newer push arrived; cancelled cleanly
    cancelled = "cancelled"  # the PR closed while it ran
    skipped = "skipped"  # nothing to do (ignored paths, disabled, bad .prflow.toml)


class JobRun(BaseModel):
    """One job child (or a skipped head) and how it ended."""

    kind: str
    head_sha: str
    workflow_id: str = ""
    outcome: RunOutcome
    detail: str = ""


class QueueState(BaseModel):
    """Input of the ``queue`` workflow and of each of its continued runs."""

    pr: PullRequestRef
    queues: QueueNames
    head_sha: str | None = Field(default=None, description="Latest head known")
    head_updated_at: datetime | None = None
    last_reviewed_sha: str | None = Field(
        default=None, description="Head whose jobs last ran to the end; the next run starts here"
    )
    requested: list[str] = Field(
        default_factory=list, description="Jobs asked for by comment commands, not yet run"
    )
    closed: bool = False
    deliveries: list[str] = Field(default_factory=list)
    runs: list[JobRun] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    continued: int = Field(default=0, description="How many times the workflow continued-as-new")
    history_limit: int = Field(
        default=2_000, ge=50, description="History events after which an idle run continues-as-new"
    )

    @property
    def org(self) -> str:
        return self.pr.owner

    @property
    def repo(self) -> str:
        return f"{self.pr.owner}/{self.pr.repo}"


class QueueStatus(BaseModel):
    """The ``status`` query: what an operator (or a test) wants to know about a PR."""

    state: QueueState
    running: JobRun | None = None
    waiting_for_slot: bool = False


class QueueSummary(BaseModel):
    """Result of a PR's workflow when the PR closes."""

    pr: PullRequestRef
    last_reviewed_sha: str | None
    runs: list[JobRun]
