"""The PR generator, in code: pr-summary.md and validation-report.json from the run's facts.

Every run that ends writes both, whatever its outcome. The summary is what a
reviewer reads first and what ``--open-pr`` posts as the PR body: a title, the
outcome and why, what was tried (the planner's attempts, each step with its
attempts and fate), the change list, the risk (what was given up, each
regressed test with its file and steps, how the suites were compared, audit
warnings) and how to undo it. An aborted run says why it stopped and that the
user's tree was not written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from prflow.refactor.blame import Regression
from prflow.refactor.plan import RefactorPlan
from prflow.refactor.schedule import TaskStatus

TITLE_CHARS = 72


class ReportFacts(BaseModel):
    """Everything the summary and the report say, gathered by the workflow."""

    directive: str
    repo: str
    base_sha: str
    status: str
    reason: str
    plan: RefactorPlan | None
    tasks: list[dict[str, Any]] = Field(default_factory=list)
    changed_files: list[str] = Field(default_factory=list)
    line_counts: dict[str, tuple[int, int]] = Field(default_factory=dict)
    tests_before: dict[str, int] = Field(default_factory=dict)
    tests_after: dict[str, int] = Field(default_factory=dict)
    regressions: list[Regression] = Field(default_factory=list)
    still_failing: list[str] = Field(
        default_factory=list, description="Failing before and after: reported, not blamed"
    )
    fixed: list[str] = Field(default_factory=list)
    pass_rate: float | None = None
    tests_ran: bool = True
    sandbox: str = ""
    basis: str = Field(default="junit", description="How before and after were compared")
    summary_lines: dict[str, list[str]] = Field(
        default_factory=dict, description="The runner's summary lines, before and after"
    )
    output_tail: str = Field(default="", description="The end of a failed test run's output")
    planner: list[dict[str, Any]] = Field(
        default_factory=list, description="Each planner attempt: its stop and what was refused"
    )
    given_up: list[str] = Field(
        default_factory=list, description="Steps the final validation gave up, with why"
    )
    skipped_phases: list[str] = Field(default_factory=list)
    audit_warnings: list[str] = Field(default_factory=list)
    cost_usd: float = 0.0
    branch: str | None = None
    workflow_id: str = ""


def pr_title(directive: str) -> str:
    first = directive.strip().splitlines()[0] if directive.strip() else "Refactor"
    first = first.rstrip(".")
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1].rstrip() + "…"


BASIS = {
    "junit": "per test (JUnit reports)",
    "summary": "by the runner's summary line and exit status (no per-test report came back)",
    "exit_status": "by exit status only (no per-test report and no summary line came back)",
}
HEADINGS = {
    "aborted": "Why it stopped",
    "no_change": "Why nothing changed",
    "static": "Why nothing changed",
}


def risk_level(facts: ReportFacts) -> str:
    troubled = [t for t in facts.tasks if t.get("status") != TaskStatus.done]
    if facts.status == "aborted" or facts.regressions:
        return "high"
    if troubled or not facts.tests_ran or len(facts.changed_files) > 20:
        return "medium"
    return "low"


def pr_summary(facts: ReportFacts) -> str:
    lines = [f"# {pr_title(facts.directive)}", ""]
    lines += ["## Summary", ""]
    lines.append(f"Directive: {facts.directive.strip()}")
    lines.append("")
    if facts.plan is not None and facts.plan.summary:
        lines += [facts.plan.summary.strip(), ""]
    lines.append(
        f"Status: **{facts.status}** ({facts.reason}). Base commit `{facts.base_sha[:12]}`; "
        f"{len(facts.changed_files)} files changed."
    )
    if facts.skipped_phases:
        lines.append(f"Skipped phases: {', '.join(facts.skipped_phases)}.")
    heading = HEADINGS.get(facts.status)
    if heading is not None:
        lines += ["", f"## {heading}", "", facts.reason[:1].upper() + facts.reason[1:] + "."]
        if facts.status == "aborted":
            lines.append("Nothing was written to your working tree, branch or PR.")
    lines += _tried(facts)
    lines += ["", "## Changes", ""]
    if not facts.tasks:
        lines.append("No step ran.")
    for task in facts.tasks:
        files = ", ".join(f"`{f}`" for f in task.get("changed_files", [])) or "no files"
        lines.append(
            f"- **{task.get('title') or task['task_id']}** ({task['task_id']}, "
            f"{task.get('status')}, {task.get('attempts', 0)} attempts): {files}"
        )
        if task.get("status") != TaskStatus.done and task.get("reason"):
            lines.append(f"  - {task['reason']}")
    if facts.changed_files:
        lines += ["", "| File | + | - |", "|---|---:|---:|"]
        for path in facts.changed_files:
            added, removed = facts.line_counts.get(path, (0, 0))
            lines.append(f"| `{path}` | {added} | {removed} |")
    lines += ["", "## Risk", ""]
    lines.append(f"Risk: **{risk_level(facts)}**.")
    lines += _tests(facts)
    troubled = [t for t in facts.tasks if t.get("status") != TaskStatus.done]
    for task in troubled:
        lines.append(f"- Task {task['task_id']} {task.get('status')}: {task.get('reason', '')}")
    for why in facts.given_up:
        lines.append(f"- Given up at the final validation: {why}")
    for warning in facts.audit_warnings[:20]:
        lines.append(f"- Audit: {warning}")
    lines += ["", "## Rollback", ""]
    lines.append(_rollback(facts))
    lines += ["", f"<sub>prflow refactor run `{facts.workflow_id}`, ${facts.cost_usd:.2f}</sub>"]
    return "\n".join(lines) + "\n"


def _tried(facts: ReportFacts) -> list[str]:
    """What the run attempted, for an outcome other than validated: the planner's attempts
    (with what the validator refused) and each step's attempts."""
    if facts.status == "validated" or not (facts.planner or facts.tasks):
        return []
    lines = ["", "## What was tried", ""]
    for attempt in facts.planner:
        refused = attempt.get("problems") or []
        what = f"refused: {'; '.join(refused[:5])}" if refused else attempt.get("result", "")
        lines.append(
            f"- Planner attempt {attempt.get('attempt')}: stopped by {attempt.get('stop')}"
            + (f"; {what}" if what else "")
        )
    for task in facts.tasks:
        lines.append(
            f"- Step {task['task_id']}: {task.get('attempts', 0)} attempts, "
            f"{task.get('status')}" + (f" ({task['reason']})" if task.get("reason") else "")
        )
    return lines


def _tests(facts: ReportFacts) -> list[str]:
    if not facts.tests_ran:
        return ["- Tests were not run (dry run or no test command): validate before merging."]
    rate = "n/a" if facts.pass_rate is None else f"{facts.pass_rate:.0%}"
    lines = [
        f"- Tests: {_counts(facts.tests_before)} before, {_counts(facts.tests_after)} after; "
        f"pass rate {rate}" + (f" (sandbox: {facts.sandbox})" if facts.sandbox else "")
    ]
    lines.append(f"- Compared {BASIS.get(facts.basis, facts.basis)}.")
    for when, summary in facts.summary_lines.items():
        if summary and facts.basis != "junit":
            lines.append(f"- Runner summary {when}: {' / '.join(summary)}")
    for regression in facts.regressions[:50]:
        lines.append(f"- Regressed: {regression.text()}")
    if len(facts.regressions) > 50:
        lines.append(f"- … and {len(facts.regressions) - 50} more regressed tests")
    if facts.still_failing:
        shown = ", ".join(facts.still_failing[:20])
        lines.append(f"- Failing before and after (not blamed on the change): {shown}")
    if facts.fixed:
        lines.append(f"- Newly passing: {', '.join(facts.fixed[:20])}")
    if facts.output_tail:
        lines += ["- The end of the test output after the change:", "", "```"]
        lines += [facts.output_tail, "```", ""]
    return lines


def _counts(counts: dict[str, int]) -> str:
    if not counts:
        return "none"
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()) if n)


def _rollback(facts: ReportFacts) -> str:
    if facts.status != "validated":
        return "Nothing to undo: no change was delivered."
    if facts.branch:
        return (
            f"The change is on branch `{facts.branch}`; delete it to drop the change "
            f"(`git branch -D {facts.branch}`), or after merging revert the merge commit "
            "(`git revert -m 1 <merge-sha>`)."
        )
    return (
        "Each file's patch is in `diffs/`. Undo an applied change with "
        "`git apply -R diffs/*.patch`, or `git checkout "
        f"{facts.base_sha[:12]} -- <files>` for single files; after merging, "
        "`git revert <commit>`."
    )


def validation_report(
    facts: ReportFacts, *, audit: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """The machine-readable record: tests, audit, per-task outcome and confidence."""
    done = sum(1 for t in facts.tasks if t.get("status") == TaskStatus.done)
    confidence = 0.0 if not facts.tasks else done / len(facts.tasks)
    if facts.pass_rate is not None:
        confidence *= facts.pass_rate
    if facts.status != "validated":
        confidence = 0.0
    return {
        "schema": "prflow.refactor.validation/1",
        "workflow_id": facts.workflow_id,
        "repo": facts.repo,
        "base_sha": facts.base_sha,
        "directive": facts.directive,
        "status": facts.status,
        "reason": facts.reason,
        "tests": {
            "ran": facts.tests_ran,
            "sandbox": facts.sandbox,
            "compared": facts.basis,
            "compared_how": BASIS.get(facts.basis, facts.basis) if facts.tests_ran else "",
            "before": facts.tests_before,
            "after": facts.tests_after,
            "summary_lines": facts.summary_lines,
            "pass_rate": facts.pass_rate,
            "regressions": [r.model_dump(mode="json") for r in facts.regressions],
            "still_failing": facts.still_failing,
            "fixed": facts.fixed,
            "output_tail": facts.output_tail,
        },
        "audit": list(audit),
        "planner": facts.planner,
        "tasks": facts.tasks,
        "given_up": facts.given_up,
        "changed_files": facts.changed_files,
        "skipped_phases": facts.skipped_phases,
        "risk": risk_level(facts),
        "confidence": round(confidence, 3),
        "cost_usd": round(facts.cost_usd, 4),
    }
