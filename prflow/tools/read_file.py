"""``read_file_at_ref``: one file's text at the PR head, its base, or any commit."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.repo_models import ResolvedRange
from prflow.source_tree import looks_binary
from prflow.text_lines import split_lines
from prflow.tools.output import ToolOutput, truncation_marker, window_lines
from prflow.tools.paths import clean_repo_path
from prflow.tools.reader import RepoReader, ToolError
from prflow.tools.refs import commit_for

NAME = "read_file_at_ref"
DESCRIPTION = (
    "A file at `ref`: 'head' (default), 'base' (the fork point) or a commit id, lines "
    "numbered from 1; quote evidence from it. Long files come in windows: call again with "
    "the `offset_line` that the last line gives. Binary files are reported, not shown."
)
MAX_CHARS = 60_000


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="Repository-relative path")
    ref: str = Field(default="head")
    offset_line: int = Field(default=1, ge=1, description="First line (1-based)")
    limit_lines: int = Field(default=400, ge=1, le=2000)


class ReadFileResult(ToolOutput):
    path: str
    ref: str
    sha: str
    size_bytes: int
    binary: bool = False
    invalid_utf8: bool = Field(default=False, description="Undecodable bytes were shown as U+FFFD")
    first_line: int = Field(description="1-based number of the first line shown")
    lines: list[str]
    total_lines: int
    next_offset_line: int | None = None

    def to_text(self) -> str:
        where = f"{self.path} at {self.ref} ({self.sha[:12]})"
        if self.binary:
            return f"{where} is a binary file of {self.size_bytes} bytes; its content is not shown."
        if self.total_lines == 0:
            return f"{where} is empty."
        last = self.first_line + len(self.lines) - 1
        header = f"{where}, lines {self.first_line}-{last} of {self.total_lines}"
        if self.invalid_utf8:
            header += " (not valid UTF-8: undecodable bytes are shown as \ufffd)"
        numbered = [f"{self.first_line + i:>6}\t{line}" for i, line in enumerate(self.lines)]
        parts = [header, *numbered]
        if self.next_offset_line is not None:
            remaining = self.total_lines - last
            parts.append(truncation_marker(remaining, self.next_offset_line, "offset_line"))
        return "\n".join(parts)


def read_file_at_ref(reader: RepoReader, r: ResolvedRange, args: ReadFileArgs) -> ReadFileResult:
    path = clean_repo_path(args.path)
    sha = commit_for(reader, r, args.ref)
    data = reader.read_file(sha, path)
    if data is None:
        raise ToolError(
            f"{path!r} does not exist at {args.ref} ({sha[:12]}). Check the spelling with "
            "list_changed_files or search_code; a file added by the PR exists only at 'head', "
            "a deleted one only at 'base'."
        )
    common = {"path": path, "ref": args.ref, "sha": sha, "size_bytes": len(data)}
    if looks_binary(data):
        return ReadFileResult(**common, binary=True, first_line=1, lines=[], total_lines=0)
    try:
        text = data.decode("utf-8")
        invalid = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        invalid = True
    all_lines = split_lines(text)
    window = window_lines(all_lines, args.offset_line - 1, args.limit_lines, MAX_CHARS)
    if window.total_lines and not window.lines:
        raise ToolError(
            f"offset_line={args.offset_line} is past the end of {path!r}, "
            f"which has {window.total_lines} lines"
        )
    return ReadFileResult(
        **common,
        invalid_utf8=invalid,
        first_line=window.start + 1,
        lines=window.lines,
        total_lines=window.total_lines,
        next_offset_line=None if window.next_offset is None else window.next_offset + 1,
    )
