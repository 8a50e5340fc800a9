"""The structured impact report: every analyzer fills a part, renderers read the whole.

This is the versioned JSON schema of ``prflow impact --format json``. Bump
``SCHEMA_VERSION`` on any incompatible change.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

SCHEMA_VERSION = "1.0"


class FileStatus(StrEnum):
    added = "added"
    modified = "modified"
    deleted = "deleted"
    renamed = "renamed"


class FileCategory(StrEnum):
    source = "source"
    test = "test"
    doc = "doc"
    config = "config"
    other = "other"


class Severity(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"


class ChangedFile(BaseModel):
    """One entry of ``list_changed_files``."""

    path: str
    status: FileStatus
    additions: int = 0
    deletions: int = 0
    old_path: str | None = Field(default=None, description="Previous path of a renamed file")
    binary: bool = False
    category: FileCategory = FileCategory.other


class BreakingKind(StrEnum):
    removed_export = "removed_export"
    renamed_export = "renamed_export"
    changed_signature = "changed_signature"
    changed_type = "changed_type"


SEVERITY_BY_KIND: dict[BreakingKind, Severity] = {
    BreakingKind.removed_export: Severity.high,
    BreakingKind.renamed_export: Severity.high,
    BreakingKind.changed_signature: Severity.medium,
    BreakingKind.changed_type: Severity.low,
}

Language = Literal["python", "javascript", "typescript"]


class BreakingChange(BaseModel):
    """A change to a public symbol that can break code importing it."""

    file: str
    symbol: str = Field(description="Dotted/qualified name, e.g. 'Client.fetch'")
    kind: BreakingKind
    severity: Severity
    language: Language
    detail: str = Field(
        description="One line a reviewer can read, e.g. 'parameter timeout became required'"
    )
    before: str | None = Field(default=None, description="Signature or declaration at base")
    after: str | None = Field(default=None, description="Signature or declaration at head")
    new_name: str | None = Field(default=None, description="For renames: the symbol's new name")
    line: int | None = Field(
        default=None, description="1-based line at head (at base when removed)"
    )
    consumers: list[str] = Field(default_factory=list, description="Files that use the symbol")


class TestGap(BaseModel):
    """A changed source file and what we know about its tests."""

    source_file: str
    expected_tests: list[str] = Field(description="Test paths the naming conventions predict")
    existing_tests: list[str] = Field(description="Tests found at head, by name or by import")
    tests_updated: bool = Field(
        description="True when one of the existing tests changed in this PR"
    )

    @property
    def test_exists(self) -> bool:
        return bool(self.existing_tests)


class CoverageSummary(BaseModel):
    changed_source_files: int = 0
    with_test_updates: int = 0

    @property
    def ratio(self) -> float:
        """Share of changed source files whose tests changed too (1.0 when none changed)."""
        if self.changed_source_files == 0:
            return 1.0
        return self.with_test_updates / self.changed_source_files


class StaleReason(StrEnum):
    removed_symbol = "removed_symbol"
    renamed_symbol = "renamed_symbol"
    deleted_path = "deleted_path"
    renamed_path = "renamed_path"


class StaleDocRef(BaseModel):
    doc_file: str
    line: int
    target: str = Field(description="The symbol or path the doc names")
    reason: StaleReason
    excerpt: str = Field(description="The doc line, trimmed")
    replacement: str | None = Field(default=None, description="New name or path when known")


class ImpactEdge(BaseModel):
    importer: str
    imported: str


class ImpactGraph(BaseModel):
    directly_changed: list[str] = Field(default_factory=list)
    indirectly_affected: list[str] = Field(
        default_factory=list,
        description="Transitive importers of changed files, not changed themselves",
    )
    edges: list[ImpactEdge] = Field(default_factory=list)


class ConfigTier(StrEnum):
    ci_build = "ci_build"
    deploy = "deploy"
    other = "other"
    env_or_lock = "env_or_lock"


CONFIG_TIER_SCORE: dict[ConfigTier, int] = {
    ConfigTier.ci_build: 100,
    ConfigTier.deploy: 75,
    ConfigTier.other: 50,
    ConfigTier.env_or_lock: 25,
}


class ConfigChange(BaseModel):
    path: str
    tier: ConfigTier
    score: int


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


class LlmStatus(StrEnum):
    completed = "completed"
    skipped = "skipped"
    stopped = "stopped"
    failed = "failed"


class LlmOutcome(BaseModel):
    status: LlmStatus
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


class PullRequestRef(BaseModel):
    owner: str
    repo: str
    number: int

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}#{self.number}"


class Totals(BaseModel):
    files: int = 0
    additions: int = 0
    deletions: int = 0


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
    large_pr: LargePrStrategy
    risk: RiskAssessment
    llm: LlmOutcome
    workflow_id: str | None = None
