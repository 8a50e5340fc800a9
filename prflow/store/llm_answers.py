"""Model answers kept by the question they answer, so no question is paid for twice.

The ``llm_call`` activity keeps every answer it receives under two scopes: the
attempt's own (workflow id and activity id: a retry after a lost completion
report finds it there) and the run's (every agent of one run: a request that
another agent already sent word for word is answered from here). Rows are
addressed by their *input* (scope and request digest) and point at the answer
in the content-addressed blob store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, String, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, mapped_column

from prflow.store.database import engine_for
from prflow.store.schema import Base, UtcDateTime, utc_now

TRUNCATED = "max_tokens"


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
    """Keep ``answer_key`` for ``digest`` in each scope; an answer already kept there stays."""
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
        insert: Any = (
            postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
        )
        statement = insert(LlmAnswerRow).on_conflict_do_nothing(
            index_elements=["scope", "request_digest"]
        )
        connection.execute(statement, rows)
