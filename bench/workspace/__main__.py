"""``python -m bench.workspace``: the write path on a real ~1,100-file tree (the installed mypy).

A repository is made from the mypy package installed in this venv (real code nobody
here wrote: 1,095 files with typeshed's stubs). Three files are edited through
``edit_workspace``; then, per run:

- **prflow, cold**: ``materialise`` on an empty cache directory (a worker that never
  saw the run: snapshot of the base commit, copy, stored edits written);
- **anchor**: ``git worktree add --detach`` at the base commit plus ``git apply`` of the
  run's combined patch, what one would do by hand;
- **prflow, incremental**: three more files edited, ``materialise`` again (warm);
- **edit batch** (3 replace edits) and **export** (per-file patches) latency.

The last line is the ratio of prflow's cold rebuild to the anchor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

WORK = Path(__file__).resolve().parents[1] / ".work" / "workspace"
SOURCE = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
FILES = ["mypy/build.py", "mypy/checker.py", "mypy/semanal.py"]
MORE = ["mypy/main.py", "mypy/nodes.py", "mypy/types.py"]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        check=True,
        text=True,
    )
    return done.stdout.strip()


def make_repo() -> Path:
    repo = WORK / "mypy-repo"
    if (repo / ".git").is_dir():
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(
        SOURCE / "site-packages" / "mypy",
        repo / "mypy",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "mypy as installed")
    return repo


def unique_line_edit(text: str, path: str) -> object:
    from prflow.workspace.edits import ReplaceEdit

    for line in text.split("\n"):
        if len(line) > 20 and text.count(line) == 1:
            return ReplaceEdit(
                path=path, old_string=line, new_string=line + "  # edited", reason="bench"
            )
    raise RuntimeError(f"no unique line in {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.workspace")
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args(argv).runs
    state = WORK / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    for name in ("TEMPORAL_ADDRESS", "DATABASE_URL"):
        os.environ.pop(name, None)
    os.environ["PRFLOW_DATA_DIR"] = str(state / "data")
    os.environ["PRFLOW_DATABASE_URL"] = f"sqlite:///{state / 'prflow.db'}"
    os.environ["PRFLOW_CACHE_DIR"] = str(state / "cache-setup")

    from activities.workspace import edit_workspace, materialise, open_workspace
    from activities.workspace_git import export_workspace
    from prflow.config import cached_settings
    from prflow.store.blobs import get_text
    from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput, WorkspaceRef

    db = cached_settings().resolved_database_url()
    repo = make_repo()
    files = sum(1 for _ in (repo / "mypy").rglob("*") if _.is_file())
    base = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="bench"))

    def batch(ref: WorkspaceRef, paths: list[str]) -> WorkspaceRef:
        edits = [unique_line_edit((repo / p).read_text(), p) for p in paths]
        result = edit_workspace(db, WorkspaceEditInput(workspace=ref, edits=edits))
        assert result.ok, result.feedback_text
        return result.workspace

    started = time.perf_counter()
    edited = batch(base, FILES)
    edit_seconds = time.perf_counter() - started
    patch = get_text(db, export_workspace(db, edited).combined_key).encode()

    cold, anchor, warm, exports = [], [], [], []
    for run in range(runs):
        os.environ["PRFLOW_CACHE_DIR"] = str(state / f"cache-{run}")
        started = time.perf_counter()
        materialise(db, edited)
        cold.append(time.perf_counter() - started)

        tree = state / f"anchor-{run}"
        started = time.perf_counter()
        git(repo, "worktree", "add", "-q", "--detach", str(tree), base.base_sha)
        subprocess.run(["git", "-C", str(tree), "apply", "-"], input=patch, check=True)
        anchor.append(time.perf_counter() - started)
        git(repo, "worktree", "remove", "--force", str(tree))

        more = batch(edited, MORE)
        started = time.perf_counter()
        materialise(db, more)
        warm.append(time.perf_counter() - started)
        started = time.perf_counter()
        export_workspace(db, more)
        exports.append(time.perf_counter() - started)

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:8.1f} ms"

    print(f"repository: {files} files (mypy as installed), {runs} runs, medians")
    print(f"edit batch (3 replace edits, first)       {edit_seconds * 1000:8.1f} ms")
    print(f"prflow materialise, cold (empty cache)    {ms(cold)}")
    print(f"anchor git worktree add + git apply       {ms(anchor)}")
    print(f"prflow materialise, incremental (+3 files){ms(warm)}")
    print(f"prflow export (6 per-file patches)        {ms(exports)}")
    ratio_warm = statistics.median(warm) / statistics.median(cold)
    print(f"incremental / cold: {ratio_warm:.3f}")
    print(
        f"prflow cold rebuild / anchor: {statistics.median(cold) / statistics.median(anchor):.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
