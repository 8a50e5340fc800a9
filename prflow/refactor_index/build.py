"""Building a snapshot's index, and updating it after a few files changed.

:func:`build_index` parses every selected file once per content (the parse
cache is keyed by git blob SHA), resolves the import graph with
:mod:`prflow.imports`, embeds what is not embedded yet and detects React /
Next. :func:`update_index` re-reads only the paths it is told changed: when
no file was added or removed, the import edges of the other files still
hold and are kept; when the set of files changed, every file's imports are
resolved again (a new file can capture an import another file already had).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pathspec

from prflow import embeddings
from prflow.analysis.parse_cache import (
    InputLimits,
    ParseCache,
    ParsedFiles,
    ParserSpec,
    git_blob_sha,
)
from prflow.imports.build import is_skipped
from prflow.imports.graph import ImportEdge
from prflow.imports.js_imports import JsResolver, js_import_edges
from prflow.imports.python_imports import PythonModuleIndex, python_import_edges
from prflow.imports.tsconfig import TsConfigIndex
from prflow.js_files import is_js_file
from prflow.refactor_index.models import FileRecord, IndexedFile, RepoIndex
from prflow.refactor_index.react import detect_project
from prflow.refactor_index.symbols import (
    PARSER_NAME,
    PARSER_VERSION,
    decode_record,
    language_of,
    parse_file,
)
from prflow.refactor_index.vectors import (
    Embedder,
    VectorCache,
    VectorStats,
    ensure_vectors,
    file_chunks,
)
from prflow.source_tree import CachedTree, SourceTree

INDEX_VERSION = f"{PARSER_NAME}/{PARSER_VERSION}/{embeddings.MODEL_ID}"
PARSER = ParserSpec(PARSER_NAME, PARSER_VERSION, parse_file)


@dataclass
class IndexCaches:
    """Where parse results and vectors are shared (the database in activities, dicts in tests)."""

    parses: ParseCache
    vectors: VectorCache
    embedder: Embedder = embeddings.embed
    limits: InputLimits = field(default_factory=InputLimits)
    progress: Callable[[str], None] | None = None


@dataclass
class IndexStats:
    """What one build or update did, for benchmarks and activity results."""

    files_read: int = 0
    files_parsed: int = 0
    vectors: VectorStats = field(default_factory=VectorStats)
    edges_resolved_for: int = 0


def select_paths(paths: Iterable[str], include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    """Python and JS/TS files matching ``include`` (all when empty) and not ``exclude``.

    Patterns are gitignore-style (``src/**/*.ts``, ``tests/``, ``*.min.js``);
    vendored and generated directories (``node_modules``, ``dist``, ...) never match.
    """
    wanted = pathspec.GitIgnoreSpec.from_lines(include) if include else None
    unwanted = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None
    return [
        path
        for path in paths
        if language_of(path) is not None
        and not is_skipped(path)
        and (wanted is None or wanted.match_file(path))
        and (unwanted is None or not unwanted.match_file(path))
    ]


def load_records(index: RepoIndex, parses: ParseCache) -> dict[str, FileRecord]:
    """The parsed record of every indexed path, read from the shared parse cache."""
    keys = {f.path: PARSER.key(f.blob_sha) for f in index.files}
    found = parses.get_many(sorted(set(keys.values())))
    return {path: decode_record(found[key]) for path, key in keys.items() if key in found}


def build_index(
    tree: SourceTree,
    caches: IndexCaches,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    stats: IndexStats | None = None,
) -> RepoIndex:
    """The whole index of ``tree``."""
    stats = stats if stats is not None else IndexStats()
    cached = CachedTree(tree)
    all_paths = cached.paths()
    paths = select_paths(all_paths, include, exclude)
    files, records, skipped = _read(cached, paths, caches, stats)
    configs = [p for p in all_paths if _is_config(p)]
    edges = _edges(cached, [f.path for f in files], [f.path for f in files], configs, stats)
    _embed(records, caches, stats)
    is_react, is_next = detect_project(all_paths, _manifests(cached, configs))
    return RepoIndex(
        version=INDEX_VERSION,
        include=list(include),
        exclude=list(exclude),
        files=files,
        config_paths=configs,
        edges=edges,
        is_react_project=is_react,
        is_next_project=is_next,
        skipped=skipped,
    )


def update_index(
    previous: RepoIndex,
    tree: SourceTree,
    changed: Iterable[str],
    caches: IndexCaches,
    *,
    stats: IndexStats | None = None,
) -> RepoIndex:
    """``previous`` brought up to date with ``tree`` for the ``changed`` paths only.

    Paths in ``changed`` that no longer exist are dropped; new ones that match
    the index's include/exclude patterns are added.
    """
    stats = stats if stats is not None else IndexStats()
    cached = CachedTree(tree)
    touched = sorted(set(changed))
    present = {
        path
        for path in select_paths(touched, previous.include, previous.exclude)
        if cached.size_of(path) is not None
    }
    kept = [f for f in previous.files if f.path not in set(touched)]
    fresh, records, skipped_now = _read(cached, sorted(present), caches, stats)
    files = sorted([*kept, *fresh], key=lambda f: f.path)
    paths = [f.path for f in files]
    configs = sorted(
        {p for p in previous.config_paths if p not in set(touched)}
        | {p for p in touched if _is_config(p) and cached.size_of(p) is not None}
    )
    same_set = set(paths) == {f.path for f in previous.files} and configs == previous.config_paths
    if same_set and not any(_is_config(p) for p in touched):
        changed_importers = {f.path for f in fresh}
        edges = [e for e in previous.edges if e.importer not in changed_importers]
        edges += _edges(cached, paths, sorted(changed_importers), configs, stats)
        edges.sort(key=lambda e: (e.importer, e.target))
    else:
        edges = _edges(cached, paths, paths, configs, stats)
    _embed(records, caches, stats)
    skipped = {p: r for p, r in previous.skipped.items() if p not in set(touched)}
    skipped.update(skipped_now)
    is_react, is_next = previous.is_react_project, previous.is_next_project
    if not same_set or any(_is_config(p) for p in touched):
        is_react, is_next = detect_project(paths, _manifests(cached, configs))
    return previous.model_copy(
        update={
            "files": files,
            "config_paths": configs,
            "edges": edges,
            "skipped": skipped,
            "is_react_project": is_react,
            "is_next_project": is_next,
        }
    )


def _read(
    tree: CachedTree, paths: list[str], caches: IndexCaches, stats: IndexStats
) -> tuple[list[IndexedFile], dict[str, FileRecord], dict[str, str]]:
    parsed = ParsedFiles(PARSER, caches.parses, caches.limits, progress=caches.progress)
    results = parsed.get_many(tree, paths)
    stats.files_read += len(paths)
    stats.files_parsed += parsed.parsed_count
    files: list[IndexedFile] = []
    records: dict[str, FileRecord] = {}
    for path in paths:
        data = results.get(path)
        text = tree.read_text(path)
        if data is None or text is None:
            continue
        record = decode_record(data)
        records[path] = record
        blob = git_blob_sha(text.encode("utf-8", errors="replace"))
        files.append(IndexedFile(path=path, blob_sha=blob, language=record.language))
    skipped = {path: entry.reason for path, entry in parsed.skipped.items()}
    return files, records, skipped


def _edges(
    tree: CachedTree,
    indexed: list[str],
    importers: list[str],
    configs: list[str],
    stats: IndexStats,
) -> list[ImportEdge]:
    """Import edges of ``importers``, resolved against the ``indexed`` files."""
    python_index = PythonModuleIndex.from_paths([p for p in indexed if not is_js_file(p)])
    resolver = JsResolver(
        files=frozenset(p for p in indexed if is_js_file(p)),
        configs=TsConfigIndex(tree, configs),
    )
    edges: list[ImportEdge] = []
    for path in importers:
        text = tree.read_text(path)
        if text is None:
            continue
        try:
            if is_js_file(path):
                edges.extend(js_import_edges(path, text, resolver))
            else:
                edges.extend(python_import_edges(path, text, python_index))
        except (SyntaxError, ValueError, RecursionError):
            continue  # a file that does not parse imports nothing we can trust
    stats.edges_resolved_for += len(importers)
    return edges


def _embed(records: dict[str, FileRecord], caches: IndexCaches, stats: IndexStats) -> None:
    texts = {
        chunk.sha: chunk.text
        for path, record in records.items()
        for chunk in file_chunks(path, record)
    }
    if caches.progress is not None and texts:
        caches.progress(f"embedding {len(texts)} texts")
    ensure_vectors(texts, caches.vectors, embedder=caches.embedder, stats=stats.vectors)


_CONFIG_NAMES = ("package.json", "tsconfig.json", "jsconfig.json")


def _is_config(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in _CONFIG_NAMES and not is_skipped(path)


def _manifests(tree: CachedTree, paths: list[str]) -> dict[str, str]:
    manifests: dict[str, str] = {}
    for path in paths:
        if path.endswith("package.json") and not is_skipped(path):
            text = tree.read_text(path)
            if text is not None:
                manifests[path] = text
    return manifests
