"""Kept model answers, on SQLite and Postgres: found by scope and digest, never overwritten."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from alembic import command
from sqlalchemy import create_engine, inspect, text

from prflow.llm.request_identity import attempt_scope, request_digest, run_scope
from prflow.store.database import alembic_config, engine_for
from prflow.store.ledger import LlmAttempt, record_attempt, spend_slices
from prflow.store.llm_answers import (
    ClaimState,
    claim_question,
    find_answer,
    keep_answer,
    release_claim,
)

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


def test_the_cost_views_count_a_reused_attempt_apart_not_as_failed(db_url: str) -> None:
    for attempt, outcome in ((1, "success"), (2, "reused")):
        record_attempt(
            db_url,
            LlmAttempt(
                workflow_id="review:a/b#1", run_id="r1", activity_id="4", attempt=attempt,
                workflow_kind="review", phase="reviewers", model="m", outcome=outcome,
                usd=0.5 if outcome == "success" else 0.0,
            ),
        )  # fmt: skip
    with engine_for(db_url).connect() as connection:
        row = connection.execute(
            text(
                "SELECT attempts, failed_attempts, reused_attempts, usd "
                "FROM prflow_cost_by_phase WHERE phase = 'reviewers'"
            )
        ).one()
    assert tuple(row) == (2, 0, 1, 0.5)
    [spend] = spend_slices(db_url, "review:a/b#1")
    assert (spend.attempts, spend.failed_attempts, spend.reused_attempts) == (2, 0, 1)


def test_migration_0009_adds_the_answers_and_goes_back_down(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0006")
        command.upgrade(config, "0009")
        assert "llm_answers" in inspect(connection).get_table_names()
        command.downgrade(config, "0006")
        assert "llm_answers" not in inspect(connection).get_table_names()
        columns = connection.execute(text("SELECT * FROM prflow_cost_by_phase")).keys()
        assert "reused_attempts" not in columns and "failed_attempts" in columns
    engine.dispose()


def test_a_claimed_question_is_held_until_answered_released_or_expired(db_url: str) -> None:
    digest = request_digest(REQUEST)
    run = run_scope("review:a/b#7", "r1")
    first, second = (
        attempt_scope("review:a/b#1/agent:x", "1"),
        attempt_scope("review:a/b#1/agent:y", "1"),
    )
    soon = timedelta(minutes=5)

    assert claim_question(db_url, run, digest, first, expires_after=soon) == ClaimState.mine
    assert claim_question(db_url, run, digest, first, expires_after=soon) == ClaimState.mine
    assert claim_question(db_url, run, digest, second, expires_after=soon) == ClaimState.held
    assert find_answer(db_url, [run], digest, 2048) is None, "a claim is no answer"

    release_claim(db_url, run, digest, first)  # the first request failed
    assert claim_question(db_url, run, digest, second, expires_after=soon) == ClaimState.mine
    assert claim_question(db_url, run, digest, first, expires_after=timedelta(0)) == ClaimState.mine

    keep_answer(db_url, [run], digest, "sha256:answer", max_tokens=64, stop_reason="max_tokens")
    found = find_answer(db_url, [run], digest, 64)
    assert found is not None and found.answer_key == "sha256:answer", "the answer replaced it"
    assert claim_question(db_url, run, digest, second, expires_after=soon) == ClaimState.answered
    release_claim(db_url, run, digest, first)
    assert find_answer(db_url, [run], digest, 64) is not None, "an answer is never released"
