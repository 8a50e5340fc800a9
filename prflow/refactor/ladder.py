"""The recovery ladder and the run's verdict, decided in code.

After each attempt of a task the workflow asks :func:`decide`: an attempt
that left the audit clean and regressed no mapped test is accepted (a step
waiting for a later step's files is not blamed for tests those files break);
otherwise the task is retried with its scope narrowed to the files the failure
points at (at most ``max_retries`` times); then a non-critical task is skipped
(its edits dropped) and a critical one is rolled back with every task that built
on it.

After the whole suite has run, :func:`verdict` says how the run ends. It is
*validated* only when the audit is clean and every test that passed before
still passes, with no new failure, error or collection error (tests failing
before and after are reported, not blamed), on a run that found tests. The
pass rate threshold (85 %) never lets a regression ship: it only bounds what
the ladder may give up to save the rest (:func:`may_give_up`): when at least
that share of the tests that passed before still pass, the steps the
regressions point at are given up and the rest validated again; below it the
change is broken too widely and the run aborts.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

PASS_RATE_THRESHOLD = 0.85

FOLLOWED = "rolled back with "
"""How a step that went only because another step failed says so (``rolled back with X``)."""


def followed(cause: str) -> str:
    """The reason of a step rolled back because step ``cause`` was."""
    return FOLLOWED + cause


def first_cause(failures: Sequence[str]) -> str:
    """The failure to name first: a step that failed for its own reason, not one that was
    only rolled back with it (``code-1: rolled back with tests-1`` says nothing of why)."""
    own = [f for f in failures if FOLLOWED not in f]
    return (own or list(failures))[0]


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
    waits_for: list[str] = Field(
        default_factory=list, description="Later steps whose files this step's edits need"
    )


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
    if not report.waits_for:  # until those steps land, their files may break these tests
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


class RunStatus(StrEnum):
    """How a run ends: the four outcomes (``static``: no model, nothing attempted)."""

    validated = "validated"
    aborted = "aborted"
    no_change = "no_change"
    static = "static"


class SuiteFacts(BaseModel):
    """The whole suite before and after, as the verdict needs it."""

    ran: bool = Field(description="False: a dry run (no test runs)")
    tests_before: int | None = Field(default=None, description="None: the run cannot tell")
    tests_after: int | None = None
    timed_out: bool = False
    regressions: list[str] = Field(
        default_factory=list, description="Tests that passed before and fail (or vanished) after"
    )
    basis: str = "junit"


class FinalFacts(BaseModel):
    """What the run did, for :func:`verdict`."""

    steps: int
    done: int
    changed_files: int
    critical_planned: int = 0
    critical_done: int = 0
    failures: list[str] = Field(default_factory=list, description="Why steps did not land")
    audit_errors: list[str] = Field(default_factory=list)
    cut: str = Field(default="", description="A budget or deadline that stopped the run")
    suite: SuiteFacts


class Verdict(BaseModel):
    status: RunStatus
    reason: str


def verdict(facts: FinalFacts) -> Verdict:
    """The run's outcome: validated only when nothing regressed (see the module's docstring)."""

    def aborted(reason: str) -> Verdict:
        return Verdict(status=RunStatus.aborted, reason=reason)

    if facts.cut:
        return aborted(facts.cut)
    first = f": {first_cause(facts.failures)}" if facts.failures else ""
    if facts.steps and not facts.done:
        return aborted(f"every step failed ({facts.steps} of {facts.steps}){first}")
    if facts.critical_planned and not facts.critical_done:
        return aborted(f"every critical step was given up ({facts.critical_planned}){first}")
    if not facts.changed_files:
        return Verdict(
            status=RunStatus.no_change,
            reason="every step finished without changing a file: nothing needed to change",
        )
    if facts.audit_errors:
        return aborted(
            f"the change leaves {len(facts.audit_errors)} audit errors: {facts.audit_errors[0]}"
        )
    suite = facts.suite
    if not suite.ran:
        return Verdict(status=RunStatus.validated, reason="audit clean; tests not run (dry run)")
    if suite.timed_out:
        return aborted("the suite ran past its time cap after the change")
    if suite.tests_before == 0 or suite.tests_after == 0:
        when = "before the change" if suite.tests_before == 0 else "after the change"
        return aborted(f"the test command found no tests {when}: nothing validates the change")
    if suite.regressions:
        shown = ", ".join(suite.regressions[:3]) + (" …" if len(suite.regressions) > 3 else "")
        return aborted(f"{len(suite.regressions)} tests regressed: {shown}")
    how = {
        "junit": "every test that passed before still passes",
        "summary": "no test count got worse (compared by the runner's summary line: no "
        "per-test report)",
        "exit_status": "the test command still succeeds (compared by exit status only: no "
        "per-test report or summary line)",
    }.get(suite.basis, "nothing regressed")
    return Verdict(status=RunStatus.validated, reason=f"audit clean; {how}")


def pass_rate(passed: int, failed: int) -> float | None:
    total = passed + failed
    return None if total == 0 else passed / total


def kept_rate(passed_before: int, regressions: int) -> float | None:
    """Share of the tests that passed before which still pass after."""
    if passed_before <= 0:
        return None
    return max(0.0, (passed_before - regressions) / passed_before)


def may_give_up(kept: float | None, threshold: float = PASS_RATE_THRESHOLD) -> bool:
    """Whether the ladder may give up the steps regressions point at and validate the rest:
    only while the regressions are narrow (at least ``threshold`` of the tests that passed
    before still pass). It never decides whether a regression ships: none does."""
    return kept is not None and kept >= threshold
