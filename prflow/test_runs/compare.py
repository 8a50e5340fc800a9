"""Before/after per test: what the change broke, fixed, or left as it was."""

from __future__ import annotations

from collections.abc import Sequence

from prflow.test_runs.models import Outcome, TestComparison, TestOutcome


def compare(before: Sequence[TestOutcome], after: Sequence[TestOutcome]) -> TestComparison:
    """A test failing before and after is not the change's fault (``still_failing``)."""
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
    ran = [t for t in now.values() if t.outcome != Outcome.skipped]
    passed = sum(1 for t in ran if t.outcome == Outcome.passed)
    return TestComparison(
        regressions=sorted(regressions),
        new_failures=sorted(new_failures),
        fixed=sorted(fixed),
        still_failing=sorted(still),
        missing=sorted(set(was) - set(now)),
        pass_rate_after=passed / len(ran) if ran else 1.0,
    )
