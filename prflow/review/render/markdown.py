"""The review as a standalone Markdown report (mail, chat, the terminal): overview, then
every finding in full with its place, suggestion and credit."""

from __future__ import annotations

from prflow.review.render.inline import attribution
from prflow.review.render.summary import overview
from prflow.review.render.text import SEVERITY_MARK, code_span, fenced, inert
from prflow.review.report import ReviewReport
from prflow.review.synthesis import ScoredFinding


def _finding_section(number: int, finding: ScoredFinding) -> list[str]:
    mark = SEVERITY_MARK[finding.severity.value]
    side = "base" if finding.side.value == "LEFT" else "head"
    lines = (
        "whole file"
        if finding.file_level
        else f"lines {finding.line_start}-{finding.line_end}"
        if finding.line_start != finding.line_end
        else f"line {finding.line_start}"
    )
    placed = (
        f"inline at {finding.placement.path}:{finding.placement.line}"
        if finding.placement.inline
        else f"in the review body: {finding.placement.reason}"
    )
    out = [
        f"### {number}. {mark} {finding.severity.value}: {inert(finding.title)}",
        "",
        f"{code_span(finding.file)}, {lines} ({side}) · score {finding.score} · {placed}",
        "",
        inert(finding.body),
    ]
    if finding.suggestion is not None:
        out += ["", "Suggested change:", "", fenced(finding.suggestion)]
    out += ["", f"_{attribution(finding)}_", ""]
    return out


def render_review_markdown(report: ReviewReport) -> str:
    title = report.pull_request.slug if report.pull_request else report.repo
    lines = [f"# prflow review of {inert(title)}", "", *overview(report, findings_table=False)]
    if report.findings:
        lines += ["", f"## Findings ({len(report.findings)})", ""]
        for number, finding in enumerate(report.findings, 1):
            lines += _finding_section(number, finding)
    else:
        lines += ["", "## Findings", "", "None."]
    if report.rejected_findings:
        lines += ["", "## Model findings dropped (evidence not found)", ""]
        lines += [f"- {inert(reason)}" for reason in report.rejected_findings]
    lines += ["", f"_{report.text_origin_note}_", ""]
    return "\n".join(lines)
