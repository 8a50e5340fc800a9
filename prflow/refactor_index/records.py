"""Seed 003's per-symbol metadata records, assembled from an index and its file records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from prflow.refactor_index.models import EmbeddingRecord, FileRecord, RepoIndex
from prflow.refactor_index.react import react_metadata


def embedding_records(index: RepoIndex, records: Mapping[str, FileRecord]) -> list[EmbeddingRecord]:
    """One record per symbol: its file's dependencies (indexed files it imports), imports, hash.

    ``react_metadata`` is set only when the index found a React project.
    """
    depends: dict[str, set[str]] = defaultdict(set)
    for edge in index.edges:
        depends[edge.importer].add(edge.target)
    found: list[EmbeddingRecord] = []
    for indexed in index.files:
        record = records.get(indexed.path)
        if record is None:
            continue
        for symbol in record.symbols:
            react = (
                react_metadata(symbol, record, indexed.path, is_next_project=index.is_next_project)
                if index.is_react_project
                else None
            )
            found.append(
                EmbeddingRecord(
                    file_path=indexed.path,
                    symbol=symbol.name,
                    type=symbol.kind,
                    dependencies=sorted(depends[indexed.path]),
                    imports=list(record.imports),
                    hash=indexed.blob_sha,
                    react_metadata=react,
                )
            )
    return found
