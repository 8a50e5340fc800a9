"""``prflow budget raise`` on a run reaches its model phases, not only the agents running at
that moment: a refactor's later executors and a review's later reviewers start raised."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.refactor.run_models import RefactorPhase, RunStatus
from prflow.review.run_models import ReviewPhase
from tests.support.budget_waits import until_waiting_for_a_raise
from tests.support.cli_runs import client_environment, run_prflow
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_repo import async_script, build_storage_repo
from tests.support.refactor_runs import refactor_request, start_refactor
from tests.support.review_runs import review_request, start_review, two_reviewers_script
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

WAIT_SECONDS = 20
"""How long an agent at its cap waits for a raise: one that never gets it stops after this."""
RESULT_TIMEOUT = 240


async def _raise_with_the_cli(settings: Settings, home: Path, run_id: str, *args: str) -> str:
    env = client_environment(settings, home)
    run = await run_prflow("budget", "raise", run_id, *args, env=env)
    assert run.code == 0, run.describe()
    return run.stdout


async def test_executors_started_after_the_raise_start_with_it(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    """The core executor waits at its first call; callers and tests start only after core
    is done, so they exist only after the raise."""
    scripted_anthropic.route(async_script())
    repo = build_storage_repo(tmp_path / "notes")
    request = refactor_request(temporal_settings, repo, dry_run=True)
    executor = request.plans[RefactorPhase.executor]
    executor.caps.usd = 0.0001  # below any call's worst case
    executor.raise_wait_seconds = WAIT_SECONDS
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "raise-reach")
        waiting = await until_waiting_for_a_raise(handle, within=120)
        assert [a.name for a in waiting.agents if a.waiting_for_budget] == ["executor:core:1"]
        shown = await _raise_with_the_cli(temporal_settings, tmp_path, handle.id, "--usd", "1")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert "executor:core:1: $0.0000 of $1.00" in shown
    assert result.status == RunStatus.validated, result.reason
    assert [(t.task_id, t.status) for t in result.tasks] == [
        ("core", "done"),
        ("callers", "done"),
        ("tests", "done"),
    ]


async def test_reviewers_started_after_the_raise_start_with_it(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    tmp_path: Path,
) -> None:
    """One reviewer at a time: the first waits at its token cap, the second starts after
    the raise (a token cap, which unspent dollars of earlier phases cannot lift)."""
    scripted_anthropic.route(two_reviewers_script())
    request = review_request(temporal_settings, repo=sample_repo)
    request.max_concurrency = 1
    reviewers = request.plans[ReviewPhase.reviewers]
    reviewers.caps.tokens = 10
    reviewers.raise_wait_seconds = WAIT_SECONDS
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "raise-reach-r")
        waiting = await until_waiting_for_a_raise(handle, within=120)
        [first] = [a.name for a in waiting.agents if a.waiting_for_budget]
        assert first.startswith("reviewers:")
        await _raise_with_the_cli(
            temporal_settings, tmp_path, handle.id, "--phase", "reviewers", "--tokens", "500000"
        )
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.cut_phases == [], "no reviewer stopped at its cap"
    assert result.complete
