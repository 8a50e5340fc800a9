"""Kept model answers, on SQLite and Postgres: found by scope and digest, never overwritten."""

from __future__ import annotations

from prflow.llm.request_identity import attempt_scope, request_digest, run_scope
from prflow.store.llm_answers import find_answer, keep_answer

REQUEST = {
    "model": "claude-sonnet-5-5",
    "max_tokens": 2048,
    "system": [{"type": "text", "text": "Review.", "cache_control": {"type": "ephemeral"}}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "PR #1"}]}],
}


def test_the_digest_ignores_cache_marks_and_max_tokens_but_not_the_question() -> None:
    unmarked = {**REQUEST, "system": [{"type": "text", "text": "Review."}], "max_tokens": 99}
    other_model = {**REQUEST, "model": "claude-haiku-5"}
    other_text = {**REQUEST, "messages": [{"role": "user", "content": "PR #2"}]}
    assert request_digest(unmarked) == request_digest(REQUEST)
    assert request_digest(other_model) != request_digest(REQUEST)
    assert request_digest(other_text) != request_digest(REQUEST)


def test_an_answer_is_found_in_the_first_scope_that_kept_it(db_url: str) -> None:
    digest = request_digest(REQUEST)
    own, run = attempt_scope("review:a/b#1", "4"), run_scope("review:a/b#1", "r1")
    assert find_answer(db_url, [own, run], digest, 2048) is None

    keep_answer(db_url, [run], digest, "sha256:first", max_tokens=2048, stop_reason="end_turn")
    keep_answer(db_url, [run], digest, "sha256:second", max_tokens=2048, stop_reason="end_turn")
    found = find_answer(db_url, [own, run], digest, 2048)
    assert found is not None
    assert (found.scope, found.answer_key) == (run, "sha256:first"), "a kept answer stays"

    keep_answer(db_url, [own], digest, "sha256:own", max_tokens=2048, stop_reason="end_turn")
    found = find_answer(db_url, [own, run], digest, 2048)
    assert found is not None
    assert (found.scope, found.answer_key) == (own, "sha256:own")
    assert find_answer(db_url, [run_scope("review:a/b#1", "r2")], digest, 2048) is None


def test_an_answer_cut_at_a_smaller_limit_does_not_answer_a_larger_one(db_url: str) -> None:
    digest = request_digest(REQUEST)
    scope = run_scope("impact:x", "r1")
    keep_answer(db_url, [scope], digest, "sha256:cut", max_tokens=64, stop_reason="max_tokens")
    assert find_answer(db_url, [scope], digest, 2048) is None
    found = find_answer(db_url, [scope], digest, 64)
    assert found is not None and found.answer_key == "sha256:cut"
