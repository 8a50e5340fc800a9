"""``INSERT .. ON CONFLICT DO NOTHING`` for the two dialects prflow supports.

Activities are retried, so every write the store makes must be harmless to
repeat; both Postgres and SQLite express that with the same clause.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from prflow.store.schema import Base


def insert_ignoring_duplicates(
    connection: Connection,
    model: type[Base],
    values: Mapping[str, Any],
    conflict_columns: Sequence[str],
) -> bool:
    """Insert one ``model`` row unless ``conflict_columns`` match an existing one.

    Returns True if the row was inserted, False if it was already there.
    """
    dialect = connection.dialect.name
    if dialect == "postgresql":
        statement: Any = postgresql.insert(model).on_conflict_do_nothing(
            index_elements=list(conflict_columns)
        )
    elif dialect == "sqlite":
        statement = sqlite.insert(model).on_conflict_do_nothing(
            index_elements=list(conflict_columns)
        )
    else:
        raise NotImplementedError(f"prflow's store supports postgresql and sqlite, not {dialect}")
    # RETURNING, not rowcount: some driver paths report -1 rows for a single insert.
    returning = [getattr(model, name) for name in conflict_columns]
    inserted = connection.execute(statement.values(**values).returning(*returning)).first()
    return inserted is not None
