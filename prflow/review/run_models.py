"""The ``review`` workflow's input and result, and its phases (what crosses Temporal).

A request is constructible from a pull request reference alone (static mode,
no post); :mod:`prflow.review.request` adds the model plans from settings.
Bulk data (findings, structure, rendered reports) travels by blob key.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from prflow.agent.plan import PhasePlan
from prflow.credentials import SafeLocation
from prflow.impact.models import RiskLevel
from prflow.pr_identifier import PullRequestRef
from prflow.review.models import ReviewDepth
from prflow.review.synthesis import ReviewEvent
from prflow.task_queues import recorded_queue

WORKFLOW_KIND = "review"


class ReviewPhase:
    """Budget and ledger phases: one per kind of agent, so ``prflow costs`` shows each."""

    intake = "intake"
    intake_escalation = "intake_escalation"
    anatomy = "anatomy"
    planning = "planning"
    reviewers = "reviewers"
    investigations = "investigations"
    cross_ref = "cross_ref"
    deep_dives = "deep_dives"
    adversary = "adversary"
    coverage = "coverage"
    gap_reviewers = "gap_reviewers"


MODEL_PHASES: tuple[str, ...] = (
    ReviewPhase.intake,
    ReviewPhase.intake_escalation,
    ReviewPhase.anatomy,
    ReviewPhase.planning,
    ReviewPhase.reviewers,
    ReviewPhase.investigations,
    ReviewPhase.cross_ref,
    ReviewPhase.deep_dives,
    ReviewPhase.adversary,
    ReviewPhase.coverage,
    ReviewPhase.gap_reviewers,
)

STEPS: tuple[str, ...] = (
    "resolve",
    "intake",
    "anatomy",
    "planning",
    "reviewers",
    "review_layer",
    "synthesis",
    "output",
)
"""The run's steps as progress shows them: the seven phases of the review, after resolving."""


class ReviewRequest(BaseModel):
    """One review: a pull request, a local repository and two refs, or both (CI)."""

    model_config = ConfigDict(hide_input_in_errors=True)

    pull_request: PullRequestRef | None = None
    pr_head_sha: str | None = Field(
        default=None,
        description="The PR head the starter saw: names the run, so every start path joins it",
    )
    repo: SafeLocation | None = Field(
        default=None, description="Local path or clone URL; with a PR, read instead of its clone"
    )
    base: str | None = None
    head: str | None = None
    post: bool = Field(default=False, description="Post the review and the summary comment")
    depth: ReviewDepth = ReviewDepth.standard
    plans: dict[str, PhasePlan] = Field(
        default_factory=dict,
        description="Model plan of each model phase; empty runs the review in static mode",
    )
    max_concurrency: int = Field(default=4, ge=1, le=16, description="Reviewers at once")
    full: bool = Field(default=False, description="Review every commit, not only new ones")
    github_task_queue: str | None = recorded_queue()
    deadline_seconds: float | None = Field(
        default=None, gt=0, description="The whole run's time limit; at it, post what is done"
    )

    @model_validator(mode="after")
    def _has_a_target(self) -> Self:
        if self.pull_request is None and self.repo is None:
            raise ValueError("a review needs a pull request or a repository")
        if self.post and self.pull_request is None:
            raise ValueError("posting a review needs a pull request")
        return self

    @property
    def uses_model(self) -> bool:
        return any(plan.enabled for plan in self.plans.values())


class ReviewResult(BaseModel):
    workflow_id: str
    repo: str
    base_sha: str
    head_sha: str
    reviewed_from_sha: str | None = Field(
        default=None, description="Incremental reviews: the head reviewed last time"
    )
    already_reviewed: bool = Field(
        default=False, description="Nothing new since the last review; nothing was posted"
    )
    event: ReviewEvent | None = None
    findings: int = 0
    inline_comments: int = 0
    body_findings: int = 0
    by_severity: dict[str, int] = Field(default_factory=dict)
    complete: bool = True
    cut_phases: list[str] = Field(default_factory=list)
    skipped_phases: list[str] = Field(default_factory=list)
    risk_score: int = 0
    risk_level: RiskLevel = RiskLevel.low
    report_key: str = ""
    markdown_key: str = ""
    sarif_key: str = ""
    inline: dict[str, str] = Field(
        default_factory=dict, description="Small renderings by format (md, json, sarif)"
    )
    review_url: str | None = None
    summary_url: str | None = None
    cost_usd: float = 0.0
