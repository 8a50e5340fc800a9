"""Lines as git counts them: form feeds, \\x1c and U+2028 never shift a line number, in
review evidence, impact evidence, the diff's hunks and the stale-doc scan."""

from __future__ import annotations

import pytest

from prflow.analysis.stale_docs import _doc_lines
from prflow.impact.evidence import verify_finding
from prflow.impact.models import LlmFinding
from prflow.review.diff_map import DiffIndex
from prflow.review.evidence import verified
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    ReviewFinding,
)
from prflow.text_lines import split_lines

ODD = ["\f", "\x1c", "\u2028", "\v", "\x85"]


@pytest.mark.parametrize("odd", ODD)
def test_only_newline_ends_a_line(odd: str) -> None:
    assert split_lines(f"a{odd}b\nc\r\nd\n") == [f"a{odd}b", "c", "d"]
    assert split_lines("") == [] and split_lines("x") == ["x"]


def _source(odd: str) -> str:
    # Four separators before line 6, as in an old C or Python source paged with form feeds.
    return "".join(f"# page {i}{odd}\n" for i in range(1, 5)) + "\nreturn total - discount\n"


@pytest.mark.parametrize("odd", ODD)
def test_review_evidence_after_form_feeds_is_found_at_its_line(odd: str) -> None:
    finding = ReviewFinding(
        file="legacy.py",
        line_start=6,
        line_end=6,
        severity="important",
        category=FindingCategory.correctness,
        title="t",
        body="b",
        evidence="return total - discount",
        confidence=0.9,
        dimension_id="d",
        dimension_name="D",
        source=FindingSource.reviewer,
    )
    checked = verified(finding, _source(odd))
    assert isinstance(checked, ReviewFinding), checked
    assert checked.anchor == "return total - discount"


@pytest.mark.parametrize("odd", ODD)
def test_impact_evidence_after_form_feeds_is_found_at_its_line(odd: str) -> None:
    finding = LlmFinding(
        title="t",
        category="risk",
        severity="high",
        file="legacy.py",
        line=6,
        evidence="return total - discount",
        explanation="e",
    )
    assert verify_finding(finding, _source(odd)) is None


@pytest.mark.parametrize("odd", ODD)
def test_hunk_lines_and_doc_lines_count_only_newlines(odd: str) -> None:
    patch = (
        "diff --git a/legacy.py b/legacy.py\n--- a/legacy.py\n+++ b/legacy.py\n"
        f"@@ -1,3 +1,3 @@\n a{odd}x\n-b\n+B\n c\n"
    )
    lines = DiffIndex.from_patch(patch).file("legacy.py")
    assert lines is not None and lines.added == {2} and lines.hunks[0].right == {1, 2, 3}
    assert lines.hunk_of(3, DiffSide.right) == 0
    numbered = [
        n for n, line, _ in _doc_lines(f"x{odd}y\nsee `a.py`\n", "README.md") if "a.py" in line
    ]
    assert numbered == [2]
