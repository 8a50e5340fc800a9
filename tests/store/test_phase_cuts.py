"""Phases cut by a cap, kept once per recording activity, on SQLite and Postgres."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import create_engine, inspect

from prflow.store.database import alembic_config
from prflow.store.phase_cuts import PhaseCutRecord, phase_cuts, record_cut


def _cut(workflow_id: str, activity_id: str, agent: str) -> PhaseCutRecord:
    return PhaseCutRecord(
        workflow_id=workflow_id, run_id="r1", activity_id=activity_id,
        workflow_kind="review", phase="deep_dives", agent=agent, model="m", cap="usd",
        reason="USD cap: next call needs at least $0.0100, $0.0040 of $0.08 left",
    )  # fmt: skip


def test_a_cut_is_kept_once_and_shown_under_its_run(db_url: str) -> None:
    run = "review:acme/cuts#3"
    record_cut(db_url, _cut(f"{run}/agent:dive-1", "7", "dive-1"))
    record_cut(db_url, _cut(f"{run}/agent:dive-1", "7", "dive-1"))  # the activity ran again
    record_cut(db_url, _cut("review:acme/other#4", "7", "dive-9"))

    [cut] = phase_cuts(db_url, workflow_id=run)
    assert (cut.workflow_id, cut.agent, cut.cap) == (run, "dive-1", "usd")
    assert "USD cap" in cut.reason


def test_migration_0011_adds_the_cuts_and_goes_back_down(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0009")
        command.upgrade(config, "0011")
        assert "llm_phase_cuts" in inspect(connection).get_table_names()
        command.downgrade(config, "0009")
        assert "llm_phase_cuts" not in inspect(connection).get_table_names()
    engine.dispose()
