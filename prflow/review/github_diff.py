"""The PR diff as GitHub itself shows it: its per-file patches, the truth for placement.

``GET /pulls/{n}/files`` gives each file's patch (its hunks, from the first
``@@``), or none for a file whose diff is too large to show; GitHub accepts an
inline comment only on a line one of those hunks shows. A comment that would
not land is moved to the review body with its ``path:line`` rather than
letting GitHub refuse the whole review.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prflow.review.diff_map import DiffIndex, FileLines, Hunk
from prflow.review.models import DiffSide
from prflow.review.render.github_review import ReviewComment
from prflow.text_lines import split_lines

GITHUB_FILES_LIMIT = 3_000
"""``/pulls/{n}/files`` lists at most this many files; a longer list is not complete."""

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class GitHubFile:
    path: str
    previous_path: str | None
    patch: str | None  # None: GitHub shows no diff (too large, or binary)


def _hunks(patch: str) -> tuple[Hunk, ...]:
    hunks: list[Hunk] = []
    right: set[int] = set()
    left: set[int] = set()
    old = new = 0
    started = False
    for line in split_lines(patch):
        match = _HUNK.match(line)
        if match:
            if started:
                hunks.append(Hunk(frozenset(right), frozenset(left)))
            right, left, started = set(), set(), True
            old, new = int(match.group(1)), int(match.group(2))
        elif started and line[:1] == "+":
            right.add(new)
            new += 1
        elif started and line[:1] == "-":
            left.add(old)
            old += 1
        elif started and line[:1] == " ":
            right.add(new)
            left.add(old)
            old, new = old + 1, new + 1
    if started:
        hunks.append(Hunk(frozenset(right), frozenset(left)))
    return tuple(hunks)


def github_diff_index(files: Iterable[GitHubFile]) -> DiffIndex:
    """A :class:`DiffIndex` of GitHub's own per-file patches (no hunks where it shows none)."""
    return DiffIndex(
        [
            FileLines(
                path=f.path,
                old_path=f.previous_path,
                binary=f.patch is None,
                hunks=_hunks(f.patch) if f.patch else (),
            )
            for f in files
        ]
    )


def refusal(comment: ReviewComment, index: DiffIndex, *, lines: bool = True) -> str | None:
    """Why GitHub would refuse ``comment`` (422), or None when its diff shows the lines.

    With ``lines`` false (the diff listed is of a newer head than the comment's commit)
    only the file is checked: shown at all, and with a diff GitHub renders.
    """
    file = index.files.get(comment.path)
    if file is None:
        return f"{comment.path} is not in the pull request's diff on GitHub"
    if not file.hunks:
        return f"GitHub shows no diff for {comment.path} (too large or binary)"
    if not lines:
        return None
    side = DiffSide.left if comment.side == "LEFT" else DiffSide.right
    hunk = file.hunk_of(comment.line, side)
    if hunk is None:
        return f"line {comment.line} is outside the diff GitHub shows for {comment.path}"
    if comment.start_line is not None and file.hunk_of(comment.start_line, side) != hunk:
        return f"lines {comment.start_line}-{comment.line} span two hunks of {comment.path}"
    return None


def split_refused(
    comments: Sequence[ReviewComment], index: DiffIndex, *, lines: bool = True
) -> tuple[list[ReviewComment], list[tuple[ReviewComment, str]]]:
    """The comments GitHub accepts, and those it would refuse with the reason."""
    kept: list[ReviewComment] = []
    refused: list[tuple[ReviewComment, str]] = []
    for comment in comments:
        reason = refusal(comment, index, lines=lines)
        if reason is None:
            kept.append(comment)
        else:
            refused.append((comment, reason))
    return kept, refused
