"""Where the last review of each PR left off, on SQLite and on Postgres."""

from __future__ import annotations

from prflow.store.review_marks import last_review, record_review


def test_the_last_review_replaces_the_one_before_per_pull_request(db_url: str) -> None:
    assert last_review(db_url, "acme/api", 7) is None
    record_review(db_url, "acme/api", 7, "a" * 40, ["f2", "f1", "f1"], "review:acme/api#7")
    assert last_review(db_url, "acme/api", 7) == ("a" * 40, ["f1", "f2"])

    record_review(db_url, "acme/api", 7, "b" * 40, ["f1", "f2", "f3"], "review:acme/api#7")
    record_review(db_url, "acme/api", 8, "c" * 40, [], "review:acme/api#8")
    assert last_review(db_url, "acme/api", 7) == ("b" * 40, ["f1", "f2", "f3"])
    assert last_review(db_url, "acme/api", 8) == ("c" * 40, [])
    assert last_review(db_url, "acme/web", 7) is None
