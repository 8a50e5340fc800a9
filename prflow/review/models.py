"""What a review is made of: findings, dimensions, the plan, and the intake classification.

Findings carry the review's own severity scale (critical to nitpick), which
drives the review event; the impact layer's high/medium/low findings are
translated into it by :mod:`prflow.review.static_findings`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class ReviewSeverity(StrEnum):
    critical = "critical"
    important = "important"
    suggestion = "suggestion"
    nitpick = "nitpick"


SEVERITY_RANK: dict[ReviewSeverity, int] = {
    ReviewSeverity.critical: 0,
    ReviewSeverity.important: 1,
    ReviewSeverity.suggestion: 2,
    ReviewSeverity.nitpick: 3,
}


def one_level_down(severity: ReviewSeverity) -> ReviewSeverity:
    """The next milder severity (nitpick stays nitpick)."""
    order = sorted(SEVERITY_RANK, key=SEVERITY_RANK.__getitem__)
    return order[min(SEVERITY_RANK[severity] + 1, len(order) - 1)]


class FindingCategory(StrEnum):
    correctness = "correctness"
    security = "security"
    reliability = "reliability"
    performance = "performance"
    compatibility = "compatibility"
    tests = "tests"
    docs = "docs"
    maintainability = "maintainability"
    style = "style"


class DiffSide(StrEnum):
    """GitHub's names for the two sides of a diff: RIGHT is the head, LEFT the base."""

    right = "RIGHT"
    left = "LEFT"


class FindingSource(StrEnum):
    """Which part of the review produced a finding."""

    static = "static"
    reviewer = "reviewer"
    investigation = "investigation"
    gap_reviewer = "gap_reviewer"
    cross_ref = "cross_ref"
    adversary = "adversary"


class ReviewFinding(BaseModel):
    """One issue at one place, before scoring.

    ``origin`` says who wrote ``title``/``body``/``suggestion``: ``model`` text
    is advice whose cited evidence was checked in code; ``prflow`` text was
    written by the static analyzers.
    """

    file: str
    line_start: int = Field(ge=1)
    line_end: int = Field(ge=1)
    side: DiffSide = DiffSide.right
    severity: ReviewSeverity
    category: FindingCategory
    title: str
    body: str
    suggestion: str | None = Field(
        default=None, description="Replacement for lines line_start..line_end at head"
    )
    evidence: str = ""
    confidence: float = Field(ge=0.0, le=1.0)
    dimension_id: str
    dimension_name: str
    source: FindingSource
    origin: Literal["model", "prflow"] = "model"
    file_level: bool = Field(default=False, description="About the whole file, not a line")
    anchor: str = Field(default="", description="Whitespace-normalised text of line_end")
    fingerprint: str = Field(default="", description="Stable id across runs; see fingerprints")


class Dimension(BaseModel):
    """One aspect of this PR to review: a crafted prompt for the one reviewer definition."""

    id: str
    name: str
    prompt: str
    target_files: list[str]
    context_files: list[str] = Field(default_factory=list)
    priority: int = Field(default=3, ge=1, le=5, description="1 is most important")
    source: FindingSource = FindingSource.reviewer


class ReviewPlan(BaseModel):
    dimensions: list[Dimension] = Field(default_factory=list)
    cross_ref_hints: list[str] = Field(default_factory=list)
    ai_adjusted: bool = False
    origin: Literal["model", "prflow"] = "model"
    notes: list[str] = Field(
        default_factory=list, description="What code changed in the submitted plan, and why"
    )


class ReviewDepth(StrEnum):
    quick = "quick"
    standard = "standard"
    deep = "deep"


DIMENSIONS_BY_DEPTH: dict[ReviewDepth, tuple[int, int]] = {
    ReviewDepth.quick: (2, 3),
    ReviewDepth.standard: (3, 6),
    ReviewDepth.deep: (8, 12),
}
"""How many review dimensions a plan has at each depth: (fewest, most)."""


class AiSignal(BaseModel):
    """One code signal of AI-generated code, scored 0..1 with what it saw."""

    name: str
    score: float = Field(ge=0.0, le=1.0)
    detail: str


class IntakeResult(BaseModel):
    """How the PR is classified; drives the plan. ``ai_generated`` is computed in code."""

    pr_type: str = "mixed"
    complexity: str = "standard"
    languages: list[str] = Field(default_factory=list)
    areas_touched: list[str] = Field(default_factory=list)
    risk_signals: list[str] = Field(default_factory=list)
    ai_generated: float = Field(default=0.0, ge=0.0, le=1.0)
    ai_signals: list[AiSignal] = Field(default_factory=list)
    confident: bool = True
    escalated: bool = False
    origin: Literal["model", "prflow"] = "prflow"


class SemanticAnatomy(BaseModel):
    """The model's reading of the change (all model-written text)."""

    narrative: str = ""
    risk_surfaces: list[str] = Field(default_factory=list)
    unrelated_changes: list[str] = Field(default_factory=list)
    intent_gaps: list[str] = Field(default_factory=list)
    context_notes: str = ""


class PrMetadata(BaseModel):
    """What the intake reads besides the code: the PR's own words and its commits."""

    title: str = ""
    body: str = ""
    labels: list[str] = Field(default_factory=list)
    author: str = ""
    commits: list[str] = Field(default_factory=list, description="Commit subjects, oldest first")
