"""Checks that a model finding quotes text that really is at the line it cites.

A finding survives only when its file exists at the cited ref, its line is in
range, and its evidence (whitespace-normalised) appears on that line or within
two lines of it. Anything else is dropped with a reason the report shows, so
an invented finding can never reach a reviewer or the risk score.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from prflow.impact.models import LlmFinding

LINE_TOLERANCE = 2
MIN_EVIDENCE_CHARS = 3

_WHITESPACE = re.compile(r"\s+")

ReadAtRef = Callable[[str, str], str | None]
"""(ref, path) -> file text at that ref, or None when the file does not exist there."""


def normalise_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def verify_finding(finding: LlmFinding, text_at_ref: str | None) -> str | None:
    """None when the evidence checks out against ``text_at_ref``; else why it was rejected."""
    where = f"{finding.file}:{finding.line} at {finding.ref}"
    if text_at_ref is None:
        return f"{finding.file} does not exist at {finding.ref}"
    lines = text_at_ref.splitlines()
    if finding.line > len(lines):
        return f"{where}: line is past the end of the file ({len(lines)} lines)"
    evidence = normalise_whitespace(finding.evidence)
    if len(evidence) < MIN_EVIDENCE_CHARS:
        return f"{where}: evidence is too short to verify ({finding.evidence!r})"
    start = max(0, finding.line - 1 - LINE_TOLERANCE)
    window = lines[start : finding.line + LINE_TOLERANCE]
    if evidence in normalise_whitespace(" ".join(window)):
        return None
    return f"{where}: quoted evidence not found within {LINE_TOLERANCE} lines of the cited line"


def partition_findings(
    findings: Iterable[LlmFinding], read: ReadAtRef
) -> tuple[list[LlmFinding], list[str]]:
    """Split findings into verified ones and rejection messages (one per dropped finding)."""
    kept: list[LlmFinding] = []
    rejected: list[str] = []
    for finding in findings:
        reason = verify_finding(finding, read(finding.ref, finding.file))
        if reason is None:
            kept.append(finding)
        else:
            rejected.append(f"{finding.title}: {reason}")
    return kept, rejected
