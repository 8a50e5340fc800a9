"""Ledger rows: one per attempt, whatever the outcome, however often it is written."""

from __future__ import annotations

from sqlalchemy import func, select

from prflow.store.database import engine_for
from prflow.store.ledger import (
    ERROR_MAX_CHARS,
    LlmAttempt,
    attempts_for_workflow,
    record_attempt,
    spend_for_workflow,
)
from prflow.store.schema import LlmAttemptRow


def attempt(**changes: object) -> LlmAttempt:
    base = LlmAttempt(
        workflow_id="impact-acme/app#7",
        run_id="run-1",
        activity_id="5",
        attempt=1,
        workflow_kind="impact",
        phase="analysis",
        model="claude-sonnet-5-5",
        input_tokens=1200,
        output_tokens=300,
        cache_write_tokens=900,
        cache_read_tokens=0,
        usd=0.01125,
        latency_ms=2400,
        repo="acme/app",
        pr_number=7,
    )
    return base.model_copy(update=changes)


def row_count(db_url: str) -> int:
    with engine_for(db_url).connect() as connection:
        return int(connection.execute(select(func.count()).select_from(LlmAttemptRow)).scalar_one())


def test_writing_the_same_attempt_twice_keeps_one_row(db_url: str) -> None:
    assert record_attempt(db_url, attempt()) is True
    assert record_attempt(db_url, attempt(usd=99.0)) is False
    assert row_count(db_url) == 1
    assert attempts_for_workflow(db_url, "impact-acme/app#7") == [attempt()]


def test_each_attempt_number_run_and_activity_is_its_own_row(db_url: str) -> None:
    assert record_attempt(db_url, attempt(attempt=1))
    assert record_attempt(db_url, attempt(attempt=2))
    assert record_attempt(db_url, attempt(run_id="run-2"))
    assert record_attempt(db_url, attempt(activity_id="6"))
    assert row_count(db_url) == 4


def test_a_failed_attempt_is_stored_with_its_error(db_url: str) -> None:
    failed = attempt(
        output_tokens=0,
        usd=0.0,
        outcome="RateLimitError",
        error="429 Too Many Requests; retry after 20s",
    )
    assert record_attempt(db_url, failed)
    assert attempts_for_workflow(db_url, failed.workflow_id) == [failed]


def test_long_errors_are_cut_to_a_short_text(db_url: str) -> None:
    record_attempt(db_url, attempt(outcome="APIStatusError", error="x" * 10_000))
    (stored,) = attempts_for_workflow(db_url, "impact-acme/app#7")
    assert stored.error is not None
    assert len(stored.error) == ERROR_MAX_CHARS
    assert stored.error.endswith("…")


def test_attempts_and_spend_belong_to_their_workflow_across_runs(db_url: str) -> None:
    record_attempt(db_url, attempt(attempt=1, usd=0.25))
    record_attempt(db_url, attempt(attempt=2, usd=0.5, outcome="APITimeoutError"))
    record_attempt(db_url, attempt(run_id="run-2", usd=0.125))
    record_attempt(db_url, attempt(workflow_id="review-acme/app#8", usd=4.0))

    assert spend_for_workflow(db_url, "impact-acme/app#7") == 0.875
    assert spend_for_workflow(db_url, "review-acme/app#8") == 4.0
    assert spend_for_workflow(db_url, "never-ran") == 0.0
    attempts = attempts_for_workflow(db_url, "impact-acme/app#7")
    assert [(a.run_id, a.attempt, a.outcome) for a in attempts] == [
        ("run-1", 1, "success"),
        ("run-1", 2, "APITimeoutError"),
        ("run-2", 1, "success"),
    ]
    assert attempts_for_workflow(db_url, "never-ran") == []
