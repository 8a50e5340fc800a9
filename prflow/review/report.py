"""The review report: the versioned JSON schema of ``prflow review --format json``.

Every renderer (GitHub review, summary comment, Markdown, SARIF) reads this
one model. Bump :data:`SCHEMA_VERSION` on any incompatible change.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.impact.models import MODEL_TEXT_NOTE, RiskAssessment
from prflow.pr_identifier import PullRequestRef
from prflow.review.anatomy import ChangeCluster, DiffStats
from prflow.review.models import IntakeResult, ReviewDepth, ReviewPlan, SemanticAnatomy
from prflow.review.reviewable import NotReviewed
from prflow.review.stage_models import PhaseOutcome
from prflow.review.synthesis import ReviewEvent, ScoredFinding, Suppressed

SCHEMA_VERSION = "1.0"


class StructureSummary(BaseModel):
    stats: DiffStats
    clusters: list[ChangeCluster]
    blast_radius_total: int
    high_blast_files: list[str] = Field(default_factory=list)


class ReviewReport(BaseModel):
    schema_version: str = SCHEMA_VERSION
    workflow_id: str
    repo: str
    pull_request: PullRequestRef | None = None
    base_sha: str
    head_sha: str
    reviewed_from_sha: str | None = Field(
        default=None, description="Set for an incremental review: only commits after it"
    )
    scope_note: str = ""
    placement_note: str = Field(
        default="",
        description="Set when findings were not placed on GitHub's own per-file patches alone",
    )
    depth: ReviewDepth
    event: ReviewEvent
    complete: bool = Field(description="False when a phase was cut by its budget or failed")
    used_model: bool
    risk: RiskAssessment
    intake: IntakeResult
    structure: StructureSummary
    semantic: SemanticAnatomy | None = None
    plan: ReviewPlan | None = None
    phases: list[PhaseOutcome] = Field(default_factory=list)
    findings: list[ScoredFinding] = Field(default_factory=list)
    folded: list[str] = Field(
        default_factory=list,
        description="What was folded to keep the review readable (rules, inline comment cap)",
    )
    earlier_findings: list[ScoredFinding] = Field(
        default_factory=list,
        description="Findings of this head an earlier run posted; listed, not posted again",
    )
    suppressed: Suppressed = Field(default_factory=Suppressed)
    conversation: dict[str, int] = Field(
        default_factory=dict,
        description="Findings of this PR people accepted or rebutted, and pushes fixed",
    )
    not_reviewed: list[NotReviewed] = Field(default_factory=list)
    rejected_findings: list[str] = Field(
        default_factory=list, description="Model findings dropped because their evidence failed"
    )
    cost_usd: float = 0.0
    text_origin_note: str = Field(
        default=MODEL_TEXT_NOTE.replace("risk.score and risk.level", "the event and scores"),
        description="Findings with origin 'model' carry model-written text",
    )

    @property
    def cut_phases(self) -> list[str]:
        return [p.name for p in self.phases if p.state.value == "failed"]

    @property
    def skipped_phases(self) -> list[str]:
        return [p.name for p in self.phases if p.state.value == "skipped"]
