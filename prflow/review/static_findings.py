"""The impact layer's findings as review findings: breaking changes, test gaps, stale docs.

These are computed, not model-written, so they carry full confidence and
``origin="prflow"``; they run in static mode too, which is what keeps a
review useful with no model configured. Config changes stay in the impact
risk score, not in the review: a changed CI file is not a defect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, Field

from prflow.analysis.findings import BreakingChange, BreakingKind, StaleDocRef, TestGap
from prflow.impact.evidence import normalise_whitespace
from prflow.impact.stage_inputs import StaticFindings
from prflow.render.finding_labels import KIND_LABEL, STALE_REASON_LABEL
from prflow.review.fingerprints import finding_fingerprint
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    ReviewFinding,
    ReviewSeverity,
)
from prflow.review.reviewable import is_generated
from prflow.severity import Severity

STATIC_DIMENSION_ID = "static"
STATIC_DIMENSION_NAME = "prflow static analysis"
MAX_CONSUMERS_SHOWN = 8
FOLD_AFTER = {"test_gap": 5, "stale_doc": 10, "breaking": 20}
"""A rule with more findings than this becomes one finding: a count and the first files."""
FILES_SHOWN_WHEN_FOLDED = 5

T = TypeVar("T")


class StaticReview(BaseModel):
    """The static findings to review, and one line per rule whose findings were folded."""

    findings: list[ReviewFinding]
    folded: list[str] = Field(default_factory=list)


def static_review(static: StaticFindings) -> StaticReview:
    """Every static finding worth a reviewer's attention, as review findings; a rule that
    fires on many files (a 3,000-file change without test updates) is one finding."""
    folded: list[str] = []
    found: list[ReviewFinding] = []
    by_kind: dict[BreakingKind, list[BreakingChange]] = {}
    for change in static.breaking_changes:
        by_kind.setdefault(change.kind, []).append(change)
    for kind, changes in by_kind.items():
        label = KIND_LABEL[kind].capitalize()
        found += _folded(changes, ("breaking", label), _breaking, folded, lambda c: c.file)
    gaps = [g for g in static.test_gaps if not g.tests_updated and not is_generated(g.source_file)]
    rule = ("test_gap", "Changed without test updates")
    found += _folded(gaps, rule, _test_gap, folded, lambda g: g.source_file)
    rule = ("stale_doc", "Documentation names a moved or removed target")
    stale = [ref for ref in static.stale_docs if not is_generated(ref.doc_file)]
    found += _folded(stale, rule, _stale_doc, folded, lambda r: r.doc_file)
    return StaticReview(findings=found, folded=folded)


def _folded(
    items: Sequence[T],
    rule_label: tuple[str, str],
    one: Callable[[T], ReviewFinding],
    folded: list[str],
    file_of: Callable[[T], str],
) -> list[ReviewFinding]:
    rule, label = rule_label
    if len(items) <= FOLD_AFTER[rule]:
        return [one(item) for item in items]
    first = one(items[0])
    files = list(dict.fromkeys(file_of(item) for item in items))
    shown = ", ".join(f"`{path}`" for path in files[:FILES_SHOWN_WHEN_FOLDED])
    more = len(files) - FILES_SHOWN_WHEN_FOLDED
    title = f"{label} ({len(items):,} findings)"
    body = (
        f"{len(items):,} findings of one rule in {len(files):,} files, shown as one: "
        f"{shown}" + (f" and {more:,} more files." if more > 0 else ".") + "\n\n"
        f"The first of them: {first.body}"
    )
    folded.append(f"{len(items):,} “{label}” findings folded into one")
    anchor = f"folded {rule} {label}"
    return [
        first.model_copy(
            update={
                "title": title,
                "body": body,
                "file_level": True,
                "evidence": "",
                "anchor": anchor,
                "fingerprint": finding_fingerprint(first.file, first.category, anchor, rule),
            }
        )
    ]


def _breaking_severity(change: BreakingChange) -> ReviewSeverity:
    """Removing or renaming what other files use breaks them; a changed signature with
    callers probably does; the rest deserves a look."""
    if change.severity == Severity.high:
        return ReviewSeverity.critical if change.consumers else ReviewSeverity.important
    if change.severity == Severity.medium and change.consumers:
        return ReviewSeverity.important
    return ReviewSeverity.suggestion


def _breaking(change: BreakingChange) -> ReviewFinding:
    consumers = change.consumers[:MAX_CONSUMERS_SHOWN]
    more = len(change.consumers) - len(consumers)
    lines = [change.detail]
    if consumers:
        listed = ", ".join(f"`{path}`" for path in consumers)
        lines.append(f"Used by {listed}" + (f" and {more} more files." if more > 0 else "."))
    if change.before or change.after:
        lines.append(f"Before: `{change.before or '-'}`  \nAfter: `{change.after or '-'}`")
    removed = change.kind == BreakingKind.removed_export
    line = change.line or 1
    title = f"{KIND_LABEL[change.kind].capitalize()}: `{change.symbol}`"
    anchor = normalise_whitespace(f"{change.symbol} {change.kind.value}")
    return _static(
        file=change.file,
        line=line,
        side=DiffSide.left if removed else DiffSide.right,
        severity=_breaking_severity(change),
        category=FindingCategory.compatibility,
        title=title,
        body="\n\n".join(lines),
        evidence=(change.before if removed else change.after) or "",
        anchor=anchor,
        file_level=change.line is None,
    )


def _test_gap(gap: TestGap) -> ReviewFinding:
    if gap.existing_tests:
        tests = ", ".join(f"`{path}`" for path in gap.existing_tests[:MAX_CONSUMERS_SHOWN])
        body = f"This file changed but none of its tests did ({tests})."
    else:
        expected = ", ".join(f"`{path}`" for path in gap.expected_tests[:3]) or "a test file"
        body = f"This file changed and has no tests; expected one such as {expected}."
    return _static(
        file=gap.source_file,
        line=1,
        side=DiffSide.right,
        severity=ReviewSeverity.suggestion,
        category=FindingCategory.tests,
        title="Changed without test updates",
        body=body,
        evidence="",
        anchor="test-gap",
        file_level=True,
    )


def _stale_doc(ref: StaleDocRef) -> ReviewFinding:
    body = f"This line {STALE_REASON_LABEL[ref.reason]}: `{ref.target}`."
    if ref.replacement:
        body += f" It is now `{ref.replacement}`."
    return _static(
        file=ref.doc_file,
        line=ref.line,
        side=DiffSide.right,
        severity=ReviewSeverity.suggestion,
        category=FindingCategory.docs,
        title=f"Documentation names `{ref.target}`",
        body=body,
        evidence=ref.excerpt,
        anchor=normalise_whitespace(ref.excerpt),
        file_level=False,
    )


def _static(
    *,
    file: str,
    line: int,
    side: DiffSide,
    severity: ReviewSeverity,
    category: FindingCategory,
    title: str,
    body: str,
    evidence: str,
    anchor: str,
    file_level: bool,
) -> ReviewFinding:
    return ReviewFinding(
        file=file,
        line_start=line,
        line_end=line,
        side=side,
        severity=severity,
        category=category,
        title=title,
        body=body,
        evidence=evidence,
        confidence=1.0,
        dimension_id=STATIC_DIMENSION_ID,
        dimension_name=STATIC_DIMENSION_NAME,
        source=FindingSource.static,
        origin="prflow",
        file_level=file_level,
        anchor=anchor,
        fingerprint=finding_fingerprint(file, category, anchor, title),
    )
