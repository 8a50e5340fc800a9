"""The workspace as workflow data: a small reference of blob keys, never file contents.

A run's workspace is its base commit plus the files it changed. The changed
files live in the blob store (:class:`WorkspaceState` maps each path to a
content key, or None for a deletion), so any worker can rebuild the worktree
from the base SHA and the state key alone, and workflow history stays small.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from prflow.workspace.edits import EditError, FileEdit


class WorkspaceRef(BaseModel):
    """Where a run's workspace stands: base commit + the blob keys of its changes."""

    repo: str = Field(description="Local path or clone URL, as git.open_repo takes it")
    base_sha: str
    state_key: str | None = Field(
        default=None, description="Blob of the WorkspaceState; None: no change yet"
    )
    patch_log_key: str | None = Field(
        default=None, description="Blob of the newest PatchLogEntry; None: no edit yet"
    )
    run_id: str
    revision: int = Field(default=0, description="Successful edit batches so far")


class WorkspaceState(BaseModel):
    """Every path the run changed: its content blob key, or None when deleted."""

    files: dict[str, str | None] = Field(default_factory=dict)


def overlay_paths(base: Iterable[str], changes: Mapping[str, str | None]) -> list[str]:
    """The workspace's paths, sorted: the base commit's, less deletions, plus added files.

    ``changes`` maps each changed path to its content key, or None when deleted
    (:attr:`WorkspaceState.files`).
    """
    out = set(base)
    for path, key in changes.items():
        if key is None:
            out.discard(path)
        else:
            out.add(path)
    return sorted(out)


class PatchLogEntry(BaseModel):
    """One batch in the patch log: its PatchRecord keys and the previous entry (a chain)."""

    previous: str | None = None
    patch_keys: list[str] = Field(default_factory=list)


class WorkspaceOpenInput(BaseModel):
    """Start a workspace for a run at a commit of a repository."""

    repo: str
    base: str = Field(default="HEAD", description="Branch, tag or commit to start from")
    run_id: str


class WorkspaceEditInput(BaseModel):
    """One atomic batch of edits against the workspace as it stands."""

    workspace: WorkspaceRef
    edits: list[FileEdit]
    editable: list[str] = Field(
        default_factory=list, description="Globs/paths the actor may edit; empty: any"
    )
    actor: str = "agent"


class WorkspaceEditResult(BaseModel):
    """The new reference (unchanged when refused), and what to tell the model."""

    ok: bool
    workspace: WorkspaceRef
    errors: list[EditError] = Field(default_factory=list)
    patch_keys: list[str] = Field(default_factory=list, description="Blob keys of PatchRecords")
    feedback_text: str
    feedback_key: str


class WorkspaceToolInput(BaseModel):
    """One agent tool call against the workspace (read, search, list, or an edit)."""

    workspace: WorkspaceRef
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    editable: list[str] = Field(default_factory=list)
    actor: str = "agent"


class WorkspaceToolOutput(BaseModel):
    """The tool's text by key; ``workspace`` is set when an edit moved the workspace on."""

    ok: bool
    content_key: str
    preview: str
    error: str | None = None
    workspace: WorkspaceRef | None = None


class WorkspaceFileInput(BaseModel):
    workspace: WorkspaceRef
    path: str


class WorkspaceFile(BaseModel):
    """A file of the workspace by blob key; ``content_key`` None: no such file."""

    path: str
    content_key: str | None


class ExportedPatch(BaseModel):
    """One file's change as a patch git applies to the base commit."""

    path: str
    old_path: str | None = None
    status: str = Field(description="git's letter: A added, M modified, D deleted, R renamed")
    file_name: str = Field(description="e.g. '001-src-app.py.patch', for a diffs/ directory")
    patch_key: str


class WorkspaceExport(BaseModel):
    """The run's change as per-file patches and one combined diff, by blob key."""

    base_sha: str
    tree_sha: str
    files: list[ExportedPatch] = Field(default_factory=list)
    combined_key: str


class WorkspaceApplyInput(BaseModel):
    """Write the workspace's change into the user's checkout at ``path``."""

    workspace: WorkspaceRef
    path: str


class WorkspaceApplyResult(BaseModel):
    written: list[str] = Field(default_factory=list, description="Paths changed in the tree")


class WorkspaceBranchInput(BaseModel):
    """Commit the workspace on a new branch of the local repository, the worktree untouched."""

    workspace: WorkspaceRef
    branch: str
    message: str


class WorkspaceBranch(BaseModel):
    branch: str
    commit_sha: str
    tree_sha: str


class DraftPullRequestInput(BaseModel):
    """Open the run's change as a draft pull request through GitHub's Git Data API."""

    workspace: WorkspaceRef
    repository: str = Field(description="owner/name on GitHub")
    branch: str = Field(description="New branch for the change; one per run (e.g. prflow/<run>)")
    base_branch: str | None = Field(default=None, description="None: the default branch")
    title: str
    body_key: str = Field(description="Blob key of the PR body (pr-summary.md)")
    commit_message: str | None = Field(default=None, description="None: the title")


class DraftPullRequest(BaseModel):
    number: int
    html_url: str
    branch: str
    commit_sha: str
    created: bool = Field(description="False when a retry found the run's existing pull request")


class WorkspaceMergeInput(BaseModel):
    """Join the workspaces of tasks that all started from ``base``."""

    base: WorkspaceRef
    branches: list[WorkspaceRef]


class WorkspaceMergeResult(BaseModel):
    """The joined reference, or ``ok=False`` with the paths two tasks changed differently."""

    ok: bool
    workspace: WorkspaceRef
    conflicts: list[str] = Field(default_factory=list)
