"""Stored texts cut into slices that fit a Temporal payload, plain or packed."""

from __future__ import annotations

import random

from prflow.blob_chunks import CHUNK_CHARS, PACKED_BYTES, BlobChunk, chunk_of


def _read_all(text: str, *, packed: bool) -> tuple[str, list[BlobChunk]]:
    chunks: list[BlobChunk] = []
    offset: int | None = 0
    while offset is not None:
        chunk = chunk_of(text, offset, packed=packed)
        chunks.append(chunk)
        offset = chunk.next_offset
    return "".join(c.content() for c in chunks), chunks


def _noisy_text(chars: int) -> str:
    """Text zlib cannot shrink much: random letters, digits and accented characters."""
    pick = random.Random(7).choice
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüñ€ \n"
    return "".join(pick(alphabet) for _ in range(chars))


def test_a_repetitive_report_of_megabytes_travels_in_a_few_packed_slices() -> None:
    report = "".join(f'{{"path": "pkg/mod_{i}.py", "kind": "removed"}},\n' for i in range(60_000))
    assert len(report) > 16 * CHUNK_CHARS

    text, chunks = _read_all(report, packed=True)
    _, plain = _read_all(report, packed=False)

    assert text == report
    assert len(plain) >= 16 and len(chunks) <= 2
    assert all(len(c.packed or "") <= PACKED_BYTES for c in chunks)


def test_text_that_barely_compresses_is_cut_into_slices_that_each_fit() -> None:
    noisy = _noisy_text(700_000)

    text, chunks = _read_all(noisy, packed=True)

    assert text == noisy
    assert len(chunks) > 1
    assert all(len(c.packed or "") <= PACKED_BYTES for c in chunks)


def test_plain_slices_are_what_older_clients_asked_for() -> None:
    text, chunks = _read_all("é" * (2 * CHUNK_CHARS + 5), packed=False)

    assert text == "é" * (2 * CHUNK_CHARS + 5)
    assert [len(c.text) for c in chunks] == [CHUNK_CHARS, CHUNK_CHARS, 5]
    assert all(c.packed is None for c in chunks)
