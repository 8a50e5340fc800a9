"""The parts of an impact run's result that a command reads back: the risk level, the
large-PR strategy and the model's outcome. Apart from :mod:`prflow.impact.models` (the whole
report), so a command that decodes a result loads none of the analyzers' finding models.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from prflow.severity import Severity


class RiskLevel(StrEnum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


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
