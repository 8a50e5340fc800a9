"""Retrieval over a stored index: load what :func:`retrieve_files` needs, then rank."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from prflow import embeddings
from prflow.refactor_index.build import IndexCaches, load_records
from prflow.refactor_index.models import RepoIndex
from prflow.refactor_index.retrieval import RetrievalBundle, RetrievalSettings, retrieve_files
from prflow.refactor_index.vectors import ensure_vectors, file_chunks


def retrieve(
    query: str,
    index: RepoIndex,
    caches: IndexCaches,
    settings: RetrievalSettings | None = None,
) -> RetrievalBundle:
    """The bundle of files for ``query`` (a directive or a task's text)."""
    records = load_records(index, caches.parses)
    chunks = [chunk for path, record in records.items() for chunk in file_chunks(path, record)]
    vectors = ensure_vectors(
        {c.sha: c.text for c in chunks}, caches.vectors, embedder=caches.embedder
    )
    rows: dict[str, list[embeddings.Vectors]] = defaultdict(list)
    names: dict[str, list[str | None]] = defaultdict(list)
    for chunk in chunks:
        rows[chunk.path].append(vectors[chunk.sha])
        names[chunk.path].append(chunk.symbol)
    file_vectors = {path: np.stack(parts) for path, parts in rows.items()}
    query_vector = caches.embedder([query])[0]
    return retrieve_files(
        query, index, records, file_vectors, query_vector, settings, symbol_names=names
    )
