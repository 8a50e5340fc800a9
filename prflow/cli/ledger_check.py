"""The ledger database, checked before a run starts and never created by a read.

A run records every model attempt in the ledger; a database that cannot be
reached would fail the run from inside (exit 3) after the work has begun, so a
command that serves its own run checks it first, cheaply (no SQLAlchemy): a
SQLite file's directory can be made, a Postgres server accepts a connection.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import unquote, urlsplit

from prflow.credentials import redact
from prflow.errors import Unreachable, UserError

CONNECT_SECONDS = 3.0
SETTING = "DATABASE_URL (or PRFLOW_DATABASE_URL, or --database-url)"


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for another database or an in-memory one)."""
    scheme, _, rest = url.partition("://")
    if scheme.split("+")[0] != "sqlite":
        return None
    database = rest.partition("/")[2].split("?")[0]
    if database in ("", ":memory:"):
        return None
    return Path(unquote(database)).expanduser()


def existing_ledger(url: str, *, explicit: bool) -> bool:
    """For a read: whether there is a ledger to read. A SQLite file whose directory does not
    exist is, when the URL was typed on the command line, a typo (one line, exit 2);
    otherwise (the configured ledger before the first run, or a missing file) it holds
    nothing yet. Nothing is created either way."""
    path = sqlite_path(url)
    if path is None:
        return True
    if path.exists():
        return True
    if explicit and not path.parent.is_dir():
        raise UserError(
            f"no ledger database at {path}: directory {path.parent} does not exist; check {SETTING}"
        )
    return False


def check_ledger_reachable(url: str) -> None:
    """Fail in one line, before a run starts, when the ledger cannot be used."""
    path = sqlite_path(url)
    if path is not None:
        ancestor = path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir() or not os.access(ancestor, os.W_OK | os.X_OK):
            raise UserError(
                f"cannot create the ledger database {path} ({ancestor} is not a writable "
                f"directory); set {SETTING} to a writable location"
            )
        return
    parts = urlsplit(url)
    if parts.scheme.split("+")[0] not in ("postgresql", "postgres"):
        return
    host, port = parts.hostname or "localhost", parts.port or 5432
    try:
        with socket.create_connection((host, port), timeout=CONNECT_SECONDS):
            pass
    except OSError as err:
        raise Unreachable(
            f"cannot reach the ledger database {redact(url)} ({err.strerror or err}); check "
            f"{SETTING} and that the database server is running"
        ) from None
