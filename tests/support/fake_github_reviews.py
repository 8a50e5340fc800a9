"""Pull request reviews for the loopback GitHub: the PR's real diff, GitHub's 422 rules, JSON.

GitHub accepts an inline review comment only on a line one of the PR diff's
hunks shows, on the side named (RIGHT: head lines, added or context; LEFT:
base lines, removed or context); a multi-line comment must start and end in
the same hunk; ``position`` counts lines below the file's first ``@@``. Any
other comment fails the whole review with 422, and so it does here, judged
against ``git diff`` of the PR's own commits, parsed independently of prflow's
line mapping so a mapping bug fails a test the way github.com would fail it.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DOCS = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

Json = Any


@dataclass
class DiffFile:
    """What GitHub's diff view shows of one file: per side, the lines of each hunk."""

    path: str
    hunks: list[dict[str, set[int]]] = field(default_factory=list)
    positions: dict[int, tuple[str, int]] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)

    def hunk_of(self, side: str, line: int) -> int | None:
        return next((i for i, h in enumerate(self.hunks) if line in h[side]), None)


def _github_env() -> dict[str, str]:
    """git as GitHub runs it: no user's or system's config, no diff options from the
    environment (a test may set HOME to a .gitconfig that changes `git diff`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")
    return env


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), *args],
        capture_output=True,
        text=True,
        check=False,
        env=_github_env(),
    )
    if done.returncode != 0:
        raise LookupError(done.stderr.strip())
    return done.stdout


def pull_diff(
    git_dir: Path, base_sha: str, head_sha: str, options: tuple[str, ...] = ()
) -> dict[str, DiffFile]:
    """The files of the PR diff at ``head_sha`` (three-dot, as GitHub computes it).

    ``options``: extra ``git diff`` options, for a GitHub whose diff differs from the one
    a runner's git prints (another git version, algorithm or context)."""
    merge_base = _git(git_dir, "merge-base", base_sha, head_sha).strip()
    text = _git(
        git_dir,
        *("-c", "core.quotePath=false", "diff", "-M", "--no-color", *options),
        *(merge_base, head_sha),
    )
    return parse_unified_diff(text)


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(name: str) -> str:
    """A name as git C-quotes it ("tab\\there", octal bytes for non-ASCII), decoded."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    out, i, body = bytearray(), 0, name[1:-1]
    while i < len(body):
        if body[i] == "\\" and body[i + 1] in "01234567":
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        elif body[i] == "\\":
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        else:
            out += body[i].encode()
            i += 1
    return out.decode("utf-8", errors="replace")


_STATUS = {"A": "added", "D": "removed", "M": "modified", "R": "renamed", "C": "copied"}


def pull_files(
    git_dir: Path, base_sha: str, head_sha: str, options: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """:func:`_pull_files`, computed once per commit pair (a listing is read page by page)."""
    return [dict(entry) for entry in _pull_files(git_dir, base_sha, head_sha, options)]


@functools.lru_cache(maxsize=32)
def _pull_files(
    git_dir: Path, base_sha: str, head_sha: str, options: tuple[str, ...] = ()
) -> tuple[dict[str, Any], ...]:
    """Per file of the PR diff: name, status, previous name, counts and its patch (the hunks,
    from the first ``@@``), as ``GET /pulls/{n}/files`` lists them."""
    merge_base = _git(git_dir, "merge-base", base_sha, head_sha).strip()
    raw = _git(git_dir, "diff", "-M", "--raw", "--numstat", "-z", merge_base, head_sha)
    tokens = raw.split("\0")
    entries: list[dict[str, Any]] = []
    i = 0
    while i < len(tokens) and tokens[i].startswith(":"):
        letter = tokens[i].rsplit(" ", 1)[-1][:1]
        sha = tokens[i].split(" ")[3]
        if letter in "RC":
            entries.append({"status": _STATUS[letter], "previous": tokens[i + 1]})
            entries[-1].update(filename=tokens[i + 2], sha=sha)
            i += 3
        else:
            entries.append({"status": _STATUS.get(letter, "modified"), "filename": tokens[i + 1]})
            entries[-1]["sha"] = sha if letter != "D" else tokens[i].split(" ")[2]
            i += 2
    text = _git(
        git_dir,
        *("-c", "core.quotePath=false", "diff", "-M", "--no-color", *options),
        *(merge_base, head_sha),
    )
    patches: dict[str, str] = {}
    for chunk in text.split("\ndiff --git ")[0:]:
        head, _, hunks = chunk.partition("\n@@")
        names = [_name(line) for line in head.split("\n") if line.startswith(("--- ", "+++ "))]
        if names and hunks:
            path = names[0] if names[-1] == "/dev/null" else names[-1]
            patches[path] = ("@@" + hunks).rstrip("\n")
    for entry in entries:
        patch = patches.get(entry["filename"])
        lines = patch.split("\n") if patch else []
        entry["additions"] = sum(1 for line in lines if line.startswith("+"))
        entry["deletions"] = sum(1 for line in lines if line.startswith("-"))
        entry["patch"] = patch
    return tuple(entries)


def _name(header: str) -> str:
    name = _unquote(header[4:].rstrip("\t\n").rstrip())
    return name[2:] if name.startswith(("a/", "b/")) else name


def parse_unified_diff(text: str) -> dict[str, DiffFile]:
    """Per file (by head path; a deleted file by its base path), the lines each hunk shows."""
    files: dict[str, DiffFile] = {}
    current: DiffFile | None = None
    old_name = ""
    old = new = position = 0
    for raw in text.split("\n"):
        if raw.startswith("diff --git "):
            current, old_name, position = None, "", 0
        elif raw.startswith("--- ") and current is None:
            old_name = _name(raw)
        elif raw.startswith("+++ ") and current is None:
            new_name = _name(raw)
            current = DiffFile(path=old_name if new_name == "/dev/null" else new_name)
            files[current.path] = current
        elif current is not None and (match := _HUNK.match(raw)):
            old, new = int(match.group(1)), int(match.group(3))
            if current.hunks:
                position += 1  # every @@ after the first counts as a position
            current.hunks.append({"LEFT": set(), "RIGHT": set()})
        elif current is not None and current.hunks and raw[:1] in ("+", "-", " "):
            hunk = current.hunks[-1]
            position += 1
            if raw.startswith("+"):
                hunk["RIGHT"].add(new)
                current.positions[position] = ("RIGHT", new)
                new += 1
            elif raw.startswith("-"):
                hunk["LEFT"].add(old)
                current.positions[position] = ("LEFT", old)
                old += 1
            else:
                hunk["RIGHT"].add(new)
                hunk["LEFT"].add(old)
                current.positions[position] = ("RIGHT", new)
                old, new = old + 1, new + 1
            current.text.append(raw)
    return files


def line_after(git_dir: Path, old: str, new: str, path: str, line: int) -> int | None:
    """Where head line ``line`` of ``path`` at commit ``old`` is at commit ``new``; None when
    a change between them touched that line or removed the file (GitHub then shows the
    comment as outdated)."""
    text = _git(git_dir, "diff", "--no-color", "--no-renames", "-U0", old, new, "--", path)
    if not text.strip():
        return line
    if "\n+++ /dev/null" in text:
        return None
    shift = 0
    for raw in text.split("\n"):
        match = _HUNK.match(raw)
        if match is None:
            continue
        start = int(match.group(1))
        count = int(match.group(2)) if match.group(2) is not None else 1
        added = int(match.group(4)) if match.group(4) is not None else 1
        if count and start <= line < start + count:
            return None  # the line itself changed
        if (start if count else start + 1) > line:
            break  # hunks are in order: this one and the rest lie below the line
        shift += added - count
    return line + shift


class ReviewRejected(Exception):
    """The review GitHub would refuse, with the errors it would give (422)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class Placed:
    path: str
    line: int
    side: str
    start_line: int | None
    start_side: str | None
    position: int | None
    diff_hunk: str


def place_comment(
    comment: Json, diff: dict[str, DiffFile], too_large: frozenset[str] = frozenset()
) -> Placed:
    """Where GitHub would put a ``comments[]`` entry, or the 422 it would answer.

    ``too_large``: files whose diff GitHub does not show (too large to render); no line of
    them can be commented on.
    """
    if not isinstance(comment, dict) or not isinstance(comment.get("body"), str):
        raise ReviewRejected(['"body" wasn\'t supplied.'])
    path = comment.get("path")
    if not isinstance(path, str) or path not in diff or path in too_large:
        raise ReviewRejected(["Path could not be resolved"])
    file = diff[path]
    if "position" in comment and "line" not in comment:
        position = comment["position"]
        if not isinstance(position, int) or position not in file.positions:
            raise ReviewRejected(["Pull request review thread position is invalid"])
        at_side, at_line = file.positions[position]
        return Placed(path, at_line, at_side, None, None, position, _hunk_text(file))
    line, side = comment.get("line"), comment.get("side", "RIGHT")
    if not isinstance(line, int) or side not in ("LEFT", "RIGHT"):
        raise ReviewRejected(["Line could not be resolved"])
    hunk = file.hunk_of(side, line)
    if hunk is None:
        raise ReviewRejected(
            [
                "Pull request review thread line must be part of the diff",
                "Line could not be resolved",
            ]
        )
    start_line = comment.get("start_line")
    start_side = comment.get("start_side", side) if start_line is not None else None
    if start_line is not None:
        if not isinstance(start_line, int) or start_line >= line:
            raise ReviewRejected(["start_line must precede line"])
        if start_side != side or file.hunk_of(side, start_line) != hunk:
            raise ReviewRejected(
                ["Pull request review thread start line must be part of the same hunk as the line"]
            )
    return Placed(path, line, side, start_line, start_side, None, _hunk_text(file))


def _hunk_text(file: DiffFile) -> str:
    return "\n".join(file.text[:40]) or "@@"


def validate_review_request(body: Json, *, own_pr: bool) -> str:
    """The review state a create-review request asks for, or the 422 GitHub answers."""
    if not isinstance(body, dict):
        raise ReviewRejected(["Invalid request."])
    event = body.get("event")
    if event is not None and event not in EVENTS:
        raise ReviewRejected(
            [f"Unprocessable Entity: event {event!r} is not one of {list(EVENTS)}"]
        )
    if (
        event in ("REQUEST_CHANGES", "COMMENT")
        and not body.get("body")
        and not body.get("comments")
    ):
        raise ReviewRejected([f"Review Comment is missing (body is required for {event})"])
    if own_pr and event == "APPROVE":
        raise ReviewRejected(["Can not approve your own pull request"])
    if own_pr and event == "REQUEST_CHANGES":
        raise ReviewRejected(["Can not request changes on your own pull request"])
    comments = body.get("comments", [])
    if not isinstance(comments, list):
        raise ReviewRejected(['"comments" is not an array.'])
    return EVENTS.get(str(event), "PENDING")


def rejection_json(errors: list[str]) -> Json:
    """``validation-error-simple``: GitHub's body for a refused review."""
    return {
        "message": "Unprocessable Entity",
        "errors": errors,
        "documentation_url": DOCS,
        "status": "422",
    }


@dataclass
class FakeReview:
    id: int
    number: int
    author: str
    body: str
    state: str
    commit_id: str
    submitted_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class FakeReviewComment:
    id: int
    review_id: int
    number: int
    author: str
    body: str
    placed: Placed
    commit_id: str
    thread_id: str
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    in_reply_to_id: int | None = None  # a reply: the thread's first comment


def timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def review_json(review: FakeReview, user: Json, api: str, web: str) -> Json:
    """``pull-request-review`` for ``review`` on the PR at ``api`` (its REST URL)."""
    html = f"{web}/pull/{review.number}#pullrequestreview-{review.id}"
    return {
        "id": review.id,
        "node_id": f"PRR_kwDO{review.id:08d}",
        "user": user,
        "body": review.body,
        "state": review.state,
        "html_url": html,
        "pull_request_url": api,
        "_links": {"html": {"href": html}, "pull_request": {"href": api}},
        "submitted_at": timestamp(review.submitted_at),
        "commit_id": review.commit_id,
        "author_association": "NONE",
    }


def review_comment_json(comment: FakeReviewComment, user: Json, api: str, web: str) -> Json:
    """``pull-request-review-comment`` (a superset of ``review-comment``'s required fields)."""
    placed = comment.placed
    url = f"{api.rsplit('/pulls/', 1)[0]}/pulls/comments/{comment.id}"
    html = f"{web}/pull/{comment.number}#discussion_r{comment.id}"
    reply = {} if comment.in_reply_to_id is None else {"in_reply_to_id": comment.in_reply_to_id}
    return reply | {
        "url": url,
        "pull_request_review_id": comment.review_id,
        "id": comment.id,
        "node_id": f"PRRC_kwDO{comment.id:08d}",
        "diff_hunk": placed.diff_hunk,
        "path": placed.path,
        "position": placed.position if placed.position is not None else 1,
        "original_position": placed.position if placed.position is not None else 1,
        "commit_id": comment.commit_id,
        "original_commit_id": comment.commit_id,
        "user": user,
        "body": comment.body,
        "created_at": timestamp(comment.created_at),
        "updated_at": timestamp(comment.created_at),
        "html_url": html,
        "pull_request_url": api,
        "author_association": "NONE",
        "_links": {"self": {"href": url}, "html": {"href": html}, "pull_request": {"href": api}},
        "start_line": placed.start_line,
        "original_start_line": placed.start_line,
        "start_side": placed.start_side,
        "line": placed.line,
        "original_line": placed.line,
        "side": placed.side,
        "subject_type": "line",
    }
