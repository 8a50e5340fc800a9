"""Arguments and results of the impact activities, and the stored static findings."""

from __future__ import annotations

from typing import Any

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
from prflow.impact.models import LlmFinding, LlmOutcome
from prflow.impact.run_models import ChangeSet
from prflow.pr_identifier import PullRequestRef
from prflow.repo_models import ResolvedRange


class StaticFindings(BaseModel):
    """Everything the static analyzers found; stored as one blob."""

    breaking_changes: list[BreakingChange] = Field(default_factory=list)
    test_gaps: list[TestGap] = Field(default_factory=list)
    coverage: CoverageSummary = Field(default_factory=CoverageSummary)
    stale_docs: list[StaleDocRef] = Field(default_factory=list)
    impact_graph: ImpactGraph = Field(default_factory=ImpactGraph)
    config_changes: list[ConfigChange] = Field(default_factory=list)
    not_analysed: list[NotAnalysed] = Field(default_factory=list)
    type_judge: str | None = None


class StaticInput(BaseModel):
    range: ResolvedRange
    changes: ChangeSet


class LlmContextInput(BaseModel):
    range: ResolvedRange
    changes: ChangeSet
    static_key: str


class VerifyInput(BaseModel):
    range: ResolvedRange
    submitted: dict[str, Any]


class VerifyResult(BaseModel):
    kept: list[LlmFinding] = Field(default_factory=list)
    rejected: list[str] = Field(default_factory=list)


class BuildReportInput(BaseModel):
    range: ResolvedRange
    pull_request: PullRequestRef | None
    changes: ChangeSet
    static_key: str
    llm: LlmOutcome
    workflow_id: str
