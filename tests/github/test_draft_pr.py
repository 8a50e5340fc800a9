"""open_draft_pr: real PyGithub through the Git Data API of the stateful fake, once per run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.github.draft_pr import open_draft_pull
from activities.workspace import edit_workspace, open_workspace
from prflow.config import cached_settings
from prflow.store.blobs import put_text
from prflow.workspace.edits import CreateFile, DeleteFile, MoveFile, ReplaceEdit
from prflow.workspace.models import DraftPullRequestInput, WorkspaceEditInput, WorkspaceOpenInput
from tests.support.fake_github import FakeGitHub, Fault
from tests.support.sample_repos import git
from tests.support.workspace_repo import build_workspace_repo


def db() -> str:
    return cached_settings().resolved_database_url()


@pytest.fixture
def draft_input(
    tmp_path: Path, prflow_home: Path, fake_github: FakeGitHub
) -> tuple[DraftPullRequestInput, Path]:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    (repo / "run.sh").write_text("#!/bin/sh\necho run\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "script")
    bare = tmp_path / "shop.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    fake_github.add_git_repo("octo-org", "shop", bare)
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="pr-run"))
    edited = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[
                ReplaceEdit(
                    path="shop/storage.py",
                    old_string="def read_item(",
                    new_string="async def read_item(",
                    reason="async",
                ),
                ReplaceEdit(path="run.sh", old_string="echo run", new_string="echo go", reason="r"),
                CreateFile(path="shop/aio.py", content="ASYNC = True\n", reason="new"),
                DeleteFile(path="README.md", reason="gone"),
                MoveFile(path="shop/cart.py", new_path="shop/basket.py", reason="rename"),
            ],
        ),
    )
    assert edited.ok
    inp = DraftPullRequestInput(
        workspace=edited.workspace,
        repository="octo-org/shop",
        branch="prflow/refactor-pr-run",
        title="Make storage reads async",
        body_key=put_text(db(), "## Summary\n\nAsync reads.\n"),
    )
    return inp, bare


def posts(fake: FakeGitHub, suffix: str) -> int:
    return sum(1 for e in fake.exchanges if e.method == "POST" and e.path.endswith(suffix))


def test_a_draft_pull_request_carries_the_change_on_a_new_branch(
    draft_input: tuple[DraftPullRequestInput, Path], fake_github: FakeGitHub
) -> None:
    inp, bare = draft_input
    opened = open_draft_pull(inp)
    assert opened.created and opened.number == 1
    [issue] = fake_github.pulls("octo-org", "shop")
    assert issue.pull is not None and issue.pull.draft
    assert (
        issue.title == "Make storage reads async" and issue.body == "## Summary\n\nAsync reads.\n"
    )
    assert (issue.pull.head_ref, issue.pull.base_ref) == ("prflow/refactor-pr-run", "main")
    branch = "refs/heads/prflow/refactor-pr-run"
    assert git(bare, "rev-parse", branch) == opened.commit_sha
    assert git(bare, "rev-parse", f"{branch}^") == inp.workspace.base_sha
    changes = git(bare, "diff", "--name-status", "-M", inp.workspace.base_sha, branch)
    assert sorted(changes.splitlines()) == [
        "A\tshop/aio.py",
        "D\tREADME.md",
        "M\trun.sh",
        "M\tshop/storage.py",
        "R100\tshop/cart.py\tshop/basket.py",
    ]
    assert git(bare, "ls-tree", branch, "run.sh").startswith("100755")
    assert "async def read_item(" in git(bare, "show", f"{branch}:shop/storage.py")


def test_a_retried_activity_finds_its_own_pull_request(
    draft_input: tuple[DraftPullRequestInput, Path], fake_github: FakeGitHub
) -> None:
    inp, _bare = draft_input
    first = open_draft_pull(inp)
    again = open_draft_pull(inp)
    assert not again.created
    assert (again.number, again.html_url, again.commit_sha) == (
        first.number,
        first.html_url,
        first.commit_sha,
    )
    assert len(fake_github.pulls("octo-org", "shop")) == 1
    assert posts(fake_github, "/git/commits") == 1 and posts(fake_github, "/pulls") == 1


def test_a_retry_after_the_branch_was_made_reuses_it(
    draft_input: tuple[DraftPullRequestInput, Path], fake_github: FakeGitHub
) -> None:
    inp, bare = draft_input
    fake_github.inject(
        Fault(
            502,
            {"message": "Server Error", "documentation_url": "https://docs.github.com/rest"},
            method="POST",
            path_pattern=r"/pulls$",
        )
    )
    with pytest.raises(ApplicationError) as failed:
        open_draft_pull(inp)
    assert not failed.value.non_retryable
    branch_head = git(bare, "rev-parse", "refs/heads/prflow/refactor-pr-run")
    retried = open_draft_pull(inp)
    assert retried.created and retried.commit_sha == branch_head
    assert posts(fake_github, "/git/commits") == 1, "the retry made no second commit"
    assert len(fake_github.pulls("octo-org", "shop")) == 1


def test_a_base_commit_missing_on_github_is_a_user_error(
    draft_input: tuple[DraftPullRequestInput, Path],
) -> None:
    inp, _bare = draft_input
    missing = inp.model_copy(
        update={"workspace": inp.workspace.model_copy(update={"base_sha": "ab" * 20})}
    )
    with pytest.raises(ApplicationError) as failed:
        open_draft_pull(missing)
    assert failed.value.non_retryable
    assert "is not on GitHub" in failed.value.message
