"""The recovery ladder on the real workflow: a broken executor is retried with a narrowed scope
and then skipped or rolled back with its subtree (a run left with no step is aborted, the
user's tree byte-identical); tests failing before and after are reported, not blamed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.refactor.run_models import RunStatus
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_repo import (
    BROKEN_SUITE,
    async_script,
    build_storage_repo,
    executor_key,
)
from tests.support.refactor_runs import artifact, refactor_request, start_refactor
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240


async def test_a_failing_non_critical_task_is_retried_then_skipped(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    scripted_anthropic.route(async_script(docs_failures=5))
    request = refactor_request(temporal_settings, repo, dry_run=True, max_retries=1)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "ladder-skip")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    docs = next(t for t in result.tasks if t.task_id == "docs")
    assert docs.status == "skipped" and docs.attempts == 2
    assert "skipped after 2 attempts" in docs.reason and "gave up" not in docs.reason
    assert len(scripted_anthropic.requests_of(executor_key("docs", 2))) >= 1, "it was retried"
    assert not scripted_anthropic.requests_of(executor_key("docs", 3)), "retries are capped"
    assert [t.status for t in result.tasks if t.task_id != "docs"] == ["done"] * 3
    assert result.status == RunStatus.validated, result.reason
    assert "README.md" not in result.changed_files, "a skipped task leaves no edit behind"
    retry_prompt = scripted_anthropic.requests_of(executor_key("docs", 2))[0].body
    assert "Why you are trying again" in json.dumps(retry_prompt)


async def test_a_failing_critical_task_rolls_back_its_subtree(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    scripted_anthropic.route(async_script(broken_callers=3))
    request = refactor_request(temporal_settings, repo, dry_run=True, max_retries=1)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "ladder-rb")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    statuses = {t.task_id: t.status for t in result.tasks}
    assert statuses == {"core": "rolled_back", "callers": "rolled_back", "tests": "rolled_back"}
    callers = next(t for t in result.tasks if t.task_id == "callers")
    assert callers.attempts == 2 and "unawaited" not in callers.reason
    assert "word_count" in callers.reason or "read_note() is async" in callers.reason
    assert result.status == RunStatus.aborted and result.changed_files == []
    assert result.reason.startswith("every step failed (3 of 3): callers: rolled back after 2")
    summary = artifact(result, "pr-summary.md")
    assert "## Why it stopped" in summary and "## What was tried" in summary
    assert "- Step callers: 2 attempts, rolled_back" in summary


async def test_tests_failing_before_and_after_are_reported_not_blamed(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_storage_repo(tmp_path / "notes", BROKEN_SUITE)  # 3 of 5 pass before
    scripted_anthropic.route(async_script())
    request = refactor_request(temporal_settings, repo, apply=True)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "ladder-old")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    assert result.pass_rate == pytest.approx(0.6) and result.regressions == []
    assert result.applied, "a 60 % pass rate is no reason to refuse: nothing regressed"
    report = json.loads(artifact(result, "validation-report.json"))
    assert report["tests"]["still_failing"] == [
        "tests.test_legacy::test_legacy_format",
        "tests.test_legacy::test_legacy_size",
    ]
    assert "Failing before and after (not blamed" in artifact(result, "pr-summary.md")
