"""Alembic environment: runs revisions on the connection prflow hands over.

:func:`prflow.store.database.upgrade_to_head` opens the transaction (holding
the migration lock) and passes its connection in ``config.attributes``; this
file never builds its own engine, so there is one code path for upgrades.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from prflow.store.schema import Base


def run_migrations(connection: Connection) -> None:
    """Apply pending revisions inside the caller's transaction."""
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError(
            "prflow migrations run through prflow.store.database.engine_for(url), "
            "which supplies the connection"
        )
    run_migrations(connection)


main()
