"""``prflow impact --pr ... --post`` against a loopback GitHub whose PR clones from a bare repo.

The CLI resolves the PR through the fake's REST API, the worker subprocess
mirrors the repository from the PR's file:// ``clone_url`` and upserts the
comment; the test then looks at the PR the way a reviewer would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from prflow.config import Settings
from prflow.render.comment import IMPACT_COMMENT_MARKER
from tests.support.cli_runs import CliRun, client_environment, run_prflow
from tests.support.fake_github import FakeGitHub, FakeIssue
from tests.support.fixtures_temporal import WorkerProcess
from tests.support.sample_repos import build_sample_repo, commit_all, git, write_files

pytestmark = pytest.mark.temporal

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


@pytest.fixture
async def pr_setup(
    fake_github: FakeGitHub, temporal_settings: Settings, tmp_path: Path
) -> AsyncIterator[PullRequestSetup]:
    """``octo-org/shop#7`` (sample repo, ``main`` ← ``feature``) and a worker that can reach it."""
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
    worker = WorkerProcess(env, tmp_path / "worker.log")
    await worker.start()
    yield PullRequestSetup(work=work, bare=bare, pull=pull, env=env)
    try:
        await worker.stop()
    except TimeoutError:
        worker.kill()


async def impact_on_pr(setup: PullRequestSetup, pr: str, *extra: str) -> CliRun:
    run = await run_prflow("impact", "--pr", pr, "-q", *extra, env=setup.env)
    assert run.code == 0, run.describe()
    return run


async def test_posting_twice_edits_one_comment_in_place(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub
) -> None:
    await impact_on_pr(pr_setup, f"{OWNER}/{REPO}#{NUMBER}", "--post")
    [first] = fake_github.comments(OWNER, REPO, NUMBER)
    assert first.body.startswith(IMPACT_COMMENT_MARKER)
    assert f"**{OWNER}/{REPO}#{NUMBER}**" in first.body
    assert "**Risk Score**:" in first.body and "`Cart.clear`" in first.body
    first_id, first_body = first.id, first.body

    assert "`VERSION`" not in first_body
    api_ts = (pr_setup.work / "web/src/api.ts").read_text(encoding="utf-8")
    new_head = push_to_pull_request(
        pr_setup, {"web/src/api.ts": api_ts.replace("export const VERSION = '1';\n", "")}
    )
    await impact_on_pr(pr_setup, f"{OWNER}/{REPO}#{NUMBER}", "--post")

    comments = fake_github.comments(OWNER, REPO, NUMBER)
    assert [c.id for c in comments] == [first_id], "one comment per PR, edited in place"
    second = comments[0]
    assert second.body != first_body
    assert second.body.startswith(IMPACT_COMMENT_MARKER)
    assert f"({new_head[:7]})" in second.body, "the edited comment describes the new head"
    assert "`VERSION`" in second.body, "the export removed by the new commit is reported"
    assert len(fake_github.requests("PATCH", rf"/issues/comments/{first_id}$")) == 1


async def test_every_pull_request_form_resolves_to_the_same_pr(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub
) -> None:
    forms = [
        f"{OWNER}/{REPO}/pull/{NUMBER}",
        f"{fake_github.web_url}/{OWNER}/{REPO}/pull/{NUMBER}",
    ]
    for form in forms:
        run = await impact_on_pr(pr_setup, form)
        assert run.stdout.startswith("# PR Impact Report"), run.describe()
        assert f"**{OWNER}/{REPO}#{NUMBER}**" in run.stdout, form
        assert "`fetchUser`" in run.stdout, form
    assert fake_github.comments(OWNER, REPO, NUMBER) == [], "nothing is posted without --post"
