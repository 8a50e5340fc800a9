"""The run's workspace: edits stored in the blob store, worktrees rebuilt on any worker.

A workspace is a base commit plus the files the run changed
(:class:`~prflow.workspace.models.WorkspaceState`, by blob key). Reads see that
overlay; edits go through the pure exact-unique batch
(:func:`prflow.workspace.edits.apply_batch`) and store a new state, so an edit
activity that is retried stores the same keys again and returns the same ref.
:func:`materialise` turns a reference into a real directory on this worker,
rebuilt from the base commit and the stored state when the worker has never
seen the run (a resumed run on a fresh machine), updated in place otherwise.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeats import heartbeating
from activities.workspace_git import (
    apply_workspace,
    branch_workspace,
    export_workspace,
    git,
    load_state,
    repo_at,
)
from prflow.config import cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.file_lock import exclusive_lock
from prflow.git.repo import GitRepo, GitRepoReader, commit_of, is_remote, open_repo
from prflow.git.repo import _write_tree as write_tree
from prflow.state_dirs import cache_dir
from prflow.store.blobs import get_json, get_text, put_json, put_text
from prflow.tools.reader import GrepHit, ToolError
from prflow.workspace.edits import UnreadableFile, apply_batch
from prflow.workspace.merge import merge_states
from prflow.workspace.models import (
    PatchLogEntry,
    WorkspaceApplyInput,
    WorkspaceApplyResult,
    WorkspaceBranch,
    WorkspaceBranchInput,
    WorkspaceEditInput,
    WorkspaceEditResult,
    WorkspaceExport,
    WorkspaceFile,
    WorkspaceFileInput,
    WorkspaceMergeInput,
    WorkspaceMergeResult,
    WorkspaceOpenInput,
    WorkspaceRef,
    WorkspaceState,
    WorkspaceToolInput,
    WorkspaceToolOutput,
    overlay_paths,
)
from prflow.workspace.patches import PatchRecord
from prflow.workspace.scope import may_edit, scope_hint
from prflow.workspace.tools import (
    EDIT_TOOLS,
    edits_of,
    grep_texts,
    merge_hits,
    run_read_tool,
)

PREVIEW_CHARS = 2_048

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _db() -> str:
    return cached_settings().resolved_database_url()


def _user_failure(exc: UserError | ToolError) -> ApplicationError:
    return ApplicationError(exc.message, type=USER_ERROR_TYPE, non_retryable=True)


def _user_errors_final(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """A user's mistake (a dirty tree, a refused path) fails the activity once, not retried."""

    @functools.wraps(function)
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except UserError as exc:
            raise _user_failure(exc) from exc

    return guarded


# --------------------------------------------------------------------------- reading the overlay


class WorkspaceFiles:
    """The workspace's files: the base commit overlaid with the run's stored changes."""

    def __init__(self, db_url: str, ref: WorkspaceRef) -> None:
        self.db_url = db_url
        self.ref = ref
        self.reader = GitRepoReader(repo_at(ref.repo, ref.base_sha))
        self.state = load_state(db_url, ref)

    def base(self, path: str) -> bytes | None:
        return self.reader.read_file(self.ref.base_sha, path)

    def read(self, path: str) -> bytes | None:
        if path in self.state.files:
            key = self.state.files[path]
            return None if key is None else get_text(self.db_url, key).encode("utf-8")
        return self.base(path)

    def text(self, path: str) -> str | None:
        """The file as text for editing; binary or non-UTF-8 files cannot be edited."""
        data = self.read(path)
        if data is None:
            return None
        if b"\0" in data[:8000]:
            raise UnreadableFile("binary file: it cannot be edited as text")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise UnreadableFile("not valid UTF-8: it cannot be edited as text") from None

    def list_files(self) -> list[str]:
        return overlay_paths(self.reader.list_files(self.ref.base_sha), self.state.files)

    def grep(self, pattern: str, glob: str | None) -> list[GrepHit]:
        base = self.reader.grep(self.ref.base_sha, pattern, glob)
        texts = {
            path: get_text(self.db_url, key)
            for path, key in self.state.files.items()
            if key is not None
        }
        return merge_hits(base, grep_texts(texts, pattern, glob), set(self.state.files))


# --------------------------------------------------------------------------- editing


def open_workspace(inp: WorkspaceOpenInput) -> WorkspaceRef:
    """A fresh workspace at ``inp.base`` (resolved to a commit id now, once)."""
    repo = open_repo(inp.repo, refresh=is_remote(inp.repo))
    sha = commit_of(repo, inp.base)
    if sha is None:
        raise UserError(f"unknown ref {inp.base!r} in {inp.repo}; pass a branch, tag or commit")
    return WorkspaceRef(repo=inp.repo, base_sha=sha, run_id=inp.run_id)


def edit_workspace(db_url: str, inp: WorkspaceEditInput) -> WorkspaceEditResult:
    """Apply one batch; on success store the new state, the patches and the log entry."""
    files = WorkspaceFiles(db_url, inp.workspace)
    outcome = apply_batch(
        files.text,
        inp.edits,
        may_edit=may_edit(inp.editable),
        actor=inp.actor,
        scope_hint=scope_hint(inp.editable),
    )
    feedback = outcome.feedback_text()
    feedback_key = put_text(db_url, feedback)
    if not outcome.ok:
        return WorkspaceEditResult(
            ok=False,
            workspace=inp.workspace,
            errors=outcome.errors,
            feedback_text=feedback,
            feedback_key=feedback_key,
        )
    changed = dict(files.state.files)
    for path, content in outcome.contents.items():
        base = files.base(path)
        if (content is None and base is None) or (
            content is not None and base == content.encode("utf-8")
        ):
            changed.pop(path, None)  # back to the base commit: nothing to carry
        else:
            changed[path] = None if content is None else put_text(db_url, content)
    state_key = put_json(db_url, WorkspaceState(files=dict(sorted(changed.items()))))
    patch_keys = [put_json(db_url, patch) for patch in outcome.patches]
    log_key = put_json(
        db_url, PatchLogEntry(previous=inp.workspace.patch_log_key, patch_keys=patch_keys)
    )
    ref = inp.workspace.model_copy(
        update={
            "state_key": state_key,
            "patch_log_key": log_key,
            "revision": inp.workspace.revision + 1,
        }
    )
    return WorkspaceEditResult(
        ok=True,
        workspace=ref,
        patch_keys=patch_keys,
        feedback_text=feedback,
        feedback_key=feedback_key,
    )


def _log_since(db_url: str, ref: WorkspaceRef, base: WorkspaceRef) -> list[str]:
    """PatchRecord keys of ``ref``'s batches made after ``base``, oldest first."""
    batches: list[list[str]] = []
    key = ref.patch_log_key
    while key != base.patch_log_key:
        if key is None:
            raise UserError(
                f"workspace revision {ref.revision} of run {ref.run_id} does not descend from "
                f"revision {base.revision}; merge only workspaces started from the base"
            )
        entry = PatchLogEntry.model_validate(get_json(db_url, key))
        batches.append(entry.patch_keys)
        key = entry.previous
    return [k for batch in reversed(batches) for k in batch]


def merge_workspace(db_url: str, inp: WorkspaceMergeInput) -> WorkspaceMergeResult:
    """The union of the branches' changes over the base (refused on a conflicting path)."""
    base = inp.base
    for branch in inp.branches:
        if (branch.repo, branch.base_sha, branch.run_id) != (base.repo, base.base_sha, base.run_id):
            raise UserError("merge only workspaces of one run and base commit")
    states = [load_state(db_url, b).files for b in inp.branches]
    merged, conflicts = merge_states(load_state(db_url, base).files, states)
    if conflicts:
        return WorkspaceMergeResult(ok=False, workspace=base, conflicts=conflicts)
    patch_keys = [k for b in inp.branches for k in _log_since(db_url, b, base)]
    if not patch_keys:
        return WorkspaceMergeResult(ok=True, workspace=base)
    ref = base.model_copy(
        update={
            "state_key": put_json(db_url, WorkspaceState(files=merged)) if merged else None,
            "patch_log_key": put_json(
                db_url, PatchLogEntry(previous=base.patch_log_key, patch_keys=patch_keys)
            ),
            "revision": base.revision + sum(b.revision - base.revision for b in inp.branches),
        }
    )
    return WorkspaceMergeResult(ok=True, workspace=ref)


def patch_log(db_url: str, ref: WorkspaceRef) -> list[PatchRecord]:
    """Every edit of the run, oldest first, with its reason."""
    batches: list[list[str]] = []
    key = ref.patch_log_key
    while key is not None:
        entry = PatchLogEntry.model_validate(get_json(db_url, key))
        batches.append(entry.patch_keys)
        key = entry.previous
    return [
        PatchRecord.model_validate(get_json(db_url, k))
        for batch in reversed(batches)
        for k in batch
    ]


def _preview(text: str) -> str:
    return text[:PREVIEW_CHARS]


def call_workspace_tool(db_url: str, inp: WorkspaceToolInput) -> WorkspaceToolOutput:
    """Run one agent tool; caller mistakes and refused edits come back as ``ok=False``."""
    try:
        if inp.tool in EDIT_TOOLS:
            edits = edits_of(inp.tool, inp.arguments)
            result = edit_workspace(
                db_url,
                WorkspaceEditInput(
                    workspace=inp.workspace, edits=edits, editable=inp.editable, actor=inp.actor
                ),
            )
            return WorkspaceToolOutput(
                ok=result.ok,
                content_key=result.feedback_key,
                preview=_preview(result.feedback_text),
                error=None if result.ok else result.feedback_text,
                workspace=result.workspace if result.ok else None,
            )
        text = run_read_tool(WorkspaceFiles(db_url, inp.workspace), inp.tool, inp.arguments)
    except ToolError as exc:
        message = f"{inp.tool} failed: {exc.message}"
        return WorkspaceToolOutput(
            ok=False,
            content_key=put_text(db_url, message),
            preview=_preview(message),
            error=message,
        )
    return WorkspaceToolOutput(ok=True, content_key=put_text(db_url, text), preview=_preview(text))


# --------------------------------------------------------------------------- worktrees


def _run_dir(ref: WorkspaceRef, repo: GitRepo) -> Path:
    run_key = hashlib.sha256(ref.run_id.encode("utf-8")).hexdigest()[:16]
    return cache_dir() / "workspaces" / repo.key / run_key


def _locked(path: Path) -> contextlib.AbstractContextManager[None]:
    """Serialise building and changing one run's worktree across worker processes."""
    return exclusive_lock(path.with_suffix(".lock"))


def _make_writable(root: Path) -> None:
    for directory, _dirs, names in os.walk(root):
        Path(directory).chmod(0o755)
        for name in names:
            target = Path(directory) / name
            if not target.is_symlink():
                target.chmod(target.stat().st_mode | 0o200)


def _remove(target: Path, root: Path) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def _restore_base(repo: GitRepo, sha: str, tree: Path, path: str) -> None:
    """Put ``path`` back as the base commit has it (or remove it when the base lacks it)."""
    target = tree / path
    listed = git(["ls-tree", "-z", sha, "--", path], repo.git_dir).stdout
    if not listed:
        _remove(target, tree)
        return
    mode, _kind, oid = listed.split(b"\t", 1)[0].decode().split(" ")
    data = git(["cat-file", "blob", oid], repo.git_dir).stdout
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        os.symlink(os.fsdecode(data), target)
    else:
        target.write_bytes(data)
        target.chmod(0o755 if mode == "100755" else 0o644)


def _put_path(
    db_url: str, repo: GitRepo, sha: str, tree: Path, path: str, key: str | None, *, in_state: bool
) -> None:
    """Make ``tree/path`` what the workspace says: stored content, deleted, or as at base."""
    target = tree / path
    if target.is_symlink():
        target.unlink()
    if in_state and key is None:
        _remove(target, tree)
        return
    if in_state:
        assert key is not None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(get_text(db_url, key).encode("utf-8"))
        return
    if target.is_file():
        target.unlink()
    _restore_base(repo, sha, tree, path)


def materialise(db_url: str, ref: WorkspaceRef) -> Path:
    """A writable worktree of the workspace on this worker (plain files, no .git).

    Cached per run: the same state returns at once, a newer state rewrites only
    the paths that differ, and a worker that never saw the run writes the base
    commit's files straight out of git (one ``cat-file --batch``) and then the
    stored changes. Another call for the same run may change the tree at any
    time; to work in it undisturbed (run tests, say) use :func:`copy_worktree`.
    """
    repo = repo_at(ref.repo, ref.base_sha)
    run_dir = _run_dir(ref, repo)
    state = load_state(db_url, ref)
    with _locked(run_dir):
        return _update_tree(db_url, repo, run_dir, ref, state)


def copy_worktree(db_url: str, ref: WorkspaceRef, dest: Path) -> Path:
    """A private copy of the workspace's worktree at ``dest``, taken while no one changes it."""
    repo = repo_at(ref.repo, ref.base_sha)
    run_dir = _run_dir(ref, repo)
    state = load_state(db_url, ref)
    with _locked(run_dir):
        tree = _update_tree(db_url, repo, run_dir, ref, state)
        shutil.copytree(tree, dest, symlinks=True)
    return dest


def _update_tree(
    db_url: str, repo: GitRepo, run_dir: Path, ref: WorkspaceRef, state: WorkspaceState
) -> Path:
    tree, marker = run_dir / "tree", run_dir / "state.json"
    old: dict[str, object] | None = None
    if marker.is_file() and tree.is_dir():
        old = json.loads(marker.read_text(encoding="utf-8"))
    if old is not None and old.get("base_sha") == ref.base_sha:
        if old.get("state_key") == ref.state_key:
            return tree
        old_files = old.get("files")
        previous = dict(old_files) if isinstance(old_files, dict) else {}
        for path in sorted(set(previous) | set(state.files)):
            if previous.get(path, "") != state.files.get(path, "") or path not in state.files:
                in_state = path in state.files
                key = state.files.get(path)
                _put_path(db_url, repo, ref.base_sha, tree, path, key, in_state=in_state)
    else:
        staging = run_dir / f".tmp-{uuid.uuid4().hex}"
        staging.mkdir(parents=True)
        write_tree(repo, ref.base_sha, staging)
        _make_writable(staging)
        for path, key in state.files.items():
            _put_path(db_url, repo, ref.base_sha, staging, path, key, in_state=True)
        shutil.rmtree(tree, ignore_errors=True)
        staging.rename(tree)
    record = {"base_sha": ref.base_sha, "state_key": ref.state_key, "files": state.files}
    staged_marker = marker.with_name(f".tmp-{uuid.uuid4().hex}.json")
    staged_marker.write_text(json.dumps(record), encoding="utf-8")
    staged_marker.replace(marker)
    return tree


# --------------------------------------------------------------------------- activities


@activity.defn(name="workspace_open")
@heartbeating
@_user_errors_final
def workspace_open(inp: WorkspaceOpenInput) -> WorkspaceRef:
    """Pin the run's base commit: the workspace every later edit builds on."""
    return open_workspace(inp)


@activity.defn(name="workspace_edit")
@heartbeating
@_user_errors_final
def workspace_edit(inp: WorkspaceEditInput) -> WorkspaceEditResult:
    """One atomic batch of edits; refused edits return ``ok=False`` with teaching feedback."""
    return edit_workspace(_db(), inp)


@activity.defn(name="workspace_tool")
@heartbeating
@_user_errors_final
def workspace_tool(inp: WorkspaceToolInput) -> WorkspaceToolOutput:
    """One agent tool call over the workspace (read_file, search_code, list_files, edits)."""
    return call_workspace_tool(_db(), inp)


@activity.defn(name="workspace_merge")
@heartbeating
@_user_errors_final
def workspace_merge(inp: WorkspaceMergeInput) -> WorkspaceMergeResult:
    """Join the workspaces of tasks that ran side by side; a conflicting path refuses."""
    return merge_workspace(_db(), inp)


@activity.defn(name="workspace_read_file")
@heartbeating
def workspace_read_file(inp: WorkspaceFileInput) -> WorkspaceFile:
    """A file of the workspace by blob key (None when the workspace has no such file)."""
    db_url = _db()
    try:
        files = WorkspaceFiles(db_url, inp.workspace)
        data = files.read(inp.path)
    except (UserError, ToolError) as exc:
        raise _user_failure(exc) from exc
    key = None if data is None else put_text(db_url, data.decode("utf-8", errors="replace"))
    return WorkspaceFile(path=inp.path, content_key=key)


@activity.defn(name="workspace_export")
@heartbeating
@_user_errors_final
def workspace_export(ref: WorkspaceRef) -> WorkspaceExport:
    """Per-file patches and the combined diff of the run's change, by blob key."""
    return export_workspace(_db(), ref)


@activity.defn(name="workspace_apply")
@heartbeating
@_user_errors_final
def workspace_apply(inp: WorkspaceApplyInput) -> WorkspaceApplyResult:
    """Write the change into the user's clean checkout at the base commit, else refuse."""
    return apply_workspace(_db(), inp)


@activity.defn(name="workspace_branch")
@heartbeating
@_user_errors_final
def workspace_branch(inp: WorkspaceBranchInput) -> WorkspaceBranch:
    """Commit the change on a new local branch without touching the working tree."""
    return branch_workspace(_db(), inp)


WORKSPACE_ACTIVITIES = [
    workspace_open,
    workspace_edit,
    workspace_tool,
    workspace_read_file,
    workspace_merge,
    workspace_export,
    workspace_apply,
    workspace_branch,
]
"""Main-queue activities a kind lists (``"activities.workspace:WORKSPACE_ACTIVITIES"``)."""
