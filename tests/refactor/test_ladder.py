"""The recovery ladder (retry narrower up to --max-retries, then skip or roll back) and the
verdict: validated only when nothing regressed; the 85 % bounds only what may be given up."""

from __future__ import annotations

from prflow.refactor.ladder import (
    Action,
    AttemptReport,
    FinalFacts,
    RunStatus,
    SuiteFacts,
    decide,
    followed,
    kept_rate,
    may_give_up,
    verdict,
)

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


def test_a_step_waiting_for_a_later_step_is_not_blamed_for_its_mapped_tests() -> None:
    report = AttemptReport(
        agent_completed=True, regressions=["tests.test_api::test_get"], waits_for=["defs"]
    )
    assert decide(report, attempt=1, max_retries=0, critical=True, task_files=FILES).action == (
        Action.accept
    )
    alone = report.model_copy(update={"waits_for": []})
    assert decide(alone, attempt=1, max_retries=0, critical=True, task_files=FILES).action == (
        Action.rollback
    )


def run(**suite: object) -> FinalFacts:
    facts = {"ran": True, "tests_before": 100, "tests_after": 100, **suite}
    return FinalFacts(
        steps=3,
        done=3,
        changed_files=5,
        critical_planned=3,
        critical_done=3,
        suite=SuiteFacts.model_validate(facts),
    )


def test_one_regression_aborts_at_any_pass_rate_and_old_failures_are_not_blamed() -> None:
    one = verdict(run(regressions=["tests.test_a::test_x fails after (step core)"]))
    assert one.status == RunStatus.aborted and "1 tests regressed: tests.test_a" in one.reason
    assert verdict(run()).status == RunStatus.validated  # failing before and after: not listed
    assert verdict(run(tests_after=0)).status == RunStatus.aborted, "no tests: nothing validates"
    assert "found no tests" in verdict(run(tests_before=0)).reason
    by_summary = verdict(run(basis="summary"))
    assert by_summary.status == RunStatus.validated and "summary line" in by_summary.reason
    assert verdict(run(ran=False)).reason == "audit clean; tests not run (dry run)"


def test_the_four_outcomes_from_what_the_steps_did() -> None:
    def ending(**fields: object) -> RunStatus:
        base = run().model_dump()
        return verdict(FinalFacts.model_validate({**base, **fields})).status

    assert ending(done=0, failures=["core: the executor did not finish"]) == RunStatus.aborted
    assert ending(critical_done=0) == RunStatus.aborted, "only non-critical steps are left"
    assert ending(changed_files=0) == RunStatus.no_change
    assert ending(audit_errors=["app.py: imports x from y.py, which no longer defines it"]) == (
        RunStatus.aborted
    )
    assert ending(cut="the run's deadline passed with 2 of 3 steps unfinished") == (
        RunStatus.aborted
    )


def test_the_pass_rate_bounds_only_what_may_be_given_up() -> None:
    assert may_give_up(kept_rate(100, 15))  # 85 % of the passing tests still pass
    assert not may_give_up(kept_rate(100, 16))
    assert not may_give_up(kept_rate(0, 0)), "no passing test before: nothing to keep"


def test_an_abort_names_the_step_that_failed_not_one_rolled_back_with_it() -> None:
    failures = [
        f"code-1: {followed('tests-1')}",
        "tests-1: rolled back after 2 attempts: tests.test_io::test_read fails after",
    ]

    def reason(**fields: object) -> str:
        return verdict(FinalFacts.model_validate({**run().model_dump(), **fields})).reason

    assert reason(done=0, failures=failures) == f"every step failed (3 of 3): {failures[1]}"
    critical = reason(done=1, critical_done=0, failures=failures)
    assert critical.endswith(f"given up (3): {failures[1]}")
    only_followers = reason(done=0, failures=[failures[0]])
    assert only_followers.endswith(failures[0]), "with no own reason, the first is named"
