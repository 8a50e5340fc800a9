"""The structured impact report: every analyzer fills a part, renderers read the whole.

This is the versioned JSON schema of ``prflow impact --format json``. Bump
``SCHEMA_VERSION`` on any incompatible change.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

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
from prflow.pr_identifier import PullRequestRef
from prflow.severity import Severity

SCHEMA_VERSION = "1.0"


class RiskLevel(StrEnum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class RiskFactor(BaseModel):
    name: str
    score: float = Field(ge=0, le=100)
    weight: float
    details: str


class RiskAssessment(BaseModel):
    score: int = Field(ge=0, le=100)
    level: RiskLevel
    factors: list[RiskFactor]


class LargePrStrategy(BaseModel):
    """Which shortcuts a large PR triggered, so the report can say so."""

    changed_files: int
    read_full_files_only_above_lines: int | None = Field(
        default=None,
        description="Set when >30 files: full reads only for files with more changed lines",
    )
    source_files_only: bool = Field(default=False, description="Set when >50 files")
    doc_staleness_skipped: bool = False
    notes: list[str] = Field(default_factory=list)


class FindingCategory(StrEnum):
    breaking = "breaking"
    test_gap = "test_gap"
    stale_doc = "stale_doc"
    risk = "risk"
    other = "other"


MODEL_TEXT_NOTE = (
    "Model-written text: advice from the model, not prflow's verdict. The verdict is "
    "risk.score and risk.level, computed in code; nothing the model writes changes them."
)


class LlmFinding(BaseModel):
    """A finding the model added, kept only when its cited evidence exists."""

    title: str
    category: FindingCategory
    severity: Severity
    file: str
    line: int = Field(ge=1)
    ref: Literal["base", "head"] = "head"
    evidence: str = Field(description="Text quoted from the cited line(s)")
    explanation: str
    origin: Literal["model"] = Field(
        default="model",
        description="Title and explanation are model-written; the evidence was checked in code",
    )


class LlmStatus(StrEnum):
    completed = "completed"
    skipped = "skipped"
    stopped = "stopped"
    failed = "failed"


class LlmOutcome(BaseModel):
    status: LlmStatus
    text_origin: Literal["model"] = Field(
        default="model",
        description=f"Who wrote summary, recommendations and the findings' text. {MODEL_TEXT_NOTE}",
    )
    reason: str = ""
    model: str | None = None
    summary: str | None = None
    recommendations: list[str] = Field(default_factory=list)
    findings: list[LlmFinding] = Field(default_factory=list)
    rejected_findings: list[str] = Field(
        default_factory=list, description="Why each model finding without evidence was dropped"
    )
    iterations: int = 0
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


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
