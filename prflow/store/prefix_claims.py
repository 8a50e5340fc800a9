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
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from prflow.store.llm_answers import ClaimState, claim_question, keep_answer, release_claim

PREFIX_WRITTEN = "prefix_written"
"""``stop_reason`` of a written prefix's row."""
_WRITTEN_KEY = "prefix:written"


class PrefixState(StrEnum):
    """What :func:`claim_prefix` found."""

    mine = "mine"
    """This attempt writes the prefix: it sends, then marks the prefix written."""
    held = "held"
    """Another attempt is writing it now: wait."""
    written = "written"
    """The prefix is in the cache: send and read it."""


def claim_prefix(
    db_url: str, run: str, digest: str, owner: str, *, expires_after: timedelta
) -> PrefixState:
    """Claim prefix ``digest`` in ``run`` for ``owner`` unless it is written or being written."""
    state = claim_question(db_url, run, digest, owner, expires_after=expires_after)
    if state is ClaimState.answered:
        return PrefixState.written
    return PrefixState.mine if state is ClaimState.mine else PrefixState.held


def mark_prefix_written(db_url: str, run: str, digest: str) -> None:
    """Record that a response carrying the prefix has arrived: it is readable from the cache."""
    keep_answer(db_url, [run], digest, _WRITTEN_KEY, max_tokens=0, stop_reason=PREFIX_WRITTEN)


def release_prefix(db_url: str, run: str, digest: str, owner: str) -> None:
    """Drop ``owner``'s claim (its request failed), so a waiting attempt writes the prefix."""
    release_claim(db_url, run, digest, owner)
