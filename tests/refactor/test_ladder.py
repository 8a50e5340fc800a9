"""The recovery ladder: retry narrower up to --max-retries, then skip or roll back; abort < 85 %."""

from __future__ import annotations

from prflow.refactor.ladder import Action, AttemptReport, decide, verdict

FILES = ["storage/files.py", "app/service.py", "tests/test_files.py"]


def test_a_clean_attempt_is_accepted() -> None:
    report = AttemptReport(agent_completed=True, changed_files=["storage/files.py"], tests_ran=True)
    assert decide(report, attempt=1, max_retries=3, critical=True, task_files=FILES).action == (
        Action.accept
    )


def test_failures_retry_with_a_narrowed_scope_then_skip_or_roll_back() -> None:
    broken = AttemptReport(
        agent_completed=True,
        changed_files=["storage/files.py", "app/service.py"],
        audit_errors=["app/service.py: read() is async now; a caller uses it without await"],
        audit_files=["app/service.py"],
    )
    first = decide(broken, attempt=1, max_retries=3, critical=False, task_files=FILES)
    assert first.action == Action.retry
    assert first.narrowed_files == ["storage/files.py", "app/service.py"]
    assert "without await" in first.feedback
    assert decide(broken, attempt=3, max_retries=3, critical=False, task_files=FILES).action == (
        Action.retry
    )
    last = decide(broken, attempt=4, max_retries=3, critical=False, task_files=FILES)
    assert last.action == Action.skip and "after 4 attempts" in last.reason
    assert decide(broken, attempt=4, max_retries=3, critical=True, task_files=FILES).action == (
        Action.rollback
    )
    assert decide(broken, attempt=1, max_retries=0, critical=True, task_files=FILES).action == (
        Action.rollback
    )


def test_an_executor_that_stops_is_a_failure() -> None:
    stopped = AttemptReport(agent_completed=False, agent_detail="iteration cap")
    decision = decide(stopped, attempt=1, max_retries=3, critical=True, task_files=FILES)
    assert decision.action == Action.retry and "iteration cap" in decision.reason
    assert decision.narrowed_files == FILES


def test_the_run_aborts_below_85_percent() -> None:
    assert not verdict(passed=17, failed=3, regressions=3).aborted  # 85.0 % is not below
    low = verdict(passed=8, failed=2, regressions=2)
    assert low.aborted and low.pass_rate == 0.8 and "below 85%" in low.reason
    assert not verdict(passed=0, failed=0, regressions=0).aborted
    assert not verdict(passed=0, failed=5, regressions=0, tests_ran=False).aborted
