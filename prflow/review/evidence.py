"""A model finding survives only if the text it quotes is at the lines it cites.

The same rule as the impact analysis (whitespace-normalised evidence within
two lines of the cited range), applied to a range instead of one line. A
surviving finding gets its anchor (the text of its last line) and its
fingerprint, which identify it across runs.
"""

from __future__ import annotations

from prflow.impact.evidence import (
    LINE_TOLERANCE,
    MIN_EVIDENCE_CHARS,
    CitedText,
    Unreadable,
    normalise_whitespace,
)
from prflow.review.fingerprints import finding_fingerprint
from prflow.review.models import DiffSide, ReviewFinding
from prflow.text_lines import split_lines

MAX_REASON_CHARS = 300


def _short(path: str, limit: int = 100) -> str:
    return path if len(path) <= limit else f"{path[: limit // 2]}…{path[-limit // 3 :]}"


def verified(finding: ReviewFinding, text: CitedText) -> ReviewFinding | str:
    """The finding with its anchor and fingerprint, or why its evidence does not check out."""
    ref = "base" if finding.side == DiffSide.left else "head"
    where = f"{_short(finding.file)}:{finding.line_start} at {ref}"
    if text is None:
        return _reason(finding, f"{_short(finding.file)} does not exist at {ref}")
    if isinstance(text, Unreadable):
        return _reason(finding, f"{_short(finding.file)} at {ref} {text.reason}")
    lines = split_lines(text)
    if finding.line_start > len(lines):
        return _reason(finding, f"{where}: past the end of the file ({len(lines)} lines)")
    end = min(finding.line_end, len(lines))
    evidence = normalise_whitespace(finding.evidence)
    if len(evidence) < MIN_EVIDENCE_CHARS:
        return _reason(finding, f"{where}: no evidence quoted to check")
    window = lines[max(0, finding.line_start - 1 - LINE_TOLERANCE) : end + LINE_TOLERANCE]
    if evidence not in normalise_whitespace(" ".join(window)):
        return _reason(finding, f"{where}: quoted evidence not found at the cited lines")
    anchor = normalise_whitespace(lines[end - 1])
    return finding.model_copy(
        update={
            "line_end": end,
            "anchor": anchor,
            "fingerprint": finding_fingerprint(
                finding.file, finding.category, anchor, finding.title
            ),
        }
    )


def _reason(finding: ReviewFinding, why: str) -> str:
    text = f"{finding.title}: {why}"
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"
