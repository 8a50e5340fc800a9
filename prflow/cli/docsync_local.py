"""``--apply`` of ``prflow docsync``: the run's patches into the user's working tree.

It acts on the clone the command was run in. It writes only when every doc the
patches touch is, in the working tree, exactly what the run read at its head
commit (the user may have committed since, or edited other files); otherwise it
says which doc differs in one line and writes nothing. ``--branch`` is the
platform's ``workspace_branch`` step, run by the workflow.
"""

from __future__ import annotations

from pathlib import Path

from unidiff.patch import PatchSet

from prflow.errors import UserError
from prflow.git.repo import ANY_EXIT, run_git


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    data = stdin.encode("utf-8") if stdin is not None else None
    done = run_git(args, cwd=repo, stdin=data, ok_codes=ANY_EXIT)
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", errors="replace")
        last = (stderr.strip().splitlines() or ["no message"])[-1]
        raise UserError(f"git {args[0]} failed in {repo}: {last}")
    return done.stdout.decode("utf-8", errors="replace")


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
