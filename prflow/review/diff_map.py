"""Where a finding may be commented on: the lines GitHub shows in a pull request's diff.

GitHub accepts an inline review comment only on a line inside one of the PR
diff's hunks: RIGHT for lines of the head (added or context), LEFT for lines
of the base (removed or context); a multi-line comment must start and end in
the same hunk, on one side. Anything else is answered with HTTP 422, which
fails the whole review. So every finding is placed here, in code, before
posting: inline on a line that exists in the diff, or in the review body with
the reason it could not go inline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from prflow.file_names import unquote_git_path
from prflow.review.models import DiffSide, ReviewFinding


@dataclass(frozen=True)
class Hunk:
    """The line numbers one hunk shows on each side."""

    right: frozenset[int]
    left: frozenset[int]


@dataclass(frozen=True)
class FileLines:
    """What the diff shows of one file."""

    path: str
    old_path: str | None
    binary: bool = False
    deleted: bool = False
    hidden: bool = False  # GitHub lists the file but shows no diff of it (too large)
    hunks: tuple[Hunk, ...] = ()
    added: frozenset[int] = field(default_factory=frozenset)
    removed: frozenset[int] = field(default_factory=frozenset)

    def hunk_of(self, line: int, side: DiffSide) -> int | None:
        """Index of the hunk showing ``line`` on ``side``, or None when no hunk does."""
        for index, hunk in enumerate(self.hunks):
            if line in (hunk.right if side == DiffSide.right else hunk.left):
                return index
        return None


class DiffIndex:
    """Every file of a unified diff (``git diff`` output), by its head path and its old path."""

    def __init__(self, files: list[FileLines], unreadable: list[str] | None = None) -> None:
        self.files = {f.path: f for f in files}
        self._old_paths = {f.old_path: f.path for f in files if f.old_path and f.old_path != f.path}
        self.unreadable = unreadable or []

    @classmethod
    def from_patch(cls, text: str) -> DiffIndex:
        try:
            patch = PatchSet(text)
        except UnidiffParseError as err:
            return cls([], [f"the diff could not be parsed ({err})"])
        return cls([file_lines(patched) for patched in patch])

    def file(self, path: str) -> FileLines | None:
        """The file at ``path`` in the head, or the renamed file whose base path it was."""
        found = self.files.get(path)
        if found is None and path in self._old_paths:
            found = self.files.get(self._old_paths[path])
        return found


def _strip_prefix(name: str) -> str:
    name = unquote_git_path(name)  # "b/tab\there" as git C-quotes it
    for prefix in ("a/", "b/"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def file_lines(patched: object) -> FileLines:
    """What one file of a parsed diff (a unidiff ``PatchedFile``) shows, hunk by hunk."""
    source = _strip_prefix(str(getattr(patched, "source_file", "") or ""))
    target = _strip_prefix(str(getattr(patched, "target_file", "") or ""))
    deleted = bool(getattr(patched, "is_removed_file", False))
    path = source if deleted or target in ("", "/dev/null", "dev/null") else target
    old_path = None if source in ("", "/dev/null", "dev/null") else source
    hunks: list[Hunk] = []
    added: set[int] = set()
    removed: set[int] = set()
    for hunk in patched:  # type: ignore[attr-defined]
        right: set[int] = set()
        left: set[int] = set()
        for line in hunk:
            if line.target_line_no is not None:
                right.add(line.target_line_no)
                if line.is_added:
                    added.add(line.target_line_no)
            if line.source_line_no is not None:
                left.add(line.source_line_no)
                if line.is_removed:
                    removed.add(line.source_line_no)
        hunks.append(Hunk(frozenset(right), frozenset(left)))
    return FileLines(
        path=path,
        old_path=old_path,
        binary=bool(getattr(patched, "is_binary_file", False)),
        deleted=deleted,
        hunks=tuple(hunks),
        added=frozenset(added),
        removed=frozenset(removed),
    )


class PlacementKind(StrEnum):
    inline = "inline"
    body = "body"


class Placement(BaseModel):
    """Where a finding goes: an inline comment's coordinates, or the body and why.

    ``exact`` is true when the comment covers exactly the finding's lines, the
    only case where its suggested replacement can be offered as a committable
    ``suggestion`` block (a suggestion replaces the commented lines).
    """

    kind: PlacementKind
    path: str = ""
    line: int | None = None
    side: DiffSide = DiffSide.right
    start_line: int | None = None
    exact: bool = False
    reason: str = ""

    @property
    def inline(self) -> bool:
        return self.kind == PlacementKind.inline


def place(finding: ReviewFinding, index: DiffIndex) -> Placement:
    """Inline coordinates GitHub will accept for ``finding``, or the body with the reason."""
    lines = index.file(finding.file)
    if lines is None:
        return _body(f"{finding.file} is not changed in this pull request")
    if lines.binary:
        return _body(f"{lines.path} is a binary file")
    if lines.hidden:
        return _body(f"GitHub shows no diff of {lines.path} (too large to display)")
    if finding.file_level:
        return _body(f"about {lines.path} as a whole")
    side = DiffSide.left if lines.deleted else finding.side
    start, end = sorted((finding.line_start, finding.line_end))
    end_hunk = lines.hunk_of(end, side)
    start_hunk = lines.hunk_of(start, side)
    if end_hunk is not None and start_hunk == end_hunk:
        return Placement(
            kind=PlacementKind.inline,
            path=lines.path,
            line=end,
            side=side,
            start_line=start if start != end else None,
            exact=True,
        )
    shown = [
        line
        for hunk in lines.hunks
        for line in (hunk.right if side == DiffSide.right else hunk.left)
        if start <= line <= end
    ]
    if shown:  # the last line of the range that the diff shows
        return Placement(kind=PlacementKind.inline, path=lines.path, line=max(shown), side=side)
    where = f"line {start} is" if start == end else f"lines {start}-{end} are"
    label = "head" if side == DiffSide.right else "base"
    return _body(f"{where} outside the diff of {lines.path} ({label})")


def _body(reason: str) -> Placement:
    return Placement(kind=PlacementKind.body, reason=reason)
