"""Line mapping on real diffs made by git: a finding goes inline only on a line GitHub shows."""

from __future__ import annotations

import pytest

from prflow.git.repo import GitRepoReader, resolve_range
from prflow.repo_models import RepoSpec
from prflow.review.diff_map import DiffIndex, PlacementKind, place
from prflow.review.models import DiffSide, FindingCategory, FindingSource, ReviewFinding
from tests.support.fixtures_git import GitRepoBuilder

SIXTY = [f"line {n}" for n in range(1, 61)]


def _text(lines: list[str], end: str = "\n") -> str:
    return end.join(lines) + end


def _finding(
    path: str, start: int, end: int | None = None, side: DiffSide = DiffSide.right
) -> ReviewFinding:
    return ReviewFinding(
        file=path,
        line_start=start,
        line_end=end or start,
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


@pytest.fixture
def diff(git_repo: GitRepoBuilder, prflow_cache: object) -> DiffIndex:
    """One PR with every shape of change line mapping must handle."""
    repo = git_repo
    repo.write("many.txt", _text(SIXTY))
    repo.write("gone.py", "a = 1\nb = 2\nc = 3\n")
    repo.write("edit.py", "keep = 1\ndrop = 2\nalso = 3\n")
    repo.write("old/name.py", _text([f"v{n} = {n}" for n in range(20)]))
    repo.write("moved/as_is.py", _text([f"w{n} = {n}" for n in range(20)]))
    repo.write("nonl.txt", "x\ny")
    repo.write("crlf.txt", "a\r\nb\r\nc\r\n")
    repo.write("logo.bin", bytes(range(256)))
    repo.write("untouched.py", "pass\n")
    repo.commit("base")
    repo.branch("feature")
    many = list(SIXTY)
    many[4] = "line 5 changed"
    many[49] = "line 50 changed"
    repo.write("many.txt", _text(many))
    repo.remove("gone.py")
    repo.write("edit.py", "keep = 1\nalso = 3\nnew = 4\n")
    repo.move("old/name.py", "new/name.py")
    repo.write("new/name.py", _text([*[f"v{n} = {n}" for n in range(20)], "v20 = 20"]))
    repo.move("moved/as_is.py", "moved/renamed.py")
    repo.write("nonl.txt", "x\ny\nz\n")
    repo.write("crlf.txt", "a\r\nB\r\nc\r\nd\r\n")
    repo.write("logo.bin", bytes(reversed(range(256))))
    repo.commit("change")
    rng = resolve_range(RepoSpec(location=str(repo.path)), "main", "feature")
    reader = GitRepoReader.for_range(rng)
    return DiffIndex.from_patch(reader.diff(rng.merge_base_sha, rng.head_sha))


def test_lines_inside_a_hunk_go_inline_and_lines_between_hunks_do_not(diff: DiffIndex) -> None:
    near_first = place(_finding("many.txt", 5), diff)
    assert (near_first.kind, near_first.line, near_first.side) == ("inline", 5, DiffSide.right)
    context = place(_finding("many.txt", 7), diff)  # unchanged, but shown as context
    assert context.inline and context.line == 7
    between = place(_finding("many.txt", 25), diff)
    assert between.kind == PlacementKind.body
    assert "line 25 is outside the diff of many.txt" in between.reason


def test_a_range_within_one_hunk_is_exact_and_across_hunks_is_narrowed(diff: DiffIndex) -> None:
    within = place(_finding("many.txt", 4, 6), diff)
    assert (within.start_line, within.line, within.exact) == (4, 6, True)
    across = place(_finding("many.txt", 5, 50), diff)
    assert across.inline and across.line == 50 and across.start_line is None
    assert not across.exact, "a narrowed comment must not carry a committable suggestion"


def test_a_deleted_file_is_commented_on_the_left_side(diff: DiffIndex) -> None:
    placed = place(_finding("gone.py", 2), diff)
    assert (placed.kind, placed.line, placed.side) == ("inline", 2, DiffSide.left)


def test_a_removed_line_is_commented_on_the_left_and_an_added_one_on_the_right(
    diff: DiffIndex,
) -> None:
    removed = place(_finding("edit.py", 2, side=DiffSide.left), diff)
    assert (removed.line, removed.side) == (2, DiffSide.left)
    added = place(_finding("edit.py", 3), diff)
    assert (added.line, added.side) == (3, DiffSide.right)
    past_the_end = place(_finding("edit.py", 9), diff)
    assert past_the_end.kind == PlacementKind.body


def test_renames_map_the_old_path_to_the_new_one_and_a_pure_rename_has_no_lines(
    diff: DiffIndex,
) -> None:
    by_new = place(_finding("new/name.py", 21), diff)
    assert (by_new.path, by_new.line) == ("new/name.py", 21)
    by_old = place(_finding("old/name.py", 21), diff)
    assert (by_old.path, by_old.line) == ("new/name.py", 21)
    pure = place(_finding("moved/renamed.py", 3), diff)
    assert pure.kind == PlacementKind.body


def test_no_newline_at_end_and_crlf_lines_keep_their_numbers(diff: DiffIndex) -> None:
    assert place(_finding("nonl.txt", 2), diff).line == 2  # the line that gained its newline
    assert place(_finding("nonl.txt", 3), diff).line == 3
    assert place(_finding("nonl.txt", 2, side=DiffSide.left), diff).side == DiffSide.left
    crlf = diff.file("crlf.txt")
    assert crlf is not None and crlf.added == {2, 4} and crlf.removed == {2}
    assert place(_finding("crlf.txt", 4), diff).line == 4


def test_binary_unchanged_and_whole_file_findings_go_to_the_body(diff: DiffIndex) -> None:
    assert "binary" in place(_finding("logo.bin", 1), diff).reason
    assert "not changed" in place(_finding("untouched.py", 1), diff).reason
    whole = _finding("many.txt", 5).model_copy(update={"file_level": True})
    assert place(whole, diff).kind == PlacementKind.body


def test_an_unparseable_diff_places_everything_in_the_body() -> None:
    index = DiffIndex.from_patch("diff --git a/x b/x\n@@ -1,2 +1,2 @@\n garbage\n")
    assert index.unreadable
    assert place(_finding("x", 1), index).kind == PlacementKind.body
