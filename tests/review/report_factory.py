"""Review reports for renderer tests: placed findings of every kind, built without a run."""

from __future__ import annotations

from typing import Any

from prflow.impact.models import RiskAssessment, RiskLevel
from prflow.pr_identifier import PullRequestRef
from prflow.review.anatomy import DiffStats
from prflow.review.diff_map import Placement, PlacementKind
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    IntakeResult,
    ReviewDepth,
    ReviewSeverity,
)
from prflow.review.report import ReviewReport, StructureSummary
from prflow.review.reviewable import NotReviewed, SkipReason
from prflow.review.stage_models import PhaseOutcome
from prflow.review.synthesis import ReviewEvent, ScoredFinding
from prflow.run_progress import PhaseState

HEAD = "b" * 40


def scored(
    title: str,
    *,
    number: int = 1,
    inline: bool = True,
    exact: bool = True,
    side: DiffSide = DiffSide.right,
    suggestion: str | None = None,
    severity: ReviewSeverity = ReviewSeverity.important,
    origin: str = "model",
    **extra: Any,
) -> ScoredFinding:
    placement = (
        Placement(kind=PlacementKind.inline, path="app/x.py", line=number, side=side, exact=exact)
        if inline
        else Placement(kind=PlacementKind.body, reason="app/y.py is not changed in this PR")
    )
    return ScoredFinding(
        file="app/x.py" if inline else "app/y.py",
        line_start=number,
        line_end=number,
        side=side,
        severity=severity,
        category=FindingCategory.correctness,
        title=title,
        body=extra.pop("body", f"Why {title} matters."),
        suggestion=suggestion,
        evidence="x = 1",
        confidence=0.8,
        dimension_id="d1",
        dimension_name="Money handling",
        source=FindingSource.reviewer,
        origin=origin,  # type: ignore[arg-type]
        fingerprint=f"{number:016x}",
        score=0.56,
        placement=placement,
        **extra,
    )


def make_report(findings: list[ScoredFinding], **extra: Any) -> ReviewReport:
    values: dict[str, Any] = {
        "workflow_id": "review:acme/api#7",
        "repo": "https://example.invalid/acme/api.git",
        "pull_request": PullRequestRef(owner="acme", repo="api", number=7),
        "base_sha": "a" * 40,
        "head_sha": HEAD,
        "depth": ReviewDepth.standard,
        "event": ReviewEvent.comment,
        "complete": True,
        "used_model": True,
        "risk": RiskAssessment(score=40, level=RiskLevel.medium, factors=[]),
        "intake": IntakeResult(pr_type="feature"),
        "structure": StructureSummary(stats=DiffStats(), clusters=[], blast_radius_total=0),
        "phases": [
            PhaseOutcome(name="reviewers", state=PhaseState.done),
            PhaseOutcome(name="adversary", state=PhaseState.done),
        ],
        "findings": findings,
        "not_reviewed": [
            NotReviewed(path="yarn.lock", reason=SkipReason.generated),
            NotReviewed(path="big.sql", reason=SkipReason.size, detail="4000 changed lines"),
        ],
    }
    values.update(extra)
    return ReviewReport(**values)
