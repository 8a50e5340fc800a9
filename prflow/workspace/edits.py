"""Exact-unique file edits applied as one atomic batch, with errors that teach.

The model edits by quoting: ``old_string`` must occur exactly once in the file
(seed 004). Fuzzy matching would guess; refusing and showing the real text lets
the model correct itself in one turn. Each failure therefore carries what the
model needs next: the start of the file and the nearest real lines when the
text is absent, the count and line numbers when it is ambiguous. Edits in a
batch apply in order, each to the text the previous ones produced, and the
batch is atomic: one failure and nothing changes. Lines are counted on ``"\\n"``
only, as git and editors count them.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from prflow.tools.paths import clean_repo_path
from prflow.tools.reader import ToolError
from prflow.workspace.patches import PatchRecord, file_diff

PREVIEW_CHARS = 500
SNIPPET_CONTEXT = 2
MAX_SNIPPET_LINES = 40
NEAREST_LINES = 3


class ReplaceEdit(BaseModel):
    """Replace the one occurrence of ``old_string`` in ``path`` by ``new_string``."""

    op: Literal["replace"] = "replace"
    path: str
    old_string: str = Field(description="Exact text to find; must occur exactly once")
    new_string: str
    reason: str = Field(description="Why this change is needed")


class CreateFile(BaseModel):
    """Create ``path`` (it must not exist) with ``content``."""

    op: Literal["create"] = "create"
    path: str
    content: str
    reason: str


class DeleteFile(BaseModel):
    """Delete ``path`` (it must exist)."""

    op: Literal["delete"] = "delete"
    path: str
    reason: str


class MoveFile(BaseModel):
    """Move ``path`` to ``new_path`` (which must not exist), content unchanged."""

    op: Literal["move"] = "move"
    path: str
    new_path: str
    reason: str


FileEdit = Annotated[ReplaceEdit | CreateFile | DeleteFile | MoveFile, Field(discriminator="op")]


class ErrorKind(StrEnum):
    not_found = "not_found"
    not_unique = "not_unique"
    empty_old_string = "empty_old_string"
    no_change = "no_change"
    empty_reason = "empty_reason"
    not_editable = "not_editable"
    bad_path = "bad_path"
    no_such_file = "no_such_file"
    file_exists = "file_exists"
    unreadable = "unreadable"


class EditError(BaseModel):
    """Why one edit was refused, worded for the model that sent it."""

    edit_index: int
    path: str
    kind: ErrorKind
    message: str
    hint: str = ""
    occurrences: list[int] = Field(default_factory=list, description="1-based line numbers")
    preview: str | None = Field(default=None, description="The file's first 500 characters")
    nearest_lines: list[str] = Field(
        default_factory=list, description="Real lines most like the first line sought"
    )

    def text(self) -> str:
        parts = [f"Edit {self.edit_index} ({self.path}): {self.message}"]
        if self.nearest_lines:
            parts.append("Nearest real lines:\n" + "\n".join(self.nearest_lines))
        if self.preview is not None:
            parts.append(f"Actual file content (first {PREVIEW_CHARS} chars):\n```\n")
            parts[-1] += self.preview + "\n```"
        if self.hint:
            parts.append(f"Hint: {self.hint}")
        return "\n".join(parts)


class ChangedRegion(BaseModel):
    """What one applied edit left behind: numbered lines around the change."""

    edit_index: int
    path: str
    reason: str
    summary: str
    snippet: str = ""


class BatchOutcome(BaseModel):
    """All edits applied (``ok``), or none and the errors saying why."""

    ok: bool
    errors: list[EditError] = Field(default_factory=list)
    contents: dict[str, str | None] = Field(
        default_factory=dict, description="Final text of every touched path; None: deleted"
    )
    patches: list[PatchRecord] = Field(default_factory=list)
    regions: list[ChangedRegion] = Field(default_factory=list)

    def feedback_text(self) -> str:
        """What the model reads back: the changed regions, or why nothing changed."""
        if not self.ok:
            head = "No edit in this batch was applied (a batch is all or nothing)."
            return "\n\n".join([head, *(e.text() for e in self.errors)])
        noun = "edit" if len(self.regions) == 1 else "edits"
        parts = [f"Applied {len(self.regions)} {noun}."]
        for region in self.regions:
            block = f"Edit {region.edit_index} ({region.path}): {region.summary}"
            if region.snippet:
                block += "\n" + region.snippet
            parts.append(block)
        return "\n\n".join(parts)


class UnreadableFile(Exception):
    """The workspace cannot show this file as text (binary, undecodable)."""


Reader = Callable[[str], str | None]


def line_of(text: str, index: int) -> int:
    """1-based number of the line holding character ``index`` (lines end at ``\\n`` only)."""
    return text.count("\n", 0, index) + 1


def occurrences(text: str, needle: str) -> list[int]:
    """Start indexes of every occurrence of ``needle``, overlapping ones included."""
    found: list[int] = []
    start = text.find(needle)
    while start != -1:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


def numbered(text: str, first: int, last: int) -> str:
    """Lines ``first..last`` (1-based, inclusive) of ``text``, numbered as read_file shows them."""
    lines = text.split("\n")
    if lines and lines[-1] == "" and text:
        lines.pop()
    last = min(last, len(lines))
    first = max(min(first, last), 1)
    shown = [f"{n:>6}\t{lines[n - 1]}" for n in range(first, last + 1)]
    if len(shown) > MAX_SNIPPET_LINES:
        half = MAX_SNIPPET_LINES // 2
        skipped = len(shown) - 2 * half
        shown = [*shown[:half], f"   ...\t({skipped} lines not shown)", *shown[-half:]]
    return "\n".join(shown)


def _preview(text: str) -> str:
    if not text:
        return "(the file is empty)"
    return text[:PREVIEW_CHARS] + ("..." if len(text) > PREVIEW_CHARS else "")


def _nearest(text: str, old_string: str) -> list[str]:
    """The file's lines closest to the first non-blank line of ``old_string``."""
    wanted = next((line.strip() for line in old_string.split("\n") if line.strip()), "")
    if not wanted:
        return []
    lines = text.split("\n")
    stripped = [line.strip() for line in lines]
    close = difflib.get_close_matches(wanted, stripped, n=NEAREST_LINES, cutoff=0.5)
    out: list[str] = []
    for match in close:
        for number, candidate in enumerate(stripped, start=1):
            entry = f"{number:>6}\t{lines[number - 1]}"
            if candidate == match and entry not in out:
                out.append(entry)
                break
    return out


def in_file_line_ends(text: str, old_string: str, new_string: str) -> tuple[str, str]:
    """The edit in the file's line ends. In a file whose every line ends in CRLF, a string
    written with LF ends only (read_file shows lines, not their ends, so a model writes
    "\\n") is taken as written in CRLF: the match must still be exact and unique, and the
    lines it adds keep the file's ends. Any other edit as given."""
    if "\r\n" not in text or text.count("\n") != text.count("\r\n"):
        return old_string, new_string
    return _crlf(old_string), _crlf(new_string)


def _crlf(text: str) -> str:
    return text if "\r" in text else text.replace("\n", "\r\n")


def _not_found(index: int, path: str, text: str, old_string: str) -> EditError:
    hint = "Copy old_string exactly from the file, including whitespace and indentation."
    if "\r\n" in text and "\r\n" not in old_string and old_string.replace("\n", "\r\n") in text:
        hint = "The file uses CRLF line endings: write '\\r\\n' at the end of each line."
    return EditError(
        edit_index=index,
        path=path,
        kind=ErrorKind.not_found,
        message="Text not found in file. The old_string you provided does not exist in the file.",
        hint=hint,
        preview=_preview(text),
        nearest_lines=_nearest(text, old_string),
    )


def _not_unique(index: int, path: str, text: str, starts: list[int]) -> EditError:
    lines = [line_of(text, s) for s in starts]
    return EditError(
        edit_index=index,
        path=path,
        kind=ErrorKind.not_unique,
        message=(
            f"Text appears {len(starts)} times in file (at lines "
            f"{', '.join(str(n) for n in lines)}) - include more surrounding context to "
            "make it unique."
        ),
        hint="Add the preceding or following lines (a def/class line, a heading) to old_string.",
        occurrences=lines,
    )


class _Batch:
    """The overlay of a batch in progress: paths touched so far and their current text."""

    def __init__(self, read: Reader, may_edit: Callable[[str], bool], scope_hint: str) -> None:
        self.read = read
        self.may_edit = may_edit
        self.scope_hint = scope_hint
        self.current: dict[str, str | None] = {}

    def text_of(self, path: str) -> str | None:
        if path in self.current:
            return self.current[path]
        return self.read(path)

    def clean(self, index: int, path: str) -> str | EditError:
        try:
            cleaned = clean_repo_path(path)
        except ToolError as exc:
            return EditError(edit_index=index, path=path, kind=ErrorKind.bad_path, message=str(exc))
        if ".git" in cleaned.split("/"):
            return EditError(
                edit_index=index,
                path=path,
                kind=ErrorKind.bad_path,
                message="files under .git cannot be edited",
            )
        if not self.may_edit(cleaned):
            return EditError(
                edit_index=index,
                path=cleaned,
                kind=ErrorKind.not_editable,
                message="this file is outside the files you may edit.",
                hint=self.scope_hint or "Edit only the files named in your task.",
            )
        return cleaned


def _fail(index: int, path: str, kind: ErrorKind, message: str, hint: str = "") -> EditError:
    return EditError(edit_index=index, path=path, kind=kind, message=message, hint=hint)


def apply_batch(
    read: Reader,
    edits: Sequence[ReplaceEdit | CreateFile | DeleteFile | MoveFile],
    *,
    may_edit: Callable[[str], bool] = lambda _path: True,
    actor: str = "agent",
    scope_hint: str = "",
) -> BatchOutcome:
    """Apply ``edits`` in order to the files ``read`` returns (None: absent), all or none.

    ``read`` may raise :class:`UnreadableFile`. Nothing is written: the outcome
    carries the new contents for the caller to store.
    """
    batch = _Batch(read, may_edit, scope_hint)
    patches: list[PatchRecord] = []
    regions: list[ChangedRegion] = []
    for index, edit in enumerate(edits):
        try:
            result = _apply_one(batch, index, edit, actor)
        except UnreadableFile as exc:
            result = _fail(index, edit.path, ErrorKind.unreadable, str(exc))
        if isinstance(result, EditError):
            return BatchOutcome(ok=False, errors=[result])
        patches.append(result[0])
        regions.append(result[1])
    return BatchOutcome(ok=True, contents=dict(batch.current), patches=patches, regions=regions)


def _apply_one(
    batch: _Batch, index: int, edit: ReplaceEdit | CreateFile | DeleteFile | MoveFile, actor: str
) -> tuple[PatchRecord, ChangedRegion] | EditError:
    if not edit.reason.strip():
        return _fail(
            index,
            edit.path,
            ErrorKind.empty_reason,
            "reason is empty.",
            "Say in one sentence why this change is needed.",
        )
    path = batch.clean(index, edit.path)
    if isinstance(path, EditError):
        return path
    if isinstance(edit, ReplaceEdit):
        return _replace(batch, index, path, edit, actor)
    if isinstance(edit, CreateFile):
        if batch.text_of(path) is not None:
            return _fail(
                index,
                path,
                ErrorKind.file_exists,
                "the file already exists.",
                "Use a replace edit to change an existing file.",
            )
        batch.current[path] = edit.content
        last = edit.content.count("\n") + 1
        return (
            PatchRecord(
                path=path,
                diff=file_diff(None, path, None, edit.content),
                reason=edit.reason,
                edit_index=index,
                actor=actor,
            ),
            ChangedRegion(
                edit_index=index,
                path=path,
                reason=edit.reason,
                summary=f"created ({last} lines)",
                snippet=numbered(edit.content, 1, last),
            ),
        )
    before = batch.text_of(path)
    if before is None:
        return _fail(index, path, ErrorKind.no_such_file, "no such file in the workspace.")
    if isinstance(edit, DeleteFile):
        batch.current[path] = None
        return (
            PatchRecord(
                path=path,
                diff=file_diff(path, None, before, None),
                reason=edit.reason,
                edit_index=index,
                actor=actor,
            ),
            ChangedRegion(edit_index=index, path=path, reason=edit.reason, summary="deleted"),
        )
    target = batch.clean(index, edit.new_path)
    if isinstance(target, EditError):
        return target
    if target == path or batch.text_of(target) is not None:
        return _fail(index, target, ErrorKind.file_exists, "the destination already exists.")
    batch.current[path] = None
    batch.current[target] = before
    return (
        PatchRecord(
            path=target,
            old_path=path,
            diff=file_diff(path, target, before, before),
            reason=edit.reason,
            edit_index=index,
            actor=actor,
        ),
        ChangedRegion(
            edit_index=index, path=target, reason=edit.reason, summary=f"moved from {path}"
        ),
    )


def _replace(
    batch: _Batch, index: int, path: str, edit: ReplaceEdit, actor: str
) -> tuple[PatchRecord, ChangedRegion] | EditError:
    if not edit.old_string:
        return _fail(
            index,
            path,
            ErrorKind.empty_old_string,
            "old_string is empty.",
            "Quote the text to replace; to make a new file use create_file.",
        )
    if edit.old_string == edit.new_string:
        return _fail(index, path, ErrorKind.no_change, "old_string and new_string are identical.")
    before = batch.text_of(path)
    if before is None:
        return _fail(
            index,
            path,
            ErrorKind.no_such_file,
            "no such file in the workspace.",
            "Check the path with list_files; to make a new file use create_file.",
        )
    old_string, new_string = in_file_line_ends(before, edit.old_string, edit.new_string)
    starts = occurrences(before, old_string)
    if not starts:
        return _not_found(index, path, before, edit.old_string)
    if len(starts) > 1:
        return _not_unique(index, path, before, starts)
    at = starts[0]
    after = before[:at] + new_string + before[at + len(old_string) :]
    batch.current[path] = after
    first = line_of(after, at)
    last = line_of(after, at + max(len(new_string) - 1, 0))
    removed = old_string.count("\n") + 1
    added = new_string.count("\n") + 1 if new_string else 0
    return (
        PatchRecord(
            path=path,
            diff=file_diff(path, path, before, after),
            reason=edit.reason,
            edit_index=index,
            actor=actor,
        ),
        ChangedRegion(
            edit_index=index,
            path=path,
            reason=edit.reason,
            summary=f"replaced {removed} line(s) with {added} at line {first}",
            snippet=numbered(after, first - SNIPPET_CONTEXT, last + SNIPPET_CONTEXT),
        ),
    )
