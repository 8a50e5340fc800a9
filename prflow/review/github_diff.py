"""The PR diff as GitHub itself shows it: its per-file patches, the truth for placement.

``GET /pulls/{n}/files`` gives each file's patch (its hunks, from the first
``@@``), or none for a file whose diff is too large to show; GitHub accepts an
inline comment only on a line one of those hunks shows. A comment that would
not land is moved to the review body with its ``path:line`` rather than
letting GitHub refuse the whole review.

For a PR run, synthesis places findings on these patches (:func:`placement_index`), so a
finding GitHub would refuse is in the body before anything is posted; posting checks
against them once more, for a head that moved in between.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from prflow.review.diff_map import DiffIndex, FileLines, file_lines
from prflow.review.models import DiffSide
from prflow.review.pull_patches import GITHUB_FILES_LIMIT, GitHubFile
from prflow.review.render.github_review import ReviewComment


def _shown(file: GitHubFile) -> FileLines:
    """The lines GitHub's patch of ``file`` shows, parsed by unidiff like any git diff.

    GitHub's ``patch`` starts at the first ``@@`` (no file header), so a header is put in
    front for the parser; the names come from GitHub's own fields, never from the text.
    """
    deleted = file.status == "removed"
    previous = file.previous_path if file.previous_path not in (None, "", file.path) else None
    empty = FileLines(path=file.path, old_path=previous, deleted=deleted)
    if not file.patch:
        return dataclasses.replace(empty, hidden=True)
    try:
        parsed = PatchSet(f"--- a/file\n+++ b/file\n{file.patch}\n")
    except UnidiffParseError:
        return dataclasses.replace(empty, hidden=True)
    if not parsed:
        return empty
    lines = file_lines(parsed[0])
    return dataclasses.replace(lines, path=file.path, old_path=previous, deleted=deleted)


def github_diff_index(files: Iterable[GitHubFile]) -> DiffIndex:
    """A :class:`DiffIndex` of GitHub's own per-file patches (no hunks where it shows none)."""
    return DiffIndex([_shown(f) for f in files])


def placement_index(
    local: DiffIndex,
    github: Sequence[GitHubFile] | None,
    *,
    complete: bool,
    head_moved: bool = False,
) -> tuple[DiffIndex, str]:
    """The diff findings are placed on, and a note when it is not GitHub's alone.

    GitHub's per-file patches are the truth: a line is commentable when GitHub's patch of
    its file shows it, and a file GitHub lists without a patch (too large to show) has no
    commentable line. Only the files GitHub's list leaves out because it stops at 3,000 are
    placed on ``local`` (the pinned ``git diff``), and the note says so. With no GitHub
    list (not a PR run) or a list of another head, ``local`` is used whole.
    """
    if github is None:
        return local, ""
    if head_moved:
        return local, (
            "placed on the local diff (pinned git options): the pull request's head moved "
            "while this review ran, so GitHub's diff is of another commit"
        )
    shown = github_diff_index(github)
    files = list(shown.files.values())
    for index, file in enumerate(files):
        mine = local.file(file.path)
        if not file.hidden or mine is None:
            continue
        if mine.binary:  # GitHub shows no diff of a binary file either
            files[index] = dataclasses.replace(file, hidden=False, binary=True)
        elif not mine.hunks:  # a pure rename or a mode change: nothing to show
            files[index] = dataclasses.replace(file, hidden=False)
    note = ""
    if not complete:
        named = {f.path for f in files} | {f.old_path for f in files if f.old_path}
        rest = [f for f in local.files.values() if f.path not in named]
        rest = [f for f in rest if not (f.old_path and f.old_path in named)]
        files += rest
        past = f"{len(rest):,} files past that were" if len(rest) != 1 else "1 file past that was"
        note = (
            f"GitHub lists only the first {GITHUB_FILES_LIMIT:,} files of a pull request; "
            f"{past} placed on the local diff (pinned git options)"
        )
    return DiffIndex(files, shown.unreadable), note


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
