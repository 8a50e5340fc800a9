"""Model answers kept by the question they answer, so no question is paid for twice.

The ``llm_call`` activity keeps every answer it receives under two scopes: the
attempt's own (workflow id and activity id: a retry after a lost completion
report finds it there) and the run's (every agent of one run: a request that
another agent already sent word for word is answered from here). Rows are
addressed by their *input* (scope and request digest) and point at the answer
in the content-addressed blob store.

A question is also *claimed* while its request is in flight, so that two agents
asking it at the same moment pay once: the first to claim it sends, the others
wait for its answer (see :func:`claim_question`). A claim is a row of the same
table whose ``stop_reason`` says ``claimed`` and whose ``answer_key`` names the
claimant; the answer replaces it, a failed request removes it, and a claim whose
holder died is taken over once it is older than the request could take.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import Integer, String, delete, select, update
from sqlalchemy.orm import Mapped, mapped_column

from prflow.store.database import engine_for
from prflow.store.schema import Base, UtcDateTime, utc_now
from prflow.store.upsert import dialect_insert, insert_ignoring_duplicates

TRUNCATED = "max_tokens"
CLAIMED = "claimed"
"""``stop_reason`` of a claim row: the question is being asked, its answer is not in yet."""


class LlmAnswerRow(Base):
    """One answer (a blob key) to one request digest within one scope."""

    __tablename__ = "llm_answers"

    scope: Mapped[str] = mapped_column(String(), primary_key=True)
    request_digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    answer_key: Mapped[str] = mapped_column(String(71))
    max_tokens: Mapped[int] = mapped_column(Integer())
    stop_reason: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


@dataclass(frozen=True)
class KeptAnswer:
    """Where a kept answer is and the scope it was found in."""

    scope: str
    answer_key: str


def find_answer(
    db_url: str, scopes: Sequence[str], digest: str, max_tokens: int
) -> KeptAnswer | None:
    """The first kept answer to ``digest`` in ``scopes`` (in order) that fits ``max_tokens``.

    An answer cut at a smaller output limit does not answer a request allowing more.
    """
    if not scopes:
        return None
    row = LlmAnswerRow
    query = select(row.scope, row.answer_key, row.max_tokens, row.stop_reason).where(
        row.scope.in_(list(scopes)), row.request_digest == digest
    )
    query = query.where(row.stop_reason != CLAIMED)
    with engine_for(db_url).connect() as connection:
        found = {scope: (key, limit, stop) for scope, key, limit, stop in connection.execute(query)}
    for scope in scopes:
        if scope not in found:
            continue
        key, limit, stop = found[scope]
        if stop == TRUNCATED and limit < max_tokens:
            continue
        return KeptAnswer(scope=scope, answer_key=key)
    return None


def keep_answer(
    db_url: str,
    scopes: Sequence[str],
    digest: str,
    answer_key: str,
    *,
    max_tokens: int,
    stop_reason: str,
) -> None:
    """Keep ``answer_key`` for ``digest`` in each scope; an answer already kept there stays,
    a claim there is replaced (the claimed question is answered)."""
    now = utc_now()
    rows: list[dict[str, Any]] = [
        {
            "scope": scope,
            "request_digest": digest,
            "answer_key": answer_key,
            "max_tokens": max_tokens,
            "stop_reason": stop_reason[:64],
            "created_at": now,
        }
        for scope in dict.fromkeys(scopes)
    ]
    if not rows:
        return
    with engine_for(db_url).begin() as connection:
        insert: Any = dialect_insert(connection.dialect.name)
        statement = insert(LlmAnswerRow)
        statement = statement.on_conflict_do_update(
            index_elements=["scope", "request_digest"],
            set_={
                name: statement.excluded[name]
                for name in ("answer_key", "max_tokens", "stop_reason", "created_at")
            },
            where=LlmAnswerRow.stop_reason == CLAIMED,
        )
        connection.execute(statement, rows)


class ClaimState(StrEnum):
    """What :func:`claim_question` found."""

    mine = "mine"
    """This claimant holds the question: it sends the request."""
    held = "held"
    """Another claimant is asking it now: wait for its answer."""
    answered = "answered"
    """An answer is kept already (one that does not fit this request): send without a claim."""


def claimant_key(owner: str) -> str:
    """What a claim row's ``answer_key`` holds for ``owner`` (fits the column's 71 chars)."""
    return "claim:" + hashlib.sha256(owner.encode("utf-8")).hexdigest()


def claim_question(
    db_url: str, scope: str, digest: str, owner: str, *, expires_after: timedelta
) -> ClaimState:
    """Claim ``digest`` in ``scope`` for ``owner`` unless someone else is asking it.

    ``owner`` is the attempt scope of the activity, so a retry of the same
    activity finds its own claim and goes on. A claim older than
    ``expires_after`` is taken over: its holder died without answering.
    """
    mine, now = claimant_key(owner), utc_now()
    row = LlmAnswerRow
    claim = {"scope": scope, "request_digest": digest, "answer_key": mine, "max_tokens": 0,
             "stop_reason": CLAIMED, "created_at": now}  # fmt: skip
    with engine_for(db_url).begin() as connection:
        if insert_ignoring_duplicates(connection, row, claim, ("scope", "request_digest")):
            return ClaimState.mine
        found = connection.execute(
            select(row.answer_key, row.stop_reason, row.created_at).where(
                row.scope == scope, row.request_digest == digest
            )
        ).first()
        if found is None:  # released between the insert and the read: ask again
            return ClaimState.held
        holder, stop, since = found
        if stop != CLAIMED:
            return ClaimState.answered
        if holder == mine:
            return ClaimState.mine
        if since > now - expires_after:
            return ClaimState.held
        taken = connection.execute(
            update(row)
            .where(row.scope == scope, row.request_digest == digest, row.answer_key == holder)
            .values(answer_key=mine, created_at=now)
        )
        return ClaimState.mine if taken.rowcount == 1 else ClaimState.held


def release_claim(db_url: str, scope: str, digest: str, owner: str) -> None:
    """Drop ``owner``'s claim (its request failed), so a waiting agent asks instead."""
    row = LlmAnswerRow
    with engine_for(db_url).begin() as connection:
        connection.execute(
            delete(row).where(
                row.scope == scope,
                row.request_digest == digest,
                row.answer_key == claimant_key(owner),
                row.stop_reason == CLAIMED,
            )
        )
