"""Turning "run job X on this PR's head" into the request of kind X.

The queue is data-driven by kind name: a kind that can run from the queue
names a builder in its declaration (``KindDeclaration.queue_job``), a
function ``(QueueJob, Settings) -> request``. The plan activity calls it with
the worker's settings, so model plans and prices are fixed the same way the
CLI fixes them, and the workflow only carries the resulting request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from prflow.config import Settings
from prflow.kinds import KindDeclaration, import_path
from prflow.pr_identifier import PullRequestRef
from prflow.queue.repo_config import RepoConfig
from prflow.queue.state import QueueNames

JobBuilder = Callable[["QueueJob", Settings], BaseModel]


class QueueJob(BaseModel):
    """What a kind's builder knows about the run it is asked to build."""

    pr: PullRequestRef
    head_sha: str
    base_sha: str
    since_sha: str | None = Field(
        default=None, description="Head of the last finished run: incremental kinds start here"
    )
    clone_url: str
    config: RepoConfig
    queues: QueueNames

    def settings_for(self, settings: Settings) -> Settings:
        """``settings`` aimed at the queues this job's run must use."""
        on_queues = settings.model_copy(deep=True)
        on_queues.temporal.task_queue = self.queues.main
        on_queues.temporal.llm_task_queue = self.queues.llm
        on_queues.temporal.github_task_queue = self.queues.github
        return on_queues


class PlanInput(BaseModel):
    """Input of the plan activity: the PR, what ran before and what was asked for."""

    pr: PullRequestRef
    queues: QueueNames
    last_reviewed_sha: str | None = None
    requested: list[str] = Field(default_factory=list)


class PlannedJob(BaseModel):
    kind: str
    request: dict[str, Any] = Field(description="The kind's input, as JSON")


class QueuePlan(BaseModel):
    """What to run on the PR's current head (nothing, with a reason, when skipped)."""

    head_sha: str = ""
    closed: bool = False
    jobs: list[PlannedJob] = Field(default_factory=list)
    skipped: str | None = None
    risk_threshold: int | None = None


class JoinRun(BaseModel):
    """A job's run that another start path (the CLI) began first under the same id."""

    workflow_id: str


class JoinedRun(BaseModel):
    """How the joined run ended: its result, as JSON, for the queue's record."""

    result: dict[str, Any] = Field(default_factory=dict)


def queue_kinds(kinds: Sequence[KindDeclaration]) -> dict[str, KindDeclaration]:
    """The kinds the queue can run, by name: those that declare a queue job builder."""
    return {kind.name: kind for kind in kinds if kind.queue_job is not None}


def build_request(kind: KindDeclaration, job: QueueJob, settings: Settings) -> dict[str, Any]:
    """The kind's request for ``job``, as the JSON its workflow decodes."""
    assert kind.queue_job is not None, f"{kind.name} cannot run from the queue"
    builder: JobBuilder = import_path(kind.queue_job)
    request = builder(job, settings)
    dumped: dict[str, Any] = request.model_dump(mode="json")
    return dumped
