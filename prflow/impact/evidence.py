"""Checks that a model finding quotes text that really is at the line it cites.

A finding survives only when its file exists at the cited ref, its line is in
range, and its evidence (whitespace-normalised) appears on that line or within
two lines of it. Anything else is dropped with a reason the report shows, so
an invented finding can never reach a reviewer or the risk score.

The cited path comes from model output, which text inside a pull request can
steer: a directory, ``../../etc/passwd``, a symlink out of the tree or a binary
file are all reasons to drop the finding, never errors that fail the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from prflow.impact.models import LlmFinding
from prflow.source_tree import looks_binary
from prflow.text_lines import split_lines
from prflow.tools.reader import ToolError

LINE_TOLERANCE = 2
MIN_EVIDENCE_CHARS = 3
MAX_REASON_CHARS = 400
"""Rejections travel in workflow payloads and reports; a hostile path must not bloat them."""

_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Unreadable:
    """Why a cited path cannot hold quoted evidence (refused, a directory, a binary file)."""

    reason: str


CitedText = str | Unreadable | None
"""The text of a cited file, why it cannot be checked, or None when it does not exist."""

ReadAtRef = Callable[[str, str], CitedText]
"""(ref, path) -> the cited file at that ref. May raise :class:`ToolError` for a refused path."""


def normalise_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def cited_text(data: bytes | None) -> CitedText:
    """File bytes as evidence can be checked against: text, or why not (binary)."""
    if data is None:
        return None
    if looks_binary(data):
        return Unreadable(f"is a binary file ({len(data)} bytes), which cannot hold quoted text")
    return data.decode("utf-8", errors="replace")


def verify_finding(finding: LlmFinding, text_at_ref: CitedText) -> str | None:
    """None when the evidence checks out against ``text_at_ref``; else why it was rejected."""
    path = _shown_path(finding.file)
    where = f"{path}:{finding.line} at {finding.ref}"
    if text_at_ref is None:
        return f"{path} does not exist at {finding.ref}"
    if isinstance(text_at_ref, Unreadable):
        return f"{path} at {finding.ref} {text_at_ref.reason}"
    lines = split_lines(text_at_ref)
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
        try:
            text = read(finding.ref, finding.file)
        except ToolError as refused:
            text = Unreadable(f"was refused: {refused.message}")
        reason = verify_finding(finding, text)
        if reason is None:
            kept.append(finding)
        else:
            rejected.append(_bounded(f"{finding.title}: {reason}"))
    return kept, rejected


def _bounded(reason: str) -> str:
    if len(reason) <= MAX_REASON_CHARS:
        return reason
    return reason[: MAX_REASON_CHARS - 1] + "…"


def _shown_path(path: str, limit: int = 120) -> str:
    """A cited path short enough for a reason line: its start and its end."""
    return path if len(path) <= limit else f"{path[: limit // 2]}…{path[-limit // 3 :]}"
