"""The parse cache table: results by parser, version and blob SHA, on SQLite and Postgres."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, delete, func, inspect, select, text

from prflow.analysis.breaking_python import python_parser
from prflow.analysis.parse_cache import ParsedFiles
from prflow.source_tree import MemoryTree
from prflow.store.blobs import put_text
from prflow.store.database import alembic_config, engine_for
from prflow.store.parse_cache import ParseCacheRow, StoreParseCache
from prflow.store.schema import BlobRow


@pytest.fixture
def cache_url(db_url: str) -> str:
    """``db_url`` with an empty parse cache (the shared Postgres database outlives a test)."""
    with engine_for(db_url).begin() as connection:
        connection.execute(delete(ParseCacheRow))
    return db_url


def rows(db_url: str) -> list[tuple[str, str, str, int]]:
    query = select(
        ParseCacheRow.parser, ParseCacheRow.version, ParseCacheRow.blob_sha, ParseCacheRow.size
    ).order_by(ParseCacheRow.blob_sha)
    with engine_for(db_url).connect() as connection:
        return [tuple(row) for row in connection.execute(query)]  # type: ignore[misc]


def test_results_round_trip_by_parser_version_and_blob(cache_url: str) -> None:
    cache = StoreParseCache(cache_url)
    cache.put_many({"python/v1/aaa": b'{"x":1}', "js/v1/aaa": b"[]", "python/v2/aaa": b"{}"})

    found = cache.get_many(["python/v1/aaa", "js/v1/aaa", "python/v1/missing"])

    assert found == {"python/v1/aaa": b'{"x":1}', "js/v1/aaa": b"[]"}
    assert rows(cache_url) == [
        ("js", "v1", "aaa", 2),
        ("python", "v1", "aaa", 7),
        ("python", "v2", "aaa", 2),
    ]


def test_writing_a_result_again_keeps_the_first_and_adds_nothing(cache_url: str) -> None:
    cache = StoreParseCache(cache_url)
    cache.put_many({"python/v1/aaa": b"first"})
    cache.put_many({"python/v1/aaa": b"second", "python/v1/bbb": b"other"})

    assert cache.get_many(["python/v1/aaa", "python/v1/bbb"]) == {
        "python/v1/aaa": b"first",
        "python/v1/bbb": b"other",
    }


def test_hundreds_of_files_in_one_call(cache_url: str) -> None:
    cache = StoreParseCache(cache_url)
    items = {f"python/v1/{n:040x}": str(n).encode() for n in range(1000)}
    cache.put_many(items)

    assert cache.get_many(sorted(items)) == items


def test_an_unchanged_file_is_parsed_once_across_runs_and_workers(cache_url: str) -> None:
    tree = MemoryTree({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    first = ParsedFiles(python_parser(), StoreParseCache(cache_url))
    first.get(tree, "pkg/mod.py")
    # Another run (another worker, another process) over the same content.
    second = ParsedFiles(python_parser(), StoreParseCache(cache_url))
    result = second.get(tree, "pkg/mod.py")

    assert (first.parsed_count, second.parsed_count) == (1, 0)
    assert result is not None and result == first.get(tree, "pkg/mod.py")
    assert len(rows(cache_url)) == 1


def test_parse_results_no_longer_live_in_the_blob_store(cache_url: str) -> None:
    StoreParseCache(cache_url).put_many({"python/v1/aaa": b"{}"})
    with engine_for(cache_url).connect() as connection:
        blobs = connection.execute(select(func.count()).select_from(BlobRow)).scalar_one()
    assert blobs == 0


def test_migration_0005_moves_the_cache_out_of_blobs_and_back_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    config = alembic_config()
    engine = create_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0004")
        connection.execute(
            text(
                "INSERT INTO blobs (key, data, size, media_type, created_at) VALUES "
                "('sha256:old', x'00', 1, 'application/vnd.prflow.parse+json; input=python/v1', "
                "'2026-01-01'), ('sha256:kept', x'00', 1, 'text/plain', '2026-01-01')"
            )
        )
        command.upgrade(config, "0005")
        kept = connection.execute(text("SELECT key FROM blobs")).scalars().all()
        assert kept == ["sha256:kept"]
        assert "parse_cache" in inspect(connection).get_table_names()
        command.downgrade(config, "0004")
        assert "parse_cache" not in inspect(connection).get_table_names()
    engine.dispose()


def test_a_real_blob_keeps_being_a_blob(cache_url: str) -> None:
    key = put_text(cache_url, "diff --git a/x b/x\n")
    StoreParseCache(cache_url).put_many({"python/v1/aaa": b"{}"})

    with engine_for(cache_url).connect() as connection:
        keys = connection.execute(select(BlobRow.key)).scalars().all()
    assert key in keys
