"""The schema comes from Alembic on first use, also when processes race for it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from prflow.errors import UserError
from prflow.store.database import dispose_engine, engine_for, normalize_url

# Imports first, then waits for "go" so all processes hit the empty database together.
RACER = """
import sys
from prflow.store.database import engine_for
print("ready", flush=True)
sys.stdin.readline()
engine_for(sys.argv[1])
print("migrated", flush=True)
"""


def test_first_use_creates_the_tables_at_head(db_url: str) -> None:
    engine = engine_for(db_url)
    inspector = inspect(engine)
    assert {"llm_attempts", "blobs", "parse_cache", "alembic_version"} <= set(
        inspector.get_table_names()
    )
    ledger_columns = {column["name"] for column in inspector.get_columns("llm_attempts")}
    assert {
        "workflow_id",
        "run_id",
        "activity_id",
        "attempt",
        "workflow_kind",
        "phase",
        "model",
        "input_tokens",
        "output_tokens",
        "cache_write_tokens",
        "cache_read_tokens",
        "usd",
        "latency_ms",
        "outcome",
        "error",
        "repo",
        "pr_number",
        "created_at",
    } <= ledger_columns
    blob_columns = {column["name"] for column in inspector.get_columns("blobs")}
    assert {"key", "data", "size", "media_type", "created_at"} <= blob_columns
    with engine.connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    assert versions == [(_script_head(),)]


def _script_head() -> str:
    """The newest revision the migrations folder holds (the lead chains branches' revisions)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from prflow.store.database import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def test_sqlite_file_and_its_directories_are_created(tmp_path: Path) -> None:
    database = tmp_path / "not" / "yet" / "there" / "ledger.db"
    engine_for(f"sqlite:///{database}")
    assert database.is_file()


def test_plain_postgres_urls_use_psycopg_3() -> None:
    for url in ("postgresql://u@h/db", "postgres://u@h/db"):
        assert normalize_url(url).drivername == "postgresql+psycopg"
    assert normalize_url("postgresql+psycopg://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("sqlite:///x.db").drivername == "sqlite"


@pytest.mark.postgres
def test_processes_racing_to_migrate_a_new_postgres_database_all_succeed(
    make_postgres_database: Callable[[], str],
) -> None:
    _race_first_use(make_postgres_database(), racers=3)


def test_processes_racing_to_migrate_a_new_sqlite_file_all_succeed(tmp_path: Path) -> None:
    _race_first_use(f"sqlite:///{tmp_path / 'race.db'}", racers=3)


def _race_first_use(url: str, racers: int) -> None:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(racers)
    ]
    for process in processes:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        assert stdout.strip() == "migrated"
    with engine_for(url).connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    assert versions == [(_script_head(),)]


def test_a_database_written_by_a_newer_prflow_is_refused_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'newer.db'}"
    with engine_for(url).begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    dispose_engine(url)

    with pytest.raises(UserError) as refused:
        engine_for(url)

    message = str(refused.value)
    assert "\n" not in message
    assert "schema revision 9999" in message and "upgrade prflow" in message
    with sqlite3.connect(tmp_path / "newer.db") as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [("9999",)]
