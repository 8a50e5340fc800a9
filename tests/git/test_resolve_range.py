"""Resolving refs of a local repository into a pinned commit range."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from prflow.errors import UserError
from prflow.git.repo import ensure_commits, open_local, resolve_range
from prflow.repo_models import RepoSpec
from tests.support.fixtures_git import GitRepoBuilder, PullRequestRepo


def test_branches_resolve_to_commits_and_the_fork_point(pr_repo: PullRequestRepo) -> None:
    r = resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature")

    assert r.base_sha == pr_repo.main_sha
    assert r.head_sha == pr_repo.head_sha
    assert r.merge_base_sha == pr_repo.fork_sha
    assert (r.base_ref, r.head_ref) == ("main", "feature")
    assert r.location == str(pr_repo.path)


def test_a_subdirectory_names_the_same_repository(pr_repo: PullRequestRepo) -> None:
    from_root = resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature")
    from_sub = resolve_range(RepoSpec(location=str(pr_repo.path / "pkg")), "main", "feature")

    assert from_sub.repo_key == from_root.repo_key
    assert from_sub.head_sha == from_root.head_sha


def test_commit_ids_and_relative_revisions_are_accepted(pr_repo: PullRequestRepo) -> None:
    r = resolve_range(RepoSpec(location=str(pr_repo.path)), pr_repo.fork_sha[:10], "feature~0")

    assert r.base_sha == pr_repo.fork_sha
    assert r.head_sha == pr_repo.head_sha


def test_unknown_ref_is_a_user_error_naming_it(pr_repo: PullRequestRepo) -> None:
    with pytest.raises(UserError) as caught:
        resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "no-such-branch")

    assert "no-such-branch" in caught.value.message
    assert "head" in caught.value.message


def test_option_like_ref_is_refused_not_passed_to_git(pr_repo: PullRequestRepo) -> None:
    with pytest.raises(UserError, match="--output"):
        resolve_range(RepoSpec(location=str(pr_repo.path)), "--output=/tmp/x", "feature")


def test_directory_without_git_is_a_user_error(tmp_path: Path, prflow_cache: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()

    with pytest.raises(UserError, match="not a git repository"):
        resolve_range(RepoSpec(location=str(plain)), "main", "HEAD")


def test_missing_path_is_a_user_error(tmp_path: Path, prflow_cache: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        resolve_range(RepoSpec(location=str(tmp_path / "nowhere")), "main", "HEAD")


def test_unrelated_histories_are_a_user_error(git_repo: GitRepoBuilder, prflow_cache: Path) -> None:
    git_repo.write("a.txt", "a\n")
    git_repo.commit("first")
    git_repo.git("switch", "--quiet", "--orphan", "island")
    git_repo.write("b.txt", "b\n")
    git_repo.commit("unrelated")

    with pytest.raises(UserError, match="share no history"):
        resolve_range(RepoSpec(location=str(git_repo.path)), "main", "island")


def test_an_unknown_base_is_named_as_the_base(pr_repo: PullRequestRepo) -> None:
    # both refs are read by one git process; a failure is still told ref by ref
    with pytest.raises(UserError) as caught:
        resolve_range(RepoSpec(location=str(pr_repo.path)), "no-such-base", "feature")

    assert "base ref 'no-such-base'" in caught.value.message


def test_a_bare_repository_resolves_and_is_named_by_its_git_directory(
    pr_repo: PullRequestRepo, tmp_path: Path
) -> None:
    bare = tmp_path / "shop.git"
    subprocess.run(
        ["git", "clone", "--quiet", "--bare", str(pr_repo.path), str(bare)],
        check=True,
        capture_output=True,
    )

    r = resolve_range(RepoSpec(location=str(bare)), "main", "feature")

    assert (r.base_sha, r.head_sha) == (pr_repo.main_sha, pr_repo.head_sha)
    assert r.location == str(bare)


def test_a_checkout_reopened_after_its_git_directory_went_is_no_repository(
    git_repo: GitRepoBuilder, prflow_cache: Path
) -> None:
    # a worker remembers checkouts it opened; one whose .git is gone must not resolve
    git_repo.write("a.txt", "a\n")
    git_repo.commit("first")
    resolve_range(RepoSpec(location=str(git_repo.path)), "main", "main")
    shutil.rmtree(git_repo.path / ".git")

    with pytest.raises(UserError, match="not a git repository"):
        resolve_range(RepoSpec(location=str(git_repo.path)), "main", "main")


def test_a_range_whose_commit_is_gone_says_so(pr_repo: PullRequestRepo) -> None:
    r = resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature")
    ensure_commits(open_local(str(pr_repo.path)), [r.base_sha, r.head_sha])  # all present

    with pytest.raises(UserError, match="no longer in"):
        ensure_commits(open_local(str(pr_repo.path)), [r.base_sha, "0" * 40])
