"""What people made of findings, per PR, on SQLite and Postgres: the memory of rebuttals."""

from __future__ import annotations

import secrets

import pytest

from prflow.store.finding_verdicts import (
    finding_stats,
    rebutted_fingerprints,
    record_verdict,
    verdicts_of,
)
from prflow.store.review_marks import record_review


def _org() -> str:
    """An organisation of the test's own: the Postgres database is the session's."""
    return f"acme-{secrets.token_hex(3)}"


def test_the_latest_verdict_on_a_finding_wins_and_rebuttals_are_per_pr(db_url: str) -> None:
    org = _org()
    record_verdict(db_url, f"{org}/api", 1, "f1", "accepted", dimension="Auth")
    record_verdict(db_url, f"{org}/api", 1, "f1", "rebutted", dimension="Auth", head_sha="a" * 40)
    record_verdict(db_url, f"{org}/api", 1, "f2", "fixed", dimension="Auth")
    record_verdict(db_url, f"{org}/api", 2, "f3", "rebutted")
    assert verdicts_of(db_url, f"{org}/api", 1) == {"f1": "rebutted", "f2": "fixed"}
    assert rebutted_fingerprints(db_url, f"{org}/api", 1) == ["f1"]
    assert rebutted_fingerprints(db_url, f"{org}/web", 1) == []
    with pytest.raises(ValueError, match="unknown verdict"):
        record_verdict(db_url, f"{org}/api", 1, "f9", "question")


def test_stats_count_each_outcome_per_repository_and_dimension(db_url: str) -> None:
    org = _org()
    record_review(db_url, f"{org}/api", 1, "a" * 40, ["f1", "f2", "f3", "f4"], "review:1")
    record_verdict(db_url, f"{org}/api", 1, "f1", "accepted", dimension="Auth")
    record_verdict(db_url, f"{org}/api", 1, "f2", "rebutted", dimension="Auth")
    record_verdict(db_url, f"{org}/api", 1, "f3", "fixed", dimension="Pricing")
    record_verdict(db_url, f"{org}/web", 4, "g1", "rebutted", dimension="UI")
    rows = [r for r in finding_stats(db_url) if str(r["repo"]).startswith(org)]
    assert rows == [
        {"repo": f"{org}/api", "dimension": "(not judged)", "accepted": 0, "rebutted": 0,
         "fixed": 0, "open": 1},
        {"repo": f"{org}/api", "dimension": "Auth", "accepted": 1, "rebutted": 1, "fixed": 0,
         "open": 0},
        {"repo": f"{org}/api", "dimension": "Pricing", "accepted": 0, "rebutted": 0, "fixed": 1,
         "open": 0},
        {"repo": f"{org}/web", "dimension": "UI", "accepted": 0, "rebutted": 1, "fixed": 0,
         "open": 0},
    ]  # fmt: skip
    assert [r["dimension"] for r in finding_stats(db_url, f"{org}/web")] == ["UI"]
