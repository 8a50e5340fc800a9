"""A refactor that lives long: it continues-as-new between tasks carrying its DAG and finished
tasks, an operator raises an executor's cap while it waits, ``prflow costs`` sees its phases,
and with no model the run says so and changes nothing."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.budget import BudgetRaise
from prflow.config import Settings, cached_settings
from prflow.refactor.run_models import MODEL_PHASES, RefactorPhase, RunStatus
from prflow.run_progress import RunProgress
from prflow.store.costs import summarize
from prflow.store.ledger import spend_slices
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_repo import async_script, build_storage_repo, executor_key
from tests.support.refactor_runs import refactor_request, start_refactor
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240


async def test_the_run_continues_as_new_between_tasks_and_costs_show_its_phases(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    scripted_anthropic.route(async_script())
    request = refactor_request(
        temporal_settings, repo, dry_run=True, tasks_per_run=1, max_concurrency=1
    )
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-can")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    assert result.runs == 3, "one continue-as-new after each of the first two tasks"
    assert [(t.status, t.attempts) for t in result.tasks] == [("done", 1)] * 3
    for task in ("core", "callers", "tests"):
        turns = Counter(r.turn for r in scripted_anthropic.requests_of(executor_key(task, 1)))
        assert set(turns.values()) == {1}, f"{task}: a finished task's turns were resent"
    costs = summarize(spend_slices(cached_settings().resolved_database_url(), "refactor-can"))
    phases = {p.phase: p.model for p in costs.by_phase if p.workflow_kind == "refactor"}
    assert set(phases) == set(MODEL_PHASES)
    assert phases[RefactorPhase.planning] == temporal_settings.models.premium
    assert [w.workflow_id for w in costs.by_workflow] == ["refactor-can"], "tasks count to the run"
    assert costs.totals.usd == pytest.approx(result.cost_usd, rel=0.01)


async def test_a_raise_reaches_an_executor_waiting_at_its_cap(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    scripted_anthropic.route(async_script())
    request = refactor_request(temporal_settings, repo, dry_run=True)
    executor = request.plans[RefactorPhase.executor]
    executor.caps.iterations = 2  # the core executor needs three turns, the others two
    executor.raise_wait_seconds = 120
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-raise")
        for _ in range(400):
            progress = await handle.query("progress", result_type=RunProgress)
            if progress.waiting_for_budget:
                break
            await asyncio.sleep(0.1)
        assert progress.waiting_for_budget, "the executor waits at its iteration cap"
        assert progress.kind == "refactor"
        await handle.execute_update(
            "raise_budget", BudgetRaise(phase=RefactorPhase.executor, add_iterations=10)
        )
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    assert [t.status for t in result.tasks] == ["done"] * 3


async def test_static_mode_says_the_model_phases_were_skipped_and_changes_nothing(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    request = refactor_request(temporal_settings, repo, model=False, dry_run=True)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(
            temporal_client, temporal_settings, request, "refactor-no-llm"
        )
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.static
    assert "skipped" in result.reason and result.changed_files == []
    assert {"planning", "tasks", "validation"} <= set(result.skipped_phases)
    assert "diffs" not in " ".join(result.artifact_keys), "no edit is faked"
