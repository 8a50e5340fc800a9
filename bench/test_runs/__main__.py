"""``python -m bench.test_runs``: prflow's sandboxed test run on attrs' own suite.

The attrs 25.3.0 sdist (``pip download --no-binary``) becomes a one-commit git
repository. prflow's ``run_tests`` runs its suite: once with an empty
environment cache (the ``uv`` venv from the declared ``tests`` extra is built),
then N times warm (a copy of the worktree, a network namespace, JUnit parsed,
output and outcomes stored). The anchor is the same ``python -m pytest`` run
directly in a checkout with the same venv, no sandbox and no copy. The last line
is the warm ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

WORK = Path(__file__).resolve().parents[1] / ".work" / "test_runs"
PACKAGE = "attrs==25.3.0"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), *args],
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
    )


def make_repo() -> Path:
    repo = WORK / "attrs"
    if (repo / ".git").is_dir():
        return repo
    downloads = WORK / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            PACKAGE,
            "-d",
            str(downloads),
        ],
        check=True,
    )
    [archive] = downloads.glob("attrs-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(WORK / "extract", filter="data")
    [top] = (WORK / "extract").iterdir()
    shutil.rmtree(repo, ignore_errors=True)
    top.rename(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", PACKAGE)
    return repo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.test_runs")
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args(argv).runs
    state = WORK / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    for name in ("TEMPORAL_ADDRESS", "DATABASE_URL"):
        os.environ.pop(name, None)
    os.environ["PRFLOW_DATA_DIR"] = str(state / "data")
    os.environ["PRFLOW_DATABASE_URL"] = f"sqlite:///{state / 'prflow.db'}"
    os.environ["PRFLOW_CACHE_DIR"] = str(state / "cache")

    from activities.test_runs import run_tests_in
    from activities.workspace import open_workspace
    from prflow.config import cached_settings
    from prflow.state_dirs import cache_dir
    from prflow.test_runs.models import TestRunInput
    from prflow.workspace.models import WorkspaceOpenInput

    db = cached_settings().resolved_database_url()
    repo = make_repo()
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="bench"))
    inp = TestRunInput(workspace=ref, timeout_seconds=1800)

    started = time.perf_counter()
    first = run_tests_in(db, inp)
    cold = time.perf_counter() - started
    warm, results = [], []
    for _ in range(runs):
        started = time.perf_counter()
        results.append(run_tests_in(db, inp))
        warm.append(time.perf_counter() - started)

    [env] = (cache_dir() / "test-envs").glob("*/bin/python")
    anchor = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [str(env), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            cwd=repo,
            capture_output=True,
            check=False,
            env={
                **os.environ,
                "PYTHONPATH": f"{repo / 'src'}:{repo}",
                "PYTHONDONTWRITEBYTECODE": "1",
            },
        )
        anchor.append(time.perf_counter() - started)

    counts = first.counts
    print(
        f"attrs 25.3.0: {counts.total} tests ({counts.passed} passed, {counts.failed} failed, "
        f"{counts.errors} errors, {counts.skipped} skipped), sandbox {first.sandbox.value}"
    )
    print(f"first run, env built (uv venv + tests extra)  {cold:8.2f} s")
    print(f"prflow run_tests, warm (median of {runs})          {statistics.median(warm):8.2f} s")
    print(f"anchor: python -m pytest in place (median)     {statistics.median(anchor):8.2f} s")
    same = all(r.counts == first.counts for r in results)
    print(f"same per-test counts on every run: {same}")
    print(f"prflow warm / plain pytest: {statistics.median(warm) / statistics.median(anchor):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
