"""One inline review comment: severity marker, title, body, a committable suggestion, credit.

A suggestion is offered as GitHub's ``suggestion`` block (one click commits
it) only when the comment covers exactly the lines the suggestion replaces,
on the head side; otherwise it is shown as ordinary code, since committing it
would replace the wrong lines.
"""

from __future__ import annotations

from prflow.review.fingerprints import fingerprint_marker
from prflow.review.models import DiffSide
from prflow.review.render.text import SEVERITY_MARK, fenced, inert
from prflow.review.synthesis import ScoredFinding


def committable(finding: ScoredFinding) -> bool:
    placement = finding.placement
    return (
        finding.suggestion is not None
        and placement.inline
        and placement.exact
        and placement.side == DiffSide.right
        and finding.side == DiffSide.right
    )


def attribution(finding: ScoredFinding) -> str:
    """Who found it and how sure: the credit line under every comment."""
    parts = [f"Found by {inert(finding.dimension_name)}"]
    if finding.also_found_by:
        parts.append("also " + ", ".join(inert(name) for name in finding.also_found_by))
    parts.append(f"confidence {finding.confidence:.2f}")
    parts.append(finding.category.value)
    if finding.verdict_reason:
        parts.append(f"adversary: {inert(finding.verdict_reason)}")
    parts.append("model-written" if finding.origin == "model" else "computed by prflow")
    return " · ".join(parts)


def inline_comment(finding: ScoredFinding) -> str:
    title = inert(finding.title)
    severity = finding.severity.value
    lines = [
        f"**{SEVERITY_MARK[severity]} {severity.capitalize()}: {title}**",
        "",
        inert(finding.body),
    ]
    if finding.suggestion is not None:
        lines.append("")
        if committable(finding):
            lines.append(fenced(finding.suggestion, "suggestion"))
        else:
            lines.append("A possible fix (not committable from here):")
            lines.append(fenced(finding.suggestion))
    lines += ["", f"<sub>{attribution(finding)}</sub>", fingerprint_marker(finding.fingerprint)]
    return "\n".join(lines)
