"""GitHub's per-file patches as the truth for placement: which comments GitHub would refuse."""

from __future__ import annotations

from prflow.review.github_diff import GitHubFile, github_diff_index, refusal, split_refused
from prflow.review.render.github_review import ReviewComment

PATCH = "@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n@@ -20,3 +20,4 @@ def f():\n x\n+y\n z\n w\n"
INDEX = github_diff_index(
    [
        GitHubFile("app.py", None, PATCH),
        GitHubFile("big.sql", None, None),  # too large: GitHub shows no diff
        GitHubFile("new/name.py", "old/name.py", "@@ -1 +1 @@\n-x\n+y"),
    ]
)


def _c(path: str, line: int, side: str = "RIGHT", start: int | None = None) -> ReviewComment:
    return ReviewComment(path=path, line=line, side=side, start_line=start, body="b")


def test_lines_inside_one_hunk_on_their_side_are_accepted() -> None:
    assert refusal(_c("app.py", 2), INDEX) is None
    assert refusal(_c("app.py", 2, "LEFT"), INDEX) is None  # the removed "b"
    assert refusal(_c("app.py", 23, start=20), INDEX) is None
    assert refusal(_c("new/name.py", 1), INDEX) is None


def test_what_github_refuses_is_named_with_the_reason() -> None:
    assert "outside the diff" in str(refusal(_c("app.py", 10), INDEX))
    assert "span two hunks" in str(refusal(_c("app.py", 21, start=3), INDEX))
    assert "no diff" in str(refusal(_c("big.sql", 1), INDEX))
    assert "not in the pull request" in str(refusal(_c("other.py", 1), INDEX))
    kept, refused = split_refused([_c("app.py", 2), _c("app.py", 10)], INDEX)
    assert [c.line for c in kept] == [2] and [c.line for c, _ in refused] == [10]


def test_for_a_newer_head_only_the_file_is_checked() -> None:
    assert refusal(_c("app.py", 10), INDEX, lines=False) is None
    assert refusal(_c("big.sql", 1), INDEX, lines=False) is not None
