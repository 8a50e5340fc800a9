"""``prflow costs --by`` and ``--until`` and the dashboard views, on SQLite and on Postgres."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text, update
from typer.testing import CliRunner

from prflow.cli.app import _register_commands, app
from prflow.store.costs import group_spend
from prflow.store.database import engine_for
from prflow.store.ledger import LlmAttempt, record_attempt, spend_slices
from prflow.store.schema import LlmAttemptRow

DAY = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)


def record(db_url: str, n: int, at: datetime, **fields: object) -> None:
    values: dict[str, object] = {
        "workflow_id": f"wf-{n}",
        "run_id": "run",
        "activity_id": "1",
        "attempt": 1,
        "workflow_kind": "impact",
        "phase": "impact_agent",
        "model": "claude-sonnet-5-5",
        "repo": "acme/api",
        "pr_number": 1,
        "input_tokens": 100,
        "output_tokens": 10,
    }
    values.update(fields)
    assert record_attempt(db_url, LlmAttempt.model_validate(values))
    with engine_for(db_url).begin() as connection:
        connection.execute(
            update(LlmAttemptRow)
            .where(LlmAttemptRow.workflow_id == f"wf-{n}")
            .values(created_at=at)
        )


@pytest.fixture
def ledger(db_url: str) -> str:
    record(db_url, 1, DAY, usd=0.50)
    record(db_url, 2, DAY + timedelta(hours=1), usd=0.25, pr_number=2)
    record(db_url, 3, DAY + timedelta(days=1), usd=1.00, repo="acme/web", model="claude-haiku-5-5")
    record(
        db_url,
        4,
        DAY + timedelta(days=1),
        usd=2.00,
        workflow_kind="review",
        phase="reviewers",
        repo="acme/web",
        pr_number=9,
    )
    record(db_url, 5, DAY - timedelta(days=30), usd=9.00)  # before the window
    return db_url


def test_spend_groups_by_each_dimension_within_the_window(ledger: str) -> None:
    window = spend_slices(ledger, since=DAY, until=DAY + timedelta(days=2))
    by = {
        name: [(g.key, round(g.usd, 2), g.attempts) for g in group_spend(window, name)]
        for name in ("repo", "pr", "kind", "phase", "model")
    }
    assert by["repo"] == [("acme/web", 3.0, 2), ("acme/api", 0.75, 2)]
    assert by["pr"] == [
        ("acme/web#9", 2.0, 1),
        ("acme/web#1", 1.0, 1),
        ("acme/api#1", 0.5, 1),
        ("acme/api#2", 0.25, 1),
    ]
    assert by["kind"] == [("review", 2.0, 1), ("impact", 1.75, 3)]
    assert by["phase"] == [("review/reviewers", 2.0, 1), ("impact/impact_agent", 1.75, 3)]
    assert by["model"] == [("claude-sonnet-5-5", 2.75, 3), ("claude-haiku-5-5", 1.0, 1)]
    first_day = spend_slices(ledger, since=DAY, until=DAY + timedelta(days=1))
    assert sum(s.usd for s in first_day) == pytest.approx(0.75), "--until is exclusive"


def test_dashboard_views_sum_the_ledger(ledger: str) -> None:
    with engine_for(ledger).connect() as connection:
        by_pr = connection.execute(
            text(
                "SELECT repo, pr_number, workflow_kind, attempts, usd "
                "FROM prflow_cost_by_pr ORDER BY usd DESC"
            )
        ).all()
        by_phase = connection.execute(
            text(
                "SELECT workflow_kind, phase, model, usd "
                "FROM prflow_cost_by_phase ORDER BY usd DESC"
            )
        ).all()
        daily = connection.execute(
            text("SELECT day, workflow_kind, model, usd FROM prflow_cost_daily ORDER BY day, usd")
        ).all()
    assert [(r[0], r[1], r[2], r[3], float(r[4])) for r in by_pr][:2] == [
        ("acme/api", 1, "impact", 2, 9.5),
        ("acme/web", 9, "review", 1, 2.0),
    ]
    assert next((r[0], r[1], r[2], float(r[3])) for r in by_phase) == (
        "impact",
        "impact_agent",
        "claude-sonnet-5-5",
        9.75,
    )
    assert [(str(r[0]), float(r[3])) for r in daily] == [
        ("2026-10-11", 9.0),
        ("2026-11-10", 0.75),
        ("2026-11-11", 1.0),
        ("2026-11-11", 2.0),
    ]


def test_the_costs_command_groups_and_bounds_the_window(ledger: str) -> None:
    _register_commands()
    result = CliRunner().invoke(
        app,
        [
            "costs",
            "--database-url",
            ledger,
            "--since",
            "2026-11-10",
            "--until",
            "2026-11-11",
            "--by",
            "pr",
            "--json",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert [(g["key"], g["usd"]) for g in payload["groups"]] == [
        ("acme/api#1", 0.5),
        ("acme/api#2", 0.25),
    ]
    assert payload["filters"]["until"] == "2026-11-11T00:00:00+00:00"
    table = CliRunner().invoke(
        app, ["costs", "--database-url", ledger, "--by", "model"], catch_exceptions=False
    )
    assert "Spend by model" in table.output and "claude-haiku-5-5" in table.output
