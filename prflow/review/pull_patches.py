"""GitHub's per-file patches of a pull request as data: what ``GET /pulls/{n}/files`` lists.

Kept apart from the diff logic so the run's stage models can carry them without
importing the renderer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, Field

GITHUB_FILES_LIMIT = 3_000
"""``/pulls/{n}/files`` lists at most this many files; a longer list is not complete."""


@dataclass(frozen=True)
class GitHubFile:
    path: str
    previous_path: str | None
    patch: str | None  # None: GitHub shows no diff (too large, or binary)
    status: str = "modified"  # added, removed, modified, renamed, copied, changed, unchanged


class PullPatches(BaseModel):
    """GitHub's per-file patches of a PR as listed at one head (the files themselves are in
    the blob store under ``key``: a long list would not fit in a workflow's history)."""

    key: str = Field(description="Blob of the listed files: path, previous_path, patch, status")
    head_sha: str = Field(
        description="The PR's head when GitHub listed its files; empty when it moved meanwhile"
    )
    listed: int
    changed_files: int = Field(description="How many files GitHub counts in the PR")

    @property
    def complete(self) -> bool:
        """Every changed file is listed (GitHub's list stops at 3,000 files)."""
        return self.listed >= self.changed_files


def files_to_json(files: Iterable[GitHubFile]) -> list[dict[str, str | None]]:
    return [dataclasses.asdict(f) for f in files]


def files_from_json(items: Iterable[dict[str, str | None]]) -> list[GitHubFile]:
    return [
        GitHubFile(
            path=str(item["path"]),
            previous_path=item.get("previous_path"),
            patch=item.get("patch"),
            status=str(item.get("status") or "modified"),
        )
        for item in items
    ]
