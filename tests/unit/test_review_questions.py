"""Which dimensions ask something new: the pure rule behind one question, one agent."""

from __future__ import annotations

from prflow.review.models import Dimension
from prflow.review.questions import new_questions, once_each, question_key


def _dimension(name: str, prompt: str, targets: list[str], context: list[str] = []) -> Dimension:  # noqa: B006
    return Dimension(id=name, name=name, prompt=prompt, target_files=targets, context_files=context)


def test_a_question_is_its_prompt_and_files_not_its_name_or_spacing() -> None:
    one = _dimension("Cart", "Check the cart.", ["a.py", "b.py"])
    same = _dimension("Cart callers", "  check THE cart. ", ["b.py", "a.py"])
    other_files = _dimension("Cart", "Check the cart.", ["a.py"])
    other_context = _dimension("Cart", "Check the cart.", ["a.py", "b.py"], ["c.py"])
    assert question_key(one) == question_key(same)
    assert len({question_key(d) for d in (one, other_files, other_context)}) == 3


def test_repeats_within_a_batch_and_of_earlier_batches_are_dropped_first_kept() -> None:
    first = _dimension("A", "Check auth.", ["auth.py"])
    again = _dimension("A2", "Check auth.", ["auth.py"])
    billing = _dimension("B", "Check billing.", ["bill.py"])
    fresh, repeats = new_questions([first, again, billing], set())
    assert (fresh, repeats) == ([first, billing], [again])
    fresh, repeats = new_questions([again], {question_key(first)})
    assert (fresh, repeats) == ([], [again])


def test_a_reason_reported_by_several_agents_is_listed_once_in_order() -> None:
    assert once_each(["x: not found", "y", "x: not found"]) == ["x: not found", "y"]
