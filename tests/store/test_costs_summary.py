"""Rolling ledger slices up into the `prflow costs` figures (no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from prflow.errors import UserError
from prflow.store.costs import SpendSlice, parse_since, summarize

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def piece(workflow_id: str, kind: str, phase: str, model: str, **figures: float) -> SpendSlice:
    return SpendSlice(
        workflow_id=workflow_id,
        workflow_kind=kind,
        phase=phase,
        model=model,
        repo="acme/app",
        pr_number=int(workflow_id.rsplit("#", 1)[1]),
        **figures,  # type: ignore[arg-type]
    )


SLICES = [
    piece(
        "impact#1",
        "impact",
        "analysis",
        "sonnet",
        attempts=3,
        failed_attempts=1,
        input_tokens=1000,
        output_tokens=200,
        usd=0.1,
    ),
    piece(
        "impact#2",
        "impact",
        "analysis",
        "sonnet",
        attempts=1,
        input_tokens=500,
        cache_read_tokens=4000,
        usd=0.2,
    ),
    piece(
        "review#3",
        "review",
        "intake",
        "haiku",
        attempts=2,
        input_tokens=50,
        cache_write_tokens=70,
        usd=0.01,
    ),
    piece(
        "review#3",
        "review",
        "reviewers",
        "opus",
        attempts=4,
        failed_attempts=2,
        output_tokens=900,
        usd=1.5,
    ),
]


def test_spend_is_grouped_by_kind_phase_and_model_most_expensive_first() -> None:
    report = summarize(SLICES)
    rows = [
        (r.workflow_kind, r.phase, r.model, r.attempts, r.failed_attempts, r.usd)
        for r in report.by_phase
    ]
    assert rows == [
        ("review", "reviewers", "opus", 4, 2, 1.5),
        ("impact", "analysis", "sonnet", 4, 1, 0.3),
        ("review", "intake", "haiku", 2, 0, 0.01),
    ]
    impact = report.by_phase[1]
    assert (impact.input_tokens, impact.output_tokens, impact.cache_read_tokens) == (
        1500,
        200,
        4000,
    )


def test_spend_is_grouped_per_workflow_with_repo_and_pr() -> None:
    report = summarize(SLICES)
    rows = [
        (r.workflow_id, r.workflow_kind, r.repo, r.pr_number, r.attempts, r.usd)
        for r in report.by_workflow
    ]
    assert rows == [
        ("review#3", "review", "acme/app", 3, 6, 1.51),
        ("impact#2", "impact", "acme/app", 2, 1, 0.2),
        ("impact#1", "impact", "acme/app", 1, 3, 0.1),
    ]


def test_a_runs_child_agents_count_toward_the_run() -> None:
    child = piece("review#3/agent:reviewers:d1-x#3", "review", "reviewers", "opus", usd=0.25)
    report = summarize([*SLICES, child])
    review = next(r for r in report.by_workflow if r.workflow_kind == "review")
    assert [r.workflow_id for r in report.by_workflow].count("review#3") == 1
    assert review.usd == 1.76


def test_totals_add_up_every_slice() -> None:
    totals = summarize(SLICES).totals
    assert totals.attempts == 10
    assert totals.failed_attempts == 3
    assert (totals.input_tokens, totals.output_tokens) == (1550, 1100)
    assert (totals.cache_write_tokens, totals.cache_read_tokens) == (70, 4000)
    assert totals.usd == 1.81


def test_no_slices_give_empty_tables_and_zero_totals() -> None:
    report = summarize([])
    assert report.by_phase == [] and report.by_workflow == []
    assert report.totals.usd == 0.0 and report.totals.attempts == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30m", NOW - timedelta(minutes=30)),
        ("24h", NOW - timedelta(hours=24)),
        ("7d", NOW - timedelta(days=7)),
        ("2w", NOW - timedelta(days=14)),
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T08:30:00", datetime(2026, 11, 1, 8, 30, tzinfo=UTC)),
        ("2026-11-01T08:30:00+02:00", datetime(2026, 11, 1, 6, 30, tzinfo=UTC)),
    ],
)
def test_since_accepts_durations_and_iso_dates(text: str, expected: datetime) -> None:
    assert parse_since(text, NOW) == expected


@pytest.mark.parametrize("text", ["yesterday", "7 days", "-3d", "2026-13-01", ""])
def test_an_unreadable_since_is_a_user_error_saying_what_works(text: str) -> None:
    with pytest.raises(UserError, match=r"24h, 7d.*2026-01-31"):
        parse_since(text, NOW)
