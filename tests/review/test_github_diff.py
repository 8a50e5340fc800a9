"""GitHub's per-file patches as the truth for placement: which comments GitHub would refuse."""

from __future__ import annotations

from prflow.review.diff_map import DiffIndex, place
from prflow.review.github_diff import github_diff_index, placement_index, refusal, split_refused
from prflow.review.models import DiffSide, FindingCategory, FindingSource, ReviewFinding
from prflow.review.pull_patches import GitHubFile
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


# ---------------------------------------------------------------- placement on GitHub's patches

LOCAL = DiffIndex.from_patch(
    "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n"
    "@@ -1,7 +1,7 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n"
    "diff --git a/big.sql b/big.sql\n--- a/big.sql\n+++ b/big.sql\n@@ -1 +1 @@\n-x\n+y\n"
    "diff --git a/late.py b/late.py\n--- a/late.py\n+++ b/late.py\n@@ -3 +3 @@\n-x\n+y\n"
)
ON_GITHUB = [
    GitHubFile("app.py", None, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c"),  # one line of context
    GitHubFile("big.sql", None, None),
    GitHubFile("gone.py", None, "@@ -1,2 +0,0 @@\n-p\n-q", status="removed"),
]


def _f(path: str, line: int, side: DiffSide = DiffSide.right) -> ReviewFinding:
    return ReviewFinding(
        file=path,
        line_start=line,
        line_end=line,
        side=side,
        severity="important",
        category=FindingCategory.correctness,
        title="t",
        body="b",
        confidence=0.9,
        dimension_id="d1",
        dimension_name="D",
        source=FindingSource.reviewer,
    )


def test_githubs_patches_decide_and_a_file_without_one_has_no_commentable_line() -> None:
    index, note = placement_index(LOCAL, ON_GITHUB, complete=True)
    assert note == ""
    assert place(_f("app.py", 2), index).inline
    assert place(_f("app.py", 3), index).inline
    five = place(_f("app.py", 5), index)  # in the local -U3 hunk, not in GitHub's
    assert not five.inline and "outside the diff of app.py" in five.reason
    big = place(_f("big.sql", 1), index)
    assert not big.inline and "GitHub shows no diff of big.sql" in big.reason
    late = place(_f("late.py", 3), index)  # not in GitHub's complete list: not in the PR
    assert not late.inline and "not changed" in late.reason
    gone = place(_f("gone.py", 2), index)  # a removed file's lines are on the base side
    assert gone.inline and gone.side == DiffSide.left and gone.line == 2


def test_files_past_githubs_3000_file_list_fall_back_to_the_local_diff_and_say_so() -> None:
    index, note = placement_index(LOCAL, ON_GITHUB, complete=False)
    assert place(_f("late.py", 3), index).inline
    assert not place(_f("app.py", 5), index).inline, "a listed file keeps GitHub's patch"
    assert "first 3,000 files" in note and "1 file past that was placed on the local diff" in note


def test_a_list_of_another_head_is_not_used() -> None:
    index, note = placement_index(LOCAL, ON_GITHUB, complete=True, head_moved=True)
    assert place(_f("app.py", 5), index).inline and "head moved" in note
    assert placement_index(LOCAL, None, complete=True) == (LOCAL, "")


def test_a_binary_file_or_a_pure_rename_is_not_called_too_large() -> None:
    local = DiffIndex.from_patch(
        "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"
        "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n"
    )
    files = [GitHubFile("logo.png", None, None), GitHubFile("b.py", "a.py", None, "renamed")]
    index, _ = placement_index(local, files, complete=True)
    assert "binary" in place(_f("logo.png", 1), index).reason
    assert "outside the diff" in place(_f("b.py", 1), index).reason
