"""pytest fixture ``pr_setup``: a pull request on the loopback GitHub, cloned from a bare
repository, and a worker for it.

``octo-org/shop#7`` holds the sample repository's change (``main`` ← ``feature``);
a ``prflow worker`` subprocess with the CLI's environment serves its runs, so
end-to-end tests run the console script exactly as a user or CI would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from prflow.config import Settings
from tests.support.cli_runs import client_environment
from tests.support.fake_github import FakeGitHub, FakeIssue
from tests.support.fixtures_temporal import WorkerProcess
from tests.support.sample_repos import build_sample_repo, commit_all, git, write_files

OWNER, REPO, NUMBER = "octo-org", "shop", 7


@dataclass(frozen=True)
class PullRequestSetup:
    work: Path  # the contributor's clone, on the PR branch
    bare: Path  # what GitHub serves as clone_url
    pull: FakeIssue
    env: dict[str, str]  # CLI environment; a worker with the same one is running


def push_to_pull_request(setup: PullRequestSetup, files: dict[str, str | bytes | None]) -> str:
    """Commit on the PR branch and push it, moving the PR head as GitHub would."""
    write_files(setup.work, files)
    sha = commit_all(setup.work, "address review")
    git(setup.work, "push", "-q", str(setup.bare), "feature")
    git(setup.bare, "update-ref", f"refs/pull/{NUMBER}/head", sha)
    assert setup.pull.pull is not None
    setup.pull.pull.head_sha = sha
    return sha


def _open_pull_request(
    fake_github: FakeGitHub, temporal_settings: Settings, tmp_path: Path
) -> PullRequestSetup:
    work = build_sample_repo(tmp_path / "shop")
    git(work, "checkout", "-q", "feature")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    pull = fake_github.add_pull_request(
        OWNER,
        REPO,
        NUMBER,
        bare_repo_path=bare,
        base_sha=git(work, "rev-parse", "main"),
        head_sha=git(work, "rev-parse", "feature"),
    )
    settings = temporal_settings.model_copy(deep=True)
    settings.github_api_url = fake_github.api_url  # GITHUB_TOKEN is inherited from os.environ
    env = client_environment(settings, tmp_path / "home")
    return PullRequestSetup(work=work, bare=bare, pull=pull, env=env)


@pytest.fixture
def pr_without_worker(
    fake_github: FakeGitHub, temporal_settings: Settings, tmp_path: Path
) -> PullRequestSetup:
    """The same pull request and CLI environment, with no worker: for commands that must
    stop at their arguments (a run they started would wait for a worker and time out)."""
    return _open_pull_request(fake_github, temporal_settings, tmp_path)


@pytest.fixture
async def pr_setup(
    fake_github: FakeGitHub, temporal_settings: Settings, tmp_path: Path
) -> AsyncIterator[PullRequestSetup]:
    """``octo-org/shop#7`` (sample repo, ``main`` ← ``feature``) and a worker that can reach it."""
    setup = _open_pull_request(fake_github, temporal_settings, tmp_path)
    worker = WorkerProcess(setup.env, tmp_path / "worker.log")
    await worker.start()
    yield setup
    try:
        await worker.stop()
    except TimeoutError:
        worker.kill()
