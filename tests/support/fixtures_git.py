"""pytest fixtures for the git area: real repositories built with the git CLI in tmp_path."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from prflow.config import cached_settings
from prflow.git.repo import GitRepoReader, resolve_range
from prflow.repo_models import RepoSpec, ResolvedRange


def _test_git_env() -> dict[str, str]:
    """Reproducible commits, untouched by the developer's own git configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_COMMITTER_NAME="Test Author",
        GIT_COMMITTER_EMAIL="author@example.com",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    return env


class GitRepoBuilder:
    """A working repository the test shapes file by file and commit by commit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=self.path,
            env=_test_git_env(),
            capture_output=True,
            check=True,
        )
        return done.stdout.decode("utf-8", errors="replace").strip()

    def write(self, rel: str, content: str | bytes, *, executable: bool = False) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_text(content, encoding="utf-8")
        else:
            target.write_bytes(content)
        if executable:
            target.chmod(0o755)

    def symlink(self, rel: str, points_to: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(points_to, target)

    def remove(self, rel: str) -> None:
        self.git("rm", "--quiet", rel)

    def move(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str) -> str:
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str) -> None:
        """Create ``name`` at HEAD and switch to it."""
        self.git("switch", "--quiet", "-c", name)

    def switch(self, name: str) -> None:
        self.git("switch", "--quiet", name)

    def set_ref(self, ref: str, sha: str) -> None:
        self.git("update-ref", ref, sha)


@dataclass
class PullRequestRepo:
    """A repository whose ``feature`` branch is a PR against ``main`` with every kind of change.

    Relative to the fork point, ``feature``: modifies ``pkg/core.py``, adds
    ``pkg/feature.py`` with its test, renames ``pkg/old_name.py`` to ``pkg/new_name.py``, deletes
    ``docs/obsolete.md``, adds a binary ``assets/logo.png``, a Latin-1 text file,
    a 1500-line ``data/big.txt``, a symlink inside the tree and one pointing at
    ``secret_file`` outside it. ``main`` moved on after the fork (README edit), which
    must not show up in the PR.
    """

    repo: GitRepoBuilder
    fork_sha: str
    main_sha: str
    head_sha: str
    secret_file: Path

    @property
    def path(self) -> Path:
        return self.repo.path


BIG_LINES = 1500
CORE_BASE = "def helper(x):\n    return x + 1\n"
CORE_HEAD = "def helper(x, y=0):\n    return x + y + 1\n\n\ndef extra():\n    return 2\n"
RENAMED_BODY = "".join(f"value_{i} = {i}\n" for i in range(20))


def build_pull_request_repo(root: Path) -> PullRequestRepo:
    secret = root / "outside" / "secret.txt"
    secret.parent.mkdir(parents=True)
    secret.write_text("top secret outside the repo\n", encoding="utf-8")

    repo = GitRepoBuilder(root / "repo")
    repo.write("README.md", "# Demo\n\nUse pkg.core.helper.\n")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/core.py", CORE_BASE)
    repo.write(
        "pkg/service.py", "from pkg.core import helper\n\n\ndef run():\n    return helper(1)\n"
    )
    repo.write("pkg/api.py", "from pkg.service import run\n\n\ndef handle():\n    return run()\n")
    repo.write("pkg/old_name.py", RENAMED_BODY)
    repo.write(
        "tests/test_core.py",
        "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n",
    )
    repo.write(
        "tests/test_flows.py", "from pkg.api import handle\n\n\ndef test_handle():\n    handle()\n"
    )
    repo.write("docs/obsolete.md", "Old docs.\n")
    repo.write("scripts/run.sh", "#!/bin/sh\necho run\n", executable=True)
    fork = repo.commit("base")

    repo.branch("feature")
    repo.write("pkg/core.py", CORE_HEAD)
    repo.write("pkg/feature.py", "from pkg.core import extra\n\nFEATURE = extra()\n")
    repo.write(
        "tests/test_feature.py",
        "from pkg.feature import FEATURE\n\n\ndef test_it():\n    assert FEATURE\n",
    )
    repo.move("pkg/old_name.py", "pkg/new_name.py")
    repo.remove("docs/obsolete.md")
    repo.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    repo.write("legacy/latin1.txt", "caf\xe9 cr\xe8me\nsecond line\n".encode("latin-1"))
    repo.write("data/big.txt", "".join(f"line {i}\n" for i in range(1, BIG_LINES + 1)))
    repo.symlink("links/core_link.py", "../pkg/core.py")
    repo.symlink("links/escape.txt", str(secret))
    head = repo.commit("feature work")

    repo.switch("main")
    repo.write("README.md", "# Demo\n\nChanged on main after the fork.\n")
    main = repo.commit("main moves on")
    return PullRequestRepo(
        repo=repo, fork_sha=fork, main_sha=main, head_sha=head, secret_file=secret
    )


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepoBuilder:
    """An empty repository on branch ``main``."""
    return GitRepoBuilder(tmp_path / "repo")


@pytest.fixture
def prflow_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache directory for mirrors and snapshots."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PRFLOW_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def pr_repo(tmp_path: Path, prflow_cache: Path) -> PullRequestRepo:
    """The standard pull-request repository (see :class:`PullRequestRepo`)."""
    return build_pull_request_repo(tmp_path)


@pytest.fixture
def pr_range(pr_repo: PullRequestRepo) -> ResolvedRange:
    """``main...feature`` of the standard pull-request repository."""
    return resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature")


@pytest.fixture
def pr_reader(pr_range: ResolvedRange) -> GitRepoReader:
    """The git-backed tool reader for :func:`pr_range`."""
    return GitRepoReader.for_range(pr_range)


@pytest.fixture
def blob_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A SQLite blob store the repo-tool activity writes to; yields its URL."""
    url = f"sqlite:///{tmp_path / 'blobs.db'}"
    monkeypatch.setenv("PRFLOW_DATABASE_URL", url)
    cached_settings.cache_clear()
    yield url
    cached_settings.cache_clear()
