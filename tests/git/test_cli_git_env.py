"""The CLI's own git calls go through ``run_git``: the user's git environment does not steer them.

A ``prflow`` started from a git hook or an IDE terminal inherits ``GIT_DIR``;
git would then read that repository instead of the one the command names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prflow.cli.docsync_local import apply_patches
from prflow.cli.refactor_cmd import github_slug
from prflow.errors import UserError
from tests.support.sample_repos import commit_all, git, init_repo, write_files


def export_git_dir_of_another_repo(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another repository, exported as GIT_DIR the way a hook would (after the setup's git)."""
    other = init_repo(root / "other")
    write_files(other, {"README.md": "other\n"})
    commit_all(other, "other")
    git(other, "remote", "add", "origin", "https://github.com/someone/other.git")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    return other


def test_the_pr_target_is_the_named_clones_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = init_repo(tmp_path / "clone")
    git(clone, "remote", "add", "origin", "git@github.com:acme/shop.git")
    export_git_dir_of_another_repo(tmp_path, monkeypatch)
    assert github_slug(str(clone)) == "acme/shop"
    with pytest.raises(UserError, match="--open-pr needs a GitHub repository"):
        github_slug(str(tmp_path / "missing"))


def test_docsync_apply_writes_the_named_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = init_repo(tmp_path / "clone")
    write_files(clone, {"docs/guide.md": "Call old_name().\n"})
    head = commit_all(clone, "docs")
    elsewhere = export_git_dir_of_another_repo(tmp_path, monkeypatch)
    diff = (
        "--- a/docs/guide.md\n+++ b/docs/guide.md\n@@ -1 +1 @@\n"
        "-Call old_name().\n+Call new_name().\n"
    )
    line = apply_patches(clone, diff, head, "run-1")
    assert line == f"prflow: applied the edits to 1 doc in {clone}"
    assert (clone / "docs/guide.md").read_text() == "Call new_name().\n"
    assert (elsewhere / "README.md").read_text() == "other\n"
    with pytest.raises(UserError, match=r"^git show failed in .*: fatal: path 'docs/new.md'"):
        apply_patches(clone, diff.replace("guide.md", "new.md"), head, "run-1")
