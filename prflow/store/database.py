"""One SQLAlchemy engine per database URL, migrated to the latest schema on first use.

Workers, the CLI and tests all pass a URL around instead of an engine; the
first call of :func:`engine_for` in a process builds the engine and runs
``alembic upgrade head`` once. Several processes may start against the same
database at the same moment, so the upgrade is serialised: a transaction-level
advisory lock on Postgres, an exclusive file lock next to a SQLite file.

A URL that does not parse, or names a driver prflow does not ship, is a
:class:`~prflow.errors.UserError`; a database that does not answer is
:class:`~prflow.errors.Unreachable` (retried inside activities, one line in
the CLI). Both messages hide the password and name the setting to fix.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from prflow import file_lock
from prflow.credentials import redact
from prflow.errors import Unreachable, UserError

if TYPE_CHECKING:
    from alembic.config import Config


MIGRATIONS_DIR = Path(__file__).with_name("migrations")

# Arbitrary but fixed: every prflow process upgrading one Postgres database
# takes this advisory lock, so exactly one of them runs the DDL.
MIGRATION_LOCK_ID = 0x7072666C6F77  # "prflow" in ASCII

SQLITE_BUSY_TIMEOUT_SECONDS = 30
CONNECT_TIMEOUT_SECONDS = 10
URL_SETTING = "DATABASE_URL (or PRFLOW_DATABASE_URL, or --database-url where offered)"
URL_EXAMPLES = "postgresql://user@host:5432/prflow or sqlite:////var/lib/prflow/prflow.db"

_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def normalize_url(url: str) -> URL:
    """Parse a URL; plain ``postgresql://`` / ``postgres://`` use the psycopg 3 driver."""
    try:
        parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    except ArgumentError:
        raise UserError(
            f"the database URL {redact(url)!r} is not a database URL; set {URL_SETTING} "
            f"to one such as {URL_EXAMPLES}"
        ) from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def engine_for(url: str) -> Engine:
    """The process-wide engine for ``url``, with the schema upgraded to head."""
    parsed = normalize_url(url)
    cache_key = parsed.render_as_string(hide_password=False)
    with _engines_lock:
        engine = _engines.get(cache_key)
        if engine is None:
            engine = _create_engine(parsed)
            try:
                upgrade_to_head(engine)
            except DBAPIError as err:
                engine.dispose()
                raise _unreachable(parsed, err) from err
            except UserError:
                engine.dispose()
                raise
            _engines[cache_key] = engine
        return engine


def _unreachable(url: URL, err: DBAPIError) -> Unreachable:
    reason = " ".join(str(err.orig).split())
    reason = reason if len(reason) <= 200 else reason[:197] + "..."
    return Unreachable(
        f"cannot use the database {url.render_as_string(hide_password=True)} ({reason}); "
        f"check {URL_SETTING} and that the database server is running"
    )


def dispose_engine(url: str) -> None:
    """Close the pooled connections of ``url`` (tests do this before dropping a database)."""
    cache_key = normalize_url(url).render_as_string(hide_password=False)
    with _engines_lock:
        engine = _engines.pop(cache_key, None)
    if engine is not None:
        engine.dispose()


def upgrade_to_head(engine: Engine) -> None:
    """Run every pending Alembic revision, serialised against other processes."""
    with _migration_file_lock(engine.url), engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Released when this transaction ends; Postgres DDL is transactional,
            # so a waiting process then finds the schema already at head.
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:lock_id)"), {"lock_id": MIGRATION_LOCK_ID}
            )
        from alembic import command  # 0.25 s of imports a worker needs only to migrate

        config = alembic_config()
        config.attributes["connection"] = connection
        _refuse_newer_schema(connection, config, engine.url)
        command.upgrade(config, "head")


def _refuse_newer_schema(connection: Any, config: Config, url: URL) -> None:
    """A database migrated by a newer prflow is refused in one line, never half-upgraded.

    Alembic alone would fail with "Can't locate revision" deep inside the first
    activity that touches the store; the operator needs to know which side to move.
    """
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    current = MigrationContext.configure(connection).get_current_heads()
    unknown = sorted(set(current) - known)
    if unknown:
        raise UserError(
            f"the database {url.render_as_string(hide_password=True)} is at schema revision "
            f"{', '.join(unknown)}, written by a newer prflow; upgrade prflow, or point "
            f"{URL_SETTING} at another database"
        )


def alembic_config() -> Config:
    """Alembic settings pointing at the revisions shipped inside the package."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    return config


def _create_engine(url: URL) -> Engine:
    shown = url.render_as_string(hide_password=True)
    try:
        return _engine_for_backend(url)
    except (NoSuchModuleError, ArgumentError, ImportError) as err:
        raise UserError(
            f"the database URL {shown} cannot be used ({err}); set {URL_SETTING} to one "
            f"such as {URL_EXAMPLES}"
        ) from None
    except OSError as err:  # the directory of a SQLite file cannot be created
        raise UserError(
            f"cannot create the SQLite database {shown} ({err.strerror}); set {URL_SETTING} "
            "to a writable location, or PRFLOW_DATA_DIR for the default one"
        ) from None


def _engine_for_backend(url: URL) -> Engine:
    if url.get_backend_name() != "sqlite":
        connect_args = {"connect_timeout": CONNECT_TIMEOUT_SECONDS}
        if url.get_backend_name() != "postgresql":
            connect_args = {}
        return create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    database = url.database or ""
    if _is_memory_sqlite(database):
        # One shared connection, otherwise every checkout would see an empty database.
        return create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
    )
    event.listen(engine, "connect", _enable_sqlite_wal)
    return engine


def _enable_sqlite_wal(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets CLI readers work while a worker is writing ledger rows.
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
    finally:
        cursor.close()


def _is_memory_sqlite(database: str) -> bool:
    return database in ("", ":memory:") or "mode=memory" in database


@contextlib.contextmanager
def _migration_file_lock(url: URL) -> Iterator[None]:
    """Exclusive lock on ``<db file>.migrate.lock``; a no-op for other databases."""
    database = url.database or ""
    # Without flock (Windows), concurrent first use of one SQLite file is not guarded.
    if url.get_backend_name() != "sqlite" or _is_memory_sqlite(database) or not file_lock.SUPPORTED:
        yield
        return
    lock_path = Path(database).expanduser().with_name(Path(database).name + ".migrate.lock")
    with file_lock.exclusive_lock(lock_path):
        yield
