"""The sticky summary comment: one per PR, edited in place, carrying the review's state.

Its hidden state line records the head the review covered and every finding
posted so far, so the next run (on any machine, even a CI runner with an
empty store) reviews only newer commits and repeats nothing. It also says,
file by file, what was not reviewed and why.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, Field, ValidationError

from prflow.review.render.text import SEVERITY_MARK, code_span, inert
from prflow.review.report import ReviewReport
from prflow.review.reviewable import NotReviewed, SkipReason

REVIEW_COMMENT_MARKER = "<!-- prflow:review -->"
_STATE = "<!-- prflow:review-state {} -->"
_STATE_PATTERN = re.compile(r"<!-- prflow:review-state (\{.*?\}) -->")
MAX_NOT_REVIEWED_SHOWN = 100
MAX_FINDINGS_SHOWN = 20

SKIP_WORDS: dict[SkipReason, str] = {
    SkipReason.binary: "binary file",
    SkipReason.generated: "generated file",
    SkipReason.size: "too large to review line by line",
    SkipReason.budget: "no reviewer reached it within the budget",
    SkipReason.static_mode: "no model ran (static mode); only prflow's analyzers read it",
}


class ReviewState(BaseModel):
    """What the sticky comment remembers between runs."""

    head: str
    posted: list[str] = Field(default_factory=list)


def state_marker(state: ReviewState) -> str:
    return _STATE.format(json.dumps(state.model_dump(), separators=(",", ":")))


def read_state(body: str | None) -> ReviewState | None:
    match = _STATE_PATTERN.search(body or "")
    if match is None:
        return None
    try:
        return ReviewState.model_validate_json(match.group(1))
    except ValidationError:
        return None


def _money(usd: float) -> str:
    return f"${usd:.2f}" if usd >= 0.01 or usd == 0 else f"${usd:.4f}"


def summary_comment(report: ReviewReport, state: ReviewState) -> str:
    """The sticky comment: marker, hidden state, then the overview."""
    return "\n".join([REVIEW_COMMENT_MARKER, state_marker(state), "", *overview(report)]) + "\n"


def overview(report: ReviewReport, *, findings_table: bool = True) -> list[str]:
    """The review at a glance: verdict, scope, completeness, phases, coverage, reading."""
    lines: list[str] = []
    verdict = {
        "REQUEST_CHANGES": "changes requested",
        "COMMENT": "comments",
        "APPROVE": "approved",
    }[report.event.value]
    lines.append(f"## prflow review: {verdict}")
    lines.append("")
    listed = [*report.findings, *report.earlier_findings]
    counts = {s: sum(1 for f in listed if f.severity.value == s) for s in SEVERITY_MARK}
    shown = " · ".join(f"{SEVERITY_MARK[s]} {n} {s}" for s, n in counts.items() if n) or "none"
    inline = sum(1 for f in report.findings if f.placement.inline)
    lines.append(
        f"**Risk** {report.risk.score}/100 ({report.risk.level.value}) · **Findings** {shown} "
        f"· **Inline** {inline} · **Cost** {_money(report.cost_usd)}"
    )
    if report.folded:
        lines += ["", "Folded to stay readable: " + "; ".join(report.folded) + "."]
    if report.placement_note:
        lines += ["", f"Comment placement: {inert(report.placement_note)}."]
    if report.earlier_findings:
        lines += ["", f"{len(report.earlier_findings)} of these were posted by an earlier review."]
    lines.append("")
    if report.reviewed_from_sha:
        lines.append(
            f"Reviewed the commits {report.reviewed_from_sha[:12]}..{report.head_sha[:12]} "
            "(new since the last review)."
        )
    else:
        lines.append(f"Reviewed {report.base_sha[:12]}..{report.head_sha[:12]}.")
    if not report.complete:
        lines += ["", "> [!WARNING]", "> **This review is incomplete.**"]
        for phase in report.phases:
            if phase.name in report.cut_phases:
                lines.append(f"> - {phase.name}: {inert(phase.detail)}")
    if not report.used_model:
        lines += ["", "Static mode: the model phases were skipped; no model wrote anything here."]
    lines += _phases(report)
    lines += _not_reviewed(report)
    lines += _suppressed(report)
    lines += _conversation(report)
    lines += _reading(report)
    if findings_table:
        lines += _top_findings(report)
    return lines


def _phases(report: ReviewReport) -> list[str]:
    out = ["", "<details><summary>Phases</summary>", "", "| Phase | State | Detail | Spend |"]
    out.append("|---|---|---|---|")
    for phase in report.phases:
        detail = inert(phase.detail).replace("|", "\\|").replace("\n", " ")
        out.append(f"| {phase.name} | {phase.state.value} | {detail} | {_money(phase.spent.usd)} |")
    out += ["", "</details>"]
    return out


def _not_reviewed(report: ReviewReport) -> list[str]:
    """One line per reason with its count, the files in a collapsed list under it."""
    if not report.not_reviewed:
        return ["", "Every changed file was reviewed."]
    out = ["", f"### Not reviewed ({len(report.not_reviewed)} files)", ""]
    by_reason: dict[SkipReason, list[NotReviewed]] = {}
    for entry in report.not_reviewed:
        by_reason.setdefault(entry.reason, []).append(entry)
    for reason, entries in by_reason.items():
        noun = "file" if len(entries) == 1 else "files"
        out += [
            f"<details><summary>{len(entries)} {noun}: {SKIP_WORDS[reason]}</summary>",
            "",
        ]
        for entry in entries[:MAX_NOT_REVIEWED_SHOWN]:
            detail = f" ({inert(entry.detail)})" if entry.detail else ""
            out.append(f"- {code_span(entry.path)}{detail}")
        more = len(entries) - MAX_NOT_REVIEWED_SHOWN
        if more > 0:
            out.append(f"- … and {more} more (see the JSON report)")
        out += ["", "</details>", ""]
    return out[:-1]


def _suppressed(report: ReviewReport) -> list[str]:
    s = report.suppressed
    parts = [
        (s.already_posted, "already posted earlier"),
        (s.on_resolved_threads, "on threads you resolved"),
        (s.rebutted, "rebutted earlier (the cited code is unchanged)"),
        (s.merged_duplicates, "merged as duplicates"),
        (s.below_confidence, "below their severity's confidence floor"),
    ]
    shown = [f"{n} {words}" for n, words in parts if n]
    return ["", "Left out: " + "; ".join(shown) + "."] if shown else []


def _conversation(report: ReviewReport) -> list[str]:
    """What people made of this PR's findings so far (see ``prflow review stats``)."""
    counts = report.conversation
    parts = [
        (counts.get("accepted", 0), "accepted"),
        (counts.get("rebutted", 0), "rebutted"),
        (counts.get("fixed", 0), "fixed by a push"),
    ]
    if not any(n for n, _ in parts):
        return []
    return ["", "In the conversation: " + ", ".join(f"{n} {words}" for n, words in parts) + "."]


def _reading(report: ReviewReport) -> list[str]:
    intake = report.intake
    out = [
        "",
        "<details><summary>What this PR is</summary>",
        "",
        f"Classified as **{inert(intake.pr_type)}**, {inert(intake.complexity)} "
        f"({'model' if intake.origin == 'model' else 'computed'}). AI-generated likelihood from "
        f"code signals: {intake.ai_generated:.2f}.",
    ]
    if report.semantic is not None and report.semantic.narrative:
        out += ["", "_Model-written:_ " + inert(report.semantic.narrative)]
    if report.plan is not None and report.plan.dimensions:
        out += ["", "Review dimensions:"]
        out += [f"- {inert(d.name)} ({len(d.target_files)} files)" for d in report.plan.dimensions]
    out += ["", "</details>"]
    return out


def _top_findings(report: ReviewReport) -> list[str]:
    """This head's findings: new ones first, then those an earlier run posted (a rerun on
    the same head still lists them)."""
    listed = [(f, "") for f in report.findings]
    listed += [(f, " (posted earlier)") for f in report.earlier_findings]
    if not listed:
        return []
    out = ["", "### Findings", "", "| | Finding | Where |", "|---|---|---|"]
    for finding, note in listed[:MAX_FINDINGS_SHOWN]:
        where = code_span(f"{finding.file}:{finding.line_start}")
        title = inert(finding.title).replace("|", "\\|") + note
        out.append(f"| {SEVERITY_MARK[finding.severity.value]} | {title} | {where} |")
    more = len(listed) - MAX_FINDINGS_SHOWN
    if more > 0:
        out.append(f"| | … and {more} more in the review | |")
    return out
