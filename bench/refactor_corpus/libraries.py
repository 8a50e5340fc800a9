"""The libraries of the corpus: released sdists that ship their tests, pure Python, whose
suite is green and quick when prflow runs it (its own environment detection and sandbox).

Each is fetched once (``pip download --no-binary``), unpacked and committed with a fixed
date under ``bench/.work/refactor-corpus/repos``, so every run starts from the same tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

from prflow.config import cached_settings
from tests.support.sample_repos import GIT_ENV, git

MAX_SUITE_SECONDS = 120
NATIVE = (".c", ".cpp", ".pyx", ".rs", ".f90", ".h")


@dataclass(frozen=True)
class Library:
    name: str
    version: str
    repo: Path
    package: str  # the package folder, relative to the repo (``src/foo`` or ``foo``)
    tests: int
    suite_seconds: float


DOWNLOAD_SECONDS = 120


def fetch(work: Path, name: str, version: str) -> Path | None:
    """The release's sdist as a git repository (made once), or None without an sdist."""
    repos = work / "repos"
    marker = repos / f"{name}-{version}.ok"
    for existing in repos.glob("*"):
        if (
            existing.is_dir()
            and (existing / ".git").is_dir()
            and existing.name == _dirname(name, version)
        ):
            return existing
    downloads = work / "downloads" / f"{name}-{version}"
    downloads.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                name,
                "-d",
                str(downloads),
                f"{name}=={version}",
            ],
            capture_output=True,
            check=False,
            timeout=DOWNLOAD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return None  # pip builds an sdist's metadata: one that takes this long is not light
    archives = [p for p in downloads.iterdir() if p.name.endswith((".tar.gz", ".tgz"))]
    if done.returncode != 0 or not archives:
        return None
    repos.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archives[0]) as tar:
        top = {m.name.split("/", 1)[0] for m in tar.getmembers()}
        tar.extractall(repos, filter="data")
    if len(top) != 1:
        return None
    repo = repos / top.pop()
    target = repos / _dirname(name, version)
    if repo != target:
        shutil.rmtree(target, ignore_errors=True)
        repo.rename(target)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", "-A")
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    subprocess.run(
        ["git", "-C", str(target), "commit", "-q", "-m", f"{name} {version}"], check=True, env=env
    )
    marker.write_text("ok")
    return target


def _dirname(name: str, version: str) -> str:
    return f"{name}-{version}"


def package_dir(repo: Path, name: str) -> str | None:
    """The importable package's folder: ``src/<pkg>`` or ``<pkg>``."""
    wanted = name.lower().replace("-", "_")
    for root in ("src", "."):
        base = repo / root
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            squashed = child.name.lower().replace("_", "")
            if (child / "__init__.py").is_file() and squashed == wanted.replace("_", ""):
                return str(child.relative_to(repo))
    return None


def static_reasons(repo: Path, name: str) -> list[str]:
    """Why the release cannot be a corpus library, from its files alone."""
    reasons: list[str] = []
    if not (repo / "tests").is_dir():
        reasons.append("no tests/ folder in the sdist")
    if package_dir(repo, name) is None:
        reasons.append("no package folder named after it")
    if any(p.suffix in NATIVE for p in repo.rglob("*") if p.is_file()):
        reasons.append("native code")
    if not (repo / "pyproject.toml").is_file():
        reasons.append("no pyproject.toml")
    return reasons


def suite(
    repo: Path, run_id: str, max_seconds: float = MAX_SUITE_SECONDS, command: str | None = None
) -> tuple[int, float, str]:
    """The suite at the repository's HEAD as prflow runs it: (tests passed, seconds, problem).

    ``command`` is the user's test command, as ``--test-command`` takes it; None: detected.
    """
    from activities.test_runs import run_tests_in
    from activities.workspace import open_workspace
    from prflow.errors import UserError
    from prflow.test_runs.models import TestRunInput
    from prflow.workspace.models import WorkspaceOpenInput

    db = cached_settings().resolved_database_url()
    base = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id=run_id))
    started = time.monotonic()
    try:
        result = run_tests_in(
            db,
            TestRunInput(workspace=base, command=command, timeout_seconds=max_seconds + 30),
        )
    except UserError as err:
        return 0, 0.0, err.message
    seconds = time.monotonic() - started
    counts = result.counts
    if result.timed_out or seconds > max_seconds:
        return 0, seconds, "suite too slow"
    if counts.failed or counts.errors or counts.passed == 0:
        return (
            counts.passed,
            seconds,
            f"suite not green ({counts.failed} failed, {counts.errors} errors)",
        )
    return counts.passed, seconds, ""
