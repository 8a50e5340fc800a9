"""Property tests (hypothesis) for the exact-unique edit semantics."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prflow.workspace.edits import PREVIEW_CHARS, ErrorKind, ReplaceEdit, apply_batch

ALPHABET = st.sampled_from(list("ab \n\r\x0c\u2028xyz"))
texts = st.text(alphabet=ALPHABET, max_size=200)
needles = st.text(alphabet=st.sampled_from(list("QRS")), min_size=1, max_size=5)


def _edit(old: str, new: str) -> ReplaceEdit:
    return ReplaceEdit(path="f.txt", old_string=old, new_string=new, reason="because")


@given(prefix=texts, suffix=texts, needle=needles, new=texts)
def test_text_found_once_is_replaced_exactly_there(
    prefix: str, suffix: str, needle: str, new: str
) -> None:
    text = prefix + "<" + needle + ">" + suffix
    old = "<" + needle + ">"
    outcome = apply_batch(lambda _p: text, [_edit(old, new)])
    assert outcome.ok
    assert outcome.contents["f.txt"] == prefix + new + suffix
    after = prefix + new + suffix
    lines = after.split("\n")
    total = len(lines) - (1 if lines[-1] == "" else 0)
    first_line = min(prefix.count("\n") + 1, total)
    if total:
        assert f"{first_line:>6}\t" in outcome.regions[0].snippet


@given(text=texts, needle=needles)
def test_absent_text_is_refused_with_the_file_preview(text: str, needle: str) -> None:
    outcome = apply_batch(lambda _p: text, [_edit(needle, "z")])
    assert not outcome.ok and outcome.contents == {}
    error = outcome.errors[0]
    assert error.kind == ErrorKind.not_found
    assert error.preview is not None
    assert error.preview.startswith(text[:PREVIEW_CHARS]) or text == ""


@given(parts=st.lists(texts, min_size=3, max_size=6), needle=needles)
def test_repeated_text_reports_each_occurrence_line(parts: list[str], needle: str) -> None:
    needle = "<" + needle + ">"
    text = needle.join(parts)
    outcome = apply_batch(lambda _p: text, [_edit(needle, "z")])
    count = len(parts) - 1
    error = outcome.errors[0]
    assert error.kind == ErrorKind.not_unique
    assert str(count) in error.message
    expected, at = [], 0
    for part in parts[:-1]:
        at += len(part)
        expected.append(text.count("\n", 0, at) + 1)
        at += len(needle)
    assert error.occurrences == expected


@given(
    text=texts,
    needles_=st.lists(needles, min_size=1, max_size=4, unique=True),
    bad=st.integers(0, 3),
)
def test_a_batch_with_any_failing_edit_changes_nothing(
    text: str, needles_: list[str], bad: int
) -> None:
    body = text + "".join(f"[{n}]" for n in needles_)
    edits = [_edit(f"[{n}]", f"({n})") for n in needles_]
    bad %= len(edits)
    edits[bad] = _edit("<never present>", "x")
    outcome = apply_batch(lambda _p: body, edits)
    assert not outcome.ok
    assert outcome.contents == {} and outcome.patches == []
    assert outcome.errors[0].edit_index == bad


@given(text=texts, needle=needles, steps=st.lists(needles, min_size=1, max_size=4))
def test_edits_apply_in_order_against_the_updated_text(
    text: str, needle: str, steps: list[str]
) -> None:
    body = text + "{" + needle + "}"
    edits, current = [], needle
    for step in steps:
        edits.append(_edit("{" + current + "}", "{" + current + step + "}"))
        current = current + step
    outcome = apply_batch(lambda _p: body, edits)
    assert outcome.ok
    assert outcome.contents["f.txt"] == text + "{" + current + "}"
