"""`prflow costs` over a real ledger database."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import typer
from sqlalchemy import update
from typer.testing import CliRunner

from prflow.cli import costs_cmd
from prflow.errors import UserError
from prflow.store.database import engine_for
from prflow.store.ledger import LlmAttempt, record_attempt
from prflow.store.schema import LlmAttemptRow


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Stand-in for the prflow root command."""

    costs_cmd.register(app)
    return app


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli(), ["costs", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def record(db_url: str, workflow_id: str, attempt: int, **fields: object) -> None:
    values: dict[str, object] = {
        "workflow_id": workflow_id,
        "run_id": "run-1",
        "activity_id": "3",
        "attempt": attempt,
        "workflow_kind": "impact",
        "phase": "analysis",
        "model": "claude-sonnet-5-5",
        "repo": "acme/app",
        "pr_number": 7,
    }
    values.update(fields)
    assert record_attempt(db_url, LlmAttempt.model_validate(values))


@pytest.fixture
def ledger(db_url: str) -> str:
    record(db_url, "impact-7", 1, input_tokens=1000, output_tokens=400, usd=0.25)
    record(db_url, "impact-7", 2, outcome="APITimeoutError", error="timed out", usd=0.0)
    record(
        db_url,
        "review-9",
        1,
        workflow_kind="review",
        phase="reviewers",
        model="claude-opus-5-5",
        pr_number=9,
        input_tokens=3000,
        cache_read_tokens=20_000,
        usd=1.75,
    )
    return db_url


def test_tables_show_spend_per_phase_per_workflow_and_in_total(ledger: str) -> None:
    output = invoke("--database-url", ledger)
    lines = output.splitlines()
    phase_row = next(line for line in lines if "reviewers" in line)
    assert "review" in phase_row and "claude-opus-5-5" in phase_row
    assert "20,000" in phase_row and "1.7500" in phase_row
    impact_row = next(line for line in lines if "impact-7" in line)
    assert "acme/app" in impact_row and "#7" in impact_row
    assert "1,000" in impact_row and "0.2500" in impact_row
    assert "Total: 2.0000 USD over 3 attempts (1 failed)" in output
    assert "\x1b[" not in output  # not a terminal: no colour codes


def test_json_has_stable_keys_and_correct_totals(ledger: str) -> None:
    report = json.loads(invoke("--database-url", ledger, "--json"))
    assert set(report) == {"filters", "by_phase", "by_workflow", "totals", "cuts"}
    assert report["cuts"] == [], "no phase of this ledger was cut"
    assert report["totals"] == {
        "attempts": 3,
        "failed_attempts": 1,
        "unknown_attempts": 0,
        "unknown_worst_usd": 0.0,
        "reused_attempts": 0,
        "input_tokens": 4000,
        "output_tokens": 400,
        "cache_write_tokens": 0,
        "cache_read_tokens": 20_000,
        "usd": 2.0,
    }
    impact = next(row for row in report["by_workflow"] if row["workflow_id"] == "impact-7")
    assert (impact["attempts"], impact["failed_attempts"], impact["usd"]) == (2, 1, 0.25)
    assert [row["phase"] for row in report["by_phase"]] == ["reviewers", "analysis"]


def test_workflow_filter_counts_only_that_workflow(ledger: str) -> None:
    report = json.loads(invoke("--database-url", ledger, "--json", "--workflow-id", "review-9"))
    assert report["filters"]["workflow_id"] == "review-9"
    assert [row["workflow_id"] for row in report["by_workflow"]] == ["review-9"]
    assert report["totals"]["usd"] == 1.75


def test_since_leaves_out_older_attempts(ledger: str) -> None:
    ten_days_ago = datetime.now(UTC) - timedelta(days=10)
    with engine_for(ledger).begin() as connection:
        connection.execute(
            update(LlmAttemptRow)
            .where(LlmAttemptRow.workflow_id == "review-9")
            .values(created_at=ten_days_ago)
        )
    recent = json.loads(invoke("--database-url", ledger, "--json", "--since", "7d"))
    assert [row["workflow_id"] for row in recent["by_workflow"]] == ["impact-7"]
    assert recent["totals"]["usd"] == 0.25
    everything = json.loads(invoke("--database-url", ledger, "--json", "--since", "30d"))
    assert everything["totals"]["usd"] == 2.0


def test_an_empty_ledger_says_so(db_url: str) -> None:
    assert "No LLM attempts recorded" in invoke("--database-url", db_url)


def test_an_unreadable_since_is_a_user_error(sqlite_url: str) -> None:
    with pytest.raises(UserError, match="--since 'lately'"):
        CliRunner().invoke(
            cli(),
            ["costs", "--database-url", sqlite_url, "--since", "lately"],
            catch_exceptions=False,
        )


def test_an_attempt_whose_worker_died_is_reported_as_unknown_at_its_worst_case(
    ledger: str,
) -> None:
    record(ledger, "impact-8", 1, outcome="sent", worst_case_usd=0.42)
    output = invoke("--database-url", ledger)
    assert "Total: 2.0000 USD over 4 attempts (1 failed)" in output
    assert "Unknown: 1 attempts were sent" in output
    assert "0.4200 USD more" in output
    report = json.loads(invoke("--database-url", ledger, "--json"))
    assert (report["totals"]["unknown_attempts"], report["totals"]["unknown_worst_usd"]) == (
        1,
        0.42,
    )
