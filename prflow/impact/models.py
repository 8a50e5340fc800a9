"""The structured impact report: every analyzer fills a part, renderers read the whole.

This is the versioned JSON schema of ``prflow impact --format json``. Bump
``SCHEMA_VERSION`` on any incompatible change.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.analysis.findings import (
    BreakingChange,
    ConfigChange,
    CoverageSummary,
    ImpactGraph,
    NotAnalysed,
    StaleDocRef,
    TestGap,
)
from prflow.changes import ChangedFile, Totals
from prflow.impact.result_models import (
    MODEL_TEXT_NOTE,
    FindingCategory,
    LargePrStrategy,
    LlmFinding,
    LlmOutcome,
    LlmStatus,
    RiskLevel,
)
from prflow.pr_identifier import PullRequestRef

SCHEMA_VERSION = "1.0"

__all__ = [  # the result's parts live in result_models; importers here keep working
    "MODEL_TEXT_NOTE",
    "SCHEMA_VERSION",
    "FindingCategory",
    "ImpactReport",
    "LargePrStrategy",
    "LlmFinding",
    "LlmOutcome",
    "LlmStatus",
    "RiskAssessment",
    "RiskFactor",
    "RiskLevel",
]


class RiskFactor(BaseModel):
    name: str
    score: float = Field(ge=0, le=100)
    weight: float
    details: str


class RiskAssessment(BaseModel):
    score: int = Field(ge=0, le=100)
    level: RiskLevel
    factors: list[RiskFactor]


class ImpactReport(BaseModel):
    """Everything ``prflow impact`` knows about one change."""

    schema_version: str = SCHEMA_VERSION
    repo: str
    base_ref: str
    head_ref: str
    base_sha: str
    head_sha: str
    pull_request: PullRequestRef | None = None
    totals: Totals
    changed_files: list[ChangedFile]
    breaking_changes: list[BreakingChange] = Field(default_factory=list)
    test_gaps: list[TestGap] = Field(default_factory=list)
    coverage: CoverageSummary = Field(default_factory=CoverageSummary)
    stale_docs: list[StaleDocRef] = Field(default_factory=list)
    impact_graph: ImpactGraph = Field(default_factory=ImpactGraph)
    config_changes: list[ConfigChange] = Field(default_factory=list)
    not_analysed: list[NotAnalysed] = Field(
        default_factory=list,
        description="Files and objects the analyzers skipped (too large, unreadable, unresolvable)",
    )
    type_judge: str | None = Field(
        default=None,
        description="Who judged JS/TS type changes: a TypeScript compiler, or tree-sitter alone",
    )
    large_pr: LargePrStrategy
    risk: RiskAssessment
    llm: LlmOutcome
    workflow_id: str | None = None
