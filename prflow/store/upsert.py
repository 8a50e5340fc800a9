"""``INSERT .. ON CONFLICT DO NOTHING`` for the two dialects prflow supports.

Activities are retried, so every write the store makes must be harmless to
repeat; both Postgres and SQLite express that with the same clause.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.engine import Connection

from prflow.store.schema import Base


def dialect_insert(dialect: str) -> Callable[..., Any]:
    """The ``insert`` construct (with ``on_conflict_*``) of ``dialect``.

    Imported here, not at module level: the Postgres dialect costs a worker or a
    command on SQLite a tenth of a second or more to load, for nothing.
    """
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert
    raise NotImplementedError(f"prflow's store supports postgresql and sqlite, not {dialect}")


def insert_ignoring_duplicates(
    connection: Connection,
    model: type[Base],
    values: Mapping[str, Any],
    conflict_columns: Sequence[str],
) -> bool:
    """Insert one ``model`` row unless ``conflict_columns`` match an existing one.

    Returns True if the row was inserted, False if it was already there.
    """
    statement = dialect_insert(connection.dialect.name)(model).on_conflict_do_nothing(
        index_elements=list(conflict_columns)
    )
    # RETURNING, not rowcount: some driver paths report -1 rows for a single insert.
    returning = [getattr(model, name) for name in conflict_columns]
    inserted = connection.execute(statement.values(**values).returning(*returning)).first()
    return inserted is not None
