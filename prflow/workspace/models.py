"""The workspace as workflow data: a small reference of blob keys, never file contents.

A run's workspace is its base commit plus the files it changed. The changed
files live in the blob store (:class:`WorkspaceState` maps each path to a
content key, or None for a deletion), so any worker can rebuild the worktree
from the base SHA and the state key alone, and workflow history stays small.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


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


class PatchLogEntry(BaseModel):
    """One batch in the patch log: its PatchRecord keys and the previous entry (a chain)."""

    previous: str | None = None
    patch_keys: list[str] = Field(default_factory=list)
