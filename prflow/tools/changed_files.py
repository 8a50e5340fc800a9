"""``list_changed_files``: what the pull request touches, one page at a time."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.changes import ChangedFile, FileStatus
from prflow.repo_models import ResolvedRange
from prflow.tools.output import Page, ToolOutput, page_footer, paginate, shown_path
from prflow.tools.reader import RepoReader

NAME = "list_changed_files"
DESCRIPTION = (
    "Changed files of the pull request, one a line: status, path (`old -> new` for a "
    "rename), lines added and deleted, binary or not. Paged: the last line says which "
    "offset gives more."
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
        """One line per file (``status path +added -deleted``) and the page's place."""
        lines = [_entry_line(entry) for entry in self.page.items]
        lines.append(page_footer(self.page, "files"))
        return "\n".join(lines)


def _entry_line(entry: ChangedFileEntry) -> str:
    path = shown_path(entry.path)
    if entry.old_path is not None:
        path = f"{shown_path(entry.old_path)} -> {path}"
    size = "binary" if entry.binary else f"+{entry.additions} -{entry.deletions}"
    return f"{entry.status.value} {path} {size}"


def list_changed_files(
    reader: RepoReader, r: ResolvedRange, args: ListChangedFilesArgs
) -> ListChangedFilesResult:
    entries = [ChangedFileEntry.of(c) for c in reader.changed_files(r.merge_base_sha, r.head_sha)]
    return ListChangedFilesResult(page=paginate(entries, args.offset, args.limit))
