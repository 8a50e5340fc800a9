"""The PR generator, in code: pr-summary.md and validation-report.json from the run's facts.

The summary is what a reviewer reads first and what ``--open-pr`` posts as the
PR body: a title, what was done and why, the change list per task, the risk
(what was skipped or rolled back, regressions, pass rate, audit warnings) and
how to undo it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

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
    regressions: list[str] = Field(default_factory=list)
    fixed: list[str] = Field(default_factory=list)
    pass_rate: float | None = None
    tests_ran: bool = True
    sandbox: str = ""
    skipped_phases: list[str] = Field(default_factory=list)
    audit_warnings: list[str] = Field(default_factory=list)
    cost_usd: float = 0.0
    branch: str | None = None
    workflow_id: str = ""


def pr_title(directive: str) -> str:
    first = directive.strip().splitlines()[0] if directive.strip() else "Refactor"
    first = first.rstrip(".")
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1].rstrip() + "…"


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
    lines += ["", "## Changes", ""]
    for task in facts.tasks:
        files = ", ".join(f"`{f}`" for f in task.get("changed_files", [])) or "no files"
        lines.append(
            f"- **{task.get('title', task['task_id'])}** ({task['task_id']}, "
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
    if facts.tests_ran:
        rate = "n/a" if facts.pass_rate is None else f"{facts.pass_rate:.0%}"
        lines.append(
            f"- Tests: {_counts(facts.tests_before)} before, {_counts(facts.tests_after)} "
            f"after; pass rate {rate}" + (f" (sandbox: {facts.sandbox})" if facts.sandbox else "")
        )
    else:
        lines.append("- Tests were not run (dry run or no test command): validate before merging.")
    if facts.regressions:
        lines.append(f"- Regressions: {', '.join(facts.regressions[:20])}")
    if facts.fixed:
        lines.append(f"- Newly passing: {', '.join(facts.fixed[:20])}")
    troubled = [t for t in facts.tasks if t.get("status") != TaskStatus.done]
    for task in troubled:
        lines.append(f"- Task {task['task_id']} {task.get('status')}: {task.get('reason', '')}")
    for warning in facts.audit_warnings[:20]:
        lines.append(f"- Audit: {warning}")
    lines += ["", "## Rollback", ""]
    lines.append(_rollback(facts))
    lines += ["", f"<sub>prflow refactor run `{facts.workflow_id}`, ${facts.cost_usd:.2f}</sub>"]
    return "\n".join(lines) + "\n"


def _counts(counts: dict[str, int]) -> str:
    if not counts:
        return "none"
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()) if n)


def _rollback(facts: ReportFacts) -> str:
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
            "before": facts.tests_before,
            "after": facts.tests_after,
            "pass_rate": facts.pass_rate,
            "regressions": facts.regressions,
            "fixed": facts.fixed,
        },
        "audit": list(audit),
        "tasks": facts.tasks,
        "changed_files": facts.changed_files,
        "skipped_phases": facts.skipped_phases,
        "risk": risk_level(facts),
        "confidence": round(confidence, 3),
        "cost_usd": round(facts.cost_usd, 4),
    }
