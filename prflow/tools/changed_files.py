"""``list_changed_files``: what the pull request touches, one page at a time."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.changes import ChangedFile, FileStatus
from prflow.repo_models import ResolvedRange
from prflow.tools.output import Page, ToolOutput, paginate
from prflow.tools.reader import RepoReader

NAME = "list_changed_files"
DESCRIPTION = (
    "Changed files of the pull request: path, status, lines added and deleted, the old "
    "path of a rename, binary or not. Paged: with `has_next`, call again at `next_offset`."
)


class ListChangedFilesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=100, ge=1, le=500)


class ChangedFileEntry(BaseModel):
    path: str
    status: FileStatus
    additions: int
    deletions: int
    old_path: str | None = None
    binary: bool | None = Field(default=None, description="Only set (true) for binary files")

    @classmethod
    def of(cls, changed: ChangedFile) -> ChangedFileEntry:
        return cls(
            path=changed.path,
            status=changed.status,
            additions=changed.additions,
            deletions=changed.deletions,
            old_path=changed.old_path,
            binary=True if changed.binary else None,
        )


class ListChangedFilesResult(ToolOutput):
    page: Page[ChangedFileEntry]

    def to_text(self) -> str:
        return self.page.model_dump_json(exclude_none=True)


def list_changed_files(
    reader: RepoReader, r: ResolvedRange, args: ListChangedFilesArgs
) -> ListChangedFilesResult:
    entries = [ChangedFileEntry.of(c) for c in reader.changed_files(r.merge_base_sha, r.head_sha)]
    return ListChangedFilesResult(page=paginate(entries, args.offset, args.limit))
