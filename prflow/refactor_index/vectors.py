"""What gets embedded for a file, and vectors fetched from or added to a shared cache.

Each file yields one text for the file as a whole (path, module doc, export
and symbol names) and one per symbol (path, name, signature, doc, start of
the body). A text's vector is cached under the SHA-256 of the text and the
model id, so an unchanged symbol is never embedded twice, whichever worker
or run meets it first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from prflow import embeddings
from prflow.refactor_index.models import FileRecord

Embedder = Callable[[Sequence[str]], embeddings.Vectors]
_BATCH = 256


class VectorCache(Protocol):
    """Vector bytes by (model id, text SHA-256)."""

    def get_many(self, model: str, text_shas: Sequence[str]) -> dict[str, bytes]: ...

    def put_many(self, model: str, vectors: Mapping[str, bytes]) -> None: ...


class MemoryVectorCache:
    """A vector cache in a dict, for tests and one-off runs."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], bytes] = {}

    def get_many(self, model: str, text_shas: Sequence[str]) -> dict[str, bytes]:
        return {sha: self.items[(model, sha)] for sha in text_shas if (model, sha) in self.items}

    def put_many(self, model: str, vectors: Mapping[str, bytes]) -> None:
        self.items.update({(model, sha): data for sha, data in vectors.items()})


@dataclass(frozen=True)
class Chunk:
    """One embedded text of a file: the file itself (symbol None) or one symbol."""

    path: str
    symbol: str | None
    text: str

    @property
    def sha(self) -> str:
        return text_sha(self.text)


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()


def file_chunks(path: str, record: FileRecord) -> list[Chunk]:
    """The texts embedded for ``path``: the file summary first, then each symbol."""
    names = " ".join(dict.fromkeys([*record.exports, *(s.name for s in record.symbols)]))
    chunks = [Chunk(path, None, f"{path}\n{record.doc}\n{names}".strip())]
    for symbol in record.symbols:
        parts = [f"{path} {symbol.name}", symbol.signature, symbol.doc, symbol.body_head]
        chunks.append(Chunk(path, symbol.name, "\n".join(p for p in parts if p)))
    return chunks


@dataclass
class VectorStats:
    looked_up: int = 0
    embedded: int = 0


def ensure_vectors(
    texts: Mapping[str, str],
    cache: VectorCache,
    *,
    model: str = embeddings.MODEL_ID,
    embedder: Embedder = embeddings.embed,
    stats: VectorStats | None = None,
) -> dict[str, embeddings.Vectors]:
    """Vectors for ``texts`` (by text SHA): cached ones read, the others embedded and stored."""
    wanted = sorted(texts)
    found = {
        sha: embeddings.from_bytes(data) for sha, data in cache.get_many(model, wanted).items()
    }
    missing = [sha for sha in wanted if sha not in found]
    for start in range(0, len(missing), _BATCH):
        batch = missing[start : start + _BATCH]
        vectors = embedder([texts[sha] for sha in batch])
        fresh = {sha: np.asarray(vectors[i], dtype=np.float32) for i, sha in enumerate(batch)}
        cache.put_many(model, {sha: embeddings.to_bytes(v) for sha, v in fresh.items()})
        found.update(fresh)
    if stats is not None:
        stats.looked_up += len(wanted)
        stats.embedded += len(missing)
    return found
