"""Runs go where their starter routes them: the request names no queue, custom queue names
from settings hold for the run and every child it starts (task workflows, child agents)."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from prflow.cli.run_client import start_or_attach
from prflow.config import Settings
from prflow.pr_tools.checks import CiState
from prflow.pr_tools.kind import PR_CHECKS
from prflow.pr_tools.run_models import PrChecksRequest
from prflow.refactor.kind import REFACTOR
from prflow.refactor.run_models import RunStatus
from prflow.task_queues import queue_names
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import run_worker
from tests.support.pr_checks_runs import HEAD, PR
from tests.support.refactor_repo import async_script, build_storage_repo
from tests.support.refactor_runs import refactor_request
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240
"""A run whose work went to a queue nobody polls never ends: fail instead of hanging."""


def off_the_rule(settings: Settings) -> Settings:
    """``settings`` with model and GitHub queues not named after the main queue, as a
    ``prflow.toml`` may name them: a run that guessed them would wait forever."""
    custom = settings.model_copy(deep=True)
    suffix = secrets.token_hex(3)
    custom.temporal.llm_task_queue = f"models-{suffix}"
    custom.temporal.github_task_queue = f"github-writes-{suffix}"
    return custom


async def scheduled_queues(client: Client, workflow_id: str) -> dict[str, set[str]]:
    """Activity name -> task queues it was scheduled on, over the run and its child tree."""
    found: dict[str, set[str]] = {}
    pending, seen = [workflow_id], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        history = await client.get_workflow_handle(current).fetch_history()
        for event in history.events:
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                attrs = event.activity_task_scheduled_event_attributes
                found.setdefault(attrs.activity_type.name, set()).add(attrs.task_queue.name)
            elif event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
                pending.append(
                    event.start_child_workflow_execution_initiated_event_attributes.workflow_id
                )
    return found


async def test_github_calls_go_to_a_custom_github_queue(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    fake_github_pr: FakeGitHub,
) -> None:
    settings = off_the_rule(temporal_settings)
    fake_github_pr.add_check_run("octo-org", "service", HEAD, "tests", "completed", "success")
    request = PrChecksRequest(pr=PR, poll_seconds=1)
    async with run_worker(temporal_client, settings):
        handle = await start_or_attach(temporal_client, PR_CHECKS, request, queue_names(settings))
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        history = await handle.fetch_history()

    assert result.state == CiState.passed
    started = history.events[0].workflow_execution_started_event_attributes
    assert b"task_queue" not in started.input.payloads[0].data, "the request names no queue"
    queues = await scheduled_queues(temporal_client, handle.id)
    assert queues["github_checks_snapshot"] == {settings.temporal.github_task_queue}


async def test_a_refactor_tree_keeps_custom_model_queues(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    """The run starts task workflows, which start executor agents: each one's model calls
    go to the configured model queue, none to a name guessed from the main queue."""
    settings = off_the_rule(temporal_settings)
    scripted_anthropic.route(async_script())
    repo = build_storage_repo(tmp_path / "notes")
    request = refactor_request(settings, repo, dry_run=True)
    async with run_worker(temporal_client, settings):
        handle = await start_or_attach(temporal_client, REFACTOR, request, queue_names(settings))
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        history = await handle.fetch_history()

    assert result.status == RunStatus.validated, result.reason
    started = history.events[0].workflow_execution_started_event_attributes
    assert b"task_queue" not in started.input.payloads[0].data, "the request names no queue"
    queues = await scheduled_queues(temporal_client, handle.id)
    assert queues["llm_call"] == {settings.temporal.llm_task_queue}
    assert len([t for t in result.tasks if t.status == "done"]) == 3
