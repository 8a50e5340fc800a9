"""Blob store: content-addressed, deduplicated, verified on read."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import BaseModel
from sqlalchemy import func, select, update

from prflow.store.blobs import (
    BlobCorrupted,
    BlobNotFound,
    get_blob,
    get_json,
    get_text,
    put_blob,
    put_json,
    put_text,
)
from prflow.store.database import engine_for
from prflow.store.schema import BlobRow


class Finding(BaseModel):
    path: str
    line: int


def blob_rows(db_url: str) -> list[tuple[str, int, str]]:
    query = select(BlobRow.key, BlobRow.size, BlobRow.media_type).order_by(BlobRow.key)
    with engine_for(db_url).connect() as connection:
        return [(r.key, r.size, r.media_type) for r in connection.execute(query)]


def test_bytes_round_trip_under_their_sha256(db_url: str) -> None:
    data = bytes(range(256)) * 1000
    key = put_blob(db_url, data, "application/x-diff")
    assert key == "sha256:" + hashlib.sha256(data).hexdigest()
    assert get_blob(db_url, key) == data
    assert blob_rows(db_url) == [(key, len(data), "application/x-diff")]


def test_storing_equal_content_again_adds_nothing(db_url: str) -> None:
    first = put_blob(db_url, b"diff --git a/x b/x\n")
    second = put_blob(db_url, b"diff --git a/x b/x\n")
    assert first == second
    with engine_for(db_url).connect() as connection:
        assert connection.execute(select(func.count()).select_from(BlobRow)).scalar_one() == 1


def test_equal_json_values_share_one_key(db_url: str) -> None:
    key = put_json(db_url, {"b": [1, 2], "a": {"y": None, "x": "é"}})
    assert put_json(db_url, {"a": {"x": "é", "y": None}, "b": [1, 2]}) == key
    assert get_json(db_url, key) == {"a": {"x": "é", "y": None}, "b": [1, 2]}
    assert get_blob(db_url, key) == '{"a":{"x":"é","y":null},"b":[1,2]}'.encode()


def test_pydantic_models_are_stored_as_their_json(db_url: str) -> None:
    key = put_json(db_url, Finding(path="src/app.py", line=12))
    assert get_json(db_url, key) == {"path": "src/app.py", "line": 12}
    assert Finding.model_validate(get_json(db_url, key)) == Finding(path="src/app.py", line=12)


def test_text_round_trips_as_utf8(db_url: str) -> None:
    key = put_text(db_url, "résumé ✓\n")
    assert get_text(db_url, key) == "résumé ✓\n"
    assert blob_rows(db_url)[0][2].startswith("text/plain")


def test_a_missing_key_names_itself(db_url: str) -> None:
    missing = "sha256:" + "0" * 64
    with pytest.raises(BlobNotFound) as caught:
        get_blob(db_url, missing)
    assert isinstance(caught.value, KeyError)
    assert missing in str(caught.value)


def test_altered_bytes_are_reported_as_corruption(db_url: str) -> None:
    key = put_text(db_url, "the original report")
    with engine_for(db_url).begin() as connection:
        connection.execute(update(BlobRow).where(BlobRow.key == key).values(data=b"tampered"))
    with pytest.raises(BlobCorrupted, match="corrupted") as caught:
        get_text(db_url, key)
    assert key in str(caught.value)
