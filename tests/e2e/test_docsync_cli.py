"""``prflow docsync`` as a user runs it: the console script against a worker subprocess whose
model is the scripted Messages API; dry run, --apply (and its refusal), --branch, --show."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.cli_runs import client_environment, run_prflow
from tests.support.docsync_runs import GUIDE, USAGE, build_docsync_repo, docsync_routes
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.fixtures_temporal import WorkerProcess, isolated_settings
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RANGE = ("--base", "base", "--head", "feature")


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedAnthropic]:
    with ScriptedAnthropic() as server:
        server.route(docsync_routes())
        yield server


@pytest.fixture(scope="module")
async def cli_env(
    temporal_address: str, tmp_path_factory: pytest.TempPathFactory, model: ScriptedAnthropic
) -> AsyncIterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("docsync-cli-home")
    env = client_environment(isolated_settings(temporal_address), home)
    worker_env = {**env, "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": TEST_API_KEY}
    worker = WorkerProcess(worker_env, home / "worker.log")
    await worker.start()
    yield env
    try:
        await worker.stop()
    except TimeoutError:
        worker.kill()


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


async def test_dry_run_then_apply_then_refuse_a_changed_doc(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    repo = build_docsync_repo(tmp_path / "repo").path
    dry = await run_prflow("docsync", "--repo", str(repo), *RANGE, "--dry-run", env=cli_env)
    assert dry.code == 0, dry.describe()
    assert "## Must update (2)" in dry.stdout
    assert "Reason _(model text)_: timeout is keyword-only now" in dry.stdout
    assert '+open_session("db://x", timeout=3)' in dry.stdout
    assert (repo / "docs/usage.md").read_text() == USAGE  # a dry run writes nothing

    applied = await run_prflow("docsync", "--repo", str(repo), *RANGE, "--apply", "-q", env=cli_env)
    assert applied.code == 0, applied.describe()
    assert "applied the edits to 2 docs" in applied.stderr
    assert 'open_session("db://x", timeout=3)' in (repo / "docs/usage.md").read_text()
    assert "tls=True" in (repo / "docs/guide.rst").read_text()

    again = await run_prflow("docsync", "--repo", str(repo), *RANGE, "--apply", "-q", env=cli_env)
    assert again.code == 2, again.describe()
    assert len(again.stderr_lines) == 1
    assert "not applied: docs/guide.rst changed since" in again.stderr
    assert "prflow docsync --show" in again.stderr  # the patches are kept in the run


async def test_branch_commits_the_edits_and_show_prints_the_audit_trail(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    repo = build_docsync_repo(tmp_path / "repo").path
    run = await run_prflow(
        "docsync", "--repo", str(repo), *RANGE, "--branch", "docs/sync", "--format", "json",
        env=cli_env,
    )  # fmt: skip
    assert run.code == 0, run.describe()
    report = json.loads(run.stdout)
    assert {e["path"] for e in report["edits"]} == {"docs/usage.md", "docs/guide.rst"}
    assert all(e["reason"] for e in report["edits"])
    assert _git(repo, "branch", "--show-current") == "feature"
    assert (repo / "docs/guide.rst").read_text() == GUIDE  # working tree untouched
    shown = _git(repo, "show", "docs/sync:docs/guide.rst")
    assert "Call ``open_session(url, timeout=..., tls=True)``." in shown
    assert _git(repo, "rev-parse", "docs/sync~1") == _git(repo, "rev-parse", "feature")
    assert "committed the edits on branch docs/sync" in run.stderr
    assert report["branch"] == "docs/sync"  # the platform's branch step, recorded in the report

    made = _git(repo, "rev-parse", "docs/sync")
    again = await run_prflow(
        "docsync", "--repo", str(repo), *RANGE, "--branch", "docs/sync", "-q", env=cli_env
    )
    assert again.code == 0, again.describe()  # the same edits: the branch already holds them
    assert _git(repo, "rev-parse", "docs/sync") == made
    _git(repo, "branch", "docs/taken", "base")
    taken = await run_prflow(
        "docsync", "--repo", str(repo), *RANGE, "--branch", "docs/taken", "-q", env=cli_env
    )
    assert taken.code == 2, taken.describe()
    assert len(taken.stderr_lines) == 1, taken.describe()
    assert "branch docs/taken already exists; pick another name" in taken.stderr
    assert _git(repo, "rev-parse", "docs/taken") == _git(repo, "rev-parse", "base")

    trail = await run_prflow("docsync", "--show", report["workflow_id"], env=cli_env)
    assert trail.code == 0, trail.describe()
    assert "timeout is keyword-only and tls was added" in trail.stdout
    assert "```diff" in trail.stdout
    missing = await run_prflow("docsync", "--show", "docsync:nope", env=cli_env)
    assert missing.code == 2 and len(missing.stderr_lines) == 1, missing.describe()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--threshold", "review=2"), "--threshold review"),
        (("--threshold", "bogus"), "use must=0.8"),
        (("--post",), "--post and --open-pr need --pr"),
        (("--dry-run", "--apply"), "a dry run writes nothing: drop --apply, --branch, --post"),
        (("--dry-run", "--branch", "docs/x"), "a dry run writes nothing"),
    ],
)
async def test_usage_errors_are_one_line_and_exit_2(
    cli_env: dict[str, str], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    repo = build_docsync_repo(tmp_path / "repo").path
    run = await run_prflow("docsync", "--repo", str(repo), *RANGE, *args, env=cli_env)
    assert run.code == 2, run.describe()
    assert len(run.stderr_lines) == 1 and message in run.stderr, run.describe()
