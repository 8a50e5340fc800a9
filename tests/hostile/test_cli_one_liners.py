"""Every CLI error is one line, exit 2, in seconds: empty ids, a broken App key, a shallow
clone, a budget asked of a finished run."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from temporalio.client import Client

from activities.github.client import github_client
from prflow.errors import UserError
from tests.support.cli_runs import CliRun, client_environment, run_prflow
from tests.support.fixtures_temporal import isolated_settings
from tests.support.sample_repos import build_sample_repo, git


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRFLOW_", "TEMPORAL_"))}
    env["PRFLOW_DATA_DIR"] = str(tmp_path / "data")
    return env


def _one_line(run: CliRun, *needles: str) -> str:
    assert run.code == 2, run.describe()
    [line] = run.stderr_lines
    for needle in needles:
        assert needle in line, line
    return line


@pytest.mark.parametrize("command", ["review", "impact"])
async def test_an_empty_pr_id_says_it_is_empty(command: str, tmp_path: Path) -> None:
    run = await run_prflow(command, "--pr", "", env=_env(tmp_path), cwd=tmp_path)
    _one_line(run, "pull request id is empty")


@pytest.mark.parametrize(
    "key", ["not a key", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----"]
)
def test_a_malformed_app_key_names_the_setting(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRFLOW_GITHUB_APP_ID", "4242")
    monkeypatch.setenv("PRFLOW_GITHUB_APP_INSTALLATION_ID", "77")
    monkeypatch.setenv("PRFLOW_GITHUB_APP_PRIVATE_KEY", key)
    with pytest.raises(UserError) as caught:
        github_client()
    assert caught.value.message.startswith("PRFLOW_GITHUB_APP_PRIVATE_KEY is not a usable")
    assert "\n" not in caught.value.message


async def test_a_shallow_clone_says_so_and_how_to_deepen_it(tmp_path: Path) -> None:
    origin = build_sample_repo(tmp_path / "origin")
    for n in range(3):  # main moves on, so the fork point lies deeper than one commit
        git(origin, "checkout", "-q", "main")
        (origin / f"more{n}.txt").write_text(str(n))
        git(origin, "add", ".")
        git(origin, "commit", "-qm", f"more {n}")
    clone = tmp_path / "clone"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        "--no-single-branch",
        f"file://{origin}",
        str(clone),
    )
    run = await run_prflow(
        "impact", "--repo", str(clone), "--base", "origin/main", "--head", "origin/feature",
        env=_env(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    _one_line(run, "shallow", "git fetch --unshallow")


@pytest.mark.temporal
async def test_budget_show_of_a_finished_run_answers_in_seconds(
    temporal_client: Client, temporal_address: str, tmp_path: Path
) -> None:
    settings = isolated_settings(temporal_address)
    handle = await temporal_client.start_workflow(
        "finished-elsewhere", id="budget-of-finished", task_queue=settings.temporal.task_queue
    )
    await handle.terminate(reason="done")
    started = time.monotonic()
    run = await run_prflow(
        "budget", "show", "budget-of-finished", env=client_environment(settings, tmp_path)
    )
    _one_line(run, "has ended", "prflow costs --workflow-id")
    assert time.monotonic() - started < 15
