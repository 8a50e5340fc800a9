"""Building and updating an index of a real mixed Python / TSX repository, on both databases.

The caches are prflow's database (parse cache and embeddings tables), the
embedder is the real bundled model: what a worker does, minus Temporal.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import delete, func, select

from prflow import embeddings
from prflow.analysis.parse_cache import InputLimits, MemoryParseCache
from prflow.refactor_index.build import (
    IndexCaches,
    IndexStats,
    build_index,
    load_records,
    update_index,
)
from prflow.refactor_index.records import embedding_records
from prflow.refactor_index.retrieval import unknown_paths
from prflow.refactor_index.search import retrieve
from prflow.refactor_index.vectors import MemoryVectorCache, ensure_vectors, text_sha
from prflow.source_tree import DirectoryTree
from prflow.store.database import engine_for
from prflow.store.embeddings import EmbeddingRow, StoreVectorCache
from prflow.store.parse_cache import ParseCacheRow, StoreParseCache

FILES = {
    "storage/files.py": '''"""Synchronous file operations of the storage layer."""
import os


def read_document(path: str) -> bytes:
    """Read a stored document from disk."""
    with open(path, "rb") as handle:
        return handle.read()


def write_document(path: str, data: bytes) -> None:
    """Write a document to disk atomically."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)
''',
    "storage/__init__.py": '"""Storage."""\nfrom .files import read_document, write_document\n',
    "api/handlers.py": '''"""HTTP handlers."""
from storage import read_document


def get_document(request):
    return read_document(request.path)
''',
    "billing/invoice.py": '''"""Invoices and their totals."""


def invoice_total(lines):
    """Sum the amount of every invoice line with tax."""
    return sum(line.amount * (1 + line.tax_rate) for line in lines)
''',
    "web/package.json": '{"dependencies": {"react": "19.0.0", "next": "15.0.0"}}',
    "web/app/page.tsx": """import { Suspense } from "react";
import { UserList } from "../components/UserList";

export default async function Page() {
  return <Suspense fallback={null}><UserList /></Suspense>;
}
""",
    "web/components/UserList.tsx": """"use client";
import { useState } from "react";

export function UserList() {
  const [users] = useState<string[]>([]);
  return <ul>{users.map((u) => <li key={u}>{u}</li>)}</ul>;
}
""",
    "web/components/index.ts": 'export * from "./UserList";\n',
    "node_modules/react/index.js": "module.exports = {};\n",
    "README.md": "# demo\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


@pytest.fixture
def store_caches(db_url: str) -> IndexCaches:
    """The database caches, emptied (the shared Postgres database outlives a test)."""
    with engine_for(db_url).begin() as connection:
        connection.execute(delete(ParseCacheRow))
        connection.execute(delete(EmbeddingRow))
    return IndexCaches(parses=StoreParseCache(db_url), vectors=StoreVectorCache(db_url))


def count(db_url: str, table: type[EmbeddingRow] | type[ParseCacheRow]) -> int:
    with engine_for(db_url).connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def git_blob(path: Path) -> str:
    done = subprocess.run(
        ["git", "hash-object", str(path)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_full_index_has_every_code_file_its_imports_and_react_facts(
    repo: Path, store_caches: IndexCaches, db_url: str
) -> None:
    index = build_index(DirectoryTree(repo), store_caches)

    assert index.paths() == [
        "api/handlers.py",
        "billing/invoice.py",
        "storage/__init__.py",
        "storage/files.py",
        "web/app/page.tsx",
        "web/components/UserList.tsx",
        "web/components/index.ts",
    ]
    assert index.blob_of("storage/files.py") == git_blob(repo / "storage/files.py")
    edges = {(e.importer, e.target) for e in index.edges}
    assert {
        ("api/handlers.py", "storage/__init__.py"),
        ("storage/__init__.py", "storage/files.py"),
        ("web/app/page.tsx", "web/components/UserList.tsx"),
        ("web/components/index.ts", "web/components/UserList.tsx"),
    } <= edges
    assert index.is_react_project and index.is_next_project
    assert count(db_url, ParseCacheRow) == 7
    assert count(db_url, EmbeddingRow) >= 7 + 6  # a summary per file, one per symbol

    records = embedding_records(index, load_records(index, store_caches.parses))
    by_symbol = {(r.file_path, r.symbol): r for r in records}
    page = by_symbol[("web/app/page.tsx", "Page")]
    assert page.type == "component"
    assert page.react_metadata is not None
    assert page.react_metadata.is_server_component is True
    assert page.react_metadata.has_suspense_boundary
    assert page.dependencies == ["web/components/UserList.tsx"]
    user_list = by_symbol[("web/components/UserList.tsx", "UserList")]
    assert user_list.react_metadata is not None
    assert user_list.react_metadata.uses_hooks == ["useState"]
    assert user_list.react_metadata.is_server_component is False
    assert by_symbol[("storage/files.py", "read_document")].hash == git_blob(
        repo / "storage/files.py"
    )


def test_a_second_worker_reuses_every_parse_and_vector(
    repo: Path, store_caches: IndexCaches, db_url: str
) -> None:
    build_index(DirectoryTree(repo), store_caches)
    stats = IndexStats()
    other_worker = IndexCaches(parses=StoreParseCache(db_url), vectors=StoreVectorCache(db_url))

    build_index(DirectoryTree(repo), other_worker, stats=stats)

    assert stats.files_parsed == 0
    assert stats.vectors.embedded == 0 and stats.vectors.looked_up > 0


def test_update_reads_only_the_changed_files(repo: Path, store_caches: IndexCaches) -> None:
    index = build_index(DirectoryTree(repo), store_caches)
    (repo / "billing/invoice.py").write_text(
        FILES["billing/invoice.py"]
        + "\n\ndef refund(invoice):\n    return -invoice_total(invoice)\n"
    )
    stats = IndexStats()

    updated = update_index(
        index, DirectoryTree(repo), ["billing/invoice.py"], store_caches, stats=stats
    )

    assert stats.files_read == 1 and stats.files_parsed == 1
    assert stats.edges_resolved_for == 1
    assert stats.vectors.embedded == 2  # the changed file summary and the new symbol
    assert updated.blob_of("billing/invoice.py") == git_blob(repo / "billing/invoice.py")
    assert updated.blob_of("billing/invoice.py") != index.blob_of("billing/invoice.py")
    assert updated.edges == index.edges
    rebuilt = build_index(DirectoryTree(repo), IndexCaches(MemoryParseCache(), MemoryVectorCache()))
    assert updated.model_dump() == rebuilt.model_dump()


def test_update_with_an_added_and_a_deleted_file_resolves_imports_again(
    repo: Path, store_caches: IndexCaches
) -> None:
    index = build_index(DirectoryTree(repo), store_caches)
    (repo / "storage/files.py").unlink()
    (repo / "storage/blobs.py").write_text("def read_document(path):\n    return b''\n")
    (repo / "storage/__init__.py").write_text("from .blobs import read_document\n")
    changed = ["storage/files.py", "storage/blobs.py", "storage/__init__.py"]

    updated = update_index(index, DirectoryTree(repo), changed, store_caches)

    assert "storage/files.py" not in updated.paths()
    assert "storage/blobs.py" in updated.paths()
    assert ("storage/__init__.py", "storage/blobs.py") in {
        (e.importer, e.target) for e in updated.edges
    }
    rebuilt = build_index(DirectoryTree(repo), IndexCaches(MemoryParseCache(), MemoryVectorCache()))
    assert updated.model_dump() == rebuilt.model_dump()


def test_include_and_exclude_globs_select_files(repo: Path) -> None:
    caches = IndexCaches(MemoryParseCache(), MemoryVectorCache())
    index = build_index(DirectoryTree(repo), caches, include=["web/"], exclude=["**/index.ts"])
    assert index.paths() == ["web/app/page.tsx", "web/components/UserList.tsx"]


def test_retrieval_finds_the_storage_files_and_their_caller(
    repo: Path, store_caches: IndexCaches
) -> None:
    index = build_index(DirectoryTree(repo), store_caches)

    bundle = retrieve("Convert the sync file operations in storage to async", index, store_caches)

    assert bundle.paths()[0] == "storage/files.py"
    assert "billing/invoice.py" not in bundle.paths()
    assert unknown_paths(bundle.paths(), index) == []
    top = bundle.files[0]
    assert "lexical" in top.reasons
    assert set(top.symbols) <= {"read_document", "write_document"} and top.symbols


def test_stored_vectors_are_the_models_vectors(store_caches: IndexCaches) -> None:
    text = "def read_document(path): read a stored document from disk"
    stored = ensure_vectors({text_sha(text): text}, store_caches.vectors)[text_sha(text)]
    again = store_caches.vectors.get_many(embeddings.MODEL_ID, [text_sha(text)])

    assert np.allclose(embeddings.from_bytes(again[text_sha(text)]), stored)
    assert np.allclose(stored, embeddings.embed([text])[0])


def test_oversized_and_binary_files_are_listed_as_skipped_not_indexed(repo: Path) -> None:
    (repo / "storage/huge.py").write_text("x = 1\n" * 50_000)
    (repo / "storage/blob.py").write_bytes(b"\x00\x01binary")
    caches = IndexCaches(
        MemoryParseCache(), MemoryVectorCache(), limits=InputLimits(max_bytes=100_000)
    )

    index = build_index(DirectoryTree(repo), caches)

    assert "storage/huge.py" not in index.paths() and "storage/blob.py" not in index.paths()
    assert "larger than 100000 bytes" in index.skipped["storage/huge.py"]
    assert "binary" in index.skipped["storage/blob.py"]
    assert "storage/files.py" in index.paths()
