"""The impact layer's findings as review findings: breaking changes, test gaps, stale docs.

These are computed, not model-written, so they carry full confidence and
``origin="prflow"``; they run in static mode too, which is what keeps a
review useful with no model configured. Config changes stay in the impact
risk score, not in the review: a changed CI file is not a defect.
"""

from __future__ import annotations

from prflow.analysis.findings import BreakingChange, BreakingKind, StaleDocRef, TestGap
from prflow.impact.evidence import normalise_whitespace
from prflow.impact.stage_inputs import StaticFindings
from prflow.render.markdown import KIND_LABEL, STALE_REASON_LABEL
from prflow.review.fingerprints import finding_fingerprint
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    ReviewFinding,
    ReviewSeverity,
)
from prflow.severity import Severity

STATIC_DIMENSION_ID = "static"
STATIC_DIMENSION_NAME = "prflow static analysis"
MAX_CONSUMERS_SHOWN = 8


def static_review_findings(static: StaticFindings) -> list[ReviewFinding]:
    """Every static finding worth a reviewer's attention, as a review finding."""
    found = [_breaking(change) for change in static.breaking_changes]
    found += [_test_gap(gap) for gap in static.test_gaps if not gap.tests_updated]
    found += [_stale_doc(ref) for ref in static.stale_docs]
    return found


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
