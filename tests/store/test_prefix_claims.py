"""Shared prompt prefixes of a run, on SQLite and Postgres: claimed once, written, handed over."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from prflow.llm.request_identity import attempt_scope, run_scope
from prflow.store.database import engine_for
from prflow.store.llm_answers import LlmAnswerRow, find_answer
from prflow.store.prefix_claims import (
    PrefixState,
    claim_prefix,
    mark_prefix_used,
    mark_prefix_written,
    release_prefix,
)
from prflow.store.schema import utc_now

PREFIX = "ab" * 32
SOON = timedelta(minutes=5)


def test_the_first_claimant_writes_the_prefix_and_the_others_wait_until_it_is_written(
    db_url: str,
) -> None:
    run = run_scope("review:a/b#7", "r1")
    writer = attempt_scope("review:a/b#7/agent:security", "1")
    reader = attempt_scope("review:a/b#7/agent:tests", "1")

    assert claim_prefix(db_url, run, PREFIX, writer, expires_after=SOON) is PrefixState.mine
    assert claim_prefix(db_url, run, PREFIX, writer, expires_after=SOON) is PrefixState.mine
    assert claim_prefix(db_url, run, PREFIX, reader, expires_after=SOON) is PrefixState.held
    other_run = run_scope("review:a/b#7", "r2")
    assert claim_prefix(db_url, other_run, PREFIX, reader, expires_after=SOON) is PrefixState.mine

    mark_prefix_written(db_url, run, PREFIX)
    assert claim_prefix(db_url, run, PREFIX, reader, expires_after=SOON) is PrefixState.written
    release_prefix(db_url, run, PREFIX, writer)
    assert claim_prefix(db_url, run, PREFIX, reader, expires_after=SOON) is PrefixState.written
    written = find_answer(db_url, [run], PREFIX, 0)
    assert written is not None and written.answer_key == "prefix:written"


def test_a_failed_or_dead_writer_hands_the_prefix_over(db_url: str) -> None:
    run = run_scope("review:a/b#8", "r1")
    first, second = (attempt_scope(f"review:a/b#8/agent:{n}", "1") for n in ("x", "y"))

    assert claim_prefix(db_url, run, PREFIX, first, expires_after=SOON) is PrefixState.mine
    release_prefix(db_url, run, PREFIX, second)  # not the holder: nothing changes
    assert claim_prefix(db_url, run, PREFIX, second, expires_after=SOON) is PrefixState.held
    release_prefix(db_url, run, PREFIX, first)  # its request failed
    assert claim_prefix(db_url, run, PREFIX, second, expires_after=SOON) is PrefixState.mine

    # The second's worker dies: once the claim is older than a request could take, it moves.
    assert claim_prefix(db_url, run, PREFIX, first, expires_after=SOON) is PrefixState.held
    gone = timedelta(0)
    assert claim_prefix(db_url, run, PREFIX, first, expires_after=gone) is PrefixState.mine
    assert claim_prefix(db_url, run, PREFIX, second, expires_after=SOON) is PrefixState.held


def test_a_prefix_unused_for_the_cache_lifetime_is_written_once_again(db_url: str) -> None:
    """Gap reviewers started together an hour into a run: the prefix left the cache, so
    one of them writes it again while the others wait, as at the start."""
    run = run_scope("review:a/b#9", "r1")
    first, second, third = (attempt_scope(f"review:a/b#9/agent:{n}", "1") for n in "xyz")
    assert claim_prefix(db_url, run, PREFIX, first, expires_after=SOON) is PrefixState.mine
    mark_prefix_written(db_url, run, PREFIX)

    kept = timedelta(minutes=5)
    assert claim_prefix(db_url, run, PREFIX, second, expires_after=SOON, lifetime=kept) is (
        PrefixState.written
    )
    forgotten = timedelta(0)
    assert claim_prefix(db_url, run, PREFIX, second, expires_after=SOON, lifetime=forgotten) is (
        PrefixState.mine
    )
    assert claim_prefix(db_url, run, PREFIX, third, expires_after=SOON, lifetime=forgotten) is (
        PrefixState.held
    )
    mark_prefix_written(db_url, run, PREFIX)
    assert claim_prefix(db_url, run, PREFIX, third, expires_after=SOON, lifetime=kept) is (
        PrefixState.written
    )


def test_a_request_that_read_the_prefix_keeps_it_in_the_cache(db_url: str) -> None:
    run = run_scope("review:a/b#10", "r1")
    writer, reader = (attempt_scope(f"review:a/b#10/agent:{n}", "1") for n in "xy")
    assert claim_prefix(db_url, run, PREFIX, writer, expires_after=SOON) is PrefixState.mine
    mark_prefix_written(db_url, run, PREFIX)
    with engine_for(db_url).begin() as connection:  # written long ago ...
        connection.execute(
            update(LlmAnswerRow)
            .where(LlmAnswerRow.scope == run)
            .values(created_at=utc_now() - timedelta(minutes=10))
        )
    lifetime = timedelta(minutes=5)
    mark_prefix_used(db_url, run, PREFIX)  # ... but read just now
    assert claim_prefix(db_url, run, PREFIX, reader, expires_after=SOON, lifetime=lifetime) is (
        PrefixState.written
    )
