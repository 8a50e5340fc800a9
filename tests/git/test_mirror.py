"""Remote repositories go through a bare mirror cache, refreshed on every resolve."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from prflow.changes import FileStatus
from prflow.errors import UserError
from prflow.git.repo import GitRepoReader, changed_files, mirror_dir, open_repo, resolve_range
from prflow.repo_models import RepoSpec
from tests.support.fixtures_git import PullRequestRepo


@pytest.fixture
def remote(pr_repo: PullRequestRepo) -> PullRequestRepo:
    """The PR repo as a server would hold it: the feature branch also as refs/pull/7/head."""
    pr_repo.repo.set_ref("refs/pull/7/head", pr_repo.head_sha)
    return pr_repo


def _url(repo: PullRequestRepo) -> str:
    return repo.path.as_uri()


def test_file_url_is_cloned_into_the_mirror_cache(
    remote: PullRequestRepo, prflow_cache: Path
) -> None:
    r = resolve_range(RepoSpec(location=_url(remote)), "main", "feature")

    mirror = mirror_dir(_url(remote))
    assert mirror.parent == prflow_cache / "mirrors"
    assert (mirror / "HEAD").is_file()
    assert (r.base_sha, r.head_sha, r.merge_base_sha) == (
        remote.main_sha,
        remote.head_sha,
        remote.fork_sha,
    )
    assert r.location == _url(remote)


def test_pull_request_ref_is_fetched(remote: PullRequestRepo) -> None:
    r = resolve_range(RepoSpec(location=_url(remote), pr_number=7), "main", "refs/pull/7/head")

    assert r.head_sha == remote.head_sha
    statuses = {f.path: f.status for f in changed_files(r)}
    assert statuses["pkg/new_name.py"] == FileStatus.renamed


def test_missing_pull_request_is_a_user_error(remote: PullRequestRepo) -> None:
    with pytest.raises(UserError, match="#99"):
        resolve_range(RepoSpec(location=_url(remote), pr_number=99), "main", "refs/pull/99/head")


def test_new_remote_commits_are_seen_on_the_next_resolve(remote: PullRequestRepo) -> None:
    first = resolve_range(RepoSpec(location=_url(remote)), "main", "feature")
    remote.repo.switch("feature")
    remote.repo.write("pkg/later.py", "LATER = 1\n")
    newer = remote.repo.commit("pushed later")

    second = resolve_range(RepoSpec(location=_url(remote)), "main", "feature")

    assert first.head_sha == remote.head_sha
    assert second.head_sha == newer


def test_origin_prefixed_branch_names_work_against_a_mirror(remote: PullRequestRepo) -> None:
    r = resolve_range(RepoSpec(location=_url(remote)), "origin/main", "origin/feature")

    assert r.head_sha == remote.head_sha


def test_a_worker_without_the_mirror_rebuilds_it(
    remote: PullRequestRepo, prflow_cache: Path
) -> None:
    r = resolve_range(RepoSpec(location=_url(remote), pr_number=7), "main", "refs/pull/7/head")
    shutil.rmtree(prflow_cache)

    reader = GitRepoReader.for_range(r)

    assert reader.read_file(r.head_sha, "pkg/feature.py") is not None
    assert mirror_dir(_url(remote)).is_dir()


def test_unreachable_remote_is_a_user_error(tmp_path: Path, prflow_cache: Path) -> None:
    missing = (tmp_path / "gone").as_uri()

    with pytest.raises(UserError, match="cannot read"):
        resolve_range(RepoSpec(location=missing), "main", "feature")
    assert not mirror_dir(missing).exists()


def test_credentials_in_the_url_are_refused(prflow_cache: Path) -> None:
    url = "https://user:s3cr3t@example.invalid/o/r.git"
    with pytest.raises(UserError, match="credentials") as refused:
        open_repo(url)
    assert "s3cr3t" not in str(refused.value)
    assert not mirror_dir(url).exists()
