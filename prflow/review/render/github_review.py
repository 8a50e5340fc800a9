"""The one GitHub review a run posts: its event, its body and its inline comments.

Only findings placed on a diff line become inline comments (at most
:data:`MAX_INLINE_COMMENTS`, highest scores first); every other finding is
listed in the body with the reason it is there, so nothing is dropped and
nothing is sent that GitHub would refuse.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from prflow.review.render.inline import inline_comment
from prflow.review.render.text import SEVERITY_MARK, code_span, inert
from prflow.review.report import ReviewReport
from prflow.review.synthesis import ScoredFinding

MAX_INLINE_COMMENTS = 30
MAX_BODY_LISTED = 50
"""Findings listed one by one in the review body; the rest are counted by severity."""
BODY_LIMIT = 60_000
RUN_MARKER = "<!-- prflow:review-run {} -->"


class ReviewComment(BaseModel):
    """One entry of ``comments`` in GitHub's create-review request."""

    path: str
    line: int
    side: str
    start_line: int | None = None
    start_side: str | None = None
    body: str

    def as_request(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ReviewPayload(BaseModel):
    event: str
    body: str
    comments: list[ReviewComment] = Field(default_factory=list)
    fingerprints: list[str] = Field(default_factory=list, description="Every finding posted")


def run_marker(run: str, head_sha: str) -> str:
    """The hidden line naming the run (workflow and run id) and the head it reviewed."""
    return RUN_MARKER.format(f"{run}@{head_sha}")


def _comment(finding: ScoredFinding) -> ReviewComment:
    placement = finding.placement
    assert placement.line is not None
    side = placement.side.value
    return ReviewComment(
        path=placement.path,
        line=placement.line,
        side=side,
        start_line=placement.start_line,
        start_side=side if placement.start_line is not None else None,
        body=inline_comment(finding),
    )


def _listed(finding: ScoredFinding, why: str) -> str:
    lines = (
        f"{finding.line_start}"
        if finding.line_start == finding.line_end
        else f"{finding.line_start}-{finding.line_end}"
    )
    where = code_span(finding.file) if finding.file_level else code_span(f"{finding.file}:{lines}")
    mark = SEVERITY_MARK[finding.severity.value]
    credit = f"<sub>({why}; {inert(finding.dimension_name)})</sub>"
    summary = inert(_first_paragraph(finding.body))
    return f"- {mark} **{inert(finding.title)}** — {where} {credit}\n  {summary}"


def _first_paragraph(text: str, limit: int = 400) -> str:
    first = text.strip().split("\n\n", 1)[0].replace("\n", " ")
    return first if len(first) <= limit else first[: limit - 1] + "…"


def inline_cap_note(findings: list[ScoredFinding]) -> list[str]:
    """The line saying how many findings placed on the diff went to the body instead."""
    over = sum(1 for f in findings if f.placement.inline) - MAX_INLINE_COMMENTS
    if over <= 0:
        return []
    return [f"{over:,} findings past the {MAX_INLINE_COMMENTS} inline comments listed in the body"]


def review_payload(report: ReviewReport, marker: str) -> ReviewPayload:
    """The review to post; ``marker`` (hidden in the body) lets a retried post find it."""
    inline = [f for f in report.findings if f.placement.inline][:MAX_INLINE_COMMENTS]
    inline_ids = {id(f) for f in inline}
    elsewhere = [f for f in report.findings if id(f) not in inline_ids]
    counts = _severity_counts(report.findings)
    lines = [f"### prflow review: {_event_words(report)}", ""]
    if counts:
        lines.append(f"{len(report.findings)} findings: {counts}. Details in the summary comment.")
    else:
        lines.append("No findings worth your time.")
    if not report.complete:
        lines += ["", f"> **Incomplete review.** Cut short: {', '.join(report.cut_phases)}."]
    if not report.used_model:
        lines += ["", "> Static mode: no model ran; findings come from prflow's analyzers only."]
    if report.reviewed_from_sha:
        lines += ["", f"Reviewed the commits after {report.reviewed_from_sha[:12]} only."]
    if report.folded:
        lines += ["", "Folded to stay readable: " + "; ".join(report.folded) + "."]
    if report.placement_note:
        lines += ["", f"Comment placement: {inert(report.placement_note)}."]
    if elsewhere:
        lines += ["", "#### Findings not on a diff line", ""]
        for finding in elsewhere[:MAX_BODY_LISTED]:
            why = (
                finding.placement.reason
                if not finding.placement.inline
                else "over the inline comment limit"
            )
            lines.append(_listed(finding, why))
        rest = elsewhere[MAX_BODY_LISTED:]
        if rest:
            lines.append(
                f"- … and {len(rest):,} more ({_severity_counts(rest)}); "
                "every one is in the JSON and Markdown reports."
            )
    lines += ["", marker]
    body = "\n".join(lines)
    if len(body) > BODY_LIMIT:
        body = body[: BODY_LIMIT - 200].rsplit("\n", 1)[0]
        body += "\n\n_(list cut to fit GitHub's limit; see the JSON or Markdown report)_\n"
        body += marker
    return ReviewPayload(
        event=report.event.value,
        body=body,
        comments=[_comment(f) for f in inline],
        fingerprints=[f.fingerprint for f in report.findings],
    )


def _severity_counts(findings: list[ScoredFinding]) -> str:
    order = ("critical", "important", "suggestion", "nitpick")
    counts = {name: sum(1 for f in findings if f.severity.value == name) for name in order}
    return ", ".join(f"{n} {name}" for name, n in counts.items() if n)


def _event_words(report: ReviewReport) -> str:
    return {
        "REQUEST_CHANGES": "changes requested",
        "COMMENT": "comments",
        "APPROVE": "approved",
    }[report.event.value]
