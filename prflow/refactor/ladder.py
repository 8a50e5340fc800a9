"""The recovery ladder, decided in code: accept, retry narrower, skip, roll back, abort.

After each attempt of a task the workflow asks :func:`decide`: an attempt
that left the audit clean and regressed no mapped test is accepted; otherwise
the task is retried with its scope narrowed to the files the failure points at
(at most ``max_retries`` times); then a non-critical task is skipped (its edits
dropped) and a critical one is rolled back with every task that built on it.
After the whole suite has run, :func:`verdict` aborts the run below the pass
rate threshold (85 %), leaving the user's tree untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

PASS_RATE_THRESHOLD = 0.85


class Action(StrEnum):
    accept = "accept"
    retry = "retry"
    skip = "skip"
    rollback = "rollback"


class AttemptReport(BaseModel):
    """What one attempt of a task produced, as the ladder needs it."""

    agent_completed: bool
    agent_detail: str = ""
    changed_files: list[str] = Field(default_factory=list)
    audit_errors: list[str] = Field(default_factory=list)
    audit_files: list[str] = Field(default_factory=list, description="Files the errors are in")
    regressions: list[str] = Field(default_factory=list, description="Tests failing only after")
    regression_files: list[str] = Field(default_factory=list, description="Their test files")
    tests_ran: bool = False


class Decision(BaseModel):
    action: Action
    reason: str
    narrowed_files: list[str] = Field(default_factory=list)
    feedback: str = ""


def problems_of(report: AttemptReport) -> list[str]:
    """Why an attempt is not acceptable; empty when it is."""
    problems: list[str] = []
    if not report.agent_completed:
        problems.append(f"the executor did not finish ({report.agent_detail or 'stopped'})")
    problems += [f"audit: {e}" for e in report.audit_errors]
    problems += [f"test regressed: {t}" for t in report.regressions]
    return problems


def narrowed(task_files: Sequence[str], report: AttemptReport) -> list[str]:
    """The files a retry concentrates on: those the failure points at, within the task."""
    implicated = [*report.audit_files, *report.changed_files]
    keep = [f for f in task_files if f in implicated]
    return list(dict.fromkeys(keep)) or list(task_files)


def decide(
    report: AttemptReport,
    *,
    attempt: int,
    max_retries: int,
    critical: bool,
    task_files: Sequence[str],
) -> Decision:
    """The next rung for a task after attempt ``attempt`` (1-based)."""
    problems = problems_of(report)
    if not problems:
        return Decision(action=Action.accept, reason="audit clean, no mapped test regressed")
    reason = "; ".join(problems[:5])
    if attempt <= max_retries:
        files = narrowed(task_files, report)
        feedback = (
            f"The previous attempt of this task was rejected: {reason}. Start again from the "
            f"state before it. Concentrate on: {', '.join(files)}. Make the smallest edits that "
            "achieve the task and keep every caller consistent."
        )
        return Decision(action=Action.retry, reason=reason, narrowed_files=files, feedback=feedback)
    if not critical:
        return Decision(action=Action.skip, reason=f"skipped after {attempt} attempts: {reason}")
    return Decision(
        action=Action.rollback, reason=f"rolled back after {attempt} attempts: {reason}"
    )


class Verdict(BaseModel):
    aborted: bool
    pass_rate: float | None
    reason: str


def pass_rate(passed: int, failed: int) -> float | None:
    total = passed + failed
    return None if total == 0 else passed / total


def verdict(
    *,
    passed: int,
    failed: int,
    regressions: int,
    threshold: float = PASS_RATE_THRESHOLD,
    tests_ran: bool = True,
) -> Verdict:
    """Abort when the whole suite's pass rate after the change is below ``threshold``."""
    if not tests_ran:
        return Verdict(aborted=False, pass_rate=None, reason="tests were not run")
    rate = pass_rate(passed, failed)
    if rate is None:
        return Verdict(aborted=False, pass_rate=None, reason="the suite has no tests")
    if rate < threshold:
        return Verdict(
            aborted=True,
            pass_rate=rate,
            reason=f"pass rate {rate:.0%} after the change is below {threshold:.0%} "
            f"({failed} failing, {regressions} regressed)",
        )
    return Verdict(
        aborted=False,
        pass_rate=rate,
        reason=f"pass rate {rate:.0%} ({regressions} regressed)",
    )
