"""Whether a finding still holds at a new head: the code its thread cites is still there.

A finding's fingerprint is its file, category and the text of the line it
points at (:mod:`prflow.review.fingerprints`): that line, read at the commit the
comment was posted on (GitHub's ``original_commit_id`` and ``original_line``),
is the anchor; the diff hunk, which GitHub ends at the commented line, stands
in when that commit cannot be read. When no line of the file at the new head reads as that line did
(whitespace aside), or the file is gone, the push changed the cited code and
the finding no longer holds. When the anchor is unknown, the finding is kept.
"""

from __future__ import annotations

from prflow.impact.evidence import normalise_whitespace

CONTEXT_LINES = 6


def anchor_of_hunk(diff_hunk: str | None) -> str:
    """The cited line's text: the last line of a review comment's diff hunk, sign removed."""
    lines = [line for line in (diff_hunk or "").split("\n") if line and not line.startswith("@@")]
    if not lines:
        return ""
    last = lines[-1]
    return normalise_whitespace(last[1:] if last[:1] in "+- " else last)


def anchor_at(text: str | None, line: int | None) -> str | None:
    """The text of line ``line`` (1-based) of ``text``, or None when there is no such line."""
    if text is None or not line:
        return None
    lines = text.split("\n")
    return normalise_whitespace(lines[line - 1]) if 0 < line <= len(lines) else None


def finding_holds(anchor: str, text_at_head: str | None) -> bool:
    """Whether the cited line is still in the file at the new head."""
    if text_at_head is None:
        return False
    if not anchor:
        return True
    return any(normalise_whitespace(line) == anchor for line in text_at_head.split("\n"))


def hunk_at_head(text_at_head: str | None, anchor: str, line: int | None) -> str:
    """The cited code at the head, numbered: around the anchor's line (or ``line``)."""
    if text_at_head is None:
        return "(the file no longer exists at the current head)"
    lines = text_at_head.split("\n")
    at = next(
        (i for i, text in enumerate(lines) if anchor and normalise_whitespace(text) == anchor),
        (line - 1) if line else None,
    )
    if at is None:
        at = 0
    start, end = max(0, at - CONTEXT_LINES), min(len(lines), at + CONTEXT_LINES + 1)
    width = len(str(end))
    return "\n".join(f"{n + 1:>{width}} | {lines[n]}" for n in range(start, end))
