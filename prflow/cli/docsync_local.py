"""``--apply`` and ``--branch`` of ``prflow docsync``: the run's patches into the user's clone.

Both act on the clone the command was run in (the user's tree lives where the
CLI runs, not on a worker). ``--apply`` writes only when every doc the patches
touch is, in the working tree, exactly what the run read at its head commit;
otherwise it says which doc differs in one line and writes nothing.
``--branch`` commits the patches on top of the run's head commit in a
temporary index, so the working tree and the current branch are untouched.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from unidiff.patch import PatchSet

from prflow.errors import UserError


def _git(
    repo: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise UserError(f"git {args[0]} failed in {repo}: {last}")
    return done.stdout


def patched_paths(diff: str) -> list[str]:
    """The files a unified diff changes (their paths before the change)."""
    return sorted({f.source_file.removeprefix("a/") for f in PatchSet(diff)})


def apply_patches(repo: Path, diff: str, head_sha: str, run_id: str) -> str:
    """Write the edits into the working tree; the one line to print."""
    for path in patched_paths(diff):
        at_head = _git(repo, "show", f"{head_sha}:{path}")
        on_disk = repo / path
        current = on_disk.read_text(encoding="utf-8") if on_disk.is_file() else None
        if current != at_head:
            raise UserError(
                f"not applied: {path} changed since {head_sha[:12]}; the patches are kept, "
                f"see `prflow docsync --show {run_id}`"
            )
    _git(repo, "apply", "--check", "-", stdin=diff)
    _git(repo, "apply", "-", stdin=diff)
    count = len(patched_paths(diff))
    return f"prflow: applied the edits to {count} doc{'s' if count != 1 else ''} in {repo}"


def commit_on_branch(repo: Path, diff: str, head_sha: str, branch: str, message: str) -> str:
    """Commit the edits on a new branch from ``head_sha``; the new commit's SHA."""
    if _git(repo, "branch", "--list", branch).strip():
        raise UserError(f"branch {branch} already exists; pass another name to --branch")
    with tempfile.TemporaryDirectory() as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        _git(repo, "read-tree", head_sha, env=env)
        _git(repo, "apply", "--cached", "-", stdin=diff, env=env)
        tree = _git(repo, "write-tree", env=env).strip()
    commit = _git(repo, "commit-tree", tree, "-p", head_sha, "-m", message).strip()
    _git(repo, "branch", branch, commit)
    return commit
