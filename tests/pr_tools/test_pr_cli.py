"""``prflow pr ...`` as a user runs it: tables, JSON, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from prflow.config import Settings
from tests.support.cli_runs import CliRun, client_environment, run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_TOKEN
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.pr_checks_runs import add_failing_job

PR = "octo-org/service#5"
HEAD = "1" * 40


def _env(fake: FakeGitHub, home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PRFLOW_", "GITHUB_", "GH_", "TEMPORAL_"))
    }
    return env | {
        "GITHUB_TOKEN": FAKE_GITHUB_TOKEN,
        "PRFLOW_GITHUB_API_URL": fake.api_url,
        "PRFLOW_DATA_DIR": str(home / "data"),
        "PRFLOW_CACHE_DIR": str(home / "cache"),
    }


def _one_error(run: CliRun, code: int) -> str:
    assert run.code == code, run.describe()
    (line,) = run.stderr_lines
    assert line.startswith("prflow: error: ")
    return line


async def test_comments_as_json_and_as_a_table(fake_github_pr: FakeGitHub, tmp_path: Path) -> None:
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [("alice", "Off by one?"), ("bob", "Fixed")]
    )
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "db.py", 9, [("coderabbitai[bot]", "Possible SQL injection")]
    )
    env = _env(fake_github_pr, tmp_path)

    as_json = await run_prflow("pr", "comments", PR, "--format", "json", env=env)
    table = await run_prflow("pr", "comments", PR, env=env)
    excluded = await run_prflow(
        "pr", "comments", PR, "--exclude-authors", "coderabbitai", "--format", "json", env=env
    )

    assert as_json.code == 0, as_json.describe()
    data = json.loads(as_json.stdout)
    assert data["unresolved_threads"] == 2
    assert data["threads"]["pagination"] == {
        "page": 1,
        "page_size": 20,
        "total_items": 2,
        "total_pages": 1,
        "has_next": False,
        "has_previous": False,
    }
    assert "octo-org/service#5: 2 unresolved of 2 review threads" in table.stdout
    assert "coderabbitai (bot)" in table.stdout and "app.py:3" in table.stdout
    assert json.loads(excluded.stdout)["unresolved_threads"] == 1


async def test_checks_show_failures_with_commands_and_exit_1(
    fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    add_failing_job(fake_github_pr, "unit", "pytest_default.log", "pytest")
    run = await run_prflow(
        "pr", "checks", PR, "--page-size", "2", env=_env(fake_github_pr, tmp_path)
    )

    assert run.code == 1, run.describe()
    assert (
        "CI failed (0 passed, 1 failed, 0 pending); 5 failing tests found in the logs."
        in run.stdout
    )
    assert "pytest tests/unit/test_calc.py::test_add_is_wrong_on_purpose -v" in run.stdout
    assert "page 1 of 3 (5 failures); next: --page 2" in run.stdout


async def test_no_ci_is_an_answer_with_exit_0(fake_github_pr: FakeGitHub, tmp_path: Path) -> None:
    run = await run_prflow(
        "pr", "checks", PR, "--format", "json", env=_env(fake_github_pr, tmp_path)
    )
    assert run.code == 0, run.describe()
    assert json.loads(run.stdout)["state"] == "no_ci"


async def test_stack_table(fake_github_pr: FakeGitHub, tmp_path: Path) -> None:
    run = await run_prflow("pr", "stack", PR, env=_env(fake_github_pr, tmp_path))
    assert run.code == 0, run.describe()
    assert "#5 is not stacked: its base 'main' is no other PR's head branch" in run.stdout


async def test_user_mistakes_are_one_line_with_exit_2(
    fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    env = _env(fake_github_pr, tmp_path)
    no_token = {k: v for k, v in env.items() if k != "GITHUB_TOKEN"}

    bad_id = await run_prflow("pr", "comments", "octo-org/service", env=env)
    bail_alone = await run_prflow("pr", "checks", PR, "--bail-on-first", env=env)
    missing = await run_prflow("pr", "stack", "octo-org/service#404", env=env)
    unauthenticated = await run_prflow("pr", "checks", PR, env=no_token)
    past_end = await run_prflow("pr", "comments", PR, "--page", "4", env=env)

    assert "Use owner/repo#123, owner/repo/pull/123 or https://" in _one_error(bad_id, 2)
    assert "--bail-on-first only applies with --wait" in _one_error(bail_alone, 2)
    assert "Pull request octo-org/service#404 was not found" in _one_error(missing, 2)
    assert "No GitHub credentials: set GITHUB_TOKEN" in _one_error(unauthenticated, 2)
    assert "page 4 is past the last page (1)" in _one_error(past_end, 2)


async def test_a_github_outage_is_one_line_with_exit_3(
    fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    fake_github_pr.fail_with_server_error(times=1, status=503)
    run = await run_prflow("pr", "checks", PR, env=_env(fake_github_pr, tmp_path))
    line = _one_error(run, 3)
    assert "could not read octo-org/service#5 from GitHub" in line and "503" in line


@pytest.mark.temporal
async def test_wait_runs_the_durable_workflow_on_the_cluster(
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
    temporal_settings: Settings,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
) -> None:
    add_failing_job(fake_github_pr, "web", "vitest.log", "npx vitest run")
    settings = temporal_settings.model_copy(deep=True)
    settings.github_api_url = fake_github_pr.api_url
    env = client_environment(settings, tmp_path / "home") | {"GITHUB_TOKEN": FAKE_GITHUB_TOKEN}
    settings.database_url = env["PRFLOW_DATABASE_URL"]
    await start_worker_process(settings)

    run = await run_prflow("pr", "checks", PR, "--wait", "--format", "json", env=env)

    assert run.code == 1, run.describe()
    report = json.loads(run.stdout)
    assert report["state"] == "failed"
    assert report["wait"]["polls"] == 1
    assert [f["test"] for f in report["failures"]["items"]] == [
        "src/__tests__/math.spec.ts > clamp > clamps above the top",
        "src/__tests__/math.spec.ts > clamp > nested > throws on inverted bounds",
    ]
