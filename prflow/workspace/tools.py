"""The workspace tools as the model sees them: read, search and list the run's current files,
and edit them through the exact-unique batch semantics.

Reads see the workspace (base commit plus the run's edits), never the user's
checkout. The functions here are pure: they work on a :class:`WorkspaceView`
the activity builds, so the same tools can be unit-tested without git.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from prflow.llm.messages import ToolSpec
from prflow.source_tree import looks_binary
from prflow.tools.output import split_lines, truncation_marker, window_lines
from prflow.tools.paths import clean_glob, clean_repo_path
from prflow.tools.reader import GrepHit, ToolError
from prflow.tools.registry import describe_validation_error, input_schema
from prflow.workspace.edits import CreateFile, DeleteFile, MoveFile, ReplaceEdit

READ_FILE = "read_file"
SEARCH_CODE = "search_code"
LIST_FILES = "list_files"
EDIT_FILE = "edit_file"
CREATE_FILE = "create_file"
DELETE_FILE = "delete_file"
MOVE_FILE = "move_file"
READ_TOOLS = (READ_FILE, SEARCH_CODE, LIST_FILES)
EDIT_TOOLS = (EDIT_FILE, CREATE_FILE, DELETE_FILE, MOVE_FILE)
MAX_READ_CHARS = 60_000
MAX_LIST = 500


class WorkspaceView(Protocol):
    """The run's files as they stand now (base commit plus edits)."""

    def read(self, path: str) -> bytes | None: ...

    def list_files(self) -> list[str]: ...

    def grep(self, pattern: str, glob: str | None) -> list[GrepHit]: ...


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="Repository-relative path")
    offset_line: int = Field(default=1, ge=1, description="First line (1-based)")
    limit_lines: int = Field(default=400, ge=1, le=2000)


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str = Field(description="Extended regular expression, e.g. 'def (load|save)_'")
    glob: str | None = Field(default=None, description="Narrow the files, e.g. '*.py'")
    limit: int = Field(default=100, ge=1, le=500)


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    glob: str | None = Field(default=None, description="e.g. 'src/*' or '*.ts'")
    offset: int = Field(default=0, ge=0)


class EditEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    old_string: str = Field(description="Exact text to find; MUST occur exactly once")
    new_string: str = Field(description="Replacement text")
    reason: str = Field(description="Why this change is needed")


class EditArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    edits: list[EditEntry] = Field(min_length=1)


class CreateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    content: str
    reason: str


class DeleteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    reason: str


class MoveArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    new_path: str
    reason: str


_DESCRIPTIONS: dict[str, tuple[str, type[BaseModel]]] = {
    READ_FILE: (
        "A file of the workspace (your edits included), lines numbered from 1. Long files "
        "come in windows: call again with the `offset_line` the last line gives.",
        ReadArgs,
    ),
    SEARCH_CODE: (
        "Regular-expression search (POSIX extended) over the workspace's text files, your "
        "edits included. Gives path:line:text.",
        SearchArgs,
    ),
    LIST_FILES: ("Paths of the workspace's files, optionally filtered by a glob.", ListArgs),
    EDIT_FILE: (
        "Targeted replacements in one file, applied in order and all or none. Each "
        "old_string must match the file character for character and occur exactly once: "
        "include surrounding lines (a def line, a heading) to make it unique. Give a reason "
        "per edit. Do not rewrite whole files.",
        EditArgs,
    ),
    CREATE_FILE: ("Create a new file (it must not exist yet).", CreateArgs),
    DELETE_FILE: ("Delete a file.", DeleteArgs),
    MOVE_FILE: ("Move or rename a file, content unchanged.", MoveArgs),
}

WORKSPACE_TOOL_SPECS: list[ToolSpec] = [
    ToolSpec(name=name, description=text, input_schema=input_schema(model))
    for name, (text, model) in _DESCRIPTIONS.items()
]
WORKSPACE_TOOL_NAMES: tuple[str, ...] = tuple(_DESCRIPTIONS)


def _args(name: str, arguments: dict[str, Any]) -> BaseModel:
    entry = _DESCRIPTIONS.get(name)
    if entry is None:
        raise ToolError(f"unknown tool {name!r}; available: {', '.join(WORKSPACE_TOOL_NAMES)}")
    try:
        return entry[1].model_validate(arguments)
    except ValidationError as exc:
        raise ToolError(f"invalid arguments for {name}: {describe_validation_error(exc)}") from None


def edits_of(
    name: str, arguments: dict[str, Any]
) -> list[ReplaceEdit | CreateFile | DeleteFile | MoveFile]:
    """The edit batch an edit tool call asks for (raises :class:`ToolError` on bad input)."""
    args = _args(name, arguments)
    if isinstance(args, EditArgs):
        return [
            ReplaceEdit(
                path=args.path, old_string=e.old_string, new_string=e.new_string, reason=e.reason
            )
            for e in args.edits
        ]
    if isinstance(args, CreateArgs):
        return [CreateFile(path=args.path, content=args.content, reason=args.reason)]
    if isinstance(args, DeleteArgs):
        return [DeleteFile(path=args.path, reason=args.reason)]
    if isinstance(args, MoveArgs):
        return [MoveFile(path=args.path, new_path=args.new_path, reason=args.reason)]
    raise ToolError(f"{name} does not edit files")


def run_read_tool(view: WorkspaceView, name: str, arguments: dict[str, Any]) -> str:
    """The text a read tool answers with; caller mistakes raise :class:`ToolError`."""
    args = _args(name, arguments)
    if isinstance(args, ReadArgs):
        return read_file(view, args)
    if isinstance(args, SearchArgs):
        return search(view, args)
    if isinstance(args, ListArgs):
        return list_files(view, args)
    raise ToolError(f"{name} is not a read tool")


def read_file(view: WorkspaceView, args: ReadArgs) -> str:
    path = clean_repo_path(args.path)
    data = view.read(path)
    if data is None:
        raise ToolError(f"{path!r} does not exist in the workspace; find it with list_files")
    if looks_binary(data):
        return f"{path} is a binary file of {len(data)} bytes; its content is not shown."
    lines = split_lines(data.decode("utf-8", errors="replace"))
    if not lines:
        return f"{path} is empty."
    window = window_lines(lines, args.offset_line - 1, args.limit_lines, MAX_READ_CHARS)
    first = window.start + 1
    last = window.start + len(window.lines)
    if not window.lines:
        return f"{path} has {len(lines)} lines; offset_line {args.offset_line} is past the end."
    parts = [f"{path}, lines {first}-{last} of {len(lines)}"]
    parts += [f"{first + i:>6}\t{line}" for i, line in enumerate(window.lines)]
    if window.next_offset is not None:
        parts.append(truncation_marker(window.remaining, window.next_offset + 1, "offset_line"))
    return "\n".join(parts)


def search(view: WorkspaceView, args: SearchArgs) -> str:
    if not args.pattern:
        raise ToolError("empty pattern: pass a regular expression to search for")
    glob = clean_glob(args.glob) if args.glob else None
    hits = view.grep(args.pattern, glob)
    if not hits:
        return f"No match for {args.pattern!r}" + (f" in {glob}" if glob else "") + "."
    shown = [f"{h.file}:{h.line}:{h.match[:300]}" for h in hits[: args.limit]]
    if len(hits) > args.limit:
        shown.append(f"[... {len(hits) - args.limit} more matches; narrow the pattern or glob]")
    return "\n".join(shown)


def list_files(view: WorkspaceView, args: ListArgs) -> str:
    files = view.list_files()
    if args.glob:
        glob = clean_glob(args.glob)
        files = [f for f in files if fnmatchcase(f, glob) or f.startswith(glob.rstrip("/") + "/")]
    page = files[args.offset : args.offset + MAX_LIST]
    text = "\n".join(page) if page else "No files."
    rest = len(files) - args.offset - len(page)
    if rest > 0:
        text += "\n" + truncation_marker(rest, args.offset + len(page), "offset")
    return text


def grep_texts(texts: dict[str, str], pattern: str, glob: str | None) -> list[GrepHit]:
    """Matching lines of in-memory files (the run's edited ones), like ``git grep -E``."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from None
    hits: list[GrepHit] = []
    for path in sorted(texts):
        if glob and not (fnmatchcase(path, glob) or fnmatchcase(path.rsplit("/", 1)[-1], glob)):
            continue
        for number, line in enumerate(split_lines(texts[path]), start=1):
            if regex.search(line):
                hits.append(GrepHit(file=path, line=number, match=line))
    return hits


def merge_hits(
    base: Sequence[GrepHit], edited: Sequence[GrepHit], changed: set[str]
) -> list[GrepHit]:
    """Base-commit hits outside the changed files, plus hits in the edited files, by path."""
    kept = [h for h in base if h.file not in changed]
    return sorted([*kept, *edited], key=lambda h: (h.file, h.line))
