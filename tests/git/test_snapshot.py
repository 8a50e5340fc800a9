"""Per-commit snapshots: faithful, read-only, built once, safe to build concurrently."""

from __future__ import annotations

import filecmp
import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from prflow.git.repo import open_repo, snapshot, snapshot_tree
from prflow.source_tree import DirectoryTree
from tests.support.fixtures_git import CORE_BASE, CORE_HEAD, PullRequestRepo


def test_snapshot_holds_the_files_of_that_commit(pr_repo: PullRequestRepo) -> None:
    repo = open_repo(str(pr_repo.path))

    head = snapshot(repo, pr_repo.head_sha)
    base = snapshot(repo, pr_repo.fork_sha)

    assert (head / "pkg/core.py").read_text() == CORE_HEAD
    assert (base / "pkg/core.py").read_text() == CORE_BASE
    assert not (head / "docs/obsolete.md").exists()
    assert (base / "docs/obsolete.md").exists()
    assert (head / "legacy/latin1.txt").read_bytes() == "caf\xe9 cr\xe8me\nsecond line\n".encode(
        "latin-1"
    )
    assert not (head / ".git").exists()


def test_symlinks_stay_symlinks_and_files_are_read_only(pr_repo: PullRequestRepo) -> None:
    head = snapshot(open_repo(str(pr_repo.path)), pr_repo.head_sha)

    link = head / "links/core_link.py"
    assert link.is_symlink()
    assert os.readlink(link) == "../pkg/core.py"
    assert os.readlink(head / "links/escape.txt") == str(pr_repo.secret_file)
    core_mode = (head / "pkg/core.py").stat().st_mode
    assert not core_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    assert (head / "scripts/run.sh").stat().st_mode & stat.S_IXUSR


def test_snapshot_lives_in_the_cache_and_is_reused(
    pr_repo: PullRequestRepo, prflow_cache: Path
) -> None:
    repo = open_repo(str(pr_repo.path))

    first = snapshot(repo, pr_repo.head_sha)
    inode = first.stat().st_ino
    marker_mtime = (first / "pkg/core.py").stat().st_mtime_ns
    second = snapshot(repo, pr_repo.head_sha)

    assert first == second == prflow_cache / "snapshots" / repo.key / pr_repo.head_sha
    assert second.stat().st_ino == inode
    assert (second / "pkg/core.py").stat().st_mtime_ns == marker_mtime


def test_concurrent_builders_agree_and_leave_no_temporary_dirs(
    pr_repo: PullRequestRepo, prflow_cache: Path
) -> None:
    repo = open_repo(str(pr_repo.path))

    with ThreadPoolExecutor(max_workers=6) as pool:
        paths = list(pool.map(lambda _: snapshot(repo, pr_repo.head_sha), range(6)))

    assert len(set(paths)) == 1
    built = paths[0]
    assert (built / "pkg/core.py").read_text() == CORE_HEAD
    assert (built / "data/big.txt").stat().st_size > 0
    leftovers = [p.name for p in built.parent.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_a_snapshot_near_another_links_its_unchanged_files_and_lists_the_same_paths(
    pr_repo: PullRequestRepo, prflow_cache: Path
) -> None:
    repo = open_repo(str(pr_repo.path))
    base = snapshot(repo, pr_repo.fork_sha)

    head = snapshot(repo, pr_repo.head_sha, near=pr_repo.fork_sha)
    listed = snapshot_tree(repo, pr_repo.head_sha)

    walked = DirectoryTree(head).paths()
    assert listed.paths() == walked
    assert (head / "pkg/core.py").read_text() == CORE_HEAD
    assert os.readlink(head / "links/core_link.py") == "../pkg/core.py"
    assert (head / "scripts/run.sh").stat().st_mode & stat.S_IXUSR
    shared = [p for p in walked if (base / p).is_file() and filecmp.cmp(base / p, head / p, False)]
    assert shared, "the fixture has files the PR did not change"
    assert all((head / p).stat().st_ino == (base / p).stat().st_ino for p in shared)
    assert (head / "pkg/core.py").stat().st_ino != (base / "pkg/core.py").stat().st_ino
