"""CI state from check runs and statuses, when waiting may stop, and the report built on it."""

from __future__ import annotations

from prflow.pr_tools.checks import CheckInfo, CheckKind, CiState, overview, wait_is_over
from prflow.pr_tools.checks_report import NO_LOG_NOTE, NOTHING_PARSED_NOTE, checks_report
from prflow.pr_tools.ci_logs import parse_failures
from tests.pr_tools.actions_log import as_actions_log, sample


def _run(name: str, status: str = "completed", conclusion: str | None = "success") -> CheckInfo:
    return CheckInfo(name=name, kind=CheckKind.check_run, status=status, conclusion=conclusion)


def _status(name: str, state: str) -> CheckInfo:
    return CheckInfo(name=name, kind=CheckKind.status, status=state)


def test_no_checks_is_a_result_not_an_error() -> None:
    state = overview([])
    assert state.state == CiState.no_ci
    assert wait_is_over(state, bail_on_first=False)
    report = checks_report("o/r#1", "a" * 40, [], {})
    assert report.state == CiState.no_ci
    assert "No CI checks found" in report.summary


def test_any_failure_fails_and_running_checks_keep_it_pending_otherwise() -> None:
    running = overview([_run("lint"), _run("tests", "in_progress", None)])
    failed = overview([_run("tests", conclusion="timed_out"), _run("e2e", "queued", None)])
    legacy = overview([_run("lint"), _status("ci/jenkins", "error")])
    assert (running.state, running.waiting_on) == (CiState.pending, ["tests"])
    assert (failed.state, failed.failing, failed.pending) == (CiState.failed, ["tests"], 1)
    assert (legacy.state, legacy.failing) == (CiState.failed, ["ci/jenkins"])
    assert overview([_run("x", conclusion="neutral"), _run("y", conclusion="skipped")]).state == (
        CiState.passed
    )


def test_bail_on_first_stops_at_the_first_failure_otherwise_wait_for_all() -> None:
    failed_while_running = overview([_run("tests", conclusion="failure"), _run("e2e", "queued")])
    assert wait_is_over(failed_while_running, bail_on_first=True)
    assert not wait_is_over(failed_while_running, bail_on_first=False)
    assert not wait_is_over(overview([_run("e2e", "in_progress")]), bail_on_first=True)


def test_report_lists_failing_checks_parsed_failures_and_one_command_each() -> None:
    checks = [
        _run("unit (pytest)", conclusion="failure"),
        _run("lint", conclusion="failure"),
        _run("external", conclusion="failure"),
        _run("build"),
    ]
    parsed = {
        "unit (pytest)": parse_failures(as_actions_log(sample("pytest_default.log"), "pytest")),
        "lint": [],
        "external": None,
    }
    report = checks_report("o/r#1", "b" * 40, checks, parsed, page=1, page_size=2)

    assert report.state == CiState.failed
    assert [(c.name, c.failures, c.note) for c in report.failing_checks] == [
        ("unit (pytest)", 5, None),
        ("lint", 0, NOTHING_PARSED_NOTE),
        ("external", 0, NO_LOG_NOTE),
    ]
    assert [f.check for f in report.failures.items] == ["unit (pytest)"] * 2
    assert report.commands == [f.rerun for f in report.failures.items]
    assert report.failures.pagination.total_pages == 3
    assert (
        report.summary
        == "CI failed (1 passed, 3 failed, 0 pending); 5 failing tests found in the logs."
    )
