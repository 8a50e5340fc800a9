"""The bundled text-embedding model: unit vectors, meaning-based similarity, stable bytes."""

from __future__ import annotations

import numpy as np
from sqlalchemy import inspect

from prflow import embeddings
from prflow.store.database import engine_for


def test_vectors_are_unit_length_and_blank_text_is_zero() -> None:
    vectors = embeddings.embed(["read a file from disk", "", "   "])
    assert vectors.shape == (3, embeddings.DIM) and vectors.dtype == np.float32
    assert np.isclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)
    assert not vectors[1].any() and not vectors[2].any()
    assert embeddings.embed([]).shape == (0, embeddings.DIM)


def test_similar_meaning_scores_higher_than_unrelated_text() -> None:
    query, near, far = embeddings.embed(
        [
            "parse JSON configuration with comments",
            "def parse_jsonc(text): parse JSON that may contain comments and trailing commas",
            "class BlobRow: immutable bytes addressed by their sha256",
        ]
    )
    assert embeddings.cosine(query, near) > embeddings.cosine(query, far) + 0.2
    matrix = embeddings.cosine_matrix(np.stack([query]), np.stack([near, far]))
    assert matrix.shape == (1, 2) and matrix[0, 0] > matrix[0, 1]


def test_bytes_round_trip() -> None:
    vector = embeddings.embed(["async storage"])[0]
    assert np.array_equal(embeddings.from_bytes(embeddings.to_bytes(vector)), vector)
    assert len(embeddings.to_bytes(vector)) == 4 * embeddings.DIM


def test_the_embeddings_table_exists_after_migration(db_url: str) -> None:
    columns = {c["name"] for c in inspect(engine_for(db_url)).get_columns("embeddings")}
    assert columns == {"model", "text_sha", "dim", "vector", "created_at"}
