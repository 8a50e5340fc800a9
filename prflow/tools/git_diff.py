"""``git_diff``: the PR's unified diff, whole or for one file, in line windows."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.repo_models import ResolvedRange
from prflow.text_lines import split_lines
from prflow.tools.output import ToolOutput, truncation_marker, window_lines
from prflow.tools.paths import clean_repo_path
from prflow.tools.reader import RepoReader, ToolError

NAME = "git_diff"
DESCRIPTION = (
    "Unified diff of the pull request (fork point to head). Always pass `file` (new or old "
    "path of a rename): one file at a time, never the whole diff. Long output is cut: call "
    "again with the `offset` that its last line gives."
)
MAX_CHARS = 60_000


class GitDiffArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str | None = Field(
        default=None, description="Repository-relative path of one changed file"
    )
    offset: int = Field(default=0, ge=0, description="First diff line (0-based)")
    limit: int = Field(default=600, ge=1, le=2000)


class GitDiffResult(ToolOutput):
    file: str | None
    base_sha: str
    head_sha: str
    lines: list[str]
    offset: int
    total_lines: int
    next_offset: int | None

    def to_text(self) -> str:
        if self.total_lines == 0:
            scope = f"{self.file}" if self.file else "this pull request"
            return f"(no differences in {scope})"
        body = "\n".join(self.lines)
        if self.next_offset is None:
            return body
        remaining = self.total_lines - self.next_offset
        return f"{body}\n{truncation_marker(remaining, self.next_offset)}"


def git_diff(reader: RepoReader, r: ResolvedRange, args: GitDiffArgs) -> GitDiffResult:
    paths: list[str] | None = None
    file: str | None = None
    if args.file is not None:
        file = clean_repo_path(args.file)
        paths = _diff_paths(reader, r, file)
    text = reader.diff(r.merge_base_sha, r.head_sha, paths)
    window = window_lines(_for_a_reader(split_lines(text)), args.offset, args.limit, MAX_CHARS)
    return GitDiffResult(
        file=file,
        base_sha=r.merge_base_sha,
        head_sha=r.head_sha,
        lines=window.lines,
        offset=window.start,
        total_lines=window.total_lines,
        next_offset=window.next_offset,
    )


def _for_a_reader(lines: list[str]) -> list[str]:
    """The diff without git's ``index <blob>..<blob>`` header lines: blob ids say nothing to
    a reader (a content line never starts with "index": it starts with ' ', '+' or '-')."""
    return [line for line in lines if not line.startswith("index ")]


def _diff_paths(reader: RepoReader, r: ResolvedRange, file: str) -> list[str]:
    """Both sides of a rename, so git can still pair them; unchanged files are an error."""
    changed = reader.changed_files(r.merge_base_sha, r.head_sha)
    for entry in changed:
        if file in (entry.path, entry.old_path):
            return [p for p in (entry.old_path, entry.path) if p is not None]
    sample = ", ".join(entry.path for entry in changed[:10]) or "none"
    more = f" (and {len(changed) - 10} more)" if len(changed) > 10 else ""
    raise ToolError(
        f"{file!r} is not changed in this pull request. Changed files: {sample}{more}. "
        "Use list_changed_files for the full list, or read_file_at_ref to read an unchanged file."
    )
