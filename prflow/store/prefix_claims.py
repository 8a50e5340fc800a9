"""Which shared prompt prefixes a run has written to the model's prompt cache.

The first request of a run that carries a shared prefix (see
:mod:`prflow.llm.shared_prefix`) claims it and sends; the others wait until
its answer arrives, then send and read the prefix from the cache instead of
writing it again. Prefixes live in the ``llm_answers`` table beside the
questions, keyed by the prefix digest (a namespace of its own, so it never
matches a request digest): a claim row while the writer is out, then a row
that says ``prefix_written``. The claim machinery is the questions' own: a
failed writer releases its claim, and a claim older than the request could
take is taken over (its worker died).

The API keeps a written prefix for five minutes after it was last used, so a
written row also says when the prefix was last sent (every request carrying it
touches the row): a prefix unused for longer is claimed again, and agents
started together later in a long run (gap reviewers after an hour) again have
one writer, not one each.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from sqlalchemy import update

from prflow.store.database import engine_for
from prflow.store.llm_answers import (
    CLAIMED,
    ClaimState,
    LlmAnswerRow,
    claim_question,
    claimant_key,
    keep_answer,
    release_claim,
)
from prflow.store.schema import utc_now

PREFIX_WRITTEN = "prefix_written"
"""``stop_reason`` of a written prefix's row."""
_WRITTEN_KEY = "prefix:written"
CACHE_LIFETIME = timedelta(minutes=5)
"""How long the API keeps a prompt prefix after its last use (the default 5-minute cache)."""


class PrefixState(StrEnum):
    """What :func:`claim_prefix` found."""

    mine = "mine"
    """This attempt writes the prefix: it sends, then marks the prefix written."""
    held = "held"
    """Another attempt is writing it now: wait."""
    written = "written"
    """The prefix is in the cache: send and read it."""


def claim_prefix(
    db_url: str,
    run: str,
    digest: str,
    owner: str,
    *,
    expires_after: timedelta,
    lifetime: timedelta = CACHE_LIFETIME,
) -> PrefixState:
    """Claim prefix ``digest`` in ``run`` for ``owner`` unless it is being written or was
    used within ``lifetime`` (still in the cache)."""
    state = claim_question(db_url, run, digest, owner, expires_after=expires_after)
    if state is ClaimState.answered:
        return _reclaimed_if_forgotten(db_url, run, digest, owner, lifetime)
    return PrefixState.mine if state is ClaimState.mine else PrefixState.held


def _reclaimed_if_forgotten(
    db_url: str, run: str, digest: str, owner: str, lifetime: timedelta
) -> PrefixState:
    """A written prefix unused for ``lifetime`` has left the cache: claim it to write again
    (one claimant wins; the others wait for it as for a first write)."""
    row, now = LlmAnswerRow, utc_now()
    with engine_for(db_url).begin() as connection:
        taken = connection.execute(
            update(row)
            .where(
                row.scope == run,
                row.request_digest == digest,
                row.stop_reason == PREFIX_WRITTEN,
                row.created_at <= now - lifetime,
            )
            .values(answer_key=claimant_key(owner), stop_reason=CLAIMED, created_at=now)
        )
    return PrefixState.mine if taken.rowcount == 1 else PrefixState.written


def mark_prefix_used(db_url: str, run: str, digest: str) -> None:
    """Record that a request carrying the written prefix was answered (it read the prefix,
    which keeps it in the cache for another lifetime)."""
    row = LlmAnswerRow
    with engine_for(db_url).begin() as connection:
        connection.execute(
            update(row)
            .where(
                row.scope == run,
                row.request_digest == digest,
                row.stop_reason == PREFIX_WRITTEN,
            )
            .values(created_at=utc_now())
        )


def mark_prefix_written(db_url: str, run: str, digest: str) -> None:
    """Record that a response carrying the prefix has arrived: it is readable from the cache."""
    keep_answer(db_url, [run], digest, _WRITTEN_KEY, max_tokens=0, stop_reason=PREFIX_WRITTEN)


def release_prefix(db_url: str, run: str, digest: str, owner: str) -> None:
    """Drop ``owner``'s claim (its request failed), so a waiting attempt writes the prefix."""
    release_claim(db_url, run, digest, owner)
