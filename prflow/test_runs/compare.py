"""Before/after per test: what the change broke, fixed, or left as it was.

With a JUnit report on both sides the comparison is per test; without one,
:func:`compare_counts` compares what is left (the exit status and the runner's
summary line) and says that it did.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from prflow.test_runs.models import Outcome, ResultBasis, TestComparison, TestCounts, TestOutcome


def compare(before: Sequence[TestOutcome], after: Sequence[TestOutcome]) -> TestComparison:
    """A test failing before and after is not the change's fault (``still_failing``); a test
    that passed before and did not run after is ``missing``."""
    was = {t.id: t for t in before}
    now = {t.id: t for t in after}
    regressions, new_failures, fixed, still = [], [], [], []
    for test_id, test in now.items():
        old = was.get(test_id)
        if test.failing:
            if old is None:
                new_failures.append(test_id)
            elif old.failing:
                still.append(test_id)
            else:
                regressions.append(test_id)
        elif old is not None and old.failing and test.outcome == Outcome.passed:
            fixed.append(test_id)
    missing = sorted(i for i, t in was.items() if i not in now and t.outcome == Outcome.passed)
    ran = [t for t in now.values() if t.outcome != Outcome.skipped]
    passed = sum(1 for t in ran if t.outcome == Outcome.passed)
    listed = {*regressions, *new_failures, *still, *missing}
    files = {i: (now.get(i) or was[i]).file for i in listed if (now.get(i) or was[i]).file}
    return TestComparison(
        regressions=sorted(regressions),
        new_failures=sorted(new_failures),
        fixed=sorted(fixed),
        still_failing=sorted(still),
        missing=missing,
        pass_rate_after=passed / len(ran) if ran else 1.0,
        files=files,
    )


class RunFacts(BaseModel):
    """One run as :func:`compare_counts` needs it."""

    exit_code: int | None
    timed_out: bool = False
    basis: ResultBasis
    counts: TestCounts = Field(default_factory=TestCounts)
    tests_found: int | None = None


def compare_counts(before: RunFacts, after: RunFacts) -> list[str]:
    """What got worse from ``before`` to ``after`` by exit status and counts (no test names):
    each problem as one line; empty when nothing did."""
    problems: list[str] = []
    if after.timed_out:
        return ["the tests ran past the time cap after the change"]
    if before.exit_code == 0 and after.exit_code != 0:
        problems.append(f"the test command exited {after.exit_code} after the change (0 before)")
    if ResultBasis.exit_status in (after.basis, before.basis):
        if before.exit_code != 0 and after.exit_code != 0:
            problems.append(
                "the test command failed before and after the change and printed no test "
                "counts: nothing tells whether more tests fail now"
            )
        return problems
    bad_before = before.counts.failed + before.counts.errors
    bad_after = after.counts.failed + after.counts.errors
    if bad_after > bad_before:
        problems.append(f"{bad_after - bad_before} more tests fail or error after the change")
    if after.counts.passed < before.counts.passed:
        problems.append(f"{before.counts.passed - after.counts.passed} fewer tests pass after")
    return problems


def step_start_unreadable(before: RunFacts) -> bool:
    """A step's tests already failed at the step's start and said nothing but their exit
    status (a sibling step running beside it, or one it waits for, has not landed yet).

    Nothing then tells what the step itself broke: its gate cannot judge it, and the run's
    final validation (the whole suite at the base against the merged result) decides.
    """
    return (
        before.basis == ResultBasis.exit_status
        and before.exit_code not in (0, None)
        and not before.timed_out
    )
