"""The workspace as git objects: per-file patches, the user's tree, a new branch.

Everything goes through git plumbing with a private index file, so neither the
user's index nor working tree is touched unless the user asked for ``--apply``.
Exports build their tree in a scratch repository that borrows the real one's
objects (``objects/info/alternates``), so exporting writes nothing into the
user's repository; a branch writes its blobs, tree and commit there, as a
commit would.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from prflow.errors import UserError
from prflow.git.repo import ANY_EXIT, GitRepo, commit_of, open_local, open_repo, run_git
from prflow.store.blobs import get_json, get_text, put_text
from prflow.workspace.models import (
    ExportedPatch,
    WorkspaceApplyInput,
    WorkspaceApplyResult,
    WorkspaceBranch,
    WorkspaceBranchInput,
    WorkspaceExport,
    WorkspaceRef,
    WorkspaceState,
)

ZERO_OID = "0" * 40
FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "prflow",
    "GIT_AUTHOR_EMAIL": "prflow@localhost",
    "GIT_COMMITTER_NAME": "prflow",
    "GIT_COMMITTER_EMAIL": "prflow@localhost",
}
_DIFF = [
    "-c",
    "core.quotePath=false",
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--binary",
    "--full-index",
    "-M",
    "--src-prefix=a/",
    "--dst-prefix=b/",
]


def git(
    args: Sequence[str],
    git_dir: Path,
    *,
    index: Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    ok_codes: tuple[int, ...] = (0,),
) -> subprocess.CompletedProcess[bytes]:
    """:func:`run_git` on ``git_dir`` with, when given, a private index file."""
    extra = dict(env or {})
    if index is not None:
        extra["GIT_INDEX_FILE"] = str(index)
    return run_git(args, git_dir=git_dir, stdin=stdin, ok_codes=ok_codes, env=extra)


def _out(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stdout.decode("utf-8", errors="replace").strip()


def repo_at(location: str, sha: str) -> GitRepo:
    """The repository holding ``sha``; a remote mirror is fetched once when it lacks it."""
    repo = open_repo(location)
    if commit_of(repo, sha) is None and repo.remote:
        repo = open_repo(location, refresh=True)
    if commit_of(repo, sha) is None:
        raise UserError(f"commit {sha[:12]} is not in {location}; fetch it, then run again")
    return repo


def load_state(db_url: str, ref: WorkspaceRef) -> WorkspaceState:
    if ref.state_key is None:
        return WorkspaceState()
    return WorkspaceState.model_validate(get_json(db_url, ref.state_key))


def build_tree(db_url: str, git_dir: Path, base_sha: str, state: WorkspaceState) -> str:
    """The tree of base + the stored changes, written into ``git_dir``'s objects."""
    with tempfile.TemporaryDirectory(prefix="prflow-index-") as scratch:
        index = Path(scratch) / "index"
        git(["read-tree", base_sha], git_dir, index=index)
        lines: list[bytes] = []
        for path, key in sorted(state.files.items()):
            if key is None:
                lines.append(f"0 {ZERO_OID}\t{path}\n".encode())
                continue
            oid = _out(
                git(["hash-object", "-w", "--stdin"], git_dir, stdin=get_text(db_url, key).encode())
            )
            staged = _out(git(["ls-files", "-s", "--", path], git_dir, index=index))
            mode = staged.split(" ", 1)[0] if staged.startswith("100") else "100644"
            lines.append(f"{mode} {oid}\t{path}\n".encode())
        if lines:
            git(["update-index", "--index-info"], git_dir, index=index, stdin=b"".join(lines))
        return _out(git(["write-tree"], git_dir, index=index))


def _scratch_repo(repo: GitRepo, where: Path) -> Path:
    """A bare repository that reads ``repo``'s objects and writes its own."""
    scratch = where / "scratch.git"
    run_git(["init", "--bare", "-q", str(scratch)])
    objects = (repo.git_dir / "objects").resolve()
    (scratch / "objects" / "info" / "alternates").write_text(f"{objects}\n")
    return scratch


def _file_name(number: int, path: str) -> str:
    return f"{number:03d}-" + re.sub(r"[^A-Za-z0-9._-]+", "-", path).strip("-") + ".patch"


def export_workspace(db_url: str, ref: WorkspaceRef) -> WorkspaceExport:
    """One patch per changed file (renames as one), each applying cleanly to the base."""
    repo = repo_at(ref.repo, ref.base_sha)
    state = load_state(db_url, ref)
    with tempfile.TemporaryDirectory(prefix="prflow-export-") as where:
        scratch = _scratch_repo(repo, Path(where))
        tree = build_tree(db_url, scratch, ref.base_sha, state)
        raw = git(
            ["-c", "core.quotePath=false", "diff", "--name-status", "-z", "-M", ref.base_sha, tree],
            scratch,
        ).stdout.decode("utf-8", errors="surrogateescape")
        tokens = raw.split("\0")
        entries: list[tuple[str, str | None, str]] = []
        i = 0
        while i < len(tokens) and tokens[i]:
            status = tokens[i][0]
            if status in "RC":
                entries.append((status, tokens[i + 1], tokens[i + 2]))
                i += 3
            else:
                entries.append((status, None, tokens[i + 1]))
                i += 2
        files = []
        for number, (status, old, path) in enumerate(entries, start=1):
            paths = [old, path] if old else [path]
            patch = git([*_DIFF, ref.base_sha, tree, "--", *paths], scratch).stdout
            files.append(
                ExportedPatch(
                    path=path,
                    old_path=old,
                    status=status,
                    file_name=_file_name(number, path),
                    patch_key=put_text(db_url, patch.decode("utf-8", errors="surrogateescape")),
                )
            )
        combined = git([*_DIFF, ref.base_sha, tree], scratch).stdout
    return WorkspaceExport(
        base_sha=ref.base_sha,
        tree_sha=tree,
        files=files,
        combined_key=put_text(db_url, combined.decode("utf-8", errors="surrogateescape")),
    )


def apply_workspace(db_url: str, inp: WorkspaceApplyInput) -> WorkspaceApplyResult:
    """Write the change into the user's checkout, only when it is clean at the base commit."""
    checkout = Path(inp.path).expanduser().resolve()
    repo = open_local(str(checkout))
    ref = inp.workspace
    head = _out(git(["rev-parse", "--verify", "-q", "HEAD"], repo.git_dir, ok_codes=(0, 1)))
    if head != ref.base_sha:
        raise UserError(
            f"{checkout} is at {head[:12] or 'no commit'}, not at the run's base "
            f"{ref.base_sha[:12]}; check out {ref.base_sha[:12]} or use the diffs instead"
        )
    status = run_git(
        ["-C", str(checkout), "status", "--porcelain=v1", "-z", "--untracked-files=all"]
    ).stdout.decode("utf-8", errors="surrogateescape")
    records = [r for r in status.split("\0") if r]
    dirty = [r[3:] for r in records if not r.startswith("??")]
    if dirty:
        raise UserError(
            f"{checkout} has uncommitted changes ({', '.join(dirty[:3])}); commit or stash "
            "them, then apply again (the diffs are kept)"
        )
    exported = export_workspace(db_url, ref)
    untracked = {r[3:] for r in records if r.startswith("??")}
    written = sorted(
        {f.path for f in exported.files} | {f.old_path for f in exported.files if f.old_path}
    )
    clash = sorted(untracked & set(written))
    if clash:
        raise UserError(
            f"{checkout} has untracked files the change would overwrite ({', '.join(clash[:3])}); "
            "move them away, then apply again"
        )
    if not exported.files:
        return WorkspaceApplyResult()
    done = run_git(
        ["-C", str(checkout), "apply", "--whitespace=nowarn", "-"],
        stdin=get_text(db_url, exported.combined_key).encode("utf-8", errors="surrogateescape"),
        ok_codes=ANY_EXIT,
    )
    if done.returncode != 0:
        stderr = " ".join(done.stderr.decode("utf-8", errors="replace").split())
        raise UserError(f"the change does not apply to {checkout}: {stderr}")
    return WorkspaceApplyResult(written=written)


def branch_workspace(db_url: str, inp: WorkspaceBranchInput) -> WorkspaceBranch:
    """Commit base + changes on a new branch through plumbing; HEAD, index and tree untouched.

    Retrying finds its own branch (same parent and tree) and returns it.
    """
    ref = inp.workspace
    repo = repo_at(ref.repo, ref.base_sha)
    if repo.remote:
        raise UserError("--branch needs a local checkout; for a remote repository use --open-pr")
    valid = git(["check-ref-format", f"refs/heads/{inp.branch}"], repo.git_dir, ok_codes=(0, 1))
    if valid.returncode != 0 or inp.branch.startswith("-"):
        raise UserError(f"{inp.branch!r} is not a valid branch name; try e.g. refactor/async-io")
    tree = build_tree(db_url, repo.git_dir, ref.base_sha, load_state(db_url, ref))
    full = f"refs/heads/{inp.branch}"
    existing = _out(git(["rev-parse", "--verify", "-q", full], repo.git_dir, ok_codes=(0, 1)))
    if existing:
        parents = _out(git(["rev-parse", f"{existing}^@"], repo.git_dir)).split()
        if (
            parents == [ref.base_sha]
            and _out(git(["rev-parse", f"{existing}^{{tree}}"], repo.git_dir)) == tree
        ):
            return WorkspaceBranch(branch=inp.branch, commit_sha=existing, tree_sha=tree)
        raise UserError(f"branch {inp.branch} already exists; pick another name with --branch")
    identity = _out(git(["config", "user.email"], repo.git_dir, ok_codes=(0, 1)))
    env = {} if identity else dict(FALLBACK_IDENTITY)
    commit = _out(
        git(
            ["commit-tree", tree, "-p", ref.base_sha],
            repo.git_dir,
            stdin=inp.message.encode(),
            env=env,
        )
    )
    git(["update-ref", full, commit, ZERO_OID], repo.git_dir)
    return WorkspaceBranch(branch=inp.branch, commit_sha=commit, tree_sha=tree)
