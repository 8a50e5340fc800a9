"""The one shape of a finding every review agent submits, and its parser.

Reviewers, investigators, gap reviewers, the adversary (for missed traps) and
the cross-reference resolver (for compound risks) all report findings in this
shape. Parsing bounds every model-written string and drops malformed items
with a reason; whether the cited evidence is really there is checked later,
against the repository, by the ingesting activity.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from prflow.impact.llm_phase import model_text
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    ReviewFinding,
    ReviewSeverity,
)

MAX_TITLE_CHARS = 200
MAX_BODY_CHARS = 3_000
MAX_SUGGESTION_CHARS = 4_000
MAX_EVIDENCE_CHARS = 500
MAX_PROBLEM_CHARS = 300
MAX_FINDINGS_PER_SUBMISSION = 25

FINDING_PROPERTIES: dict[str, Any] = {
    "file": {"type": "string", "description": "Repository-relative path"},
    "line_start": {"type": "integer", "minimum": 1},
    "line_end": {"type": "integer", "minimum": 1},
    "ref": {"type": "string", "enum": ["head", "base"]},
    "severity": {"type": "string", "enum": [s.value for s in ReviewSeverity]},
    "category": {"type": "string", "enum": [c.value for c in FindingCategory]},
    "title": {"type": "string"},
    "body": {"type": "string"},
    "suggestion": {
        "type": "string",
        "description": "Exact replacement for line_start..line_end at head (optional)",
    },
    "evidence": {"type": "string", "description": "Text copied exactly from a cited line"},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
}
FINDING_REQUIRED = ["file", "line_start", "severity", "category", "title", "body", "evidence"]
FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": FINDING_PROPERTIES,
    "required": FINDING_REQUIRED,
}


class _SubmittedFinding(BaseModel):
    file: str = Field(min_length=1)
    line_start: int = Field(ge=1)
    line_end: int | None = Field(default=None, ge=1)
    ref: str = "head"
    severity: ReviewSeverity
    category: FindingCategory = FindingCategory.correctness
    title: str = Field(min_length=1)
    body: str = ""
    suggestion: str | None = None
    evidence: str = ""
    confidence: float = Field(default=0.6, ge=0.0, le=1.0)


def parse_findings(
    raw: object,
    *,
    dimension_id: str,
    dimension_name: str,
    source: FindingSource,
    limit: int = MAX_FINDINGS_PER_SUBMISSION,
) -> tuple[list[ReviewFinding], list[str]]:
    """Typed findings from a submitted list, and why each malformed item was dropped."""
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], ["findings was not a list"]
    problems: list[str] = []
    if len(raw) > limit:
        problems.append(f"{len(raw) - limit} findings beyond the first {limit} were ignored")
    findings: list[ReviewFinding] = []
    for index, item in enumerate(raw[:limit]):
        try:
            submitted = _SubmittedFinding.model_validate(item)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            problems.append(model_text(f"finding {index + 1}: {where}: {first['msg']}", 300))
            continue
        findings.append(_finding(submitted, dimension_id, dimension_name, source))
    return findings, problems


def _finding(
    item: _SubmittedFinding, dimension_id: str, dimension_name: str, source: FindingSource
) -> ReviewFinding:
    start = item.line_start
    end = max(item.line_end or start, start)
    suggestion = item.suggestion
    if suggestion is not None:
        suggestion = suggestion.replace("\r\n", "\n")[:MAX_SUGGESTION_CHARS].rstrip("\n")
    return ReviewFinding(
        file=item.file.strip().removeprefix("./"),
        line_start=start,
        line_end=end,
        side=DiffSide.left if item.ref == "base" else DiffSide.right,
        severity=item.severity,
        category=item.category,
        title=model_text(item.title, MAX_TITLE_CHARS),
        body=model_text(item.body, MAX_BODY_CHARS),
        suggestion=suggestion or None,
        evidence=item.evidence[:MAX_EVIDENCE_CHARS],
        confidence=item.confidence,
        dimension_id=dimension_id,
        dimension_name=dimension_name,
        source=source,
        origin="model",
    )


def text_list(raw: object, *, limit: int, chars: int) -> list[str]:
    """A bounded list of model-written strings (non-strings and blanks dropped)."""
    if not isinstance(raw, list):
        raw = [raw] if isinstance(raw, str) else []
    items = [model_text(item, chars) for item in raw if isinstance(item, str)]
    return [item for item in items if item][:limit]


def path_list(raw: object, *, limit: int) -> list[str]:
    """Repository paths a model named: strings only, trimmed, at most ``limit``."""
    if not isinstance(raw, list):
        return []
    paths = [item.strip().removeprefix("./") for item in raw if isinstance(item, str)]
    return list(dict.fromkeys(p for p in paths if p))[:limit]
