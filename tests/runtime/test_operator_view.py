"""What an operator's Web UI lists after one ``prflow refactor`` run on a cluster: the run and
its own children only (no workflow started to read its artifacts), each child carrying Kind,
Role and ParentRun, so the pinned query ``ParentRun IS NULL`` shows the run alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowExecution

from prflow import search_attributes as sa
from prflow.config import Settings
from tests.support.cli_runs import client_environment, run_prflow
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_repo import DIRECTIVE, async_script, build_storage_repo
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal


async def _listed(client: Client, query: str, count: int) -> list[WorkflowExecution]:
    """The executions ``query`` lists once visibility holds ``count`` of them (it lags)."""
    listed: list[WorkflowExecution] = []
    for _ in range(50):
        listed = [execution async for execution in client.list_workflows(query)]
        if len(listed) >= count:
            break
        await asyncio.sleep(0.1)
    return listed


async def test_one_refactor_run_lists_itself_and_its_children_and_the_pinned_view_the_run(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    """The CLI has no access to the workers' database (its own home), so it reads the five
    patches and the reports through the cluster's workers."""
    scripted_anthropic.route(async_script())
    env = client_environment(temporal_settings, tmp_path / "laptop")
    repo = build_storage_repo(tmp_path / "notes")
    out = tmp_path / "out"
    async with run_worker(temporal_client, temporal_settings):
        run = await run_prflow(
            "refactor",
            *("--repo", str(repo), "--directive", DIRECTIVE, "--dry-run", "--output", str(out)),
            "--quiet",
            env=env,
        )
    assert run.code == 0, run.describe()
    assert len(list((out / "diffs").iterdir())) == 5, "the artifacts were read"

    on_queue = f'TaskQueue = "{temporal_settings.temporal.task_queue}"'
    listed = await _listed(temporal_client, on_queue, 7)
    [run_id] = [e.id for e in listed if e.workflow_type == "refactor"]
    types = sorted(e.workflow_type for e in listed)
    assert types == ["agent"] * 3 + ["refactor"] + ["refactor_task"] * 3, "no blob_read"
    for child in (e for e in listed if e.id != run_id):
        attributes = child.typed_search_attributes
        assert attributes.get(sa.KIND) == "refactor", child.id
        assert attributes.get(sa.PARENT_RUN) == run_id, child.id
        role = sa.ROLE_TASK if child.workflow_type == "refactor_task" else sa.ROLE_AGENT
        assert attributes.get(sa.ROLE) == role, child.id

    pinned = [e.id for e in await _listed(temporal_client, f"{on_queue} AND {sa.RUNS_ONLY}", 1)]
    helpers = await _listed(temporal_client, f'ParentRun = "{run_id}"', 6)
    assert pinned == [run_id]
    assert len(helpers) == 6
