"""Index speed on a real repository nobody here wrote: cold full index, then 3 changed files.

The repository is the Django 5.1.4 sdist (2,700+ Python files plus JS), fetched
with ``pip download`` and unpacked under ``bench/.work/refactor``. Timed:

1. **anchor**: read every selected file and parse it with the same tree-sitter
   grammars, nothing else (what any tree-sitter indexer must at least do);
2. **cold index**: ``build_index`` against an empty SQLite database (parse cache and
   embeddings empty, embedding model not yet loaded in the process);
3. **re-index**: three files edited (a function appended to each), then
   ``update_index`` for those paths, as the refactor workflow does after a task.

Printed: files/s of both full passes, the re-index time as a share of the cold
index (goal <= 0.05), and last the cold index time over the anchor's.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from bench.impact.fetch import python_sdist
from bench.impact.layout import fresh_dir
from bench.impact.repos import every_file, unpack_release
from prflow.refactor_index.build import (
    IndexCaches,
    IndexStats,
    build_index,
    select_paths,
    update_index,
)
from prflow.refactor_index.symbols import _parser, language_of
from prflow.source_tree import DirectoryTree
from prflow.store.database import dispose_engine
from prflow.store.embeddings import StoreVectorCache
from prflow.store.parse_cache import StoreParseCache

PACKAGE, VERSION = "Django", "5.1.4"
CHANGED = (
    "django/utils/text.py",
    "django/db/models/query.py",
    "django/contrib/admin/options.py",
)


@dataclass(frozen=True)
class SpeedResult:
    files: int
    anchor_seconds: float
    cold_seconds: float
    reindex_seconds: float
    cold_stats: IndexStats
    reindex_stats: IndexStats


def prepare(work: Path) -> Path:
    archive = python_sdist(work / "downloads", PACKAGE, VERSION)
    tree = work / "repos" / f"{PACKAGE.lower()}-{VERSION}"
    if not (tree / CHANGED[0]).is_file():
        fresh_dir(tree)
        unpack_release(archive, tree, every_file)
    return tree


def anchor_parse(root: Path, paths: list[str]) -> float:
    started = time.perf_counter()
    for path in paths:
        data = (root / path).read_bytes()
        language = language_of(path)
        assert language is not None
        _parser(language).parse(data)
    return time.perf_counter() - started


def measure(work: Path) -> SpeedResult:
    source = prepare(work)
    root = work / "repos" / "index-speed"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root)
    state = fresh_dir(work / "state" / "index-speed")
    db_url = f"sqlite:///{state / 'prflow.db'}"
    tree = DirectoryTree(root)
    paths = select_paths(tree.paths(), (), ())
    anchor = anchor_parse(root, paths)

    caches = IndexCaches(parses=StoreParseCache(db_url), vectors=StoreVectorCache(db_url))
    cold_stats = IndexStats()
    started = time.perf_counter()
    index = build_index(tree, caches, stats=cold_stats)
    cold = time.perf_counter() - started

    for number, path in enumerate(CHANGED):
        with (root / path).open("a") as handle:
            handle.write(f"\n\ndef bench_added_{number}(value):\n    return value\n")
    reindex_stats = IndexStats()
    started = time.perf_counter()
    updated = update_index(index, DirectoryTree(root), CHANGED, caches, stats=reindex_stats)
    reindex = time.perf_counter() - started
    assert all(updated.blob_of(p) != index.blob_of(p) for p in CHANGED)
    dispose_engine(db_url)
    return SpeedResult(
        files=len(index.files),
        anchor_seconds=anchor,
        cold_seconds=cold,
        reindex_seconds=reindex,
        cold_stats=cold_stats,
        reindex_stats=reindex_stats,
    )


def report(result: SpeedResult) -> list[str]:
    cold, anchor = result.cold_seconds, result.anchor_seconds
    return [
        f"repository: {PACKAGE} {VERSION} sdist, {result.files} indexed files",
        f"anchor (read + tree-sitter parse only): {anchor:.2f} s, "
        f"{result.files / anchor:.0f} files/s",
        f"cold index: {cold:.2f} s, {result.files / cold:.0f} files/s "
        f"({result.cold_stats.files_parsed} parsed, "
        f"{result.cold_stats.vectors.embedded} texts embedded)",
        f"re-index after {len(CHANGED)} changed files: {result.reindex_seconds:.3f} s "
        f"({result.reindex_stats.files_parsed} parsed, "
        f"{result.reindex_stats.vectors.embedded} texts embedded)",
        f"re-index / cold index: {result.reindex_seconds / cold:.4f} (goal <= 0.05)",
        f"cold index / anchor: {cold / anchor:.2f}x",
    ]
