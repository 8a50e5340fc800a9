"""pytest fixtures for the store area: real SQLite files and real Postgres databases.

Postgres is expected at 127.0.0.1:5432 (user postgres, trust auth), or at the
admin URL in ``PRFLOW_TEST_POSTGRES_ADMIN_URL``. Each pytest session creates
its own ``prflow_test_<random>`` databases and drops them at the end.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from prflow.store.database import dispose_engine, engine_for

ADMIN_URL = os.environ.get(
    "PRFLOW_TEST_POSTGRES_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)

PostgresFactory = Callable[[], str]


def _admin_connection() -> psycopg.Connection[tuple[object, ...]]:
    try:
        return psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as err:
        pytest.fail(
            f"PostgreSQL is not reachable at {ADMIN_URL} ({err}). Start it (for example "
            "`service postgresql start`) or point PRFLOW_TEST_POSTGRES_ADMIN_URL at a server "
            "where the user may create databases.",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def make_postgres_database() -> Iterator[PostgresFactory]:
    """Factory for empty, uniquely named Postgres databases; all are dropped at session end."""
    created: list[str] = []

    def create() -> str:
        name = f"prflow_test_{secrets.token_hex(6)}"
        with _admin_connection() as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        created.append(name)
        return ADMIN_URL.rsplit("/", 1)[0] + "/" + name

    yield create

    if not created:
        return
    with _admin_connection() as admin:
        for name in created:
            url = ADMIN_URL.rsplit("/", 1)[0] + "/" + name
            dispose_engine(url)
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="session")
def postgres_url(make_postgres_database: PostgresFactory) -> str:
    """One fresh Postgres database for the session (migrated on first use)."""
    return make_postgres_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file of this test's own (created and migrated on first use)."""
    return f"sqlite:///{tmp_path / 'prflow.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    """Run the test once on SQLite and once on Postgres, each starting with empty tables."""
    if request.param == "sqlite":
        url: str = request.getfixturevalue("sqlite_url")
        return url
    url = request.getfixturevalue("postgres_url")
    with engine_for(url).begin() as connection:
        connection.exec_driver_sql(
            "TRUNCATE llm_attempts, blobs, review_marks, llm_answers, llm_phase_cuts"
        )
    return url
