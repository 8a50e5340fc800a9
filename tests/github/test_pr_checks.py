"""Failing checks read from the loopback GitHub: check runs, statuses, job logs behind redirects."""

from __future__ import annotations

import pytest

from activities.github.checks import read_checks
from activities.github.pr_tools import failing_checks
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.checks import CiState
from prflow.pr_tools.checks_report import NO_LOG_NOTE
from tests.support.fake_github import FakeGitHub
from tests.support.pr_checks_runs import add_failing_job

PR = PullRequestRef(owner="octo-org", repo="service", number=5)
HEAD = "1" * 40  # the seeded PR's head commit


def test_a_pr_without_ci_gets_an_answer_not_an_error(fake_github_pr: FakeGitHub) -> None:
    report = failing_checks(PR, page=1, page_size=10)
    assert report.state == CiState.no_ci
    assert report.summary.startswith("No CI checks found for this commit.")
    assert report.failing_checks == []


def test_failing_jobs_logs_are_followed_through_the_redirect_and_parsed(
    fake_github_pr: FakeGitHub,
) -> None:
    fake = fake_github_pr
    fake.add_check_run("octo-org", "service", HEAD, "lint")
    add_failing_job(fake, "tests (3.11)", "pytest_default.log", "pytest")
    add_failing_job(fake, "web", "vitest.log", "npx vitest run")
    fake.add_check_run("octo-org", "service", "f" * 40, "old commit", conclusion="failure")
    fake.add_commit_status("octo-org", "service", HEAD, "ci/jenkins", "success")

    report = failing_checks(PR, page=1, page_size=10)

    assert report.state == CiState.failed
    assert (report.overview.passed, report.overview.failed) == (2, 2)
    assert [(c.name, c.failures) for c in report.failing_checks] == [
        ("tests (3.11)", 5),
        ("web", 2),
    ]
    assert report.failures.pagination.total_items == 7
    first = report.failures.items[0]
    assert (first.check, first.test, first.location) == (
        "tests (3.11)",
        "tests/unit/test_calc.py::test_add_is_wrong_on_purpose",
        "tests/unit/test_calc.py:11",
    )
    assert report.commands[-1] == (
        "npx vitest run src/__tests__/math.spec.ts -t '^clamp nested throws on inverted bounds$'"
    )
    redirects = fake.requests("GET", r"/actions/jobs/\d+/logs$")
    assert [r.status for r in redirects] == [302, 302]
    downloads = fake.requests("GET", r"^/_download/")
    assert [d.token for d in downloads] == [None, None]  # signed URL: no credentials sent


def test_a_running_check_keeps_ci_pending_and_an_expired_log_is_said(
    fake_github_pr: FakeGitHub,
) -> None:
    fake_github_pr.add_check_run("octo-org", "service", HEAD, "e2e", "in_progress", None)
    assert failing_checks(PR, page=1, page_size=10).state == CiState.pending

    fake_github_pr.add_check_run("octo-org", "service", HEAD, "unit", conclusion="failure")
    report = failing_checks(PR, page=1, page_size=10)
    assert report.state == CiState.failed
    assert [(c.name, c.note) for c in report.failing_checks] == [("unit", NO_LOG_NOTE)]
    assert fake_github_pr.requests("GET", r"/logs$")[-1].status == 410


def test_many_check_runs_are_read_across_pages(fake_github_pr: FakeGitHub) -> None:
    for index in range(130):
        fake_github_pr.add_check_run("octo-org", "service", HEAD, f"job {index}")
    snapshot = read_checks(PR)
    assert len(snapshot.checks) == 130
    assert snapshot.head_sha == HEAD


def test_unknown_pr_is_a_user_error(fake_github_pr: FakeGitHub) -> None:
    with pytest.raises(UserError, match="was not found"):
        failing_checks(PR.model_copy(update={"number": 404}), page=1, page_size=10)
