"""The posted comment text: marker always present, never over GitHub's limit, cut visibly."""

from __future__ import annotations

from prflow.github_models import COMMENT_MAX_CHARS, comment_body

MARKER = "<!-- prflow:impact -->"


def test_marker_is_prepended_when_missing() -> None:
    assert comment_body("## Report", MARKER) == f"{MARKER}\n## Report"


def test_body_that_already_carries_the_marker_is_unchanged() -> None:
    body = f"## Report\n{MARKER}\n"
    assert comment_body(body, MARKER) == body


def test_body_exactly_at_the_limit_is_not_cut() -> None:
    body = MARKER + "x" * (COMMENT_MAX_CHARS - len(MARKER))
    assert comment_body(body, MARKER) == body


def test_long_body_is_cut_to_the_limit_with_a_note_saying_so() -> None:
    body = "\n".join(f"line {i}" for i in range(20_000))

    text = comment_body(body, MARKER)

    assert len(text) <= COMMENT_MAX_CHARS
    assert text.startswith(f"{MARKER}\nline 0\nline 1\n")
    assert "cut short" in text
    assert f"{len(MARKER) + 1 + len(body):,} characters" in text


def test_cut_lands_on_a_line_boundary() -> None:
    body = "\n".join(f"row {i:05d} " + "y" * 40 for i in range(5_000))

    text = comment_body(body, MARKER)

    kept = text[: text.index("\n\n---\n")]
    assert kept.splitlines()[-1].startswith("row ")
    assert len(kept.splitlines()[-1]) == len("row 00000 ") + 40


def test_marker_placed_late_in_a_long_body_survives_the_cut() -> None:
    body = "z" * (COMMENT_MAX_CHARS * 2) + MARKER

    text = comment_body(body, MARKER)

    assert MARKER in text
    assert len(text) <= COMMENT_MAX_CHARS


def test_a_code_fence_left_open_by_the_cut_is_closed_before_the_note() -> None:
    body = "## Diff\n```diff\n" + "\n".join(f"+ added line {i}" for i in range(10_000))

    text = comment_body(body, MARKER)

    note_at = text.index("\n\n---\n")
    assert text[:note_at].count("```") == 2
    assert text[:note_at].endswith("\n```")
    assert len(text) <= COMMENT_MAX_CHARS


def test_a_smaller_limit_is_honoured() -> None:
    text = comment_body("word " * 1000, MARKER, limit=1_000)
    assert len(text) <= 1_000
    assert text.startswith(MARKER)
