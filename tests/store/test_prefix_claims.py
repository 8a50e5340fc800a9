"""Shared prompt prefixes of a run, on SQLite and Postgres: claimed once, written, handed over."""

from __future__ import annotations

from datetime import timedelta

from prflow.llm.request_identity import attempt_scope, run_scope
from prflow.store.llm_answers import find_answer
from prflow.store.prefix_claims import (
    PrefixState,
    claim_prefix,
    mark_prefix_written,
    release_prefix,
)

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
